"""Tests of semvar.experiments.budget (the judge-budget sweep of chapter 6) on one small cell at a time."""

from __future__ import annotations

import math

import numpy as np
import pytest

from semvar.experiments import budget as B


def _entropy(sizes):
    n = sum(sizes)
    return -sum(s / n * math.log(s / n) for s in sizes)


def test_sizes_for_puts_the_remainder_in_the_last_block():
    assert B.sizes_for(1000) == [200, 300, 500]
    assert B.sizes_for(7, (1, 1, 1)) == [2, 2, 3]          # round(7/3) = 2 twice, the rest last
    assert B.sizes_for(10, (2, 3)) == [4, 6]                # proportions need not sum to one
    with pytest.raises(ValueError, match="proportions must be positive"):
        B.sizes_for(10, (0.5, 0.0, 0.5))
    with pytest.raises(ValueError, match="n=2 is too small"):
        B.sizes_for(2, (0.2, 0.3, 0.5))
    with pytest.raises(ValueError, match="n"):
        B.sizes_for(0)


def test_frozen_judge_answers_from_its_matrix_and_refuses_what_it_does_not_know():
    V = np.array([[1, 0, 1], [0, 1, 0], [1, 0, 1]])
    j = B.FrozenJudge(V)
    assert j.pairs(["a", "b", "c"], [[0, 2], [2, 0], [0, 1]]).tolist() == [True, True, False]
    assert j.pairs(["a", "b", "c"], np.array([1, 2])).tolist() == [False]     # one pair, flat
    with pytest.raises(ValueError, match="knows 3 texts but was given 2"):
        j.pairs(["a", "b"], [[0, 1]])
    with pytest.raises(ValueError, match="symmetric square matrix"):
        B.FrozenJudge([[1, 1], [0, 1]])
    with pytest.raises(ValueError, match="symmetric square matrix"):
        B.FrozenJudge(np.ones((2, 3)))


def test_a_perfect_judge_on_every_pair_gives_the_truth_with_each_method():
    n = 60
    rows = B.run_random(n, 1.0, 0.0, 1.0, seed=3)
    assert [r["method"] for r in rows] == list(B.METHODS)
    for r in rows:
        assert r["design"] == "random" and r["calls"] == n * (n - 1) // 2 and r["fraction"] == 1.0
        assert r["err"] == pytest.approx(0.0, abs=1e-12) and r["ari"] == pytest.approx(1.0), r["method"]


def test_a_random_design_asks_about_the_share_of_pairs_it_is_given():
    n, s = 200, 0.1
    rows = B.run_random(n, 0.87, 0.07, s, seed=0, methods=("normalized",))
    (r,) = rows
    pairs = n * (n - 1) / 2
    assert r["calls"] == pytest.approx(s * pairs, rel=0.1)   # Binomial(19900, 0.1): sd 42 calls, 2% of the mean
    assert r["fraction"] == pytest.approx(r["calls"] / pairs)
    assert 0 <= r["err"] <= math.log(3) and -1 <= r["ari"] <= 1


def test_the_greedy_design_with_a_perfect_judge_finds_the_blocks():
    n = 50
    r = B.run_greedy(n, 1.0, 0.0, seed=1)
    assert r["design"] == r["method"] == "greedy"
    assert r["n_clusters"] == 3 and r["err"] == pytest.approx(0.0, abs=1e-12) and r["ari"] == pytest.approx(1.0)
    # each text is compared with at most one representative per cluster found so far
    assert n - 1 <= r["calls"] <= 3 * n and r["fraction"] == pytest.approx(r["calls"] / (n * (n - 1) / 2))


def test_greedy_order_study_rows_and_the_noise_free_case():
    exact = B.greedy_order_study(30, 1.0, 0.0, 3, seed=2)
    assert list(exact.columns) == ["order", "entropy", "err", "n_clusters", "calls", "ari"]
    assert exact["order"].tolist() == [0, 1, 2]
    assert np.allclose(exact["entropy"], _entropy(B.sizes_for(30))) and (exact["n_clusters"] == 3).all()
    noisy = B.greedy_order_study(60, 0.7, 0.2, 6, seed=2)
    # one frozen judge, so only the order changes between rows; the errors are |H_order - H|
    assert np.allclose(noisy["err"], (noisy["entropy"] - _entropy(B.sizes_for(60))).abs())
    assert noisy["entropy"].nunique() > 1                     # the order alone moves the estimate
    with pytest.raises(ValueError, match="n_orders"):
        B.greedy_order_study(30, 1.0, 0.0, 0)


def test_the_settings_of_the_sweep_include_every_pair_only_for_small_n():
    rows = list(B._settings([200, 2000], (1, 4), quick=True))
    s200 = sorted({s for n, s, _ in rows if n == 200})
    s2000 = sorted({s for n, s, _ in rows if n == 2000})
    assert s200 == pytest.approx([2 / 199, 8 / 199, 1.0]) and s2000 == pytest.approx([2 / 1999, 8 / 1999])
    assert {seed for *_, seed in rows} == {0, 1}
