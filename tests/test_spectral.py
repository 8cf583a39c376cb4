"""Tests of semvar.spectral: spectral matrices, embeddings, tied eigenvalues, leading eigenpairs, clusters.

Dense and sparse inputs, the matrix-free operators of the sparse path, the
regularised and centred spectra, the basis chosen inside a tied eigenspace,
and the input checks of every public function.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.linalg as la
import scipy.sparse as sp
import scipy.sparse.linalg as sla
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import adjusted_rand_score

from semvar.graph import adjacency_from_verdicts, block_labels, random_pairs, sample_sbm
from semvar.spectral import (
    DENSE_LIMIT,
    OPERATOR_DENSE_LIMIT,
    _settle_tie,
    canonical_labels,
    leading_eigenpairs,
    spectral_clusters,
    spectral_embedding,
    spectral_matrix,
)


def _two_triangles():
    return np.kron(np.eye(2), np.ones((3, 3))) - np.eye(6)


def _cliques(sizes):
    labels = np.repeat(np.arange(len(sizes)), sizes)
    return (labels[:, None] == labels[None, :]).astype(float) - np.eye(labels.size)


def _dense(M):
    return M.toarray() if sp.issparse(M) else np.asarray(M)


def _aligned(U, V):
    """V's columns with the signs that best match U's."""
    return V * np.sign(np.einsum("ij,ij->j", U, V))


# --------------------------------------------------------------------------- canonical labels
@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-3, 9), min_size=1, max_size=40))
def test_canonical_labels_number_clusters_by_first_appearance(labels):
    """The same partition, numbered 0, 1, 2, ... in order of first appearance."""
    out = canonical_labels(labels)
    arr = np.asarray(labels)
    assert out.dtype == np.int64 and out.shape == arr.shape
    assert np.array_equal(arr[:, None] == arr[None, :], out[:, None] == out[None, :])  # the same partition
    firsts = [int(out[i]) for i in range(out.size) if out[i] not in out[:i]]
    assert firsts == list(range(len(set(labels))))
    assert np.array_equal(canonical_labels(out), out)  # a fixed point


# --------------------------------------------------------------------------- clusters
def test_two_block_noiseless_graph_exact_recovery():
    A = np.kron(np.eye(2), np.ones((5, 5))) - np.eye(10)
    for lap in ("normalized", "unnormalized"):
        assert spectral_clusters(A, 2, laplacian=lap, random_state=1).tolist() == [0] * 5 + [1] * 5


def test_sparse_and_dense_agree():
    A = sample_sbm([30, 30, 40], 0.6, 0.1, random_state=3)
    a = spectral_clusters(A, 3, random_state=0)
    b = spectral_clusters(A.toarray(), 3, random_state=0)
    assert (a == b).all()


def test_check_input_false_gives_the_same_clusters():
    A = sample_sbm([30, 40, 50], 0.5, 0.05, random_state=0)
    assert np.array_equal(
        spectral_clusters(A, 3, random_state=2), spectral_clusters(A, 3, random_state=2, check_input=False)
    )
    with pytest.raises(ValueError, match="check_input must be True or False"):
        spectral_clusters(A, 3, check_input=1)


def test_isolated_node_warns_not_nan():
    A = np.kron(np.eye(2), np.ones((4, 4))) - np.eye(8)
    A = np.pad(A, ((0, 1), (0, 1)))
    with pytest.warns(RuntimeWarning, match="no edges"):
        labels = spectral_clusters(A, 2, random_state=0)
    assert np.all(np.isfinite(labels))


@pytest.mark.parametrize(
    "adj, k, msg",
    [
        (np.ones((3, 4)), 2, "square"),
        (np.array([[0, 1.0], [0, 0]]), 1, "symmetric"),
        (np.array([[0, -1.0], [-1, 0]]), 1, "non-negative"),
        (np.array([[0, np.nan], [np.nan, 0]]), 1, "NaN"),
        (np.ones((3, 3)), 0, "k must be >= 1"),
        (np.ones((3, 3)), 4, "k must be <= 3"),
        (np.ones((3, 3)), 1.5, "k must be an integer"),
    ],
)
def test_spectral_bad_input(adj, k, msg):
    with pytest.raises(ValueError, match=msg):
        spectral_clusters(adj, k)


def test_spectral_bad_sparse_input():
    with pytest.raises(ValueError, match="symmetric"):
        spectral_clusters(sp.csr_array(np.array([[0, 1.0], [0, 0]])), 1)


# --------------------------------------------------------------------------- the sparse path and its spectra
def test_centered_embedding_of_two_triangles_by_hand():
    # rho = 12 edges-ends / 30 ordered pairs = 0.4; A - 0.4 (J - I) has the
    # block-contrast vector (1,1,1,-1,-1,-1)/sqrt(6) as its top eigenvector
    U = spectral_embedding(_two_triangles(), 2, laplacian="centered")
    v = np.array([1, 1, 1, -1, -1, -1]) / np.sqrt(6)
    assert U.shape == (6, 1)
    assert abs(U[:, 0] @ v) == pytest.approx(1.0)


def test_centered_with_full_mask_equals_default():
    A = sample_sbm([20, 30], 0.7, 0.2, random_state=0)
    mask = sp.csr_array(np.ones((50, 50)) - np.eye(50))
    U1 = spectral_embedding(A, 2, laplacian="centered")
    U2 = spectral_embedding(A, 2, laplacian="centered", observed=mask)
    assert abs(U1[:, 0] @ U2[:, 0]) == pytest.approx(1.0)


def test_regularized_tau_zero_spans_normalized_subspace():
    A = sample_sbm([30, 30, 40], 0.5, 0.05, random_state=2)
    U = spectral_embedding(A, 3, laplacian="normalized")
    R = spectral_embedding(A, 3, laplacian="regularized", tau=0.0)
    # rows of R are rows of U rescaled to unit length: same directions
    Un = U / np.linalg.norm(U, axis=1, keepdims=True)
    proj = Un @ np.linalg.lstsq(Un, R, rcond=None)[0]
    assert np.allclose(proj, R, atol=1e-8)


@pytest.mark.parametrize("laplacian", ["normalized", "regularized", "centered"])
def test_sparse_input_never_densified(monkeypatch, laplacian):
    sizes = [900, 800, 700]
    assert sum(sizes) > DENSE_LIMIT
    A = sample_sbm(sizes, 0.02, 0.002, random_state=1)

    def boom(*args, **kwargs):  # pragma: no cover - only called on failure
        raise AssertionError("a sparse adjacency was turned into a dense matrix")

    monkeypatch.setattr(sp.csr_array, "toarray", boom)
    monkeypatch.setattr(sp.csr_matrix, "toarray", boom)
    monkeypatch.setattr(sp.coo_array, "toarray", boom)
    labels = spectral_clusters(A, 3, laplacian=laplacian, random_state=0)
    assert adjusted_rand_score(block_labels(sizes), labels) > 0.95


def test_operator_path_solves_the_eigenproblem():
    sizes = [800, 800, 800]
    A = sample_sbm(sizes, 0.03, 0.003, random_state=4)
    U = spectral_embedding(A, 3)
    # the explicit sparse normalised matrix, built independently of the operator
    d = np.asarray(A.sum(axis=1)).ravel()
    M = sp.diags_array(1 / np.sqrt(d)) @ A @ sp.diags_array(1 / np.sqrt(d))
    lam = np.einsum("ij,ij->j", U, M @ U)
    assert np.allclose(M @ U, U * lam, atol=1e-8)
    assert np.allclose(U.T @ U, np.eye(3), atol=1e-10)
    assert lam[0] == pytest.approx(1.0) and lam[1] < 1.0  # connected graph: 1 is simple and largest


def test_regularization_rescues_very_sparse_graphs():
    """Mean degree ~3: components and low-degree nodes swamp D^-1/2 A D^-1/2."""
    sizes = [800, 800, 800]
    truth = block_labels(sizes)
    plain, reg = [], []
    for seed in range(4):
        A = sample_sbm(sizes, 3 / 800, 0.3 / 1600, random_state=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            plain.append(adjusted_rand_score(truth, spectral_clusters(A, 3, random_state=0)))
        reg.append(adjusted_rand_score(truth, spectral_clusters(A, 3, laplacian="regularized", random_state=0)))
    assert np.mean(reg) >= 0.6 and np.mean(plain) <= 0.3


def test_centering_rescues_high_q_judge():
    """A Ministral-like judge (p=0.99, q=0.77) on 20% of pairs: centring on the mask recovers."""
    sizes = [200, 300, 500]
    truth = block_labels(sizes)
    rng = np.random.default_rng(0)
    pairs = random_pairs(1000, 0.2, random_state=rng)
    same = truth[pairs[:, 0]] == truth[pairs[:, 1]]
    verdicts = rng.random(len(pairs)) < np.where(same, 0.99, 0.77)
    A, O = adjacency_from_verdicts(1000, pairs, verdicts, return_mask=True)
    plain = adjusted_rand_score(truth, spectral_clusters(A, 3, random_state=0))
    centred = adjusted_rand_score(truth, spectral_clusters(A, 3, laplacian="centered", observed=O, random_state=0))
    assert centred > 0.99 and plain < 0.6


def test_degenerate_dense_spectrum_returns_k_vectors():
    # many isolated nodes and tiny components: LAPACK's subset driver may return
    # fewer eigenvectors than asked; the embedding must still have k columns
    rng = np.random.default_rng(2)
    P = random_pairs(1000, 0.004, random_state=rng)
    A = adjacency_from_verdicts(1000, P, rng.random(len(P)) < 0.3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert spectral_embedding(A, 3).shape == (1000, 3)
        assert spectral_clusters(A, 3, random_state=0).shape == (1000,)


@pytest.mark.parametrize(
    "kw, msg",
    [
        ({"laplacian": "spectral"}, "laplacian must be one of"),
        ({"laplacian": "normalized", "tau": 1.0}, "tau applies only"),
        ({"laplacian": "regularized", "tau": -1.0}, "tau must lie"),
        ({"laplacian": "normalized", "observed": np.ones((6, 6))}, "observed applies only"),
        ({"laplacian": "centered", "observed": np.ones((5, 5))}, "observed must have the shape"),
        ({"laplacian": "centered", "observed": np.zeros((6, 6))}, "edges on pairs that observed marks"),
    ],
)
def test_laplacian_options_bad_input(kw, msg):
    with pytest.raises(ValueError, match=msg):
        spectral_clusters(_two_triangles(), 2, **kw)
    with pytest.raises(ValueError, match=msg):
        spectral_embedding(_two_triangles(), 2, **kw)


# --------------------------------------------------------------------------- spectral_matrix
def test_spectral_matrix_hand_computed():
    # a path 0 - 1 - 2: degrees 1, 2, 1
    A = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=float)
    r = 1 / np.sqrt(2)
    assert np.allclose(spectral_matrix(A), [[0, r, 0], [r, 0, r], [0, r, 0]])
    assert np.allclose(spectral_matrix(A, "unnormalized"), [[1, -1, 0], [-1, 2, -1], [0, -1, 1]])
    # one edge, tau = 1: D_tau = 2 I and A + (1/2) 1 1^T = [[.5, 1.5], [1.5, .5]], halved
    B = np.array([[0, 1.0], [1, 0]])
    assert np.allclose(spectral_matrix(B, "regularized", tau=1.0), [[0.25, 0.75], [0.75, 0.25]])
    # tau defaults to the mean degree (1 here)
    assert np.allclose(spectral_matrix(B, "regularized"), [[0.25, 0.75], [0.75, 0.25]])
    # centred on a mask that observed pairs (0, 1) and (1, 2) only: rho = 2 / 4
    O = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=float)
    A2 = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]], dtype=float)
    assert np.allclose(spectral_matrix(A2, "centered", observed=O), [[0, 0.5, 0], [0.5, 0, -0.5], [0, -0.5, 0]])
    # an isolated node has a zero row in the normalised matrix
    C = np.pad(B, ((0, 1), (0, 1)))
    assert np.allclose(spectral_matrix(C)[2], 0)


@pytest.mark.parametrize("laplacian", ["normalized", "unnormalized", "regularized", "centered"])
def test_spectral_matrix_sparse_dense_and_operator_agree(laplacian):
    A = sample_sbm([20, 30, 25], 0.4, 0.05, random_state=6)
    M_sparse = spectral_matrix(A, laplacian)
    M_dense = spectral_matrix(A.toarray(), laplacian)
    assert sp.issparse(M_sparse) == (laplacian in ("normalized", "unnormalized"))
    assert np.allclose(_dense(M_sparse), M_dense, atol=1e-14)
    op = spectral_matrix(A, laplacian, operator=True)
    X = np.random.default_rng(0).normal(size=(75, 3))
    assert np.allclose(np.column_stack([op.matvec(x) for x in X.T]), M_dense @ X, atol=1e-12)
    assert np.allclose(M_dense, M_dense.T)


@pytest.mark.parametrize(
    "laplacian, sizes, kw",
    [
        ("normalized", [600, 700, 800], {}),  # n > DENSE_LIMIT: the matrix-free operator
        ("unnormalized", [600, 700, 800], {}),  # sparse ARPACK on D - A
        ("regularized", [120, 150, 180], {}),  # n > OPERATOR_DENSE_LIMIT
        ("regularized", [120, 150, 180], {"tau": 3.0}),
        ("centered", [120, 150, 180], {}),
        ("centered", [120, 150, 180], {"observed": "mask"}),
    ],
)
def test_spectral_matrix_matches_the_solver_path(laplacian, sizes, kw):
    """The explicit matrix, diagonalised densely, gives the embedding spectral_clusters uses (up to sign)."""
    n = sum(sizes)
    assert n > (DENSE_LIMIT if laplacian in ("normalized", "unnormalized") else OPERATOR_DENSE_LIMIT)
    rng = np.random.default_rng(1)
    if kw.get("observed") == "mask":
        truth = block_labels(sizes)
        P = random_pairs(n, 0.5, random_state=rng)
        same = truth[P[:, 0]] == truth[P[:, 1]]
        A, O = adjacency_from_verdicts(n, P, rng.random(len(P)) < np.where(same, 0.8, 0.3), return_mask=True)
        kw = {"observed": O}
    else:
        A = sample_sbm(sizes, 0.08 if n > 1000 else 0.3, 0.01 if n > 1000 else 0.05, random_state=3)
    k = 3
    m = k - 1 if laplacian == "centered" else k
    M = _dense(spectral_matrix(A, laplacian, **kw))
    vals, vecs = np.linalg.eigh(M)
    if laplacian == "unnormalized":
        lam, V = vals[:m], vecs[:, :m]
    else:
        lam, V = vals[::-1][:m], vecs[:, ::-1][:, :m]
    assert np.all(np.abs(np.diff(vals[::-1][: m + 1] if laplacian != "unnormalized" else vals[: m + 1])) > 1e-6)
    U = spectral_embedding(A, k, laplacian=laplacian, **kw)  # the solver path of spectral_clusters
    if laplacian == "regularized":
        V = V / np.linalg.norm(V, axis=1, keepdims=True)  # its rows are scaled to unit length
    else:
        assert np.allclose(np.einsum("ij,ij->j", U, M @ U), lam, atol=1e-8)  # same eigenvalues
    assert np.allclose(U, _aligned(U, V), atol=1e-6)
    # the matrix-free operator has the same leading eigenvalues
    op = spectral_matrix(A, laplacian, operator=True, **kw)
    mu = sla.eigsh(op, k=m, which="SA" if laplacian == "unnormalized" else "LA", return_eigenvectors=False)
    assert np.allclose(np.sort(mu), np.sort(lam), atol=1e-8)


@pytest.mark.parametrize(
    "args, kw, msg",
    [
        ((np.ones((2, 3)),), {}, "square"),
        ((np.array([[0, 1.0], [0, 0]]),), {}, "symmetric"),
        ((np.eye(2), "random-walk"), {}, "laplacian must be one of"),
        ((np.eye(2), "normalized"), {"tau": 1.0}, "tau applies only"),
        ((np.eye(2), "regularized"), {"tau": -1.0}, "tau must lie"),
        ((np.zeros((2, 2)), "regularized"), {"tau": 0.0}, "needs tau > 0"),
        ((np.eye(2), "centered"), {"observed": np.ones((3, 3))}, "observed must have the shape"),
        ((np.eye(2),), {"operator": "yes"}, "operator must be True or False"),
    ],
)
def test_spectral_matrix_bad_input(args, kw, msg):
    with pytest.raises(ValueError, match=msg):
        spectral_matrix(*args, **kw)


# --------------------------------------------------------------------------- tied eigenvalues at the cut
# A graph with more connected components than ``k`` has its ``k``-th eigenvalue
# tied with the next; any ``k`` vectors of the tied eigenspace are "the top ``k``",
# and a solver picks them by its floating-point rounding, which differs between
# CPUs.  semvar.spectral settles the choice from the eigenspace alone.
def _rotate_tied(vals, vecs, tol, rng):
    """The same eigen-decomposition with another orthonormal basis of every group of tied eigenvalues."""
    vecs = vecs.copy()
    start = 0
    while start < vals.size:
        stop = start + 1
        while stop < vals.size and abs(vals[stop] - vals[start]) <= tol:
            stop += 1
        if stop - start > 1:
            Q = np.linalg.qr(rng.standard_normal((stop - start, stop - start)))[0]
            vecs[:, start:stop] = vecs[:, start:stop] @ Q
        start = stop
    return vecs


@settings(max_examples=30, deadline=None)
@given(sizes=st.lists(st.integers(2, 6), min_size=4, max_size=7), k=st.integers(2, 3),
       laplacian=st.sampled_from(["normalized", "unnormalized"]), seed=st.integers(0, 2**32 - 1))
def test_settled_columns_depend_on_the_eigenspace_not_on_its_basis(sizes, k, laplacian, seed):
    M = spectral_matrix(_cliques(sizes), laplacian)
    vals, vecs = la.eigh(M)
    if laplacian == "normalized":
        vals, vecs = vals[::-1], vecs[:, ::-1]
    tol = 1e-8 * max(1.0, np.abs(M).sum(axis=1).max())
    assert abs(vals[k - 1] - vals[k]) <= tol  # more components than k: a tie at the cut
    other = _rotate_tied(vals, vecs, tol, np.random.default_rng(seed))
    a, b = _settle_tie(vals, vecs, k, tol), _settle_tie(vals, other, k, tol)
    assert a.shape == (M.shape[0], k)
    np.testing.assert_allclose(a @ a.T, b @ b.T, atol=1e-10)  # the same subspace
    np.testing.assert_allclose(np.abs(a.T @ b), np.eye(k), atol=1e-8)  # column by column


def test_settled_columns_are_orthonormal_eigenvectors():
    A = _cliques([5, 4, 3, 3, 2])
    for laplacian, value in (("normalized", 1.0), ("unnormalized", 0.0)):
        U = spectral_embedding(A, 3, laplacian=laplacian)
        M = spectral_matrix(A, laplacian)
        np.testing.assert_allclose(U.T @ U, np.eye(3), atol=1e-12)
        np.testing.assert_allclose(M @ U, value * U, atol=1e-12)


def test_column_signs_are_fixed():
    rng = np.random.default_rng(3)
    A = np.triu((rng.random((30, 30)) < 0.3).astype(float), 1)
    A = A + A.T
    U = spectral_embedding(A, 4)
    top = U[np.argmax(np.abs(U), axis=0), np.arange(4)]
    assert (top > 0).all()


# --------------------------------------------------------------------------- leading eigenpairs
def test_leading_eigenpairs_equal_the_dense_solver():
    """Lanczos on the operator: the dense solver's eigenvalues, and its eigenvectors up to sign (distinct eigenvalues)."""
    A = sample_sbm([120, 100, 80], 0.12, 0.01, random_state=9)
    assert A.sum(axis=1).min() > 0
    w, V = leading_eigenpairs(A, 5)
    d = np.asarray(A.sum(axis=1)).ravel()
    M = A.toarray() / np.sqrt(np.outer(d, d))
    vals, vecs = np.linalg.eigh(M)
    vals, vecs = vals[::-1][:5], vecs[:, ::-1][:, :5]
    np.testing.assert_allclose(w, vals, atol=1e-10)
    assert np.all(np.diff(w) <= 0) and V.shape == (300, 5)
    signs = np.sign(vecs[np.argmax(np.abs(vecs), axis=0), np.arange(5)])
    np.testing.assert_allclose(V, vecs * signs, atol=1e-8)
    assert np.all(V[np.argmax(np.abs(V), axis=0), np.arange(5)] > 0)  # signs fixed
    w4, _ = leading_eigenpairs(A, 5, tol=1e-4)  # a coarser solve: the same eigenvalues to that accuracy
    np.testing.assert_allclose(w4, w, atol=1e-3)
    # a larger Lanczos basis, and the check skipped on checked input: the same eigenpairs to rounding
    w40, V40 = leading_eigenpairs(sp.csr_array(A, dtype=float), 5, ncv=40, check_input=False)
    np.testing.assert_allclose(w40, w, atol=1e-12)
    np.testing.assert_allclose(V40, V, atol=1e-8)


@pytest.mark.parametrize(
    "args, kwargs, match",
    [
        ((np.pad(np.ones((4, 4)) - np.eye(4), ((0, 1), (0, 1))), 2), {}, "without an edge"),
        ((np.ones((5, 5)) - np.eye(5), 4), {}, "k must be"),
        ((np.ones((5, 5)) - np.eye(5), 0), {}, "k must be"),
        ((np.ones((5, 5)) - np.eye(5), 2), {"tol": -1.0}, "tol"),
        ((np.triu(np.ones((5, 5)), 1), 2), {}, "symmetric"),
        ((np.ones((6, 6)) - np.eye(6), 2), {"ncv": 2}, "ncv"),
        ((np.ones((6, 6)) - np.eye(6), 2), {"ncv": 7}, "ncv"),
        ((np.ones((6, 6)) - np.eye(6), 2), {"ncv": 3.5}, "ncv"),
        ((np.ones((6, 6)) - np.eye(6), 2), {"check_input": "no"}, "check_input"),
    ],
)
def test_leading_eigenpairs_bad_input(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        leading_eigenpairs(*args, **kwargs)


def test_canonical_labels_compare_values_of_one_kind():
    assert canonical_labels(["a", "a\x00", "a"]).tolist() == [0, 1, 0]  # numpy's str dtype would merge them
    with pytest.raises(ValueError, match="one kind"):
        canonical_labels([1, "1"])
