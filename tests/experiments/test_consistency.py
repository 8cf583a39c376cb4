"""Tests of semvar.experiments.consistency (chapter 5's simulated errors) on a reduced grid.

The module's grids (:data:`~semvar.experiments.consistency.NS`, the judges, ...) are replaced by one
or two small settings, so that each study runs in a fraction of a second; a noise-free judge
(``p = 1``, ``q = 0``) must then give no misclustering and no entropy error.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from semvar.experiments import consistency as C


@pytest.fixture
def small(monkeypatch):
    monkeypatch.setattr(C, "CONSISTENCY_JUDGES", ((1.0, 0.0), (0.5, 0.1)))
    monkeypatch.setattr(C, "NS", (60, 120))
    monkeypatch.setattr(C, "NS_GROW", (100,))
    monkeypatch.setattr(C, "BETAS", (0.25, 0.5))


def _h(p):
    p = np.asarray(p, dtype=float)
    p = p[p > 0] / p.sum()
    return float(-(p * np.log(p)).sum())


def test_fixed_partition(small):
    df = C.run_fixed(reps=2, progress=False)
    assert list(df.columns) == ["p", "q", "n", "rep", "m_error", "e_bar", "e_hat", "err_bar_hat"]
    assert len(df) == 2 * 2 * 2                                    # judges x n x reps
    for n, part in df.groupby("n"):
        assert np.allclose(part["e_bar"], _h([round(n * x) for x in C.PROBS]))   # (30, 18, 12) and (60, 36, 24)
    assert np.allclose(df["err_bar_hat"], (df["e_bar"] - df["e_hat"]).abs())
    # M_error counts entries of the membership matrices: twice the misclustered texts
    assert (df["m_error"] % 2 == 0).all() and (df["m_error"] <= 2 * df["n"]).all()
    exact = df[df.p == 1.0]
    assert (exact["m_error"] == 0).all() and np.allclose(exact["err_bar_hat"], 0)
    again = C.run_fixed(reps=2, progress=False)
    pd.testing.assert_frame_equal(df, again)                       # seeded


def test_generator(small):
    df = C.run_generator(reps=3, progress=False)
    assert len(df) == 2 * 2 * 3
    assert np.allclose(df["e_true"], _h(C.PROBS))
    assert np.allclose(df["err_true_bar"], (df.e_true - df.e_bar).abs())
    assert np.allclose(df["err_true_hat"], (df.e_true - df.e_hat).abs())
    exact = df[df.p == 1.0]
    assert np.allclose(exact["e_hat"], exact["e_bar"]) and (exact["m_error"] == 0).all()
    # the triangle inequality between the three errors
    assert (df["err_true_hat"] <= df["err_true_bar"] + df["err_bar_hat"] + 1e-12).all()


def test_growing_k(small):
    df = C.run_growing_k(reps=2, progress=False)
    assert len(df) == 2 * 1 * 2
    assert df.groupby("beta")["K"].first().to_dict() == {0.25: math.ceil(100**0.25), 0.5: 10}
    assert np.allclose(df["e_true"], np.log(df["K"]))
    assert (df["e_bar"] <= np.log(df["K"]) + 1e-12).all()          # an empirical entropy never exceeds log K


def test_main_writes_the_three_tables(small, tmp_path, capsys):
    C.main(["--reps", "2", "--out-dir", str(tmp_path)])
    lengths = {name: len(pd.read_csv(tmp_path / name)) for name in C.FILES}
    assert lengths == {"consistency_fixed.csv": 8, "consistency_generator.csv": 8, "consistency_growing_k.csv": 2}
    assert capsys.readouterr().out.count("wrote") == 3
