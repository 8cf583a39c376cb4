"""Tests of the argument checks of semvar.conformal and of its public names.

The shared checks live in semvar/conformal/_checks.py; each public function calls them at its edge.
"""

from __future__ import annotations

import numpy as np
import pytest

from semvar import conformal as cf
from semvar.experiments.review_models import same_sets_models, synthetic_logits
from semvar.experiments.ye_protocol import ye_protocol


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


def test_public_names_resolve_and_core_does_not_import_experiments():
    import subprocess
    import sys

    assert all(hasattr(cf, name) for name in cf.__all__)
    code = "import sys, semvar.conformal; print(sorted(m for m in sys.modules if m.startswith('semvar.experiments')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
