"""Tests of semvar.claims.local_judge: chapter 7's judges on a laptop and ContextSL's LLM judges.

The module's checks read the stored calls (``data/local_judge.csv.gz``) and ContextSL's labels; in their
quick form they must reach the stored run's status.  A check whose data are wrong must not reach a
verdict it did not earn: a frame where the small models are perfect judges makes the 'far from Table 2'
finding fail.
"""

from __future__ import annotations

import pandas as pd

from semvar.claims import local_judge as L

from ._helpers import assert_decided_as_stored, module_ids, run_module


def test_records_decide_as_the_stored_run():
    records = run_module("local_judge")
    assert len(records) == len(module_ids("local_judge")) >= 4
    assert_decided_as_stored(records)


def test_perfect_small_models_would_not_be_far_from_table2(monkeypatch):
    calls = L._calls()
    perfect = calls.assign(constrained=calls.label.clip(lower=0).astype(float),
                           pi=calls.label.clip(lower=0).astype(float) * 0.9 + 0.05)
    monkeypatch.setattr(L, "_calls", lambda: perfect)
    out = L._small_models_pq(True)
    assert out.status == "not_replicated"
    assert L._soft_ranks(True).status == "replicated"


def test_an_asymmetric_judge_is_seen(monkeypatch):
    calls = L._calls()
    flipped = calls.copy()
    ba = (flipped.order == "ba") & (flipped.set == "sas")
    flipped.loc[ba, "constrained"] = 1.0 - flipped.loc[ba, "constrained"]
    monkeypatch.setattr(L, "_calls", lambda: flipped)
    assert L._symmetric(True).status == "not_replicated"
    assert isinstance(calls, pd.DataFrame)
