"""semvar.experiments.regime (one model's samples) on small inputs; its records are in tests/claims/test_regime.py."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from semvar.experiments import regime as R
from semvar.measures import MEASURES, Measure

# --------------------------------------------------------------------------- answers and correctness


def test_answer_classes_normalise():
    assert R.answer_classes(["The Beatles", "beatles!", "Queen", "queen", ""]).tolist() == [0, 0, 1, 1, 2]


def test_most_frequent_tie_goes_to_the_answer_seen_first():
    assert R.most_frequent(["B", "A", "A", "B", "C"]) == (0, 0.4)
    assert R.most_frequent(["C", "A", "A"]) == (1, pytest.approx(2 / 3))


@pytest.mark.parametrize("answer, ref, rule, expected", [
    ("The Eiffel Tower", "Eiffel tower.", "exact", True),
    ("Eiffel", "Eiffel Tower", "exact", False),
    ("Annie and Clarabel", "Annie", "contains", True),
    ("Annieville", "Annie", "contains", False),  # whole words only
    ("Arundathi Roy", "Arundhati Roy", "rouge", True),  # "roy" shared: 2*1/(2+2) = 0.5
    ("Red", "Gold", "rouge", False),
    ("", "Gold", "contains", False),
])
def test_is_correct_rules(answer, ref, rule, expected):
    assert R.is_correct(answer, ref, rule) is expected


def test_is_correct_bad_input():
    with pytest.raises(ValueError, match="rule"):
        R.is_correct("a", "a", "fuzzy")
    with pytest.raises(ValueError, match="answer"):
        R.is_correct(3, "a")
    with pytest.raises(ValueError, match="reference"):
        R.is_correct("a", None)


def test_answer_classes_bad_input():
    with pytest.raises(ValueError):
        R.answer_classes("abc")
    with pytest.raises(ValueError):
        R.most_frequent([1, 2])


# --------------------------------------------------------------------------- judges and counts


def _cos(n, pairs_high=()):
    C = np.eye(n) + 0.1 * (1 - np.eye(n))
    for i, j in pairs_high:
        C[i, j] = C[j, i] = 0.95
    return C


def test_judge_matrices_hand_case():
    texts = ["Paris", "paris", "Paris France", "London"]
    m = R.judge_matrices(texts, _cos(4, [(0, 1), (0, 2), (1, 2)]))
    assert list(m) == list(R.JUDGES)
    exact, _ = m["exact"]
    assert exact.astype(int).tolist() == [[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
    lex_v, lex_s = m["lexical"]
    assert lex_s[0, 2] == pytest.approx(0.5) and lex_v[0, 2]  # {paris} vs {paris, france}
    assert m["minilm90"][0][0, 2] and not m["minilm90"][0][0, 3]
    for V, S in m.values():
        assert not V.diagonal().any() and np.all(S.diagonal() == 1) and (V == V.T).all()


def test_judge_matrices_bad_cosines():
    with pytest.raises(ValueError, match="shape"):
        R.judge_matrices(["a", "b"], np.eye(3))
    with pytest.raises(ValueError, match="symmetric"):
        R.judge_matrices(["a", "b"], np.array([[1, 0.2], [0.3, 1]]))


def test_pq_counts_hand_case_and_bad_input():
    V = np.array([[0, 1, 1, 0], [1, 0, 0, 0], [1, 0, 0, 1], [0, 0, 1, 0]], dtype=bool)
    # labels 0,0,1,1: same pairs (0,1) TRUE, (2,3) TRUE; different pairs (0,2) TRUE, (0,3), (1,2), (1,3) FALSE
    assert R.pq_counts(V, [0, 0, 1, 1]) == (2, 2, 1, 4)
    # a negative label is an unknown class: its pairs are left out
    assert R.pq_counts(V, [0, 0, 1, -1]) == (1, 1, 1, 2)
    with pytest.raises(ValueError, match="shapes"):
        R.pq_counts(V, [0, 1])


def test_anchored_counts_leave_out_two_wrong_answers():
    V = np.ones((4, 4), dtype=bool)
    # right, right, wrong, wrong: one same pair, four different pairs, (2, 3) left out
    assert R._anchored_counts(V, np.array([True, True, False, False])) == (1, 1, 4, 4)


def test_dispersion_hand_case():
    stat, dof, p = R.dispersion([2, 8], [10, 10])
    # pooled 0.5: (2-5)^2/2.5 + (8-5)^2/2.5 = 7.2
    assert stat == pytest.approx(7.2) and dof == 1 and p == pytest.approx(0.00729, abs=1e-4)


@pytest.mark.parametrize("k, n, match", [
    ([1, 2], [3], "same length"),
    ([4, 1], [3, 3], "0 <= k <= n"),
    ([1], [3], "two groups"),
    ([0, 0], [3, 3], "strictly between"),
])
def test_dispersion_bad_input(k, n, match):
    with pytest.raises(ValueError, match=match):
        R.dispersion(k, n)


# --------------------------------------------------------------------------- one question, scores


def test_question_row_on_a_clean_question():
    answers = ["Paris", "Paris", "paris", "London", "London", "Rome"]
    C = _cos(6, [(0, 1), (0, 2), (1, 2), (3, 4)])
    row = R.question_row(answers, "Paris", C, np.eye(6))
    h = -(0.5 * math.log(0.5) + (1 / 3) * math.log(1 / 3) + (1 / 6) * math.log(1 / 6))
    assert row["k_exact"] == 3 and row["singletons"] == 1 and row["h_exact"] == pytest.approx(h)
    assert row["mf_correct_exact"] and row["accuracy_exact"] == pytest.approx(0.5)
    for j in R.JUDGES:  # every judge sees the clean partition here
        assert row[f"{j}:semantic_entropy"] == pytest.approx(h)
        assert row[f"{j}:von_neumann"] == pytest.approx(h)
        assert row[f"{j}:k_auto"] == 3 == row[f"{j}:k_rule"]
    assert row["minilm90:exact_k_same"] == row["minilm90:exact_n_same"] == 4
    assert row["minilm90:exact_k_diff"] == 0
    assert row["self_similarity"] == pytest.approx(1.0)  # orthonormal embeddings: 1 - mean cosine 0


def test_question_row_bad_input():
    with pytest.raises(ValueError, match="two answers"):
        R.question_row(["a"], "a", np.eye(1))
    with pytest.raises(ValueError, match="reference"):
        R.question_row(["a", "b"], 1, np.eye(2))
    with pytest.raises(ValueError, match="cosines"):
        R.question_row(["a", "b"], "a", np.eye(3))
    with pytest.raises(ValueError, match="random_state"):
        R.question_row(["a", "b"], "a", np.eye(2), random_state=-1)


def test_score_table_and_its_checks():
    q = pd.DataFrame({"u": [0.1, 0.2, 0.8, 0.9, 0.3, 0.7], "v": [0.9, 0.8, 0.1, 0.2, 0.7, 0.3],
                      "ok": [True, True, False, False, True, False]})
    t = R.score_table(q, ["u", "v"], target="ok")
    assert t.loc["u", "auroc"] == 1.0 and t.loc["v", "auroc"] == 0.0
    assert t.loc["u", "auarc"] > t.loc["v", "auarc"]
    with pytest.raises(ValueError, match="target"):
        R.score_table(q, ["u"], target="nope")
    with pytest.raises(ValueError, match="columns"):
        R.score_table(q, ["w"], target="ok")
    with pytest.raises(ValueError, match="DataFrame"):
        R.score_table([1, 2], ["u"], target="ok")


def test_disagreement():
    q = pd.DataFrame({"a": [1, 2, 3, 4], "b": [1, 2, 4, 3]})
    d = R.disagreement(q, ["a", "b"], top=2)
    assert d.index.tolist() == [2, 3] and (d["spread"] == 0.25).all()
    with pytest.raises(ValueError, match="two"):
        R.disagreement(q, ["a"])
    with pytest.raises(ValueError, match="top"):
        R.disagreement(q, ["a", "b"], top=0)


def test_cosine_matrices():
    E = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 4.0], [3.0, 4.0]])
    C = R.cosine_matrices(E, 2)
    assert C.shape == (2, 2, 2) and C[0, 0, 1] == 0.0 and C[1, 0, 1] == 1.0
    with pytest.raises(ValueError, match="multiple"):
        R.cosine_matrices(E, 3)


def _tiny_frame():
    answers = [("Paris", "Paris", "Paris", "London"), ("Rome", "Milan", "Turin", "Rome"),
               ("Oslo", "Oslo", "Oslo", "Oslo"), ("Bern", "Zurich", "Geneva", "Basel")]
    return pd.DataFrame({"id": ["a", "b", "c", "d"], "answers": answers,
                         "reference": ["Paris", "Rome", "Oslo", "Bern"]})


def test_study_questions_and_subsampling_on_a_tiny_frame():
    f = _tiny_frame()
    cos = np.stack([np.eye(4)] * 4)
    q = R.study_questions(f, cos, judges=("exact",))
    assert q.index.tolist() == ["a", "b", "c", "d"]
    assert q["k_exact"].tolist() == [2, 3, 1, 4]
    right = q["mf_correct_exact"].to_numpy()
    assert right.tolist() == [True, True, True, True]  # in "d" four singletons tie: "Bern" comes first
    right = np.array([True, False, True, False])
    rows, bias = R.subsample_rows(f, cos, right, 3, 0, judges=("exact",))
    names = {r["measure"] for r in rows}
    assert "exact:semantic_entropy" in names and "exact:von_neumann" in names
    assert bias["exact:abs_error"] == 0.0 and bias["exact:k_found"] == 1.0
    # the same draw gives the same subsample
    assert R.subsample_rows(f, cos, right, 3, 0, judges=("exact",))[1] == bias
    with pytest.raises(ValueError, match="judges"):
        R.subsample_rows(f, cos, right, 3, 0, judges=("gpt",))
    with pytest.raises(ValueError, match="n_sub"):
        R.subsample_rows(f, cos, right, 5, 0)
    with pytest.raises(ValueError, match="cosines"):
        R.study_questions(f, cos[:2])


# --------------------------------------------------------------------------- the registry's measures in the study


def test_the_study_lists_the_registry():
    keys = list(MEASURES)
    graph, free = R.graph_measures(), R.free_measures()
    assert graph == [k for k in keys if MEASURES[k].needs in R.GRAPH_NEEDS] + list(R.VARIANTS)
    assert free == [k for k in keys if MEASURES[k].needs in R.FREE_NEEDS] + list(R.FREE_EXTRAS)
    assert sorted(R.graph_measures(variants=False) + R.free_measures(extras=False)) == sorted(keys)
    labels = R.measure_labels()
    assert set(labels) == set(graph) | set(free) and labels["eigv"] == MEASURES["eigv"].label
    lin = [k for k in keys if MEASURES[k].citation == "lin2024generating" and MEASURES[k].needs == "verdicts"]
    assert R.lin_peers() == lin and lin[:3] == ["eigv", "ecc", "deg"]
    with pytest.raises(ValueError, match="variants"):
        R.graph_measures(variants=1)
    with pytest.raises(ValueError, match="extras"):
        R.free_measures(extras="yes")


def _share_of_true(verdicts):
    """A stand-in measure for the tests: the share of TRUE verdicts."""
    return float(np.mean(verdicts))


@pytest.fixture
def a_new_measure(monkeypatch):
    """A measure registered after the stored study was written (removed again after the test)."""
    assert "stand_in_share" not in MEASURES
    monkeypatch.setitem(MEASURES, "stand_in_share", Measure("stand_in_share", _share_of_true, "verdicts", "share TRUE",
                                                        "liu2025semantic", lambda V: float(np.mean(V))))
    return "stand_in_share"


def test_a_new_measure_is_computed_and_missed(a_new_measure):
    graph = R.graph_measures()
    assert graph[-3:] == [a_new_measure, *R.VARIANTS]  # after the registered ones, before the variants
    row = R.question_row(["Paris", "Paris", "London", "Rome"], "Paris", np.eye(4))
    assert row[f"exact:{a_new_measure}"] == pytest.approx(2 / 16)  # the one pair Paris-Paris, both ways
    f, cos = _tiny_frame(), np.stack([np.eye(4)] * 4)  # what the regeneration computes: the new measure too
    q = R.study_questions(f, cos)
    rows, _ = R.subsample_rows(f, cos, np.array([True, False, True, False]), 3, 0)
    assert f"exact:{a_new_measure}" in q.columns and f"rouge:{a_new_measure}" in {r["measure"] for r in rows}
    # no embeddings given here: every score but those of embeddings (self-similarity) is there, the new one included
    embedded = [k for k in R.free_measures() if k in MEASURES and MEASURES[k].needs == "embeddings"]
    assert R.missing_measures(q, pd.DataFrame(rows)) == embedded + [f"N=3: {k}" for k in embedded]
    study = R.load_study()
    missing = R.missing_measures(study["questions"], study["subsample"])
    assert missing[: len(R.JUDGES)] == [f"{j}:{a_new_measure}" for j in R.JUDGES]
    assert f"N=3: exact:{a_new_measure}" in missing and len(missing) == len(R.JUDGES) * (1 + len(R.SUBSAMPLE_N))


def test_missing_measures_checks_its_input():
    q = pd.DataFrame({"top_share": [0.5]})
    assert "one_minus_top_share" not in R.missing_measures(q)  # derived from top_share
    assert "one_minus_top_share" in R.missing_measures(q.drop(columns="top_share"))
    with pytest.raises(ValueError, match="questions"):
        R.missing_measures({"a": [1]})
    with pytest.raises(ValueError, match="subsample"):
        R.missing_measures(q, pd.DataFrame({"N": [3]}))


@pytest.fixture(scope="module")
def stored_study():
    return R.load_study()


@pytest.mark.parametrize("key", [*MEASURES, *R.VARIANTS, *R.FREE_EXTRAS])
def test_the_stored_study_scores_every_measure(stored_study, key):
    """Chapter 10's tables and records read every registered measure from the stored study: none may be absent."""
    missing = [c for c in R.missing_measures(stored_study["questions"], stored_study["subsample"])
               if c.rsplit(":", 1)[-1].strip() == key]
    assert not missing, (f"the stored study (data/regime_*) has no {key!r} ({len(missing)} columns, e.g. "
                         f"{missing[:3]}): regenerate it with `{R.REGENERATE}`, re-execute "
                         "notebooks/10_one_model_samples.md and merge the regime records into data/scorecard.json")
