"""Tests of semvar.experiments.ye_protocol: the pairs of models that the set-size ranking inverts, and the tables."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from semvar.experiments import ye_protocol as Y

COLUMNS = ["more_accurate", "less_accurate", "accuracy_gap", "set_size_gap", "lac", "aps", "aps_coverage"]


def _table(rows):
    return pd.DataFrame(rows, columns=["model", "accuracy", "set_size", "lac_set_size", "aps_set_size", "aps_coverage"]
                        ).set_index("model")


def test_inversions_list_each_more_accurate_model_with_larger_sets():
    t = _table([("a", 80.0, 2.0, 1.5, 2.5, 93.0),
                ("b", 70.0, 2.5, 2.4, 2.6, 91.0),     # less accurate than a, larger sets: no inversion
                ("c", 60.0, 1.8, 1.9, 1.7, 90.0),     # least accurate, smallest sets: b and a invert against it
                ("d", 80.1, 2.3, 1.0, 3.6, 95.0)])    # as accurate as a (0.1 points apart): that pair is not counted
    inv = Y.inversions(t)
    assert list(inv.columns) == COLUMNS
    assert [tuple(r) for r in inv[["more_accurate", "less_accurate"]].values] == [("a", "c"), ("b", "c"), ("d", "c")]
    row = inv.set_index(["more_accurate", "less_accurate"]).loc[("b", "c")]
    assert row["accuracy_gap"] == pytest.approx(10.0) and row["set_size_gap"] == pytest.approx(0.7)
    assert bool(row["lac"]) and bool(row["aps"]) and row["aps_coverage"] == 91.0
    a_c = inv.set_index(["more_accurate", "less_accurate"]).loc[("a", "c")]
    assert not a_c["lac"] and a_c["aps"]                  # LAC alone orders a and c the right way round
    d_c = inv.set_index(["more_accurate", "less_accurate"]).loc[("d", "c")]
    assert not d_c["lac"] and d_c["aps"] and d_c["aps_coverage"] == 95.0


def test_the_margins_decide_what_counts_as_a_gap():
    t = _table([("a", 70.3, 2.01, 2.0, 2.0, 90.0), ("b", 70.0, 2.0, 2.0, 2.0, 90.0)])
    assert Y.inversions(t).empty and list(Y.inversions(t).columns) == COLUMNS   # 0.3 points, 0.01 options
    assert len(Y.inversions(t, size_margin=0.005)) == 1
    assert Y.inversions(t, accuracy_margin=0.5, size_margin=0.005).empty


def test_tables_of_the_released_logits(require_data):
    require_data("ye2024", ["mmlu_10k.npz", "mmlu_10k_chat_v1.npz", "mmlu_10k_chat_v2.npz", "mmlu_10k_answers.json"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # the answer key's note on its 24 open ids
        out = Y.tables(online=False)
    assert {k: len(v) for k, v in out.items()} == {"base": 16, "chat_v1": 9, "chat_v2": 9}
    for name, t in out.items():
        assert (t["accuracy_min"] <= t["accuracy"] + 1e-9).all() and (t["accuracy"] <= t["accuracy_max"] + 1e-9).all()
        assert np.allclose(t["set_size"], (t["lac_set_size"] + t["aps_set_size"]) / 2), name
        assert (t["coverage"] > 85).all(), name
    inv = Y.inversions(out["base"])
    assert len(inv) > 0 and (inv["accuracy_gap"] > 0.2).all() and (inv["set_size_gap"] > 0.02).all()


def test_main_prints_and_writes_the_tables(monkeypatch, tmp_path, capsys):
    fake = {m: _table([("x", 60.0 + i, 2.0, 1.5, 2.5, 90.0)]) for i, m in enumerate(("base", "chat_v1", "chat_v2"))}
    seen = {}
    monkeypatch.setattr(Y, "tables", lambda *, alpha: seen.setdefault("alpha", alpha) and fake)
    Y.main(["--alpha", "0.2", "--out", str(tmp_path / "t.csv")])
    assert seen == {"alpha": 0.2}
    printed = capsys.readouterr().out
    assert "QA, chat_v2 models (alpha = 0.2)" in printed and f"written: {tmp_path / 't.csv'}" in printed
    back = pd.read_csv(tmp_path / "t.csv")
    assert back[["models", "model", "accuracy"]].values.tolist() == [["base", "x", 60.0], ["chat_v1", "x", 61.0],
                                                                     ["chat_v2", "x", 62.0]]
