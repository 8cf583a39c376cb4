"""The API reference's opening names the top-level functions of ``semvar``, and counts them right."""

from __future__ import annotations

import re
from pathlib import Path

import semvar

API_PAGE = Path(__file__).resolve().parents[1] / "book" / "api.md"
NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}


def stated_functions(text: str) -> tuple[int, list[str]]:
    """``(count in words, names listed)`` of the sentence "N functions are also importable from the top level: ..."

    >>> stated_functions("Two functions are also importable from the top level: `semvar.a` and `semvar.b`; x")
    (2, ['a', 'b'])
    """
    m = re.search(r"(\w+) functions are also importable from the top level:(.*?);", " ".join(text.split()))
    assert m, "the sentence on top-level functions is missing"
    return NUMBERS[m.group(1).lower()], re.findall(r"`semvar\.(\w+)`", m.group(2))


def test_the_count_and_the_names_match_the_package():
    count, names = stated_functions(API_PAGE.read_text(encoding="utf-8"))
    public = sorted(n for n in semvar.__all__ if callable(getattr(semvar, n)))
    assert count == len(names), f"says {count} functions, lists {len(names)}: {names}"
    assert sorted(names) == public, f"lists {sorted(names)}, the package exports {public}"
