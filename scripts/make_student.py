"""Write hand-out copies of the chapters: plain Jupyter notebooks, with or without solutions.

Usage: python scripts/make_student.py [--source notebooks] [--dest student] [--edition student|instructor]

Each ``notebooks/*.ipynb`` is copied to ``student/`` (a sibling folder, so the
relative paths the chapters use still resolve, and so do the links between the
hand-outs).  Every hand-out is in plain Jupyter Markdown: the MyST roles and
directives of the book (exercise fences, citations, cross-references, the
ledger's verdicts) are rewritten by ``scripts/handout_markdown.py`` into
headings, text and links, so that JupyterLab, Notebook 7 or VS Code shows them
as the book does.  The student edition (the default) has, in addition,

* every cell from a markdown cell holding a ``{solution-start}`` directive to
  the markdown cell holding the matching ``{solution-end}`` directive removed,
  inclusive (sphinx-exercise's gated solutions, whose code cells lie between
  the two); text before the start directive or after the end directive in
  those two cells is kept;
* every ``{solution}`` directive, and every ``{admonition}`` or ``{dropdown}``
  whose title mentions "solution", removed from markdown cells (a cell left
  empty is dropped);
* the outputs and execution counts of the remaining code cells cleared, and
  the saved widget state dropped, so that students run the cells themselves.

The instructor edition (``--edition instructor``, ``make instructor`` into
``instructor/``) keeps the solutions, each under a heading "Solution to
Exercise N.k", and the stored outputs.

Nothing is executed.  The script refuses a notebook whose solution markers do
not pair up, rather than hand out a copy with half a solution in it.
"""

from __future__ import annotations

import copy
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _chapters import chapter_notebooks  # noqa: E402
from handout_markdown import Book, load_book, plain_notebook  # noqa: E402

EDITIONS = ("student", "instructor")

# a directive's opening fence: ``:::{name} args`` or ```` ```{name} args ````
_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>:{3,}|`{3,})\{(?P<name>[A-Za-z][\w:-]*)\}(?P<args>.*)$")
_SOLUTION_TITLE = re.compile(r"\bsolutions?\b", re.IGNORECASE)
_ADMONITION_NAMES = {"admonition", "dropdown"}


@dataclass(frozen=True)
class _Block:
    """A top-level directive in a markdown cell: lines ``start`` to ``stop`` (exclusive)."""

    name: str
    args: str
    start: int
    stop: int


def _closes(line: str, fence: str) -> bool:
    """Whether ``line`` closes a fence opened with ``fence`` (same character, at least as long)."""
    stripped = line.strip()
    return len(stripped) >= len(fence) and set(stripped) == {fence[0]}


def _blocks(lines: list[str]) -> list[_Block]:
    """The top-level fenced directives of a markdown cell, in order.

    A fence is closed by a line of the same character, at least as long as the
    opening one, with nothing else on it (the CommonMark / MyST rule); an
    unclosed fence runs to the end of the cell, as it does when MyST parses it.
    Fenced code inside a colon fence cannot close it; fenced code (or a shorter
    fence) inside a backtick fence cannot close it either.
    """
    blocks = []
    i = 0
    while i < len(lines):
        m = _OPEN.match(lines[i])
        plain = re.match(r"^[ \t]*(:{3,}|`{3,})", lines[i])
        if m is None and plain is None:
            i += 1
            continue
        fence = m.group("fence") if m else plain.group(1)
        j = i + 1
        while j < len(lines) and not _closes(lines[j], fence):
            j += 1
        stop = min(j + 1, len(lines))
        if m is not None:
            blocks.append(_Block(m.group("name"), m.group("args").strip(), i, stop))
        i = stop
    return blocks


def _is_solution_block(block: _Block) -> bool:
    if block.name == "solution":
        return True
    return block.name in _ADMONITION_NAMES and bool(_SOLUTION_TITLE.search(block.args))


def strip_solution_blocks(source: str) -> str:
    """Remove solution directives (``{solution}``, and admonitions or dropdowns titled "Solution ...").

    Parameters
    ----------
    source : str
        The source of one markdown cell.

    Returns
    -------
    str
        The source without those directives; runs of blank lines left behind are
        collapsed and the result is stripped.

    Examples
    --------
    >>> strip_solution_blocks(
    ...     "1. Prove it.\\n\\n:::{admonition} Solution to exercise 1\\n:class: dropdown\\n\\nDone.\\n:::\\n"
    ... )
    '1. Prove it.'
    """
    lines = source.split("\n")
    drop = set()
    for block in _blocks(lines):
        if _is_solution_block(block):
            drop.update(range(block.start, block.stop))
    if not drop:
        return source
    kept = "\n".join(line for k, line in enumerate(lines) if k not in drop)
    return re.sub(r"\n{3,}", "\n\n", kept).strip()


def _cut_gates(source: str, inside: bool, where: str) -> tuple[str, bool]:
    """Drop the text of a markdown cell that lies between solution-start and solution-end.

    ``inside`` says whether a gate opened in an earlier cell is still open;
    the second return value says whether one is open after this cell.
    """
    lines = source.split("\n")
    kept: list[str] = []
    pos = 0
    for block in _blocks(lines):
        if block.name == "solution-start":
            if inside:
                raise ValueError(f"{where}: a solution-start comes before the previous one's solution-end")
            kept.extend(lines[pos : block.start])
            inside = True
        elif block.name == "solution-end":
            if not inside:
                raise ValueError(f"{where}: a solution-end comes with no solution-start before it")
            inside = False
        else:
            continue
        pos = block.stop
    if not inside:
        kept.extend(lines[pos:])
    return "\n".join(kept), inside


def student_notebook(nb: nbformat.NotebookNode, name: str = "notebook") -> nbformat.NotebookNode:
    """Return a copy of ``nb`` with solutions removed and outputs cleared.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        A version-4 notebook (left unchanged).
    name : str, default "notebook"
        Used in error messages only.

    Returns
    -------
    nbformat.NotebookNode
        The hand-out copy.

    Raises
    ------
    ValueError
        If a ``{solution-start}`` has no later ``{solution-end}``, a
        ``{solution-end}`` has no earlier ``{solution-start}``, or a second
        start comes before the first one's end.
    """
    out = nbformat.from_dict(copy.deepcopy(dict(nb)))
    out.metadata.pop("widgets", None)
    jupytext_meta = out.metadata.get("jupytext")
    if isinstance(jupytext_meta, dict):
        jupytext_meta.pop("formats", None)  # the copy is not paired with a .md file

    cells = []
    inside, opened_at = False, None
    for k, cell in enumerate(out.cells):
        if cell.cell_type == "markdown":
            was_inside = inside
            source, inside = _cut_gates(cell.source, inside, f"{name}, cell {k}")
            if inside and not was_inside:
                opened_at = k
            source = strip_solution_blocks(source).strip()
            if not source:
                continue
            cell.source = source
        elif inside:
            continue
        elif cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        cells.append(cell)
    if inside:
        raise ValueError(f"{name}: the solution-start of cell {opened_at} has no solution-end after it")
    out.cells = cells
    return out


def handout(nb: nbformat.NotebookNode, name: str = "notebook", *, edition: str = "student",
            book: Book | None = None) -> nbformat.NotebookNode:
    """The hand-out copy of chapter notebook ``nb``, in plain Jupyter Markdown.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        A version-4 chapter notebook (left unchanged).
    name : str, default "notebook"
        Its file name (``03_spectral_entropy.ipynb``): the page ``notebooks/<stem>``
        whose numbers and links the roles use, and the name in error messages.
    edition : {"student", "instructor"}, default "student"
        "student": solutions removed and outputs cleared (:func:`student_notebook`);
        "instructor": solutions kept under their headings, outputs kept.
    book : Book, optional
        The book's index (``handout_markdown.load_book()`` of this repository by default).

    Returns
    -------
    nbformat.NotebookNode
        The hand-out copy.

    Raises
    ------
    ValueError
        If ``edition`` is not one of the two, or the solution markers do not pair up.
    KeyError
        If a role names a page, label, reference or ledger record the book lacks.
    """
    if edition not in EDITIONS:
        raise ValueError(f"edition={edition!r}; expected one of {EDITIONS}")
    if edition == "student":
        out = student_notebook(nb, name)
    else:
        out = nbformat.from_dict(copy.deepcopy(dict(nb)))
        _cut_all_gates_checked(out, name)
        jupytext_meta = out.metadata.get("jupytext")
        if isinstance(jupytext_meta, dict):
            jupytext_meta.pop("formats", None)
    return plain_notebook(out, f"notebooks/{Path(name).stem}", book or load_book())


def _cut_all_gates_checked(nb: nbformat.NotebookNode, name: str) -> None:
    """Refuse unpaired solution markers in ``nb`` (the instructor copy keeps what they gate)."""
    inside, opened_at = False, None
    for k, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            was_inside = inside
            _, inside = _cut_gates(cell.source, inside, f"{name}, cell {k}")
            if inside and not was_inside:
                opened_at = k
    if inside:
        raise ValueError(f"{name}: the solution-start of cell {opened_at} has no solution-end after it")


def make_student(source: str | Path = "notebooks", dest: str | Path = "student",
                 edition: str = "student") -> list[Path]:
    """Write the hand-out copy of every ``source/*.ipynb`` into ``dest``.

    Parameters
    ----------
    source : str or Path, default "notebooks"
        Folder of executed chapter notebooks.
    dest : str or Path, default "student"
        Folder to write to (created; existing files of the same name are replaced).
        Put it beside ``notebooks/`` so that relative paths and links resolve.
    edition : {"student", "instructor"}, default "student"
        See :func:`handout`.

    Returns
    -------
    list of Path
        The notebooks written, in name order.

    Raises
    ------
    ValueError
        If ``source`` is not a folder holding at least one ``.ipynb`` file, if
        ``dest`` is the same folder as ``source``, if ``edition`` is unknown, or if a
        notebook's solution markers do not pair up.
    """
    source, dest = Path(source), Path(dest)
    paths = chapter_notebooks(source)
    if dest.resolve() == source.resolve():
        raise ValueError(f"dest={str(dest)!r} is the source folder; choose another folder")
    if edition not in EDITIONS:
        raise ValueError(f"edition={edition!r}; expected one of {EDITIONS}")
    book = load_book()
    # build every copy before writing any, so a bad notebook leaves no partial hand-out
    copies = [(p.name, handout(nbformat.read(p, as_version=4), p.name, edition=edition, book=book)) for p in paths]
    dest.mkdir(parents=True, exist_ok=True)
    written = []
    for filename, nb in copies:
        target = dest / filename
        nbformat.write(nb, target)
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", default="notebooks", help="folder of executed chapters (default: notebooks)")
    parser.add_argument("--dest", default=None, help="folder to write to (default: the edition's name)")
    parser.add_argument("--edition", default="student", choices=EDITIONS,
                        help="student (no solutions, no outputs) or instructor (solutions kept)")
    args = parser.parse_args(argv)
    dest = args.dest or args.edition
    written = make_student(args.source, dest, args.edition)
    what = "without solutions" if args.edition == "student" else "with solutions"
    print(f"wrote {len(written)} plain-Markdown notebooks {what} to {dest}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
