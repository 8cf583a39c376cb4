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
models.  The seeds of many graphs and their k-means++ draws are computed
together by :mod:`semvar._streams` (numpy's streams as arrays, the same
numbers).  Only the pivoted QR that starts each candidate's k-means stays
one LAPACK call per graph (LAPACK has no batched form of it).

Private: called by :mod:`semvar.select_k` and :mod:`semvar.pipeline` with
checked, judged graphs.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.special import betaln, gammaln

from ._kmeans import cluster_sizes, indicators, kmeans_many, pivoted_many
from ._streams import agrees, first_ints
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

#: Graphs drawing one seed each from children of a seed sequence, from which the seeds are computed together
#: (:func:`semvar._streams.first_ints`; about 12 microseconds a graph one at a time, 0.3 ms for any number together).
SEEDS_TOGETHER = 32

#: Graphs of up to this many texts find their components by :func:`first_reachable` (matrix products
#: for the whole stack); larger ones one at a time, by :func:`scipy.sparse.csgraph.connected_components`.
CLOSURE_N = 64


# --------------------------------------------------------------------------- the rule's pieces
def spectra(C: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All eigenvalues (descending) and eigenvectors of ``D^{-1/2} C_b D^{-1/2}`` for each graph of ``C`` (B, n, n).

    Every text must have an edge.  The eigenvectors are returned as a view,
    column ``j`` of graph ``b`` belonging to eigenvalue ``j`` (the layout the
    clustering's arithmetic is defined on).
    """
    s = 1.0 / np.sqrt(C.sum(2))
    M = C * s[:, :, None]
    M *= s[:, None, :]
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
        every = rows.size == B  # all graphs still in: no copy of the stack
        z = pivoted_many(V[:, :, :k] if every else V[rows, :, :k], k)
        labels[k] = (rows, z)
        icl, valid = _icl_judge(C if every else C[rows], z, k, e_all[rows], N_all)
        scores[rows[valid], k - 1] = icl[valid]
    return scores, labels


def _icl_judge(A: np.ndarray, z: np.ndarray, k: int, e_all: np.ndarray, N_all: float):
    """The judge-model ICL of each graph ``A[b]`` with labels ``z[b]`` in ``0..k-1``, and whether every cluster is used."""
    n = A.shape[1]
    Z = indicators(z, k)  # (B, n, k) cluster indicators
    nk = cluster_sizes(z, k)  # (B, k) cluster sizes
    valid = nk.min(1) > 0
    e_in = np.einsum("bnk,bnk->b", Z, np.matmul(A, Z)) / 2.0  # trace(Z^T A Z) / 2: exact for 0/1 verdicts
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
    graphs: np.ndarray | Sequence[np.ndarray], rngs: Sequence[np.random.Generator] | np.random.SeedSequence,
    k_max: int, *, index: np.ndarray | None = None,
) -> list[tuple[float, int, float]]:
    """``(entropy, K, confidence)`` of each dense, fully judged graph with ``k="auto"`` (confidence NaN where none).

    ``graphs`` are dense 0/1 (or [0, 1]-weighted) float adjacencies without
    self-loops of at most a few hundred texts, a sequence or an ``(m, n, n)``
    stack; ``rngs`` their generators, or a seed sequence ``seq``: graph ``j``
    then has the generator of child ``index[j]`` (default ``j``) of ``seq``,
    ``default_rng(SeedSequence(seq.entropy, spawn_key=seq.spawn_key +
    (index[j],), pool_size=seq.pool_size))``.  A graph draws one seed,
    ``integers(2**31 - 1)``, for the k-means of each part with more than one
    meaning, in the order of the parts; nothing else.

    What :func:`semvar.pipeline.graph_entropy` does for one graph: a text
    without an edge is a meaning of its own; the texts with an edge (the
    core) are split into their connected components (the parts, numbered by
    first text); a part of fewer than three texts is one meaning, and each
    other part is a problem of the stack: the rule's ``K`` for it
    (:func:`choose`, the eigengap helping when the whole core has at most
    :data:`AUTO_SMALL` texts), then ten k-means restarts on its spectrum.
    The confidence is the product of the parts' (NaN when no part had a rule
    to run).
    """
    m = len(graphs)
    # graphs of one size are looked at as one stack: which are "simple" (every text has an edge, one
    # component), and the parts of the others, without a Python step per graph
    by_size: dict[int, list[int]] = {}
    if isinstance(graphs, np.ndarray) and graphs.ndim == 3:
        if m:
            by_size[graphs.shape[1]] = list(range(m))
    else:
        for i in range(m):
            by_size.setdefault(graphs[i].shape[0], []).append(i)
    simple_of: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # size -> (graphs, their stack)
    # the problems of the stack: (graph, core, texts of the part in the graph, whole core small)
    problems: list[tuple[int, np.ndarray, np.ndarray | None, bool]] = []
    plan: dict[int, tuple] = {}  # graph -> (n, isolated texts, parts as index arrays in order) for the others
    for n, idx in by_size.items():
        S = graphs if len(idx) == m and isinstance(graphs, np.ndarray) else np.stack([graphs[i] for i in idx])
        keep = S.sum(2) > 0  # (B, n): the texts with an edge
        first = first_reachable(S) if n <= CLOSURE_N else None
        if first is not None and n >= 3:
            is_simple = keep.all(1) & (first == 0).all(1)
        else:
            is_simple = np.zeros(len(idx), dtype=bool)
        if is_simple.any():
            rows = np.flatnonzero(is_simple)
            simple_of[n] = (np.asarray(idx)[rows], S[rows])
        for b in np.flatnonzero(~is_simple).tolist():
            i, A, kb = idx[b], S[b], keep[b]
            core_idx = np.flatnonzero(kb)
            if first is None:
                parts = [core_idx[p] for p in _parts(A[np.ix_(kb, kb)])] if core_idx.size else []
            else:  # each text's first reachable text names its component; parts in order of first text
                fc = first[b, core_idx]
                parts = [core_idx[fc == u] for u in np.unique(fc).tolist()]
            small = core_idx.size <= AUTO_SMALL
            ran = 0
            for p in parts:
                if p.size >= 3:
                    ran += 1
                    problems.append((i, A[np.ix_(p, p)], p, small))
            plan[i] = (n, np.flatnonzero(~kb), parts, ran)
    simple = np.zeros(m, dtype=bool)
    for rows, _ in simple_of.values():
        simple[rows] = True
    # every problem's K and confidence, solved by size
    k_of: dict[int, int] = {}
    conf_of: dict[int, float] = {}
    V_of: dict[int, tuple] = {}
    groups: dict[int, list[int]] = {}
    for j, (_, C, _, _) in enumerate(problems):
        groups.setdefault(C.shape[0], []).append(j)
    solved = []  # (problem ids or graph indices (as ~index: problems), ks, confs, V)
    for n, (rows, C) in simple_of.items():
        solved.append((rows.tolist(), *_rule(C, min(k_max, n - 1), n <= AUTO_SMALL)))
    for nc, js in groups.items():
        C = np.stack([problems[j][1] for j in js])
        smalls = np.array([problems[j][3] for j in js])
        solved.append(([~j for j in js], *_rule(C, min(k_max, nc - 1), smalls)))
    for keys, kc, conf, V in solved:
        for b, key in enumerate(keys):  # graphs by index, problems by ~index
            k_of[key], conf_of[key], V_of[key] = int(kc[b]), float(conf[b]), (V, b)
    # the draws: one seed for the k-means of each part with more than one meaning, each graph's parts in order
    # (a simple graph is one part), from the graph's generator
    part_ids: dict[int, list[int]] = {}
    for j, (i, _, _, _) in enumerate(problems):
        part_ids.setdefault(i, []).append(~j)
    drawing = {}  # graph -> the keys of its parts that draw, in order
    for i in range(m):
        keys = [key for key in ([i] if simple[i] else part_ids.get(i, [])) if k_of[key] > 1]
        if keys:
            drawing[i] = keys
    seeds = _seeds(drawing, rngs, m, index)
    # the clusters: ten restarts on each problem's spectrum, problems of the same size and K together
    labels_of: dict[int, np.ndarray] = {}
    by: dict[tuple, list[int]] = {}
    for key in seeds:
        V, b = V_of[key]
        by.setdefault((id(V), k_of[key]), []).append(key)
    for (_, k), keys in by.items():
        V = V_of[keys[0]][0]
        rows = np.array([V_of[key][1] for key in keys])
        labs, _ = kmeans_many(V[rows][:, :, :k], k, [seeds[key] for key in keys], n_init=_N_INIT)
        for key, lab in zip(keys, canonical_rows(labs, k)):
            labels_of[key] = lab
    out: list = [None] * m
    # simple graphs: their entropies together, by number of clusters found (a k-means answer may leave a cluster
    # empty), so that every row holds the positive counts entropies() sums
    for n, (rows, _) in simple_of.items():
        L = np.zeros((rows.size, n), dtype=np.int64)
        for r, i in enumerate(rows.tolist()):
            if i in labels_of:
                L[r] = labels_of[i]
        L = np.where((np.array([k_of[i] for i in rows.tolist()]) > 1)[:, None], L, 0)
        found = _n_used(L)
        for p in np.unique(found).tolist():
            rs = np.flatnonzero(found == p)
            h = entropies(cluster_sizes(L[rs], p))
            for r, hr in zip(rs.tolist(), h.tolist()):
                i = int(rows[r])
                out[i] = (hr, k_of[i], conf_of[i])
    for i, (n, isolated, parts, _ran) in plan.items():
        labels = np.empty(n, dtype=np.int64)
        offset, confs, r = 0, [], 0
        for p in parts:
            if p.size >= 3:
                key = part_ids[i][r]
                r += 1
                kc = k_of[key]
                confs.append(conf_of[key])
                labels[p] = offset + (labels_of[key] if kc > 1 else 0)
            else:
                kc = 1
                labels[p] = offset
            offset += kc
        labels[isolated] = offset + np.arange(isolated.size)
        counts = np.bincount(canonical_rows(labels[None], offset + isolated.size)[0]) if n else np.zeros(0)
        conf = float(np.prod(confs)) if confs else float("nan")
        out[i] = (entropy_from_counts(counts) if n else float("nan"), offset + int(isolated.size), conf)
    return out


def _seeds(drawing: dict[int, list[int]], rngs, m: int, index) -> dict[int, int]:
    """The k-means seed of each key of ``drawing`` (graph -> its drawing keys), in the order of the graphs.

    From a seed sequence, the graphs that draw once have their seed computed together
    (:func:`semvar._streams.first_ints`, numpy's stream as arrays); every other graph makes its
    generator once and draws its seeds from it in turn.
    """
    seeds: dict[int, int] = {}
    if isinstance(rngs, np.random.SeedSequence):
        seq = rngs
        child = np.arange(m) if index is None else np.asarray(index, dtype=np.int64)
        once = [i for i, keys in drawing.items() if len(keys) == 1]
        if len(once) >= SEEDS_TOGETHER and child.size and child.max() < 2**32 and agrees():
            vals, ok = first_ints(seq, child[once], 2**31 - 1)
            for i, v, good in zip(once, vals.tolist(), ok.tolist()):
                if good:  # else numpy would redraw: the graph's own generator below
                    seeds[drawing[i][0]] = v
        spawn = tuple(seq.spawn_key)

        def make(i: int) -> np.random.Generator:
            child_seq = np.random.SeedSequence(seq.entropy, spawn_key=spawn + (int(child[i]),), pool_size=seq.pool_size)
            return np.random.default_rng(child_seq)
    else:
        make = rngs.__getitem__
    for i, keys in drawing.items():
        if keys[0] not in seeds:
            rng = make(i)
            for key in keys:
                seeds[key] = int(rng.integers(2**31 - 1))
    return {key: seeds[key] for keys in drawing.values() for key in keys}


def _rule(C: np.ndarray, kc_max: int, small):
    """The "auto" rule on a stack of connected cores: ``(K, confidence, eigenvectors)`` of each."""
    w, V = spectra(C)
    scores, _ = icl_scores(C, w, V, kc_max)
    kc, conf, _, _, _ = choose(scores, w[:, : kc_max + 1], small)
    return kc, conf, V


def _parts(core: np.ndarray) -> list[np.ndarray]:
    """The connected components of a core (every text has an edge), numbered by their first texts."""
    count, labels = connected_components(sp.csr_array(core), directed=False)
    if count == 1:
        return [np.arange(core.shape[0])]
    _, first = np.unique(labels, return_index=True)
    return [np.flatnonzero(labels == c) for c in np.argsort(first, kind="stable")]


def first_reachable(C: np.ndarray) -> np.ndarray:
    """For each text of each stacked graph ``C[b]`` (B, n, n), the smallest index of a text it can reach.

    Two texts share a connected component exactly when they share this value, and components
    numbered by it come in order of their first texts (a text without an edge reaches only
    itself).  Reachability by repeated squaring of ``(C > 0) + I``: ``ceil(log2(n - 1))``
    boolean matrix products, for all graphs at once.
    """
    n = C.shape[1]
    R = ((C > 0) | np.eye(n, dtype=bool)).astype(np.float32)
    for _ in range(max(int(np.ceil(np.log2(max(n - 1, 1)))), 1)):
        R = (np.matmul(R, R) > 0).astype(np.float32)
    return (R > 0).argmax(axis=2)


def _n_used(L: np.ndarray) -> np.ndarray:
    return L.max(1) + 1


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
