"""k-means for the small problems of semantic entropy, in numpy: many problems at once.

A judged graph of 5-300 texts is embedded in a handful of dimensions;
clustering it with :class:`sklearn.cluster.KMeans` costs milliseconds of fixed
overhead per call (argument checks, thread pools), far more than the
arithmetic.  This module holds the package's one k-means for such problems:
Lloyd's algorithm with greedy k-means++ seeding (Arthur & Vassilvitskii 2007),
every restart of every problem of a stack ``(B, n, d)`` advanced together as
one array operation (a problem whose restarts have all converged leaves the
stack; the centres of all restarts of a problem meet its points in one matrix
product; problems go through in blocks of :data:`BLOCK`, whose work arrays stay
in cache), and the deterministic single run started from rows chosen by a
pivoted QR.  One problem is a stack of one (:func:`kmeans`,
:func:`kmeans_pivoted`), so a single graph and a batch of graphs are clustered
by the same code.  It finds the same optimum as scikit-learn on
well-separated data; ``tests/test_kmeans.py`` compares the two on many random
graphs.

Large graphs keep :class:`sklearn.cluster.KMeans` (:mod:`semvar.spectral`):
the seeding here holds the ``n x n`` matrix of squared distances of each
problem, which is what makes it fast for small ``n`` and impossible for large.

Private: the public entry points (:func:`semvar.pipeline.graph_entropy`,
:func:`semvar.pipeline.semantic_spectral_entropies`, the selection rules of
:mod:`semvar.select_k`) call it with checked input.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.linalg import lapack

from ._streams import agrees, generator_draws, kmeans_draws, kmeans_plan

__all__ = ["kmeans", "kmeans_pivoted", "kmeans_many", "pivoted_many", "indicators", "cluster_sizes"]

MAX_ITER = 300

#: Problems clustered together: their work arrays (restarts x texts x centres) stay in cache.
BLOCK = 256

#: Problems whose seeding draws are made together (at most about 100 MB of draws and streams at k = 10).
DRAWS_BLOCK = 16 * BLOCK

#: Measured costs (microseconds, one core) that decide how int seeds are drawn from: a generator per
#: problem (a fixed cost and one per centre after the first), or all problems' streams computed together
#: as arrays (:mod:`semvar._streams`: a fixed cost and one per 64-bit output of each stream).
GENERATOR_US, CENTRE_US, ARRAYS_US, OUTPUT_US = 15.0, 6.0, 250.0, 0.025


def kmeans(
    X: np.ndarray, k: int, rng: np.random.Generator, *, n_init: int = 10, max_iter: int = MAX_ITER,
) -> tuple[np.ndarray, float]:
    """Cluster the rows of ``X`` into ``k`` groups; return ``(labels, inertia)``: :func:`kmeans_many` of one.

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

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]])
    >>> labels, inertia = kmeans(X, 2, np.random.default_rng(0))
    >>> bool(labels[0] == labels[1] != labels[2] == labels[3]), round(inertia, 3)
    (True, 0.01)
    """
    if k == 1:
        return np.zeros(X.shape[0], dtype=np.int64), float(((X - X.mean(0)) ** 2).sum())
    labels, inertia = kmeans_many(X[None], k, [rng], n_init=n_init, max_iter=max_iter)
    return labels[0], float(inertia[0])


def kmeans_many(
    X: np.ndarray, k: int, rngs: Sequence[np.random.Generator | int], *, n_init: int = 10, max_iter: int = MAX_ITER,
) -> tuple[np.ndarray, np.ndarray]:
    """k-means with ``n_init`` restarts of each problem ``X[b]`` (B, n, d) into ``k >= 2`` groups.

    ``rngs[b]`` draws problem ``b``'s k-means++ seeds: a generator, or an
    int ``seed`` standing for ``numpy.random.default_rng(seed)`` (a seed
    below ``2**32`` may be drawn from as an array with others; any other
    is given to numpy as it is).  The draws
    come in this order: the first centre of every restart
    (``integers(n, size=n_init)``), then for each further centre the
    uniforms and the fallback rows of its candidates.  Returns the labels
    ``(B, n)`` of each problem's best restart (the smallest inertia, the
    first of equal ones) and those inertias ``(B,)``.

    Notes
    -----
    Seeding (greedy k-means++, as scikit-learn does it): the first centre of
    each restart is a uniformly drawn row; for each further centre,
    ``2 + floor(log k)`` rows are drawn with probability proportional to
    ``D(i)^2``, their squared distance to the nearest centre chosen so far,
    and the one that lowers the sum of ``D^2`` most is kept.  Lloyd's
    iteration then alternates assignment to the nearest centre and moving
    each centre to the mean of its rows, until no label of any restart of
    the problem changes; a centre whose cluster empties stays where it is.

    Where every problem comes with an int seed and there are enough of
    them to pay for it (:func:`arrays_pay`), their draws are computed
    together by :mod:`semvar._streams` (numpy's streams as array operations,
    the same numbers); otherwise each problem's generator draws them.
    """
    X = np.ascontiguousarray(X, dtype=float)  # one layout, whatever view the caller holds: the same rounding
    B, n, d = X.shape
    labels = np.empty((B, n), dtype=np.int64)
    inertia = np.empty(B)
    for t in range(0, B, DRAWS_BLOCK):  # the draws of a few thousand problems at a time: bounded memory
        f = min(B, t + DRAWS_BLOCK)
        first, unif, fallback = _draws(rngs[t:f], n, k, n_init)
        for s in range(t, f, BLOCK):  # blocks small enough for the work arrays to stay in cache
            e = min(f, s + BLOCK)
            labels[s:e], inertia[s:e] = _restarts(X[s:e], k, first[s - t:e - t], unif[s - t:e - t],
                                                  fallback[s - t:e - t], max_iter)
    return labels, inertia


def arrays_pay(B: int, k: int, n_init: int) -> bool:
    """Whether ``B`` problems' seeding draws are faster as arrays than from one generator each.

    The costs of :data:`GENERATOR_US` and its neighbours; :func:`semvar._streams.kmeans_plan`
    counts a stream's outputs.  On the machine they were measured on, the arrays pay from about
    ten problems, for every ``k`` from 2 to 10.
    """
    outputs = kmeans_plan(k, n_init)[0]
    return B * (GENERATOR_US + CENTRE_US * (k - 1)) > ARRAYS_US + OUTPUT_US * B * outputs


def _draws(rngs: Sequence[np.random.Generator | int], n: int, k: int, n_init: int):
    """The seeding draws ``(first, unif, fallback)`` of every problem, in the order :func:`kmeans_many` states."""
    B = len(rngs)
    redo: list[int] | range
    seeds = [r for r in rngs if isinstance(r, (int, np.integer)) and not isinstance(r, bool) and 0 <= r < 2**32]
    if len(seeds) == B and arrays_pay(B, k, n_init) and agrees():  # seeds the arrays take, every one
        first, unif, fallback, ok = kmeans_draws(np.asarray(seeds, dtype=np.int64), n, k, n_init)
        redo = np.flatnonzero(~ok).tolist()  # a draw numpy would have rejected: numpy draws that problem
    else:
        trials = 2 + int(np.log(k))
        first = np.empty((B, n_init), dtype=np.int64)
        unif = np.empty((B, k - 1, n_init, trials))
        fallback = np.empty((B, k - 1, n_init, trials), dtype=np.int64)
        redo = range(B)
    for b in redo:
        rng = rngs[b]
        rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(int(rng))
        first[b], unif[b], fallback[b] = generator_draws(rng, n, k, n_init)
    return first, unif, fallback


def _restarts(X, k, first, unif, fallback, max_iter):
    """Seed and run every restart of each problem of ``X`` (B, n, d) from its draws; the best labels, inertias."""
    B, n, d = X.shape
    R = first.shape[1]
    RK = R * k
    sq = np.einsum("bnd,bnd->bn", X, X)
    bidx = np.arange(B)
    C = np.empty((B, R, k, d))
    C[:, :, 0] = X[bidx[:, None], first]
    D2 = _sqdist(X, sq, C[:, :, :1])[:, :, :, 0]  # (B, R, n): squared distance to the nearest centre so far
    pair = np.maximum(sq[:, :, None] - np.matmul(2.0 * X, X.transpose(0, 2, 1)) + sq[:, None, :], 0.0)
    rows = np.arange(R)
    for c in range(1, k):
        cum = np.cumsum(D2, axis=2)
        total = cum[:, :, -1]
        u = unif[:, c - 1] * total[:, :, None]
        cand = np.minimum((cum[:, :, None, :] <= u[:, :, :, None]).sum(3), n - 1)  # (B, R, trials)
        # all points coincide with chosen centres (total 0): any row will do
        cand = np.where(total[:, :, None] > 0, cand, fallback[:, c - 1])
        pot = np.minimum(D2[:, :, None, :], pair[bidx[:, None, None], cand]).sum(3)  # potential after each candidate
        best = cand[bidx[:, None], rows[None, :], pot.argmin(2)]  # (B, R)
        C[:, :, c] = X[bidx[:, None], best]
        D2 = np.minimum(D2, pair[bidx[:, None], best])
    # Lloyd's iterations, every restart's centres side by side: distances (B, n, R * k), labels (B, n, R)
    shift = k * np.arange(R)  # restart r's centres are slots r * k, ..., r * k + k - 1 of the R * k
    Cf = C.reshape(B, RK, d)
    dist = _sqdist_flat(X, sq, Cf)
    labels = dist.reshape(B, n, R, k).argmin(3)
    act = np.arange(B)  # the problems with a restart still moving; the others' labels and distances are final
    Xa, sqa, Ca = X, sq, Cf
    for _ in range(max_iter):
        la = labels[act]
        slot = la + shift  # (b, n, R): each text's centre among the R * k of its problem
        onehot = indicators(slot, RK)
        counts = cluster_sizes(slot.reshape(act.size, n * R), RK)  # (b, R * k)
        sums = np.matmul(onehot.transpose(0, 2, 1), Xa)  # (b, R * k, d)
        Ca = np.where(counts[:, :, None] > 0, sums / np.maximum(counts, 1.0)[:, :, None], Ca)
        dist_new = _sqdist_flat(Xa, sqa, Ca)
        new = dist_new.reshape(act.size, n, R, k).argmin(3)
        dist[act] = dist_new
        labels[act] = new
        moving = ~(new == la).all(axis=(1, 2))
        if not moving.all():
            act = act[moving]
            if not act.size:
                break
            Xa, sqa, Ca = Xa[moving], sqa[moving], Ca[moving]
    own = np.take_along_axis(dist.reshape(B, n, R, k), labels[:, :, :, None], axis=3)[:, :, :, 0]
    inertia = np.ascontiguousarray(own.transpose(0, 2, 1)).sum(2)  # (B, R), each a sum over a contiguous row
    best = np.argmin(inertia, axis=1)
    return labels[bidx, :, best], inertia[bidx, best]


def kmeans_pivoted(X: np.ndarray, k: int, *, max_iter: int = MAX_ITER) -> np.ndarray:
    """One deterministic k-means run started from ``k`` rows chosen by a pivoted QR: :func:`pivoted_many` of one.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    >>> kmeans_pivoted(X, 2).tolist()
    [0, 0, 1, 1]
    """
    return pivoted_many(X[None], k, max_iter=max_iter)[0]


def pivoted_many(X: np.ndarray, k: int, *, max_iter: int = MAX_ITER) -> np.ndarray:
    """One deterministic k-means run of each ``X[b]`` (B, n, d) from ``k`` rows chosen by a pivoted QR; the labels.

    For a spectral embedding ``X`` (rows of the ``k`` leading eigenvectors) the
    column-pivoted QR factorisation of ``X.T`` picks ``k`` rows that are as
    far from linearly dependent as possible, in practice one from each
    cluster (Damle, Minden & Ying 2019); Lloyd's iteration from them is one
    run instead of ten.  Used where many values of ``k`` are compared (the
    selection rules); the clusters reported for the chosen ``k`` come from
    :func:`kmeans_many` with restarts.  The QR is one LAPACK call per problem
    (LAPACK has no batched form of it); the Lloyd iterations of the problems
    still moving advance together.
    """
    B, n, _ = X.shape
    if k == 1:
        return np.zeros((B, n), dtype=np.int64)
    X = np.ascontiguousarray(X, dtype=float)
    geqp3 = lapack.get_lapack_funcs("geqp3", (X[0],))
    work = X.copy()  # each work[b].T is a Fortran-ordered copy of X[b].T for LAPACK to overwrite
    # LAPACK's column-pivoted QR, 1-based pivots
    piv = np.stack([geqp3(work[b].T, overwrite_a=1)[1][:k] for b in range(B)]) - 1
    labels = np.empty((B, n), dtype=np.int64)
    for s in range(0, B, BLOCK):  # blocks small enough for the work arrays to stay in cache
        e = min(B, s + BLOCK)
        labels[s:e] = _lloyd_from(X[s:e], X[np.arange(s, e)[:, None], piv[s:e]], max_iter)
    return labels


def _lloyd_from(X: np.ndarray, C: np.ndarray, max_iter: int) -> np.ndarray:
    """Lloyd's iterations of each problem ``X[b]`` (B, n, d) from centres ``C[b]`` (B, k, d); the labels."""
    B, n, _ = X.shape
    k = C.shape[1]
    labels = np.zeros((B, n), dtype=np.intp)
    act = np.arange(B)  # the problems still moving; a converged problem's labels and centres are final
    Xa, Ca = X, C
    for it in range(max_iter):
        # |x|^2 does not move the argmin
        cross = np.matmul(Xa, Ca.transpose(0, 2, 1))
        cross *= -2.0
        cross += np.einsum("bkd,bkd->bk", Ca, Ca)[:, None, :]
        new = cross.argmin(2)
        if it:
            moving = ~(new == labels[act]).all(1)
            if not moving.all():
                act, new, Xa, Ca = act[moving], new[moving], Xa[moving], Ca[moving]
                if not act.size:
                    break
        labels[act] = new
        onehot = indicators(new, k)  # (b, n, k)
        counts = cluster_sizes(new, k)
        means = np.matmul(onehot.transpose(0, 2, 1), Xa) / np.maximum(counts, 1.0)[:, :, None]
        Ca = np.where(counts[:, :, None] > 0, means, Ca)
    return labels.astype(np.int64)


def indicators(labels: np.ndarray, k: int) -> np.ndarray:
    """Indicators (b, n, k), 0.0 or 1.0, of ``labels`` (b, n) or (b, n, r) in ``0..k-1``: ``[b, i, labels[b, i, ...]]`` are 1.

    One scattered write into zeros (three to five times faster than comparing with ``np.arange(k)``
    or indexing ``np.eye(k)``).
    """
    b, n = labels.shape[:2]
    out = np.zeros(b * n * k)
    out[(np.arange(0, b * n * k, k).reshape(b, n, *([1] * (labels.ndim - 2))) + labels).ravel()] = 1.0
    return out.reshape(b, n, k)


def cluster_sizes(labels: np.ndarray, k: int) -> np.ndarray:
    """The number of texts of each cluster (b, k), as floats, of each row of ``labels`` (b, n) in ``0..k-1``."""
    b = labels.shape[0]
    flat = (labels + k * np.arange(b)[:, None]).ravel()
    return np.bincount(flat, minlength=b * k).reshape(b, k).astype(float)


def _sqdist_flat(X: np.ndarray, sq: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Squared distances (B, n, m) between the rows of ``X[b]`` (B, n, d) and centres ``C`` (B, m, d).

    The arithmetic of :func:`_sqdist` (``|x|^2 - 2 x.c + |c|^2``, clipped at zero), with the centres
    of every restart in one matrix product per problem.
    """
    out = np.matmul(X, C.transpose(0, 2, 1))
    out *= -2.0
    out += sq[:, :, None]
    out += np.einsum("bmd,bmd->bm", C, C)[:, None, :]
    return np.maximum(out, 0.0, out=out)


def _sqdist(X: np.ndarray, sq: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Squared distances (B, R, n, k) between the rows of ``X[b]`` (B, n, d) and centres ``C`` (B, R, k, d).

    ``|x|^2 - 2 x.c + |c|^2``, one batched matrix product; tiny negative
    values from cancellation are clipped to zero.
    """
    cross = np.matmul(X[:, None], C.transpose(0, 1, 3, 2))  # (B, R, n, k)
    csq = np.einsum("brkd,brkd->brk", C, C)
    d = sq[:, None, :, None] - 2.0 * cross + csq[:, :, None, :]
    return np.maximum(d, 0.0, out=d)
