"""Tests of semvar.experiments.pair_designs (chapter 4's designs against their judge calls) on small cells."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from semvar.experiments import pair_designs as PD
from semvar.experiments.select_k_small import PARTITIONS, cell_sizes


def _h(sizes):
    n = sum(sizes)
    return -sum(s / n * math.log(s / n) for s in sizes)


@pytest.mark.parametrize("design, estimator, params", PD.DESIGNS, ids=lambda v: str(v) if not isinstance(v, dict) else
                         ",".join(f"{k}={x}" for k, x in v.items()) or "-")
def test_every_design_recovers_the_partition_of_a_perfect_judge(design, estimator, params):
    labels = np.repeat(np.arange(3), [5, 3, 2])
    calls, est = PD.run_design(design, estimator, params, labels, 1.0, 0.0, np.random.SeedSequence(7))
    assert est.shape == (10,)
    if design == "random":
        # only a share of the pairs is asked: the partition found can be finer than the truth, never coarser
        assert all(np.unique(labels[est == c]).size == 1 for c in np.unique(est))
        assert 0 <= calls <= 45
    else:
        assert np.unique(est).size == 3 and all(np.unique(est[labels == c]).size == 1 for c in range(3))
        assert calls == 45 if design == "all_pairs" else calls <= 45


def test_an_unknown_design_is_refused():
    with pytest.raises(ValueError, match="unknown design 'everything'"):
        PD.run_design("everything", "icl", {}, np.zeros(4, dtype=int), 1.0, 0.0, np.random.SeedSequence(0))


def test_one_cell_has_a_row_per_graph_and_design():
    rows = PD.run_cell(10, "gpt", "skewed", 2, np.random.SeedSequence(3))
    df = pd.DataFrame(rows, columns=PD.COLUMNS)
    assert len(df) == 2 * len(PD.DESIGNS) and df["rep"].tolist() == [0] * len(PD.DESIGNS) + [1] * len(PD.DESIGNS)
    assert (df[["n", "judge", "partition"]].drop_duplicates().values.tolist() == [[10, "gpt", "skewed"]])
    assert np.allclose(df["h_true"], _h([5, 3, 2])) and (df["k_true"] == 3).all()
    assert np.allclose(df["share"], df["calls"] / 45) and np.allclose(df["err"], (df["h_hat"] - df["h_true"]).abs())
    assert (df.loc[df.design == "all_pairs", "calls"] == 45).all()
    assert set(df.loc[df.design == "representatives", "representative"]) == {"first", "random"}


def test_the_seeds_follow_the_full_grid_whatever_is_run():
    one = PD.run_study(ns=(10,), judges=["gpt"], partitions=["skewed"], reps={10: 1}, progress=False)
    two = PD.run_study(ns=(10,), judges=["gpt"], partitions=["one", "skewed"], reps={10: 1}, progress=False)
    skipped = PD.run_study(ns=(10,), judges=["gpt"], partitions=["one", "skewed"], reps={10: 1}, progress=False,
                           skip={(10, "gpt", "one")})
    pd.testing.assert_frame_equal(one, two[two.partition == "skewed"].reset_index(drop=True))
    pd.testing.assert_frame_equal(one, skipped)
    assert list(one.columns) == PD.COLUMNS and len(two) == 2 * len(PD.DESIGNS)


def test_frontier_averages_each_variant():
    df = pd.DataFrame({
        "n": [10, 10, 10, 10], "k_true": [3, 3, 3, 3], "k_hat": [3, 2, 3, 3], "calls": [45, 45, 20, 24],
        "share": [1.0, 1.0, 20 / 45, 24 / 45], "err": [0.0, 0.2, 0.1, 0.3],
        "design": ["all_pairs", "all_pairs", "representatives", "random"], "estimator": ["icl", "icl", "icl", "icl"],
        "extra": [np.nan, np.nan, 2.0, np.nan], "s": [np.nan, np.nan, np.nan, 0.5],
        "extras": ["", "", "random", ""], "representative": ["", "", "first", ""],
    })
    f = PD.frontier(df)
    assert f.index.tolist() == [(10, "all_pairs/icl"), (10, "random/icl/s=0.50"),
                                (10, "representatives/icl/r=2/random extras")]
    assert f.loc[(10, "all_pairs/icl")].tolist() == pytest.approx([45.0, 1.0, 0.5, 0.1])
    assert f.loc[(10, "random/icl/s=0.50"), "k_accuracy"] == 1.0


def test_the_real_sample_study_on_two_questions(require_data):
    from semvar.data import UQ_NLG_ORIGIN, result_path

    require_data(UQ_NLG_ORIGIN["subdir"], list(UQ_NLG_ORIGIN["files"]))
    if not result_path(PD.COSINES_FILE).is_file():
        pytest.skip(f"needs data/{PD.COSINES_FILE}")
    df = PD.real_study(judges=("rouge",), questions=2, progress=False)
    assert len(df) == 2 * (len(PD.REAL_DESIGNS) + 1) and set(df["question"]) == {0, 1}
    ref = df[(df.design == "all_pairs") & (df.estimator == "auto")]
    assert len(ref) == 2 and (ref["err"] == 0).all() and (ref["k_hat"] == ref["k_ref"]).all()
    assert np.allclose(df["share"], df["calls"] / 190) and (df["calls"] <= 190).all()
    assert np.allclose(df["err"], (df["h_hat"] - df["h_ref"]).abs())


def test_the_grid_leaves_out_cells_with_fewer_texts_than_meanings():
    cells = PD._cells((5, 10), ["gpt"], list(PARTITIONS))
    assert (5, "gpt", "uniform5") in cells and all(cell_sizes(n, PARTITIONS[p]) is not None for n, _, p in cells)
    assert len(cells) == 2 * len(PARTITIONS)
