"""Every public function, fed random bad input: a clear ValueError or TypeError, never a bare internal error.

Each case names a function and a valid call; hypothesis replaces one
argument at a time with junk (None, booleans, NaN and infinities, negative
and zero numbers, strings, complex numbers, ragged, empty, 3-D and object
arrays, dictionaries).  The call must either succeed or raise ValueError or
TypeError with a message; an IndexError, KeyError, AttributeError,
ZeroDivisionError, overflow or a numpy/scipy internal error fails the test.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from semvar import (
    bounds,
    conformal,
    corpus,
    entropy,
    evaluation,
    exchangeable,
    graph,
    judges,
    pipeline,
    relation,
    select_k,
    similarity,
    spectral,
    tables,
)
from semvar.data import responses
from semvar.llm import parse_verdict, render_prompt

A = np.kron(np.eye(2), np.ones((3, 3))) - np.eye(6)
P3 = [[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4], [0.2, 0.2, 0.6]]
Y = [0, 1, 2, 2]
LABELS = [0, 0, 0, 1, 1, 1]
R = relation.relation_from_partition([0, 0, 1])
E = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0]])
TABLE = pd.DataFrame({"model": ["m", "m"], "item_id": [0, 1], "correct": [1, 0]})

#: (name, function, positional arguments, keyword arguments) of a valid call
CASES = [
    ("corpus.make_corpus", corpus.make_corpus, (12, [0.5, 0.5]), {"random_state": 0}),
    ("corpus.realised_sizes", corpus.realised_sizes, (12, [0.5, 0.5]), {}),
    ("corpus.parse_meaning", corpus.parse_meaning, ("John likes running and caving.",), {}),
    ("relation.check_relation", relation.check_relation, (R,), {}),
    ("relation.relation_from_partition", relation.relation_from_partition, ([0, 0, 1],), {}),
    ("relation.partition_from_relation", relation.partition_from_relation, (R,), {}),
    ("relation.count_violations", relation.count_violations, (R,), {}),
    ("relation.closure_partition", relation.closure_partition, (R,), {}),
    ("judges.OracleJudge", judges.OracleJudge, ([0, 1, 0],), {}),
    ("judges.SBMJudge", judges.SBMJudge, ([0, 1, 0], 0.9, 0.1), {"random_state": 0}),
    ("judges.BlockJudge", judges.BlockJudge, ([0, 1, 0], [[0.9, 0.1], [0.1, 0.9]]), {"random_state": 0}),
    ("judges.estimate_pq", judges.estimate_pq, ([True, False], [0, 0, 1], [[0, 1], [0, 2]]), {}),
    ("graph.check_judged", graph.check_judged, ([[0, 1], [1, 2]], [True, False], 3), {}),
    ("graph.all_pairs", graph.all_pairs, (4,), {}),
    ("graph.adjacency_from_verdicts", graph.adjacency_from_verdicts, (3, [[0, 1], [1, 2]], [True, False]), {}),
    ("graph.sample_sbm", graph.sample_sbm, ([3, 2], 0.9, 0.1), {"random_state": 0}),
    ("graph.block_labels", graph.block_labels, ([2, 3],), {}),
    ("graph.collapse_duplicates", graph.collapse_duplicates, (["a", "b", "a"],), {}),
    ("graph.random_pairs", graph.random_pairs, (6, 0.5), {"random_state": 0}),
    ("graph.design_all_pairs", graph.design_all_pairs, (judges.OracleJudge([0, 1, 0]), ["a", "b", "c"]), {}),
    ("graph.design_random", graph.design_random, (judges.OracleJudge([0, 1, 0]), ["a", "b", "c"], 0.5),
     {"random_state": 0}),
    ("graph.design_greedy", graph.design_greedy, (judges.OracleJudge([0, 1, 0]), ["a", "b", "c"]), {}),
    ("graph.budget_snr", graph.budget_snr, (100, 0.5, 0.9, 0.1, [0.5, 0.5]), {}),
    ("graph.pairs_needed", graph.pairs_needed, (100, 0.9, 0.1, [0.5, 0.5]), {}),
    ("spectral.spectral_matrix", spectral.spectral_matrix, (A,), {"laplacian": "normalized"}),
    ("spectral.spectral_embedding", spectral.spectral_embedding, (A, 2), {}),
    ("spectral.spectral_clusters", spectral.spectral_clusters, (A, 2), {"random_state": 0, "n_init": 2}),
    ("spectral.canonical_labels", spectral.canonical_labels, ([3, 3, 1],), {}),
    ("select_k.eigengap", select_k.eigengap, (A, 3), {}),
    ("select_k.bethe_hessian", select_k.bethe_hessian, (A, 3), {}),
    ("select_k.choose_k", select_k.choose_k, (A, "eigengap", 3), {}),
    ("entropy.empirical_entropy", entropy.empirical_entropy, ([0, 0, 1],), {}),
    ("entropy.entropy_from_counts", entropy.entropy_from_counts, ([2, 1],), {}),
    ("bounds.h", bounds.h, (2.0,), {}),
    ("bounds.miscluster_error", bounds.miscluster_error, ([0, 0, 1], [1, 1, 0]), {}),
    ("bounds.lemma31", bounds.lemma31, (100, 2, 40, 3), {}),
    ("bounds.corollary331", bounds.corollary331, (100, 2, 1.0, 0.5), {}),
    ("bounds.lemma_a7", bounds.lemma_a7, (100, 2), {}),
    ("bounds.lemma_a8", bounds.lemma_a8, (100, 2, 0.3), {}),
    ("similarity.self_similarity", similarity.self_similarity, (E,), {}),
    ("similarity.cross_similarity", similarity.cross_similarity, (E, E), {}),
    ("similarity.self_similarity_by_group", similarity.self_similarity_by_group, (E, [0, 0, 1]), {}),
    ("pipeline.graph_entropy", pipeline.graph_entropy, (A, 2), {"random_state": 0}),
    ("pipeline.semantic_spectral_entropy", pipeline.semantic_spectral_entropy,
     (["a", "b", "c", "d"], judges.OracleJudge([0, 0, 1, 1]), 2), {"random_state": 0}),
    ("exchangeable.effective_variance", exchangeable.effective_variance, ([0.1, 0.2], 0.01), {}),
    ("exchangeable.tail_bound", exchangeable.tail_bound, (0.1, 0.01), {}),
    ("exchangeable.halfwidth", exchangeable.halfwidth, (0.01, 0.05), {}),
    ("exchangeable.hoeffding_halfwidth", exchangeable.hoeffding_halfwidth, (100, 0.05), {}),
    ("exchangeable.wald_halfwidth", exchangeable.wald_halfwidth, (0.3, 100), {}),
    ("exchangeable.subsample_contrast", exchangeable.subsample_contrast, (2, 5), {}),
    ("exchangeable.contrast_variance_proxy", exchangeable.contrast_variance_proxy, ([1.0, -1.0],), {}),
    ("exchangeable.subsample_halfwidth", exchangeable.subsample_halfwidth, (10, 100, 0.05), {}),
    ("exchangeable.subsample_size", exchangeable.subsample_size, (0.05, 100, 0.05), {}),
    ("exchangeable.serfling_halfwidth", exchangeable.serfling_halfwidth, (10, 100, 0.05), {}),
    ("exchangeable.beta_variance", exchangeable.beta_variance, (2.0, 3.0), {}),
    ("exchangeable.beta_from_mean_sd", exchangeable.beta_from_mean_sd, (0.4, 0.1), {}),
    ("exchangeable.beta_subgaussian_proxy", exchangeable.beta_subgaussian_proxy, (2.0, 3.0), {}),
    ("exchangeable.beta_proxy_upper_bound", exchangeable.beta_proxy_upper_bound, (2.0, 3.0), {}),
    ("exchangeable.bernoulli_subgaussian_proxy", exchangeable.bernoulli_subgaussian_proxy, (0.3,), {}),
    ("exchangeable.fit_beta_binomial", exchangeable.fit_beta_binomial, ([3, 7, 5], [10, 10, 10]), {}),
    ("exchangeable.macro_halfwidth", exchangeable.macro_halfwidth, ([10, 20], 0.01, 0.05), {}),
    ("exchangeable.iid_macro_halfwidth", exchangeable.iid_macro_halfwidth, ([10, 20], 0.05), {}),
    ("exchangeable.micro_halfwidth", exchangeable.micro_halfwidth, ([10, 20], 0.01, 0.05), {}),
    ("exchangeable.paired_halfwidth", exchangeable.paired_halfwidth, ([1, 0, 1, 1], [1, 1, 0, 1]), {}),
    ("conformal.softmax", conformal.softmax, ([[1.0, 2.0, 0.5]],), {}),
    ("conformal.quantile_rank", conformal.quantile_rank, (100, 0.1), {}),
    ("conformal.min_calibration_size", conformal.min_calibration_size, (0.1,), {}),
    ("conformal.conformal_threshold", conformal.conformal_threshold, ([0.1, 0.5, 0.3, 0.9, 0.2], 0.2), {}),
    ("conformal.lac_scores", conformal.lac_scores, (P3, Y), {}),
    ("conformal.aps_scores", conformal.aps_scores, (P3, Y), {}),
    ("conformal.lac_sets", conformal.lac_sets, (P3, Y, P3, 0.5), {}),
    ("conformal.aps_sets", conformal.aps_sets, (P3, Y, P3, 0.5), {}),
    ("conformal.set_size", conformal.set_size, ([[True, False], [True, True]],), {}),
    ("conformal.coverage", conformal.coverage, ([[True, False], [True, True]], [0, 1]), {}),
    ("conformal.accuracy", conformal.accuracy, (P3, Y), {}),
    ("conformal.inclusion_probabilities", conformal.inclusion_probabilities, ([[True, False], [True, True]],), {}),
    ("llm.parse_verdict", parse_verdict, ("TRUE",), {}),
    ("llm.render_prompt", render_prompt, ("liu2025", "a", "b"), {}),
    ("data.validate_responses", responses.validate_responses, (TABLE,), {}),
    ("data.response_matrix", responses.response_matrix, (TABLE,), {"n_items": 3}),
    ("tables.show_table", tables.show_table, (TABLE,),
     {"caption": "c", "name": "t", "digits": 2, "index": False, "display": False}),
]

junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([float("nan"), float("inf"), -float("inf"), -1.5, 0.0, 1e308, -1e308, 5e-324, 2.5]),
    st.text(max_size=4),
    st.complex_numbers(max_magnitude=5, allow_nan=False, allow_infinity=False),
    st.lists(st.integers(-2, 2), max_size=4),
    # bounded: a list such as [1e9] is a valid size that would only allocate memory, not a bad input
    st.lists(st.one_of(st.floats(-100, 100), st.sampled_from([float("nan"), float("inf"), 0.5])), max_size=4),
    st.lists(st.lists(st.integers(-1, 2), max_size=3), max_size=3),  # often ragged
    st.sampled_from([
        np.zeros((0,)), np.zeros((0, 0)), np.zeros((2, 2, 2)), np.full((3, 3), np.nan), -np.eye(3),
        np.array([[0, 1], [0, 0]]), np.array(["a", "b"]), np.array([1, "x"], dtype=object), {"a": 1}, object(),
        np.ones((6, 6)) * (1 + 1j), A * 1e308, np.array([[0.0, 1.0], [1.0, 0.0]]),
    ]),
)

ALLOWED = (ValueError, TypeError)


@pytest.mark.parametrize("name, fn, args, kwargs", CASES, ids=[c[0] for c in CASES])
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_bad_input_raises_a_clear_error(name, fn, args, kwargs, data):
    slots = [("arg", i) for i in range(len(args))] + [("kw", k) for k in kwargs]
    where = data.draw(st.sampled_from(slots), label="argument replaced")
    value = data.draw(junk, label="bad value")
    a, kw = list(args), dict(kwargs)
    if where[0] == "arg":
        a[where[1]] = value
    else:
        kw[where[1]] = value
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn(*a, **kw)
        except ALLOWED as exc:
            assert str(exc).strip(), f"{name}: {type(exc).__name__} without a message"
        except Exception as exc:  # noqa: BLE001 - the point of the test
            pytest.fail(f"{name} with {where} = {value!r} raised {type(exc).__name__}: {exc}")


@pytest.mark.parametrize("name, fn, args, kwargs", CASES, ids=[c[0] for c in CASES])
def test_the_valid_calls_are_valid(name, fn, args, kwargs):
    fn(*args, **kwargs)  # otherwise the property above would test nothing but the first check


# --------------------------------------------------------------------------- numpy masked arrays
def _m(values, masked_at=-1):
    """``values`` as a masked array with the entry (or row) at ``masked_at`` masked."""
    arr = np.asarray(values)
    mask = np.zeros(arr.shape, dtype=bool)
    mask[masked_at] = True
    return np.ma.MaskedArray(arr, mask=mask)


SETS = np.array([[True, False], [True, True]])
PAIRS = [[0, 1], [1, 2]]

#: (name, call with a masked argument, the argument's name): refused, the message names the argument
MASKED_REFUSED = [
    ("entropy.entropy_from_counts", lambda: entropy.entropy_from_counts(_m([2, 1, 3])), "counts"),
    ("evaluation.bootstrap_ci", lambda: evaluation.bootstrap_ci(np.mean, _m([1.0, 2.0, 3.0])), r"arrays\[0\]"),
    ("evaluation.bootstrap_ci strata",
     lambda: evaluation.bootstrap_ci(np.mean, [1.0, 2.0, 3.0], strata=_m([0, 0, 1])), "strata"),
    ("conformal.softmax", lambda: conformal.softmax(_m([[1.0, 2.0, 0.5]], 0)), "logits"),
    ("conformal.conformal_threshold", lambda: conformal.conformal_threshold(_m([0.1, 0.5, 0.3, 0.9, 0.2]), 0.2),
     "scores"),
    ("conformal.lac_scores p", lambda: conformal.lac_scores(_m(P3), Y), "p"),
    ("conformal.lac_scores y", lambda: conformal.lac_scores(P3, _m(Y)), "y"),
    ("conformal.aps_scores", lambda: conformal.aps_scores(P3, _m(Y)), "y"),
    ("conformal.lac_sets p_cal", lambda: conformal.lac_sets(_m(P3), Y, P3, 0.5), "p_cal"),
    ("conformal.lac_sets y_cal", lambda: conformal.lac_sets(P3, _m(Y), P3, 0.5), "y_cal"),
    ("conformal.aps_sets p_test", lambda: conformal.aps_sets(P3, Y, _m(P3), 0.5), "p_test"),
    ("conformal.set_size", lambda: conformal.set_size(_m(SETS)), "sets"),
    ("conformal.coverage", lambda: conformal.coverage(SETS, _m([0, 1])), "y"),
    ("conformal.accuracy", lambda: conformal.accuracy(_m(P3), Y), "scores"),
    ("conformal.inclusion_probabilities", lambda: conformal.inclusion_probabilities(_m(SETS)), "sets"),
    ("conformal.ye_protocol", lambda: conformal.ye_protocol(_m(np.eye(20, 4)), np.zeros(20, int)), r"logits\[''\]"),
    ("conformal.ye_protocol answers", lambda: conformal.ye_protocol(np.eye(20, 4), _m(np.zeros(20, int))), "answers"),
    ("exchangeable.effective_variance", lambda: exchangeable.effective_variance(_m([0.1, 0.2]), 0.01), "c"),
    ("exchangeable.tail_bound", lambda: exchangeable.tail_bound(_m([0.1, 0.2]), 0.01), "t"),
    ("exchangeable.contrast_variance_proxy", lambda: exchangeable.contrast_variance_proxy(_m([1.0, -1.0])), "a"),
    ("exchangeable.macro_halfwidth", lambda: exchangeable.macro_halfwidth(_m([10, 20]), 0.01, 0.05), "trials"),
    ("exchangeable.iid_macro_halfwidth", lambda: exchangeable.iid_macro_halfwidth(_m([10, 20]), 0.05), "trials"),
    ("exchangeable.micro_halfwidth", lambda: exchangeable.micro_halfwidth([10, 20], _m([0.1, 0.2]), 0.05),
     "sigma2_mix"),
    ("graph.adjacency_from_verdicts", lambda: graph.adjacency_from_verdicts(3, _m(PAIRS), [True, False]), "pairs"),
    ("graph.check_judged", lambda: graph.check_judged(_m(PAIRS), [True, False], 3), "pairs"),
    ("graph.judge_graph", lambda: graph.judge_graph(judges.OracleJudge([0, 1, 0]), list("abc"), _m(PAIRS)), "pairs"),
    ("graph.block_labels", lambda: graph.block_labels(_m([2, 3])), "sizes"),
    ("graph.sample_sbm sizes", lambda: graph.sample_sbm(_m([3, 2]), 0.9, 0.1), "sizes"),
    ("graph.sample_sbm p", lambda: graph.sample_sbm([3, 2], _m([[0.9, 0.1], [0.1, 0.9]], 0)), "p"),
    ("graph.refine_partition pairs", lambda: graph.refine_partition(3, _m(PAIRS), [True, False]), "pairs"),
    ("graph.refine_partition labels",
     lambda: graph.refine_partition(3, PAIRS, [True, False], labels=_m([0, 0, 1])), "labels"),
    ("graph.design_greedy order",
     lambda: graph.design_greedy(judges.OracleJudge([0, 1, 0]), list("abc"), order=_m([2, 0, 1])), "order"),
    ("graph.design_representatives order",
     lambda: graph.design_representatives(judges.OracleJudge([0, 1, 0]), list("abc"), order=_m([2, 0, 1])), "order"),
    ("judges.OracleJudge labels", lambda: judges.OracleJudge(_m([0, 1, 0])), "labels"),
    ("judges.OracleJudge.pairs", lambda: judges.OracleJudge([0, 1, 0]).pairs(list("abc"), _m(PAIRS)), "pairs"),
    ("judges.BlockJudge B", lambda: judges.BlockJudge([0, 1], _m([[0.9, 0.1], [0.1, 0.9]], 0)), "B"),
    ("judges.EmbeddingJudge.pairs",
     lambda: judges.EmbeddingJudge(encode=lambda t: np.ones((len(t), 2))).pairs(list("abc"), _m(PAIRS)), "pairs"),
    ("judges.LexicalJudge.pairs", lambda: judges.LexicalJudge().pairs(list("abc"), _m(PAIRS)), "pairs"),
    ("judges.ExactMatchJudge.pairs", lambda: judges.ExactMatchJudge().pairs(list("abc"), _m(PAIRS)), "pairs"),
    ("judges.RougeJudge.pairs", lambda: judges.RougeJudge().pairs(list("abc"), _m(PAIRS)), "pairs"),
    ("judges.estimate_pq labels", lambda: judges.estimate_pq([True, False], _m([0, 0, 1]), PAIRS), "labels"),
    ("judges.estimate_pq pairs", lambda: judges.estimate_pq([True, False], [0, 0, 1], _m(PAIRS)), "pairs"),
    ("bounds.miscluster_error", lambda: bounds.miscluster_error([0, 0, 1], _m([1, 1, 0])), "est_labels"),
]


@pytest.mark.parametrize("name, call, arg", MASKED_REFUSED, ids=[c[0] for c in MASKED_REFUSED])
def test_a_masked_array_is_refused_where_a_mask_has_no_meaning(name, call, arg):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy warns when it turns a masked element into NaN: the mask never reaches it
        with pytest.raises(ValueError, match=rf"^{arg} is a masked array with \d+ masked (entry|entries) \(of \d+\); this function does not read a mask"):
            call()


#: (name, call with a masked argument, the same call with the masked rows left out)
MASKED_HONOURED = [
    ("entropy.empirical_entropy", lambda: entropy.empirical_entropy(_m([0, 0, 1, 1, 2])),
     lambda: entropy.empirical_entropy([0, 0, 1, 1])),
    ("evaluation.auroc", lambda: evaluation.auroc(_m([0.1, 0.2, 0.9, 0.8, 5.0]), [0, 0, 1, 1, 0]),
     lambda: evaluation.auroc([0.1, 0.2, 0.9, 0.8], [0, 0, 1, 1])),
    ("evaluation.auroc_ci", lambda: evaluation.auroc_ci([0.1, 0.2, 0.9, 0.8, 5.0], _m([0, 0, 1, 1, 0])),
     lambda: evaluation.auroc_ci([0.1, 0.2, 0.9, 0.8], [0, 0, 1, 1])),
    ("evaluation.mann_whitney_auc", lambda: evaluation.mann_whitney_auc(_m([0.9, 0.8, -1.0]), _m([0.1, 0.2, 5.0])),
     lambda: evaluation.mann_whitney_auc([0.9, 0.8], [0.1, 0.2])),
    ("evaluation.auarc", lambda: evaluation.auarc(_m([0.1, 0.2, 0.9, 0.0]), [1, 1, 0, 0]),
     lambda: evaluation.auarc([0.1, 0.2, 0.9], [1, 1, 0])),
    ("evaluation.paired_auroc_difference",
     lambda: evaluation.paired_auroc_difference([1, 2, 3, 4, 5, 9], _m([1, 3, 2, 4, 5, 0]), [0, 0, 1, 1, 1, 0],
                                                n_boot=20),
     lambda: evaluation.paired_auroc_difference([1, 2, 3, 4, 5], [1, 3, 2, 4, 5], [0, 0, 1, 1, 1], n_boot=20)),
    ("exchangeable.paired_halfwidth", lambda: exchangeable.paired_halfwidth(_m([1, 0, 1, 1, 0]), [1, 1, 0, 1, 1]),
     lambda: exchangeable.paired_halfwidth([1, 0, 1, 1], [1, 1, 0, 1])),
    ("exchangeable.fit_beta_binomial",
     lambda: exchangeable.fit_beta_binomial([3, 7, 5, 0], _m([10, 10, 10, 10])).mean,
     lambda: exchangeable.fit_beta_binomial([3, 7, 5], [10, 10, 10]).mean),
    ("exchangeable.hierarchical_macro_halfwidth",
     lambda: exchangeable.hierarchical_macro_halfwidth([3, 7, 5, 4, 1], [10, 10, 10, 10, 10], _m(list("xxyyz")),
                                                        0.05, method="moments")["halfwidth"],
     lambda: exchangeable.hierarchical_macro_halfwidth([3, 7, 5, 4], [10, 10, 10, 10], list("xxyy"), 0.05,
                                                        method="moments")["halfwidth"]),
    ("exchangeable.split_half_correlations",
     lambda: exchangeable.split_half_correlations(_m([1, 0, 1, 1, 0, 0, 1, 0, 1]), [0, 0, 1, 1, 2, 2, 3, 3, 0], 3,
                                                  random_state=0),
     lambda: exchangeable.split_half_correlations([1, 0, 1, 1, 0, 0, 1, 0], [0, 0, 1, 1, 2, 2, 3, 3], 3,
                                                  random_state=0)),
    ("judges.estimate_pq verdicts", lambda: tuple(judges.estimate_pq(_m([True, False]), [0, 0, 1], PAIRS)),
     lambda: tuple(judges.estimate_pq([True], [0, 0, 1], PAIRS[:1]))),
]


@pytest.mark.parametrize("name, masked, plain", MASKED_HONOURED, ids=[c[0] for c in MASKED_HONOURED])
def test_a_masked_entry_is_left_out_where_a_mask_has_a_meaning(name, masked, plain):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_equal(masked(), plain())
