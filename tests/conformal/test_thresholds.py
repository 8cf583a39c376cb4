"""Tests of semvar.conformal.thresholds: the released code's rank, one above the textbook rank, and its coverage."""

from __future__ import annotations

import math

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
        k = math.ceil((n + 1) * (1 - alpha) - 1e-9)
        paper = cf.quantile_rank(n, alpha)
        assert cf.quantile_rank(n, alpha, quantile="textbook") in (k, k + 1)  # float ceil may round up
        text = cf.quantile_rank(n, alpha, quantile="textbook")
        assert paper == (text if text == n else text + 1)


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
