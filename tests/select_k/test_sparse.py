"""Tests of semvar.select_k._sparse: the route of large sparse graphs, never made dense."""

import numpy as np
import pytest
import scipy.sparse as sp

from semvar.graph import sample_sbm
from semvar.select_k import auto, choose_k, eigengap, icl


def _sparse_sbm(sizes, degree_in, degree_out, seed):
    n = sum(sizes)
    return sample_sbm(sizes, degree_in / (n / len(sizes)), degree_out / n, random_state=seed)


def _isolate(A, idx):
    A = A.tolil()
    A[idx, :] = 0
    A[:, idx] = 0
    return sp.csr_array(A)


def _sparse_graphs():
    """Graphs above SPARSE.n texts whose core is connected: three meanings, five, isolated texts, one meaning."""
    yield _sparse_sbm([250, 200, 150], 20.0, 4.0, 0)
    yield _sparse_sbm([150, 140, 130, 120, 110], 30.0, 3.0, 1)
    yield _isolate(_sparse_sbm([300, 300], 25.0, 5.0, 2), [0, 7, 400])
    yield _sparse_sbm([700], 15.0, 0.0, 3)


def test_sparse_route_equals_the_dense_route(monkeypatch):
    """K, clusters and entropy from the Lanczos spectrum and the edge counts equal the dense route's, bitwise."""
    import semvar.select_k as select_k
    from semvar.pipeline import graph_entropy
    from semvar.select_k import _sparse

    graphs = list(_sparse_graphs())
    calls = []
    real_top = _sparse._sparse_top
    monkeypatch.setattr(_sparse, "_sparse_top", lambda core, k, **kw: calls.append(core.shape[0]) or real_top(core, k, **kw))
    sparse_runs = [(graph_entropy(A, rule, random_state=3, return_labels=True, return_k=True), auto(A), icl(A, 8),
                    eigengap(A, 8)) for A in graphs for rule in ("auto", "icl", "eigengap")]
    assert all(run[0][2].details.get("rule", "") != "connected components" for run in sparse_runs)
    assert len(calls) == 12 * len(graphs)  # the sparse route ran for every call
    monkeypatch.setattr(select_k.SPARSE, "n", 10**9)  # every graph takes the dense route
    dense_runs = [(graph_entropy(A, rule, random_state=3, return_labels=True, return_k=True), auto(A), icl(A, 8),
                   eigengap(A, 8)) for A in graphs for rule in ("auto", "icl", "eigengap")]
    assert len(calls) == 12 * len(graphs)  # and not for the dense runs
    for (s, s_auto, s_icl, s_gap), (d, d_auto, d_icl, d_gap) in zip(sparse_runs, dense_runs):
        assert s[0] == d[0] and s[1].tolist() == d[1].tolist()
        assert (s[2].k, s[2].n_singletons, s[2].candidates.tolist()) == (d[2].k, d[2].n_singletons,
                                                                         d[2].candidates.tolist())
        for a, b in ((s_auto, d_auto), (s_icl, d_icl)):
            assert a.k == b.k and a.n_singletons == b.n_singletons
            assert {k: v.tolist() for k, v in a.details["labels"].items()} == {
                k: v.tolist() for k, v in b.details["labels"].items()}
            assert a.details["icl"].tolist() == b.details["icl"].tolist()  # the same counts, the same formula
            assert a.confidence == pytest.approx(b.confidence, abs=1e-9)
        assert s_gap.k == d_gap.k
        np.testing.assert_allclose(s_gap.details["eigenvalues"], d_gap.details["eigenvalues"], atol=1e-10)
    assert [run[0][2].k for run in sparse_runs[::3]] == [3, 5, 5, 1]  # the three isolated texts are meanings


def test_auto_on_a_large_sparse_graph_never_makes_it_dense(monkeypatch):
    """n = 3000: no n x n array through toarray/todense or numpy.asarray, and a peak far below n^2 floats."""
    import tracemalloc

    from semvar.pipeline import graph_entropy

    n = 3000
    A = _sparse_sbm([1000, 1000, 1000], 30.0, 6.0, 5)
    big = 1000

    def guard(real):
        def f(self, *args, **kwargs):
            if self.shape[0] > big:
                raise AssertionError(f"a {self.shape} sparse graph was made dense")
            return real(self, *args, **kwargs)
        return f

    for cls in (sp.csr_array, sp.csr_matrix, sp.coo_array, sp.csc_array):
        monkeypatch.setattr(cls, "toarray", guard(cls.toarray))
        monkeypatch.setattr(cls, "todense", guard(cls.todense))
    real_asarray = np.asarray

    def asarray(a, *args, **kwargs):
        out = real_asarray(a, *args, **kwargs)
        if out.ndim == 2 and min(out.shape) > big:
            raise AssertionError(f"numpy.asarray made a {out.shape} array")
        return out

    monkeypatch.setattr(np, "asarray", asarray)
    tracemalloc.start()
    h, labels, sel = graph_entropy(A, "auto", random_state=0, return_labels=True, return_k=True)
    k_rule = choose_k(A, "auto")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert sel.k == k_rule == 3 and np.bincount(labels).tolist() == [1000, 1000, 1000]
    assert h == pytest.approx(np.log(3))
    assert peak < n * n * 8 / 4, f"peak {peak / 2**20:.0f} MiB: a dense n x n float matrix is {n * n * 8 / 2**20:.0f} MiB"


def test_sparse_route_bad_input():
    A = _sparse_sbm([300, 300], 20.0, 4.0, 6)
    n = A.shape[0]
    with pytest.raises(ValueError, match="k_max must satisfy"):
        icl(A, n)
    with pytest.raises(ValueError, match="k_max"):
        auto(A, 0)
    with pytest.raises(ValueError, match="reads the adjacency's entries as verdicts"):
        auto(A * 2.0)
    assert eigengap(A, n - 1).k >= 1  # k_max up to n - 1 is allowed


def test_a_disconnected_core_below_sparse_tied_n_keeps_the_dense_route(monkeypatch):
    """Six components of 100: the leading eigenvalue is tied, and the dense route's answer is kept."""
    from semvar.pipeline import graph_entropy
    from semvar.select_k import _sparse

    A = sp.csr_array(sp.block_diag([_sparse_sbm([100], 12.0, 0.0, s) for s in range(6)]))
    called = []
    monkeypatch.setattr(_sparse, "_sparse_top", lambda core, k, **kw: called.append(1))
    h, sel = graph_entropy(A, "auto", random_state=0, return_k=True)
    assert not called and sel.k == 6 and h == pytest.approx(np.log(6))


def test_bulk_route_of_very_large_cores_equals_the_exact_route(monkeypatch):
    """Above SPARSE.exact_n only the K above the noise bulk are compared; on these graphs that is the same K."""
    from semvar.pipeline import graph_entropy
    from semvar.select_k import _sparse

    graphs = [_sparse_sbm([1200, 900, 600], 40.0, 10.0, 8), _sparse_sbm([3000], 20.0, 0.0, 9),
              _sparse_sbm([700, 700, 600, 500], 30.0, 5.0, 10)]
    exact = [graph_entropy(A, "auto", random_state=1, return_labels=True, return_k=True) for A in graphs]
    monkeypatch.setattr(_sparse.SPARSE, "exact_n", 1000)
    bulk = [graph_entropy(A, "auto", random_state=1, return_labels=True, return_k=True) for A in graphs]
    assert [s.k for _, _, s in exact] == [3, 1, 4]
    for (h1, l1, s1), (h2, l2, s2) in zip(exact, bulk):
        assert s1.k == s2.k and h1 == h2 and l1.tolist() == l2.tolist()
        assert s2.details["k_up"] <= s1.details["k_up"] == 10
        assert np.isneginf(s2.details["icl"][s2.details["k_up"]:]).all()
    # where the bulk edge of the graph's density holds (blocks of equal degree), fewer noise eigenvectors are
    # not clustered; with unequal degrees the bulk reaches above it and more K are compared
    assert all(s.details["k_up"] < 10 for _, _, s in bulk[1:])


def test_bulk_solve_is_loose_only_where_that_settles_the_question(monkeypatch):
    """The loose first solve is kept when the last Ritz value is placed and the eigenpairs above the bulk are exact."""
    from semvar.select_k import _sparse
    from semvar.select_k._common import bulk_edge

    core = sp.csr_array(_sparse_sbm([1000, 1000, 1000], 40.0, 10.0, 8), dtype=float)  # equal degrees: the
    t = bulk_edge(core)  # bulk ends near the edge of a graph of the same density
    tols = []
    real = _sparse.leading_eigenpairs

    def recording(c, k, **kwargs):
        tols.append(kwargs["tol"])
        return real(c, k, **kwargs)

    monkeypatch.setattr(_sparse, "leading_eigenpairs", recording)
    w, V, exact = _sparse._bulk_solve(core, 4, t)
    r = _sparse._residuals(core, w, V)
    assert tols == [_sparse._BULK_LOOSE_TOL] and exact == 3 and (w[:3] > t).all()
    assert w[3] + r[3] <= t and r[:3].max() <= _sparse._EXACT_RESIDUAL < r[3]  # the bulk pair is loose
    w_exact, V_exact = real(core, 3)
    np.testing.assert_allclose(w[:3], w_exact, atol=1e-12)
    np.testing.assert_allclose(V[:, :3], V_exact, atol=1e-9)
    # an edge inside the last pair's residual interval: the loose solve does not settle it
    tols.clear()
    _, _, exact = _sparse._bulk_solve(core, 4, w[3] + r[3] / 2)
    assert tols == [_sparse._BULK_LOOSE_TOL, _sparse._BULK_TOL] and exact == 3
    # eigenpairs above the bulk that are not exact: the tighter solve, and nothing reported exact
    monkeypatch.setattr(_sparse, "_EXACT_RESIDUAL", 0.0)
    tols.clear()
    _, _, exact = _sparse._bulk_solve(core, 4, t)
    assert tols == [_sparse._BULK_LOOSE_TOL, _sparse._BULK_TOL] and exact == 0


@pytest.mark.parametrize("r, exact", [([0.0, 1e-3, 0.0, 0.0], 1), ([0.0, 0.0, 1e-3, 0.0], 2)])
def test_bulk_solve_counts_only_a_leading_run_of_exact_columns(monkeypatch, r, exact):
    """A column above the edge that is not exact sends the solve to the tighter tolerance and ends the run."""
    from semvar.select_k import _sparse
    from semvar.select_k._common import bulk_edge

    core = sp.csr_array(_sparse_sbm([1000, 1000, 1000], 40.0, 10.0, 8), dtype=float)
    tols, real = [], _sparse.leading_eigenpairs
    monkeypatch.setattr(_sparse, "leading_eigenpairs",
                        lambda c, k, **kw: tols.append(kw["tol"]) or real(c, k, **kw))
    monkeypatch.setattr(_sparse, "_residuals", lambda c, w, V, s=None: np.array(r))
    assert _sparse._bulk_solve(core, 4, bulk_edge(core))[2] == exact
    assert tols == [_sparse._BULK_LOOSE_TOL, _sparse._BULK_TOL]


def test_residuals_are_euclidean_norms():
    from semvar.select_k import _sparse

    core = sp.csr_array(_sparse_sbm([300, 300], 20.0, 4.0, 3), dtype=float)
    V = np.random.default_rng(0).standard_normal((600, 3))
    V /= np.linalg.norm(V, axis=0)
    w = np.array([1.0, 0.5, 0.1])
    s = 1 / np.sqrt(core.toarray().sum(1))
    M = core.toarray() * s[:, None] * s[None, :]
    np.testing.assert_allclose(_sparse._residuals(core, w, V), np.linalg.norm(M @ V - V * w, axis=0), rtol=1e-12)


def _components_graph(count, size, seed):
    return sp.csr_array(sp.block_diag([sample_sbm([size], 20.0 / size, 0.0, random_state=seed + i)
                                       for i in range(count)]))


def _meanings_apart(seed):
    """3-6 meanings of 1,200-3,000 texts that no verdict links (sparse, mean degree 6-14), and up to two pairs."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1200, 3000, size=int(rng.integers(3, 7)))
    degree = float(rng.uniform(6, 14))
    blocks = [sample_sbm([int(s)], degree / s, 0.0, random_state=100 * seed + i) for i, s in enumerate(sizes)]
    blocks += [np.ones((2, 2)) - np.eye(2)] * int(rng.integers(0, 3))
    return sp.csr_array(sp.block_diag(blocks)), sizes.size


@pytest.mark.filterwarnings("ignore:.*have no edges:RuntimeWarning")
@pytest.mark.parametrize("seed", [1, 4, 6, 7])
def test_a_core_in_several_components_is_solved_one_component_at_a_time(monkeypatch, seed):
    """Eigenvalue 1 once per component: a Lanczos solve of the whole core found it 1-4 times on these graphs
    (K = 1 for seed 4's six meanings); solved by component, every meaning is found, on both sparse routes."""
    from semvar.pipeline import graph_entropy
    from semvar.select_k import _sparse

    A, meanings = _meanings_apart(seed)
    exact = graph_entropy(A, "auto", random_state=0, return_labels=True, return_k=True)
    monkeypatch.setattr(_sparse.SPARSE, "exact_n", 1000)  # the bulk route
    bulk = graph_entropy(A, "auto", random_state=0, return_labels=True, return_k=True)
    for _, labels, sel in (exact, bulk):
        assert sel.k - sel.n_singletons >= meanings
        assert len(np.unique(labels[:A.shape[0] - 4])) >= meanings  # (the pairs come last)
    assert exact[2].k == bulk[2].k and abs(exact[0] - bulk[0]) < 1e-12


def _split_core():
    blocks = [_sparse_sbm([s], 20.0, 0.0, i) for i, s in enumerate((600, 700, 30, 550))]
    return sp.csr_array(sp.block_diag(blocks + [np.ones((2, 2)) - np.eye(2)]), dtype=float)


def test_a_large_core_in_components_is_decomposed_and_each_meaning_found():
    """A meaning never spans two components: the rule runs on each (large ones by the sparse route)."""
    from semvar.select_k import _sparse, auto

    core = _split_core()
    sel = auto(core, 10)
    assert "parts" in sel.details and sel.details["part_k"].tolist() == [1, 1, 1, 1, 1]
    assert sel.k == 5 and _sparse.components_of(core)[0] == 5
    from semvar.pipeline import graph_entropy

    h, labels = graph_entropy(core, "auto", random_state=0, return_labels=True)
    assert np.array_equal(labels, _sparse.components_of(core)[1])  # each component one cluster, numbered by first text


def _circulant(m, offsets):
    """An exactly ``2 len(offsets)``-regular graph on ``m`` texts (each joined to those ``offsets`` away)."""
    i = np.arange(m)
    rows = np.concatenate([i] * 2 * len(offsets))
    cols = np.concatenate([(i + o) % m for o in offsets] + [(i - o) % m for o in offsets])
    return sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(m, m))


def test_components_of_equal_regular_graphs_are_found():
    """Two copies of one regular graph: a Lanczos start vector near 1 weighs them alike, and its eigenvector
    for the eigenvalue 1 is D^{1/2} 1 to 2e-13, as for a connected core; the components are counted instead."""
    from semvar.pipeline import graph_entropy
    from semvar.select_k import _sparse

    m = 20_000  # 40,000 texts in all: the bulk route
    B = _circulant(m, (3571, 7919, 1223, 5101, 6007, 8111, 2477, 9293))
    A = sp.csr_array(sp.block_diag([B, B]), dtype=float)
    w, V = _sparse.leading_eigenpairs(A, 4, tol=_sparse._BULK_LOOSE_TOL)
    u = np.sqrt(A.sum(1)) / np.linalg.norm(np.sqrt(A.sum(1)))
    assert np.sum(w > 1 - 1e-9) == 1 and abs(abs(V[:, 0] @ u) - 1) < 1e-10  # seen once, as D^{1/2} 1
    count, labels = _sparse.components_of(A)
    assert count == 2 and labels[:m].tolist() == [0] * m and labels[m:].tolist() == [1] * m
    _, labels, sel = graph_entropy(A, "auto", random_state=0, return_labels=True, return_k=True)
    assert sel.k >= 2 and not np.intersect1d(labels[:m], labels[m:]).size  # no cluster spans both (7 did)


def test_components_are_numbered_by_first_text():
    from semvar.select_k import _sparse

    pair = np.ones((2, 2)) - np.eye(2)
    A = sp.csr_array(sp.block_diag([pair, pair, pair]))
    order = np.array([4, 0, 2, 5, 1, 3])  # texts 0 and 1 in components of 4 and 2, ...
    P = A[order][:, order]
    count, labels = _sparse.components_of(P)
    assert count == 3 and labels.tolist() == [0, 1, 2, 0, 1, 2]


@pytest.mark.filterwarnings("ignore:.*have no edges:RuntimeWarning")
def test_the_eigengap_of_a_split_core_on_the_bulk_route_counts_every_component(monkeypatch):
    from semvar.select_k import _sparse

    monkeypatch.setattr(_sparse.SPARSE, "exact_n", 1000)
    A, meanings = _meanings_apart(4)
    sel = eigengap(A, 10)
    assert sel.k - sel.n_singletons >= meanings


def test_the_exact_route_solves_a_split_core_by_component_and_a_connected_one_whole(monkeypatch):
    from semvar.select_k import _sparse

    monkeypatch.setattr(_sparse.SPARSE, "tied_n", 1000)
    seen, real = [], _sparse.leading_eigenpairs
    monkeypatch.setattr(_sparse, "leading_eigenpairs", lambda c, k, **kw: seen.append(c.shape[0]) or real(c, k, **kw))
    assert auto(_components_graph(4, 600, 1)).k == 4
    assert seen == [600] * 4  # one solve per component, none of the whole core
    seen.clear()
    auto(_sparse_sbm([1000, 1000, 1000], 40.0, 10.0, 8))
    assert seen == [3000]


def test_the_clusters_solve_again_when_one_column_is_not_exact(monkeypatch):
    from semvar import spectral
    from semvar.pipeline import graph_entropy
    from semvar.select_k import _sparse

    monkeypatch.setattr(_sparse.SPARSE, "exact_n", 1000)
    real_top = _sparse._bulk_top
    monkeypatch.setattr(_sparse, "_bulk_top", lambda core, kc_max, eigenvalues_only=False: (
        lambda out: (*out[:3], min(out[3], 2)))(real_top(core, kc_max, eigenvalues_only)))
    given, real = [], spectral.spectral_clusters
    monkeypatch.setattr(spectral, "spectral_clusters",
                        lambda *a, **kw: given.append(kw.get("embedding") is not None) or real(*a, **kw))
    _, sel = graph_entropy(_sparse_sbm([1200, 900, 600], 40.0, 10.0, 8), "auto", random_state=4, return_k=True)
    assert sel.k == 3 and given == [False]


def test_the_clusters_reuse_only_the_exact_bulk_eigenvectors(monkeypatch):
    """graph_entropy clusters from the bulk route's eigenvectors when they are exact, else solves again: same answer."""
    from semvar import spectral
    from semvar.pipeline import graph_entropy
    from semvar.select_k import _sparse

    monkeypatch.setattr(_sparse.SPARSE, "exact_n", 1000)
    A = _sparse_sbm([1200, 900, 600], 40.0, 10.0, 8)
    given = []
    real = spectral.spectral_clusters

    def recording(*args, **kwargs):
        given.append(kwargs.get("embedding") is not None)
        return real(*args, **kwargs)

    monkeypatch.setattr(spectral, "spectral_clusters", recording)
    shared = graph_entropy(A, "auto", random_state=4, return_labels=True, return_k=True)
    monkeypatch.setattr(_sparse, "_EXACT_RESIDUAL", 0.0)  # no eigenvector counts as exact: a solve of its own
    solved = graph_entropy(A, "auto", random_state=4, return_labels=True, return_k=True)
    assert given == [True, False]
    assert shared[2].k == solved[2].k == 3 and shared[0] == solved[0]
    assert shared[1].tolist() == solved[1].tolist()


def test_the_thresholds_set_on_the_package_are_the_routes(monkeypatch):
    import semvar.select_k as select_k
    from semvar.select_k import _sparse

    assert select_k.SPARSE is _sparse.SPARSE  # one object: set on the package, read by the route
    assert (select_k.SPARSE.n, select_k.SPARSE.tied_n, select_k.SPARSE.exact_n) == (500, 2000, 20_000)
    A = _sparse_sbm([300, 300], 25.0, 5.0, 2)
    calls = []
    monkeypatch.setattr(_sparse, "_sparse_top", lambda core, k, **kw: calls.append(1) or _sparse.leading_eigenpairs(core, k))
    assert auto(A).k == 2 and calls == [1]
    monkeypatch.setattr(select_k.SPARSE, "n", 10**9)
    assert auto(A).k == 2 and calls == [1]  # the dense route
    monkeypatch.undo()
    assert select_k.SPARSE.n == 500


def test_auto_on_small_components_of_a_large_sparse_core_is_the_dense_answer():
    """525 paths of four texts (2,100 texts): the core is large, so no component asks the eigengap, on either route."""
    path4 = np.eye(4, k=1) + np.eye(4, k=-1)
    A = sp.csr_array(sp.kron(sp.eye(525), path4))
    assert auto(A).k == auto(A.toarray()).k == 525
