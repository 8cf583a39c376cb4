"""Tests of semvar.exchangeable.paired: two models on the same items, compared as a zero-sum contrast."""

from __future__ import annotations

import math

import numpy as np
import pytest

from semvar import exchangeable as ex


def test_paired_halfwidth_by_hand():
    # 100 items, a right on 60, b on 50, the 50 of b among a's 60: 10 discordant items
    a = np.r_[np.ones(60), np.zeros(40)]
    b = np.r_[np.ones(50), np.zeros(50)]
    assert ex.paired_halfwidth(a, b, 0.05) == pytest.approx(math.sqrt(2 * 10 * math.log(40)) / 100)
    # only the discordant items count: moving agreements around changes nothing
    a2, b2 = np.r_[a, np.ones(20)], np.r_[b, np.ones(20)]
    assert ex.paired_halfwidth(a2, b2, 0.05) == pytest.approx(math.sqrt(2 * 10 * math.log(40)) / 120)
    assert ex.paired_halfwidth(a, a, 0.05) == 0.0


def test_paired_halfwidth_covers_interchangeable_models():
    # both models answer item i right with the same latent probability p_i: each pair (X_A, X_B) is exchangeable
    rng = np.random.default_rng(5)
    n_items, reps, delta = 200, 2000, 0.1
    p = rng.beta(2.0, 2.0, size=(reps, n_items))
    a = rng.random((reps, n_items)) < p
    b = rng.random((reps, n_items)) < p
    gap = np.abs(a.mean(axis=1) - b.mean(axis=1))
    t = np.array([ex.paired_halfwidth(a[r], b[r], delta) for r in range(reps)])
    assert np.mean(gap >= t) <= delta
    # a model that is really better is resolved: the bound is not so wide that it never separates anything
    better = rng.random((reps, n_items)) < np.minimum(1.0, p + 0.25)
    gap = np.abs(better.mean(axis=1) - b.mean(axis=1))
    t = np.array([ex.paired_halfwidth(better[r], b[r], delta) for r in range(reps)])
    assert np.mean(gap >= t) > 0.9


def test_paired_halfwidth_bad_input():
    with pytest.raises(ValueError, match="must score the same items"):
        ex.paired_halfwidth([1, 0, 1], [1, 0])
    with pytest.raises(ValueError, match="correct_b must hold only 0 and 1"):
        ex.paired_halfwidth([1, 0], [1, 2])
    with pytest.raises(ValueError, match="correct_a must have at least 1 rows"):
        ex.paired_halfwidth([], [])
    with pytest.raises(ValueError, match="delta"):
        ex.paired_halfwidth([1, 0], [0, 1], 1.0)


def test_a_masked_item_is_left_out_of_both_models():
    # item 4 is masked in b: the half-width is that of the four items both models have (was read as agreement)
    a = np.ma.MaskedArray([1, 1, 0, 0, 1], mask=False)
    b = np.ma.MaskedArray([1, 0, 1, 0, 0], mask=[0, 0, 0, 0, 1])
    assert ex.paired_halfwidth(a, b) == ex.paired_halfwidth([1, 1, 0, 0], [1, 0, 1, 0])
    with pytest.raises(ValueError, match="correct_b: every entry is masked"):
        ex.paired_halfwidth([1, 0], np.ma.masked_all(2))
