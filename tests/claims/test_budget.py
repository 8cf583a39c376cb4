"""Tests of semvar.claims.budget: the records of chapter 6, the judge budget.

The module's checks run in their reduced (quick) form, about 3 s: every record must reach a
verdict (no ``error``) and the status of the stored full run ``data/scorecard.json``, as
``tests/test_scorecard_fresh.py`` requires of the whole ledger at once.  Whether a wrong core
function changes these verdicts is the subject of ``tests/test_claims_mutation.py``.
"""

from __future__ import annotations

from ._helpers import assert_decided_as_stored, module_ids, run_module


def test_records_decide_as_the_stored_run():
    records = run_module("budget")
    assert len(records) == len(module_ids("budget")) >= 4   # none registered would pass vacuously
    assert_decided_as_stored(records)
