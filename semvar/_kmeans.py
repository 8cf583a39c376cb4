"""k-means for the small problems of semantic entropy, in numpy.

A judged graph of 5-50 texts is embedded in a handful of dimensions; clustering
it with :class:`sklearn.cluster.KMeans` costs milliseconds of fixed overhead per
call (argument checks, thread pools), far more than the arithmetic.  This
module holds Lloyd's algorithm with k-means++ seeding (Arthur & Vassilvitskii
2007) for such problems, with all restarts advanced together as one array
operation.  It finds the same optimum as scikit-learn on well-separated data;
``tests/test_kmeans.py`` compares the two on many random graphs.

Private: the public entry points (:func:`semvar.pipeline.semantic_spectral_entropies`,
the selection rules of :mod:`semvar.select_k`) call it with checked input.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import lapack

__all__ = ["kmeans", "kmeans_pivoted"]


def kmeans(
    X: np.ndarray, k: int, rng: np.random.Generator, *, n_init: int = 10, max_iter: int = 300,
) -> tuple[np.ndarray, float]:
    """Cluster the rows of ``X`` into ``k`` groups; return ``(labels, inertia)``.

    Parameters
    ----------
    X : ndarray of shape (n, d), float
        The points (checked by the caller: finite, ``1 <= k <= n``).
    k : int
        Number of clusters.
    rng : numpy.random.Generator
        Draws the k-means++ seeds of every restart.
    n_init : int, default=10
        Number of restarts; the one with the smallest inertia is kept (the
        first of equal ones).
    max_iter : int, default=300
        Largest number of Lloyd iterations per restart.

    Returns
    -------
    labels : ndarray of int64, shape (n,)
        Cluster of each row, ``0..k-1`` (a cluster can be empty when ``X`` has
        fewer than ``k`` distinct rows).
    inertia : float
        Sum of squared distances of the rows to their cluster's mean.

    Notes
    -----
    Seeding (greedy k-means++, as scikit-learn does it): the first centre of
    each restart is a uniformly drawn row; for each further centre,
    ``2 + floor(log k)`` rows are drawn with probability proportional to
    ``D(i)^2``, their squared distance to the nearest centre chosen so far,
    and the one that lowers the sum of ``D^2`` most is kept.
    Lloyd's iteration then alternates assignment to the nearest centre and
    moving each centre to the mean of its rows, until no label changes; a
    centre whose cluster empties stays where it is.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]])
    >>> labels, inertia = kmeans(X, 2, np.random.default_rng(0))
    >>> bool(labels[0] == labels[1] != labels[2] == labels[3]), round(inertia, 3)
    (True, 0.01)
    """
    n, d = X.shape
    if k == 1:
        return np.zeros(n, dtype=np.int64), float(((X - X.mean(0)) ** 2).sum())
    R = n_init
    sq = np.einsum("nd,nd->n", X, X)
    # --- greedy k-means++ seeding, all restarts at once
    C = np.empty((R, k, d))
    C[:, 0] = X[rng.integers(n, size=R)]
    D2 = _sqdist(X, sq, C[:, :1])[:, :, 0]  # (R, n): squared distance to the nearest centre so far
    pair = np.maximum(sq[:, None] - 2.0 * X @ X.T + sq[None, :], 0.0)  # (n, n) squared distances
    trials = 2 + int(np.log(k))
    rows = np.arange(R)
    for c in range(1, k):
        cum = np.cumsum(D2, axis=1)
        total = cum[:, -1]
        u = rng.random((R, trials)) * total[:, None]
        cand = np.minimum((cum[:, None, :] <= u[:, :, None]).sum(2), n - 1)  # (R, trials)
        # all points coincide with chosen centres (total 0): any row will do
        cand = np.where(total[:, None] > 0, cand, rng.integers(n, size=(R, trials)))
        pot = np.minimum(D2[:, None, :], pair[cand]).sum(2)  # (R, trials): potential after adding each candidate
        best = cand[rows, pot.argmin(1)]
        C[:, c] = X[best]
        D2 = np.minimum(D2, pair[best])
    # --- Lloyd iterations, all restarts at once
    slots = np.arange(k)
    dist = _sqdist(X, sq, C)
    labels = dist.argmin(2)
    for _ in range(max_iter):
        onehot = (labels[:, :, None] == slots).astype(float)  # (R, n, k)
        counts = onehot.sum(1)  # (R, k)
        sums = np.matmul(onehot.transpose(0, 2, 1), X)  # (R, k, d)
        C = np.where(counts[:, :, None] > 0, sums / np.maximum(counts, 1.0)[:, :, None], C)
        dist = _sqdist(X, sq, C)
        new = dist.argmin(2)
        if np.array_equal(new, labels):
            break
        labels = new
    inertia = np.take_along_axis(dist, labels[:, :, None], axis=2)[:, :, 0].sum(1)
    best = int(np.argmin(inertia))
    return labels[best].astype(np.int64), float(inertia[best])


def _sqdist(X: np.ndarray, sq: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Squared distances ``(R, n, k)`` between the rows of ``X`` (squared norms ``sq``) and centres ``C`` (R, k, d).

    ``|x|^2 - 2 x.c + |c|^2``, one batched matrix product; tiny negative
    values from cancellation are clipped to zero.
    """
    cross = np.matmul(X, C.transpose(0, 2, 1))  # (R, n, k)
    csq = np.einsum("rkd,rkd->rk", C, C)
    d = sq[None, :, None] - 2.0 * cross + csq[:, None, :]
    return np.maximum(d, 0.0, out=d)


def kmeans_pivoted(X: np.ndarray, k: int, *, max_iter: int = 300) -> np.ndarray:
    """One deterministic k-means run started from ``k`` rows chosen by a pivoted QR; return the labels.

    For a spectral embedding ``X`` (rows of the ``k`` leading eigenvectors) the
    column-pivoted QR factorisation of ``X.T`` picks ``k`` rows that are as
    far from linearly dependent as possible, in practice one from each
    cluster (Damle, Minden & Ying 2019); Lloyd's iteration from them is one
    run instead of ten.  Used where many values of ``k`` are compared (the
    selection rules); the clusters reported for the chosen ``k`` come from
    :func:`kmeans` with restarts.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    >>> kmeans_pivoted(X, 2).tolist()
    [0, 0, 1, 1]
    """
    n = X.shape[0]
    if k == 1:
        return np.zeros(n, dtype=np.int64)
    geqp3 = lapack.get_lapack_funcs("geqp3", (X,))
    piv = geqp3(np.array(X.T, order="F"), overwrite_a=1)[1] - 1  # LAPACK's column-pivoted QR, 1-based pivots
    C = X[piv[:k]].copy()
    eye = np.eye(k)
    labels = None
    for _ in range(max_iter):
        new = (np.einsum("kd,kd->k", C, C) - 2.0 * (X @ C.T)).argmin(1)  # |x|^2 does not move the argmin
        if labels is not None and np.array_equal(new, labels):
            break
        labels = new
        onehot = eye[labels]
        counts = onehot.sum(0)
        C = np.where(counts[:, None] > 0, (onehot.T @ X) / np.maximum(counts, 1.0)[:, None], C)
    return labels.astype(np.int64)
