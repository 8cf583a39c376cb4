"""Tests of semvar.conformal, the review's synthetic models and the Ye et al. protocol.

The reference below is an independent, loop-per-item reading of the released
code of Ye et al. (2024) (functions LAC_CP and APS_CP of its conformal
prediction script), restated from the probabilities onwards: one Python loop
per calibration item and per test item, as there, with option letters replaced
by indices.  It shares no code with semvar.conformal.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar import conformal as cf
from semvar import data
from semvar.experiments.review_models import same_sets_models, synthetic_logits
from semvar.experiments.ye_protocol import ye_protocol, ye_split

# --------------------------------------------------------------------------- the reference reading


def _ref_threshold(cal_scores, alpha):
    n = len(cal_scores)
    q_level = np.ceil((n + 1) * (1 - alpha)) / n
    return np.quantile(cal_scores, q_level, method="higher")


def ref_lac(p_cal, y_cal, p_test, alpha):
    cal_scores = []
    for i in range(len(p_cal)):
        probs = p_cal[i]
        cal_scores.append(1 - probs[y_cal[i]])
    qhat = _ref_threshold(cal_scores, alpha)
    out = []
    for i in range(len(p_test)):
        probs = p_test[i]
        members = []
        for j, pj in enumerate(probs):
            if pj >= 1 - qhat:
                members.append(j)
        if len(members) == 0:
            members.append(int(np.argmax(probs)))
        out.append(members)
    return out


def ref_aps(p_cal, y_cal, p_test, alpha):
    cal_scores = []
    for i in range(len(p_cal)):
        probs = p_cal[i]
        order = np.argsort(probs, kind="stable")[::-1]  # numpy before its SIMD sorts (1.25) sorted short rows stably
        running = np.take_along_axis(probs, order, axis=0).cumsum()
        back = np.take_along_axis(running, order.argsort(), axis=0)
        cal_scores.append(back[y_cal[i]])
    qhat = _ref_threshold(cal_scores, alpha)
    out = []
    for i in range(len(p_test)):
        probs = p_test[i]
        order = np.argsort(probs, kind="stable")[::-1]  # numpy before its SIMD sorts (1.25) sorted short rows stably
        running = np.take_along_axis(probs, order, axis=0).cumsum()
        members = []
        j = 0
        while j < len(running) and running[j] <= qhat:
            members.append(int(order[j]))
            j += 1
        if len(members) == 0:
            members.append(int(order[j]))
        out.append(members)
    return out


def _as_bool(lists, k):
    m = np.zeros((len(lists), k), dtype=bool)
    for i, members in enumerate(lists):
        m[i, members] = True
    return m


def _dirichlet(n, k, rng, conc=None):
    conc = np.ones(k) if conc is None else conc
    return rng.dirichlet(conc, size=n)


# --------------------------------------------------------------------------- equality with the released code


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


def _ref_softmax_float32(row):
    # the released code's per-row softmax; on float32 logits it computes in float32
    e = np.exp(row - np.max(row))
    return e / e.sum()


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


def test_softmax_matches_per_row_form():
    rng = np.random.default_rng(3)
    z = rng.normal(size=(50, 6))
    rows = np.array([np.exp(r - np.max(r)) / np.exp(r - np.max(r)).sum() for r in z])
    np.testing.assert_allclose(cf.softmax(z), rows, rtol=1e-14, atol=0)


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


# --------------------------------------------------------------------------- the quantile rule


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


# --------------------------------------------------------------------------- hand-computed cases


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


def test_summaries_and_identity():
    rng = np.random.default_rng(5)
    sets = rng.random((500, 6)) < 0.4
    sets[~sets.any(axis=1), 0] = True
    y = rng.integers(6, size=500)
    assert cf.set_size(sets) == pytest.approx(sets.sum() / 500)
    assert cf.inclusion_probabilities(sets).sum() == pytest.approx(cf.set_size(sets), abs=1e-12)
    assert cf.coverage(sets, y) == pytest.approx(np.mean(sets[np.arange(500), y]))
    assert cf.accuracy(np.eye(6)[y], y) == 1.0


# --------------------------------------------------------------------------- the review's models


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


def test_synthetic_beat_best_accuracy_is_acc0_and_temperature_keeps_argmax():
    z, y = synthetic_logits(20000, acc0=0.8, margin=0.3, sigma=2.0, construction="beat_best", random_state=1)
    assert cf.accuracy(z, y) == pytest.approx(0.8, abs=0.01)
    for t in (0.25, 1.0, 4.0):
        np.testing.assert_array_equal(np.argmax(cf.softmax(z, t), axis=1), np.argmax(z, axis=1))
    # same seed, different margin: same questions and the same answers
    z2, y2 = synthetic_logits(20000, acc0=0.8, margin=5.0, sigma=2.0, construction="beat_best", random_state=1)
    np.testing.assert_array_equal(y, y2)
    np.testing.assert_array_equal(np.argmax(z, axis=1), np.argmax(z2, axis=1))


# --------------------------------------------------------------------------- MAPIE cross-check


def _informative(n, rng, k=6):
    z, y = synthetic_logits(n, acc0=0.85, margin=2.5, sigma=1.0, random_state=rng)
    return cf.softmax(z), y


def test_mapie_lac_equals_textbook_lac_up_to_empty_sets():
    rng = np.random.default_rng(4)
    p, y = _informative(4000, rng)
    for alpha in (0.05, 0.1, 0.2, 0.4):
        ours = cf.lac_sets(p[:1000], y[:1000], p[1000:], alpha, quantile="textbook")
        theirs = cf.mapie_sets(p[:1000], y[:1000], p[1000:], alpha, score="lac")
        empty = ~theirs.any(axis=1)
        # MAPIE leaves empty sets empty; the released code puts the top option in them
        np.testing.assert_array_equal(ours[~empty], theirs[~empty])
        assert (ours[empty].sum(axis=1) == 1).all()
    assert empty.any()  # at alpha = 0.4 some sets are empty, so the difference is exercised


def test_mapie_aps_components_and_differences():
    from mapie.conformity_scores.sets.aps import APSConformityScore

    rng = np.random.default_rng(6)
    p, y = _informative(3000, rng)
    # the non-randomised score equals ours
    mapie_scores, _ = APSConformityScore.get_true_label_cumsum_proba(y, p, np.arange(6))
    np.testing.assert_allclose(mapie_scores.ravel(), cf.aps_scores(p, y), rtol=0, atol=1e-15)
    # the full MAPIE pipeline randomises its scores and keeps the crossing option: other sets
    ours = cf.aps_sets(p[:1000], y[:1000], p[1000:], 0.1, quantile="textbook")
    theirs = cf.mapie_sets(p[:1000], y[:1000], p[1000:], 0.1, score="aps", include_last_label=True)
    assert (ours != theirs).any(axis=1).mean() > 0.05
    # with the crossing option dropped and the same threshold, MAPIE's test rule gives our sets
    score = APSConformityScore()
    q = cf.conformal_threshold(cf.aps_scores(p[:1000], y[:1000]), 0.1, quantile="textbook")
    score.quantiles_ = np.array([q])
    sets = score.get_prediction_sets(p[1000:][:, :, None], None, np.array([0.1]), "prefit", include_last_label=False)
    np.testing.assert_array_equal(sets[:, :, 0], ours)


# --------------------------------------------------------------------------- protocol and data


def test_ye_protocol_runs_on_synthetic_keys():
    rng = np.random.default_rng(8)
    z = rng.normal(size=(10000, 6))
    z[np.arange(10000), rng.integers(6, size=10000)] += 2
    y = np.argmax(z + rng.normal(scale=1.5, size=z.shape), axis=1)
    out = ye_protocol({"base": z, "task": z * 2}, y)
    assert 0 < out["acc"] < 100 and 1 <= out["ss"] <= 6
    assert out["lac_cov"] >= 88 and out["aps_cov"] >= 88
    assert out["per_prompt"]["base"]["acc"] == out["per_prompt"]["task"]["acc"]


def test_ye_protocol_on_float32_logits_equals_the_released_code():
    # uninformative float32 logits and random keys: the APS threshold is a cumulative sum of a whole row (about 1),
    # and whether a test set keeps its last option turns on float32 rounding, as in the released code
    rng = np.random.default_rng(9)
    z = rng.normal(scale=2.0, size=(10000, 6)).astype(np.float32)
    y = rng.integers(6, size=10000)
    cal, test = ye_split()
    p32 = [_ref_softmax_float32(row) for row in z]
    ref = {name: _as_bool(fn([p32[i] for i in cal], y[cal], [p32[i] for i in test], 0.1), 6)
           for name, fn in (("lac", ref_lac), ("aps", ref_aps))}
    out = ye_protocol(z, y)["per_prompt"][""]
    assert out["lac_ss"] == cf.set_size(ref["lac"]) and out["aps_ss"] == cf.set_size(ref["aps"])
    assert out["aps_cov"] == 100 * cf.coverage(ref["aps"], y[test])
    # the float64 computation gives other APS sets here: the check is not vacuous
    p64 = cf.softmax(z.astype(np.float64))
    assert cf.set_size(cf.aps_sets(p64[cal], y[cal], p64[test], 0.1)) != out["aps_ss"]


def test_answer_keys_local_json_and_missing(tmp_path):
    import json

    (tmp_path / "ye2024").mkdir()
    recs = [{"id": i, "answer": "ABCDEF"[(i * 7) % 6]} for i in range(10000)][::-1]
    (tmp_path / "ye2024" / "hellaswag_10k.json").write_text(json.dumps(recs))
    df = data.load_ye_answers("ci", data_dir=tmp_path, online=False)
    assert df.index.tolist()[:3] == [0, 1, 2] and df.loc[7, "label"] == (7 * 7) % 6
    # JSON lines work too
    (tmp_path / "ye2024" / "halu_dialogue.json").write_text("\n".join(json.dumps(r) for r in recs))
    assert data.load_ye_answers("drs", data_dir=tmp_path, online=False)["label"].sum() == df["label"].sum()
    (tmp_path / "ye2024" / "mmlu_10k.json").write_text(json.dumps(recs[:9000]))
    with pytest.raises(ValueError, match="expected 10,000 records"):
        data.load_ye_answers("qa", data_dir=tmp_path, online=False)
    with pytest.raises(data.DataNotFoundError, match="ErikYip/LLM-Uncertainty-Bench"):
        data.load_ye_answers("rc", data_dir=tmp_path / "nowhere", online=False)
    with pytest.raises(ValueError, match="task must be one of"):
        data.load_ye_answers("xx", online=False)


# --------------------------------------------------------------------------- bad input


def _good(n=100, k=4, seed=0):
    rng = np.random.default_rng(seed)
    return rng.dirichlet(np.ones(k), size=n), rng.integers(k, size=n), rng.dirichlet(np.ones(k), size=10)


@pytest.mark.parametrize("fn", [cf.lac_sets, cf.aps_sets])
def test_bad_input(fn):
    p, y, pt = _good()
    with pytest.raises(ValueError, match="p_cal rows must be probabilities summing to 1"):
        fn(p * 1.01, y, pt, 0.1)
    with pytest.raises(ValueError, match="p_test must be non-negative"):
        fn(p, y, np.log(pt), 0.1)  # log-probabilities
    with pytest.raises(ValueError, match="p_test rows must be probabilities.*Pass softmax"):
        fn(p, y, pt + 0.1, 0.1)
    bad = p.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="p_cal contains NaN"):
        fn(bad, y, pt, 0.1)
    neg = p.copy()
    neg[0, :2] = neg[0, :2] + np.array([-1.0, 1.0]) * (neg[0, 0] + 0.1)
    with pytest.raises(ValueError, match="p_cal must be non-negative"):
        fn(neg, y, pt, 0.1)
    with pytest.raises(ValueError, match=r"y_cal must hold option indices in 0..3; found 4"):
        fn(p, np.where(y == 0, 4, y), pt, 0.1)
    with pytest.raises(ValueError, match="y_cal must hold option indices"):
        fn(p, y - 1 - y.max(), pt, 0.1)
    with pytest.raises(ValueError, match="one label per row"):
        fn(p, y[:-1], pt, 0.1)
    with pytest.raises(ValueError, match="integer option indices"):
        fn(p, y + 0.5, pt, 0.1)
    for a in (0.0, 1.0, -0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="alpha"):
            fn(p, y, pt, a)
    with pytest.raises(ValueError, match=r"too small for alpha=0.05.*quantile level 19/18.*exceeds 1.*at least 19"):
        fn(p[:18], y[:18], pt, 0.05)
    with pytest.raises(ValueError, match="quantile must be one of"):
        fn(p, y, pt, 0.1, quantile="exact")
    with pytest.raises(ValueError, match="p_test must have 4 columns"):
        fn(p, y, pt[:, :3] / pt[:, :3].sum(axis=1, keepdims=True), 0.1)


def test_bad_input_other_functions():
    with pytest.raises(ValueError, match="temperature"):
        cf.softmax([[0.0, 1.0]], temperature=0)
    with pytest.raises(ValueError, match="logits contains NaN"):
        cf.softmax([[np.nan, 1.0]])
    with pytest.raises(ValueError, match="boolean membership"):
        cf.set_size(np.ones((3, 4)))
    with pytest.raises(ValueError, match="boolean membership"):
        cf.coverage(np.ones((3, 4)), [0, 1, 2])
    with pytest.raises(ValueError, match="y must hold option indices"):
        cf.coverage(np.ones((3, 4), dtype=bool), [0, 1, 7])
    with pytest.raises(ValueError, match="y must have one label per row"):
        cf.accuracy(np.ones((3, 4)), [0, 1])
    with pytest.raises(ValueError, match="scores contains NaN"):
        cf.conformal_threshold([0.1, np.nan] * 20, 0.1)
    with pytest.raises(ValueError, match="too small"):
        cf.quantile_rank(5, 0.1)
    with pytest.raises(ValueError, match="acc0"):
        synthetic_logits(10, acc0=1.2, margin=1, sigma=1)
    with pytest.raises(ValueError, match="construction"):
        synthetic_logits(10, acc0=0.5, margin=1, sigma=1, construction="other")
    with pytest.raises(ValueError, match="p_medium"):
        same_sets_models(10, p_medium=2)
    with pytest.raises(ValueError, match="score must be"):
        cf.mapie_sets(*_good(), 0.1, score="raps")
    with pytest.raises(ValueError, match="p rows must be probabilities"):
        cf.lac_scores([[0.5, 0.6]], [0])
    with pytest.raises(ValueError, match="answers must hold option indices"):
        ye_protocol(np.zeros((10000, 6)), np.full(10000, 6))


# --------------------------------------------------------------------------- package layout


def test_public_names_resolve_and_core_does_not_import_experiments():
    import subprocess
    import sys

    assert all(hasattr(cf, name) for name in cf.__all__)
    code = "import sys, semvar.conformal; print(sorted(m for m in sys.modules if m.startswith('semvar.experiments')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
