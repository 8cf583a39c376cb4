"""The book's structure: exercise labels, cross-references, chapter openers, code width and the intro's map.

Every rule is read from the sources (``_toc.yml``, ``notebooks/NN_name.md``, ``book/*.md``),
so renumbering a chapter is a file rename and nothing typed by hand can fall behind.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted(p for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.md"))
PAGES = CHAPTERS + sorted((ROOT / "book").glob("*.md")) + [ROOT / "notebooks" / "scorecard.md"]
NOTEBOOK_PAGES = CHAPTERS + [ROOT / "notebooks" / "scorecard.md"]
CODE_WIDTH = 88  # characters of a code line shown on the page

EXERCISE_LABEL = re.compile(r"^```\{exercise\}[^\n]*\n(?::[a-z-]+:[^\n]*\n)*?:label:\s*(\S+)", re.M)
SOLUTION_TARGET = re.compile(r"^```\{solution(?:-start)?\}\s*(\S+)", re.M)
TARGET = re.compile(r"^\(([A-Za-z0-9_.:-]+)\)=\s*$|^:(?:label|name):\s*(\S+)", re.M)
REF = re.compile(r"\{(?:ref|numref)\}`(?:[^`<]*<)?([^`<>]+)>?`")
# A role whose rendered text already is a title or carries its own "Exercise 9.2"/"Fig. 3":
# a word such as "Chapter" in front of it is printed twice or reads "Chapter The judge budget".
DOUBLED = re.compile(r"(?i)\b(chapters?|exercises?|sections?|figures?|figs?\.|tables?)\s+"
                     r"\{(doc|ref|numref)\}`[^`<]+`")
OPENER_MARKERS = ("**Learning objectives.**", "**Prerequisites.**", "**Run time.**")
ON_ITS_OWN = "**On its own.**"
EXERCISE_OPEN = re.compile(r"^```\{exercise(?:-start)?\}")
SOLUTION_OPEN = re.compile(r"^```\{solution(?:-start)?\}\s*(\S+)")


def _number(path: Path) -> int:
    return int(path.name[:2])


def _toc_files() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    out: list[str] = []

    def walk(entries):
        for e in entries:
            if "file" in e:
                out.append(e["file"])
            walk(e.get("sections", []))

    for part in toc["parts"]:
        walk(part["chapters"])
    return out


def test_chapter_files_are_numbered_in_reading_order():
    chapters = [f for f in _toc_files() if re.fullmatch(r"notebooks/\d\d_\w+", f)]
    assert chapters == sorted(chapters), chapters
    assert [int(Path(f).name[:2]) for f in chapters] == list(range(1, len(chapters) + 1))
    assert {f"notebooks/{p.stem}" for p in CHAPTERS} == set(chapters)


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_exercise_labels_follow_the_chapter_number(path):
    text = path.read_text(encoding="utf-8")
    labels = EXERCISE_LABEL.findall(text)
    assert labels, f"{path.name} has no exercise"
    n = _number(path)
    expected = [f"ch{n:02d}-ex{m}" for m in range(1, len(labels) + 1)]
    assert labels == expected, f"{path.name}: labels {labels}, expected {expected}"
    assert set(SOLUTION_TARGET.findall(text)) <= set(labels), path.name


def _figure_names(text: str) -> set[str]:
    """Names of the numbered figures of a MyST page (``mystnb.figure.name`` in a code cell's options)."""
    names = set()
    for m in re.finditer(r"^```\{code-cell\}[^\n]*\n---\n(.*?)\n---\n", text, re.M | re.S):
        figure = (yaml.safe_load(m.group(1)) or {}).get("mystnb", {}).get("figure", {})
        if figure.get("name"):
            names.add(figure["name"])
    return names


#: a result table's label: a ``"tbl-..."`` string (``name=`` of ``semvar.tables.show_table``, or a string the cell
#: passes on to it); in an f-string, group 1 is ``f``
TABLE_LABEL = re.compile(r'(?<!\w)(f?)"(tbl-[^"]+)"')


def table_names(text: str) -> list[re.Pattern]:
    r"""Labels of the result tables of a page, as patterns: every ``"tbl-..."`` string of a code cell that calls
    ``show_table`` (an f-string's fields match any text).

    >>> cell = '```{code-cell} ipython3\nfor i in (1, 2):\n    show_table(t, name=f"tbl-a-{i}")\n'
    >>> [p.pattern for p in table_names(cell + 'show_table(u, name="tbl-b")\nx = "tbl-c"\n```\n')]
    ['tbl\\-a\\-.+', 'tbl\\-b', 'tbl\\-c']
    >>> table_names('```{code-cell} ipython3\nx = "tbl-d"\n```\n')  # no show_table: no table
    []
    """
    patterns: dict[str, re.Pattern] = {}
    for cell in re.findall(r"^```\{code-cell\}.*?^```$", text, re.M | re.S):
        if "show_table(" not in cell:
            continue
        for f, name in TABLE_LABEL.findall(cell):
            pattern = ("".join(".+" if part.startswith("{") else re.escape(part)
                               for part in re.split(r"(\{[^}]*\})", name) if part)
                       if f else re.escape(name))
            patterns.setdefault(pattern, re.compile(pattern))
    return list(patterns.values())


def test_every_ref_target_exists():
    targets: set[str] = set()
    tables: list[re.Pattern] = []
    for p in PAGES:
        text = p.read_text(encoding="utf-8")
        for a, b in TARGET.findall(text):
            targets.add(a or b)
        targets |= _figure_names(text)
        tables += table_names(text)
    missing = []
    for p in PAGES:
        for t in REF.findall(p.read_text(encoding="utf-8")):
            if t not in targets and not any(pat.fullmatch(t) for pat in tables):
                missing.append(f"{p.relative_to(ROOT)}: {t}")
    assert not missing, missing


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_no_doubled_words_before_a_titled_reference(path):
    text = path.read_text(encoding="utf-8")
    bad = [m.group(0).replace("\n", " ") for m in DOUBLED.finditer(text)]
    assert not bad, f"{path.name}: {bad}"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_opener_has_objectives_prerequisites_and_run_time(path):
    text = path.read_text(encoding="utf-8")
    m = re.search(r"^## Overview\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert m, f"{path.name} has no Overview section"
    missing = [k for k in OPENER_MARKERS if k not in m.group(1)]
    assert not missing, f"{path.name}: opener lacks {missing}"


def test_intro_lists_the_chapters_of_the_toc_in_order():
    intro = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
    section = re.search(r"^## How the chapters connect\n(.*?)(?=^## )", intro, re.M | re.S).group(1)
    toc_chapters = [f for f in _toc_files() if f.startswith("notebooks/") and f != "notebooks/scorecard"]
    table = [d.lstrip("/") for d in re.findall(r"\{doc\}`(/notebooks/\d\d_\w+)`", section)]
    assert table == toc_chapters, table
    diagram = re.search(r"```text\n(.*?)```", section, re.S).group(1)
    numbers = sorted({int(x) for x in re.findall(r"(?:^\s*|─►\s)(\d{1,2}) [A-Za-z]", diagram, re.M)})
    assert numbers == list(range(1, len(toc_chapters) + 1)), numbers


def test_no_page_speaks_of_an_edition_of_the_book():
    bad = []
    for p in PAGES:
        for m in re.finditer(r"(?i)\b(first|earlier|previous|second|older) edition\b", p.read_text(encoding="utf-8")):
            bad.append(f"{p.relative_to(ROOT)}: {m.group(0)}")
    assert not bad, bad


def _code_cells(text: str) -> list[tuple[int, list[str]]]:
    """``(line number of the first code line, code lines)`` of every code cell of a MyST page.

    The cell's options (a YAML block between ``---`` lines, or ``:key: value`` lines) are
    not code: the page does not show them.
    """
    lines = text.split("\n")
    cells, i = [], 0
    while i < len(lines):
        if not lines[i].startswith("```{code-cell}"):
            i += 1
            continue
        j = i + 1
        if j < len(lines) and lines[j] == "---":
            j = lines.index("---", j + 1) + 1
        else:
            while j < len(lines) and re.match(r"^:[\w-]+:", lines[j]):
                j += 1
        k = j
        while k < len(lines) and not lines[k].startswith("```"):
            k += 1
        cells.append((j + 1, lines[j:k]))
        i = k + 1
    return cells


def test_code_cells_are_found_with_their_options_left_out():
    page = "\n".join(["text", "```{code-cell} ipython3", "---", "tags: [hide-input]", "mystnb:",
                      "  figure:", "    caption: " + "x" * 100, "---", "a = 1", "```", "",
                      "```{code-cell} ipython3", ":tags: [hide-output]", "", "b = 2", "```"])
    assert [(n, [ln for ln in code if ln]) for n, code in _code_cells(page)] == [(9, ["a = 1"]), (14, ["b = 2"])]


@pytest.mark.parametrize("path", NOTEBOOK_PAGES, ids=lambda p: p.stem)
def test_code_lines_fit_the_page(path):
    long = [f"line {start + k}: {len(line)} characters"
            for start, code in _code_cells(path.read_text(encoding="utf-8"))
            for k, line in enumerate(code) if len(line) > CODE_WIDTH]
    assert not long, f"{path.name}: code lines longer than {CODE_WIDTH}: {long}"


def _exercise_ends(lines: list[str]) -> dict[str, int]:
    """Label -> index of the line that closes the exercise's fence."""
    ends, i = {}, 0
    while i < len(lines):
        if EXERCISE_OPEN.match(lines[i]):
            j = i + 1
            while j < len(lines) and lines[j] != "```":
                j += 1
            block = "\n".join(lines[i:j])
            label = re.search(r"^:label:\s*(\S+)", block, re.M)
            if label:
                ends[label.group(1)] = j
            i = j + 1
        else:
            i += 1
    return ends


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_solution_directly_follows_its_exercise(path):
    lines = path.read_text(encoding="utf-8").split("\n")
    ends = _exercise_ends(lines)
    bad = []
    for i, line in enumerate(lines):
        m = SOLUTION_OPEN.match(line)
        if not m:
            continue
        label = m.group(1)
        if label not in ends:
            bad.append(f"line {i + 1}: solution to unknown exercise {label}")
            continue
        between = [ln for ln in lines[ends[label] + 1:i] if ln.strip() not in ("", "+++")]
        if ends[label] > i or between:
            bad.append(f"line {i + 1}: solution {label} does not follow its exercise")
    assert not bad, f"{path.name}: {bad}"


def _chapter_needs() -> dict[str, object]:
    spec = importlib.util.spec_from_file_location("_scripts_chapter_data", ROOT / "scripts" / "chapter_data.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return dict(module.chapter_table(ROOT / "notebooks"))


@pytest.fixture(scope="module")
def chapter_needs():
    return _chapter_needs()


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_opener_says_how_to_run_the_chapter_on_its_own(path, chapter_needs):
    """The ``**On its own.**`` paragraph: the install line and what the chapter reads.

    What the chapter reads comes from ``scripts/chapter_data.py`` (the table of "How to
    use this book"): every data folder is named, a chapter that reads stored results
    says to run it from a clone of the repository (or names the files), and a chapter
    that loads the embedding model installs the ``embed`` extra.
    """
    text = path.read_text(encoding="utf-8")
    overview = re.search(r"^## Overview\n(.*?)(?=^## |\Z)", text, re.M | re.S).group(1)
    assert overview.count(ON_ITS_OWN) == 1, f"{path.name}: the opener needs one {ON_ITS_OWN} paragraph"
    assert overview.index("**Run time.**") < overview.index(ON_ITS_OWN), f"{path.name}: {ON_ITS_OWN} before Run time"
    paragraph = overview[overview.index(ON_ITS_OWN):].split("\n\n")[0]
    url = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["repository"]["url"]
    # the recipe reads the url from _config.yml: {{ '`git clone --depth 1 %s`' % repo_url }}
    paragraph = re.sub(r"\{\{ '([^']*)' % repo_url \}\}", lambda m: m.group(1) % url, paragraph)
    needs = chapter_needs[path.stem]
    problems = []
    if "pip install" not in paragraph or url not in paragraph:
        problems.append(f"no `pip install` from {url}")
    problems += [f"data folder {f} not named" for f in sorted(needs.folders) if f not in paragraph]
    if needs.results and "git clone" not in paragraph and not all(r in paragraph for r in needs.results):
        problems.append(f"reads stored results {sorted(needs.results)} but says neither `git clone` nor their names")
    if needs.model and "embed" not in paragraph:
        problems.append("loads the embedding model but does not install the `embed` extra")
    assert not problems, f"{path.name}: {problems}"
