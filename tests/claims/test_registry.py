"""Tests of semvar.claims._registry: the records, the registry of checks and the decorator."""

from __future__ import annotations

import pytest

from semvar import claims
from semvar.claims import _registry


@pytest.fixture
def scratch(monkeypatch):
    monkeypatch.setattr(_registry, "_REGISTRY", {})
    monkeypatch.setattr(_registry, "_modules", lambda: [])
    return _registry._REGISTRY


def test_the_decorator_registers_every_field_and_returns_the_check(scratch):
    def check(quick):
        return claims.Outcome(1, "replicated")

    out = claims.claim("t.a", source="seed 000, Table 1", statement="s", paper_value=[1, 2], tolerance=0.1,
                       notebook="05_consistency", kind="finding")(check)
    assert out is check
    c = claims.registry()["t.a"]
    assert (c.id, c.source, c.statement, c.paper_value, c.tolerance, c.notebook, c.kind, c.check) == (
        "t.a", "seed 000, Table 1", "s", [1, 2], 0.1, "05_consistency", "finding", check)


def test_an_id_taken_by_another_check_is_refused(scratch):
    claims.claim("t.a", source="x", statement="s", paper_value=1)(lambda quick: None)

    def other(quick):
        return None

    with pytest.raises(ValueError, match="registered twice"):
        claims.claim("t.a", source="x", statement="s", paper_value=1)(other)
    with pytest.raises(ValueError, match="kind must be one of"):
        claims.claim("t.b", source="x", statement="s", paper_value=1, kind="result")


def test_registry_imports_the_chapter_groups_but_not_the_private_modules():
    found = _registry._modules()
    assert found[: len(_registry.CLAIM_MODULES)] == _registry.CLAIM_MODULES
    assert not any(m.rsplit(".", 1)[-1].startswith("_") for m in found)
    assert {"semvar.claims.regime", "semvar.claims.human_judges"} <= set(found)  # found without being listed
    reg = claims.registry()
    assert list(reg) == sorted(reg)
    by_module = {c.check.__module__ for c in reg.values()}
    assert by_module == set(found), "every chapter group registers a claim, and nothing else does"


def test_outcome_and_compare():
    assert claims.compare(1.5, 1.0, 0.5).status == "replicated"      # the tolerance is inclusive
    assert claims.compare(1.5, 1.0, 0.25).status == "not_replicated"
    assert claims.compare(1.0, 1.0, 0.0, note="exact").note == "exact"
    with pytest.raises(ValueError, match="status must be one of"):
        claims.Outcome(1, "replicated ")
    r = claims.Record("a", "s", "st", 1, 2, None, "partly", "nb", "n", seconds=3.0)
    assert r == claims.Record("a", "s", "st", 1, 2, None, "partly", "nb", "n", seconds=9.0)  # seconds not compared
    assert r.kind == "claim"
