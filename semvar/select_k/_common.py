"""What every rule of :mod:`semvar.select_k` shares: the result record, checks, isolated texts, the spectrum.

Private to the subpackage: the rule modules call these with checked input.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import cast

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from .._batched import largest_gap, posterior, spectra
from .._kmeans import kmeans
from .._masks import checked_dense_mask, dense_mask, unresolved
from .._validation import check_adjacency, check_int

__all__ = ["KSelection"]

#: Losses of the cross-validation rules, and the models of the likelihood rules.
LOSSES = ("l2", "deviance")
MODELS = ("judge", "sbm")


@dataclass
class KSelection:
    """The chosen number of meanings and the criterion behind it.

    Attributes
    ----------
    k : int
        The chosen ``K``, isolated texts (one meaning each) included.
    candidates : ndarray of int
        The values of ``K`` that were compared: ``m + 1, ..., m + k_core_max``
        for a graph with ``m`` isolated texts.
    losses : ndarray of float
        The criterion for each candidate (smaller is better): held-out loss for
        NCV / ECV, minus the eigengap for :func:`eigengap`, the ``K``-th smallest
        Bethe-Hessian eigenvalue for :func:`bethe_hessian`, minus the ICL for
        :func:`icl` and :func:`auto`, minus the BIC for :func:`bic`.
    method : str
        The rule's name.
    details : dict
        Method-specific extras (fold losses, the other loss, ``r``, ...), and
        ``"core_k"``, the ``K`` of the texts that have an edge.
    n_singletons : int
        Number of isolated texts, each counted as a meaning of its own.
    confidence : float or None
        For :func:`icl`, :func:`bic` and :func:`auto`: the posterior
        probability of the chosen ``K`` among the candidates (a uniform prior
        on ``K``, the criterion read as a log marginal likelihood); for
        :func:`consensus`, the share of rules that agree with the answer; None
        for the other rules.  For a graph in several parts (see the package
        notes), the product of the parts' confidences.
    n_unresolved : int
        Texts left out because a partly judged graph says nothing of their
        meaning (no TRUE verdict, and at least one pair unjudged); not counted
        in ``k``.  Always 0 without an ``observed`` mask.
    """

    k: int
    candidates: np.ndarray
    losses: np.ndarray
    method: str
    details: dict = field(default_factory=dict, repr=False)
    n_singletons: int = 0
    confidence: float | None = None
    n_unresolved: int = 0

    def __int__(self) -> int:
        return int(self.k)

    def __index__(self) -> int:
        return int(self.k)


# --------------------------------------------------------------------------- checks
def as_dense(A) -> np.ndarray:
    return A.toarray() if sp.issparse(A) else np.asarray(A, dtype=float)


def no_loops(A: np.ndarray) -> np.ndarray:
    """``A`` with a zero diagonal (a copy when it had self-loops; see the package notes)."""
    if A.shape[0] and np.any(np.diagonal(A) != 0):
        A = A.copy()
        np.fill_diagonal(A, 0.0)
    return A


def sparse_no_loops(A):
    """A checked sparse adjacency without its diagonal (a copy when it had one)."""
    if A.nnz and np.any(A.diagonal() != 0):
        A = A.copy()
        A.setdiag(0.0)
        A.eliminate_zeros()
    return A


def without_loops(A):
    """A checked adjacency, dense or sparse, without its diagonal (a copy when it had one)."""
    return sparse_no_loops(A) if sp.issparse(A) else no_loops(A)


def check_verdict_weights(A, method: str, via: str | None = None) -> None:
    """Refuse weights above 1 for a rule that reads entries as verdicts (see the package notes)."""
    top = (A.data.max() if A.nnz else 0.0) if sp.issparse(A) else (A.max() if A.size else 0.0)
    if top > 1.0:
        who = f"rule {method!r}" if via is None else f"rule {via!r} asks {method!r}, which"
        raise ValueError(
            f"{who} reads the adjacency's entries as verdicts, shares of TRUE answers in [0, 1], "
            f"but the largest weight is {float(top):.6g}; rescale the graph (A / A.max()) or threshold it, "
            "or use a rule that accepts any weights (eigengap, bethe_hessian, ncv, ecv)"
        )


def checked_graph(adjacency, name: str = "adjacency") -> np.ndarray:
    """A checked adjacency, dense, without self-loops."""
    return no_loops(as_dense(check_adjacency(adjacency, name)))


def check_n(n: int) -> None:
    if n < 3:
        raise ValueError(f"adjacency must have at least 3 nodes to choose K, got {n}")


def check_common(adjacency, k_max):
    """The checked dense adjacency, its size and ``k_max`` (``1 <= k_max < n``) of a rule's public function."""
    A = checked_graph(adjacency)
    n = A.shape[0]
    check_n(n)
    k_max = check_int(k_max, "k_max", low=1)
    if k_max >= n:
        raise ValueError(f"k_max must satisfy 1 <= k_max < n = {n}, got {k_max}")
    return A, n, k_max


# --------------------------------------------------------------------------- results
def kmeans_labels(X: np.ndarray, k: int, rng) -> np.ndarray:
    return kmeans(X, k, rng)[0]


def largest_gap_k(gaps: np.ndarray) -> int:
    """``K``: the index (1-based) of the first gap within :data:`GAP_TIE` of the largest one."""
    return int(largest_gap(np.asarray(gaps, dtype=float)[None])[0])


def result(method, k_max, losses, details) -> KSelection:
    losses = np.asarray(losses, dtype=float)
    if np.any(np.isnan(losses)) or not np.any(np.isfinite(losses)):
        raise RuntimeError(f"{method}: a non-finite criterion arose ({losses}); please report this graph")
    k = int(np.argmin(losses)) + 1
    return KSelection(k=k, candidates=np.arange(1, k_max + 1), losses=losses, method=method, details=details)


def posterior_row(scores: np.ndarray) -> np.ndarray:
    return posterior(scores[None])[0]


# --------------------------------------------------------------------------- isolated texts
def split_isolated(A):
    """The adjacency of the texts with an edge, the mask of those texts, and the number of the others.

    A sparse ``A`` (a ``csr_array``) gives a sparse core; nothing is made dense.
    """
    if sp.issparse(A):
        keep = np.asarray(A.sum(axis=1)).ravel() > 0
        m = int(A.shape[0] - np.count_nonzero(keep))
        return (A if m == 0 else sp.csr_array(A[keep][:, keep])), keep, m
    keep = A.sum(1) > 0
    m = int(A.shape[0] - np.count_nonzero(keep))
    return (A if m == 0 else A[np.ix_(keep, keep)]), keep, m


def components_of(A) -> tuple[int, np.ndarray]:
    """The number of connected components of a symmetric graph and each text's component, numbered by first text.

    A symmetric graph's strongly connected components are its components, and scipy finds them
    without forming the transpose that the undirected search builds (1.9 s against 3.7 s at
    ``n = 10^6``, mean degree 47).
    """
    count, labels = connected_components(sp.csr_array(A), directed=True, connection="strong")
    if count > 1:  # number the components in the order of their first texts
        _, first = np.unique(labels, return_index=True)
        rank = np.empty(count, dtype=labels.dtype)
        rank[np.argsort(first, kind="stable")] = np.arange(count, dtype=labels.dtype)
        labels = rank[labels]
    return int(count), labels


def n_components(A) -> int:
    return components_of(A)[0] if A.shape[0] else 0


def components(method: str, core, m: int, O=None) -> KSelection:
    """The answer for a core too small for a rule: one meaning per part (see :func:`parts`), one per isolated text."""
    kc = parts(core, O)[0] if core.shape[0] else 0
    return KSelection(
        k=kc + m, candidates=np.array([kc + m]), losses=np.zeros(1), method=method,
        details={"core_k": kc, "fallback": "connected components"}, n_singletons=m,
    )


def with_singletons(sel: KSelection, m: int) -> KSelection:
    """A rule's answer for a graph's core turned into the answer for the graph, with ``m`` isolated texts."""
    if m:
        sel.k += m
        sel.candidates = sel.candidates + m
        sel.n_singletons = m
        if "votes" in sel.details:  # consensus: each rule's answer for the whole graph
            sel.details["votes"] = {rule: v + m for rule, v in sel.details["votes"].items()}
    return sel


# --------------------------------------------------------------------------- parts and partly judged graphs
def check_mask(observed, A):
    """The checked ``observed`` mask of a checked ``A`` as a dense 0/1 array, or None (every pair judged)."""
    return checked_dense_mask(observed, A)


def parts(core, O=None) -> tuple[int, np.ndarray]:
    """The parts of a core that no verdict links: components of the graph of pairs that may share a meaning.

    Two texts may share a meaning unless a FALSE verdict says they do not: the pairs judged TRUE
    and, in a partly judged graph (``O`` the 0/1 mask of judged pairs), the pairs never judged.
    Between two parts every pair was judged FALSE, so no meaning spans two parts; each part gets
    its own ``K`` (see the package notes).  Returns the number of parts and each text's part.
    """
    if O is None:
        return components_of(core)
    G = (np.asarray(core) > 0) | (O == 0)
    np.fill_diagonal(G, False)
    return components_of(G.astype(np.int8))


def decomposed(method: str, core, count: int, labels: np.ndarray, k_max: int, run: Callable, min_nodes: int,
                O=None) -> KSelection:
    """A rule's answer for a core in ``count`` > 1 parts: the rule on each part, the ``K`` of the parts summed.

    A part too small for the rule (fewer than ``min_nodes`` texts) is one meaning.  ``k_max``
    bounds each part's ``K``.  ``details["parts"]`` is each text's part and ``details["part_k"]``
    the ``K`` of each part, which the clustering reads (one part at a time).
    """
    ks, confs, rules = [], [], []
    for c in range(count):
        idx = np.flatnonzero(labels == c)
        nc = idx.size
        kc_max = min(k_max, nc - 1)
        if nc < min_nodes or kc_max < 1:
            ks.append(1)
            continue
        sub = core[np.ix_(idx, idx)] if not sp.issparse(core) else sp.csr_array(core[idx][:, idx])
        res = run(sub, kc_max) if O is None else run(sub, kc_max, O[np.ix_(idx, idx)])
        ks.append(int(res.k))
        confs.append(res.confidence)
        rules.append(res.details.get("rule"))
    k = int(sum(ks))
    conf = None if not confs or any(c is None for c in confs) else float(np.prod(confs))
    details = {"core_k": k, "parts": labels, "part_k": np.array(ks, dtype=np.int64)}
    if any(r is not None for r in rules):
        details["rule"] = next(r for r in rules if r is not None)
    return KSelection(k=k, candidates=np.array([k]), losses=np.zeros(1), method=method, details=details,
                      confidence=conf)


def on_core(method: str, A: np.ndarray, k_max: int, run: Callable, min_nodes: int = 3, O=None,
             true_parts: bool = False) -> KSelection:
    """Apply ``run(core, k_core_max) -> KSelection`` to the texts with an edge; isolated texts are singletons.

    A core in several parts (:func:`parts`) is decomposed (:func:`decomposed`).  With ``O``, the
    dense 0/1 mask of judged pairs (None: every pair judged), texts that the graph leaves unresolved
    (:func:`unresolved`) are left out, and ``run`` is called as ``run(core, k_core_max, O_core)``.
    A sparse core comes from the sparse route, which has already split it into parts.
    ``true_parts``: the parts are the components of the TRUE graph, not those of the pairs that
    may share a meaning.  The Bethe-Hessian reads the TRUE verdicts as they are and its radius is
    the mean degree, so in a part that unjudged pairs hold together it misses the sparser TRUE
    components (three meanings of four texts with 27 of 66 verdicts lost: K = 1 in 20 of 20 graphs
    on mask parts, 3 in 18 on TRUE components).
    """
    drop = unresolved(A, O)
    u = int(np.count_nonzero(drop))
    if u and u == A.shape[0]:
        raise ValueError(
            f"every one of the {u} texts is unresolved (no TRUE verdict among its judged pairs and at least one "
            "pair unjudged), so the judged pairs say nothing about K; judge each text against one text of every "
            "meaning (semvar.graph.design_representatives) or judge more pairs")
    if u:
        kept = ~drop
        A, O = A[np.ix_(kept, kept)], O[np.ix_(kept, kept)]
    core, keep, m = split_isolated(A)
    Oc = None if O is None else dense_mask(O[np.ix_(keep, keep)], core.shape[0])
    nc = core.shape[0]
    kc_max = min(k_max, nc - 1)
    if nc < min_nodes or kc_max < 1:
        res = components(method, core, m, Oc)
    else:
        count, labels = (1, None) if sp.issparse(core) else parts(core, None if true_parts else Oc)
        if count > 1:
            parted = cast(np.ndarray, labels)  # count > 1: a dense core's parts
            res = with_singletons(decomposed(method, core, count, parted, k_max, run, min_nodes, Oc), m)
        else:
            res = run(core, kc_max) if Oc is None else run(core, kc_max, Oc)
            res.details["core_k"] = res.k
            res.k += m
            res.candidates = res.candidates + m
            res.n_singletons = m
    res.n_unresolved = u
    return res


# --------------------------------------------------------------------------- the spectrum
def normalized_top(A: np.ndarray, k: int):
    """The ``k`` largest eigenvalues (descending) and eigenvectors of ``D^{-1/2} A D^{-1/2}`` (no isolated node)."""
    n = A.shape[0]
    k = min(k, n)
    if n > 500:
        s = 1.0 / np.sqrt(A.sum(1))
        M = A * s[:, None] * s[None, :]
        try:
            w, V = la.eigh(M, subset_by_index=[n - k, n - 1])
        except la.LinAlgError:  # LAPACK's subset driver can fail on highly degenerate spectra
            w, V = np.zeros(0), np.zeros((n, 0))
        if V.shape[1] == k:
            return w[::-1], V[:, ::-1]
    w, V = spectra(A[None])
    return w[0, :k], V[0, :, :k]


def bulk_edge(A) -> float:
    """``2 sqrt((1 - rho) / d_bar)``: the bulk edge of the normalised adjacency of a G(n, rho) graph."""
    n = A.shape[0]
    d_bar = float(A.sum()) / n
    rho = min(d_bar / (n - 1), 1.0)
    return 2.0 * float(np.sqrt((1.0 - rho) / d_bar))
