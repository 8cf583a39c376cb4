"""Tests of semvar.exchangeable.concentration: the effective variance proxy, its tail and half-widths."""

from __future__ import annotations

import math

import pytest

from semvar import exchangeable as ex


def test_hoeffding_and_wald_by_hand():
    assert ex.hoeffding_halfwidth(100, 0.05) == pytest.approx(math.sqrt(math.log(40) / 200))
    assert ex.wald_halfwidth(0.5, 100, 0.05) == pytest.approx(1.959964 * 0.05, rel=1e-6)


def test_effective_variance_tail_and_halfwidth():
    assert ex.effective_variance([1.0, 1.0, 2.0], 0.5) == pytest.approx(6 / 4 + 0.5)
    t = ex.halfwidth(2.0, 0.05)
    assert ex.tail_bound(t, 2.0) == pytest.approx(0.05)
    assert ex.tail_bound(0.0, 1.0) == 1.0


def test_gaussian_tightness_by_hand():
    # p ~ Beta(1, 1), one item: X is Bernoulli(1/2) marginally, Var = 1/4; sigma2_eff = 1/4 + 1/12 = 1/3
    from semvar.experiments.mmlu_bounds import gaussian_tightness

    g = gaussian_tightness(1, 1.0)
    assert g["Var(mean)"] == pytest.approx(0.25) and g["sigma2_eff"] == pytest.approx(1 / 3)
    assert g["ratio"] == pytest.approx(0.75) and g["mixture share"] == pytest.approx(0.25)
    # Var(mean) = sigma2_eff - Var(p)/n in the symmetric case
    g = gaussian_tightness(50, 3.0)
    assert g["Var(mean)"] == pytest.approx(g["sigma2_eff"] - ex.beta_variance(3, 3) / 50)
