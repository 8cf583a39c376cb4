"""Tests of semvar.exchangeable.betabinomial: moment and maximum-likelihood beta-binomial fits."""

from __future__ import annotations

import math

import numpy as np
import pytest

from semvar import exchangeable as ex


def test_moment_fit_by_hand():
    # y = .05, .5, .95: mean .5, s^2 = .2025, h = .01, rho = (.81 - .01)/.99
    fit = ex.fit_beta_binomial([5, 50, 95], [100, 100, 100], method="moments")
    assert fit.mean == pytest.approx(0.5)
    assert fit.rho == pytest.approx(0.8 / 0.99)
    assert fit.a == pytest.approx(0.5 * (0.99 / 0.8 - 1))


def test_fits_recover_simulated_parameters():
    rng = np.random.default_rng(3)
    n = np.full(400, 200)
    p = rng.beta(6.0, 3.0, size=400)
    k = rng.binomial(n, p)
    for method in ("moments", "mle"):
        fit = ex.fit_beta_binomial(k, n, method=method)
        assert fit.mean == pytest.approx(6 / 9, abs=0.02)
        assert fit.a + fit.b == pytest.approx(9.0, rel=0.2)


def test_mle_beats_moments_in_likelihood():
    k, n = [3, 10, 22, 15, 30], [40, 40, 50, 30, 45]
    mle = ex.fit_beta_binomial(k, n, method="mle")
    mom = ex.fit_beta_binomial(k, n, method="moments")
    assert mle.loglik >= mom.loglik - 1e-6


def test_no_overdispersion_gives_zero_mixture():
    k = [25, 25, 25, 25]
    fit = ex.fit_beta_binomial(k, [100] * 4, method="moments")
    assert fit.rho == 0.0 and math.isinf(fit.a) and fit.proxy() == 0.0
