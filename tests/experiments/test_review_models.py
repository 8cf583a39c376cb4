"""Tests of semvar.experiments.review_models: the set-size review's synthetic models, panels A, B and C."""

from __future__ import annotations

import numpy as np
import pytest

from semvar import conformal as cf
from semvar.experiments.review_models import same_sets_models, sharp_soft_pair, synthetic_logits, temperature_sweep


def test_beat_best_puts_the_chosen_option_exactly_margin_above_the_rest():
    z, y = synthetic_logits(3000, acc0=0.7, margin=1.5, sigma=2.0, n_options=5, construction="beat_best",
                            random_state=0)
    assert z.shape == (3000, 5) and y.shape == (3000,) and set(np.unique(y)) == set(range(5))
    top2 = np.sort(z, axis=1)[:, -2:]
    assert np.allclose(top2[:, 1] - top2[:, 0], 1.5)
    # the argmax is the chosen option, right with probability acc0 (binomial sd 0.008)
    assert cf.accuracy(z, y) == pytest.approx(0.7, abs=0.03)


def test_additive_without_noise_is_a_clean_one_hot():
    z, y = synthetic_logits(4000, acc0=0.25, margin=3.0, sigma=0.0, random_state=1)
    assert set(np.unique(z)) == {0.0, 3.0} and (np.count_nonzero(z, axis=1) == 1).all()
    chosen = z.argmax(axis=1)
    assert np.mean(chosen == y) == pytest.approx(0.25, abs=0.03)
    # a wrong choice is uniform over the five other options
    offsets = (chosen - y)[chosen != y] % 6
    assert set(np.unique(offsets)) == {1, 2, 3, 4, 5}
    assert np.bincount(offsets, minlength=6)[1:] / offsets.size == pytest.approx([0.2] * 5, abs=0.03)


def test_synthetic_logits_refuse_bad_parameters():
    with pytest.raises(ValueError, match="construction"):
        synthetic_logits(10, acc0=0.5, margin=1.0, sigma=1.0, construction="other")
    with pytest.raises(ValueError, match="acc0"):
        synthetic_logits(10, acc0=1.5, margin=1.0, sigma=1.0)
    with pytest.raises(ValueError, match="n_options"):
        synthetic_logits(10, acc0=0.5, margin=1.0, sigma=1.0, n_options=1)


def test_panel_c_models_have_the_same_sorted_probabilities_and_far_apart_accuracy():
    p1, p2, y, medium = same_sets_models(30_000, p_medium=0.6, random_state=2)
    assert np.array_equal(np.sort(p1, axis=1), np.sort(p2, axis=1))   # hence the same LAC sets at any threshold
    assert np.allclose(p1.sum(axis=1), 1) and np.allclose(p2.sum(axis=1), 1)
    assert medium.mean() == pytest.approx(0.6, abs=0.01)
    # medium: model 1 right, model 2 wrong; hard: both right when the 0.4 option is correct (1 in 3)
    assert cf.accuracy(p1, y) == pytest.approx(0.6 + 0.4 / 3, abs=0.01)
    assert cf.accuracy(p2, y) == pytest.approx(0.4 / 3, abs=0.01)
    assert np.array_equal(p1[~medium], p2[~medium])
    lac1 = cf.lac_sets(p1[:10_000], y[:10_000], p1[10_000:], 0.1)
    lac2 = cf.lac_sets(p2[:10_000], y[:10_000], p2[10_000:], 0.1)
    assert cf.set_size(lac1) == cf.set_size(lac2)


def test_panel_a_temperature_changes_the_sets_not_the_answers():
    r = temperature_sweep([0.5, 1.0, 4.0], n_cal=800, n_test=1600, random_state=3)
    assert set(r) == {"accuracy", "lac_ss", "aps_ss", "lac_cov", "aps_cov", "temperature"}
    assert np.all(r["accuracy"] == r["accuracy"][0]) and r["temperature"].tolist() == [0.5, 1.0, 4.0]
    assert (r["lac_cov"] > 0.85).all() and (r["aps_cov"] > 0.85).all()          # 1 - alpha = 0.9 on 1600 items
    assert r["aps_ss"][0] > r["aps_ss"][2]   # the same answers, other sets: here the sharper softmax's are larger
    with pytest.raises(ValueError, match="temperatures must be a non-empty list of positive numbers"):
        temperature_sweep([1.0, 0.0])


def test_panel_b_shared_draws_answer_alike():
    shared = sharp_soft_pair(n_cal=800, n_test=1600, random_state=4)
    assert shared["sharp"]["accuracy"] == shared["soft"]["accuracy"]
    assert shared["sharp"]["aps_ss"] != shared["soft"]["aps_ss"]
    apart = sharp_soft_pair(n_cal=800, n_test=1600, shared=False, random_state=4)
    assert apart["sharp"]["accuracy"] != apart["soft"]["accuracy"]              # two draws, two sets of mistakes
    assert abs(apart["sharp"]["accuracy"] - apart["soft"]["accuracy"]) < 0.05   # same acc0 = 0.9
