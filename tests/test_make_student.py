"""Tests of scripts/make_student.py (hand-out notebooks) and scripts/export_figures.py."""

import base64
import importlib.util
import io
import json
import re
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import nbformat  # noqa: E402
import pytest  # noqa: E402
import yaml  # noqa: E402
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"


def _load(name):
    spec = importlib.util.spec_from_file_location(f"_scripts_{name}", ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


make_student = _load("make_student")
export_figures = _load("export_figures")


def _png_base64(color="red"):
    fig, ax = plt.subplots(figsize=(1, 1))
    ax.plot([0, 1], [0, 1], color=color)
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _executed(source, text=None, png=None, count=1):
    cell = new_code_cell(source, execution_count=count)
    if text is not None:
        cell.outputs.append(new_output("stream", name="stdout", text=text))
    if png is not None:
        cell.outputs.append(new_output("display_data", data={"image/png": png, "text/plain": "<Figure>"}))
    return cell


def _tiny_notebook():
    """Exercises with both solution forms: gated (sphinx-exercise) and dropdown admonitions."""
    return new_notebook(
        metadata={"widgets": {"application/vnd.jupyter.widget-state+json": {}},
                  "jupytext": {"formats": "ipynb,md:myst"}},
        cells=[
            new_markdown_cell("# Chapter\n\nSome prose."),
            _executed("x = 2\nprint(x)", text="2\n", png=_png_base64()),
            new_markdown_cell(
                "## Exercises\n\n```{exercise} Double it\n:label: ex-double\n\nCompute 2x.\n```"
            ),
            new_markdown_cell("```{solution-start} ex-double\n:class: dropdown\n```\n\nMultiply by two:"),
            _executed("print(SECRET_ANSWER_ONE)", text="4\n", count=2),
            new_markdown_cell("The answer is 4.\n\n```{solution-end}\n```"),
            new_markdown_cell(
                "1. Prove the claim.\n2. Explain it.\n\n"
                ":::{admonition} Solution to exercise 1\n:class: dropdown\n\n"
                "SECRET_ANSWER_TWO.\n\n```python\nprint(1)\n```\n:::\n\n"
                "::::{dropdown} Solution to exercise 2\n\n:::{note}\nSECRET_ANSWER_THREE\n:::\n\n::::\n\n"
                ":::{admonition} Hint for exercise 2\n:class: dropdown\n\nThink of symmetry.\n:::\n\n"
                "```python\n:::{admonition} Solution in a code block is text\n```\n"
            ),
            new_markdown_cell(":::{admonition} Solution to exercise 3\n:class: dropdown\n\nSECRET_ANSWER_FOUR\n:::"),
            _executed("y = x + 1\ny", count=3),
        ],
    )


def test_tiny_notebook_loses_solutions_keeps_exercises_and_clears_outputs():
    nb = _tiny_notebook()
    before = json.dumps(nb, sort_keys=True)
    out = make_student.student_notebook(nb)
    assert json.dumps(nb, sort_keys=True) == before  # the input is left unchanged
    text = "\n".join(c.source for c in out.cells)
    for secret in ("SECRET_ANSWER_ONE", "SECRET_ANSWER_TWO", "SECRET_ANSWER_THREE", "SECRET_ANSWER_FOUR",
                   "The answer is 4", "Multiply by two", "solution-start", "solution-end", "Solution to exercise"):
        assert secret not in text, secret
    # the exercises, a hint and prose stay
    for kept in ("Some prose.", "{exercise} Double it", "Compute 2x.", "1. Prove the claim.", "2. Explain it.",
                 "Hint for exercise 2", "Think of symmetry.", "Solution in a code block is text", "y = x + 1"):
        assert kept in text, kept
    # the gated cells and the all-solution cell are gone; nothing is left empty
    assert [c.cell_type for c in out.cells] == ["markdown", "code", "markdown", "markdown", "code"]
    assert all(c.source.strip() for c in out.cells)
    for cell in out.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None
    assert "widgets" not in out.metadata
    assert "formats" not in out.metadata.get("jupytext", {})
    nbformat.validate(out)


def test_text_outside_the_gate_in_the_marker_cells_is_kept():
    nb = new_notebook(cells=[
        new_markdown_cell("Try it.\n\n```{solution-start} ex\n```\nHIDDEN"),
        _executed("HIDDEN_CODE = 1"),
        new_markdown_cell("HIDDEN too\n```{solution-end}\n```\n\nNext section."),
    ])
    out = make_student.student_notebook(nb)
    assert [c.source for c in out.cells] == ["Try it.", "Next section."]


@pytest.mark.parametrize("cells, message", [
    ([new_markdown_cell("```{solution-start} ex\n```"), new_code_cell("1")], "has no solution-end"),
    ([new_markdown_cell("```{solution-end}\n```")], "no solution-start before it"),
    ([new_markdown_cell("```{solution-start} a\n```"), new_markdown_cell("```{solution-start} b\n```"),
      new_markdown_cell("```{solution-end}\n```")], "before the previous one's solution-end"),
])
def test_unpaired_gates_are_refused(cells, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        make_student.student_notebook(new_notebook(cells=cells), "bad.ipynb")


def test_bad_folders_are_refused(tmp_path):
    with pytest.raises(ValueError, match="source=.*is not a folder"):
        make_student.make_student(tmp_path / "missing", tmp_path / "out")
    with pytest.raises(ValueError, match="holds no .ipynb files"):
        make_student.make_student(tmp_path, tmp_path / "out")
    nbformat.write(new_notebook(), tmp_path / "a.ipynb")
    with pytest.raises(ValueError, match="dest=.*is the source folder"):
        make_student.make_student(tmp_path, tmp_path)
    with pytest.raises(ValueError, match="source=.*is not a folder"):
        export_figures.export_figures(tmp_path / "missing", tmp_path / "figs")


def test_a_bad_notebook_writes_no_partial_handout(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    nbformat.write(_tiny_notebook(), src / "a.ipynb")
    nbformat.write(new_notebook(cells=[new_markdown_cell("```{solution-start} x\n```")]), src / "b.ipynb")
    with pytest.raises(ValueError, match="b.ipynb"):
        make_student.make_student(src, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_tiny_notebook_round_trip_through_files(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    nbformat.write(_tiny_notebook(), src / "01_tiny.ipynb")
    written = make_student.make_student(src, tmp_path / "student")
    assert written == [tmp_path / "student" / "01_tiny.ipynb"]
    assert "SECRET_ANSWER" not in written[0].read_text()
    nbformat.validate(nbformat.read(written[0], as_version=4))


def test_real_chapters_lose_every_solution(tmp_path):
    written = make_student.make_student(NOTEBOOKS, tmp_path)
    sources = sorted(NOTEBOOKS.glob("*.ipynb"))
    assert [p.name for p in written] == [p.name for p in sources]
    for path, original_path in zip(written, sources):
        nb = nbformat.read(path, as_version=4)
        original = nbformat.read(original_path, as_version=4)
        text = "\n".join(c.source for c in nb.cells)
        assert "solution-start" not in text and "solution-end" not in text, path.name
        assert not re.search(r"\{(admonition|dropdown)\}\s*Solution", text), path.name
        assert not re.search(r"\{solution\}", text), path.name
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None
        # what is not a solution survives: every exercise heading and every non-solution code cell
        original_text = "\n".join(c.source for c in original.cells)
        assert text.count("## Exercises") == original_text.count("## Exercises"), path.name
        n_code = sum(c.cell_type == "code" for c in nb.cells)
        assert 0 < n_code <= sum(c.cell_type == "code" for c in original.cells)


def test_real_chapters_have_solutions_to_remove():
    """Guard for the test above: the chapters do hold solutions in one of the two forms."""
    text = "\n".join(c.source for p in NOTEBOOKS.glob("*.ipynb") for c in nbformat.read(p, as_version=4).cells)
    assert "solution-start" in text or re.search(r"\{(admonition|dropdown)\}\s*Solution", text)


def test_export_figures_tiny(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    red, blue = _png_base64("red"), _png_base64("blue")
    nb = new_notebook(cells=[
        new_markdown_cell("text"),
        _executed("plot()", png=red),
        _executed("print(1)", text="1\n"),
        new_code_cell("two()", execution_count=4, outputs=[
            new_output("display_data", data={"image/png": red}),
            new_output("execute_result", data={"image/png": blue}, execution_count=4),
        ]),
    ])
    nbformat.write(nb, src / "02_ch.ipynb")
    nbformat.write(new_notebook(cells=[new_code_cell("1")]), src / "03_empty.ipynb")
    written = export_figures.export_figures(src, tmp_path / "figs")
    assert [p.relative_to(tmp_path / "figs").as_posix() for p in written] == [
        "02_ch/001.png", "02_ch/003.png", "02_ch/003_2.png"]
    assert written[0].read_bytes() == base64.b64decode(red)
    assert written[2].read_bytes() == base64.b64decode(blue)
    assert not (tmp_path / "figs" / "03_empty").exists()


def test_export_figures_refuses_non_png(tmp_path):
    nb = new_notebook(cells=[new_code_cell("x", execution_count=1, outputs=[
        new_output("display_data", data={"image/png": base64.b64encode(b"GIF89a...").decode()})])])
    with pytest.raises(ValueError, match="cell 0: .*does not hold PNG data"):
        export_figures.notebook_pngs(nb)


def test_export_figures_real_chapters(tmp_path):
    written = export_figures.export_figures(NOTEBOOKS, tmp_path)
    n_png = sum(
        "image/png" in o.get("data", {})
        for p in NOTEBOOKS.glob("*.ipynb")
        for c in nbformat.read(p, as_version=4).cells if c.cell_type == "code"
        for o in c.outputs
    )
    assert n_png > 0 and len(written) == n_png
    assert all(p.read_bytes().startswith(b"\x89PNG\r\n\x1a\n") for p in written)
    assert {p.parent.name for p in written} <= {p.stem for p in NOTEBOOKS.glob("*.ipynb")}


# ---- the course kit: student edition, its check, the chapters' data, the PDF -------------

check_student_html = _load("check_student_html")
build_student_book = _load("build_student_book")
chapter_data = _load("chapter_data")
make_pdf = _load("make_pdf")


def test_student_overlay_hides_solutions_and_keeps_the_rest_of_the_config():
    import yaml

    overlay = yaml.safe_load((ROOT / "book" / "_config_student.yml").read_text())
    assert overlay["sphinx"]["config"]["hide_solutions"] is True
    base = yaml.safe_load((ROOT / "_config.yml").read_text())
    merged = build_student_book.student_config()
    assert merged["sphinx"]["config"]["hide_solutions"] is True
    assert "hide_solutions" not in base["sphinx"].get("config", {})  # the normal edition shows them
    # everything else of the normal edition stays: extensions, exclusions, the rest of sphinx.config
    assert merged["sphinx"]["extra_extensions"] == base["sphinx"]["extra_extensions"]
    assert merged["exclude_patterns"] == base["exclude_patterns"]
    assert set(base["sphinx"]["config"]) <= set(merged["sphinx"]["config"])
    # the course-kit extension (which removes gated solutions) is loaded, from an absolute folder
    assert "course_kit" in merged["sphinx"]["local_extensions"]
    for folder in merged["sphinx"]["local_extensions"].values():
        assert Path(folder).is_absolute() and Path(folder).is_dir()


def test_merge_oracle():
    assert build_student_book.merge({"a": {"x": 1, "y": {"z": 2}}, "b": [1, 2]}, {"a": {"y": {"w": 3}}, "b": [3]}) == \
        {"a": {"x": 1, "y": {"z": 2, "w": 3}}, "b": [3]}


def test_checker_counts_solution_blocks_in_html():
    exercise = '<div class="exercise admonition" id="ex1"><p class="admonition-title">Exercise 1</p><p>Do.</p></div>'
    solution = ('<div class="solution dropdown admonition" id="sol1"><p class="admonition-title">Solution to '
                '<a href="#ex1">Exercise 1</a></p><section id="solution-content"><img src="x.png"><p>A.</p>'
                '</section></div>')
    dropdown = '<div class="admonition dropdown"><p class="admonition-title">Solution to exercise 2</p></div>'
    assert check_student_html.count_html(exercise) == (0, 1)
    assert check_student_html.count_html(exercise + solution) == (1, 1)  # its title is not counted again
    assert check_student_html.count_html(exercise + solution + dropdown + solution) == (3, 1)
    hint = '<div class="admonition dropdown"><p class="admonition-title">Hint for exercise 2</p></div>'
    assert check_student_html.count_html(hint) == (0, 0)


def test_checker_on_handouts_of_two_chapters(tmp_path, capsys):
    """make_student on two chapters leaves no solution the checker can find; the originals have some."""
    chapters = sorted(NOTEBOOKS.glob("0[12]_*.ipynb"))
    assert len(chapters) == 2
    src, out = tmp_path / "src", tmp_path / "html"
    src.mkdir()
    for path in chapters:
        (src / path.name).write_bytes(path.read_bytes())
    originals = [check_student_html.count_notebook(nbformat.read(p, as_version=4)) for p in chapters]
    assert all(n > 0 for n in originals)
    make_student.make_student(src, out / "_sources")
    (out / "page.html").write_text('<div class="exercise admonition"><p>Do.</p></div>')
    assert check_student_html.main([str(out)]) == 0
    assert "solutions found: 0" in capsys.readouterr().out
    # the same folder with the original notebooks fails, and names them
    for path in chapters:
        (out / "_sources" / path.name).write_bytes(path.read_bytes())
    assert check_student_html.main([str(out)]) == 1
    printed = capsys.readouterr().out
    assert f"solutions found: {sum(originals)}" in printed and chapters[0].name in printed


def test_checker_refuses_an_empty_or_missing_folder(tmp_path):
    assert check_student_html.main([str(tmp_path)]) == 2
    with pytest.raises(ValueError, match="is not a folder"):
        check_student_html.check(tmp_path / "missing")


def _tiny_sphinx_book(tmp_path, hide):
    """A two-exercise reST project built with sphinx-exercise and book/_ext/course_kit.py."""
    from sphinx.application import Sphinx
    from sphinx.util.docutils import docutils_namespace

    src = tmp_path / ("src_hide" if hide else "src")
    src.mkdir()
    (src / "conf.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT / 'book' / '_ext')!r})\n"
        "extensions = ['sphinx_exercise', 'course_kit']\n"
        f"hide_solutions = {hide}\n"
    )
    (src / "index.rst").write_text(
        "Chapter\n=======\n\nProse.\n\n"
        ".. exercise:: One\n   :label: ch01-ex1\n\n   Do it.\n\n"
        ".. solution-start:: ch01-ex1\n   :class: dropdown\n\n"
        "SECRET_GATED_TEXT\n\n.. code-block:: python\n\n   SECRET_GATED_CODE = 1\n\n"
        ".. solution-end::\n\n"
        ".. exercise:: Two\n   :label: ch01-ex2\n\n   Again.\n\n"
        ".. solution:: ch01-ex2\n   :class: dropdown\n\n   SECRET_PLAIN\n\n"
        "After the exercises.\n"
    )
    out = tmp_path / ("out_hide" if hide else "out")
    with docutils_namespace():  # each build registers its nodes and directives afresh
        app = Sphinx(str(src), str(src), str(out), str(tmp_path / "doctrees" / str(hide)), "html",
                     status=None, warning=None, warningiserror=True, freshenv=True)
        app.build()
    return (out / "index.html").read_text()


def test_hide_solutions_removes_gated_solutions_with_their_content(tmp_path):
    shown = _tiny_sphinx_book(tmp_path, hide=False)
    hidden = _tiny_sphinx_book(tmp_path, hide=True)
    for secret in ("SECRET_GATED_TEXT", "SECRET_GATED_CODE", "SECRET_PLAIN"):
        assert secret in shown and secret not in hidden, secret
    for kept in ("Do it.", "Again.", "After the exercises.", "Prose."):
        assert kept in hidden, kept
    assert check_student_html.count_html(shown)[0] == 2
    assert check_student_html.count_html(hidden) == (0, 2)


def test_chapter_data_follows_calls_into_the_package():
    nb = new_notebook(cells=[
        new_code_cell("from semvar.data import load_mmlu, result_path\nimport pandas as pd\n"
                      "x = load_mmlu('test')\ny = pd.read_csv(result_path('table.csv'))"),
        new_code_cell("from semvar.judges import EmbeddingJudge\nj = EmbeddingJudge(0.7)\nj.cosine(['a'], [])"),
    ])
    needs = chapter_data.notebook_needs(nb)
    assert needs.folders == {"mmlu"} and needs.results == {"table.csv"} and needs.model
    empty = chapter_data.notebook_needs(new_notebook(cells=[new_code_cell("import numpy as np\nnp.ones(3)")]))
    assert empty.folders == set() and empty.results == set() and not empty.model


def test_every_data_loader_has_its_folder():
    import semvar.data as data

    loaders = {name for name in dir(data) if name.startswith("load_") and callable(getattr(data, name))}
    file_readers = {"load_response_table", "load_lm_eval_samples", "load_numpy_pickle", "load_plain_pickle"}
    assert loaders - file_readers <= set(chapter_data.LOADER_FOLDERS), loaders - file_readers - set(chapter_data.LOADER_FOLDERS)
    shared = ROOT.parent / "shared" / "data"
    for folders in chapter_data.LOADER_FOLDERS.values():
        for folder in folders:
            assert (shared / folder).exists() or (ROOT / "data" / folder).exists() or not shared.exists(), folder


def test_how_to_use_table_is_the_generated_one():
    page = (ROOT / "book" / "how_to_use.md").read_text(encoding="utf-8")
    marker = "% generated by scripts/chapter_data.py"
    assert marker in page
    after = page[page.index(marker):].split("\n")[1:]
    table = "\n".join(line for line in after[: next(i for i, ln in enumerate(after) if not ln.startswith("|"))])
    assert table == chapter_data.markdown_table(chapter_data.chapter_table(NOTEBOOKS))


def _tiny_pdf(n_pages):
    objs = ["<< /Type /Catalog /Pages 2 0 R >>",
            f"<< /Type /Pages /Kids [{' '.join(f'{3 + k} 0 R' for k in range(n_pages))}] /Count {n_pages} >>"]
    objs += ["<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >>"] * n_pages
    body = "".join(f"{k + 1} 0 obj\n{o}\nendobj\n" for k, o in enumerate(objs))
    return ("%PDF-1.4\n" + body + "trailer\n<< /Root 1 0 R >>\n%%EOF\n").encode()


def test_pdf_pages_are_counted_from_the_file(tmp_path):
    for n in (1, 3):
        (tmp_path / "a.pdf").write_bytes(_tiny_pdf(n))
        assert make_pdf.count_pdf(tmp_path / "a.pdf") == (n, 0, 0)
    bad = _tiny_pdf(3).replace(b"/Count 3", b"/Count 4")
    (tmp_path / "b.pdf").write_bytes(bad)
    with pytest.raises(ValueError, match="3 page objects but the page tree counts 4"):
        make_pdf.count_pdf(tmp_path / "b.pdf")
    (tmp_path / "c.pdf").write_bytes(b"not a pdf")
    with pytest.raises(ValueError, match="is not a PDF file"):
        make_pdf.count_pdf(tmp_path / "c.pdf")


def test_pdf_contents_follow_the_toc():
    page = ('<span id="document-notebooks/01_equivalence_relation"></span><section id="a"><span id="x"></span>'
            '<h2><span class="section-number">1. </span>The equivalence relation<a class="headerlink" href="#a">#</a>'
            '</h2></section><span id="document-book/notation"></span><section id="n"><h2>Notation</h2></section>')
    titles = make_pdf._titles(page)
    assert titles == {"notebooks/01_equivalence_relation": ("1", "The equivalence relation"),
                      "book/notation": ("", "Notation")}
    anchors = make_pdf._anchors(page)
    assert anchors == {"notebooks/01_equivalence_relation": "pdf-notebooks-01_equivalence_relation",
                       "book/notation": "pdf-book-notation"}
    marked = make_pdf.mark_documents(page)
    assert '<section id="a"><span id="pdf-notebooks-01_equivalence_relation"></span><span id="x">' in marked
    assert '<section id="n"><span id="pdf-book-notation"></span><h2>' in marked
    toc = make_pdf._toc_html(titles, anchors, {"pdf-notebooks-01_equivalence_relation": 7}, [("appendix-x", "Cards")])
    assert ('<a href="#pdf-notebooks-01_equivalence_relation">1. The equivalence relation</a>'
            '<span class="leader"></span><span class="page">7</span>') in toc
    assert '<a href="#pdf-book-notation">Notation</a><span class="leader"></span><span class="page"></span>' in toc
    assert "02_judge_random_graph" not in toc  # documents not in the page are left out
    assert '<li class="part">Appendix<ol><li><span class="entry"><a href="#appendix-x">Cards</a>' in toc


def _single_page(tmp_path):
    """A tiny single-page build: two chapters, an API page with a subpage, a scorecard with cards, folded code."""
    root = tmp_path / "singlehtml"
    (root / "_static").mkdir(parents=True)
    (root / "book").mkdir()
    hidden_code = ('<div class="cell tag_hide-input"><details class="admonition hide above-input">'
                   '<summary aria-label="Toggle hidden content"><p class="collapsed admonition-title">Show code cell '
                   'source</p><p class="expanded admonition-title">Hide code cell source</p></summary>'
                   '<div class="cell_input"><pre>SECRET_FIGURE_CODE = 1</pre></div></details>'
                   '<div class="cell_output"><p>the figure</p></div></div>')
    hidden_output = ('<div class="cell tag_hide-output"><div class="cell_input"><pre>x = 1</pre></div>'
                     '<details class="admonition hide below-input"><summary aria-label="Toggle hidden content">'
                     '<p class="collapsed admonition-title">Show code cell output</p></summary>'
                     '<div class="cell_output"><p>FOLDED_OUTPUT_SHOWN</p></div></details></div>')
    long_text = "<p>" + "A line of prose. " * 2500 + "</p>"
    # a cell output longer than a page, in a box that the theme lets scroll on screen
    rows = "".join(f"<tr><td>ROW_{k}</td><td>{k}</td></tr>" for k in range(150))
    long_output = ('<div class="cell docutils container"><div class="cell_output docutils container">'
                   '<div class="output text_html" style="overflow: auto"><table class="dataframe">'
                   f"{rows}</table></div></div></div>")
    body = (
        '<span id="document-book/how_to_use"></span><section id="how-to-use"><h1>How to use this book</h1>'
        # an id that chapter 2's section uses too: the contents must not point here
        '<p>Prose.</p><section id="the-judge"><h2>A section of the same id</h2></section></section>'
        '<span id="document-notebooks/01_equivalence_relation"></span><section id="the-equivalence-relation">'
        '<h1><span class="section-number">1. </span>The equivalence relation</h1>'
        f"{hidden_code}{long_text}</section>"
        '<span id="document-notebooks/02_judge_random_graph"></span><section id="the-judge">'
        '<h1><span class="section-number">2. </span>The judge as a random graph</h1>'
        f"{hidden_output}<p>Chapter two.</p>{long_output}</section>"
        '<span id="document-notebooks/scorecard"></span><section id="replication-scorecard"><h1>Replication scorecard</h1>'
        '<p>The table.</p><section id="the-cards"><h2>The cards</h2><p>CARD_DETAIL</p></section></section>'
        '<span id="document-book/api"></span><section id="api"><h1>API reference</h1><p>API_TEXT</p>'
        '<span id="document-book/api/spectral"></span><section id="spectral"><h2>Spectral</h2><p>API_SUBPAGE</p>'
        "</section></section>"
        '<span id="document-book/bibliography"></span><section id="bibliography"><h1>Bibliography</h1>'
        "<p>BIBLIOGRAPHY_TEXT</p></section>"
    )
    # a figure that myst-nb sized inline, taller than the rest of its page (and than a page, if kept)
    fig, ax = plt.subplots(figsize=(6, 5))
    ax.plot([0, 1], [0, 1])
    (root / "_images").mkdir()
    fig.savefig(root / "_images" / "tall.png")
    plt.close(fig)
    body = body.replace("<p>Chapter two.</p>", '<p>Chapter two.</p><div class="cell_output"><figure id="fig-tall">'
                        '<img src="_images/tall.png" style="width: 1207px; height: 1034px;" />'
                        "<figcaption><p>TALL_FIGURE_CAPTION</p></figcaption></figure></div>")
    page = root / "book" / "intro.html"
    page.write_text('<html><head><title>t</title></head><body><nav class="bd-sidebar-primary">SIDEBAR_NAV</nav>'
                    f'<main><h1>Intro</h1>{body}</main><footer>FOOTER_TEXT</footer></body></html>')
    return page


def test_print_copy_leaves_out_the_api_and_the_folded_code_and_moves_the_cards(tmp_path):
    page = _single_page(tmp_path)
    meta = make_pdf.Meta("A book", "student", "The authors", "0.1.0", "2026-01-01")
    copy = make_pdf.print_page(page, meta)
    text = copy.path.read_text()
    assert copy.path == tmp_path / "singlehtml" / "print.html"
    for gone in ("API_TEXT", "API_SUBPAGE", "SECRET_FIGURE_CODE", "Show code cell", "Hide code cell",
                 "SIDEBAR_NAV", "FOOTER_TEXT"):
        assert gone not in text, gone
    assert copy.buttons_removed == 2 and "FOLDED_OUTPUT_SHOWN" in text and "<summary" not in text
    # the cards follow the last chapter, as an appendix listed in the contents
    assert text.index("BIBLIOGRAPHY_TEXT") < text.index("Appendix: The scorecard&#x27;s cards") < text.index("CARD_DETAIL")
    assert copy.appendices == [("appendix-the-cards", "The scorecard's cards")]
    # title page, then the contents, then the first chapter
    assert (text.index('<main class="semvar-print">') < text.index('class="semvar-title-page"') < text.index("<h2>Contents</h2>")
            < text.index("<h1>Intro</h1>") < text.index("How to use this book</h1>"))
    assert "Student edition" in text and "Version 0.1.0" in text
    assert copy.chapters == 2 and "book/api" not in copy.titles


def _browser():
    import shutil

    return next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)


@pytest.mark.skipif(_browser() is None, reason="needs Chromium (apt-get install chromium), as make pdf does")
def test_printed_contents_carry_the_pages_the_chapters_start_on(tmp_path):
    page = _single_page(tmp_path)
    meta = make_pdf.Meta("A book", "instructor", "The authors", "0.1.0", "2026-01-01")
    out = tmp_path / "book.pdf"
    copy = make_pdf.print_with_page_numbers(page, out, _browser(), meta)
    from pypdf import PdfReader

    pages = [p.extract_text() for p in PdfReader(str(out)).pages]
    starts = make_pdf.destination_pages(out)
    assert "A book" in pages[0] and "Instructor edition" in pages[0] and "Contents" in pages[1]
    # title page, contents, the root page's text, how to use; chapter 1 is several pages long:
    # the chapters after it start later, and the contents say where
    assert "Intro" in pages[2] and starts["pdf-book-how_to_use"] == 4
    one, two = starts["pdf-notebooks-01_equivalence_relation"], starts["pdf-notebooks-02_judge_random_graph"]
    assert one == 5 and two > 6
    for anchor, title in [("pdf-notebooks-01_equivalence_relation", "1. The equivalence relation"),
                          ("pdf-notebooks-02_judge_random_graph", "2. The judge as a random graph"),
                          ("appendix-the-cards", "The scorecard's cards")]:
        n = starts[anchor]
        assert re.search(rf"{re.escape(title)}\s*{n}\b", pages[1]), (title, n, pages[1])
        assert title.split(". ")[-1] in pages[n - 1]
    assert "CARD_DETAIL" in pages[-1] and not any("API_TEXT" in p for p in pages)
    # the long output runs on over the page break instead of being cut at the foot of a page
    text = "\n".join(pages)
    # no page is left blank (a figure kept at its inline height does not fit on the rest of a page)
    assert make_pdf.blank_pages(out) == [] and "TALL_FIGURE_CAPTION" in text
    assert all(f"ROW_{k}" in text for k in range(150))
    assert make_pdf.text_counts(out) == (0, 0)
    assert copy.chapters == 2


def test_the_workflow_publishes_the_student_edition_only():
    """The site on GitHub Pages is the student edition; the instructor edition never reaches it."""
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "book.yml").read_text())
    steps = workflow["jobs"]["build"]["steps"]
    runs = [str(step.get("run", "")) for step in steps]
    pages = [step for step in steps if str(step.get("uses", "")).startswith("actions/upload-pages-artifact")]
    assert [step["with"]["path"] for step in pages] == ["_build/student/html"]
    student = next(k for k, run in enumerate(runs) if "make book-student" in run)
    assert student < steps.index(pages[0])
    # make book-student ends with the check that fails on any solution
    assert "check_student_html.py _build/student/html" in (ROOT / "Makefile").read_text()
    for k, step in enumerate(steps):
        builds_instructor = re.search(r"\bmake( book)?\s*$", runs[k]) is not None
        keeps_html = str(step.get("uses", "")).startswith("actions/upload") and step["with"]["path"] == "_build/html"
        if builds_instructor or keeps_html:
            assert step.get("if") == "github.event.repository.private", step
