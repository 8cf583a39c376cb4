"""Helpers of the tests of the claims modules: run one module's records quickly, compare them with the stored run."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from semvar import claims
from semvar.claims import Record, _run

STORED = Path(__file__).resolve().parents[2] / "data" / "scorecard.json"


def module_ids(module: str) -> list[str]:
    """Ids of the records that ``semvar.claims.<module>`` registers."""
    return sorted(cid for cid, c in claims.registry().items() if c.check.__module__ == f"semvar.claims.{module}")


def run_module(module: str) -> dict[str, Record]:
    """The quick records of exactly one claims module's checks.

    :func:`semvar.claims.run` selects ids by prefix (``liu2025.k_selection`` would bring in
    ``liu2025.k_selection_small_n`` of another module), so the runner is shown only this module's
    claims instead.
    """
    only = {cid: claims.registry()[cid] for cid in module_ids(module)}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_run, "registry", lambda: only)
        records = claims.run(quick=True)
    assert sorted(r.id for r in records) == sorted(only)
    return {r.id: r for r in records}


def assert_decided_as_stored(records: dict[str, Record]) -> None:
    """No record is an error, and each reaches the status of the stored full run ``data/scorecard.json``.

    A record that says ``needs_data`` where the stored run decided it lacks its data on this machine:
    the test is skipped with the record's note, or fails when ``SEMVAR_REQUIRE_DATA=1`` (as the
    ``require_data`` fixture does), so that continuous integration never passes by skipping.
    """
    stored = {r.id: r.status for r in claims.load_records(STORED)}
    errors = {cid: r.note for cid, r in records.items() if r.status == "error"}
    assert not errors, f"checks raised: {errors}"
    absent = {cid: r.note for cid, r in records.items() if r.status == "needs_data" and stored.get(cid) != "needs_data"}
    wrong = [f"{cid}: stored {stored.get(cid)}, a quick run now gives {r.status} ({r.note[:200]})"
             for cid, r in records.items() if r.status != stored.get(cid) and cid not in absent]
    assert not wrong, "regenerate data/scorecard.json or fix the check:\n" + "\n".join(wrong)
    if absent:
        reason = f"the data of {sorted(absent)} is missing: {absent}"
        if os.environ.get("SEMVAR_REQUIRE_DATA", "").strip().lower() in {"1", "true", "yes", "on"}:
            pytest.fail(f"SEMVAR_REQUIRE_DATA=1 but {reason}", pytrace=False)
        pytest.skip(reason)
