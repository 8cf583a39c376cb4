"""Tests of semvar.experiments.realtext: the oracle table and the statistics of chapter 9."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

from semvar.experiments import realtext as rt

LETTERS = list("ABCDEFGHIJ")


def _frame(rows):
    """A loader-like frame from (model, question_id, answer, pred, category) tuples."""
    df = pd.DataFrame(rows, columns=["model", "question_id", "answer", "pred", "category"])
    df["model"] = pd.Categorical(df["model"])
    df["answer"] = pd.Categorical(df["answer"], categories=LETTERS)
    df["pred"] = pd.Categorical(df["pred"], categories=LETTERS)
    df["category"] = pd.Categorical(df["category"])
    return df


def test_answer_entropy_table_by_hand():
    rows = [
        # q1: A, A, B, unparseable -> key A has the strict plurality
        ("m1", 1, "A", "A", "math"), ("m2", 1, "A", "A", "math"), ("m3", 1, "A", "B", "math"), ("m4", 1, "A", None, "math"),
        # q2: two unparseable, one C, one D, key C -> tie of C? no: unparseable 2 > C 1 -> plurality is unparseable: wrong
        ("m1", 2, "C", None, "law"), ("m2", 2, "C", None, "law"), ("m3", 2, "C", "C", "law"), ("m4", 2, "C", "D", "law"),
        # q3: B, B, C, C with key B -> a tie with the key counts as wrong
        ("m1", 3, "B", "B", "law"), ("m2", 3, "B", "B", "law"), ("m3", 3, "B", "C", "law"), ("m4", 3, "B", "C", "law"),
        # q4: three of four on the wrong letter D -> confidently wrong
        ("m1", 4, "A", "D", "law"), ("m2", 4, "A", "D", "law"), ("m3", 4, "A", "D", "law"), ("m4", 4, "A", "A", "law"),
        # q5: answered by three models only -> left out when complete=True
        ("m1", 5, "A", "A", "law"), ("m2", 5, "A", "A", "law"), ("m3", 5, "A", "A", "law"),
    ]
    t = rt.answer_entropy_table(_frame(rows))
    assert t.index.tolist() == [1, 2, 3, 4]
    h = lambda *c: -sum(x / sum(c) * math.log(x / sum(c)) for x in c)  # noqa: E731
    assert np.allclose(t["entropy"], [h(2, 1, 1), h(2, 1, 1), h(2, 2), h(3, 1)])
    assert t["n_outcomes"].tolist() == [3, 3, 2, 2]
    assert t["top_outcome"].tolist()[:2] == ["A", rt.UNPARSEABLE]
    assert t["majority_wrong"].tolist() == [False, True, True, True]
    assert t["confident_wrong"].tolist() == [False, False, False, True]
    assert t["share_correct"].tolist() == [0.5, 0.25, 0.5, 0.25]
    full = rt.answer_entropy_table(_frame(rows), complete=False)
    assert full.loc[5, "entropy"] == 0.0 and full.loc[5, "n_answers"] == 3


def test_modal_key_and_guessed_letters():
    rows = [("m1", 1, "A", "A", "x"), ("m2", 1, "A", "A", "x"), ("m3", 1, "B", "B", "x")]
    f = _frame(rows)
    t = rt.answer_entropy_table(f)
    assert t.loc[1, "answer"] == "A" and bool(t.loc[1, "key_disputed"])
    f.attrs["pred_without_letter_ids"] = {"m1": [1], "m2": [], "m3": []}
    assert rt.outcome_codes(f, guessed_as_unparseable=True).tolist() == [10, 0, 1]
    with pytest.raises(ValueError, match="pred_without_letter_ids"):
        rt.outcome_codes(_frame(rows), guessed_as_unparseable=True)


def test_frame_checks():
    with pytest.raises(ValueError, match="DataFrame"):
        rt.answer_entropy_table([1, 2])
    with pytest.raises(ValueError, match="lacks the columns"):
        rt.answer_entropy_table(pd.DataFrame({"model": [1]}))
    bad = _frame([("m", 1, "A", "A", "x")])
    bad["pred"] = bad["pred"].astype(str)
    with pytest.raises(ValueError, match="categorical"):
        rt.answer_entropy_table(bad)


def _delong_brute(score, y):
    """DeLong's variance from the O(mn) kernel, written out independently."""
    x, z = score[y], score[~y]
    psi = (x[:, None] > z[None, :]) + 0.5 * (x[:, None] == z[None, :])
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    return psi.mean(), v10.var(ddof=1) / x.size + v01.var(ddof=1) / z.size


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.booleans()), min_size=6, max_size=60))
def test_auroc_agrees_with_sklearn_and_brute_force(data):
    s = np.array([d[0] for d in data], dtype=float)
    y = np.array([d[1] for d in data])
    if y.sum() < 2 or (~y).sum() < 2:
        return
    auc, lo, hi = rt.auroc_ci(s, y)
    assert auc == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    a2, var = _delong_brute(s, y)
    assert auc == pytest.approx(a2, abs=1e-12)
    half = 1.959963984540054 * math.sqrt(var)
    assert lo == pytest.approx(max(0.0, auc - half), abs=1e-9) and hi == pytest.approx(min(1.0, auc + half), abs=1e-9)


def test_auroc_orientation_and_bad_input():
    assert rt.auroc([1, 2, 3, 4], [0, 0, 1, 1]) == 1.0
    assert rt.auroc([4, 3, 2, 1], [0, 0, 1, 1]) == 0.0
    with pytest.raises(ValueError, match="two of each class"):
        rt.auroc_ci([1, 2, 3], [0, 1, 1])
    with pytest.raises(ValueError, match="same length"):
        rt.auroc_ci([1, 2, 3], [0, 1])
    with pytest.raises(ValueError, match="finite"):
        rt.auroc_ci([1, np.nan, 3, 4], [0, 1, 0, 1])
    with pytest.raises(ValueError, match="boolean or 0/1"):
        rt.auroc_ci([1, 2, 3, 4], [0, 2, 0, 1])
    with pytest.raises(ValueError, match="level"):
        rt.auroc_ci([1, 2, 3, 4], [0, 1, 0, 1], level=1.0)


def test_rate_ci_wilson_formula():
    k, n = 37, 120
    z = 1.959963984540054
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    r, lo, hi = rt.rate_ci(k, n)
    assert r == p and lo == pytest.approx(centre - half, abs=1e-10) and hi == pytest.approx(centre + half, abs=1e-10)
    _, lo_e, hi_e = rt.rate_ci(0, 10, method="exact")  # Clopper-Pearson at k = 0: [0, 1 - 0.025^(1/10)]
    assert lo_e == 0.0 and hi_e == pytest.approx(1 - 0.025 ** 0.1, abs=1e-10)
    with pytest.raises(ValueError, match="method"):
        rt.rate_ci(1, 2, method="wald")
    with pytest.raises(ValueError, match="k must"):
        rt.rate_ci(3, 2)


def test_best_threshold_and_pq_table():
    rng = np.random.default_rng(0)
    same = rng.random(4000) < 0.3
    score = np.where(same, 0.8, 0.5) + 0.05 * rng.standard_normal(4000)
    t, bal = rt.best_threshold(score, same, rt.COS_GRID)
    assert 0.6 <= t <= 0.7 and bal > 0.99
    with pytest.raises(ValueError, match="both"):
        rt.best_threshold(score, np.ones(4000, bool), rt.COS_GRID)
    qid = np.repeat(np.arange(40), 100)
    v = rng.random(4000) < np.where(same, 0.7, 0.2)
    r = rt.pq_table(qid, same, v, n_boot=300, random_state=1)
    assert r["n_same"] == same.sum() and r["n_diff"] == (~same).sum() and r["questions"] == 40
    assert r["p"] == v[same].mean() and r["q"] == v[~same].mean()
    for key, point in (("p_wilson", r["p"]), ("q_wilson", r["q"]), ("p_boot", r["p"]), ("q_boot", r["q"])):
        assert r[key][0] < point < r[key][1]
    assert r["gap_boot"][0] > 0.3


def test_stratified_rates_detects_dependence_and_accepts_independence():
    rng = np.random.default_rng(3)
    f = rng.random(5000)
    dep = rng.random(5000) < 0.2 + 0.6 * f
    ind = rng.random(5000) < 0.5
    table, p_dep = rt.stratified_rates(dep, f)
    assert len(table) == 5 and table["pairs"].sum() == 5000 and table["rate"].is_monotonic_increasing
    assert p_dep < 1e-10
    _, p_ind = rt.stratified_rates(ind, f)
    assert p_ind > 1e-3
    cat, _ = rt.stratified_rates(dep, np.where(f > 0.5, "high", "low"))
    assert set(cat.index) == {"high", "low"}


def test_choose_subset_is_seeded():
    a = rt.choose_subset(np.arange(1000), 50, random_state=5)
    b = rt.choose_subset(np.arange(1000), 50, random_state=5)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert np.all(np.diff(a[0]) > 0) and a[1].sum() == 25
    with pytest.raises(ValueError, match="n must"):
        rt.choose_subset(np.arange(10), 11)
