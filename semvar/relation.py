"""Equivalence relations on a set of texts, and how far a judged relation is from one.

A relation on ``n`` texts is an ``n x n`` boolean matrix ``R`` with
``R[i, j]`` meaning "text i is judged equivalent to text j".  It is an
**equivalence relation** when it is

* reflexive: ``R[i, i]`` for every ``i``;
* symmetric: ``R[i, j] == R[j, i]``;
* transitive: ``R[i, j]`` and ``R[j, k]`` imply ``R[i, k]``.

Equivalence relations and partitions are the same thing seen two ways
(:func:`relation_from_partition`, :func:`partition_from_relation`).  A judge
rarely produces one; :func:`count_violations` says by how much it misses and
:func:`closure_partition` shows what a naive "join everything connected"
clustering would make of it.  When only some pairs were judged (a list of
pairs and their verdicts, as a pair design returns them),
:func:`relation_report` counts the violations the judged pairs show.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike
from scipy.sparse.csgraph import connected_components

from ._validation import (
    check_bool,
    check_int,
    check_judge,
    check_label_codes,
    check_pairs,
    check_texts,
    split_verdicts,
)
from .spectral import canonical_labels

if TYPE_CHECKING:
    from .judges import Judge

__all__ = [
    "check_relation",
    "relation_from_partition",
    "partition_from_relation",
    "is_reflexive",
    "is_symmetric",
    "is_transitive",
    "is_equivalence",
    "Violations",
    "count_violations",
    "closure_partition",
    "judge_relation",
    "relation_report",
]


def check_relation(relation: ArrayLike, name: str = "relation") -> np.ndarray:
    """Return ``relation`` as a square boolean ndarray, or raise ValueError.

    Accepts a dense or scipy sparse matrix of booleans or 0/1 numbers.
    """
    if sp.issparse(relation):
        sparse: Any = relation  # scipy ships no type information, so issparse cannot narrow the type
        relation = sparse.toarray()
    try:
        R = np.asarray(relation)
    except Exception:  # pragma: no cover - numpy accepts almost anything
        raise ValueError(f"{name} must be a square boolean matrix") from None
    if R.ndim != 2 or R.shape[0] != R.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {R.shape}")
    if R.shape[0] == 0:
        raise ValueError(f"{name} must not be empty")
    if R.dtype != bool:
        if not (np.issubdtype(R.dtype, np.number)):
            raise ValueError(f"{name} must hold booleans or 0/1, got dtype {R.dtype}")
        Rf = R.astype(float)
        if not np.all(np.isin(Rf, (0.0, 1.0))):
            raise ValueError(f"{name} must hold booleans or 0/1 (NaN, weights and other values are not allowed)")
        R = Rf.astype(bool)
    return R


def relation_from_partition(labels: ArrayLike) -> np.ndarray:
    """The equivalence relation "same label" as an ``n x n`` boolean matrix.

    >>> relation_from_partition([0, 0, 1]).astype(int).tolist()
    [[1, 1, 0], [1, 1, 0], [0, 0, 1]]
    """
    lab, _ = check_label_codes(labels)  # compared as the values given: 1 and "1" refused, never merged
    return lab[:, None] == lab[None, :]


def partition_from_relation(relation: ArrayLike) -> np.ndarray:
    """The partition (labels ``0..K-1`` by first appearance) whose classes are those of an equivalence relation.

    Raises
    ------
    ValueError
        If ``relation`` is not an equivalence relation (use
        :func:`count_violations` to see why, or :func:`closure_partition` for the
        partition of its reflexive-symmetric-transitive closure).

    Examples
    --------
    >>> R = relation_from_partition(["x", "y", "x"])
    >>> partition_from_relation(R).tolist()
    [0, 1, 0]
    """
    R = check_relation(relation)
    v = count_violations(R)
    if v.total:
        raise ValueError(
            "relation is not an equivalence relation "
            f"({v.reflexivity} reflexivity, {v.symmetry} symmetry, {v.transitivity} transitivity violations)"
        )
    return closure_partition(R)


def closure_partition(relation: ArrayLike) -> np.ndarray:
    """Classes of the smallest equivalence relation containing ``relation`` (connected components).

    For any relation this is the partition a greedy "merge whatever is judged
    equivalent" clustering ends with; one false TRUE between two meanings merges
    them entirely.

    >>> R = np.array([[1, 1, 0], [0, 1, 1], [0, 0, 1]], dtype=bool)
    >>> closure_partition(R).tolist()
    [0, 0, 0]
    """
    R = check_relation(relation)
    _, comp = connected_components(sp.csr_array(R | R.T), directed=False)
    return canonical_labels(comp)


def is_reflexive(relation: ArrayLike) -> bool:
    """Every text related to itself."""
    return bool(np.all(np.diag(check_relation(relation))))


def is_symmetric(relation: ArrayLike) -> bool:
    """``R == R.T``."""
    R = check_relation(relation)
    return bool(np.array_equal(R, R.T))


def is_transitive(relation: ArrayLike) -> bool:
    """``R[i, j] and R[j, k]`` imply ``R[i, k]`` for all ``i, j, k``."""
    return count_violations(relation).transitivity == 0


def is_equivalence(relation: ArrayLike) -> bool:
    """Reflexive, symmetric and transitive."""
    return count_violations(relation).total == 0


@dataclass(frozen=True)
class Violations:
    """How far a relation is from an equivalence relation.

    Attributes
    ----------
    reflexivity : int
        Texts ``i`` with ``not R[i, i]``.
    symmetry : int
        Unordered pairs ``i < j`` with ``R[i, j] != R[j, i]``.
    transitivity : int
        Ordered triples of distinct ``(i, j, k)`` with ``R[i, j]``, ``R[j, k]`` and not ``R[i, k]``.
        For a symmetric relation each "open path" i - j - k is counted twice (once from each end).
    paths : int
        Ordered triples of distinct ``(i, j, k)`` with ``R[i, j]`` and ``R[j, k]``: the
        opportunities to break transitivity.
    n : int
        Number of texts.
    """

    reflexivity: int
    symmetry: int
    transitivity: int
    paths: int
    n: int

    @property
    def total(self) -> int:
        return self.reflexivity + self.symmetry + self.transitivity

    @property
    def transitivity_rate(self) -> float:
        """``transitivity / paths`` (0 when there is no path)."""
        return self.transitivity / self.paths if self.paths else 0.0

    @property
    def symmetry_rate(self) -> float:
        """Share of unordered pairs judged differently in the two orders."""
        pairs = self.n * (self.n - 1) // 2
        return self.symmetry / pairs if pairs else 0.0


def count_violations(relation: ArrayLike) -> Violations:
    """Count reflexivity, symmetry and transitivity violations of a relation.

    Parameters
    ----------
    relation : array-like or sparse, shape (n, n)
        Boolean (or 0/1) relation matrix.

    Returns
    -------
    Violations

    Notes
    -----
    With ``A`` the relation with its diagonal removed (as integers),
    ``(A @ A)[i, k]`` counts the middle texts ``j`` of the paths ``i -> j -> k``;
    the paths with ``i != k`` and ``not R[i, k]`` are the transitivity violations.
    Time ``O(n^3)``; fine for a few thousand texts.

    Examples
    --------
    A chain a ~ b ~ c without a ~ c (symmetric):

    >>> R = np.array([[1, 1, 0], [1, 1, 1], [0, 1, 1]], dtype=bool)
    >>> v = count_violations(R)
    >>> v.reflexivity, v.symmetry, v.transitivity, v.paths
    (0, 0, 2, 2)
    """
    R = check_relation(relation)
    n = R.shape[0]
    A = R.astype(np.int64)
    np.fill_diagonal(A, 0)
    two = A @ A
    np.fill_diagonal(two, 0)
    off = ~np.eye(n, dtype=bool)
    trans = int(two[off & ~R].sum())
    paths = int(two[off].sum())
    refl = int(n - np.count_nonzero(np.diag(R)))
    sym = int(np.count_nonzero(np.triu(R != R.T, k=1)))
    return Violations(refl, sym, trans, paths, n)


def judge_relation(judge: Judge, texts: Sequence[str], *, ordered: bool = True) -> np.ndarray:
    """Ask ``judge`` about every pair of texts and return the judged relation as a boolean matrix.

    Parameters
    ----------
    judge : Judge
    texts : sequence of str
    ordered : bool, default=True
        True: ask about every ordered pair ``(i, j)`` including ``i == j``
        (``n^2`` questions, as the paper's Algorithm 1 plus the diagonal), so
        reflexivity and symmetry can be checked.  False: ask each unordered pair
        once and mirror it (symmetric by construction, diagonal TRUE).

    Returns
    -------
    ndarray of bool, shape (n, n)
        Unjudged (masked) verdicts count as "not equivalent".

    Examples
    --------
    >>> from semvar.judges import OracleJudge
    >>> judge_relation(OracleJudge([0, 1, 0]), ["a", "b", "a'"]).astype(int).tolist()
    [[1, 0, 1], [0, 1, 0], [1, 0, 1]]
    """
    check_judge(judge)
    ordered = check_bool(ordered, "ordered")
    texts = check_texts(texts)
    n = len(texts)
    P: np.ndarray
    if ordered:
        i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
        P = np.column_stack([i.ravel(), j.ravel()]).astype(np.int64)
    else:
        r, c = np.triu_indices(n, k=1)
        P = np.column_stack([r, c]).astype(np.int64)
    v = judge.pairs(texts, P)
    v = np.ma.filled(v, False) if np.ma.isMaskedArray(v) else np.asarray(v)
    v = np.nan_to_num(v.astype(float), nan=0.0).astype(bool)
    R = np.zeros((n, n), dtype=bool)
    R[P[:, 0], P[:, 1]] = v
    if not ordered:
        R = R | R.T
        np.fill_diagonal(R, True)
    return R


def relation_report(n: int, pairs: ArrayLike, verdicts: ArrayLike, *, transitivity_max_n: int = 3000) -> dict:
    """Symmetry and transitivity violations among the *judged* pairs of ``n`` texts.

    :func:`count_violations` needs the whole ``n x n`` relation; a pair
    design asks about some pairs only (each once, both orders, or some
    twice), and a judge may leave some unanswered.  This counts what the
    judged pairs show, with memory that grows with the number of pairs,
    not ``n**2``.

    Parameters
    ----------
    n : int
        Number of texts (indices ``0..n-1``).
    pairs : array-like of shape (m, 2)
        The ordered pairs asked, ``(i, j)`` for "is text i equivalent to
        text j"; self-pairs are ignored, and a pair may be listed more than
        once.
    verdicts : array-like of shape (m,)
        Boolean (or 0/1) verdicts; a masked entry of a
        :class:`numpy.ma.MaskedArray`, or NaN, is a pair left unjudged.
    transitivity_max_n : int, default=3000
        Count transitivity violations only for at most this many texts
        (above it they are reported as ``None`` with a note).

    Returns
    -------
    dict
        ``{"symmetry": {"pairs_judged_both_orders": int, "violations": int},
        "transitivity": {"violations": int, "paths": int}}``, ready for
        JSON.  Symmetry: unordered pairs judged in both orders whose mean
        verdicts in the two orders differ.  Transitivity: ordered triples of
        distinct ``(i, j, k)`` with ``i ~ j`` and ``j ~ k`` judged TRUE and
        ``i ~ k`` judged FALSE, counted from both ends of each open path as
        :func:`count_violations` does; ``paths`` counts the triples with
        ``i ~ j`` and ``j ~ k`` TRUE.  A pair is TRUE where most of its
        verdicts (both orders pooled) say so, FALSE where most say not;
        pairs never judged, or judged both ways equally often, are neither.

    Raises
    ------
    ValueError
        For ``n < 1``, pairs that are not an ``(m, 2)`` array of indices
        into the texts, verdicts that are not one per pair, or
        ``transitivity_max_n < 0``.

    Examples
    --------
    Texts 0 ~ 1 and 1 ~ 2 judged TRUE and 0 ~ 2 FALSE: one open path, counted
    from both ends; and 1 ~ 0 judged FALSE the other way round:

    >>> rep = relation_report(3, [[0, 1], [1, 2], [0, 2], [1, 0]], [True, True, False, False])
    >>> rep["symmetry"], rep["transitivity"]
    ({'pairs_judged_both_orders': 1, 'violations': 1}, {'violations': 0, 'paths': 0})
    >>> relation_report(3, [[0, 1], [1, 2], [0, 2]], [True, True, False])["transitivity"]
    {'violations': 2, 'paths': 2}
    """
    n = check_int(n, "n", low=1)
    P = check_pairs(pairs, n)
    v, judged = split_verdicts(verdicts, P.shape[0])
    transitivity_max_n = check_int(transitivity_max_n, "transitivity_max_n", low=0)
    P, v = P[judged], v[judged]
    off = P[:, 0] != P[:, 1]
    P, v = P[off], v[off]
    report = {"symmetry": _symmetry_counts(n, P, v)}
    if n > transitivity_max_n:
        report["transitivity"] = {"violations": None, "paths": None,
                                  "note": f"skipped for more than {transitivity_max_n} texts"}
    else:
        report["transitivity"] = _transitivity_counts(n, P, v)
    return report


def _mean_by_key(keys: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ``keys`` (sorted) and the mean of ``v`` over each."""
    ukeys, inv = np.unique(keys, return_inverse=True)
    mean = np.bincount(inv, weights=v, minlength=ukeys.size) / np.maximum(np.bincount(inv, minlength=ukeys.size), 1)
    return ukeys, mean


def _symmetry_counts(n: int, P: np.ndarray, v: np.ndarray) -> dict:
    """Unordered pairs judged in both orders, and those whose two orders' mean verdicts differ."""
    keys, mean = _mean_by_key(P[:, 0] * n + P[:, 1], v)  # the mean verdict of each ordered pair
    if not keys.size:
        return {"pairs_judged_both_orders": 0, "violations": 0}
    i, j = np.divmod(keys, n)
    back = np.minimum(np.searchsorted(keys, j * n + i), keys.size - 1)
    both = (i < j) & (keys[back] == j * n + i)
    return {"pairs_judged_both_orders": int(both.sum()), "violations": int((both & (mean != mean[back])).sum())}


def _transitivity_counts(n: int, P: np.ndarray, v: np.ndarray) -> dict:
    """Open paths i ~ j ~ k (both TRUE) whose i ~ k is FALSE, and all such paths, on the pooled verdicts."""
    lo, hi = np.minimum(P[:, 0], P[:, 1]), np.maximum(P[:, 0], P[:, 1])
    ukeys, umean = _mean_by_key(lo * n + hi, v)
    a, b = np.divmod(ukeys, n)

    def symmetric(mask):
        r, c = np.concatenate([a[mask], b[mask]]), np.concatenate([b[mask], a[mask]])
        return sp.csr_array((np.ones(r.size, dtype=np.int64), (r, c)), shape=(n, n))

    T, F = symmetric(umean > 0.5), symmetric(umean < 0.5)
    two = (T @ T).tocsr()
    two.setdiag(0)
    two.eliminate_zeros()
    return {"violations": int(two.multiply(F).sum()), "paths": int(two.sum())}
