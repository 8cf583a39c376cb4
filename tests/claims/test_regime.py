"""Tests of semvar.claims.regime: the records of chapter 10 (one model's samples) run, decide and can fail."""

from __future__ import annotations

import dataclasses

import pytest

from semvar import claims
from semvar.experiments import regime as R

IDS = [
    "liu2025.judge_is_sbm_real",
    "regime.auto_finds_k",
    "regime.entropy_flags_errors",
    "regime.error_grows_long_tail",
    "regime.more_samples_better_flag",
    "regime.selfsim_consistent_reliable",
    "regime.spectral_vs_graph_measures",
    "regime.von_neumann_variant",
]


def _have_data() -> bool:
    from semvar.claims import regime as CR

    return CR._load()[0] is not None


def test_records_are_registered_with_their_kind():
    reg = claims.registry()
    for i in IDS:
        assert i in reg and reg[i].notebook == "10_one_model_samples"
    assert sorted(i for i in IDS if reg[i].kind == "claim") == [
        "liu2025.judge_is_sbm_real", "regime.selfsim_consistent_reliable"]


def test_records_run_quick():
    records = claims.run(["regime.", "liu2025.judge_is_sbm_real"], quick=True)
    assert sorted(r.id for r in records) == IDS
    for r in records:
        assert r.status in claims.STATUSES and r.status != "error", r.note
    if _have_data():
        assert all(r.status != "needs_data" for r in records)


def test_needs_data_without_the_data(tmp_path, monkeypatch):
    monkeypatch.setenv("SEMVAR_DATA_DIR_ONLY", "1")
    monkeypatch.delenv("SEMVAR_DATA_DIR", raising=False)
    monkeypatch.setenv("SEMVAR_CACHE_DIR", str(tmp_path / "empty-cache"))
    (rec,) = claims.run(["regime.entropy_flags_errors"], quick=True)
    assert rec.status == "needs_data" and "uq_nlg" in rec.note


def test_a_wrong_semantic_entropy_flips_its_record(monkeypatch):
    """With the measure's sign flipped the AUROC falls below 0.5 and the record fails."""
    from semvar import measures

    if not _have_data():
        pytest.skip("needs the uq_nlg data")
    (before,) = claims.run(["regime.entropy_flags_errors"], quick=True)
    real = measures.MEASURES["semantic_entropy"]
    monkeypatch.setitem(measures.MEASURES, "semantic_entropy",
                        dataclasses.replace(real, _compute=lambda V: -real._compute(V)))
    (after,) = claims.run(["regime.entropy_flags_errors"], quick=True)
    assert before.status == "replicated" and after.status == "not_replicated"


def test_a_wrong_von_neumann_entropy_flips_its_record(monkeypatch):
    if not _have_data():
        pytest.skip("needs the uq_nlg data")
    real = R.von_neumann_entropy
    monkeypatch.setattr(R, "von_neumann_entropy", lambda A: -real(A))
    (after,) = claims.run(["regime.von_neumann_variant"], quick=True)
    assert after.status == "not_replicated"
