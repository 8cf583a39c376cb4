"""Tests of semvar.exchangeable.hierarchical: subject-macro half-widths and split-half correlations."""

from __future__ import annotations

import math

import numpy as np
import pytest

from semvar import exchangeable as ex
from semvar.experiments.exchangeable_sim import simulate_exchangeable_means, simulate_hierarchical


def test_macro_halfwidth_by_hand():
    # S = 2, n = (50, 200), sigma2 = (0.01, 0.02): sigma2_eff = (1/16)(1/50 + 1/200) + (0.03)/4
    s2 = (1 / 50 + 1 / 200) / 16 + 0.03 / 4
    assert ex.macro_halfwidth([50, 200], [0.01, 0.02], 0.05) == pytest.approx(math.sqrt(2 * s2 * math.log(40)))
    assert ex.iid_macro_halfwidth([50, 200], 0.05) < ex.macro_halfwidth([50, 200], [0.01, 0.02], 0.05)


def test_hierarchical_halfwidth_covers_in_simulation():
    trials = np.array([100, 150, 200, 120, 300, 90] * 3)
    domains = np.array(["x"] * 9 + ["y"] * 9)
    params = {"x": (7.0, 3.0), "y": (4.0, 4.0)}
    truth = (0.7 * 9 + 0.5 * 9) / 18
    sim = simulate_hierarchical(trials, domains, params, 2000, random_state=0)
    macro = (sim["successes"] / trials).mean(axis=1)
    s2 = np.where(domains == "x", ex.beta_subgaussian_proxy(7, 3), ex.beta_subgaussian_proxy(4, 4))
    hw = ex.macro_halfwidth(trials, s2, 0.05)
    iid = ex.iid_macro_halfwidth(trials, 0.05)
    assert np.mean(np.abs(macro - truth) <= hw) >= 0.95
    assert np.mean(np.abs(macro - truth) <= iid) < 0.8


def test_split_half_separates_iid_from_heterogeneous():
    rng = np.random.default_rng(1)
    groups = np.repeat(np.arange(40), 100)
    iid = rng.binomial(1, 0.4, size=groups.size)
    het = rng.binomial(1, rng.beta(2, 3, size=40)[groups])
    r_iid = np.mean([ex.split_half_correlation(iid, groups, random_state=s) for s in range(5)])
    r_het = np.mean([ex.split_half_correlation(het, groups, random_state=s) for s in range(5)])
    assert abs(r_iid) < 0.3 and r_het > 0.8


def test_simulators_are_reproducible():
    m1, p1 = simulate_exchangeable_means(10, 2, 2, 5, random_state=4)
    m2, p2 = simulate_exchangeable_means(10, 2, 2, 5, random_state=4)
    assert np.array_equal(m1, m2) and np.array_equal(p1, p2)


# --------------------------------------------------------------------------- groups as labels; masks; memory
GROUPS = np.repeat(np.arange(4), 6)
CORRECT = np.tile([1, 0, 1, 1, 0, 0], 4)


@pytest.mark.parametrize("fn", [ex.split_half_correlation, ex.split_half_correlations])
@pytest.mark.parametrize(
    "groups, msg",
    [
        ([None] * 6 + ["b"] * 18, r"groups holds None at position 0"),
        ([1] * 6 + ["1"] * 6 + [2] * 12, r"groups must hold labels of one kind"),
        ([0.0] * 6 + [np.nan] * 6 + [2.0] * 12, r"groups contains NaN"),
    ],
)
def test_groups_must_be_labels_of_one_kind(fn, groups, msg):
    with pytest.raises(ValueError, match=msg):
        fn(CORRECT, groups, random_state=0)


def test_groups_given_as_strings_split_as_the_same_groups_as_ints():
    names = np.array(["d", "a", "c", "b"])[GROUPS].tolist()  # a list of str, in sorted order a, b, c, d
    ints = np.array([3, 0, 2, 1])[GROUPS]  # the same groups numbered in that order
    for fn in (ex.split_half_correlation, ex.split_half_correlations):
        assert np.array_equal(fn(CORRECT, names, random_state=3), fn(CORRECT, ints, random_state=3), equal_nan=True)


def test_a_masked_item_is_left_out_of_the_split_half_correlation():
    c = np.ma.MaskedArray(np.r_[CORRECT, 1], mask=np.r_[np.zeros(24, bool), True])
    g = np.r_[GROUPS, 0]
    assert np.array_equal(ex.split_half_correlations(c, g, 5, random_state=1),
                          ex.split_half_correlations(CORRECT, GROUPS, 5, random_state=1), equal_nan=True)
    gm = np.ma.MaskedArray(np.r_[GROUPS, 9], mask=np.r_[np.zeros(24, bool), True])
    assert np.array_equal(ex.split_half_correlations(np.r_[CORRECT, 1], gm, 5, random_state=1),
                          ex.split_half_correlations(CORRECT, GROUPS, 5, random_state=1), equal_nan=True)


def test_domains_must_be_labels_of_one_kind():
    k, n = [3, 5, 4, 6], [10, 10, 10, 10]
    with pytest.raises(ValueError, match=r"domains holds None at position 0"):
        ex.hierarchical_macro_halfwidth(k, n, [None, None, "x", "x"], 0.05)
    with pytest.raises(ValueError, match=r"domains must hold labels of one kind"):
        ex.hierarchical_macro_halfwidth(k, n, [1, 1, "1", "1"], 0.05)  # were one domain of four subjects
    same = ex.hierarchical_macro_halfwidth(k, n, ["x", "x", "y", "y"], 0.05)
    assert ex.hierarchical_macro_halfwidth(k, n, np.array(["x", "x", "y", "y"], dtype=object), 0.05)[
        "halfwidth"] == same["halfwidth"]
    assert list(same["fits"]) == ["x", "y"]


def test_masked_trials_are_refused():
    with pytest.raises(ValueError, match=r"trials is a masked array with 1 masked entry"):
        ex.macro_halfwidth(np.ma.MaskedArray([10, 20], mask=[0, 1]), 0.0, 0.05)
    with pytest.raises(ValueError, match=r"sigma2_mix is a masked array"):
        ex.micro_halfwidth([10, 20], np.ma.MaskedArray([0.1, 0.2], mask=[0, 1]), 0.05)


def test_split_half_correlations_refuse_splits_that_cannot_fit(monkeypatch):
    from semvar import graph

    monkeypatch.setattr(graph, "available_memory", lambda: 2**30)
    with pytest.raises(ValueError, match=r"n_splits = 1,000,000,000,000 splits need about [\d,.]+ GiB"):
        ex.split_half_correlations(CORRECT, GROUPS, 10**12, random_state=0)
