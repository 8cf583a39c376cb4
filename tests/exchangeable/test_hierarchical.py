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
