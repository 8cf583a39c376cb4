"""Tests of semvar._batched: the "auto" rule and its clustering on stacked graphs, one graph a stack of one.

The stack must give, bitwise, what :func:`semvar.pipeline.graph_entropy` with
``k="auto"`` gives one graph at a time (the same functions with a stack of
one); these tests compare the two directly, piece by piece (the pivoted and
the restarted k-means of a stack against each problem alone), and through
:func:`semvar.pipeline.semantic_spectral_entropies` with stacking switched on
and off (``semvar.pipeline.BATCHED``), serially and on two workers; and they
check that an edit of the one implementation reaches every route.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from semvar import pipeline
from semvar._batched import auto_entropies
from semvar._kmeans import kmeans, kmeans_many, kmeans_pivoted, pivoted_many
from semvar.graph import block_labels
from semvar.judges import SBMJudge
from semvar.pipeline import graph_entropy, semantic_spectral_entropies


def _workers_always(monkeypatch):
    """Workers for the rest of any batch once its first chunk is solved (no start-up cost, no probe)."""
    monkeypatch.setattr(pipeline, "WORKER_START_S", 0.0)
    monkeypatch.setattr(pipeline, "PROBE_S", 0.0)
    monkeypatch.setattr(pipeline, "_speedup", float)  # every worker on a core of its own, whatever the load


def _study_problems(reps, ns=(5, 10, 20, 50)):
    """Prompts on every cell of chapter 4's small-n study (sizes, judges, partitions), ``reps`` each."""
    from semvar.experiments.select_k_small import JUDGES, PARTITIONS, cell_sizes

    seed = 0
    for n in ns:
        for p, q in JUDGES.values():
            for props in PARTITIONS.values():
                sizes = cell_sizes(n, props)
                if sizes is None:
                    continue
                truth = block_labels(sizes.tolist())
                texts = [f"t{i}" for i in range(n)]
                for _ in range(reps):
                    seed += 1
                    yield texts, SBMJudge(truth, p, q, random_state=seed)


def _both_engines(monkeypatch, make, **kwargs):
    monkeypatch.setattr(pipeline, "BATCHED", True)
    a = semantic_spectral_entropies(make(), random_state=11, return_k=True, **kwargs)
    monkeypatch.setattr(pipeline, "BATCHED", False)
    b = semantic_spectral_entropies(make(), random_state=11, return_k=True, **kwargs)
    return a, b


def _random_graphs(count, seed, sizes=(3, 45)):
    """Dense judged graphs of block models: texts, meanings and judges drawn at random, isolated texts likely."""
    rng = np.random.default_rng(seed)
    graphs = []
    for _ in range(count):
        n = int(rng.integers(*sizes))
        truth = rng.integers(0, int(rng.integers(1, 7)), size=n)
        same = truth[:, None] == truth[None, :]
        p, q = float(rng.uniform(0.2, 1.0)), float(rng.uniform(0.0, 0.4))
        A = np.triu((rng.random((n, n)) < np.where(same, p, q)).astype(float), 1)
        graphs.append(A + A.T)
    return graphs


def _components(A) -> int:
    """Connected components of the texts with an edge."""
    from scipy.sparse.csgraph import connected_components

    keep = A.sum(1) > 0
    return connected_components(A[np.ix_(keep, keep)], directed=False)[0]


# --------------------------------------------------------------------------- the engine against graph_entropy
@pytest.mark.filterwarnings("ignore:.*have no edges:RuntimeWarning")
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_auto_entropies_equal_graph_entropy_graph_by_graph(seed):
    """Entropy, K and confidence of each graph: those of graph_entropy(k="auto") with the same generator."""
    graphs = _random_graphs(60, seed, sizes=(3, 12))  # few sizes: many graphs share a core size and a group
    graphs += [np.zeros((4, 4)), np.pad(np.ones((2, 2)) - np.eye(2), ((0, 3), (0, 3)))]  # cores of 0 and 2 texts
    out = auto_entropies(graphs, [np.random.default_rng([seed, i]) for i in range(len(graphs))], 10)
    parts = 0
    for i, (A, res) in enumerate(zip(graphs, out)):
        h, sel = graph_entropy(A, "auto", random_state=np.random.default_rng([seed, i]), return_k=True)
        conf = np.nan if sel.confidence is None else sel.confidence
        assert res[0] == h and res[1] == sel.k and np.array_equal(res[2], conf, equal_nan=True), i
        parts += int(A.sum() > 0 and _components(A) > 1)
    assert parts >= 3  # graphs in parts (components of the core) are among them
    same_size = _random_graphs(80, seed, sizes=(12, 13))  # isolated texts and parts among them
    seq = np.random.SeedSequence(seed)  # graph i: child i of the sequence
    stack = auto_entropies(np.stack(same_size), seq, 10)
    listed = auto_entropies(same_size, [np.random.default_rng(c) for c in seq.spawn(80)], 10)
    assert np.array_equal(stack, listed, equal_nan=True)
    for stack in ([np.zeros((4, 4))] * 2, [np.ones((3, 3)) - np.eye(3)] * 2):  # stacks take the array route
        out_list = auto_entropies(stack, [np.random.default_rng(0)] * 2, 10)
        out_stack = auto_entropies(np.stack(stack), [np.random.default_rng(0)] * 2, 10)
        assert np.array_equal(out_list, out_stack, equal_nan=True)


@pytest.mark.filterwarnings("ignore:.*have no edges:RuntimeWarning")
@pytest.mark.parametrize("k_max", [1, 2, 4])
def test_auto_entropies_respect_k_max(k_max):
    graphs = _random_graphs(30, 7, sizes=(6, 30))
    out = auto_entropies(graphs, [np.random.default_rng(i) for i in range(30)], k_max)
    for i, (A, res) in enumerate(zip(graphs, out)):
        h, sel = graph_entropy(A, "auto", k_max=k_max, random_state=np.random.default_rng(i), return_k=True)
        assert (res[0], res[1]) == (h, sel.k) and res[1] - sel.n_singletons <= k_max * max(_components(A), 1)


def test_auto_entropies_of_nothing_and_of_tiny_graphs():
    assert auto_entropies([], [], 10) == []
    tiny = [np.zeros((1, 1)), np.ones((2, 2)) - np.eye(2), np.zeros((2, 2))]
    out = auto_entropies(tiny, [np.random.default_rng(0)] * 3, 10)
    assert [(h, k) for h, k, _ in out] == [(0.0, 1), (0.0, 1), (np.log(2), 2)]


# --------------------------------------------------------------------------- the stacked k-means
@settings(max_examples=25, deadline=None)
@given(B=st.integers(1, 6), n=st.integers(3, 30), k=st.integers(1, 5), seed=st.integers(0, 2**32 - 1))
def test_pivoted_many_is_kmeans_pivoted_of_each(B, n, k, seed):
    """Each problem of a stack gets the labels it gets alone (a stack of one)."""
    k = min(k, n)
    X = np.random.default_rng(seed).normal(size=(B, n, k))
    stacked = pivoted_many(X, k)
    assert stacked.shape == (B, n)
    for b in range(B):
        assert stacked[b].tolist() == kmeans_pivoted(X[b], k).tolist()


@settings(max_examples=25, deadline=None)
@given(B=st.integers(1, 6), n=st.integers(3, 30), k=st.integers(2, 5), seed=st.integers(0, 2**32 - 1))
@example(B=5, n=15, k=4, seed=15)  # a tie in the k-means++ potential that the pairwise distances' rounding decides
def test_kmeans_many_is_kmeans_of_each(B, n, k, seed):
    """The same seeds give each problem of a stack the labels it gets alone (a stack of one)."""
    k = min(k, n)
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(B, n, k)), 1)  # coarse values: repeated rows and emptied clusters happen
    seeds = rng.integers(2**31 - 1, size=B).tolist()
    stacked, _ = kmeans_many(X, k, [np.random.default_rng(s) for s in seeds])
    for b in range(B):
        assert stacked[b].tolist() == kmeans(X[b], k, np.random.default_rng(seeds[b]))[0].tolist()


# --------------------------------------------------------------------------- through semantic_spectral_entropies
@pytest.mark.filterwarnings("ignore:.*have no edges:RuntimeWarning")
def test_batched_engine_equals_the_per_problem_path_on_the_study(monkeypatch):
    """Every cell of the small-n study (n = 5-50, eight judges, six partitions): bitwise the same results."""
    a, b = _both_engines(monkeypatch, lambda: _study_problems(3), chunk_size=200)
    assert a[0].size == 3 * 8 * 6 * 4  # three graphs per cell: 8 judges x 6 partitions x 4 sizes
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


@pytest.mark.filterwarnings("ignore:.*have no edges:RuntimeWarning")
def test_batched_engine_equals_the_per_problem_path_at_100_and_300_texts(monkeypatch):
    a, b = _both_engines(monkeypatch, lambda: _study_problems(1, ns=(100, 300)), chunk_size=64)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


@pytest.mark.filterwarnings("ignore:.*have no edges:RuntimeWarning")
@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_batched_engine_equals_the_per_problem_path_on_random_block_models(seed):
    """Random sizes (isolated texts and tiny cores included), judges from weak to sharp, chunks of many sizes."""
    rng = np.random.default_rng(seed)

    def make():
        r = np.random.default_rng(seed)
        for i in range(40):
            n = int(r.integers(1, 45))
            truth = r.integers(0, int(r.integers(1, 7)), size=n)
            yield [f"t{j}" for j in range(n)], SBMJudge(truth, float(r.uniform(0.2, 1.0)), float(r.uniform(0, 0.4)),
                                                        random_state=i)

    chunk = int(rng.integers(1, 50))
    old = pipeline.BATCHED
    try:
        pipeline.BATCHED = True
        a = semantic_spectral_entropies(make(), random_state=seed, return_k=True, chunk_size=chunk)
        pipeline.BATCHED = False
        b = semantic_spectral_entropies(make(), random_state=seed, return_k=True, chunk_size=chunk)
    finally:
        pipeline.BATCHED = old
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


def test_batched_engine_on_two_workers_equals_the_per_problem_path_on_one(monkeypatch):
    """n_jobs=2 (the engine in each worker) gives the serial per-problem results, and the serial engine's."""
    _workers_always(monkeypatch)  # two workers even for this small batch

    def problems():
        return _study_problems(1, ns=(5, 20))

    monkeypatch.setattr(pipeline, "BATCHED", False)
    per_problem = semantic_spectral_entropies(problems(), random_state=4, chunk_size=16, return_k=True)
    monkeypatch.setattr(pipeline, "BATCHED", True)
    serial = semantic_spectral_entropies(problems(), random_state=4, chunk_size=16, return_k=True)
    parallel = semantic_spectral_entropies(problems(), n_jobs=2, random_state=4, chunk_size=16, return_k=True)
    assert per_problem[0].size == 2 * 8 * 6  # every cell of the study at n = 5 and 20
    for a, b, c in zip(per_problem, serial, parallel):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)


def _three_meanings(count=12):
    truth = block_labels([6, 6, 6])
    texts = [f"t{i}" for i in range(18)]
    # cross verdicts often enough that each graph is connected (a graph in components is solved per component,
    # by the per-problem path, and clusters nothing when each component is one meaning)
    return [(texts, SBMJudge(truth, 0.95, 0.1, random_state=i)) for i in range(count)]


def _all_in_cluster_zero(X, k, rngs, *, n_init=10, max_iter=300):
    """An edit of :func:`semvar._kmeans.kmeans_many`: every text of every problem in cluster 0."""
    return np.zeros(X.shape[:2], dtype=np.int64), np.zeros(X.shape[0])


def _one_meaning_icl(A, z, k, e_all, N_all):
    """An edit of :func:`semvar._batched._icl_judge` that scores one meaning above every other K."""
    return np.full(A.shape[0], 0.0 if k == 1 else -1e9), np.ones(A.shape[0], dtype=bool)


def edit_source(monkeypatch, function, edited):
    """What editing ``function``'s source does: its code replaced, for every name that holds it."""
    monkeypatch.setattr(function, "__code__", edited.__code__)


def test_an_edit_of_the_one_clustering_reaches_graph_entropy_and_every_batched_prompt(monkeypatch):
    """The k-means of :mod:`semvar._kmeans` edited to put every text in cluster 0: graph_entropy, every prompt of
    a batch (stacked or one at a time) and spectral_clusters all see it, with nothing to guard or rebind."""
    from semvar import _kmeans
    from semvar.spectral import spectral_clusters

    problems = _three_meanings()
    graph = pipeline._judged_graph(problems[0][1], problems[0][0])[0]
    before = semantic_spectral_entropies(problems, k="auto", random_state=0)
    assert np.allclose(before, np.log(3), atol=1e-9)
    assert np.isclose(graph_entropy(graph, "auto", random_state=0), np.log(3))
    edit_source(monkeypatch, _kmeans.kmeans_many, _all_in_cluster_zero)
    assert graph_entropy(graph, "auto", random_state=0) == 0.0
    assert graph_entropy(graph, 3, random_state=0) == 0.0  # a given K, on the small-graph path
    assert spectral_clusters(graph, 3, kmeans="numpy", random_state=0).tolist() == [0] * 18
    for batched in (True, False):
        monkeypatch.setattr(pipeline, "BATCHED", batched)
        after = semantic_spectral_entropies(problems, k="auto", random_state=0)
        assert (after == 0.0).all()  # every prompt


def test_an_edit_of_the_one_icl_reaches_the_rule_and_every_batched_prompt(monkeypatch):
    """The ICL of :mod:`semvar._batched` edited to prefer one meaning: select_k.auto, select_k.icl, graph_entropy
    and every prompt of a batch answer K = 1."""
    from semvar import _batched
    from semvar.select_k import auto, icl

    problems = _three_meanings()
    graph = pipeline._judged_graph(problems[0][1], problems[0][0])[0]
    assert auto(graph).k == icl(graph, 5).k == 3
    edit_source(monkeypatch, _batched._icl_judge, _one_meaning_icl)
    assert auto(graph).k == icl(graph, 5).k == 1
    h, sel = graph_entropy(graph, "auto", random_state=0, return_k=True)
    assert sel.k == 1 and h == 0.0
    for batched in (True, False):
        monkeypatch.setattr(pipeline, "BATCHED", batched)
        entropies, ks, _ = semantic_spectral_entropies(problems, k="auto", random_state=0, return_k=True)
        assert (ks == 1).all() and (entropies == 0.0).all()
