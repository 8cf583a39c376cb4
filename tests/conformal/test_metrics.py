"""Tests of semvar.conformal.metrics: set size, coverage, accuracy and inclusion probabilities."""

from __future__ import annotations

import numpy as np
import pytest

from semvar import conformal as cf


def test_summaries_and_identity():
    rng = np.random.default_rng(5)
    sets = rng.random((500, 6)) < 0.4
    sets[~sets.any(axis=1), 0] = True
    y = rng.integers(6, size=500)
    assert cf.set_size(sets) == pytest.approx(sets.sum() / 500)
    assert cf.inclusion_probabilities(sets).sum() == pytest.approx(cf.set_size(sets), abs=1e-12)
    assert cf.coverage(sets, y) == pytest.approx(np.mean(sets[np.arange(500), y]))
    assert cf.accuracy(np.eye(6)[y], y) == 1.0
