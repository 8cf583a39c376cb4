"""Many small problems at once: the ``k="auto"`` path of the pipeline on stacked arrays.

:func:`semvar.pipeline.semantic_spectral_entropies` spends most of its time on
a prompt of 20 texts in Python overhead around tiny array operations: one
eigen-solve, one pivoted k-means per candidate ``K``, one k-means with ten
restarts.  This module runs the same steps for many graphs of the same size
together: the normalised matrices are stacked and solved by one
:func:`numpy.linalg.eigh` call, the Lloyd iterations of the graphs still
moving advance as one array operation (a converged graph leaves the
stack), and the ICL of every candidate is computed as an array.  Each step applies the same floating-point operations to each graph
as the per-problem path (:func:`semvar.select_k.auto`, then
:func:`semvar.spectral.spectral_clusters` with the numpy k-means), on arrays
of the same layout, so the results are the same; the tests compare the two
on every partition of chapter 4's study and on random block models.

Only the pivoted QR that starts each candidate's k-means stays one LAPACK
call per graph (numpy has no batched form of it).  The pipeline uses this
engine only while :func:`semvar.spectral.spectral_clusters` is the function
it reproduces; a replaced clustering function reaches every prompt through
the per-problem path.

Private: called by :mod:`semvar.pipeline` with checked, judged graphs.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.linalg import lapack
from scipy.special import betaln, gammaln

from .entropy import entropy_from_counts
from .select_k import AUTO_SMALL, GAP_TIE
from .spectral import canonical_labels

__all__ = ["auto_entropies"]

_N_INIT = 10
_MAX_ITER = 300


def auto_entropies(
    graphs: Sequence[np.ndarray], rngs: Sequence[np.random.Generator], k_max: int,
) -> list[tuple[float, int, float] | None]:
    """``(entropy, K, confidence)`` of each dense judged graph with ``k="auto"``, or None where not handled.

    ``graphs`` are dense 0/1 float adjacencies (no self-loops) of at most a few
    hundred texts; ``rngs`` their generators (consumed as the per-problem
    path consumes them: one draw for the final k-means when ``K_core > 1``).
    Graphs whose core (texts with an edge) has fewer than three texts, or
    is in several connected components (the rule then runs on each
    component), are left to the caller (entry None).
    """
    out = [None] * len(graphs)
    groups: dict[int, list[int]] = {}
    cores, keeps = {}, {}
    for i, A in enumerate(graphs):
        n = A.shape[0]
        if n < 3:
            continue
        keep = A.sum(1) > 0
        m = n - int(np.count_nonzero(keep))
        core = A if m == 0 else A[np.ix_(keep, keep)]
        if core.shape[0] < 3:
            continue
        cores[i], keeps[i] = core, keep
        groups.setdefault(core.shape[0], []).append(i)
    for nc, idx in groups.items():
        idx = [i for i, one in zip(idx, _connected(np.stack([cores[i] for i in idx]))) if one]
        if idx:
            _auto_group(nc, idx, graphs, cores, keeps, rngs, k_max, out)
    return out


def _connected(C: np.ndarray) -> np.ndarray:
    """Whether each stacked graph ``C[b]`` is connected: reachability by repeated squaring of ``(C > 0) + I``."""
    n = C.shape[1]
    R = ((C > 0) | np.eye(n, dtype=bool)).astype(np.float32)
    for _ in range(max(int(np.ceil(np.log2(max(n - 1, 1)))), 1)):
        R = (np.matmul(R, R) > 0).astype(np.float32)
    return R[:, 0, :].all(axis=1)


def _auto_group(nc, idx, graphs, cores, keeps, rngs, k_max, out):
    """Every graph of ``idx`` has a core of ``nc`` texts."""
    B = len(idx)
    C = np.stack([cores[i] for i in idx])  # (B, nc, nc)
    kc_max = min(k_max, nc - 1)  # min(k_max, n - 1, nc - 1), n >= nc
    # --- the spectrum (select_k._common._normalized_top): D^-1/2 A D^-1/2, all eigenpairs, descending
    s = 1.0 / np.sqrt(C.sum(2))
    M = C * s[:, :, None] * s[:, None, :]
    w, V = np.linalg.eigh(M)
    w = w[:, ::-1][:, : kc_max + 1]

    def embedding(rows, k):
        # the per-problem view V[:, ::-1][:, :k] of each graph, same strides (the arithmetic on it depends on them)
        return V[rows][:, :, ::-1][:, :, :k]

    # --- the ICL of each candidate K (select_k.likelihood._criterion_core, judge model)
    k_up = np.minimum(kc_max, np.maximum(np.count_nonzero(w[:, :kc_max] > 0, axis=1), 1))
    scores = np.full((B, kc_max), -np.inf)
    e_all = C.sum(axis=(1, 2)) / 2.0  # sums of 0/1 verdicts: exact in any order
    N_all = nc * (nc - 1) / 2
    for k in range(1, kc_max + 1):
        rows = np.flatnonzero(k_up >= k)
        if rows.size == 0:
            break
        z = _pivoted_many(embedding(rows, k), k)
        icl, valid = _icl_judge_many(C[rows], z, k, e_all[rows], N_all)
        scores[rows[valid], k - 1] = icl[valid]
    # --- the choice (select_k._common._posterior and _result, auto's eigengap rule for small cores)
    mu = w[:, : kc_max + 1]
    gaps = mu[:, :-1] - mu[:, 1:]  # select_k._common._largest_gap, row by row: near-ties to the smaller K
    top = gaps.max(axis=1, keepdims=True)
    k_gap = np.argmax(gaps >= top - GAP_TIE * np.maximum(1.0, np.abs(top)), axis=1) + 1
    post = _posterior_many(scores)
    kc = np.argmin(-scores, axis=1) + 1
    if nc <= AUTO_SMALL:
        kc = np.maximum(kc, k_gap)
    conf = post[np.arange(B), kc - 1]
    # --- the clusters (spectral_clusters with kmeans="numpy" and the shared embedding)
    labels_core = np.zeros((B, nc), dtype=np.int64)
    seeds = {}
    for b in np.flatnonzero(kc > 1):
        seeds[b] = int(rngs[idx[b]].integers(2**31 - 1))
    by_k: dict[int, list[int]] = {}
    for b in seeds:
        by_k.setdefault(int(kc[b]), []).append(b)
    for k, bs in by_k.items():
        labs = _kmeans_many(embedding(np.array(bs), k), k, [seeds[b] for b in bs])
        labels_core[bs] = _canonical_many(labs, k)
    # --- the entropies: prompts without isolated texts together, by number of clusters found (a k-means
    # answer may leave a cluster empty), so that every row holds the positive counts entropy_from_counts sums
    whole = np.array([b for b, i in enumerate(idx) if graphs[i].shape[0] == nc], dtype=np.int64)
    found = labels_core[whole].max(1) + 1 if whole.size else whole
    for p in np.unique(found):
        bs = whole[found == p]
        h = _entropy_many((labels_core[bs][:, :, None] == np.arange(p)).sum(1))
        for b, hb in zip(bs, h):
            out[idx[b]] = (float(hb), int(kc[b]), float(conf[b]))
    for b, i in enumerate(idx):
        A, keep = graphs[i], keeps[i]
        n = A.shape[0]
        if n == nc:
            continue
        m = n - nc
        labels = np.empty(n, dtype=np.int64)
        labels[~keep] = kc[b] + np.arange(m)
        labels[keep] = labels_core[b]
        labels = canonical_labels(labels)
        out[i] = (entropy_from_counts(np.bincount(labels)), int(kc[b]) + m, float(conf[b]))


def _canonical_many(labels: np.ndarray, k: int) -> np.ndarray:
    """:func:`semvar.spectral.canonical_labels` of each row of ``labels`` (values in ``0..k-1``)."""
    n = labels.shape[1]
    onehot = labels[:, :, None] == np.arange(k)
    first = np.where(onehot.any(1), onehot.argmax(1), n)  # first position of each label; n when absent
    rank = np.argsort(np.argsort(first, axis=1, kind="stable"), axis=1, kind="stable")
    return np.take_along_axis(rank, labels, axis=1)


def _entropy_many(counts: np.ndarray) -> np.ndarray:
    """:func:`semvar.entropy.entropy_from_counts` of each row of positive ``counts`` (B, k), the same operations."""
    c = counts.astype(float)
    prop = c / c.sum(1, keepdims=True)
    return -(prop * np.log(prop)).sum(1) + 0.0


def _posterior_many(scores: np.ndarray) -> np.ndarray:
    """``semvar.select_k._common._posterior`` of each row of ``scores``: the same operations, row by row."""
    finite = np.isfinite(scores)
    top = np.where(finite, scores, -np.inf).max(1, keepdims=True)
    with np.errstate(invalid="ignore"):
        w = np.where(finite, np.exp(scores - top), 0.0)
    return w / w.sum(1, keepdims=True)


def _icl_judge_many(A: np.ndarray, z: np.ndarray, k: int, e_all: np.ndarray, N_all: float):
    """:func:`semvar.select_k.likelihood._icl_judge` of each graph ``A[b]`` with labels ``z[b]``, and whether every cluster is used."""
    n = A.shape[1]
    nk = (z[:, :, None] == np.arange(k)).sum(1)  # (B, k) cluster sizes
    valid = nk.min(1) > 0
    e_in = (A * (z[:, :, None] == z[:, None, :])).sum(axis=(1, 2)) / 2.0  # sums of 0/1 verdicts: exact
    N_in = (nk * (nk - 1.0)).sum(1) / 2.0
    verdicts = betaln(e_in + 1.0, N_in - e_in + 1.0)
    with np.errstate(invalid="ignore"):
        between = betaln(e_all - e_in + 1.0, N_all - N_in - (e_all - e_in) + 1.0)
    verdicts = np.where(N_all > N_in, verdicts + between, verdicts)
    return verdicts + gammaln(k) - gammaln(n + k) + gammaln(nk + 1.0).sum(1) + gammaln(k + 1.0), valid


def _pivoted_many(X: np.ndarray, k: int) -> np.ndarray:
    """:func:`semvar._kmeans.kmeans_pivoted` of each ``X[b]`` (B, n, k), the Lloyd iterations stacked."""
    B, n, _ = X.shape
    if k == 1:
        return np.zeros((B, n), dtype=np.int64)
    geqp3 = lapack.get_lapack_funcs("geqp3", (X[0],))
    piv = np.stack([geqp3(np.array(X[b].T, order="F"), overwrite_a=1)[1][:k] - 1 for b in range(B)])
    C = X[np.arange(B)[:, None], piv].copy()  # (B, k, k)
    eye = np.eye(k)
    labels = np.zeros((B, n), dtype=np.intp)
    act = np.arange(B)  # the graphs still moving; a converged graph's labels and centres are final
    Xa, Ca = X, C
    for it in range(_MAX_ITER):
        new = (np.einsum("bkd,bkd->bk", Ca, Ca)[:, None, :] - 2.0 * np.matmul(Xa, Ca.transpose(0, 2, 1))).argmin(2)
        if it:
            moving = ~(new == labels[act]).all(1)
            if not moving.all():
                act, new, Xa, Ca = act[moving], new[moving], _subset(Xa, moving), Ca[moving]
                if not act.size:
                    break
        labels[act] = new
        onehot = eye[new]  # (b, n, k)
        counts = onehot.sum(1)
        means = np.matmul(onehot.transpose(0, 2, 1), Xa) / np.maximum(counts, 1.0)[:, :, None]
        Ca = np.where(counts[:, :, None] > 0, means, Ca)
    return labels.astype(np.int64)


def _kmeans_many(X: np.ndarray, k: int, seeds) -> np.ndarray:
    """The labels of :func:`semvar._kmeans.kmeans` of each ``X[b]`` with ``default_rng(seeds[b])``, stacked."""
    B, n, d = X.shape
    R = _N_INIT
    trials = 2 + int(np.log(k))
    # the random draws of each problem, in the order kmeans makes them
    first = np.empty((B, R), dtype=np.int64)
    unif = np.empty((B, k - 1, R, trials))
    fallback = np.empty((B, k - 1, R, trials), dtype=np.int64)
    for b, seed in enumerate(seeds):
        rng = np.random.default_rng(seed)
        first[b] = rng.integers(n, size=R)
        for c in range(1, k):
            unif[b, c - 1] = rng.random((R, trials))
            fallback[b, c - 1] = rng.integers(n, size=(R, trials))
    sq = np.einsum("bnd,bnd->bn", X, X)
    bidx = np.arange(B)
    C = np.empty((B, R, k, d))
    C[:, :, 0] = X[bidx[:, None], first]
    D2 = _sqdist(X, sq, C[:, :, :1])[:, :, :, 0]  # (B, R, n)
    # kmeans writes ``2.0 * X @ X.T``, which Python reads as ``(2.0 * X) @ X.T``: the same product here (a
    # matmul of X with itself would round differently, and so would ``2.0 *`` its result)
    pair = np.maximum(sq[:, :, None] - np.matmul(2.0 * X, X.transpose(0, 2, 1)) + sq[:, None, :], 0.0)
    rows = np.arange(R)
    for c in range(1, k):
        cum = np.cumsum(D2, axis=2)
        total = cum[:, :, -1]
        u = unif[:, c - 1] * total[:, :, None]
        cand = np.minimum((cum[:, :, None, :] <= u[:, :, :, None]).sum(3), n - 1)  # (B, R, trials)
        cand = np.where(total[:, :, None] > 0, cand, fallback[:, c - 1])
        pot = np.minimum(D2[:, :, None, :], pair[bidx[:, None, None], cand]).sum(3)  # (B, R, trials)
        best = cand[bidx[:, None], rows[None, :], pot.argmin(2)]  # (B, R)
        C[:, :, c] = X[bidx[:, None], best]
        D2 = np.minimum(D2, pair[bidx[:, None], best])
    slots = np.arange(k)
    dist = _sqdist(X, sq, C)
    labels = dist.argmin(3)
    act = np.arange(B)  # the problems with a restart still moving; the others' labels and distances are final
    Xa, sqa, Ca = X, sq, C
    for _ in range(_MAX_ITER):
        la = labels[act]
        onehot = (la[:, :, :, None] == slots).astype(float)  # (b, R, n, k)
        counts = onehot.sum(2)
        sums = np.matmul(onehot.transpose(0, 1, 3, 2), Xa[:, None])  # (b, R, k, d)
        Ca = np.where(counts[:, :, :, None] > 0, sums / np.maximum(counts, 1.0)[:, :, :, None], Ca)
        dist_new = _sqdist(Xa, sqa, Ca)
        new = dist_new.argmin(3)
        dist[act] = dist_new
        labels[act] = new
        moving = ~(new == la).all(axis=(1, 2))
        if not moving.all():
            act = act[moving]
            if not act.size:
                break
            Xa, sqa, Ca = _subset(Xa, moving), sqa[moving], Ca[moving]
    inertia = np.take_along_axis(dist, labels[:, :, :, None], axis=3)[:, :, :, 0].sum(2)  # (B, R)
    best = np.argmin(inertia, axis=1)
    return labels[bidx, best].astype(np.int64)


def _subset(X: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """The matrices ``X[keep]`` with each one's memory layout kept (numpy's matmul rounds a matrix whose last
    axis runs backwards, as the per-problem path's view of the eigenvectors does, other than a plain one)."""
    if X.strides[-1] < 0:
        return np.ascontiguousarray(X[keep, :, ::-1])[:, :, ::-1]
    return X[keep]


def _sqdist(X: np.ndarray, sq: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Squared distances (B, R, n, k) between the rows of ``X[b]`` (B, n, d) and centres ``C`` (B, R, k, d)."""
    cross = np.matmul(X[:, None], C.transpose(0, 1, 3, 2))  # (B, R, n, k)
    csq = np.einsum("brkd,brkd->brk", C, C)
    d = sq[:, None, :, None] - 2.0 * cross + csq[:, :, None, :]
    return np.maximum(d, 0.0, out=d)
