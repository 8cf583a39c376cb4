"""Repeated eigenvalues at the cut: the embedding must not depend on the eigensolver's basis.

A graph with more connected components than ``k`` has its ``k``-th eigenvalue
tied with the next; any ``k`` vectors of the tied eigenspace are "the top ``k``",
and a solver picks them by its floating-point rounding, which differs between
CPUs.  ``semvar.spectral`` settles the choice from the eigenspace alone.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as la
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar.spectral import _settle_tie, spectral_embedding, spectral_matrix


def _cliques(sizes):
    labels = np.repeat(np.arange(len(sizes)), sizes)
    return (labels[:, None] == labels[None, :]).astype(float) - np.eye(labels.size)


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
