import json
import subprocess
import sys
from pathlib import Path

import pytest

from semvar import claims
from semvar.claims import Outcome, Record

ROOT = Path(__file__).resolve().parent.parent
FIELDS = {"id", "source", "statement", "paper_value", "our_value", "tolerance", "status", "notebook", "note"}


@pytest.fixture
def scratch_registry(monkeypatch):
    monkeypatch.setattr(claims, "_REGISTRY", {})
    monkeypatch.setattr(claims, "CLAIM_MODULES", [])
    return claims._REGISTRY


def test_failing_check_is_an_error_row(scratch_registry):
    @claims.claim("t.boom", source="x", statement="s", paper_value=1.0)
    def boom(quick):
        raise RuntimeError("kaput")

    @claims.claim("t.ok", source="x", statement="s", paper_value=1.0, tolerance=0.1)
    def ok(quick):
        return claims.compare(1.05, 1.0, 0.1)

    recs = {r.id: r for r in claims.run()}
    assert recs["t.boom"].status == "error" and "kaput" in recs["t.boom"].note
    assert recs["t.ok"].status == "replicated"
    table = claims.format_table(list(recs.values()))
    assert "t.boom" in table and "error" in table


def test_compare_and_outcome_validation():
    assert claims.compare(1.0, 2.0, 0.5).status == "not_replicated"
    with pytest.raises(ValueError, match="status"):
        Outcome(1, "fine")


def test_unknown_id_prefix(scratch_registry):
    with pytest.raises(ValueError, match="no claim id"):
        claims.run(["nope"])


@pytest.fixture(scope="module")
def quick_cli_run():
    """One reduced run of every check through the command line, shared by the tests below."""
    out = subprocess.run(
        [sys.executable, "-m", "semvar", "replicate", "--quick", "--json"],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )
    return out


def test_cli_json_is_valid_and_has_fields(quick_cli_run):
    rows = json.loads(quick_cli_run.stdout)
    assert isinstance(rows, list)
    for row in rows:
        assert FIELDS <= set(row), f"record {row.get('id')} lacks {FIELDS - set(row)}"
        assert row["status"] in claims.STATUSES
    assert quick_cli_run.returncode == (1 if any(r["status"] == "error" for r in rows) else 0)
    assert set(r["id"] for r in rows) == set(claims.registry()), "the CLI must run every registered claim"


def test_stored_scorecard_matches_quick_run(quick_cli_run):
    """data/scorecard.json (the book's table) holds every claim with the status a fresh run gives."""
    stored = {r.id: r for r in claims.load_records(ROOT / "data" / "scorecard.json")}
    fresh = {row["id"]: Record(**row) for row in json.loads(quick_cli_run.stdout)}
    assert set(stored) == set(fresh), (
        f"regenerate data/scorecard.json: missing {sorted(set(fresh) - set(stored))}, "
        f"stale {sorted(set(stored) - set(fresh))}"
    )
    errors = [r.id for r in fresh.values() if r.status == "error"]
    assert not errors, f"checks raised: {[(i, fresh[i].note) for i in errors]}"
    for cid, rec in fresh.items():
        assert stored[cid].status == rec.status, f"{cid}: stored {stored[cid].status}, quick run {rec.status} ({rec.note})"
        assert stored[cid].statement == rec.statement and stored[cid].paper_value == rec.paper_value, cid


def test_record_roundtrip(tmp_path):
    rec = Record("a", "s", "st", 1.0, 2.0, 0.1, "partly", "nb", "n")
    path = tmp_path / "r.json"
    path.write_text(claims.to_json([rec]))
    assert claims.load_records(path)[0].id == "a"
