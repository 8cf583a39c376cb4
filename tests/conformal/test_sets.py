"""Tests of semvar.conformal.sets: LAC and APS sets equal the released code of Ye et al. (2024).

Against the loop-per-item reading in ``_reference``, by hand, and on the review's synthetic models.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar import conformal as cf
from semvar.experiments.review_models import same_sets_models

from ._reference import _as_bool, _dirichlet, _ref_softmax_float32, ref_aps, ref_lac


@pytest.mark.parametrize("alpha", [0.05, 0.1, 0.15, 0.2])
@pytest.mark.parametrize("n_cal", [50, 137, 1000, 5000])
def test_sets_equal_released_code(alpha, n_cal):
    rng = np.random.default_rng(1000 * n_cal + int(100 * alpha))
    k = 6
    # a mildly informative model, so that sets of every size occur
    p_cal = _dirichlet(n_cal, k, rng, conc=np.full(k, 0.7))
    y_cal = np.array([rng.choice(k, p=row) for row in p_cal])
    p_test = _dirichlet(300, k, rng, conc=np.full(k, 0.7))
    ours_lac = cf.lac_sets(p_cal, y_cal, p_test, alpha)
    ours_aps = cf.aps_sets(p_cal, y_cal, p_test, alpha)
    np.testing.assert_array_equal(ours_lac, _as_bool(ref_lac(p_cal, y_cal, p_test, alpha), k))
    np.testing.assert_array_equal(ours_aps, _as_bool(ref_aps(p_cal, y_cal, p_test, alpha), k))
    # the comparison is not vacuous: several set sizes occur
    assert len(np.unique(ours_aps.sum(axis=1))) >= 2


def test_sets_equal_released_code_on_float32_softmax():
    # semvar computes softmax in float64; the released code, on the float32 logits it stores, in float32
    rng = np.random.default_rng(7)
    z = rng.normal(scale=2.0, size=(3000, 6)).astype(np.float32)
    y = rng.integers(6, size=3000)
    p = cf.softmax(z)
    p32 = [_ref_softmax_float32(row) for row in z]
    assert p32[0].dtype == np.float32
    for fn, ref in ((cf.lac_sets, ref_lac), (cf.aps_sets, ref_aps)):
        np.testing.assert_array_equal(fn(p[:1500], y[:1500], p[1500:], 0.1), _as_bool(ref(p32[:1500], y[:1500], p32[1500:], 0.1), 6))


def test_sets_equal_released_code_with_tied_probabilities():
    # the released logits are coarse (float32, steps of 1/64): many rows tie at the top.
    # Ties decide the APS order (argsort reversed: the last tied option first) and the LAC fallback (argmax: the first)
    rng = np.random.default_rng(12)
    z = np.round(rng.normal(scale=1.0, size=(4000, 6)) * 2) / 2
    y = rng.integers(6, size=4000)
    p = cf.softmax(z)
    assert (np.sort(p, axis=1)[:, -1] == np.sort(p, axis=1)[:, -2]).mean() > 0.05
    for alpha in (0.1, 0.5, 0.8):
        for fn, ref in ((cf.lac_sets, ref_lac), (cf.aps_sets, ref_aps)):
            np.testing.assert_array_equal(fn(p[:1000], y[:1000], p[1000:], alpha), _as_bool(ref(p[:1000], y[:1000], p[1000:], alpha), 6))


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n_cal=st.integers(20, 400),
    alpha=st.sampled_from([0.05, 0.1, 0.15, 0.2, 0.3]),
    k=st.integers(2, 7),
)
def test_property_equal_reference_and_never_empty(seed, n_cal, alpha, k):
    if cf.min_calibration_size(alpha) > n_cal:
        return
    rng = np.random.default_rng(seed)
    p_cal = _dirichlet(n_cal, k, rng, conc=np.full(k, 0.5))
    y_cal = rng.integers(k, size=n_cal)
    p_test = _dirichlet(60, k, rng, conc=np.full(k, 0.5))
    lac = cf.lac_sets(p_cal, y_cal, p_test, alpha)
    aps = cf.aps_sets(p_cal, y_cal, p_test, alpha)
    np.testing.assert_array_equal(lac, _as_bool(ref_lac(p_cal, y_cal, p_test, alpha), k))
    np.testing.assert_array_equal(aps, _as_bool(ref_aps(p_cal, y_cal, p_test, alpha), k))
    assert lac.any(axis=1).all() and aps.any(axis=1).all()
    # relabelling the options permutes the sets accordingly
    perm = rng.permutation(k)
    inv = np.argsort(perm)
    lac_p = cf.lac_sets(p_cal[:, perm], inv[y_cal], p_test[:, perm], alpha)
    np.testing.assert_array_equal(lac_p, lac[:, perm])


def test_hand_computed_lac_and_aps():
    # calibration: one model, 10 items, probabilities (0.5, 0.3, 0.2)
    p_cal = np.tile([0.5, 0.3, 0.2], (10, 1))
    y_cal = np.array([0] * 6 + [1] * 3 + [2])
    # LAC scores 0.5 x6, 0.7 x3, 0.8; alpha = 0.3: k = ceil(7.7) = 8
    # textbook qhat = 8th smallest = 0.7; paper qhat = 9th smallest = 0.7
    p_test = np.array([[0.45, 0.35, 0.2], [0.2, 0.25, 0.55], [0.28, 0.28, 0.44]])
    lac = cf.lac_sets(p_cal, y_cal, p_test, 0.3)
    # keep p >= 0.3: {0, 1}, {2}, {2}
    np.testing.assert_array_equal(lac, [[1, 1, 0], [0, 0, 1], [0, 0, 1]])
    # APS scores: 0.5 x6, 0.8 x3, 1.0; textbook qhat = 0.8, paper qhat = 0.8
    aps = cf.aps_sets(p_cal, y_cal, p_test, 0.3)
    # cumsums: (0.45, 0.8, 1.0) -> {0, 1} (0.8 <= 0.8 in floating point here? 0.45+0.35)
    c = 0.45 + 0.35
    assert aps[0].tolist() == [True, c <= 0.8, False]
    np.testing.assert_array_equal(aps[1], [False, True, True])  # 0.55, 0.8 -> {2, 1}
    # a row whose top option alone exceeds qhat gets the top option only
    np.testing.assert_array_equal(cf.aps_sets(p_cal, y_cal, [[0.9, 0.05, 0.05]], 0.3), [[True, False, False]])


def test_lac_float_comparison_drops_an_option_whose_score_equals_qhat():
    # released code: keep p >= 1 - qhat; 1 - 0.7 == 0.30000000000000004 > 0.3, so score 0.7 == qhat is dropped
    p_cal = np.tile([0.7, 0.3], (20, 1))
    y_cal = np.ones(20, dtype=int)
    assert cf.conformal_threshold(cf.lac_scores(p_cal, y_cal), 0.1) == 1 - 0.3
    np.testing.assert_array_equal(cf.lac_sets(p_cal, y_cal, [[0.7, 0.3]], 0.1), [[True, False]])
    np.testing.assert_array_equal(_as_bool(ref_lac(p_cal, y_cal, np.array([[0.7, 0.3]]), 0.1), 2), [[True, False]])


def test_panel_c_same_sets_different_accuracy():
    p1, p2, y, medium = same_sets_models(8000, random_state=2)
    cal, test = np.arange(2000), np.arange(2000, 8000)
    s1 = cf.lac_sets(p1[cal], y[cal], p1[test], 0.1)
    s2 = cf.lac_sets(p2[cal], y[cal], p2[test], 0.1)
    np.testing.assert_array_equal(s1, s2)
    assert cf.accuracy(p1[test], y[test]) == pytest.approx(0.90, abs=0.015)
    assert cf.accuracy(p2[test], y[test]) == pytest.approx(0.05, abs=0.01)
    # at qhat = 0.6 every medium question gets two options, every hard one its top option
    assert (s1[medium[test]].sum(axis=1) == 2).all()
    assert (s1[~medium[test]].sum(axis=1) == 1).all()


def test_panel_c_separates_at_small_alpha():
    p1, p2, y, _ = same_sets_models(8000, random_state=2)
    s1 = cf.lac_sets(p1[:2000], y[:2000], p1[2000:], 0.01)
    s2 = cf.lac_sets(p2[:2000], y[:2000], p2[2000:], 0.01)
    assert cf.set_size(s1) == cf.set_size(s2)  # both thresholds at 0.7 now: hard sets grow ...
    s1 = cf.lac_sets(p1[:2000], y[:2000], p1[2000:], 0.6)
    s2 = cf.lac_sets(p2[:2000], y[:2000], p2[2000:], 0.6)
    assert cf.set_size(s1) != cf.set_size(s2)  # ... a large alpha reaches the medium block and separates them
