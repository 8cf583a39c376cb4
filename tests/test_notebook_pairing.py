"""Every chapter is a MyST .md paired with an executed .ipynb holding the same cells."""

from pathlib import Path

import jupytext
import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
MD_FILES = sorted(NOTEBOOKS.glob("*.md"))


def _cells(nb):
    return [(c.cell_type, c.source.strip()) for c in nb.cells if c.source.strip()]


def test_there_are_notebooks():
    assert MD_FILES, "no notebooks/*.md found"


@pytest.mark.parametrize("md", MD_FILES, ids=lambda p: p.name)
def test_md_has_ipynb_with_same_cells(md):
    ipynb = md.with_suffix(".ipynb")
    assert ipynb.exists(), f"{md.name} has no paired {ipynb.name}"
    a = _cells(jupytext.read(md))
    b = _cells(jupytext.read(ipynb))
    assert len(a) == len(b), f"{md.name}: {len(a)} cells in .md, {len(b)} in .ipynb"
    for i, (x, y) in enumerate(zip(a, b)):
        assert x == y, f"{md.name}: cell {i} differs between .md and .ipynb"


@pytest.mark.parametrize("md", MD_FILES, ids=lambda p: p.name)
def test_ipynb_is_executed(md):
    nb = jupytext.read(md.with_suffix(".ipynb"))
    code = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()
            and "skip-execution" not in c.metadata.get("tags", [])]  # e.g. sliders, for a live kernel only
    unexecuted = [i for i, c in enumerate(code) if c.get("execution_count") is None]
    assert not unexecuted, f"{md.name}: code cells {unexecuted} were never executed (nbval would compare nothing)"


def test_no_orphan_ipynb():
    for nb in NOTEBOOKS.glob("*.ipynb"):
        assert nb.with_suffix(".md").exists(), f"{nb.name} has no MyST source {nb.stem}.md"
