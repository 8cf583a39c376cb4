"""The realtext.* records of the ledger (chapter 9): they run, and the AUROC record computes on the real data."""

from __future__ import annotations

import pytest

from semvar import claims
from semvar.claims import realtext
from semvar.data import MMLU_PRO_MODELS
from semvar.data.mmlu_pro import _file_name

IDS = [
    "realtext.answer_entropy_auroc",
    "realtext.minilm_pq",
    "realtext.sbm_pair_independence",
    "realtext.consistent_but_wrong",
    "realtext.spectral_tracks_oracle",
]


def test_records_are_registered_with_their_kind():
    reg = claims.registry()
    for i in IDS:
        assert i in reg and reg[i].notebook == "09_real_answers"
    # the seed's sentence on self-similarity is one record, regime.selfsim_consistent_reliable, which reads
    # chapter 9's answers too
    assert all(reg[i].kind == "finding" for i in IDS)
    assert "realtext.selfsim_flags_errors" not in reg


def test_records_run_quick():
    records = claims.run(["realtext."], quick=True)
    assert [r.id for r in records] == sorted(IDS)
    for r in records:
        assert r.status in claims.STATUSES
        assert r.status != "error", r.note


def test_answer_entropy_auroc_computes_on_the_real_data(require_data):
    require_data("mmlu_pro", [_file_name(m) for m in MMLU_PRO_MODELS])
    (rec,) = claims.run(["realtext.answer_entropy_auroc"], quick=True)
    assert rec.status in ("replicated", "partly", "not_replicated")
    v = rec.our_value
    assert v["questions"] == 10326  # every model answered these
    assert 0.0 <= v["ci95"][0] <= v["auroc"] <= v["ci95"][1] <= 1.0


def test_needs_data_is_computed_from_the_lookup(tmp_path, monkeypatch):
    """With no data directory and an empty cache every record says needs_data (never an error)."""
    monkeypatch.setenv("SEMVAR_DATA_DIR_ONLY", "1")
    monkeypatch.delenv("SEMVAR_DATA_DIR", raising=False)
    monkeypatch.setenv("SEMVAR_CACHE_DIR", str(tmp_path / "empty-cache"))
    records = claims.run(["realtext."], quick=True)  # a run empties the shared frame cache first
    assert {r.status for r in records} == {"needs_data"}
    assert all("MMLU-Pro" in r.note for r in records)


def test_a_wrong_entropy_changes_the_verdict(monkeypatch):
    """The AUROC record can fail: with the entropy's sign flipped the AUROC falls below 0.5."""
    import semvar.experiments.realtext as rt

    if realtext._load()[0] is None:
        pytest.skip("needs the MMLU-Pro outputs")
    real = rt.answer_entropy_table

    def flipped(frame, **kw):
        t = real(frame, **kw)
        t["entropy"] = -t["entropy"]
        return t

    monkeypatch.setattr(realtext, "answer_entropy_table", flipped)
    (rec,) = claims.run(["realtext.answer_entropy_auroc"], quick=True)
    assert rec.status == "not_replicated"
