"""Tests of semvar.exchangeable.contrasts: zero-sum contrasts and the subsample-vs-full bound."""

from __future__ import annotations

import math

import pytest

from semvar import exchangeable as ex


def test_subsample_halfwidth_matches_the_paper():
    # Lin, Frei & de la Pena (2026): 5,000 of MMLU's 14,042 items give +-1.54 pp at 95 %.
    assert round(ex.subsample_halfwidth(5000, 14042, 0.05), 5) == 0.01541


def test_subsample_halfwidth_by_hand():
    # n = 1, N = 2, R = 1: sum(a^2) = 1/2, t = sqrt(2 * (1/8) * log(2/delta)) = sqrt(log(2/delta)/4)
    assert ex.subsample_halfwidth(1, 2, 0.5) == pytest.approx(math.sqrt(math.log(4.0) / 4.0))
    assert ex.subsample_halfwidth(7, 7, 0.1) == 0.0
    assert ex.subsample_halfwidth(10, 100, 0.05, value_range=2.0) == pytest.approx(2 * ex.subsample_halfwidth(10, 100, 0.05))


def test_subsample_bound_is_the_contrast_bound():
    a = ex.subsample_contrast(30, 80)
    assert a.sum() == pytest.approx(0.0, abs=1e-12)
    assert (a**2).sum() == pytest.approx((80 - 30) / (30 * 80))
    s2 = ex.contrast_variance_proxy(a)
    assert ex.halfwidth(s2, 0.05) == pytest.approx(ex.subsample_halfwidth(30, 80, 0.05))


def test_subsample_size_inverts_the_halfwidth():
    for t in (0.01, 0.02, 0.005):
        n = ex.subsample_size(t, 14042, 0.05)
        assert ex.subsample_halfwidth(n, 14042, 0.05) <= t < ex.subsample_halfwidth(n - 1, 14042, 0.05)


def test_serfling_is_close_to_the_mixture_free_bound():
    s = ex.serfling_halfwidth(5000, 14042, 0.05)
    m = ex.subsample_halfwidth(5000, 14042, 0.05)
    assert m < s < m * 1.0001


@pytest.mark.parametrize(
    "args,match",
    [
        ((5001, 5000, 0.05), "n must be <= N"),
        ((0, 5000, 0.05), "n must be >= 1"),
        ((10, 100, 0.0), r"delta must lie in \(0.0, 1.0\)"),
        ((10, 100, 1.0), r"delta must lie in \(0.0, 1.0\)"),
        ((10, 100, 0.05, -1.0), "value_range"),
        ((10.5, 100, 0.05), "n must be an integer"),
    ],
)
def test_subsample_halfwidth_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        ex.subsample_halfwidth(*args)
