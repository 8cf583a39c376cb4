"""Tests of semvar.claims._run: running the checks, the shared caches and the lookup of a claim's data."""

from __future__ import annotations

import math

import numpy as np
import pytest

from semvar import claims
from semvar.claims import _registry, _run
from semvar.data import DataNotFoundError


@pytest.fixture
def scratch(monkeypatch):
    monkeypatch.setattr(_registry, "_REGISTRY", {})
    monkeypatch.setattr(_registry, "_modules", lambda: [])
    return _registry._REGISTRY


def _register(cid, check, **kw):
    claims.claim(cid, source="x", statement="s", paper_value=kw.pop("paper_value", 1.0), **kw)(check)


def test_a_check_that_fails_or_returns_no_outcome_is_an_error_row(scratch):
    def boom(quick):
        raise KeyError("missing column")

    _register("t.boom", boom)
    _register("t.none", lambda quick: 0.5)
    _register("t.ok", lambda quick: claims.Outcome(np.float64(0.25) if quick else 0.5, "partly", "n"))
    recs = {r.id: r for r in claims.run(quick=True)}
    assert recs["t.boom"].status == "error" and "KeyError" in recs["t.boom"].note and "test_run.py:" in recs["t.boom"].note
    assert recs["t.none"].status == "error" and "returned float, not Outcome" in recs["t.none"].note
    ok = recs["t.ok"]
    assert (ok.status, ok.our_value, type(ok.our_value)) == ("partly", 0.25, float) and ok.seconds >= 0
    assert claims.run(["t.o"], quick=False)[0].our_value == 0.5            # ids are prefixes
    with pytest.raises(ValueError, match="no claim id starts with"):
        claims.run(["u."])
    with pytest.raises(ValueError, match="quick must be True or False"):
        claims.run(quick="yes")


def test_values_are_made_json_ready(scratch):
    _register("t.v", lambda quick: claims.Outcome({1: np.int64(3), "x": (np.float32(0.5), math.inf)}, "replicated"),
              paper_value=(np.float64(1.0), 2), tolerance=math.nan)
    rec = claims.run()[0]
    assert rec.our_value == {"1": 3, "x": [0.5, "inf"]} and rec.paper_value == [1.0, 2] and rec.tolerance == "nan"
    assert type(rec.our_value["1"]) is int


def test_shared_results_live_for_one_run(scratch):
    calls = []

    @claims.shared
    def study(n):
        calls.append(n)
        return len(calls)

    _register("t.a", lambda quick: claims.Outcome(study(1), "replicated"))
    _register("t.b", lambda quick: claims.Outcome(study(1) + study(2), "replicated"))
    assert [r.our_value for r in claims.run()] == [1, 3]
    assert [r.our_value for r in claims.run()] == [3, 7] and calls == [1, 2, 1, 2]  # computed afresh


def test_find_data_needs_data_and_data_file(tmp_path, monkeypatch):
    data, why = claims.find_data(lambda: (_ for _ in ()).throw(ConnectionError("offline")))
    assert data is None and why == "ConnectionError: offline"
    with pytest.raises(ZeroDivisionError):
        claims.find_data(lambda: 1 / 0)
    assert claims.find_data(lambda: 1 / 0, absent=(ZeroDivisionError,))[0] is None
    out = claims.needs_data("the file x.csv", "FileNotFoundError: /srv/cache/x.csv", our_value=2, note="part")
    assert (out.status, out.our_value) == ("needs_data", 2)
    assert out.note == "part; needs the file x.csv (looked: FileNotFoundError: x.csv)"
    monkeypatch.setenv("SEMVAR_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("SEMVAR_DATA_DIR_ONLY", "1")
    with pytest.raises(DataNotFoundError, match=f"a.csv, b.csv not found in {tmp_path / 'liu2025'}"):
        claims.data_file("liu2025", "a.csv", "b.csv")
    (tmp_path / "liu2025").mkdir()
    (tmp_path / "liu2025" / "a.csv").write_text("x\n")
    (tmp_path / "liu2025" / "b.csv").write_text("x\n")
    assert claims.data_file("liu2025", "a.csv", "b.csv") == tmp_path / "liu2025"
    assert _run.without_machine_paths(f"in {tmp_path}/liu2025, {tmp_path}/liu2025") == "in <data dir>/liu2025"


def test_the_progress_bar_names_and_counts_the_claims(scratch, capsys):
    _register("t.a", lambda quick: claims.Outcome(1, "replicated"))
    _register("t.b", lambda quick: claims.Outcome(2, "replicated"))
    claims.run(progress=True)
    err = capsys.readouterr().err
    assert "running t.a" in err and "running t.b" in err and "claims 2/2" in err and "100%" in err
    claims.run(progress=False)
    assert capsys.readouterr().err == ""


def test_the_time_left_is_weighed_by_the_stored_run():
    from pathlib import Path

    stored = {r.id: r.seconds for r in claims.load_records(Path(__file__).parents[2] / "data" / "scorecard.json")}
    ids = ["liu2025.theorem33", "liu2025.theorem34"]
    assert _run._expected_seconds(ids, quick=False) == {i: max(stored[i], 0.01) for i in ids}
    assert _run._expected_seconds(ids, quick=True) is None                 # the quick checks have no stored time
    assert _run._expected_seconds([*ids, "no.such"], quick=False) is None  # one unknown: count the claims
