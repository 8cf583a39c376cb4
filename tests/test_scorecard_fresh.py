"""The stored ledger ``data/scorecard.json`` is what the code computes now.

The book reads every verdict and ledger number from that file, so a stale file
would put stale verdicts on every page.  Two checks:

* cheap: the stored records are the registered claims, with the statement,
  source, published value, tolerance, chapter and kind the code registers now
  (a tolerance changed after the stored run is caught here);
* one reduced run of every check (``python -m semvar replicate --quick
  --json``, about 30 s on two cores): every status equals the stored one.

The stored file is a full run.  Where a check's quick form legitimately
reaches another status than its full form, the record is listed in
``QUICK_DIFFERS`` with both statuses and the reason, and the test requires
exactly that pair; today no check needs it.
"""

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from semvar import claims

ROOT = Path(__file__).resolve().parent.parent
STORED = ROOT / "data" / "scorecard.json"
REGISTERED = ("source", "statement", "paper_value", "tolerance", "notebook", "kind")

#: id -> (status of the full run, status of the quick run, why they differ)
QUICK_DIFFERS: dict[str, tuple[str, str, str]] = {}


def _stored():
    return {r.id: r for r in claims.load_records(STORED)}


def test_stored_records_are_the_registered_claims():
    stored, registry = _stored(), claims.registry()
    assert set(stored) == set(registry), (
        f"regenerate data/scorecard.json: missing {sorted(set(registry) - set(stored))}, "
        f"no longer registered {sorted(set(stored) - set(registry))}")
    stale = []
    for cid, c in registry.items():
        rec = stored[cid]
        now = {"source": c.source, "statement": c.statement, "paper_value": claims._jsonable(c.paper_value),
               "tolerance": claims._jsonable(c.tolerance), "notebook": c.notebook, "kind": c.kind}
        stale += [f"{cid}.{f}: stored {getattr(rec, f)!r}, registered {now[f]!r}"
                  for f in REGISTERED if getattr(rec, f) != now[f]]
    assert not stale, "regenerate data/scorecard.json (python -m semvar replicate --json --out data/scorecard.json):\n" \
        + "\n".join(stale)


def test_quick_differs_lists_only_real_records():
    stored = _stored()
    for cid, (full, quick, why) in QUICK_DIFFERS.items():
        assert cid in stored and full in claims.STATUSES and quick in claims.STATUSES and full != quick and why


@pytest.fixture(scope="module")
def quick_run():
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "semvar", "replicate", "--quick", "--json"],
                          capture_output=True, text=True, cwd=ROOT, check=False, timeout=1800)
    seconds = time.perf_counter() - t0
    assert done.stdout.strip(), f"the quick run printed nothing (rc {done.returncode}): {done.stderr[-2000:]}"
    rows = json.loads(done.stdout)
    assert isinstance(rows, list)
    assert done.returncode == (1 if any(r["status"] == "error" for r in rows) else 0)
    return {row["id"]: row for row in rows}, seconds


FIELDS = {"id", "source", "statement", "paper_value", "our_value", "tolerance", "status", "notebook", "note", "kind"}


def test_cli_json_is_valid_and_runs_every_claim(quick_run):
    fresh, _ = quick_run
    for cid, row in fresh.items():
        assert FIELDS <= set(row), f"record {cid} lacks {FIELDS - set(row)}"
        assert row["status"] in claims.STATUSES and row["kind"] in claims.KINDS
    assert set(fresh) == set(claims.registry()), "the command line must run every registered claim"


def test_stored_statuses_equal_a_fresh_quick_run(quick_run):
    fresh, seconds = quick_run
    stored = _stored()
    print(f"quick run of {len(fresh)} checks: {seconds:.0f} s")
    assert set(fresh) == set(stored), (
        f"regenerate data/scorecard.json: missing {sorted(set(fresh) - set(stored))}, "
        f"stale {sorted(set(stored) - set(fresh))}")
    errors = {cid: r["note"] for cid, r in fresh.items() if r["status"] == "error"}
    assert not errors, f"checks raised: {errors}"
    wrong = []
    for cid, row in sorted(fresh.items()):
        want_full, want_quick = stored[cid].status, stored[cid].status
        if cid in QUICK_DIFFERS:
            want_full, want_quick, _ = QUICK_DIFFERS[cid]
            if stored[cid].status != want_full:
                wrong.append(f"{cid}: stored {stored[cid].status}, QUICK_DIFFERS says the full run gives {want_full}")
        if row["status"] != want_quick:
            wrong.append(f"{cid}: stored {stored[cid].status}, a quick run now gives {row['status']} ({row['note'][:200]})")
    assert not wrong, ("data/scorecard.json no longer matches the code; regenerate it with "
                       "python -m semvar replicate --json --out data/scorecard.json:\n" + "\n".join(wrong))


def test_stored_notes_show_no_machine_path_on_the_page():
    """The scorecard page renders notes through public_text: no folder of the machine that ran the checks."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from check_offline_html import MACHINE_PATH
    finally:
        sys.path.pop(0)
    assert MACHINE_PATH.search("looked in /home/someone/data/liu2025")       # the pattern can fire
    shown = [claims.public_text(" ".join(claims.format_value(v)) if not isinstance(v, str) else v)
             for r in _stored().values() for v in (r.note, r.our_value, r.tolerance, r.source, r.statement)]
    leaks = [s for s in shown if MACHINE_PATH.search(s)]
    assert not leaks, leaks[:3]
