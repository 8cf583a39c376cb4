"""The benchmark-level functions of semvar.exchangeable: micro half-width, split-half correlations, paired contrasts."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar import exchangeable as ex

# ---------------------------------------------------------------- micro_halfwidth


def test_micro_halfwidth_by_hand():
    # N = 50 + 150 = 200; sigma2_eff = 1/800 + (1/4)^2 0.02 + (3/4)^2 0.01
    s2 = 1 / 800 + 0.0625 * 0.02 + 0.5625 * 0.01
    assert ex.micro_halfwidth([50, 150], [0.02, 0.01], 0.05) == pytest.approx(math.sqrt(2 * s2 * math.log(40)))
    assert ex.micro_halfwidth([50, 150], 0.0, 0.05) == pytest.approx(ex.hoeffding_halfwidth(200, 0.05))


@settings(max_examples=50, deadline=None)
@given(n=st.lists(st.integers(1, 500), min_size=1, max_size=8), s2=st.floats(0.0, 0.05), extra=st.floats(1e-4, 0.05))
def test_micro_halfwidth_grows_with_the_mixture_and_never_beats_hoeffding(n, s2, extra):
    lo = ex.micro_halfwidth(n, s2, 0.05)
    assert lo >= ex.hoeffding_halfwidth(sum(n), 0.05) - 1e-12
    assert ex.micro_halfwidth(n, s2 + extra, 0.05) > lo


def test_micro_halfwidth_covers_in_simulation():
    # subjects of unequal size, p_s ~ Beta(6, 2): the micro score's deviation from its mean 0.75
    rng = np.random.default_rng(2)
    n = np.array([40, 300, 80, 120, 60])
    p = rng.beta(6, 2, size=(20000, n.size))
    micro = rng.binomial(n, p).sum(axis=1) / n.sum()
    hw = ex.micro_halfwidth(n, ex.beta_subgaussian_proxy(6, 2), 0.05)
    assert np.mean(np.abs(micro - 0.75) < hw) >= 0.95
    assert np.mean(np.abs(micro - 0.75) < ex.hoeffding_halfwidth(n.sum(), 0.05)) < 0.6


# ---------------------------------------------------------------- split_half_correlations


def test_split_half_correlations_separate_iid_from_heterogeneous():
    rng = np.random.default_rng(1)
    groups = np.repeat(np.arange(40), 100)
    iid = rng.binomial(1, 0.4, size=groups.size)
    het = rng.binomial(1, rng.beta(2, 3, size=40)[groups])
    r_iid = ex.split_half_correlations(iid, groups, 50, random_state=0)
    r_het = ex.split_half_correlations(het, groups, 50, random_state=0)
    assert r_iid.shape == (50,) and abs(r_iid.mean()) < 0.1 and r_het.mean() > 0.8
    # the loop version measures the same thing
    loop = np.mean([ex.split_half_correlation(het, groups, random_state=s) for s in range(50)])
    assert abs(loop - r_het.mean()) < 0.03


def test_split_half_correlations_by_hand():
    # three groups of two items each: the halves are single items, so the halves' accuracies are the items
    x = np.array([1, 1, 0, 0, 1, 0])
    r = ex.split_half_correlations(x, [0, 0, 1, 1, 2, 2], 200, random_state=0)
    # group 3 splits as (1, 0) or (0, 1); groups 1, 2 are constant: r = corr((1,0,h),(1,0,1-h)) = 0.5
    assert np.allclose(r, 0.5)
    assert np.isnan(ex.split_half_correlations(np.ones(6), [0, 0, 1, 1, 2, 2], 3, random_state=0)).all()
    assert np.array_equal(ex.split_half_correlations(x, [0, 0, 1, 1, 2, 2], 5, random_state=3),
                          ex.split_half_correlations(x, [0, 0, 1, 1, 2, 2], 5, random_state=3))


def test_split_half_correlations_bad_input():
    with pytest.raises(ValueError, match="only 0 and 1"):
        ex.split_half_correlations([0, 2, 1, 0, 1, 1], [0, 0, 1, 1, 2, 2])
    with pytest.raises(ValueError, match="at least three groups"):
        ex.split_half_correlations([0, 1, 1, 0], [0, 0, 1, 1])
    with pytest.raises(ValueError, match="fewer than two items"):
        ex.split_half_correlations([0, 1, 1, 0, 1], [0, 0, 1, 1, 2])
    with pytest.raises(ValueError, match="n_splits must be >= 1"):
        ex.split_half_correlations([0, 1, 1, 0, 1, 1], [0, 0, 1, 1, 2, 2], 0)
    with pytest.raises(ValueError, match="one label per item"):
        ex.split_half_correlations([0, 1, 1, 0], [0, 0, 1])


# ---------------------------------------------------------------- paired_halfwidth


def test_paired_halfwidth_by_hand():
    a, b = [1, 1, 0, 0], [0, 1, 1, 0]  # two discordant items of four
    assert ex.paired_halfwidth(a, b, 0.05) == pytest.approx(math.sqrt(2 * 2 * math.log(40)) / 4)
    assert ex.paired_halfwidth([1, 0, 1], [1, 0, 1]) == 0.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=1, max_size=60), st.randoms(use_true_random=False))
def test_paired_halfwidth_symmetries(pairs, rnd):
    a, b = map(np.array, zip(*pairs))
    t = ex.paired_halfwidth(a, b)
    assert t == ex.paired_halfwidth(b, a)
    order = list(range(len(a)))
    rnd.shuffle(order)
    assert t == pytest.approx(ex.paired_halfwidth(a[order], b[order]))
    assert t <= math.sqrt(2 * math.log(40) / len(a)) + 1e-12  # never above the unconditional bound


def test_paired_halfwidth_holds_under_interchangeable_models():
    # Theta: a subject mix; given it, each item's pair is exchangeable (the models are interchangeable)
    rng = np.random.default_rng(5)
    N, reps, exceed = 400, 4000, 0
    for _ in range(reps):
        p = rng.beta(2, 2)  # the latent: how easy the items are and how often the two models disagree
        both = rng.random(N) < p
        disagree = rng.random(N) < 0.3 * (1 - p)
        winner = rng.random(N) < 0.5
        a = np.where(disagree, winner, both).astype(int)
        b = np.where(disagree, ~winner, both).astype(int)
        exceed += abs(a.mean() - b.mean()) >= ex.paired_halfwidth(a, b, 0.05)
    assert exceed / reps <= 0.05


def test_paired_halfwidth_bad_input():
    with pytest.raises(ValueError, match="same items"):
        ex.paired_halfwidth([1, 0], [1, 0, 1])
    with pytest.raises(ValueError, match="correct_b must hold only 0 and 1"):
        ex.paired_halfwidth([1, 0], [1, 2])
    with pytest.raises(ValueError, match="delta"):
        ex.paired_halfwidth([1, 0], [1, 0], 0.0)
    with pytest.raises(ValueError, match="at least 1 rows"):
        ex.paired_halfwidth([], [])
