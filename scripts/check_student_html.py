"""Check a built student edition: no solution on any page, none in any notebook offered for download.

Usage: python scripts/check_student_html.py [_build/student/html]

Counts, in every ``.html`` file of the folder, the solution blocks that
sphinx-exercise writes (elements of class ``solution`` or ``solution-*``) and
the admonitions or dropdowns titled "Solution ..."; and, in every ``.ipynb``
file, the solution blocks that ``scripts/make_student.py`` removes.  Prints the
counts with the number of exercises seen (so that an empty folder cannot pass)
and exits with 1 when a solution is found, 2 when there are no pages or no
exercises to check.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import nbformat

_HERE = Path(__file__).resolve().parent
_TITLE = re.compile(r"^\s*solution\b", re.IGNORECASE)


def _load_make_student():
    name = "_semvar_scripts_make_student"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, _HERE / "make_student.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class _Counter(HTMLParser):
    """Counts solution blocks and exercise blocks in one HTML page.

    A solution block is an element of class ``solution`` / ``solution-*``, or an
    admonition (or ``<details>``) whose title starts with "Solution"; a title
    inside a block already counted is not counted again.
    """

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.solutions = 0
        self.exercises = 0
        self._depth = 0
        self._solution_depth = None  # depth of the solution element we are inside
        self._title_depth = None  # depth of the admonition title we are inside
        self._title_text = ""

    def handle_starttag(self, tag, attrs):
        if tag in _VOID:
            return
        self._depth += 1
        classes = (dict(attrs).get("class") or "").split()
        is_solution = any(c == "solution" or c.startswith(("solution-", "solution_")) for c in classes) \
            and not {"solution-title", "solution-content"} & set(classes)
        if is_solution and self._solution_depth is None:
            self.solutions += 1
            self._solution_depth = self._depth
        if "exercise" in classes:
            self.exercises += 1
        if ("admonition-title" in classes or tag == "summary") and self._solution_depth is None:
            self._title_depth, self._title_text = self._depth, ""

    def handle_endtag(self, tag):
        if tag in _VOID:
            return
        if self._title_depth is not None and self._depth == self._title_depth:
            if _TITLE.match(self._title_text):
                self.solutions += 1
            self._title_depth = None
        if self._solution_depth is not None and self._depth == self._solution_depth:
            self._solution_depth = None
        self._depth -= 1

    def handle_data(self, data):
        if self._title_depth is not None:
            self._title_text += data


def count_html(text: str) -> tuple[int, int]:
    """``(solutions, exercises)`` in one HTML page.

    >>> count_html('<div class="exercise admonition"><p>Do it.</p></div>')
    (0, 1)
    >>> count_html('<div class="solution dropdown admonition"><p class="admonition-title">Solution to</p></div>')
    (1, 0)
    """
    parser = _Counter()
    parser.feed(text)
    parser.close()
    return parser.solutions, parser.exercises


_PLAIN_SOLUTION = re.compile(r"^#{1,6}\s+Solution\b", re.IGNORECASE | re.MULTILINE)


def count_notebook(nb) -> int:
    """Solutions in one notebook: gated ones (a solution-end with no start counts too), directives,
    and the headings "Solution to ..." that a plain-Markdown (instructor) hand-out gives them."""
    ms = _load_make_student()
    starts = ends = blocks = 0
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        blocks += len(_PLAIN_SOLUTION.findall(cell.source))
        for block in ms._blocks(cell.source.split("\n")):
            starts += block.name == "solution-start"
            ends += block.name == "solution-end"
            blocks += ms._is_solution_block(block)
    return starts + max(0, ends - starts) + blocks


@dataclass
class Report:
    pages: int = 0
    notebooks: int = 0
    exercises: int = 0
    page_solutions: dict[str, int] = field(default_factory=dict)
    notebook_solutions: dict[str, int] = field(default_factory=dict)

    @property
    def solutions(self) -> int:
        return sum(self.page_solutions.values()) + sum(self.notebook_solutions.values())


def check(folder: str | Path) -> Report:
    """Count the solutions left in a built HTML folder.

    Raises
    ------
    ValueError
        If ``folder`` is not a folder.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"folder={str(folder)!r} is not a folder; expected a built book, e.g. _build/student/html")
    report = Report()
    for path in sorted(folder.rglob("*.html")):
        solutions, exercises = count_html(path.read_text(encoding="utf-8", errors="replace"))
        report.pages += 1
        report.exercises += exercises
        if solutions:
            report.page_solutions[path.relative_to(folder).as_posix()] = solutions
    for path in sorted(folder.rglob("*.ipynb")):
        report.notebooks += 1
        n = count_notebook(nbformat.read(path, as_version=4))
        if n:
            report.notebook_solutions[path.relative_to(folder).as_posix()] = n
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", default="_build/student/html")
    args = parser.parse_args(argv)
    report = check(args.folder)
    print(f"{args.folder}: {report.pages} pages, {report.exercises} exercises, {report.notebooks} notebooks; "
          f"solutions found: {report.solutions}")
    for where, n in {**report.page_solutions, **report.notebook_solutions}.items():
        print(f"  {where}: {n}")
    if report.pages == 0 or report.exercises == 0:
        print("nothing to check: no pages or no exercises")
        return 2
    return 1 if report.solutions else 0


if __name__ == "__main__":
    sys.exit(main())
