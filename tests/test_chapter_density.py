"""Chapters that read like a course text: no asserts on the page, short visible code cells.

The measure is scripts/chapter_density.py; the chapters listed in ``DONE`` must keep
0 visible ``assert`` lines, no visible code cell over ``MAX_LINES`` lines, a median
visible cell of at most ``MEDIAN_LINES`` lines, and no table printed as text. The
checks that guard the book's numbers stay in the notebooks, in cells tagged
``remove-cell`` (nbval still runs them).
"""

from __future__ import annotations

import importlib.util
import re
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 25
MEDIAN_LINES = 8

#: chapters restyled as a course text (the rest are listed as they are done)
DONE: list[str] = ["01_equivalence_relation", "02_judge_random_graph",
                   "03_spectral_entropy", "04_choosing_k",
                   "05_consistency", "06_judge_budget", "07_llm_judge"]


def _script():
    spec = importlib.util.spec_from_file_location("_scripts_chapter_density",
                                                  ROOT / "scripts" / "chapter_density.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


density = _script().density

#: chapters 8 to 14, restyled
DONE += ["08_self_similarity", "09_real_answers", "10_one_model_samples",
         "11_exchangeable_concentration", "12_mmlu_uncertainty", "13_set_size",
         "14_released_logits"]

HEADER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---
"""


def _chapter(tmp_path, body: str) -> Path:
    path = tmp_path / "99_x.md"
    path.write_text(HEADER + textwrap.dedent(body), encoding="utf-8")
    return path


def test_the_measure_counts_only_visible_asserts(tmp_path):
    path = _chapter(tmp_path, """
        # X

        One paragraph of five words.

        ```{code-cell} ipython3
        x = 1
        assert x == 1
        print(df.to_string())
        ```

        ```{code-cell} ipython3
        :tags: [remove-cell]
        assert x == 1
        assert x > 0
        ```

        ```{code-cell} ipython3
        show_table(df, caption="c", name="t")
        ```
        """)
    d = density(path)
    assert d["asserts"] == 1
    assert (d["median"], d["max"]) == (2, 3)
    assert (d["tables"], d["printed"]) == (1, 1)
    assert d["para"] == 5


def test_the_measure_counts_long_cells(tmp_path):
    body = "\n".join(f"x{i} = {i}" for i in range(30))
    path = _chapter(tmp_path, f"# X\n\n```{{code-cell}} ipython3\n{body}\n```\n")
    assert (density(path)["max"], density(path)["over25"]) == (30, 1)


@pytest.mark.parametrize("stem", DONE)
def test_a_restyled_chapter_stays_light(stem):
    d = density(ROOT / "notebooks" / f"{stem}.md")
    assert d["asserts"] == 0, f"{stem}: {d['asserts']} assert lines on the page"
    assert d["max"] <= MAX_LINES, f"{stem}: a visible code cell of {d['max']} lines"
    assert d["median"] <= MEDIAN_LINES, f"{stem}: median visible cell {d['median']} lines"
    assert d["printed"] == 0, f"{stem}: {d['printed']} tables printed as text"


@pytest.mark.parametrize("stem", DONE)
def test_every_table_of_a_restyled_chapter_is_referred_to(stem):
    from tests.test_book_structure import table_names

    text = (ROOT / "notebooks" / f"{stem}.md").read_text(encoding="utf-8")
    refs = re.findall(r"\{numref\}`(?:[^`<]*<)?([^`<>]+)>?`", text)
    tables = table_names(text)
    assert tables, f"{stem}: no result table"
    unread = [t.pattern for t in tables if not any(t.fullmatch(r) for r in refs)]
    assert not unread, f"{stem}: tables never referred to with {{numref}}: {unread}"
