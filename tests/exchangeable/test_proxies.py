"""Tests of semvar.exchangeable.proxies: the sub-Gaussian proxies of Beta and Bernoulli laws, against mpmath."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar import exchangeable as ex
from semvar.exchangeable.proxies import _proxy_ratio


def _mp_ratio(lam, a, b):
    mpmath.mp.dps = 40
    k = mpmath.log(mpmath.hyp1f1(a, a + b, lam)) - lam * mpmath.mpf(a) / (a + b)
    return float(2 * k / lam**2)


@pytest.mark.parametrize("lam", [-700.0, -35.0, -0.7, 0.3, 12.0, 650.0])
def test_beta_log_mgf_matches_mpmath(lam):
    a, b = 60.0, 25.0
    mu = a / (a + b)
    assert _proxy_ratio(lam, a, b, mu) == pytest.approx(_mp_ratio(lam, a, b), rel=1e-8)


@pytest.mark.parametrize("a,b", [(2.0, 5.0), (7.0, 3.0), (0.5, 3.0), (40.0, 12.0)])
def test_beta_proxy_is_the_supremum(a, b):
    proxy = ex.beta_subgaussian_proxy(a, b)
    # an independent brute-force supremum on a dense grid with mpmath
    lams = np.concatenate([-np.logspace(-1, 3, 300), np.logspace(-1, 3, 300)])
    brute = max(_mp_ratio(float(l), a, b) for l in lams)
    assert brute <= proxy * (1 + 1e-9)
    assert proxy == pytest.approx(brute, rel=1e-4)


def test_beta_proxy_tends_to_the_bernoulli_proxy():
    # Beta(p e, (1-p) e) -> Bernoulli(p) as e -> 0; Kearns-Saul's closed form is the limit
    for p in (0.3, 0.8):
        eps = 1e-5
        assert ex.beta_subgaussian_proxy(p * eps, (1 - p) * eps) == pytest.approx(
            ex.bernoulli_subgaussian_proxy(p), rel=1e-3
        )


def test_bernoulli_proxy_by_hand():
    p = 0.2
    assert ex.bernoulli_subgaussian_proxy(p) == pytest.approx(0.6 / (2 * math.log(4.0)))
    assert ex.bernoulli_subgaussian_proxy(0.0) == 0.0


@settings(max_examples=15, deadline=None)
@given(a=st.floats(0.2, 50.0), b=st.floats(0.2, 50.0))
def test_beta_proxy_properties(a, b):
    var = ex.beta_variance(a, b)
    proxy = ex.beta_subgaussian_proxy(a, b)
    assert proxy >= var * (1 - 1e-12)
    assert proxy <= ex.beta_proxy_upper_bound(a, b) * (1 + 1e-6)
    assert proxy <= ex.bernoulli_subgaussian_proxy(a / (a + b)) * (1 + 1e-6)
    if abs(a - b) > 0.05 * (a + b):  # skewed: the optimal proxy exceeds the variance
        assert proxy > var * (1 + 1e-6)


@settings(max_examples=10, deadline=None)
@given(a=st.floats(0.2, 60.0))
def test_beta_proxy_equals_variance_when_symmetric(a):
    assert ex.beta_subgaussian_proxy(a, a) == pytest.approx(ex.beta_variance(a, a), rel=1e-4)


@pytest.mark.parametrize("a,b", [(0.0, 1.0), (1.0, -2.0), (float("nan"), 1.0), (float("inf"), 1.0)])
def test_beta_functions_refuse_bad_parameters(a, b):
    for fn in (ex.beta_subgaussian_proxy, ex.beta_variance, ex.beta_proxy_upper_bound):
        with pytest.raises(ValueError, match="must"):
            fn(a, b)
