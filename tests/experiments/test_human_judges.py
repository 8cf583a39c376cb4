"""The judges-against-humans study (semvar.experiments.human_judges); its records: tests/claims/test_human_judges.py."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from semvar.experiments import human_judges as hj

Z = 1.959963984540054  # the 97.5 % normal quantile


def wilson(k, n, z=Z):
    """Wilson's score interval written out by hand (the oracle)."""
    p = k / n
    centre = (k + z * z / 2) / (n + z * z)
    half = z / (n + z * z) * math.sqrt(k * (n - k) / n + z * z / 4)
    return p, centre - half, centre + half


# --------------------------------------------------------------------------- rates on hand-made cases

def test_judge_rates_hand_computed():
    same = [True, True, True, False, False, False, False]
    verdict = [True, True, False, True, False, False, False]
    r = hj.judge_rates(verdict, same)
    assert (r["k_same"], r["n_same"], r["k_diff"], r["n_diff"]) == (2, 3, 1, 4)
    assert r["p"] == pytest.approx(2 / 3) and r["q"] == pytest.approx(1 / 4)
    _, lo, hi = wilson(2, 3)
    assert r["p_ci"] == pytest.approx([lo, hi], abs=1e-9)
    _, lo, hi = wilson(1, 4)
    assert r["q_ci"] == pytest.approx([lo, hi], abs=1e-9)
    assert r["p_minus_q"] == pytest.approx(2 / 3 - 1 / 4)


def test_sensitivity_and_specificity_read_as_p_and_q():
    """p is the judge's sensitivity and q one minus its specificity against the reference."""
    human = np.array([1] * 10 + [0] * 20, dtype=bool)
    judge = np.array([1] * 9 + [0] + [1] * 3 + [0] * 17, dtype=bool)
    r = hj.judge_rates(judge, human)
    sensitivity = (judge & human).sum() / human.sum()
    specificity = (~judge & ~human).sum() / (~human).sum()
    assert r["p"] == pytest.approx(sensitivity) == 0.9
    assert r["q"] == pytest.approx(1 - specificity) == 0.15


def test_newcombe_interval_hand_computed():
    d, lo, hi = hj.newcombe_interval(8, 10, 2, 10)
    p1, l1, u1 = wilson(8, 10)
    p2, l2, u2 = wilson(2, 10)
    assert d == pytest.approx(0.6)
    assert lo == pytest.approx(0.6 - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), abs=1e-9)
    assert hi == pytest.approx(0.6 + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2), abs=1e-9)
    assert lo == pytest.approx(0.1618, abs=1e-4) and hi == pytest.approx(0.8027, abs=1e-4)


def test_newcombe_interval_is_antisymmetric():
    d, lo, hi = hj.newcombe_interval(3, 17, 11, 13)
    d2, lo2, hi2 = hj.newcombe_interval(11, 13, 3, 17)
    assert d == pytest.approx(-d2) and lo == pytest.approx(-hi2) and hi == pytest.approx(-lo2)


def test_sas_rates_keep_partly_apart():
    label = np.array([2, 2, 2, 2, 1, 1, 1, 0, 0, 0, 0, 0])
    verdict = np.array([1, 1, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0], dtype=bool)
    r = hj.sas_rates(verdict, label)
    assert (r["p"], r["q"]) == (0.75, 0.2)
    assert r["partly"] == pytest.approx(1 / 3) and (r["k_partly"], r["n_partly"]) == (1, 3)
    flipped = verdict.copy()
    flipped[label == 1] = ~flipped[label == 1]  # what the judge says on label 1 never moves p or q
    r2 = hj.sas_rates(flipped, label)
    assert (r2["p"], r2["q"], r2["n_same"], r2["n_diff"]) == (r["p"], r["q"], r["n_same"], r["n_diff"])
    assert r2["partly"] == pytest.approx(2 / 3)


def test_sas_rates_without_partly_pairs():
    r = hj.sas_rates([True, False], [2, 0])
    assert math.isnan(r["partly"]) and r["n_partly"] == 0


def test_annotator_ceiling_hand_computed():
    a = pd.DataFrame({
        "a1": [True, True, True, False, False, False],
        "a2": [True, True, False, False, False, True],
        "a3": [None, True, True, None, True, False],
    }, dtype="boolean")
    rows = {(r["kind"], r["reference"], r["judge"]): r for r in hj.annotator_ceiling(a)}
    r = rows[("pairwise", "a1", "a2")]  # a2 judged against a1 on all six rows
    assert (r["p"], r["q"], r["items"]) == (pytest.approx(2 / 3), pytest.approx(1 / 3), 6)
    assert r["agreement"] == pytest.approx(4 / 6)
    r = rows[("pairwise", "a1", "a3")]  # rows 1, 2, 4, 5: a1 = T, T, F, F; a3 = T, T, T, F
    assert (r["p"], r["q"], r["items"]) == (1.0, 0.5, 4)
    # a1 against the others: row 0 -> a2 alone (T); row 1 -> T, T (T); row 2 -> F, T (tie, left out);
    # row 3 -> a2 alone (F); row 4 -> F, T (tie); row 5 -> T, F (tie)
    r = rows[("vs_others", "majority of the others", "a1")]
    assert (r["items"], r["ties"], r["p"], r["q"]) == (3, 3, 1.0, 0.0)


def test_rate_homogeneity():
    v = np.array([1, 0] * 20 + [1, 0, 0, 0] * 5, dtype=bool)
    y = np.array([True] * 40 + [False] * 20)
    g = np.array(["a", "b"] * 20 + ["a"] * 20)
    r = hj.rate_homogeneity(v, y, g)
    # the same-meaning items alternate 1, 0 and the groups alternate a, b: group a is all TRUE, b all FALSE
    assert r["p_by_group"] == {"a": {"rate": 1.0, "n": 20}, "b": {"rate": 0.0, "n": 20}} and r["p_pvalue"] < 1e-8
    assert math.isnan(r["q_pvalue"])  # one group only among the different items
    even = hj.rate_homogeneity([1, 0, 1, 0, 1, 0, 1, 0], [1, 1, 1, 1, 0, 0, 0, 0], ["a", "a", "b", "b"] * 2)
    assert even["p_pvalue"] == pytest.approx(1.0) and even["q_pvalue"] == pytest.approx(1.0)


def test_gold_aliases_and_lexical_scores():
    assert hj.gold_aliases("AC/DC") == ("AC/DC", "AC", "DC")
    assert hj.gold_aliases(" Paris ") == ("Paris",)
    s = hj.lexical_scores(["the Beatles", "It was the Beatles in 1962", "Stones"], [("Beatles",), ("beatles",), ("Beatles",)])
    assert s["exact"].tolist() == [True, False, False]
    assert s["contained"].tolist() == [True, True, False]
    assert s["overlap"].tolist() == pytest.approx([0.5, 1 / 6, 0.0])   # {the, beatles} vs {beatles}
    assert s["rouge"].tolist() == pytest.approx([2 / 3, 2 / 7, 0.0])  # 2 * LCS / (|a| + |b|)
    assert hj.lexical_scores(["Beatlemania"], [("Beatles",)])["contained"].tolist() == [False]  # whole words only


def test_verdicts_take_the_threshold_itself_as_true():
    s = pd.DataFrame({"cos": [0.7, 0.69999, 0.9], "overlap": [0.5, 0.49, 1.0], "rouge": [0.5, 0.1, 1.0],
                      "exact": [False, False, True], "contained": [True, False, True]})
    v = hj.verdicts_from_scores(s, correctness=True)
    assert v["MiniLM cos>=0.7"].tolist() == [True, False, True]
    assert v["MiniLM cos>=0.9"].tolist() == [False, False, True]
    assert v["word overlap (Jaccard>=0.5)"].tolist() == [True, False, True]
    assert v["gold contained"].tolist() == [True, False, True]
    assert "gold contained" not in hj.verdicts_from_scores(s, correctness=False)


def test_sbm_prediction_of_a_perfect_and_a_blind_judge():
    perfect = hj.sbm_prediction(1.0, 0.0, iterations=1)
    assert all(v["all"] == 0 for v in perfect["table1_error"].values()) and perfect["liu_side"] == "above"
    assert perfect["snr"]["70"] > perfect["snr"]["30"] > 1
    blind = hj.sbm_prediction(0.5, 0.5, iterations=2)
    assert blind["snr"] == {"30": None, "70": None} and blind["liu_side"] == "below"
    assert blind["table1_error"]["unnormalized"]["all"] > 0.1


# --------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("call, match", [
    (lambda: hj.newcombe_interval(5, 4, 1, 3), "k1"),
    (lambda: hj.newcombe_interval(1, 0, 1, 3), "n1"),
    (lambda: hj.newcombe_interval(1, 2, 1, 3, level=1.0), "level"),
    (lambda: hj.judge_rates([1, 0], [1, 0, 1]), "same length"),
    (lambda: hj.judge_rates([1, 0], [1, 1]), "both classes"),
    (lambda: hj.judge_rates([1, 2], [1, 0]), "verdict"),
    (lambda: hj.judge_rates([[1, 0]], [[1, 0]]), "1-D"),
    (lambda: hj.judge_rates(pd.Series([True, None], dtype="boolean"), [True, False]), "missing"),
    (lambda: hj.sas_rates([1, 0, 1], [2, 0, 3]), "0, 1 or 2"),
    (lambda: hj.sas_rates([1, 0], [1, 0]), "both 0"),
    (lambda: hj.sas_rates([1, 0], [2]), "length"),
    (lambda: hj.annotator_ceiling(pd.DataFrame({"a": [True]})), "at least two"),
    (lambda: hj.annotator_ceiling(pd.DataFrame({"a": [1, 0], "b": ["x", "y"]})), "booleans"),
    (lambda: hj.rate_homogeneity([1, 0], [1, 0], ["a"]), "one length"),
    (lambda: hj.gold_aliases(None), "string"),
    (lambda: hj.lexical_scores(["a"], []), "one length"),
    (lambda: hj.lexical_scores(["a"], [()]), "non-empty"),
    (lambda: hj.lexical_scores([3], [("a",)]), "string"),
    (lambda: hj.verdicts_from_scores(pd.DataFrame({"cos": [0.5]}), correctness=False), "lacks"),
    (lambda: hj.sbm_prediction(1.5, 0.1), "p"),
    (lambda: hj.sbm_prediction(0.5, 0.1, iterations=0), "iterations"),
    (lambda: hj.phase_grid([2.0], [0.1]), "qs"),
])
def test_bad_input_raises(call, match):
    with pytest.raises(ValueError, match=match):
        call()
