"""Tests of semvar.conformal.scores: the softmax, and the temperature that leaves the argmax alone."""

from __future__ import annotations

import numpy as np
import pytest

from semvar import conformal as cf
from semvar.experiments.review_models import synthetic_logits


def test_softmax_matches_per_row_form():
    rng = np.random.default_rng(3)
    z = rng.normal(size=(50, 6))
    rows = np.array([np.exp(r - np.max(r)) / np.exp(r - np.max(r)).sum() for r in z])
    np.testing.assert_allclose(cf.softmax(z), rows, rtol=1e-14, atol=0)


def test_synthetic_beat_best_accuracy_is_acc0_and_temperature_keeps_argmax():
    z, y = synthetic_logits(20000, acc0=0.8, margin=0.3, sigma=2.0, construction="beat_best", random_state=1)
    assert cf.accuracy(z, y) == pytest.approx(0.8, abs=0.01)
    for t in (0.25, 1.0, 4.0):
        np.testing.assert_array_equal(np.argmax(cf.softmax(z, t), axis=1), np.argmax(z, axis=1))
    # same seed, different margin: same questions and the same answers
    z2, y2 = synthetic_logits(20000, acc0=0.8, margin=5.0, sigma=2.0, construction="beat_best", random_state=1)
    np.testing.assert_array_equal(y, y2)
    np.testing.assert_array_equal(np.argmax(z, axis=1), np.argmax(z2, axis=1))
