"""Tests of semvar.experiments.select_k_small (choosing K at 5 to 300 texts, chapter 4) on a few small cells."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from semvar.experiments import select_k_small as S
from semvar.papers import PAPER_TABLE2


def test_cell_sizes_follow_the_proportions_and_give_each_meaning_a_text():
    assert S.cell_sizes(300, S.PARTITIONS["majority"]).tolist() == [225, 75]
    assert S.cell_sizes(10, S.PARTITIONS["uniform3"]).tolist() == [4, 3, 3]
    # 7 texts, (0.7, 0.1, 0.1, 0.1): largest remainders of 7 w = (4.9, 0.7, 0.7, 0.7) leave a rare meaning empty, so
    # each meaning gets one text and the other 3 go by largest remainders of 3 w = (2.1, 0.3, 0.3, 0.3): 2, then 1
    assert S.cell_sizes(7, S.PARTITIONS["dominant"]).tolist() == [3, 2, 1, 1]
    assert S.cell_sizes(1, S.PARTITIONS["one"]).tolist() == [1]
    assert S.cell_sizes(2, S.PARTITIONS["uniform3"]) is None


def test_the_grid_has_48_cells_per_n_where_every_meaning_fits():
    assert set(S.JUDGES) == {j.lower() for j in PAPER_TABLE2} | {"ch4_base", "ch4_example"}
    assert len(S.cells((5, 10))) == 2 * 8 * 6
    small = S.cells((3,))
    assert {p for _, _, p in small} == {"one", "uniform3", "skewed", "majority"} and len(small) == 8 * 4
    assert S.cells((10,), ["gpt"], ["skewed"]) == [(10, "gpt", "skewed")]


def test_one_cell_scores_every_rule_against_the_true_entropy():
    rows = S.run_cell(20, "ch4_example", "skewed", 2, np.random.SeedSequence(5))
    df = pd.DataFrame(rows, columns=S.COLUMNS)
    assert len(df) == 2 * len(S.rules()) and df["rule"].tolist() == list(S.row_order()) * 2
    h = -sum(s / 20 * math.log(s / 20) for s in (10, 6, 4))
    assert np.allclose(df["h_true"], h) and (df["k_true"] == 3).all()
    ok = df.dropna(subset=["k_hat"])
    assert np.allclose(ok["err"], (ok["h_hat"] - ok["h_true"]).abs()) and ok["k_hat"].between(1, 10).all()
    for _, graph in df.groupby("rep"):
        k = graph.set_index("rule")["k_hat"]
        assert k["consensus"] == sorted([k["eigengap"], k["icl"], k["ncv"]])[1]   # the median of three votes


def test_a_perfect_judge_lets_the_default_rule_find_the_meanings(monkeypatch):
    monkeypatch.setitem(S.JUDGES, "perfect", (1.0, 0.0))
    df = pd.DataFrame(S.run_cell(20, "perfect", "uniform5", 1, np.random.SeedSequence(0)), columns=S.COLUMNS)
    auto = df.set_index("rule").loc["auto"]
    assert auto["k_hat"] == 5 and auto["err"] == pytest.approx(0.0, abs=1e-12)


def test_run_study_scales_the_graphs_and_summarise_counts_the_right_answers():
    df = S.run_study(ns=(5, 10), judges=["gpt"], partitions=["one", "majority"], reps={5: 4, 10: 4}, scale=0.5,
                     n_jobs=1, progress=False)
    assert len(df) == 2 * 2 * 2 * len(S.rules())                       # n x partitions x round(4 * 0.5) graphs x rules
    by_hand = df.dropna(subset=["k_hat"]).assign(ok=lambda d: d.k_hat == d.k_true).groupby(["n", "rule"]).ok.mean()
    table = S.summarise(df)
    assert table[("accuracy", "icl")].to_dict() == {n: by_hand[(n, "icl")] for n in (5, 10)}
    assert table.columns.get_level_values(0).unique().tolist() == ["accuracy", "error"]
    first = S.run_study(ns=(5,), judges=["gpt"], partitions=["one"], reps={5: 1}, n_jobs=1, progress=False)
    again = S.run_study(ns=(5,), judges=["gpt"], partitions=["one"], reps={5: 1}, n_jobs=1, progress=False)
    pd.testing.assert_frame_equal(first, again)


def test_the_study_runs_every_registered_rule_in_registry_order():
    from semvar.select_k import RULES

    study = S.rules()
    assert [r for r in study if r in RULES] == [r for r in RULES if r not in S.NOT_RUN]
    assert all(S.VARIANTS[v][0] in RULES for v in S.VARIANTS) and set(S.VARIANTS) <= set(study)
    assert sorted(S.row_order()) == sorted(study) and len(set(study)) == len(study)
    assert set(S.BESIDE_THE_TABLES) <= set(study) and set(S.compared()) == set(study) - set(S.BESIDE_THE_TABLES)
    assert all(reason for reason in [*S.NOT_RUN.values(), *S.BESIDE_THE_TABLES.values()])


@pytest.fixture
def a_new_rule(monkeypatch):
    """A rule registered after the stored study was written (removed again after the test)."""
    from semvar.select_k import KSelection
    from semvar.select_k._registry import RULES, Rule

    def two_always(adjacency, k_max, *, observed=None):
        """A stand-in rule: two meanings, whatever the graph."""
        return KSelection(2, np.arange(1, k_max + 1), np.zeros(k_max), "two_always")

    assert "two_always" not in RULES
    monkeypatch.setitem(RULES, "two_always", Rule("two_always", two_always, lambda *a, **k: two_always(*a[:2])))
    return "two_always"


def test_a_new_rule_is_computed_and_missed(a_new_rule):
    assert S.rules()[-1] == S.row_order()[-1] == a_new_rule and a_new_rule in S.compared()
    df = pd.DataFrame(S.run_cell(10, "gpt", "skewed", 1, np.random.SeedSequence(2)), columns=S.COLUMNS)
    assert df.set_index("rule").loc[a_new_rule, "k_hat"] == 2
    assert S.missing_rules(df) == []
    assert S.missing_rules(pd.read_csv(S.result_path(S.RESULT_FILE)))[-1] == a_new_rule
    with pytest.raises(ValueError, match="columns 'rule' and 'k_hat'"):
        S.missing_rules(df.drop(columns="k_hat"))


@pytest.fixture(scope="module")
def stored_study():
    return pd.read_csv(S.result_path(S.RESULT_FILE))


@pytest.mark.parametrize("rule", S.rules())
def test_the_stored_study_answers_with_every_rule(stored_study, rule):
    """Chapter 4's tables and records read every rule of the study from the stored file: none may be absent."""
    assert rule not in S.missing_rules(stored_study), (
        f"the stored study (data/{S.RESULT_FILE}) has no answer of {rule!r}: regenerate it with "
        f"`{S.REGENERATE}`, re-execute notebooks/04_choosing_k.md and merge the select_k records into "
        "data/scorecard.json (python -m semvar replicate --only select_k --json)")
