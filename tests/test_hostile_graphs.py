"""Hostile graphs and batches: self-loops, weights, empty graphs, mismatched k, failing judges, n_jobs, sizes.

Each case once gave a wrong number, a raw traceback, lost results or an out-of-memory crash.
"""

import os
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from semvar import graph, pipeline, select_k, spectral
from semvar.entropy import entropy_from_counts
from semvar.graph import all_pairs, block_labels
from semvar.judges import OracleJudge, SBMJudge
from semvar.pipeline import BatchError, BatchInputError, graph_entropy, semantic_spectral_entropies


def _cliques_and_isolated():
    """Two 5-cliques and 10 isolated texts (20 texts, no self-loops)."""
    A = np.zeros((20, 20))
    A[:5, :5] = 1.0
    A[5:10, 5:10] = 1.0
    np.fill_diagonal(A, 0.0)
    return A


# --------------------------------------------------------------------------- self-loops
@pytest.mark.parametrize("form", [np.asarray, sp.csr_array])
def test_identity_graph_is_n_meanings(form):
    """eye(30): each text equivalent only to itself, so 30 meanings and entropy log 30 (was K = 1, 0)."""
    h, labels, sel = graph_entropy(form(np.eye(30)), return_labels=True, return_k=True, random_state=0)
    assert sel.k == 30 and sel.n_singletons == 30
    assert h == pytest.approx(np.log(30), abs=1e-12)
    assert sorted(labels.tolist()) == list(range(30))


@pytest.mark.parametrize("form", [np.asarray, sp.csr_array])
def test_diagonal_does_not_merge_cliques(form):
    """Two 5-cliques + 10 isolated texts: 12 meanings, -(2 * 1/4 log 1/4 + 10 * 1/20 log 1/20) = 2.191 nats."""
    A = _cliques_and_isolated()
    expected = -(2 * 0.25 * np.log(0.25) + 10 * 0.05 * np.log(0.05))
    assert expected == pytest.approx(2.191, abs=5e-4)
    assert entropy_from_counts([5, 5] + [1] * 10) == pytest.approx(expected)
    without = graph_entropy(form(A), random_state=0)
    with_loops = graph_entropy(form(A + np.eye(20)), random_state=0)
    assert without == pytest.approx(expected, abs=1e-12)
    assert with_loops == without


def test_diagonal_ignored_for_a_given_k_and_by_the_rules():
    A = np.kron(np.eye(2), np.ones((4, 4))) - np.eye(8)
    L = A + 3.0 * np.eye(8)  # a heavy diagonal
    a = graph_entropy(A, 2, random_state=0, return_labels=True)
    b = graph_entropy(L, 2, random_state=0, return_labels=True)
    assert a[0] == b[0] and a[1].tolist() == b[1].tolist()
    for rule in ("auto", "eigengap", "bethe_hessian"):
        assert select_k.choose_k(L, rule, k_max=5, random_state=0) == select_k.choose_k(A, rule, k_max=5,
                                                                                         random_state=0) == 2
    assert select_k.auto(np.eye(12)).k == 12
    assert select_k.icl(L, 5).k == 2


# --------------------------------------------------------------------------- weights
WEIGHTED = (np.kron(np.eye(2), np.ones((5, 5))) - np.eye(10)) * 3.0


#: The rules that read weights as verdicts, themselves or through a rule they ask: from the registry.
VERDICT_RULES = [name for name, r in select_k.RULES.items() if any(select_k.RULES[a].verdicts for a in r.asks)]


def test_the_verdict_rules_are_those_of_the_registry():
    # the package's rules that read verdicts are among them, and a spectral rule is not (a new rule needs no edit)
    assert {"auto", "icl", "bic", "consensus"} <= set(VERDICT_RULES) and "eigengap" not in VERDICT_RULES


@pytest.mark.parametrize("rule", VERDICT_RULES)
def test_weights_above_one_are_refused_by_the_verdict_rules(rule):
    """Weights > 1 have no reading as verdicts: a clear refusal, not 'zero-size array ...' or a silent 0."""
    with pytest.raises(ValueError, match=r"reads the adjacency's entries as verdicts.*largest weight is 3"):
        graph_entropy(WEIGHTED, rule, random_state=0)
    with pytest.raises(ValueError, match="largest weight is 3"):
        graph_entropy(sp.csr_array(WEIGHTED), rule, random_state=0)
    with pytest.raises(ValueError, match="largest weight is 3"):
        select_k.choose_k(WEIGHTED, rule, k_max=4, random_state=0)


@pytest.mark.parametrize("rule", [name for name in select_k.RULES if name not in VERDICT_RULES])
def test_weights_above_one_are_read_by_the_other_rules(rule):
    """A rule that reads no verdicts takes any non-negative weights: two cliques of weight 3 are two meanings."""
    assert select_k.choose_k(WEIGHTED, rule, k_max=4, random_state=0) == 2
    assert graph_entropy(WEIGHTED, rule, random_state=0) == pytest.approx(np.log(2))


def test_weights_in_the_unit_interval_and_spectral_rules_still_work():
    assert graph_entropy(WEIGHTED / 3.0, "auto", random_state=0) == pytest.approx(np.log(2))
    assert graph_entropy(WEIGHTED / 6.0, "icl", random_state=0) == pytest.approx(np.log(2))
    assert graph_entropy(WEIGHTED, "eigengap", random_state=0) == pytest.approx(np.log(2))
    assert graph_entropy(WEIGHTED, 2, random_state=0) == pytest.approx(np.log(2))  # a given K: any weights
    with pytest.raises(ValueError, match="largest weight"):
        select_k.auto(WEIGHTED)
    with pytest.raises(ValueError, match="largest weight"):
        select_k.icl(WEIGHTED, 4)
    with pytest.raises(ValueError, match="largest weight"):
        select_k.consensus(WEIGHTED, 4, random_state=0)
    assert int(select_k.consensus(WEIGHTED, 4, methods=("eigengap", "ncv"), random_state=0)) == 2


# --------------------------------------------------------------------------- empty and huge graphs
@pytest.mark.filterwarnings("ignore:.*have no edges:RuntimeWarning")
def test_empty_sparse_graph_with_a_given_k_follows_the_tie_convention(monkeypatch):
    """No edge: every k-partition fits; the sparse path gives the dense path's tie convention (was ArpackError)."""
    E = sp.csr_array((400, 400))
    dense_path = spectral.spectral_clusters(E, 3, random_state=0)
    monkeypatch.setattr(spectral, "DENSE_LIMIT", 100)  # the same graph through the iterative solver's path
    sparse_path = spectral.spectral_clusters(E, 3, random_state=0)
    assert sparse_path.tolist() == dense_path.tolist()
    assert np.bincount(sparse_path).size == 3


def test_empty_5000_graph_with_k_3_gives_an_answer_and_a_warning():
    E = sp.csr_array((5000, 5000))
    with pytest.warns(RuntimeWarning, match="5000 node"):
        h, labels = graph_entropy(E, 3, random_state=0, return_labels=True)
    assert np.bincount(labels).size == 3 and 0.0 < h <= np.log(3) + 1e-12
    for lap in ("unnormalized", "centered"):
        assert np.isfinite(graph_entropy(E, 3, laplacian=lap, random_state=0))


def test_solver_failure_is_a_clear_error(monkeypatch):
    import scipy.sparse.linalg as sla

    def fail(*args, **kwargs):
        raise sla.ArpackError(-9999)

    monkeypatch.setattr(sla, "eigsh", fail)
    A = graph.sample_sbm([1100, 1000], 0.01, 0.001, random_state=0)
    with pytest.raises(ValueError, match="iterative eigensolver failed on this graph of 2100 nodes for k = 2"):
        spectral.spectral_clusters(A, 2, random_state=0)


def _no_big_dense(monkeypatch, limit=2000):
    real = {cls: cls.toarray for cls in (sp.csr_array, sp.csr_matrix, sp.coo_array, sp.csc_array)}

    def guard(cls):
        def toarray(self, *args, **kwargs):
            if self.shape[0] > limit:
                raise AssertionError(f"a {self.shape} sparse graph was made dense")
            return real[cls](self, *args, **kwargs)
        return toarray

    for cls in real:
        monkeypatch.setattr(cls, "toarray", guard(cls))


@pytest.mark.parametrize("rule", ["auto", "icl", "eigengap", "ncv", "consensus"])
def test_empty_huge_graph_with_a_rule_is_never_made_dense(monkeypatch, rule):
    """10^5 texts, no edge: every text its own meaning, log(10^5), without a 74.5 GiB dense matrix."""
    _no_big_dense(monkeypatch)
    n = 100_000
    h, labels, sel = graph_entropy(sp.csr_array((n, n)), rule, return_labels=True, return_k=True, random_state=0)
    assert sel.k == n and sel.n_singletons == n
    assert h == pytest.approx(np.log(n))
    assert np.unique(labels).size == n


@pytest.mark.filterwarnings("ignore:.*have no edges:RuntimeWarning")
def test_a_clique_among_many_isolated_texts_densifies_only_the_clique(monkeypatch):
    _no_big_dense(monkeypatch)
    n = 50_000
    A = sp.lil_array((n, n))
    for i in range(10):
        for j in range(10):
            if i != j:
                A[i, j] = 1.0
    h, labels, sel = graph_entropy(sp.csr_array(A), "auto", return_labels=True, return_k=True, random_state=0)
    assert sel.k == n - 9 and sel.n_singletons == n - 10
    assert np.unique(labels[:10]).size == 1
    assert h == pytest.approx(entropy_from_counts([10] + [1] * (n - 10)))


def test_sparse_core_route_equals_the_dense_route():
    """The sparse route (isolated texts set aside before densifying) gives the dense route's answer."""
    rng = np.random.default_rng(4)
    for t in range(3):
        A = graph.sample_sbm([int(x) for x in rng.integers(15, 40, size=3)], 0.5, 0.03, random_state=rng)
        iso = rng.choice(A.shape[0], size=8, replace=False)
        A = A.tolil()
        A[iso, :] = 0
        A[:, iso] = 0
        A = sp.csr_array(A)
        for rule in ("auto", "icl", "ncv", "consensus", "ecv"):
            a = graph_entropy(A, rule, laplacian="unnormalized", random_state=t, return_labels=True, return_k=True)
            b = graph_entropy(A.toarray(), rule, laplacian="unnormalized", random_state=t, return_labels=True,
                              return_k=True)
            assert a[0] == b[0] and a[1].tolist() == b[1].tolist()
            assert (a[2].k, a[2].n_singletons, a[2].candidates.tolist()) == (b[2].k, b[2].n_singletons,
                                                                             b[2].candidates.tolist())
            if rule == "consensus":
                assert a[2].details["votes"] == b[2].details["votes"]


def test_all_pairs_refuses_with_an_estimate_before_allocating(monkeypatch):
    """40,000 texts, all pairs: 799,980,000 pairs; refused with the memory estimate (was a MemoryError)."""
    monkeypatch.setattr(graph, "available_memory", lambda: 4 * 2**30)
    with pytest.raises(ValueError, match=r"799,980,000 pairs.*about 26\.8 GiB.*4\.0 GiB of memory available"):
        all_pairs(40_000)
    with pytest.raises(ValueError, match="799,980,000 pairs"):
        graph.judge_graph(OracleJudge(np.zeros(40_000, dtype=int)), [str(i) for i in range(40_000)])
    assert all_pairs(3000).shape == (3000 * 2999 // 2, 2)  # 4.5 million pairs fit
    assert graph.available_memory() == 4 * 2**30


def test_available_memory_is_read():
    free = graph.available_memory()
    assert free is None or free > 0


# --------------------------------------------------------------------------- batches
def _problems(m, seed=0):
    truth = block_labels([4, 6, 10])
    texts = [f"answer {i}" for i in range(truth.size)]
    return [(texts, SBMJudge(truth, 0.87, 0.07, random_state=seed + i)) for i in range(m)]


@pytest.mark.parametrize("n_k", [3, 7])
def test_k_list_of_the_wrong_length_for_a_generator_names_both_lengths(n_k):
    """A k list shorter than a generator once returned 3 of 5 results without an error."""
    with pytest.raises(ValueError, match=rf"got {n_k} entries for 5 problems"):
        semantic_spectral_entropies((p for p in _problems(5)), [3] * n_k, random_state=0)
    with pytest.raises(ValueError, match=rf"got {n_k} entries for 5 problems"):
        semantic_spectral_entropies(_problems(5), [3] * n_k, random_state=0)
    assert semantic_spectral_entropies((p for p in _problems(5)), [3] * 5, random_state=0).shape == (5,)


class _FailingJudge:
    """Asks ``inner`` but raises on its call number ``fail_at``."""

    def __init__(self, inner, fail):
        self.inner, self.fail = inner, fail

    def pairs(self, texts, pairs):
        if self.fail:
            raise ConnectionError("the judge's server went away")
        return self.inner.pairs(texts, pairs)


def _with_failure(m, at, seed=0):
    return [(t, _FailingJudge(j, i == at)) for i, (t, j) in enumerate(_problems(m, seed))]


@pytest.mark.parametrize("n_jobs, chunk", [(1, 128), (1, 4), (2, 4)])
def test_a_failing_judge_keeps_the_finished_results_and_names_the_problem(monkeypatch, n_jobs, chunk):
    monkeypatch.setattr(pipeline, "WORKER_START_S", 0.0)  # workers once the first chunk is done
    monkeypatch.setattr(pipeline, "PROBE_S", 0.0)
    monkeypatch.setattr(pipeline, "_speedup", float)
    full_h, full_k, full_c = semantic_spectral_entropies(_problems(30, seed=3), random_state=2, return_k=True,
                                                         chunk_size=chunk)
    with pytest.raises(BatchError, match=r"problem 21: .*ConnectionError: the judge's server went away") as info:
        semantic_spectral_entropies(_with_failure(30, 21, seed=3), random_state=2, n_jobs=n_jobs, chunk_size=chunk)
    err = info.value
    assert err.index == 21 and not isinstance(err, ValueError)
    np.testing.assert_array_equal(err.entropies, full_h[:21])
    np.testing.assert_array_equal(err.k, full_k[:21])
    np.testing.assert_array_equal(err.confidence, full_c[:21])
    assert isinstance(err.__cause__, ConnectionError)


def test_errors_skip_goes_on_and_warns():
    full = semantic_spectral_entropies(_problems(12, seed=3), random_state=2)
    with pytest.warns(RuntimeWarning, match=r"1 problem\(s\) failed and were skipped.*problem 5: "):
        h, k, conf = semantic_spectral_entropies(_with_failure(12, 5, seed=3), random_state=2, errors="skip",
                                                 return_k=True, chunk_size=4)
    assert np.isnan(h[5]) and k[5] == 0 and np.isnan(conf[5])
    keep = np.arange(12) != 5
    np.testing.assert_array_equal(h[keep], full[keep])
    with pytest.raises(ValueError, match="errors must be 'raise' or 'skip'"):
        semantic_spectral_entropies(_problems(2), errors="ignore")


def test_an_invalid_problem_is_a_value_error_that_keeps_the_results_before_it():
    problems = _problems(6, seed=1)
    problems[4] = (["a", "b"], object())
    with pytest.raises(BatchInputError, match="problem 4: judge must have") as info:
        semantic_spectral_entropies(problems, random_state=0)
    assert isinstance(info.value, ValueError) and info.value.entropies.shape == (4,)
    np.testing.assert_array_equal(info.value.entropies, semantic_spectral_entropies(_problems(4, seed=1),
                                                                                    random_state=0))


def test_batch_error_survives_pickling():
    import pickle

    err = BatchError("problem 3: x", 3, np.arange(3.0), np.arange(3), np.zeros(3))
    back = pickle.loads(pickle.dumps(err))
    assert back.index == 3 and str(back) == "problem 3: x" and back.entropies.tolist() == [0.0, 1.0, 2.0]


def test_n_jobs_is_capped_by_problems_chunks_and_cpus(monkeypatch):
    """n_jobs=1000 for 3 problems once started 1,000 worker processes."""
    items = iter([])
    assert pipeline._workers(1000, items, 3, 128)[0] == 1  # one chunk
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert pipeline._workers(1000, items, 10, 2)[0] == 2  # five chunks, two CPUs
    assert pipeline._workers(-1, items, 10, 2)[0] == 2
    assert pipeline._workers(3, items, 4, 2)[0] == 2  # two chunks
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert pipeline._workers(1000, items, 10, 2)[0] == 5
    assert pipeline._workers(None, items, 10, 2)[0] == 1  # joblib's default outside a parallel_config


def test_n_jobs_1000_for_3_problems_runs_here_and_equals_serial():
    a = semantic_spectral_entropies(_problems(3, seed=8), n_jobs=1000, random_state=4, return_k=True)
    b = semantic_spectral_entropies(_problems(3, seed=8), random_state=4, return_k=True)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


def test_generator_head_decides_serial_or_parallel(monkeypatch):
    """A generator is read ahead by at most READ_AHEAD problems to decide; nothing is lost or repeated."""
    monkeypatch.setattr(pipeline, "READ_AHEAD", 8)
    monkeypatch.setattr(pipeline, "WORKER_START_S", 0.0)
    monkeypatch.setattr(pipeline, "PROBE_S", 0.0)
    monkeypatch.setattr(pipeline, "_speedup", float)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no worker start-up warnings either
        a = semantic_spectral_entropies((p for p in _problems(5, seed=2)), n_jobs=2, random_state=1)
    b = semantic_spectral_entropies(_problems(5, seed=2), random_state=1)
    np.testing.assert_array_equal(a, b)
    c = semantic_spectral_entropies((p for p in _problems(12, seed=2)), n_jobs=2, random_state=1, chunk_size=3)
    np.testing.assert_array_equal(c, semantic_spectral_entropies(_problems(12, seed=2), random_state=1))


def test_consensus_refusal_names_the_rule_it_asks():
    with pytest.raises(ValueError, match="rule 'consensus' asks 'icl', which reads"):
        graph_entropy(WEIGHTED, "consensus", random_state=0)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"kmeans": "scipy"}, "kmeans must be one of"),
        ({"embedding": np.zeros((5, 2))}, r"embedding must be a numeric array of shape \(n, d\) with n = 6"),
        ({"embedding": np.zeros((6, 1))}, "d >= k = 2"),
        ({"embedding": np.full((6, 2), np.nan)}, "embedding contains NaN"),
        ({"embedding": "abc"}, "embedding must be a numeric array"),
    ],
)
def test_spectral_clusters_bad_kmeans_and_embedding(kwargs, match):
    A = np.kron(np.eye(2), np.ones((3, 3))) - np.eye(6)
    with pytest.raises(ValueError, match=match):
        spectral.spectral_clusters(A, 2, random_state=0, **kwargs)


def test_spectral_clusters_with_a_given_embedding_and_numpy_kmeans():
    A = np.kron(np.eye(2), np.ones((3, 3))) - np.eye(6)
    U = spectral.spectral_embedding(A, 3)
    assert spectral.spectral_clusters(A, 2, random_state=0, embedding=U, kmeans="numpy").tolist() == [0, 0, 0, 1, 1, 1]
    assert spectral.spectral_clusters(A, 2, random_state=0, embedding=U).tolist() == [0, 0, 0, 1, 1, 1]
