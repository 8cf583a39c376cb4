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
