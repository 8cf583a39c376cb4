"""The check cells of book/assignments.md: a correct solution passes them, a wrong one fails.

Each check is a fenced ``python`` block of the page whose first line is
``# check: <name>``.  Reference solutions written from scratch show that the
checks can be passed by a student's own code; one deliberately wrong solution
per check shows that they can fail.  Both live in ``solutions/assignments.py``,
outside the tests, so that an instructor can keep them private
(``solutions/README.md``).
"""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "book" / "assignments.md"


def _checks() -> dict[str, str]:
    blocks = re.findall(r"```python\n(# check: (\w+)\n.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.S)
    return {name: code for code, name in blocks}


# ---- the reference solutions: instructors' material, outside tests/ -------


def _solutions():
    """``solutions/assignments.py`` (or the same file in the folder ``$SEMVAR_SOLUTIONS``)."""
    folder = Path(os.environ.get("SEMVAR_SOLUTIONS", ROOT / "solutions"))
    path = folder / "assignments.py"
    if not path.is_file():
        pytest.skip(f"the assignments' reference solutions are not here ({path}): kept private by the "
                    "instructor; point SEMVAR_SOLUTIONS at their folder (solutions/README.md)")
    spec = importlib.util.spec_from_file_location("_semvar_assignment_solutions", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _reference():
    return _solutions().reference()


def _wrong(name, ns):
    return _solutions().wrong(name, ns)


def test_the_page_has_one_check_per_part():
    assert sorted(_checks()) == ["A1", "A2", "A3", "A4"]


@pytest.mark.parametrize("name", ["A1", "A2", "A3", "A4"])
def test_a_correct_solution_passes_the_check(name, capsys):
    exec(_checks()[name], _reference())
    assert f"{name} checks passed" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["A1", "A2", "A3", "A4"])
def test_a_wrong_solution_fails_the_check(name):
    with pytest.raises(AssertionError):
        exec(_checks()[name], _wrong(name, _reference()))


# ---- difficulty marks and rubrics ------------------------------------------

def _sections() -> dict[str, str]:
    parts = re.split(r"^## (A\d)\. ", PAGE.read_text(encoding="utf-8"), flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


@pytest.mark.parametrize("name", ["A1", "A2", "A3", "A4"])
def test_every_task_has_a_difficulty_mark(name):
    tasks = re.findall(r"^(\d)\. (★{1,3}) ", _sections()[name], flags=re.M)
    assert [int(n) for n, _ in tasks] == [1, 2, 3, 4]


@pytest.mark.parametrize("name", ["A1", "A2", "A3", "A4"])
def test_every_assignment_has_a_rubric_of_100_points_over_its_tasks(name):
    section = _sections()[name]
    assert f"**Rubric ({name}, 100 points).**" in section
    rows = re.findall(r"^\| (\d)\. [^|]+ \| (\d+) \| [^|]+ \|$", section, flags=re.M)
    assert [int(task) for task, _ in rows] == [1, 2, 3, 4]
    assert sum(int(points) for _, points in rows) == 100
