"""Tests of semvar.conformal.mapie: the cross-check against MAPIE, and where MAPIE differs from the released code."""

from __future__ import annotations

import numpy as np

from semvar import conformal as cf
from semvar.experiments.review_models import synthetic_logits


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
