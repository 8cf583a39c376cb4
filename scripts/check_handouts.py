"""Check hand-out notebooks: plain Jupyter Markdown, valid code, and they run up to their first exercise.

Usage: python scripts/check_handouts.py [student] [--execute] [--timeout 600]

For every ``.ipynb`` in the folder (``make student`` writes ``student/``):

* the notebook is read and validated with ``nbformat``;
* no markdown cell holds a MyST role, directive or label
  (``handout_markdown.myst_left``), and no code cell's source a syntax error;
* with ``--execute``, the cells before the first exercise (the first markdown
  cell with a heading "Exercise ...") are run with ``nbclient`` in a fresh
  kernel, in the hand-out's folder (which lies beside ``notebooks/``), so that a
  hand-out that cannot be run as handed out fails here.

Prints one line per notebook and exits with 1 when any check fails.
``make check-handouts`` runs it with ``--execute`` on a fresh ``student/``.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from handout_markdown import myst_left  # noqa: E402

_EXERCISE = re.compile(r"^#{1,6}\s+Exercise\b", re.MULTILINE)


@dataclass
class Result:
    name: str
    problems: list[str] = field(default_factory=list)
    cells_run: int = 0
    seconds: float = 0.0


def first_exercise(nb: nbformat.NotebookNode) -> int:
    """Index of the first cell that states an exercise (a heading "Exercise ..."); ``len(cells)`` if none."""
    for k, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown" and _EXERCISE.search(cell.source):
            return k
    return len(nb.cells)


def _python(source: str) -> str:
    """A code cell's source with IPython's line magics and shell escapes commented out."""
    return "\n".join("# " + line if line.lstrip().startswith(("%", "!")) else line for line in source.split("\n"))


def static_problems(nb: nbformat.NotebookNode) -> list[str]:
    """MyST left in markdown cells and syntax errors in code cells, one line each."""
    problems = []
    for k, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            problems += [f"cell {k}: {found}" for found in myst_left(cell.source)]
        elif cell.cell_type == "code":
            try:
                ast.parse(_python(cell.source))
            except SyntaxError as exc:
                problems.append(f"cell {k}: syntax error: {exc.msg} (line {exc.lineno})")
    return problems


def run_to_first_exercise(nb: nbformat.NotebookNode, cwd: str | Path, timeout: int = 600) -> int:
    """Execute the code cells before the first exercise in a fresh kernel; return how many ran.

    Raises ``nbclient.exceptions.CellExecutionError`` naming the cell when one fails.
    """
    from nbclient import NotebookClient

    stop = first_exercise(nb)
    head = nbformat.from_dict(dict(nb))
    head.cells = [c for c in nb.cells[:stop]]
    client = NotebookClient(head, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(cwd)}})
    client.execute()
    return sum(c.cell_type == "code" for c in head.cells)


def check_notebook(path: Path, execute: bool = False, cwd: str | Path | None = None,
                   timeout: int = 600) -> Result:
    """The checks of one hand-out (module docstring); ``cwd`` defaults to its folder."""
    result = Result(path.name)
    nb = nbformat.read(path, as_version=4)
    try:
        nbformat.validate(nb)
    except nbformat.ValidationError as exc:
        result.problems.append(f"not a valid notebook: {exc.message}")
    result.problems += static_problems(nb)
    if execute and not result.problems:
        start = time.perf_counter()
        try:
            result.cells_run = run_to_first_exercise(nb, cwd or path.parent, timeout)
        except Exception as exc:  # noqa: BLE001 - any failure of a cell is reported, not raised
            result.problems.append(f"execution failed: {str(exc).strip().splitlines()[-1] if str(exc).strip() else exc!r}")
        result.seconds = time.perf_counter() - start
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", default="student")
    parser.add_argument("--execute", action="store_true", help="run each hand-out up to its first exercise")
    parser.add_argument("--timeout", type=int, default=600, help="seconds allowed per cell (default 600)")
    args = parser.parse_args(argv)
    folder = Path(args.folder)
    paths = sorted(folder.glob("*.ipynb")) if folder.is_dir() else []
    if not paths:
        print(f"{folder}: no hand-out notebooks (run `make student` first)")
        return 2
    failed = 0
    for path in paths:
        r = check_notebook(path, args.execute, timeout=args.timeout)
        ran = f", {r.cells_run} cells run to the first exercise in {r.seconds:.0f} s" if args.execute and not r.problems else ""
        print(f"{r.name}: {'ok' if not r.problems else 'FAILED'}{ran}")
        for problem in r.problems[:10]:
            print(f"  {problem}")
        failed += bool(r.problems)
    print(f"{len(paths) - failed} of {len(paths)} hand-outs pass")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
