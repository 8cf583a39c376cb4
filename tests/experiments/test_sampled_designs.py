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


def test_one_sampled_design_on_fixed_verdicts_judges_identical_answers_once():
    """Two meanings of distinct answers, copies of each: the pairs asked are pairs of distinct answers."""
    texts = ["a", "a", "b", "c", "c", "d"]
    truth = np.array([0, 0, 0, 1, 1, 1])
    V = truth[:, None] == truth[None, :]
    calls, u, k, h = sd._real_sampled(V, texts, 1.0, np.random.default_rng(0))
    assert calls == 6 and u == 0.0 and k == 2 and h == pytest.approx(np.log(2))  # 4 distinct answers, all pairs
    assert sd._real_sampled(V, ["x"] * 4, 0.5, np.random.default_rng(0)) == (0, 0.0, 1, 0.0)
    # a singleton meaning among distinct answers is unresolved under any share short of every pair
    texts = ["a", "b", "c", "z"]
    V = np.array([[1, 1, 1, 0], [1, 1, 1, 0], [1, 1, 1, 0], [0, 0, 0, 1]], dtype=bool)
    us = [sd._real_sampled(V, texts, 0.5, np.random.default_rng(s))[1] for s in range(40)]
    assert min(us) >= 0.0 and np.mean([x >= 0.25 for x in us]) > 0.9


def test_the_real_sample_study_on_two_questions(require_data):
    from semvar.data import UQ_NLG_ORIGIN, result_path
    from semvar.experiments.regime import COSINES_FILE

    require_data(UQ_NLG_ORIGIN["subdir"], list(UQ_NLG_ORIGIN["files"]))
    if not result_path(COSINES_FILE).is_file():
        pytest.skip(f"needs data/{COSINES_FILE}")
    df = sd.real_study(judges=("rouge",), questions=2, progress=False)
    per = len(sd.REAL_SHARES) * sd.REAL_DRAWS + len(sd.EXTRAS)
    assert len(df) == 2 * per and set(df["question"]) == {0, 1}
    assert np.allclose(df["share"], df["calls"] / 190) and (df["calls"] <= 190).all()
    ok = df["h_hat"].notna()
    assert np.allclose(df.loc[ok, "err"], (df.loc[ok, "h_hat"] - df.loc[ok, "h_ref"]).abs())
    f = sd.real_frontier(df)
    assert f.loc[("rouge", "reps", 2.0), "answered"] == 1.0
