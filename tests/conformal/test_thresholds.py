"""Tests of semvar.conformal.thresholds: the released code's rank, one above the textbook rank, and its coverage."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from semvar import conformal as cf
from semvar.experiments.ye_protocol import ye_split


def test_quantile_rank_paper_is_one_above_textbook_for_the_papers_split():
    cal, test = ye_split()
    n = len(cal)
    assert n == 4997 and len(test) == 4998
    # hand computation: k = ceil(4998 * 0.9) = ceil(4498.2) = 4499
    assert cf.quantile_rank(n, 0.1, quantile="textbook") == 4499
    assert cf.quantile_rank(n, 0.1, quantile="paper") == 4500
    scores = np.random.default_rng(0).random(n)
    srt = np.sort(scores)
    assert cf.conformal_threshold(scores, 0.1) == srt[4499]
    assert cf.conformal_threshold(scores, 0.1, quantile="textbook") == srt[4498]


@pytest.mark.parametrize("alpha", [0.05, 0.1, 0.15, 0.2])
def test_quantile_rank_off_by_one_except_at_the_top(alpha):
    for n in range(cf.min_calibration_size(alpha), 400):
        k = math.ceil((n + 1) * (1 - Fraction(str(alpha))))
        paper = cf.quantile_rank(n, alpha)
        text = cf.quantile_rank(n, alpha, quantile="textbook")
        assert text == k  # exact; the released code's float k agrees with it for these alphas and n
        assert paper == (text if text == n else text + 1)


def test_the_released_rank_is_two_above_where_its_float_k_rounds_up():
    # n = 9, alpha = 0.7: the float k is 4 (exact 3), and np.quantile(., 4/9, "higher") is rank 5
    assert (cf.quantile_rank(9, 0.7, quantile="textbook"), cf.quantile_rank(9, 0.7)) == (3, 5)


def test_min_calibration_size_is_the_boundary():
    for alpha in (0.05, 0.1, 0.2, 0.37):
        m = cf.min_calibration_size(alpha)
        cf.conformal_threshold(np.linspace(0, 1, m), alpha)
        with pytest.raises(ValueError, match="too small"):
            cf.conformal_threshold(np.linspace(0, 1, m - 1), alpha)


def test_textbook_coverage_guarantee_by_simulation():
    # exchangeable continuous scores: P(s_test <= qhat) averages k/(n+1) exactly
    rng = np.random.default_rng(11)
    n, alpha, reps = 19, 0.2, 20000
    k = 16  # ceil(20 * 0.8)
    s = rng.random((reps, n + 1))
    hits = [s[r, -1] <= cf.conformal_threshold(s[r, :-1], alpha, quantile="textbook") for r in range(reps)]
    assert abs(np.mean(hits) - k / (n + 1)) < 0.01
    hits_paper = [s[r, -1] <= cf.conformal_threshold(s[r, :-1], alpha) for r in range(reps)]
    assert abs(np.mean(hits_paper) - (k + 1) / (n + 1)) < 0.01


# --------------------------------------------------------------------------- the textbook rank in exact arithmetic
#: alpha written as decimals: every two- and three-place decimal in (0, 1), and a few smaller ones
DECIMALS = [f"0.{i:02d}" for i in range(1, 100)] + [f"0.{i:03d}" for i in range(1, 1000, 7)] + ["0.0004", "0.00021"]


def _exact_rank(n: int, alpha: str) -> int:
    return math.ceil((n + 1) * (1 - Fraction(alpha)))


def test_textbook_rank_is_exact_over_a_grid():
    # the float expression (n + 1) * (1 - alpha) rounded up one rank too far on 280 of these 95,228 pairs (9, 0.7)
    assert cf.quantile_rank(9, 0.7, quantile="textbook") == 3
    wrong = []
    for alpha in DECIMALS:
        a = float(alpha)
        for n in range(cf.min_calibration_size(a, quantile="textbook"), 400):
            if cf.quantile_rank(n, a, quantile="textbook") != _exact_rank(n, alpha):
                wrong.append((n, alpha))
    assert wrong == []


def test_textbook_rank_reads_alpha_as_written():
    # a float32 alpha is the decimal it prints as; a Fraction and an int-valued ratio exactly
    assert cf.quantile_rank(9, np.float32(0.7), quantile="textbook") == 3
    assert cf.quantile_rank(9, np.float64(0.7), quantile="textbook") == 3
    assert cf.quantile_rank(9, Fraction(7, 10), quantile="textbook") == 3
    assert cf.quantile_rank(29, Fraction(1, 3), quantile="textbook") == 20  # 30 * 2/3 exactly
    assert cf.quantile_rank(29, 1 / 3, quantile="textbook") == 21  # 1/3 as a float is 0.3333333333333333 < 1/3


def test_textbook_threshold_and_sets_use_the_exact_rank():
    s = np.arange(1.0, 10.0)  # n = 9, alpha = 0.7: k = ceil(10 * 0.3) = 3
    assert cf.conformal_threshold(s, 0.7, quantile="textbook") == 3.0
    # LAC scores 1 - p_0: the third smallest is 0.55 (the fourth, the float rank's, 0.65)
    p0 = np.array([0.9, 0.8, 0.45, 0.35, 0.3, 0.25, 0.2, 0.15, 0.1])
    p_cal = np.column_stack([p0, (1 - p0) / 2, (1 - p0) / 2])
    sets = cf.lac_sets(p_cal, np.zeros(9, dtype=int), [[0.5, 0.4, 0.1]], 0.7, quantile="textbook")
    assert sets.tolist() == [[True, False, False]]  # 1 - qhat = 0.45: option 1 (0.4) is out (in at 0.35)
    aps = cf.aps_sets(p_cal, np.zeros(9, dtype=int), [[0.5, 0.4, 0.1]], 0.7, quantile="textbook")
    assert aps.tolist() == [[True, False, False]]


def test_min_calibration_size_of_the_textbook_rule_is_exact():
    for alpha in DECIMALS:
        a = Fraction(alpha)
        n = cf.min_calibration_size(float(alpha), quantile="textbook")
        assert _exact_rank(n, alpha) <= n and (n == 1 or _exact_rank(n - 1, alpha) > n - 1)
        assert n == max(1, math.ceil((1 - a) / a))
    assert cf.min_calibration_size(0.1) == cf.min_calibration_size(0.1, quantile="paper") == 9
