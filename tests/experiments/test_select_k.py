"""Tests of semvar.experiments.select_k (chapter 4's sweep of the K-selection methods) on one small setting."""

from __future__ import annotations

import pandas as pd
import pytest

from semvar.experiments import select_k as S


def test_the_grid_varies_one_factor_at_a_time_around_the_base():
    grid = S.settings()
    assert [f for f, _, _ in grid] == ["n"] * 4 + ["K"] * 4 + ["gap"] * 4 + ["pi_min"] * 4
    for factor, level, design in grid:
        changed = {k for k in S.BASE if design[k] != S.BASE[k]}
        assert changed <= ({"p"} if factor == "gap" else {factor}), (factor, level)
        if factor == "gap":
            assert design["p"] - design["q"] == pytest.approx(level)
        else:
            assert design[factor] == pytest.approx(level, abs=1e-4)


def test_block_sizes_add_up_and_hold_the_smallest_share():
    assert S._sizes(300, 3, None).tolist() == [100, 100, 100]
    assert S._sizes(10, 3, None).tolist() == [4, 3, 3]
    sizes = S._sizes(300, 3, 0.05)
    assert sizes.tolist() == [15, 143, 142] and sizes.sum() == 300


@pytest.fixture
def one_easy_setting(monkeypatch):
    easy = dict(S.BASE, n=90, p=0.9, q=0.05)
    monkeypatch.setattr(S, "settings", lambda: [("n", 90, easy)])


def test_on_an_easy_graph_every_method_finds_k(one_easy_setting):
    df = S.run_sweep(reps=2, progress=False)
    assert list(df.columns) == ["factor", "level", "rep", "method", "k_true", "k_hat"]
    assert set(df["method"]) == {"ncv_l2", "ncv_deviance", "ecv", "bethe_hessian", "eigengap", "eigengap_skip1"}
    assert len(df) == 2 * 6 and (df["k_true"] == 3).all()
    assert (df["k_hat"] == 3).all(), df[df.k_hat != 3]
    pd.testing.assert_frame_equal(df, S.run_sweep(reps=2, progress=False))    # seeded


def test_main_writes_the_long_table(one_easy_setting, tmp_path, capsys):
    out = tmp_path / "sweep.csv"
    S.main(["--reps", "1", "--out", str(out)])
    df = pd.read_csv(out)
    assert len(df) == 6 and df["level"].tolist() == [90] * 6
    assert f"wrote 6 rows to {out}" in capsys.readouterr().out
