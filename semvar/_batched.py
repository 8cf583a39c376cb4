"""The ``k="auto"`` rule and its clustering on stacked arrays: one graph is a stack of one.

The rule :func:`semvar.select_k.auto` chooses ``K`` for a connected core of
texts from the spectrum of ``D^{-1/2} A D^{-1/2}``: for each candidate ``K`` a
pivoted k-means on the ``K`` leading eigenvectors and the integrated
classification likelihood (ICL) of Liu's judge model, then the largest
posterior, helped by the eigengap on cores of at most :data:`AUTO_SMALL`
texts; :func:`semvar.pipeline.graph_entropy` then clusters the core with ten
k-means restarts.  This module holds those steps once, for a stack of ``B``
graphs of the same size:

- :func:`spectra`: the normalised matrices and one :func:`numpy.linalg.eigh` of the stack;
- :func:`icl_scores`: the ICL of every candidate ``K`` of every graph (the
  pivoted k-means of :mod:`semvar._kmeans`, the Beta and Gamma terms as arrays);
- :func:`posterior`, :func:`largest_gap`, :func:`choose`: the rule's answer;
- :func:`auto_entropies`: the whole of ``k="auto"`` for many small judged
  graphs (what :func:`semvar.pipeline.semantic_spectral_entropies` runs).

The per-graph callers (:func:`semvar.select_k.auto`, :func:`semvar.select_k.icl`,
:func:`semvar.pipeline.graph_entropy`) call the same functions with a stack
of one, and the clustering of both is :func:`semvar._kmeans.kmeans_many`:
there is one implementation, so nothing to keep in step; the tests compare
the two routes on every partition of chapter 4's study and on random block
models.  Only the pivoted QR that starts each candidate's k-means stays one
LAPACK call per graph (LAPACK has no batched form of it).

Private: called by :mod:`semvar.select_k` and :mod:`semvar.pipeline` with
checked, judged graphs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from scipy.special import betaln, gammaln

from ._kmeans import kmeans_many, pivoted_many
from .entropy import entropy_from_counts

__all__ = ["AUTO_SMALL", "GAP_TIE", "spectra", "icl_scores", "posterior", "largest_gap", "choose",
           "auto_entropies"]

#: Core size (texts with a TRUE verdict) up to which the "auto" rule also asks the eigengap.
AUTO_SMALL = 10

#: Gaps of the spectrum closer than this (relative to the largest) are a tie, decided for the smaller ``K``:
#: small components have exactly tied gaps (a path of three texts: eigenvalues 1, 0, -1), which rounding
#: would otherwise decide, differently on another CPU.
GAP_TIE = 1e-9

_N_INIT = 10


# --------------------------------------------------------------------------- the rule's pieces
def spectra(C: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All eigenvalues (descending) and eigenvectors of ``D^{-1/2} C_b D^{-1/2}`` for each graph of ``C`` (B, n, n).

    Every text must have an edge.  The eigenvectors are returned as a view,
    column ``j`` of graph ``b`` belonging to eigenvalue ``j`` (the layout the
    clustering's arithmetic is defined on).
    """
    s = 1.0 / np.sqrt(C.sum(2))
    M = C * s[:, :, None] * s[:, None, :]
    w, V = np.linalg.eigh(M)
    return w[:, ::-1], V[:, :, ::-1]


def icl_scores(C: np.ndarray, w: np.ndarray, V: np.ndarray, kc_max: int, floor: float = 0.0):
    """The judge-model ICL of the pivoted spectral clusters of each graph for ``K = 1, ..., kc_max``.

    ``C`` (B, n, n) 0/1 or [0, 1]-weighted graphs without isolated texts, ``w`` (B, >= kc_max) their
    leading eigenvalues (descending) and ``V`` (B, n, >= kc_max) the eigenvectors.  A graph's
    candidates stop at the number of its eigenvalues above ``floor`` (at least 1); the others, and a
    clustering with an empty cluster, score ``-inf``.  Returns the scores (B, kc_max) and, for each
    ``K``, the graphs that reached it and their labels: ``{K: (rows, labels (len(rows), n))}``.
    See :func:`semvar.select_k.icl` for the criterion.
    """
    B, n = C.shape[0], C.shape[1]
    k_up = np.minimum(kc_max, np.maximum(np.count_nonzero(w[:, :kc_max] > floor, axis=1), 1))
    scores = np.full((B, kc_max), -np.inf)
    e_all = C.sum(axis=(1, 2)) / 2.0  # sums of 0/1 verdicts: exact in any order
    N_all = n * (n - 1) / 2
    labels = {}
    for k in range(1, kc_max + 1):
        rows = np.flatnonzero(k_up >= k)
        if rows.size == 0:
            break
        z = pivoted_many(V[rows][:, :, :k], k)
        labels[k] = (rows, z)
        icl, valid = _icl_judge(C[rows], z, k, e_all[rows], N_all)
        scores[rows[valid], k - 1] = icl[valid]
    return scores, labels


def _icl_judge(A: np.ndarray, z: np.ndarray, k: int, e_all: np.ndarray, N_all: float):
    """The judge-model ICL of each graph ``A[b]`` with labels ``z[b]`` in ``0..k-1``, and whether every cluster is used."""
    n = A.shape[1]
    nk = (z[:, :, None] == np.arange(k)).sum(1)  # (B, k) cluster sizes
    valid = nk.min(1) > 0
    e_in = (A * (z[:, :, None] == z[:, None, :])).sum(axis=(1, 2)) / 2.0
    N_in = (nk * (nk - 1.0)).sum(1) / 2.0
    verdicts = betaln(e_in + 1.0, N_in - e_in + 1.0)
    with np.errstate(invalid="ignore"):
        between = betaln(e_all - e_in + 1.0, N_all - N_in - (e_all - e_in) + 1.0)
    verdicts = np.where(N_all > N_in, verdicts + between, verdicts)
    return verdicts + gammaln(k) - gammaln(n + k) + gammaln(nk + 1.0).sum(1) + gammaln(k + 1.0), valid


def posterior(scores: np.ndarray) -> np.ndarray:
    """Each row of ``scores`` (B, K), log evidences, as probabilities under a uniform prior (``-inf``: 0)."""
    finite = np.isfinite(scores)
    top = np.where(finite, scores, -np.inf).max(1, keepdims=True)
    with np.errstate(invalid="ignore"):
        w = np.where(finite, np.exp(scores - top), 0.0)
    return w / w.sum(1, keepdims=True)


def largest_gap(gaps: np.ndarray) -> np.ndarray:
    """``K`` of each row of ``gaps`` (B, K): the index (1-based) of the first gap within :data:`GAP_TIE` of the largest."""
    top = gaps.max(axis=1, keepdims=True)
    return np.argmax(gaps >= top - GAP_TIE * np.maximum(1.0, np.abs(top)), axis=1) + 1


def choose(scores: np.ndarray, mu: np.ndarray, small: bool | np.ndarray):
    """The "auto" rule's ``K`` of each graph from its ICL ``scores`` (B, kc_max) and eigenvalues ``mu`` (B, kc_max + 1).

    Returns ``(k, confidence, posterior, k_icl, k_gap)``: ``k_icl`` maximises the ICL, ``k_gap``
    the eigengap; ``k`` is the larger of the two where ``small`` (the core has at most
    :data:`AUTO_SMALL` texts), else ``k_icl``; the confidence is the posterior of ``k``.
    """
    post = posterior(scores)
    k_icl = np.argmin(-scores, axis=1) + 1
    k_gap = largest_gap(mu[:, :-1] - mu[:, 1:])
    k = np.where(small, np.maximum(k_icl, k_gap), k_icl)
    return k, post[np.arange(k.size), k - 1], post, k_icl, k_gap


# --------------------------------------------------------------------------- many graphs, end to end
def auto_entropies(
    graphs: Sequence[np.ndarray], rngs: Sequence[np.random.Generator] | Callable[[int], np.random.Generator],
    k_max: int,
) -> list[tuple[float, int, float] | None]:
    """``(entropy, K, confidence)`` of each dense judged graph with ``k="auto"``, or None where not handled.

    ``graphs`` are dense 0/1 float adjacencies (no self-loops) of at most a few
    hundred texts, a sequence or an ``(m, n, n)`` stack; ``rngs`` their
    generators, or a function of the graph's index that makes it (called only
    for graphs that draw: one draw for the final k-means when ``K_core > 1``).
    Graphs whose core (texts with an edge) has fewer than three texts, or is
    in several connected components (the rule then runs on each component),
    are left to the caller (entry None).
    """
    rng_of = rngs if callable(rngs) else rngs.__getitem__
    out: list = [None] * len(graphs)
    groups: dict[int, list[int]] = {}
    cores, keeps = {}, {}
    if isinstance(graphs, np.ndarray) and graphs.ndim == 3 and len(graphs):
        full = np.flatnonzero((graphs.sum(2) > 0).all(1))  # no isolated text: the core is the graph
        if graphs.shape[1] >= 3 and full.size:
            groups[graphs.shape[1]] = full.tolist()
        rest = np.setdiff1d(np.arange(len(graphs)), full).tolist()
        for i in full.tolist():
            keeps[i] = None
    else:
        rest = range(len(graphs))
    for i in rest:
        A = graphs[i]
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
        C = graphs[idx] if isinstance(graphs, np.ndarray) and all(i not in cores for i in idx) else \
            np.stack([cores[i] if i in cores else graphs[i] for i in idx])
        one = _connected(C)
        if not one.all():
            idx = [i for i, ok in zip(idx, one) if ok]
            C = C[one]
        if idx:
            _auto_group(nc, idx, C, graphs, keeps, rng_of, k_max, out)
    return out


def _connected(C: np.ndarray) -> np.ndarray:
    """Whether each stacked graph ``C[b]`` is connected: reachability by repeated squaring of ``(C > 0) + I``."""
    n = C.shape[1]
    R = ((C > 0) | np.eye(n, dtype=bool)).astype(np.float32)
    for _ in range(max(int(np.ceil(np.log2(max(n - 1, 1)))), 1)):
        R = (np.matmul(R, R) > 0).astype(np.float32)
    return R[:, 0, :].all(axis=1)


def _auto_group(nc, idx, C, graphs, keeps, rng_of, k_max, out):
    """Every graph of ``idx`` has a connected core of ``nc`` texts, stacked in ``C``."""
    B = len(idx)
    kc_max = min(k_max, nc - 1)  # min(k_max, n - 1, nc - 1), n >= nc
    w, V = spectra(C)
    scores, _ = icl_scores(C, w, V, kc_max)
    kc, conf, _, _, _ = choose(scores, w[:, : kc_max + 1], nc <= AUTO_SMALL)
    # the clusters: ten k-means restarts on the kc leading eigenvectors, one seed drawn from each graph's generator
    labels_core = np.zeros((B, nc), dtype=np.int64)
    by_k: dict[int, list[int]] = {}
    for b in np.flatnonzero(kc > 1).tolist():
        by_k.setdefault(int(kc[b]), []).append(b)
    seeds = {b: int(rng_of(idx[b]).integers(2**31 - 1)) for b in sorted(b for bs in by_k.values() for b in bs)}
    for k, bs in by_k.items():
        rows = np.array(bs)
        labs, _ = kmeans_many(V[rows][:, :, :k], k, [np.random.default_rng(seeds[b]) for b in bs],
                                      n_init=_N_INIT)
        labels_core[rows] = canonical_rows(labs, k)
    # the entropies: graphs without isolated texts together, by number of clusters found (a k-means answer may
    # leave a cluster empty), so that every row holds the positive counts entropy_from_counts sums
    whole = np.array([b for b, i in enumerate(idx) if keeps[i] is None or keeps[i].all()], dtype=np.int64)
    found = labels_core[whole].max(1) + 1 if whole.size else whole
    for p in np.unique(found).tolist():
        bs = whole[found == p]
        h = entropies((labels_core[bs][:, :, None] == np.arange(p)).sum(1))
        for b, hb in zip(bs.tolist(), h.tolist()):
            out[idx[b]] = (hb, int(kc[b]), float(conf[b]))
    for b, i in enumerate(idx):
        keep = keeps[i]
        if keep is None or keep.all():
            continue
        n = keep.size
        m = n - nc
        labels = np.empty(n, dtype=np.int64)
        labels[~keep] = kc[b] + np.arange(m)
        labels[keep] = labels_core[b]
        labels = canonical_rows(labels[None], int(kc[b]) + m)[0]
        out[i] = (entropy_from_counts(np.bincount(labels)), int(kc[b]) + m, float(conf[b]))


def canonical_rows(labels: np.ndarray, k: int) -> np.ndarray:
    """Each row of ``labels`` (values in ``0..k-1``) renumbered 0, 1, 2, ... in order of first appearance."""
    n = labels.shape[1]
    onehot = labels[:, :, None] == np.arange(k)
    first = np.where(onehot.any(1), onehot.argmax(1), n)  # first position of each label; n when absent
    rank = np.argsort(np.argsort(first, axis=1, kind="stable"), axis=1, kind="stable")
    return np.take_along_axis(rank, labels, axis=1)


def entropies(counts: np.ndarray) -> np.ndarray:
    """:func:`semvar.entropy.entropy_from_counts` of each row of positive ``counts`` (B, k), the same operations."""
    c = counts.astype(float)
    prop = c / c.sum(1, keepdims=True)
    return -(prop * np.log(prop)).sum(1) + 0.0
