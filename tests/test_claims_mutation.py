"""Every verdict rests on code: replace a core function with a wrong one and the verdicts that rest on it change.

Each mutation swaps one function of :mod:`semvar` for a deliberately wrong version,
everywhere a module of the package holds a reference to it (so the claim
module, and the experiment or core module it calls, see the wrong one), runs
the claims that can depend on it in their reduced (quick) form, and compares
each verdict with the one the stored full run (``data/scorecard.json``)
records.  Two things are asserted for every mutation:

* it **flips** at least one record (a wrong function is caught somewhere);
* it moves **no** record to a better verdict.  Verdicts are ordered
  ``replicated > partly > not_replicated``.  ``needs_data`` is not on that
  scale: it says whether data were found, which no core function decides, so a
  record stored as ``needs_data`` must stay ``needs_data`` and no other record
  may become ``needs_data`` (that would hide a verdict).  ``error`` counts as a
  failure of the test (a check must reach a verdict with the wrong function,
  not crash on it).

The statuses quick runs give are those of the stored full run
(``tests/test_claims.py`` checks it), so the stored scorecard is the baseline.
"""

import importlib
import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from semvar import claims

ROOT = Path(__file__).resolve().parent.parent
STORED = {r.id: r.status for r in claims.load_records(ROOT / "data" / "scorecard.json")}

#: the order of verdicts: a larger number is a better verdict for the source work
ORDER = {"not_replicated": 0, "partly": 1, "replicated": 2}


def replace_everywhere(monkeypatch, module: str, name: str, wrong):
    """Put ``wrong`` in place of ``module.name`` in every loaded module of semvar that refers to it."""
    claims.registry()  # import every claims module (and what they import) first
    original = getattr(importlib.import_module(module), name)
    hits = 0
    for mod_name, mod in list(sys.modules.items()):
        if mod is None or not (mod_name == "semvar" or mod_name.startswith("semvar.")):
            continue
        for attr, value in list(vars(mod).items()):
            if value is original:
                monkeypatch.setattr(mod, attr, wrong)
                hits += 1
    assert hits, f"{module}.{name} is referenced nowhere"
    return original


def verdicts(ids):
    """Quick verdicts of exactly ``ids`` (claims.run selects by prefix)."""
    return {r.id: (r.status, r.note) for r in claims.run(ids, quick=True) if r.id in ids}


def moves(ids) -> dict:
    """``{id: (stored, now, note)}`` for every id, after checking that none improved, crashed or lost its data."""
    got = verdicts(ids)
    assert set(got) == set(ids), f"unknown or missing ids: {set(ids) ^ set(got)}"
    for cid in ids:
        assert cid in STORED, f"{cid} is not in data/scorecard.json"
        old, (new, note) = STORED[cid], got[cid]
        assert new != "error", f"{cid}: the wrong function made the check raise: {note}"
        if old == "needs_data" or new == "needs_data":
            assert old == new, f"{cid}: {old} -> {new} with a wrong core function ({note})"
            continue
        assert ORDER[new] <= ORDER[old], f"{cid}: a wrong core function IMPROVED it, {old} -> {new} ({note})"
    return {cid: (STORED[cid], got[cid][0], got[cid][1]) for cid in ids}


def assert_flips(ids, expected=None):
    """No record improves, at least one flips, and the ``expected`` ones reach the status given."""
    result = moves(ids)
    flipped = [cid for cid, (old, new, _) in result.items() if old != new]
    print("flipped:", ", ".join(f"{c} {result[c][0]} -> {result[c][1]}" for c in flipped) or "none")
    assert flipped, "no record moved: " + "; ".join(f"{c}: {o} ({n})" for c, (o, _, n) in result.items())
    for cid, status in (expected or {}).items():
        assert result[cid][1] == status, f"{cid}: {result[cid][1]}, expected {status} ({result[cid][2]})"
    return flipped


def _scaled_bound(name: str, factor: float):
    from semvar import bounds

    orig = getattr(bounds, name)

    def scaled(*a, **k):
        b = orig(*a, **k)
        return bounds.Bound(b.value * factor, b.probability, b.conditions, b.name)

    return scaled


# ----------------------------------------------------------------------------- conformal sets

#: the records whose checks build prediction sets on synthetic models or on the released logits
CONFORMAL = ["ye_review.same_sets", "ye_review.temperature", "ye_review.score_ranking", "ye_review.opposite_orders",
             "ye2024.qwen72b_qa", "ye2024.quantile_rank", "ye2024.released_rank"]


def _every_option(p_cal, y_cal, p_test, alpha, **kwargs):
    return np.ones(np.shape(p_test), dtype=bool)


def test_aps_sets_with_every_option(monkeypatch):
    replace_everywhere(monkeypatch, "semvar.conformal", "aps_sets", _every_option)
    assert_flips(CONFORMAL, {"ye_review.same_sets": "not_replicated"})


def test_lac_sets_with_every_option(monkeypatch):
    replace_everywhere(monkeypatch, "semvar.conformal", "lac_sets", _every_option)
    assert_flips(CONFORMAL, {"ye_review.same_sets": "not_replicated"})


def test_conformal_threshold_at_the_textbook_rank(monkeypatch):
    """The set builders follow the released code (one rank above the textbook threshold); the textbook rank is wrong
    for them, and the records that read the released code's rank see it."""
    orig = importlib.import_module("semvar.conformal").conformal_threshold

    def textbook(scores, alpha, *, quantile="paper"):
        return orig(scores, alpha, quantile="textbook")

    replace_everywhere(monkeypatch, "semvar.conformal", "conformal_threshold", textbook)
    assert_flips(CONFORMAL, {"ye2024.released_rank": "not_replicated"})


# ----------------------------------------------------------------------------- exchangeable concentration

EXCHANGEABLE = ["lin2026.mixture_term", "lin2026.gaussian_tightness", "lin2026.exchangeable_vs_naive",
                "lin2026.iid_underestimates", "lin2026.general_bounded_difference"]
HELM_IDS = ["lin2026.subsample_tight", "lin2026.splithalf", "lin2026.subject_spread", "lin2026.exchangeable_vs_naive",
            "lin2026.iid_underestimates"]


def test_halved_subsample_halfwidth(monkeypatch):
    orig = importlib.import_module("semvar.exchangeable").subsample_halfwidth
    replace_everywhere(monkeypatch, "semvar.exchangeable", "subsample_halfwidth", lambda *a, **k: orig(*a, **k) / 2)
    assert_flips(["lin2026.subsample_bound"], {"lin2026.subsample_bound": "not_replicated"})


def test_halved_beta_subgaussian_proxy(monkeypatch):
    orig = importlib.import_module("semvar.exchangeable").beta_subgaussian_proxy
    replace_everywhere(monkeypatch, "semvar.exchangeable", "beta_subgaussian_proxy", lambda *a, **k: orig(*a, **k) * 0.5)
    assert_flips(EXCHANGEABLE, {"lin2026.mixture_term": "not_replicated"})


def test_helm_answers_all_correct(monkeypatch):
    orig = importlib.import_module("semvar.data").load_helm_mmlu

    def all_correct(*a, **k):
        frame = orig(*a, **k).copy()
        frame["correct"] = 1
        return frame

    replace_everywhere(monkeypatch, "semvar.data", "load_helm_mmlu", all_correct)
    assert_flips(HELM_IDS, dict.fromkeys(["lin2026.splithalf", "lin2026.subsample_tight"], "not_replicated"))


# ----------------------------------------------------------------------------- spectral entropy and its bounds

SPECTRAL = ["budget.sparse_design", "liu2025.theorem32", "liu2025.table1", "liu2025.figure1", "liu2025.k_growth",
            "liu2025.generator_slower", "realtext.spectral_tracks_oracle"]


def test_random_spectral_labels(monkeypatch):
    """Reaches every caller of semvar.spectral.spectral_clusters, the pipeline's small-graph path included (the
    29-answer graphs of realtext.spectral_tracks_oracle go through semvar.pipeline.graph_entropy)."""
    def random_labels(adjacency, k, *args, random_state=None, **kwargs):
        return np.random.default_rng(0).integers(0, k, adjacency.shape[0])

    replace_everywhere(monkeypatch, "semvar.spectral", "spectral_clusters", random_labels)
    result = moves(SPECTRAL)
    for cid in ["budget.sparse_design", "liu2025.theorem32", "liu2025.figure1", "liu2025.k_growth",
                "liu2025.generator_slower"]:
        assert result[cid][1] == "not_replicated", f"{cid}: {result[cid][1]} ({result[cid][2]})"
    # random clusters keep K: their entropy is near log K, which alone tracks the oracle (the record says so), so
    # the Spearman falls (0.29 -> 0.21) without leaving the record's 'partly' band
    rho = float(re.search(r"Spearman (-?[\d.]+)", result["realtext.spectral_tracks_oracle"][2]).group(1))
    assert rho < 0.25, result["realtext.spectral_tracks_oracle"]


def test_constant_partition_entropy(monkeypatch):
    replace_everywhere(monkeypatch, "semvar.entropy", "empirical_entropy", lambda labels: 0.5)
    assert_flips(["liu2025.figure1", "liu2025.k_growth", "liu2025.theorem33", "liu2025.generator_slower"])


def test_ncv_with_a_fixed_k(monkeypatch):
    from semvar.select_k import KSelection

    def fixed(adjacency, k_max, **kwargs):
        return KSelection(2, np.arange(1, k_max + 1), np.zeros(k_max), "ncv", {})

    replace_everywhere(monkeypatch, "semvar.select_k", "ncv", fixed)
    assert_flips(["liu2025.k_selection", "liu2025.k_selection_small_n", "realtext.spectral_tracks_oracle"],
                 {"liu2025.k_selection": "not_replicated"})


def test_auto_rule_answering_one(monkeypatch):
    """The "auto" rule's work (select_k.combine._auto) replaced by one that always answers K = 1: the public
    function, the registry's runner and the pipeline all reach it (the batched engine stands aside)."""
    from semvar.select_k import KSelection

    def one(A, k_max, spectrum=None, O=None):
        return KSelection(1, np.arange(1, k_max + 1), np.zeros(k_max), "auto", {})

    replace_everywhere(monkeypatch, "semvar.select_k.combine", "_auto", one)
    assert_flips(["select_k.accuracy_by_regime", "select_k.auto_near_best"],
                 {"select_k.accuracy_by_regime": "not_replicated"})


def test_no_text_ever_unresolved(monkeypatch):
    """The reading before unresolved texts existed: a text with no TRUE verdict is a meaning of its own even where
    its pairs were not all judged.  The measured unresolved share no longer follows the law, and on the real samples
    the sampled design is answered everywhere, with K inflated."""
    def never(A, O):
        return np.zeros(A.shape[0], dtype=bool)

    replace_everywhere(monkeypatch, "semvar._masks", "unresolved", never)
    assert_flips(["budget.unresolved_law", "budget.sampled_real"], {"budget.unresolved_law": "not_replicated"})


def test_relation_with_a_false_transitivity_violation(monkeypatch):
    from semvar.relation import Violations

    orig = importlib.import_module("semvar.relation").count_violations

    def one_too_many(relation):
        v = orig(relation)
        return Violations(v.reflexivity, v.symmetry, v.transitivity + 1, v.paths, v.n)

    replace_everywhere(monkeypatch, "semvar.relation", "count_violations", one_too_many)
    assert_flips(["liu2025.proposition21"], {"liu2025.proposition21": "not_replicated"})


def test_lemma31_bound_a_hundred_times_too_small(monkeypatch):
    """Lemma 3.1 is loose (the largest simulated error is under a tenth of the bound), so it takes a bound
    a hundred times too small to be caught."""
    replace_everywhere(monkeypatch, "semvar.bounds", "lemma31", _scaled_bound("lemma31", 0.01))
    assert_flips(["liu2025.lemma31", "liu2025.lemma_a6"], {"liu2025.lemma31": "not_replicated"})


def test_lemma_a7_bound_ten_times_too_small(monkeypatch):
    replace_everywhere(monkeypatch, "semvar.bounds", "lemma_a7", _scaled_bound("lemma_a7", 0.1))
    assert_flips(["liu2025.lemmas_a7_a8"], {"liu2025.lemmas_a7_a8": "not_replicated"})


def test_trivial_bounds_are_not_refuted(monkeypatch):
    """Not a wrong function but a true bound (log K, the largest entropy error): with it the refuted results become
    replicated, so their refutations rest on the printed formulas, not on a fixed judgement."""
    from semvar import bounds

    def log_k(n, K, *a, **k):
        return bounds.Bound(math.log(K), 1 - 1 / n, {}, "log K")

    replace_everywhere(monkeypatch, "semvar.bounds", "theorem33", log_k)
    replace_everywhere(monkeypatch, "semvar.bounds", "corollary331", log_k)
    replace_everywhere(monkeypatch, "semvar.bounds", "theorem34", log_k)
    ids = ["liu2025.theorem33", "liu2025.corollary331", "liu2025.theorem34"]
    assert all(STORED[i] == "not_replicated" for i in ids)
    got = verdicts(ids)
    assert all(got[i][0] == "replicated" for i in ids), got


# ----------------------------------------------------------------------------- self-similarity and embeddings

SELFSIM = ["selfsim.examples", "selfsim.worked_example", "regime.selfsim_consistent_reliable"]


def test_constant_self_similarity(monkeypatch):
    replace_everywhere(monkeypatch, "semvar.similarity", "self_similarity", lambda *a, **k: 0.5)
    assert_flips(SELFSIM, dict.fromkeys(["selfsim.examples", "selfsim.worked_example",
                                         "regime.selfsim_consistent_reliable"], "not_replicated"))


def _random_vectors(texts, *a, **k):
    """One random unit vector per text (seeded by how many): embeddings that carry no meaning."""
    texts = list(texts)
    rng = np.random.default_rng(len(texts))
    e = rng.standard_normal((len(texts), 384)).astype(np.float32)
    return e / np.linalg.norm(e, axis=1, keepdims=True)


def test_random_embeddings(monkeypatch):
    replace_everywhere(monkeypatch, "semvar.similarity", "embed", _random_vectors)
    assert_flips(["selfsim.examples", "selfsim.threshold", "selfsim.wrong_answers_pass"],
                 {"selfsim.examples": "not_replicated", "selfsim.threshold": "not_replicated"})


# ----------------------------------------------------------------------------- the real-data records

def test_constant_semantic_entropy_reaches_the_registry(monkeypatch):
    """The measures registry holds its own references: a wrong measure must reach it too."""
    import dataclasses

    from semvar import measures

    def const(*a, **k):
        return 0.5

    replace_everywhere(monkeypatch, "semvar.measures", "semantic_entropy", const)
    m = measures.MEASURES["semantic_entropy"]  # its public function and its validated twin
    monkeypatch.setitem(measures.MEASURES, "semantic_entropy", dataclasses.replace(
        m, **{f.name: const for f in dataclasses.fields(m) if callable(getattr(m, f.name))}))
    assert_flips(["regime.entropy_flags_errors", "regime.more_samples_better_flag"],
                 {"regime.entropy_flags_errors": "not_replicated"})


def test_reversed_auroc(monkeypatch):
    from semvar import evaluation

    auroc, auroc_ci = evaluation.auroc, evaluation.auroc_ci

    def reversed_ci(*a, **k):
        a_, lo, hi = auroc_ci(*a, **k)
        return 1 - a_, 1 - hi, 1 - lo

    replace_everywhere(monkeypatch, "semvar.evaluation", "auroc", lambda *a, **k: 1 - auroc(*a, **k))
    replace_everywhere(monkeypatch, "semvar.evaluation", "auroc_ci", reversed_ci)
    assert_flips(["regime.entropy_flags_errors", "realtext.answer_entropy_auroc"],
                 {"regime.entropy_flags_errors": "not_replicated", "realtext.answer_entropy_auroc": "not_replicated"})


def test_gpt4_verdicts_flipped(monkeypatch):
    """GPT-4 judged the opposite of what it said: the SBM reading of a real LLM judge (p > q) must fail.

    ``humanjudges.human_ceiling`` compares GPT-4 with the human annotators, so a reversed GPT-4 can
    move it either way; it is left out here on purpose.
    """
    from semvar.data import openqa_eval

    load = openqa_eval.load_openqa_eval

    def flipped(*a, **k):
        frame = load(*a, **k).copy()
        frame["gpt4"] = ~frame["gpt4"].astype("boolean")
        return frame

    replace_everywhere(monkeypatch, "semvar.data.openqa_eval", "load_openqa_eval", flipped)
    assert_flips(["liu2025.real_llm_judge_sbm", "humanjudges.llm_judges_phase"],
                 {"liu2025.real_llm_judge_sbm": "not_replicated"})


# ----------------------------------------------------------------------------- the measures, the AUROC and K

REGIME = ["regime.entropy_flags_errors", "regime.spectral_vs_graph_measures", "regime.more_samples_better_flag",
          "regime.auto_finds_k", "regime.error_grows_long_tail", "regime.selfsim_consistent_reliable",
          "regime.von_neumann_variant", "liu2025.judge_is_sbm_real"]


def replace_measure(monkeypatch, name: str, public, compute):
    """Put ``public`` in place of ``semvar.measures.<name>`` everywhere, and ``public`` / ``compute`` in the
    registry's entry (:data:`semvar.measures.MEASURES` holds its own references, which the studies dispatch to)."""
    import dataclasses

    from semvar import measures

    replace_everywhere(monkeypatch, "semvar.measures", name, public)
    m = measures.MEASURES[name]
    monkeypatch.setitem(measures.MEASURES, name, dataclasses.replace(m, function=public, _compute=compute))


def test_constant_eigv(monkeypatch):
    """EigV flags nothing: the records that compare spectral entropy with it must not read the gap as a win."""
    def const(*a, **k):
        return 1.0

    replace_measure(monkeypatch, "eigv", const, const)
    assert_flips(REGIME[:2], {"regime.spectral_vs_graph_measures": "not_replicated"})


def test_semantic_entropy_replaced_by_numsets(monkeypatch):
    """NumSets flags errors nearly as well as semantic entropy, so only a record that knows what semantic entropy
    must equal (the exact-match classes' entropy) can tell them apart."""
    from semvar import measures

    replace_measure(monkeypatch, "semantic_entropy", measures.num_semantic_sets, measures._num_sets)
    assert_flips(REGIME[:3], {"regime.entropy_flags_errors": "not_replicated"})


def test_auroc_alone_reversed(monkeypatch):
    """Only semvar.evaluation.auroc is wrong (its interval, auroc_ci, is not): the records read their point
    estimate from it."""
    from semvar import evaluation

    auroc = evaluation.auroc
    replace_everywhere(monkeypatch, "semvar.evaluation", "auroc", lambda *a, **k: 1 - auroc(*a, **k))
    assert_flips(REGIME[:3], {"regime.entropy_flags_errors": "not_replicated"})


def test_ncv_one_too_many(monkeypatch):
    """NCV answers K + 1: its public function, the registry's runner and chapter 4's study all reach it."""
    import dataclasses

    from semvar.select_k import _registry, cv

    ncv, runner = cv.ncv, cv._ncv_rule

    def plus_one(*a, **k):
        s = ncv(*a, **k)
        return dataclasses.replace(s, k=int(s.k) + 1)

    def runner_plus_one(*a, **k):
        s = runner(*a, **k)
        return dataclasses.replace(s, k=int(s.k) + 1)

    replace_everywhere(monkeypatch, "semvar.select_k.cv", "ncv", plus_one)
    replace_everywhere(monkeypatch, "semvar.select_k.cv", "_ncv_rule", runner_plus_one)
    rule = _registry.RULES["ncv"]
    monkeypatch.setitem(_registry.RULES, "ncv", dataclasses.replace(rule, function=plus_one, runner=runner_plus_one))
    monkeypatch.setitem(_registry.METHODS, "ncv", plus_one)
    assert_flips(["liu2025.k_selection", "liu2025.k_selection_small_n", "select_k.accuracy_by_regime",
                  "realtext.spectral_tracks_oracle"])


def test_random_embeddings_reach_every_embedding_record(monkeypatch):
    """One random unit vector per distinct text: the score then counts exact repeats, which must earn nothing."""
    replace_everywhere(monkeypatch, "semvar.similarity", "embed", _random_vectors)
    assert_flips(["selfsim.consistency", "selfsim.computational_intensity", "regime.selfsim_consistent_reliable"],
                 dict.fromkeys(["selfsim.consistency", "regime.selfsim_consistent_reliable"], "not_replicated"))


def test_plain_quantile_threshold(monkeypatch):
    """np.quantile(s, 1 - alpha), the threshold without the finite-sample correction."""
    replace_everywhere(monkeypatch, "semvar.conformal", "conformal_threshold",
                       lambda scores, alpha, **k: float(np.quantile(np.asarray(scores, dtype=float), 1 - alpha)))
    assert_flips(CONFORMAL + ["ye_review.no_go"], {"ye2024.released_rank": "not_replicated",
                                                    "ye_review.score_ranking": "not_replicated"})


def test_halved_effective_variance(monkeypatch):
    orig = importlib.import_module("semvar.exchangeable").effective_variance
    replace_everywhere(monkeypatch, "semvar.exchangeable", "effective_variance", lambda *a, **k: 0.5 * orig(*a, **k))
    assert_flips(EXCHANGEABLE, dict.fromkeys(["lin2026.mixture_term", "lin2026.general_bounded_difference"],
                                             "not_replicated"))


HUMAN = ["humanjudges.llm_judges_phase", "humanjudges.human_ceiling", "humanjudges.minilm_sas_phase",
         "humanjudges.minilm_sas_separates", "humanjudges.partly_between", "humanjudges.evouna_answerer_dependence"]


def test_human_judge_rates_with_p_and_q_swapped(monkeypatch):
    from semvar.experiments import human_judges

    rates = human_judges.judge_rates

    def swapped(*a, **k):
        r = dict(rates(*a, **k))
        for x, y in (("p", "q"), ("p_ci", "q_ci"), ("k_same", "k_diff"), ("n_same", "n_diff")):
            r[x], r[y] = r[y], r[x]
        r["p_minus_q"] = -r["p_minus_q"]
        r["p_minus_q_ci"] = [-r["p_minus_q_ci"][1], -r["p_minus_q_ci"][0]]
        return r

    replace_everywhere(monkeypatch, "semvar.experiments.human_judges", "judge_rates", swapped)
    assert_flips(HUMAN, dict.fromkeys(["humanjudges.llm_judges_phase", "humanjudges.evouna_answerer_dependence"],
                                      "not_replicated"))


# ----------------------------------------------------------------------------- shuffled targets and data

def _shuffled_wrong(wrong):
    def shuffled(q):
        return np.random.default_rng(3).permutation(wrong(q))
    return shuffled


def test_regime_target_shuffled(monkeypatch):
    """The target (the most frequent answer is wrong) shuffled across questions: every score then flags noise."""
    from semvar.claims import regime

    monkeypatch.setattr(regime, "_wrong", _shuffled_wrong(regime._wrong))
    assert_flips(REGIME, dict.fromkeys(["regime.entropy_flags_errors", "regime.spectral_vs_graph_measures",
                                        "regime.selfsim_consistent_reliable"], "not_replicated"))


def _shuffle_column(monkeypatch, module: str, loader: str, columns, ids):
    orig = getattr(importlib.import_module(module), loader)

    def shuffled(*a, **k):
        frame = orig(*a, **k).copy()
        # one draw, the first seed; a 95 % rule still passes a shuffled target in about one draw of 40 (seed 5
        # leaves realtext.answer_entropy_auroc's interval at 0.505-0.528), which is no improvement but no flip
        rng = np.random.default_rng(0)
        for c in columns:
            frame[c] = rng.permutation(frame[c].to_numpy())
        return frame

    replace_everywhere(monkeypatch, module, loader, shuffled)
    return moves(ids)


@pytest.mark.parametrize("module, loader, columns, ids", [
    ("semvar.data.openqa_eval", "load_openqa_eval", ["human"], HUMAN[:2] + ["liu2025.real_llm_judge_sbm"]),
    ("semvar.data", "load_helm_mmlu", ["correct"], HELM_IDS),
    ("semvar.experiments.realtext", "answer_entropy_table", ["majority_wrong", "confident_wrong"],
     ["realtext.answer_entropy_auroc", "realtext.consistent_but_wrong", "regime.selfsim_consistent_reliable"]),
])
def test_a_shuffle_improves_no_record(monkeypatch, module, loader, columns, ids):
    """A target or data column shuffled: the data no longer carry what the records test, so no verdict may get
    better (the test of moves); a shuffle that changes nothing at all would be a record blind to its data."""
    result = _shuffle_column(monkeypatch, module, loader, columns, ids)
    print({c: f"{o} -> {n}" for c, (o, n, _) in result.items()})
    assert any(o != n for o, n, _ in result.values()), result


# ----------------------------------------------------------------------------- interval widths


@pytest.mark.parametrize("factor", [1.3, 3.0])
def test_a_delong_interval_too_narrow_improves_no_soft_verdict(monkeypatch, factor):
    """Gemma's soft AUROC is a near-tie (lower end 0.497): an interval too narrow by 1.3 would lift it over 0.5.
    The record checks DeLong's standard error against a bootstrap's first, so it cannot improve."""
    from semvar import evaluation

    orig = evaluation.auroc_ci

    def narrower(*a, **k):
        auc, low, high = orig(*a, **k)
        return auc, auc - (auc - low) / factor, auc + (high - auc) / factor

    replace_everywhere(monkeypatch, "semvar.evaluation", "auroc_ci", narrower)
    result = moves(["localjudge.soft_ranks"])
    old, new, note = result["localjudge.soft_ranks"]
    assert (old, new) == ("not_replicated", "not_replicated") and "bootstrap" in note, result
