"""Tests of semvar.experiments.sampled_designs: the prediction of unresolved texts, one cell, the frontier."""

import numpy as np
import pytest

from semvar.experiments import sampled_designs as sd


def test_the_predicted_share_of_unresolved_texts_is_the_formula():
    assert sd.predicted_unresolved([100, 100, 100], 0.0) == 1.0
    assert sd.predicted_unresolved([100, 100, 100], 1.0) == 0.0
    assert sd.predicted_unresolved([1, 9], 0.5) == pytest.approx(0.1 + 0.9 * 0.5**8)  # a singleton is never resolved


def test_the_prediction_matches_a_perfect_judge_on_average():
    rows = sd.run_cell(100, "perfect", "skewed", 6, np.random.SeedSequence(5))
    df = sd.pd.DataFrame(rows, columns=sd.COLUMNS)
    sample = df[df.design == "sample"]
    by = sample.groupby("param")[["unresolved", "predicted"]].mean()
    assert np.allclose(by.unresolved, by.predicted, atol=0.06), by
    assert set(df.design) == {"sample", "reps"} and len(df) == 6 * (len(sd.SHARES) + len(sd.EXTRAS))
    resolved = sample[sample.unresolved <= sd.MAX_UNRESOLVED]
    assert len(resolved) and (resolved.k_hat == 3).all()  # a perfect judge: every answered graph finds K
    assert (df[df.design == "reps"].err < 1e-12).all()  # and the representatives design the partition


def test_the_frontier_counts_answers_and_errors_among_the_answered():
    df = sd.run_study(ns=(50,), judges=("perfect",), partitions=("uniform3",), reps=2, progress=False)
    f = sd.frontier(df)
    assert {"share", "unresolved", "predicted", "answered", "k_right", "error"} <= set(f.columns)
    assert f.loc[(50, "perfect", "sample", 0.01), "answered"] == 0.0
    assert f.loc[(50, "perfect", "reps", 0.0), "answered"] == 1.0
