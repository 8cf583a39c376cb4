"""Tests of scripts/handout_markdown.py and scripts/check_handouts.py: hand-outs in plain Jupyter Markdown.

The chapters' MyST (exercise fences, citations, cross-references, the ledger's
roles) must reach a plain Jupyter front end as headings, text and links; every
hand-out is opened with nbformat, searched for MyST left over, and two chapters
are executed with nbclient up to their first exercise (all of them:
``make check-handouts``).
"""

import json
import re
import sys
from pathlib import Path

import nbformat
import pytest
import yaml
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from tests.test_make_student import _load

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"


hm = _load("handout_markdown")
make_student = _load("make_student")
check_handouts = _load("check_handouts")
check_student_html = _load("check_student_html")


# ----------------------------------------------------------------------------- a small book


def _book(tmp_path, records=None):
    """A two-chapter book (one unnumbered page, two numbered chapters) written to disk and indexed."""
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "book").mkdir()
    (tmp_path / "data").mkdir()
    (tmp_path / "_toc.yml").write_text(yaml.safe_dump({
        "format": "jb-book", "root": "book/intro",
        "parts": [{"caption": "Use", "chapters": [{"file": "book/how"}]},
                  {"caption": "One", "numbered": True, "chapters": [{"file": "notebooks/01_a"}]},
                  {"caption": "Two", "numbered": True, "chapters": [{"file": "notebooks/02_b"}]}],
    }))
    (tmp_path / "book" / "intro.md").write_text("# Welcome\n")
    (tmp_path / "book" / "how.md").write_text("(how-to)=\n# How to use it\n\n(run-it)=\n## Running the code\n")
    (tmp_path / "book" / "refs.bib").write_text(
        "@misc{solo2025,\n author = {Solo, Ann},\n title = {One},\n year = {2025},\n"
        " eprint = {2501.00001},\n archivePrefix = {arXiv}\n}\n"
        "@article{duo2020,\n author = {Duo, Bo and Pe{\\~n}a, Cy},\n title = {Two},\n year = {2020},\n"
        " doi = {10.1/xyz}\n}\n"
        "@book{many2019,\n author = {Ant, A and Bee, B and Cee, C},\n title = {Three},\n year = {2019}\n}\n")
    first = new_notebook(cells=[
        new_markdown_cell("(chap-a)=\n# Chapter A\n\n$$\nx = 1\n$$ (eq-a1)\n\n```{figure} pic.png\n:name: fig-a0\n\nA drawn figure.\n```"),
        new_code_cell("plot()", metadata={"mystnb": {"figure": {"name": "fig-a1", "caption": "First."}}}),
        new_code_cell("plot()", metadata={"mystnb": {"figure": {"name": "fig-a2", "caption": "Second."}}}),
        new_markdown_cell("```{table} Counts\n:name: tab-a1\n\n| a |\n|---|\n| 1 |\n```"),
        new_markdown_cell("```{exercise} Warm up\n:label: a-ex1\n\nDo it.\n```\n\n```{exercise}\n:label: a-ex2\n\nAgain.\n```"),
    ])
    second = new_notebook(cells=[
        new_markdown_cell("# Chapter B\n\n(sec-b)=\n## A section of B\n\n$$ y = 2 $$ (eq-b1)"),
        new_code_cell("plot()", metadata={"mystnb": {"figure": {"name": "fig-b1"}}}),
    ])
    nbformat.write(first, tmp_path / "notebooks" / "01_a.ipynb")
    nbformat.write(second, tmp_path / "notebooks" / "02_b.ipynb")
    rows = records if records is not None else [
        {"id": "x.one", "status": "replicated", "our_value": 0.5},
        {"id": "x.two", "status": "not_replicated", "our_value": [0.1, 0.3]},
    ]
    (tmp_path / "data" / "scorecard.json").write_text(json.dumps(rows))
    hm.load_book.cache_clear()
    return hm.load_book(tmp_path)


def test_the_index_numbers_chapters_figures_equations_and_exercises(tmp_path):
    book = _book(tmp_path)
    assert book.chapters == {"notebooks/01_a": 1, "notebooks/02_b": 2}
    assert book.titles["notebooks/01_a"] == "Chapter A" and book.titles["book/how"] == "How to use it"
    numbers = {k: (t.kind, t.number) for k, t in book.labels.items() if t.number}
    assert numbers == {
        "eq-a1": ("equation", "1.1"), "fig-a0": ("figure", "1.1"), "fig-a1": ("figure", "1.2"),
        "fig-a2": ("figure", "1.3"), "tab-a1": ("table", "1.1"), "a-ex1": ("exercise", "1.1"), "a-ex2": ("exercise", "1.2"),
        "eq-b1": ("equation", "2.1"), "fig-b1": ("figure", "2.1"),
    }
    assert book.labels["sec-b"] == hm.Target("notebooks/02_b", "section", "A section of B")
    assert book.labels["run-it"].text == "Running the code"
    assert book.citations["solo2025"] == ("Solo, 2025", "https://arxiv.org/abs/2501.00001")
    assert book.citations["duo2020"] == ("Duo and Peña, 2020", "https://doi.org/10.1/xyz")
    assert book.citations["many2019"] == ("Ant et al., 2019", "")


def test_roles_become_text_and_links(tmp_path):
    book = _book(tmp_path)
    doc = "notebooks/02_b"
    cases = {
        "{cite}`solo2025`": "[[Solo, 2025](https://arxiv.org/abs/2501.00001)]",
        "{cite}`solo2025,many2019`": "[[Solo, 2025](https://arxiv.org/abs/2501.00001); [Ant et al., 2019](../book/bibliography.md)]",
        "{cite:t}`duo2020`": "[Duo and Peña (2020)](https://doi.org/10.1/xyz)",
        "{doc}`01_a`": "[Chapter A](01_a.ipynb)",
        "{doc}`/book/how`": "[How to use it](../book/how.md)",
        "{doc}`the first <01_a>`": "[the first](01_a.ipynb)",
        "{ref}`run-it`": "[Running the code](../book/how.md#run-it)",
        "{ref}`here <sec-b>`": "[here](#sec-b)",
        "{numref}`fig-a2`": "[Fig. 1.3](01_a.ipynb#fig-a2)",
        "{numref}`Figure %s <fig-b1>`": "[Figure 2.1](#fig-b1)",
        "{numref}`tab-a1`": "[Table 1.1](01_a.ipynb#tab-a1)",
        "{numref}`a-ex2`": "[Exercise 1.2](01_a.ipynb#a-ex2)",
        "{eq}`eq-b1`": "[(2.1)](#eq-b1)",
        "{verdict}`x.one`": "[**replicated**](scorecard.ipynb#claim-x-one)",
        "{claim}`x.two`": "`x.two` [**not replicated**](scorecard.ipynb#claim-x-two)",
        "{ledger}`x.two`": "[0.1–0.3](scorecard.ipynb#claim-x-two)",
        "{ledger}`x.one|.1%`": "[50.0%](scorecard.ipynb#claim-x-one)",
        "{math}`a^2`": "$a^2$",
        "{kbd}`Ctrl`": "`Ctrl`",
    }
    for myst, plain in cases.items():
        assert hm.plain_markdown(f"See {myst} here.", doc, book) == f"See {plain} here.", myst


def test_code_is_left_alone(tmp_path):
    book = _book(tmp_path)
    text = "Write `{cite}` like this:\n\n```python\nx = '{doc}`01_a`'\n```\n\nand ``{ref}`y` ``."
    assert hm.plain_markdown(text, "notebooks/01_a", book) == text


@pytest.mark.parametrize("bad, message", [
    ("{cite}`nobody`", "no bibliography entry 'nobody'"),
    ("{doc}`03_missing`", "no page '03_missing'"),
    ("{ref}`no-such-label`", "no page or label 'no-such-label'"),
    ("{claim}`x.three`", "no record 'x.three'"),
])
def test_an_unknown_target_is_an_error_not_a_silent_literal(tmp_path, bad, message):
    book = _book(tmp_path)
    with pytest.raises(KeyError, match=re.escape(message)):
        hm.plain_markdown(bad, "notebooks/01_a", book)


def test_substitutions_read_the_config_as_the_book_does(tmp_path):
    """``{{ expr }}`` (the chapters' "On its own" recipes) is filled from ``_config.yml``."""
    book = _book(tmp_path)
    book.substitutions = {"repo_url": "https://example.org/r"}
    text = "Run {{ '`git clone %s`' % repo_url }} first."
    assert hm.plain_markdown(text, "notebooks/01_a", book) == "Run `git clone https://example.org/r` first."
    with pytest.raises(KeyError, match="undefined"):
        hm.plain_markdown("{{ nobody }}", "notebooks/01_a", book)
    real = hm.load_book()
    assert real.substitutions["repo_url"].startswith("https://")


def test_blocks_become_headed_markdown(tmp_path):
    book = _book(tmp_path)
    doc = "notebooks/01_a"
    source = ("(intro-label)=\n## Exercises\n\n```{exercise} Warm up\n:label: a-ex1\n\nShow {eq}`eq-a1`.\n```\n\n"
              "```{solution-start} a-ex1\n:class: dropdown\n```\n\nBecause.\n\n```{solution-end}\n```\n\n"
              ":::{admonition} Sketch of $x$\n:class: dropdown\n\nA proof.\n\n```python\nprint(1)\n```\n:::\n\n"
              ":::{important}\nRead this.\n:::\n\n"
              "```{table} Numbers\n:name: tab-x\n\n| a | b |\n|---|---|\n| 1 | 2 |\n```\n\n"
              "$$\nz = 3\n$$ (eq-a1)\n\n% a comment\n\n```{mystery} arg\nBody.\n```")
    out = hm.plain_markdown(source, doc, book)
    assert out == (
        '<a id="intro-label"></a>\n\n## Exercises\n\n#### Exercise 1.1: Warm up\n\nShow [(1.1)](#eq-a1).\n\n'
        "#### Solution to Exercise 1.1\n\nBecause.\n\n"
        "> **Sketch of $x$**\n>\n> A proof.\n>\n> ```python\n> print(1)\n> ```\n\n"
        "> **Important**\n>\n> Read this.\n\n"
        '<a id="tab-x"></a>\n**Numbers**\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n'
        '<a id="eq-a1"></a>\n\n$$\nz = 3\n\\tag{1.1}\n$$\n\n'
        "> **mystery: arg**\n>\n> Body."
    )
    assert hm.myst_left(out) == []


@pytest.mark.parametrize("text, kind", [
    ("A {cite}`x` citation.", "role"),
    ("```{exercise}\nDo.\n```", "directive"),
    (":::{note}\nHi\n:::", "directive"),
    (":::\nplain colon fence\n:::", "colon fence"),
    ("(a-label)=\n# Title", "label"),
    ("$$\nx\n$$ (eq-x)", "equation label"),
    (":label: ex-1\n", "directive option"),
    ("{{ substitution }}", "substitution"),
])
def test_myst_left_finds_each_kind(text, kind):
    assert [found.split(":")[0] for found in hm.myst_left(text)][:1] == [kind]


# ----------------------------------------------------------------------------- the real hand-outs


@pytest.fixture(scope="module")
def handouts(tmp_path_factory):
    hm.load_book.cache_clear()
    base = tmp_path_factory.mktemp("handouts")
    return {edition: make_student.make_student(NOTEBOOKS, base / edition, edition=edition)
            for edition in make_student.EDITIONS}


def _markdown(path):
    return [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown"]


def test_every_handout_is_plain_markdown_with_valid_code(handouts):
    names = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))
    for edition, written in handouts.items():
        assert sorted(p.name for p in written) == names, edition
        for path in written:
            nb = nbformat.read(path, as_version=4)
            nbformat.validate(nb)
            assert check_handouts.static_problems(nb) == [], (edition, path.name)


def test_the_chapters_hold_myst_to_convert():
    """Guard for the test above: without the conversion the chapters do hold roles and directives."""
    left = [found for p in NOTEBOOKS.glob("*.ipynb") for s in _markdown(p) for found in hm.myst_left(s)]
    kinds = {found.split(":")[0] for found in left}
    assert {"role", "directive", "label"} <= kinds and len(left) > 300


def test_student_handouts_have_exercises_and_no_solutions(handouts):
    for path in handouts["student"]:
        nb = nbformat.read(path, as_version=4)
        assert check_student_html.count_notebook(nb) == 0, path.name
        exercises = sum(len(re.findall(r"^#### Exercise \d+\.\d+", s, re.M)) for s in _markdown(path))
        original = sum(s.count("{exercise}") for s in _markdown(NOTEBOOKS / path.name))
        assert exercises == original, path.name


def test_instructor_handouts_keep_every_solution_under_its_heading(handouts):
    for path in handouts["instructor"]:
        gated = sum(s.count("{solution-start}") for s in _markdown(NOTEBOOKS / path.name))
        headings = re.findall(r"^#### Solution to (Exercise \d+\.\d+)$", "\n".join(_markdown(path)), re.M)
        assert len(headings) == gated, path.name
        assert all(h in "\n".join(_markdown(path)) for h in (f"#### {e}" for e in headings))
        assert check_student_html.count_notebook(nbformat.read(path, as_version=4)) == gated


def test_verdicts_in_the_handouts_are_the_stored_ones(handouts):
    """Every {claim} of a chapter reads, in its hand-out, as the id and the verdict of data/scorecard.json."""
    from semvar.claims import VERDICT_WORDS

    status = {r["id"]: r["status"] for r in json.loads((ROOT / "data" / "scorecard.json").read_text())}
    checked = 0
    for path in handouts["student"]:
        text = "\n".join(_markdown(path))
        for rid in set(re.findall(r"\{claim\}`([^`]+)`", "\n".join(_markdown(NOTEBOOKS / path.name)))):
            assert f"`{rid}` [**{VERDICT_WORDS[status[rid]]}**](scorecard.ipynb#claim-" in text, (path.name, rid)
            checked += 1
    assert checked > 50


def test_links_between_handouts_point_at_files_that_exist(handouts):
    for path in handouts["student"]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", "\n".join(_markdown(path))):
            if target.startswith("http"):
                continue
            where = path.parent / target if target.endswith(".ipynb") else NOTEBOOKS / target
            assert where.exists(), (path.name, target)


def test_the_checker_fails_a_handout_with_myst_or_a_syntax_error(tmp_path):
    nbformat.write(new_notebook(cells=[new_markdown_cell("See {doc}`x`."), new_code_cell("def f(:")]),
                   tmp_path / "bad.ipynb")
    nbformat.write(new_notebook(cells=[new_markdown_cell("# Fine"), new_code_cell("%matplotlib inline\nx = 1")]),
                   tmp_path / "good.ipynb")
    assert check_handouts.main([str(tmp_path)]) == 1
    problems = check_handouts.check_notebook(tmp_path / "bad.ipynb").problems
    assert problems[0].startswith("cell 0: role") and "syntax error" in problems[1]
    assert check_handouts.check_notebook(tmp_path / "good.ipynb").problems == []


def test_execution_stops_at_the_first_exercise(tmp_path):
    nb = new_notebook(cells=[
        new_code_cell("x = 1"),
        new_markdown_cell("## Exercises\n\n#### Exercise 1.1\n\nDo it."),
        new_code_cell("raise RuntimeError('a student cell')"),
    ], metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    assert check_handouts.first_exercise(nb) == 1
    assert check_handouts.run_to_first_exercise(nb, tmp_path) == 1
    nb.cells.insert(1, new_code_cell("raise ValueError('broken before the exercises')"))
    path = tmp_path / "broken.ipynb"
    nbformat.write(nb, path)
    result = check_handouts.check_notebook(path, execute=True)
    assert result.problems and "broken before the exercises" in result.problems[0]


@pytest.mark.parametrize("name", ["04_choosing_k.ipynb", "11_exchangeable_concentration.ipynb"])
def test_two_chapters_run_as_handed_out(handouts, name):
    """A student hand-out runs in a fresh kernel up to its first exercise (all: make check-handouts)."""
    path = next(p for p in handouts["student"] if p.name == name)
    nb = nbformat.read(path, as_version=4)
    assert 0 < check_handouts.first_exercise(nb) < len(nb.cells)
    # the hand-outs are meant to lie beside notebooks/ (student/): run them from a folder at that depth
    ran = check_handouts.run_to_first_exercise(nb, NOTEBOOKS, timeout=300)
    assert ran >= 3


# ----------------------------------------------------------------------------- the README's notebook path


def _readme_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)```", text, flags=re.S)
    return [line.split("#")[0].strip() for block in blocks for line in block.splitlines() if line.split("#")[0].strip()]


def test_the_readme_make_targets_exist():
    commands = _readme_commands()
    targets = set(re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(), flags=re.M))
    used = {word for c in commands if c.startswith("make") for word in c.split()[1:] if "=" not in word}
    assert {"pdf", "student", "instructor", "check-handouts"} <= used
    assert used <= targets, used - targets


def test_jupyterlab_is_installed_and_the_readme_opens_notebooks_that_exist():
    """`make` installs JupyterLab (requirements.txt); the README's `jupyter lab` commands name real notebooks."""
    import subprocess

    bin_dir = Path(sys.executable).parent
    assert re.search(r"^jupyterlab==\d", (ROOT / "requirements.txt").read_text(), flags=re.M)
    version = subprocess.run([str(bin_dir / "jupyter"), "lab", "--version"], capture_output=True, text=True,
                             timeout=120, check=True).stdout.strip()
    assert int(version.split(".")[0]) >= 4
    opened = [c.split()[-1] for c in _readme_commands() if c.startswith(".venv/bin/jupyter lab")]
    assert opened
    for path in opened:
        folder, name = path.split("/", 1)
        # student/ is written by `make student` from notebooks/: the chapter must exist there
        assert (ROOT / ("notebooks" if folder == "student" else folder) / name).is_file(), path
