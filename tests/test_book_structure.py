"""The book's structure: exercise labels, cross-references, chapter openers and the intro's map.

Every rule is read from the sources (``_toc.yml``, ``notebooks/NN_name.md``, ``book/*.md``),
so renumbering a chapter is a file rename and nothing typed by hand can fall behind.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted(p for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.md"))
PAGES = CHAPTERS + sorted((ROOT / "book").glob("*.md")) + [ROOT / "notebooks" / "scorecard.md"]

EXERCISE_LABEL = re.compile(r"^```\{exercise\}[^\n]*\n(?::[a-z-]+:[^\n]*\n)*?:label:\s*(\S+)", re.M)
SOLUTION_TARGET = re.compile(r"^```\{solution(?:-start)?\}\s*(\S+)", re.M)
TARGET = re.compile(r"^\(([A-Za-z0-9_.:-]+)\)=\s*$|^:(?:label|name):\s*(\S+)", re.M)
REF = re.compile(r"\{(?:ref|numref)\}`(?:[^`<]*<)?([^`<>]+)>?`")
# A role whose rendered text already is a title or carries its own "Exercise 9.2"/"Fig. 3":
# a word such as "Chapter" in front of it is printed twice or reads "Chapter The judge budget".
DOUBLED = re.compile(r"(?i)\b(chapters?|exercises?|sections?|figures?|figs?\.|tables?)\s+"
                     r"\{(doc|ref|numref)\}`[^`<]+`")
OPENER_MARKERS = ("**Learning objectives.**", "**Prerequisites.**", "**Run time.**")


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


def test_every_ref_target_exists():
    targets: set[str] = set()
    for p in PAGES:
        for a, b in TARGET.findall(p.read_text(encoding="utf-8")):
            targets.add(a or b)
    missing = []
    for p in PAGES:
        for t in REF.findall(p.read_text(encoding="utf-8")):
            if t not in targets:
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
