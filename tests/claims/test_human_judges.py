"""Tests of semvar.claims.human_judges: chapter 7's records (judges against human labels) run, decide and can fail."""

from __future__ import annotations

from semvar import claims

IDS = [
    "humanjudges.evouna_answerer_dependence",
    "humanjudges.human_ceiling",
    "humanjudges.llm_judges_phase",
    "humanjudges.minilm_sas_phase",
    "humanjudges.minilm_sas_separates",
    "humanjudges.partly_between",
    "liu2025.real_llm_judge_sbm",
]


def test_records_are_registered_with_their_kind():
    reg = claims.registry()
    for i in IDS:
        assert i in reg and reg[i].notebook == "07_llm_judge"
    assert [i for i in IDS if reg[i].kind == "claim"] == ["liu2025.real_llm_judge_sbm"]


def test_records_run_quick(require_data):
    require_data("openqa_eval", ["NQ301_human.tsv"])
    records = claims.run(["humanjudges.", "liu2025.real_llm_judge_sbm"], quick=True)
    assert sorted(r.id for r in records) == IDS
    for r in records:
        assert r.status in ("replicated", "partly", "not_replicated"), (r.id, r.status, r.note)


def test_needs_data_is_computed_from_the_lookup(tmp_path, monkeypatch):
    monkeypatch.setenv("SEMVAR_DATA_DIR_ONLY", "1")
    monkeypatch.setenv("SEMVAR_DATA_DIR", str(tmp_path / "empty"))
    monkeypatch.setenv("SEMVAR_CACHE_DIR", str(tmp_path / "empty-cache"))
    monkeypatch.setenv("SEMVAR_DATA_MIRROR", "http://127.0.0.1:9")  # no origin either: fails at once
    records = claims.run(["humanjudges.", "liu2025.real_llm_judge_sbm"], quick=True)
    assert {r.status for r in records} == {"needs_data"}, [(r.id, r.status, r.note) for r in records]


def test_gpt4_rates_are_recomputed_from_the_data(require_data):
    require_data("openqa_eval", ["NQ301_human.tsv"])
    (rec,) = claims.run(["liu2025.real_llm_judge_sbm"], quick=True)
    g = rec.our_value["GPT-4"]
    assert 0 < g["q"] < g["p"] < 1 and g["p_ci95"][0] < g["p"] < g["p_ci95"][1]
    assert g["unparsed"] == 10  # the loader's unreadable GPT-4 verdicts are left out, not read as "incorrect"


def test_a_wrong_rate_changes_the_verdicts(require_data, monkeypatch):
    """The p > q records can fail: a rate function that counts the wrong class turns p - q negative."""
    require_data("openqa_eval", ["NQ301_human.tsv"])
    import semvar.evaluation as ev

    ids = ["liu2025.real_llm_judge_sbm", "humanjudges.llm_judges_phase"]
    before = {r.id: r.status for r in claims.run(ids, quick=True)}
    real = ev.rate_ci

    def wrong(k, n, **kw):
        r, lo, hi = real(n - k, n, **kw)  # the share of FALSE instead of TRUE
        return r, lo, hi

    monkeypatch.setattr(ev, "rate_ci", wrong)
    after = {r.id: r.status for r in claims.run(ids, quick=True)}
    assert all(before[i] in ("replicated", "partly") for i in ids), before
    assert after == {i: "not_replicated" for i in ids}
