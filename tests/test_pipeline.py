"""Tests of semvar.pipeline: the small-graph path, the batch entry point, parallel and cluster runs.

The numpy k-means has its tests in ``tests/test_kmeans.py``, the batched engine of
:func:`semvar.pipeline.semantic_spectral_entropies` in ``tests/test_batched.py``.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar import pipeline
from semvar.entropy import empirical_entropy
from semvar.graph import block_labels, sample_sbm
from semvar.judges import OracleJudge, SBMJudge
from semvar.pipeline import graph_entropy, semantic_spectral_entropies, semantic_spectral_entropy
from semvar.spectral import canonical_labels


def _workers_always(monkeypatch):
    """Workers for the rest of any batch once its first chunk is solved (no start-up cost, no probe)."""
    monkeypatch.setattr(pipeline, "WORKER_START_S", 0.0)
    monkeypatch.setattr(pipeline, "PROBE_S", 0.0)
    monkeypatch.setattr(pipeline, "_speedup", float)  # every worker on a core of its own, whatever the load


def _problems(m, seed=0, sizes=(4, 6, 10), p=0.87, q=0.07):
    truth = block_labels(list(sizes))
    texts = [f"answer {i}" for i in range(truth.size)]
    return [(texts, SBMJudge(truth, p, q, random_state=seed + i)) for i in range(m)]


# --------------------------------------------------------------------------- the small-graph path
def _graphs(count, seed):
    """Random small judged graphs: 5-40 texts, 1-5 meanings, judges from Liu's Table 2 range."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        K = int(rng.integers(1, 6))
        sizes = rng.integers(1, 9, size=K)
        p = float(rng.uniform(0.75, 0.99))
        q = float(rng.uniform(0.0, 0.1))
        yield sample_sbm(sizes, p, q, random_state=rng).toarray(), K


@pytest.mark.filterwarnings("ignore:.*have no edges:RuntimeWarning")
@pytest.mark.parametrize("k", ["int", "auto", "eigengap", "icl"])
def test_small_graph_path_equals_the_general_path(monkeypatch, k):
    """The dense numpy path and the general path (sklearn k-means) give the same clusters (or equal optima)."""
    compared = ties = 0
    for A, K in _graphs(40, seed={"int": 1, "auto": 2, "eigengap": 3, "icl": 4}[k]):
        kk = min(K, A.shape[0]) if k == "int" else k
        if A.shape[0] < 3 and k != "int":
            continue
        fast = graph_entropy(A, kk, random_state=7, return_labels=True, return_k=True)
        monkeypatch.setattr(pipeline, "FAST_N", 0)
        slow = graph_entropy(A, kk, random_state=7, return_labels=True, return_k=True)
        monkeypatch.setattr(pipeline, "FAST_N", 300)
        assert fast[2].k == slow[2].k
        if fast[1].tolist() != slow[1].tolist():
            # two different partitions are allowed only when both are k-means optima (a symmetric graph)
            costs = _kmeans_costs(A, fast[2], fast[1], slow[1])
            assert costs[0] == pytest.approx(costs[1], rel=1e-9, abs=1e-12)
            ties += 1
        else:
            assert fast[0] == pytest.approx(slow[0], abs=1e-12)
        compared += 1
    assert compared >= 30 and ties <= 2


def _kmeans_costs(A, sel, *labelings):
    """k-means cost of each labeling of the texts with an edge on their spectral embedding."""
    from semvar.spectral import spectral_embedding

    keep = A.sum(1) > 0 if sel.method != "given" else np.ones(A.shape[0], dtype=bool)
    kc = sel.k - (sel.n_singletons if sel.method != "given" else 0)
    U = spectral_embedding(A[np.ix_(keep, keep)], kc)
    out = []
    for lab in labelings:
        lab = np.asarray(lab)[keep]
        out.append(sum(float(((U[lab == g] - U[lab == g].mean(0)) ** 2).sum()) for g in np.unique(lab)))
    return out


def test_semantic_spectral_entropy_fast_path_equals_general(monkeypatch):
    for trial, (texts, judge) in enumerate(_problems(15, seed=50)):
        a = semantic_spectral_entropy(texts, judge, random_state=trial, return_labels=True, return_k=True)
        judge2 = SBMJudge(judge.labels, judge.p, judge.q, random_state=50 + trial)
        monkeypatch.setattr(pipeline, "FAST_N", 0)
        b = semantic_spectral_entropy(texts, judge2, random_state=trial, return_labels=True, return_k=True)
        monkeypatch.setattr(pipeline, "FAST_N", 300)
        assert a[0] == pytest.approx(b[0]) and a[1].tolist() == b[1].tolist() and a[2].k == b[2].k


def test_one_spectral_clustering_a_broken_one_reaches_the_small_graph_path(monkeypatch):
    """The one k-means of small graphs (semvar._kmeans.kmeans_many) edited to put every text in cluster 0: every
    small-graph result changes, the batch's included (the batch runs the same code, stacked)."""
    from semvar import _kmeans

    A = np.kron(np.eye(3), np.ones((4, 4))) - np.eye(12)
    A[0, 4] = A[4, 0] = A[4, 8] = A[8, 4] = 1  # one graph: a graph in components has each one clustered alone
    texts = [f"t{i}" for i in range(12)]
    assert A.shape[0] <= pipeline.FAST_N

    class GraphJudge:  # the verdicts of A
        def pairs(self, texts, pairs):
            return A[pairs[:, 0], pairs[:, 1]] > 0

    def run():
        return (graph_entropy(A, 3, random_state=0), graph_entropy(A, "auto", random_state=0),
                graph_entropy(A, "icl", random_state=0),
                semantic_spectral_entropy(texts, GraphJudge(), random_state=0),
                semantic_spectral_entropies([(texts, GraphJudge())] * 3, random_state=0).tolist())

    before = run()
    assert before[0] == pytest.approx(np.log(3)) and before[1] == pytest.approx(np.log(3))
    assert before[3] == pytest.approx(np.log(3)) and before[4] == pytest.approx([np.log(3)] * 3)

    def broken(X, k, rngs, *, n_init=10, max_iter=300):  # every text in cluster 0
        return np.zeros(X.shape[:2], dtype=np.int64), np.zeros(X.shape[0])

    monkeypatch.setattr(_kmeans.kmeans_many, "__code__", broken.__code__)  # as an edit of its source would
    after = run()
    assert after[:4] == (0.0, 0.0, 0.0, 0.0) and after[4] == [0.0] * 3


def test_one_spectral_clustering_reaches_the_sparse_route(monkeypatch):
    """A large sparse graph with a rule of the sparse route is clustered by semvar.spectral.spectral_clusters too."""
    from semvar import spectral

    A = sample_sbm([350, 300], 30 / 325, 3 / 650, random_state=4)
    assert A.shape[0] > pipeline.FAST_N
    h, sel = graph_entropy(A, "auto", random_state=0, return_k=True)
    assert sel.k == 2 and h > 0.6
    calls = []
    real = spectral.spectral_clusters

    def counted(adjacency, k, **kwargs):
        calls.append((adjacency.shape[0], k, kwargs.get("embedding") is not None))
        return np.zeros(adjacency.shape[0], dtype=np.int64)

    monkeypatch.setattr(spectral, "spectral_clusters", counted)
    h2, sel2 = graph_entropy(A, "auto", random_state=0, return_k=True)
    assert calls == [(650, 2, True)] and h2 == 0.0 and sel2.k == sel.k  # the rule's own spectrum, shared
    assert real is not counted


def test_small_graph_branch_of_spectral_clusters_equals_the_pipeline():
    """spectral_clusters(kmeans="numpy") is the pipeline's small-graph clustering for a given K."""
    from semvar.spectral import spectral_clusters

    for A, K in _graphs(30, seed=11):
        k = min(K, A.shape[0])
        h, labels = graph_entropy(A, k, random_state=3, return_labels=True)
        direct = spectral_clusters(A, k, random_state=3, kmeans="numpy")
        assert direct.tolist() == labels.tolist()


def test_default_k_is_auto_and_reports_its_choice():
    truth = block_labels([4, 6, 10])
    texts = [str(i) for i in range(20)]
    h, sel = semantic_spectral_entropy(texts, SBMJudge(truth, 0.87, 0.07, random_state=1), random_state=0, return_k=True)
    assert sel.method == "auto" and sel.k == 3 and 0.5 < sel.confidence <= 1.0
    assert h == pytest.approx(empirical_entropy(truth), abs=0.15)
    h, sel = semantic_spectral_entropy(texts, OracleJudge(truth), 3, return_k=True, random_state=0)
    assert sel.method == "given" and sel.confidence is None and h == pytest.approx(empirical_entropy(truth))


@pytest.mark.filterwarnings("ignore:.*have no edges:RuntimeWarning")
def test_isolated_texts_get_clusters_of_their_own():
    truth = np.array([0, 0, 0, 1, 1, 1, 2, 3])  # two meanings of three, two odd answers
    texts = [f"t{i}" for i in range(8)]
    h, labels, sel = semantic_spectral_entropy(texts, OracleJudge(truth), return_labels=True, return_k=True, random_state=0)
    assert sel.k == 4 and sel.n_singletons == 2
    assert canonical_labels(labels).tolist() == canonical_labels(truth).tolist()
    assert h == pytest.approx(empirical_entropy(truth))
    # an int K is Algorithm 1 as printed: no special treatment
    h2 = semantic_spectral_entropy(texts, OracleJudge(truth), 4, random_state=0)
    assert np.isfinite(h2)


@pytest.mark.parametrize("n", [1, 2])
def test_auto_on_one_or_two_texts(n):
    texts = ["a", "b"][:n]
    assert semantic_spectral_entropy(texts, OracleJudge([0] * n)) == 0.0
    if n == 2:
        assert semantic_spectral_entropy(texts, OracleJudge([0, 1])) == pytest.approx(np.log(2))


# --------------------------------------------------------------------------- many prompts
def test_batch_equals_one_call_per_prompt_with_spawned_seeds():
    problems = _problems(12, seed=10)
    h, k, conf = semantic_spectral_entropies(problems, random_state=5, return_k=True)
    children = np.random.SeedSequence(5).spawn(12)
    fresh = _problems(12, seed=10)
    for i, (texts, judge) in enumerate(fresh):
        hi, sel = semantic_spectral_entropy(texts, judge, random_state=np.random.default_rng(children[i]), return_k=True)
        assert h[i] == hi and k[i] == sel.k and conf[i] == pytest.approx(sel.confidence)
    assert k.dtype == np.int64 and h.shape == (12,) and np.all((conf > 0) & (conf <= 1))


def test_batch_chunking_generators_and_given_k():
    a = semantic_spectral_entropies(_problems(10, seed=3), random_state=1, chunk_size=3)
    b = semantic_spectral_entropies((p for p in _problems(10, seed=3)), random_state=1, chunk_size=64)
    np.testing.assert_array_equal(a, b)
    h, k, conf = semantic_spectral_entropies(_problems(4, seed=3), [3, 3, 2, 1], random_state=1, return_k=True)
    assert k.tolist() == [3, 3, 2, 1] and np.isnan(conf).all() and h[3] == 0.0
    assert semantic_spectral_entropies([], random_state=0).shape == (0,)


def test_batch_in_parallel_equals_serial(monkeypatch):
    _workers_always(monkeypatch)  # two workers even for this small batch
    problems = _problems(24, seed=20)
    serial = semantic_spectral_entropies(problems, random_state=3, chunk_size=4, return_k=True)
    parallel = semantic_spectral_entropies(_problems(24, seed=20), n_jobs=2, random_state=3, chunk_size=4, return_k=True)
    for a, b in zip(serial, parallel):
        np.testing.assert_array_equal(a, b)


@pytest.fixture(scope="module")
def dask_client():
    """A two-process dask.distributed cluster on 127.0.0.1 (skipped where it cannot start)."""
    distributed = pytest.importorskip("distributed")
    try:
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None, processes=True,
            silence_logs=50,
        )
    except Exception as exc:  # pragma: no cover - sandboxes without local sockets
        pytest.skip(f"a local dask cluster could not start here: {exc!r}")
    client = distributed.Client(cluster, timeout="60s")
    try:
        yield client
    finally:
        client.close()
        cluster.close()


def test_batch_on_a_dask_cluster_equals_serial(dask_client):
    """The same call through joblib's Dask backend returns the same entropies, K and confidences."""
    import joblib

    serial = semantic_spectral_entropies(_problems(16, seed=30), random_state=9, chunk_size=4, return_k=True)
    with joblib.parallel_config(backend="dask"):
        remote = semantic_spectral_entropies(_problems(16, seed=30), n_jobs=-1, random_state=9, chunk_size=4,
                                             return_k=True)
    for a, b in zip(serial, remote):
        np.testing.assert_array_equal(a, b)
    assert len(dask_client.scheduler_info()["workers"]) == 2


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6))
def test_batch_result_of_a_prompt_does_not_depend_on_its_neighbours(seed, chunk):
    """Prompt i's result depends only on child i of the seed sequence, not on the other prompts."""
    problems = _problems(5, seed=seed % 1000)
    whole = semantic_spectral_entropies(problems, random_state=seed, chunk_size=chunk)
    for i in (0, 4):
        alone = semantic_spectral_entropies(_problems(5, seed=seed % 1000), random_state=seed, chunk_size=chunk)
        assert alone[i] == whole[i]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"problems": 3}, "problems must be an iterable"),
        ({"problems": "ab"}, "problems must be an iterable"),
        ({"problems": [("a", OracleJudge([0]))]}, "problem 0: texts must be a sequence"),
        ({"problems": [(["a", "b"], object())]}, "problem 0: judge must have"),
        ({"problems": [(["a"], OracleJudge([0])), 5]}, "problem 1: each problem must be"),
        ({"k": 3}, "problem 0: k must be <= the number of texts"),
        ({"k": [1, 1]}, "one entry per problem"),
        ({"k": "gap"}, "k must be an int"),
        ({"k": 0}, "k must be >= 1"),
        ({"k": 1.5}, "k must be an int"),
        ({"k_max": 0}, "k_max"),
        ({"n_jobs": 0}, "n_jobs"),
        ({"n_jobs": "two"}, "n_jobs"),
        ({"chunk_size": 0}, "chunk_size"),
        ({"random_state": -1}, "random_state"),
        ({"random_state": "x"}, "random_state"),
        ({"return_k": 1}, "return_k"),
        ({"laplacian": "x"}, "laplacian"),
    ],
)
def test_batch_bad_input(kwargs, match):
    args = {"problems": [(["a", "b"], OracleJudge([0, 1]))]}
    args.update(kwargs)
    problems = args.pop("problems")
    with pytest.raises(ValueError, match=match):
        semantic_spectral_entropies(problems, **args)


def test_single_call_bad_flags():
    with pytest.raises(ValueError, match="return_k"):
        semantic_spectral_entropy(["a", "b"], OracleJudge([0, 1]), return_k="yes")
    with pytest.raises(ValueError, match="return_k"):
        graph_entropy(np.eye(3) * 0, return_k=None)


def test_a_large_prompt_takes_the_sparse_path():
    """Above FAST_N texts the judged graph is assembled sparse and the general path clusters it."""
    truth = block_labels([200, 120])
    texts = [f"t{i}" for i in range(truth.size)]
    assert truth.size > pipeline.FAST_N
    h, labels, sel = semantic_spectral_entropy(texts, OracleJudge(truth), "eigengap", return_labels=True,
                                               return_k=True, random_state=0)
    assert sel.k == 2 and h == pytest.approx(empirical_entropy(truth))
    assert canonical_labels(labels).tolist() == truth.tolist()


def test_semantic_von_neumann_entropy_is_the_plug_in_entropy_on_an_equivalence_relation():
    import math

    from semvar.judges import OracleJudge, SBMJudge
    from semvar.pipeline import semantic_von_neumann_entropy

    labels = [0, 0, 0, 1, 1, 2]
    texts = [f"text {i}" for i in range(len(labels))]
    shares = [3 / 6, 2 / 6, 1 / 6]
    assert math.isclose(semantic_von_neumann_entropy(texts, OracleJudge(labels)), -sum(p * math.log(p) for p in shares),
                        abs_tol=1e-9)
    h = semantic_von_neumann_entropy(texts, SBMJudge(labels, 0.8, 0.1, random_state=0))
    assert 0.0 <= h <= math.log(len(texts)) + 1e-12


@pytest.mark.parametrize("texts, judge", [([], "oracle"), ("not a list", "oracle"), (["a", "b"], object())])
def test_semantic_von_neumann_entropy_bad_input(texts, judge):
    from semvar.judges import OracleJudge
    from semvar.pipeline import semantic_von_neumann_entropy

    if judge == "oracle":
        judge = OracleJudge([0] * max(len(texts), 1))
    with pytest.raises((ValueError, TypeError)):
        semantic_von_neumann_entropy(texts, judge)


# --------------------------------------------------------------------------- partly judged graphs
def _sampled(n, s, sizes_of, seed, p=1.0, q=0.0):
    from semvar.graph import adjacency_from_verdicts, random_pairs

    z = np.repeat(np.arange(len(sizes_of)), sizes_of)
    P = random_pairs(n, s, random_state=seed)
    u = np.random.default_rng(seed).random(len(P))
    verdicts = np.where(z[P[:, 0]] == z[P[:, 1]], u < p, u < q)
    return adjacency_from_verdicts(n, P, verdicts, return_mask=True)


@pytest.mark.parametrize("seed", range(3))
def test_a_sampled_design_with_a_perfect_judge_gives_the_entropy_or_refuses(seed):
    """300 texts, three meanings: 3 % of the pairs resolve all but a few texts; 1 % leaves a third unresolved."""
    A, O = _sampled(300, 0.03, [100] * 3, seed)
    h, labels, sel = graph_entropy(A, observed=O, max_unresolved=0.1, random_state=0, return_labels=True,
                                   return_k=True)
    assert sel.k == 3 and abs(h - np.log(3)) < 0.05 and 0 < sel.n_unresolved == int((labels == -1).sum())
    low, high = sel.details["entropy_range"]
    assert low <= h <= high
    A, O = _sampled(300, 0.01, [100] * 3, seed)
    with pytest.raises(pipeline.UnresolvedError, match=r"unresolved.*design_representatives") as info:
        graph_entropy(A, observed=O, max_unresolved=0.1, random_state=0)
    err = info.value
    assert err.n == 300 and err.n_unresolved > 60 and err.entropy_range[0] <= err.entropy_range[1]
    assert err.selection.k <= 10


def test_lost_calls_are_not_false_verdicts():
    """Three meanings of four texts, 27 of 66 pairs lost, every verdict judged right: K = 3, entropy log 3."""
    from semvar.graph import adjacency_from_verdicts, all_pairs

    z = np.repeat([0, 1, 2], 4)
    found = 0
    for seed in range(40):
        P = all_pairs(12)[np.sort(np.random.default_rng(seed).choice(66, 39, replace=False))]
        A, O = adjacency_from_verdicts(12, P, z[P[:, 0]] == z[P[:, 1]], return_mask=True)
        try:
            h, sel = graph_entropy(A, observed=O, random_state=0, return_k=True)
        except pipeline.UnresolvedError as exc:  # a text whose every TRUE verdict was lost
            assert exc.n_unresolved >= 1
            continue
        found += 1
        assert sel.k == 3 and h == pytest.approx(np.log(3))
        h_false = graph_entropy(A.toarray(), random_state=0)  # the same graph with lost pairs read as FALSE
        assert h_false >= h  # reading a lost pair as FALSE can only split meanings here
    assert found >= 10


def test_a_masked_array_is_a_graph_with_unjudged_pairs():
    A = np.kron(np.eye(2), np.ones((3, 3))) - np.eye(6)
    mask = np.zeros_like(A, dtype=bool)
    mask[0, 1] = mask[1, 0] = True  # one unjudged pair, whatever its data says
    masked = np.ma.array(np.where(mask, 0.0, A), mask=mask)
    h, sel = graph_entropy(masked, random_state=0, return_k=True)
    assert h == pytest.approx(np.log(2)) and sel.k == 2
    O = (~mask).astype(float)
    assert graph_entropy(np.where(mask, 0.0, A), observed=O, random_state=0) == h
    with pytest.raises(ValueError, match="masked array and observed"):
        graph_entropy(masked, observed=O)


def _lossy_judge(truth):
    """A perfect judge of ``truth`` that loses every third call (a masked verdict)."""

    class Lossy:
        def pairs(self, texts, pairs):
            v = np.ma.array(truth[pairs[:, 0]] == truth[pairs[:, 1]])
            v[::3] = np.ma.masked
            return v

    return Lossy


def test_a_judge_that_loses_verdicts_is_read_with_its_mask():
    """semantic_spectral_entropy: a verdict the judge could not give is not a FALSE."""
    truth = np.repeat([0, 1], 5)
    texts = [f"t{i}" for i in range(10)]

    Lossy = _lossy_judge(truth)

    h, labels, sel = semantic_spectral_entropy(texts, Lossy(), random_state=0, return_labels=True, return_k=True)
    assert sel.k == 2 and h == pytest.approx(np.log(2)) and sel.n_unresolved == 0
    with pytest.raises(ValueError, match="not a FALSE verdict"):
        pipeline.semantic_von_neumann_entropy(texts, Lossy())


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-1, 4), min_size=1, max_size=30), st.integers(0, 2**31 - 1))
def test_the_entropy_range_holds_every_assignment_of_the_unresolved(labels, seed):
    labels = np.array(labels)
    low, high = pipeline.entropy_range(labels)
    rng = np.random.default_rng(seed)
    filled = labels.copy()
    free = labels == -1
    filled[free] = rng.integers(0, 8, size=int(free.sum())) + (labels.max() + 1 if rng.random() < 0.5 else 0)
    if filled.size:
        h = empirical_entropy(filled)
        assert low - 1e-12 <= h <= high + 1e-12
    with pytest.raises(ValueError, match="labels"):
        pipeline.entropy_range(np.append(labels, -2))


def test_a_graph_with_no_resolved_text_has_no_entropy():
    A = np.zeros((6, 6))
    O = np.zeros((6, 6))
    O[0, 1] = O[1, 0] = 1  # one pair judged FALSE, the rest never asked
    with pytest.raises(pipeline.UnresolvedError, match="no text is resolved") as info:
        graph_entropy(A, observed=O, max_unresolved=1.0)
    assert info.value.n_unresolved == 6 and np.isnan(info.value.entropy)
    assert "max_unresolved >=" not in str(info.value)  # nothing to accept: no advice to raise it
    assert info.value.entropy_range == pytest.approx((0.0, np.log(6)))


def test_a_given_k_never_reads_a_lost_verdict_as_false():
    truth = np.repeat([0, 1], 5)
    texts = [f"t{i}" for i in range(10)]

    Lossy = _lossy_judge(truth)

    with pytest.raises(ValueError, match="would read them as FALSE"):
        semantic_spectral_entropy(texts, Lossy(), 2)
    h = semantic_spectral_entropy(texts, Lossy(), 2, laplacian="centered", random_state=0)
    assert h == pytest.approx(np.log(2))


def test_a_batch_allows_unresolved_texts_only_when_asked():
    """Text 0's verdicts with its own meaning are lost: unresolved, refused by default, left out when allowed."""
    truth = np.repeat([0, 1], 5)
    texts = [f"t{i}" for i in range(10)]

    class LosesTextZero:
        def pairs(self, texts, pairs):
            v = np.ma.array(truth[pairs[:, 0]] == truth[pairs[:, 1]])
            v[(pairs[:, 0] == 0) & (truth[pairs[:, 1]] == 0)] = np.ma.masked
            return v

    problems = [(texts, LosesTextZero()), (texts, OracleJudge(truth))]
    with pytest.raises(pipeline.BatchInputError, match="problem 0: 1 of 10 texts") as info:
        semantic_spectral_entropies(problems, random_state=0)
    assert isinstance(info.value.__cause__, pipeline.UnresolvedError)
    h, k, _ = semantic_spectral_entropies(problems, random_state=0, max_unresolved=0.1, return_k=True)
    assert k.tolist() == [2, 2] and h == pytest.approx([empirical_entropy(truth[1:]), np.log(2)])
    with pytest.raises(ValueError, match="max_unresolved"):
        semantic_spectral_entropies(problems, max_unresolved=1.5)


def test_workers_start_only_where_the_measured_work_pays_for_them(monkeypatch):
    """The decision: start-up plus the estimated rest over the workers that can run at once, against 0.8 of the rest."""
    monkeypatch.setattr(pipeline, "_speedup", float)
    monkeypatch.setattr(pipeline, "_WARM", {"until": 0.0, "workers": 0})
    monkeypatch.setattr(pipeline, "WORKER_START_S", 1.7)
    assert not pipeline._pool_pays(3.0, 2)  # 1.7 + 1.5 > 2.4: 10,000 small prompts stay here
    assert pipeline._pool_pays(100.0, 2)  # 1.7 + 50 <= 80
    monkeypatch.setattr(pipeline, "_speedup", lambda workers: 1.0)  # no free core: never
    assert not pipeline._pool_pays(100.0, 2)
    monkeypatch.setattr(pipeline, "_speedup", float)
    monkeypatch.setattr(pipeline, "_WARM", {"until": float("inf"), "workers": 2})  # a pool still alive costs nothing
    assert pipeline._pool_pays(3.0, 2)


def test_n_jobs_2_on_a_small_batch_starts_no_worker(monkeypatch):
    def no_pool(*args, **kwargs):
        raise AssertionError("workers were started")

    monkeypatch.setattr(pipeline, "_parallel", no_pool)
    problems = [([f"t{i}" for i in range(8)], SBMJudge(block_labels([4, 4]), 0.9, 0.1, random_state=s)) for s in range(300)]
    a = semantic_spectral_entropies(problems, n_jobs=2, random_state=0, chunk_size=16)
    problems = [([f"t{i}" for i in range(8)], SBMJudge(block_labels([4, 4]), 0.9, 0.1, random_state=s)) for s in range(300)]
    np.testing.assert_array_equal(a, semantic_spectral_entropies(problems, random_state=0, chunk_size=16))


def test_chunks_end_at_the_prompt_count_or_the_matrix_entries_whichever_comes_first():
    """Chunks of small graphs hold ``chunk_size`` prompts; chunks of large graphs end at CHUNK_ENTRIES entries,
    so a batch of 300-text prompts never stacks 512 of them; the indices run on across chunks."""
    small = [((["a"] * 20, None), "auto")] * 1100
    assert [(start, len(c)) for start, c in pipeline._chunks(small, 512)] == [(0, 512), (512, 512), (1024, 76)]
    large = [((["a"] * 300, None), "auto")] * 60
    sizes = [len(c) for _, c in pipeline._chunks(large, 512)]
    assert sum(sizes) == 60 and max(sizes) == -(-pipeline.CHUNK_ENTRIES // 300**2)
    odd = [(5, "auto"), ((None, None), "auto")]  # malformed problems count as one entry; refused when solved
    assert [len(c) for _, c in pipeline._chunks(odd, 512)] == [2]


def test_a_long_generator_starts_workers_only_once_their_start_up_is_a_tenth_of_the_time_spent(monkeypatch):
    """A generator longer than READ_AHEAD is looked at every READ_AHEAD prompts; workers start at the first look
    where their start-up (1.7 s) is at most a tenth of the time spent, and the results are those of one worker."""
    import time

    clock = iter(range(10**6))  # one second a call: the probe's clock reads 0 at its start, then 1 per chunk
    monkeypatch.setattr(time, "perf_counter", lambda: float(next(clock)))
    monkeypatch.setattr(pipeline, "READ_AHEAD", 8)
    monkeypatch.setattr(pipeline, "WORKER_START_S", 1.7)
    monkeypatch.setattr(pipeline, "_WARM", {"until": 0.0, "workers": 0})
    monkeypatch.setattr(pipeline, "_speedup", float)
    started = []

    def here_instead(chunks, args, n_jobs):  # stands for the workers: records where they would take over
        for start, chunk in chunks:
            started.append(start)
            yield pipeline._solve_chunk(start, chunk, *args)

    monkeypatch.setattr(pipeline, "_parallel", here_instead)
    a = semantic_spectral_entropies((p for p in _problems(100, seed=3)), n_jobs=2, random_state=5, chunk_size=4)
    assert started[0] == 72  # looks at 8, 16, ..., 64 prompts (16 s spent) wait; at 72 (18 s >= 17 s) workers start
    monkeypatch.setattr(pipeline, "_speedup", lambda workers: 1.0)  # no free core: never, however long
    started.clear()
    b = semantic_spectral_entropies((p for p in _problems(100, seed=3)), n_jobs=2, random_state=5, chunk_size=4)
    assert started == []
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, semantic_spectral_entropies(_problems(100, seed=3), random_state=5))


def test_free_cores_count_the_processes_running_now_and_the_minute_s_load(monkeypatch, tmp_path):
    """Workers can run side by side only on cores the other work leaves free: the larger of the load average
    and the processes running now (the fewest of a few readings), this process taken out."""
    stat = tmp_path / "stat"
    stat.write_text("cpu  1 2 3\nprocs_running 3\nprocs_blocked 0\n")
    monkeypatch.setattr(pipeline, "_PROC_STAT", str(stat))
    assert pipeline._running_now(samples=2, gap_s=0.0) == 3.0
    monkeypatch.setattr(pipeline.os, "cpu_count", lambda: 4)
    monkeypatch.setattr(pipeline.os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    assert pipeline._speedup(4) == 2.0  # two others running now: two of four cores free
    stat.write_text("procs_running 1\n")
    monkeypatch.setattr(pipeline.os, "getloadavg", lambda: (2.5, 0.0, 0.0))
    assert pipeline._speedup(4) == 2.5  # the minute's load: 1.5 cores busy besides this process
    monkeypatch.setattr(pipeline, "_PROC_STAT", str(tmp_path / "absent"))
    assert pipeline._running_now() == 0.0  # no such file (not Linux): the load average alone
