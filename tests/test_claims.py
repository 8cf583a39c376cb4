"""The claims ledger: records, kinds, the scorecard formats, data lookups, and the stored full run.

The full ledger takes several minutes, so the suite runs the reduced (``--quick``)
form once and compares it with the stored full run ``data/scorecard.json``:
every status must agree, and the values of the deterministic claims (those
whose check draws nothing at random, or draws with fixed seeds and decides on
exact arithmetic) are recomputed in full and compared value for value.
"""

import json
import math
from pathlib import Path

import pytest

from semvar import claims
from semvar.claims import KINDS, Outcome, Record

ROOT = Path(__file__).resolve().parent.parent
FIELDS = {"id", "source", "statement", "paper_value", "our_value", "tolerance", "status", "notebook", "note", "kind"}
STORED = ROOT / "data" / "scorecard.json"

#: the book's own results, never counted as replications
FINDINGS = {"budget.sparse_design", "budget.law", "budget.greedy_bias", "budget.unresolved_law", "budget.sampled_real",
            "selfsim.scalability", "ye2024.qwen72b_qa", "ye2024.released_rank", "liu2025.k_selection_small_n",
            "localjudge.small_models_pq", "localjudge.soft_ranks", "localjudge.order_carries_the_pair",
            "localjudge.repeatable_cpu", "contextsl.llm_judges_pq"}
#: claims whose full check is cheap and whose value does not depend on the machine
DETERMINISTIC = [
    "liu2025.proposition21", "liu2025.table2_p_minus_q", "liu2025.lemma31", "liu2025.lemmas_a7_a8",
    "selfsim.worked_example", "ye2024.quantile_rank", "lin2026.subsample_bound", "lin2026.naive_halfwidth",
    "liu2025.lemma_a3", "liu2025.lemma_a6", "ye2024.released_rank", "lin2026.finite_exchangeable_limit",
    "ye_review.no_go", "ye_review.accuracy_fixed",
]


@pytest.fixture
def scratch_registry(monkeypatch):
    from semvar.claims import _registry

    monkeypatch.setattr(_registry, "_REGISTRY", {})
    monkeypatch.setattr(_registry, "CLAIM_MODULES", [])
    monkeypatch.setattr(_registry, "_modules", lambda: [])
    return _registry._REGISTRY


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


def test_kind_is_validated_and_defaults_to_claim(scratch_registry):
    with pytest.raises(ValueError, match="kind must be one of"):
        claims.claim("t.x", source="x", statement="s", paper_value=1, kind="result")

    @claims.claim("t.c", source="x", statement="s", paper_value=1)
    def c(quick):
        return Outcome(1, "replicated")

    @claims.claim("t.f", source="x", statement="s", paper_value=1, kind="finding")
    def f(quick):
        return Outcome(1, "replicated")

    recs = {r.id: r for r in claims.run()}
    assert recs["t.c"].kind == "claim" and recs["t.f"].kind == "finding"


def test_table_reports_claims_and_findings_apart(scratch_registry):
    for i, (kind, status) in enumerate([("claim", "replicated"), ("claim", "not_replicated"), ("finding", "replicated")]):
        claims.claim(f"t.{i}", source="x", statement="s", paper_value=1, kind=kind)(
            lambda quick, status=status: Outcome(1, status))
    recs = claims.run()
    table = claims.format_table(recs)
    claims_part, findings_part = table.split("FINDINGS OF THIS BOOK")
    assert "CLAIMS OF THE SOURCE WORKS (2): 1 replicated, 1 not_replicated" in claims_part
    assert "t.2" in findings_part and "t.2" not in claims_part
    assert "(1, not counted as replications): 1 replicated" in findings_part
    assert "1 of 2 claims replicated" in table          # the finding is not counted
    assert claims.counts(recs) == {"claim": dict(replicated=1, not_replicated=1, partly=0, needs_data=0, error=0),
                                   "finding": dict(replicated=1, not_replicated=0, partly=0, needs_data=0, error=0)}


def test_unknown_id_prefix(scratch_registry):
    with pytest.raises(ValueError, match="no claim id"):
        claims.run(["nope"])


def test_every_record_has_a_kind_and_the_findings_are_marked():
    reg = claims.registry()
    assert all(c.kind in KINDS for c in reg.values())
    found = {i for i, c in reg.items() if c.kind == "finding"}
    assert FINDINGS <= found, f"not marked as findings: {FINDINGS - found}"
    for required in ("liu2025.theorem32", "liu2025.proposition21", "liu2025.temperature0", "selfsim.wrong_answers_pass",
                     "selfsim.embedding_quality",
                     # the source works' results that each have a record
                     "liu2025.generator_slower", "liu2025.lemma_a3", "liu2025.lemma_a6",
                     "lin2026.finite_exchangeable_limit", "lin2026.general_bounded_difference",
                     "selfsim.computational_intensity", "ye_review.high_accuracy_sets", "ye_review.lower_alpha_separates",
                     "ye_review.no_go", "ye_review.accuracy_fixed"):
        assert required in reg


def test_shared_cache_is_emptied_by_each_run(scratch_registry):
    calls = []

    @claims.shared
    def study():
        calls.append(1)
        return len(calls)

    @claims.claim("t.a", source="x", statement="s", paper_value=1)
    def a(quick):
        return Outcome(study(), "replicated")

    @claims.claim("t.b", source="x", statement="s", paper_value=1)
    def b(quick):
        return Outcome(study(), "replicated")

    first = claims.run()
    assert [r.our_value for r in first] == [1, 1]   # computed once, shared by both checks
    assert [r.our_value for r in claims.run()] == [2, 2]   # a new run starts afresh


# ----------------------------------------------------------------------------- data that settles a claim

def test_find_data_reports_absence_but_not_bugs():
    data, why = claims.find_data(lambda: (_ for _ in ()).throw(FileNotFoundError("no such table")))
    assert data is None and "no such table" in why
    with pytest.raises(ValueError, match="damaged"):
        claims.find_data(lambda: (_ for _ in ()).throw(ValueError("damaged")))
    out = claims.needs_data("the verdicts (x.csv)", why, note="computed part")
    assert out.status == "needs_data" and "x.csv" in out.note and out.note.startswith("computed part")


# ----------------------------------------------------------------------------- display

def _rec(**kw):
    base = dict(id="liu2025.x", source="seed 000, Table 9", statement="A statement.", paper_value={"a": 1.23456},
                our_value={"a": {"b": 2.0, "c": [1, 2]}}, tolerance="within 0.1", status="partly",
                notebook="05_consistency", note="a <note> & more")
    base.update(kw)
    return Record(**base)


def test_format_value_keeps_everything_readable():
    lines = claims.format_value({"normalized": {"LLAMA": 0.1149, "GPT": 0.0}, "flag": True, "long": "x" * 300})
    assert lines[0] == "normalized: LLAMA 0.1149, GPT 0" and lines[1] == "flag: yes"
    assert lines[2].endswith("x" * 10) and len(lines[2]) > 300      # nothing cut off
    assert claims.format_value(None) == ["-"]


def test_scorecard_html_groups_and_escapes():
    recs = [_rec(), _rec(id="selfsim.y", source="seed 002, Summary", status="replicated"),
            _rec(id="budget.z", source="this book, chapter 6 (seed 000)", kind="finding", status="replicated")]
    page = claims.scorecard_html(recs, kind="claim", titles={"05_consistency": "Consistency"})
    assert "<table" not in page                                   # cards, no wide table
    assert page.index("Liu (2025)") < page.index("self-similarity")
    assert "budget.z" not in page
    assert "a &lt;note&gt; &amp; more" in page and "<details>" in page
    assert 'href="05_consistency.html#decides-liu2025-x"' in page and ">Consistency<" in page
    assert "partly" in page and "a: b 2, c [1, 2]" in page and "chapter</dt>" in page
    findings = claims.scorecard_html(recs, kind="finding", titles={})
    assert "budget.z" in findings and "liu2025.x" not in findings
    with pytest.raises(ValueError, match="kind"):
        claims.scorecard_html(recs, kind="claims")
    assert claims.source_work(recs[2]) == "000" and claims.source_work(_rec(id="lin2026.q", source="x")) == "001"


def test_record_roundtrip_and_old_files_without_kind(tmp_path):
    rec = Record("a", "s", "st", 1.0, 2.0, 0.1, "partly", "nb", "n", kind="finding")
    path = tmp_path / "r.json"
    path.write_text(claims.to_json([rec]))
    assert claims.load_records(path)[0] == rec
    row = json.loads(claims.to_json([rec]))[0]
    del row["kind"]
    path.write_text(json.dumps([row]))
    assert claims.load_records(path)[0].kind == "claim"


# ----------------------------------------------------------------------------- the whole ledger

# The whole ledger in one reduced run through the command line (its JSON, every registered claim,
# every status against the stored scorecard): tests/test_scorecard_fresh.py, so the suite pays for one run.


def _same(a, b, path="value"):
    if isinstance(a, dict) and isinstance(b, dict):
        assert a.keys() == b.keys(), f"{path}: keys {sorted(a)} vs {sorted(b)}"
        for k in a:
            _same(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list) and isinstance(b, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{path}[{i}]")
    elif isinstance(a, float) or isinstance(b, float):
        assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12), f"{path}: {a} vs {b}"
    else:
        assert a == b, f"{path}: {a!r} vs {b!r}"


def test_deterministic_values_match_the_stored_full_run():
    stored = {r.id: r for r in claims.load_records(STORED)}
    ids = [i for i in DETERMINISTIC if i in claims.registry()]
    assert len(ids) >= 6
    for rec in claims.run(ids):
        assert rec.id in stored, f"regenerate data/scorecard.json: {rec.id} missing"
        assert rec.status == stored[rec.id].status, rec.id
        _same(rec.our_value, stored[rec.id].our_value, rec.id)


# ----------------------------------------------------------------------------- what the book prints

def test_notes_name_no_machine_path():
    from semvar.claims._outcome import without_machine_paths
    from semvar.data import candidate_dirs

    here = str(next(iter(candidate_dirs())))
    text = f"x.csv not found in {here}/liu2025, {here}/liu2025; see https://github.com/a/b and /opt/cache/k.json"
    assert without_machine_paths(text) == "x.csv not found in <data dir>/liu2025; see https://github.com/a/b and k.json"
    out = claims.needs_data("the file x.csv", f"FileNotFoundError: {here}/liu2025/x.csv")
    assert here not in out.note and "<data dir>/liu2025/x.csv" in out.note


def test_stored_notes_and_statements_are_printable():
    """The book prints every record: no absolute path of the machine and no word 'seed' (works are named by authors)."""
    import re

    for r in claims.load_records(STORED):
        for field in ("note", "statement", "tolerance"):
            text = str(getattr(r, field) or "")
            assert not re.search(r"(?<![\w<>.:/])/(?:home|work|tmp|root|usr|opt|Users|var)/", text), (r.id, field, text)
            # "seed" in the sense of a source work (a random seed is fine): "seed 000", "the seed", "the seed's"
            assert not re.search(r"\bseed \d{3}\b|\bthe seed\b|\bseed's\b", text, flags=re.I), (r.id, field, text)
