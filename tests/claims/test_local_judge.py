"""Tests of semvar.claims.local_judge: chapter 7's judges on a laptop and ContextSL's LLM judges.

The module's checks read the stored calls (``data/local_judge.csv.gz``) and ContextSL's labels; in their
quick form they must reach the stored run's status.  A check whose data are wrong must not reach a
verdict it did not earn: a frame where the small models are perfect judges makes the 'far from Table 2'
finding fail.
"""

from __future__ import annotations

import numpy as np

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


def test_a_judge_whose_second_order_is_another_pair_is_seen(monkeypatch):
    """pi(b, a) replaced by the pi of another pair: the order no longer carries the pair, and the finding fails."""
    calls = L._calls()
    shuffled = calls.copy()
    ba = (shuffled.order == "ba") & (shuffled.set == "sas")
    shuffled.loc[ba, "pi"] = np.random.default_rng(1).permutation(shuffled.loc[ba, "pi"].to_numpy())
    monkeypatch.setattr(L, "_calls", lambda: shuffled)
    assert L._order_carries_the_pair(True).status != "replicated"


def test_a_run_that_differs_is_seen(monkeypatch):
    calls = L._calls()
    changed = calls.copy()
    first = changed.index[(changed.set == "repeat")][0]
    changed.loc[first, "pi"] += 1e-4
    monkeypatch.setattr(L, "_calls", lambda: changed)
    assert L._repeatable_cpu(True).status == "partly"
