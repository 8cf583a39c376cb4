"""Pair designs and the judged graph.

A *pair design* says which pairs of texts the judge is asked about; the
judge's verdicts on those pairs become a symmetric adjacency matrix
(Liu 2025, section 2.2: ``E_ij = e(t_i, t_j)``).  Pairs the judge was not
asked about, or could not answer, are *unobserved*: they are absent from the
adjacency and, where it matters, flagged in a separate mask.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._validation import check_array, check_int, check_probability, check_random_state

__all__ = [
    "all_pairs",
    "adjacency_from_verdicts",
    "judge_graph",
    "sample_sbm",
    "block_labels",
]


def all_pairs(n: int) -> np.ndarray:
    """Every unordered pair ``(i, j)`` with ``i < j`` of ``n`` items, as an (n(n-1)/2, 2) array.

    >>> all_pairs(3).tolist()
    [[0, 1], [0, 2], [1, 2]]
    """
    n = check_int(n, "n", low=1)
    i, j = np.triu_indices(n, k=1)
    return np.column_stack([i, j]).astype(np.int64)


def _check_pairs(pairs, n: int) -> np.ndarray:
    arr = np.asarray(pairs)
    if arr.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"pairs must be an (m, 2) integer array, got shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"pairs must hold integer indices, got dtype {arr.dtype}")
    if arr.min() < 0 or arr.max() >= n:
        raise ValueError(f"pairs must index texts 0..{n - 1}, found indices {arr.min()}..{arr.max()}")
    return arr.astype(np.int64)


def adjacency_from_verdicts(n: int, pairs, verdicts, *, return_mask: bool = False):
    """Assemble a symmetric sparse adjacency from judged pairs.

    Parameters
    ----------
    n : int
        Number of texts.
    pairs : array-like of shape (m, 2)
        Judged pairs (indices into the texts).  Self-pairs are ignored.
    verdicts : array-like of shape (m,)
        Boolean (or 0/1) verdicts.  A :class:`numpy.ma.MaskedArray` marks
        masked entries as *unjudged*; a float array marks them with NaN.
        Unjudged pairs are left out of the adjacency (not read as FALSE).
    return_mask : bool
        Also return the symmetric 0/1 matrix of *observed* pairs.

    Returns
    -------
    adjacency : scipy.sparse.csr_array of shape (n, n)
        ``A_ij = A_ji = 1`` where the pair was judged equivalent.  When a pair
        was judged twice (e.g. both orders) with different verdicts, the edge
        weight is the mean verdict.
    observed : scipy.sparse.csr_array, only if ``return_mask``

    Examples
    --------
    >>> A = adjacency_from_verdicts(3, [[0, 1], [1, 2]], [True, False])
    >>> A.toarray().astype(int).tolist()
    [[0, 1, 0], [1, 0, 0], [0, 0, 0]]
    """
    n = check_int(n, "n", low=1)
    P = _check_pairs(pairs, n)
    if np.ma.isMaskedArray(verdicts):
        judged = ~np.ma.getmaskarray(verdicts)
        v = np.ma.getdata(verdicts).astype(float)
    else:
        v = np.asarray(verdicts, dtype=float)
        judged = ~np.isnan(v)
    if v.ndim != 1 or v.shape[0] != P.shape[0]:
        raise ValueError(f"verdicts must be 1-D with one entry per pair ({P.shape[0]}), got shape {v.shape}")
    vj = v[judged]
    if vj.size and (vj.min() < 0 or vj.max() > 1):
        raise ValueError("verdicts must be boolean or 0/1")
    P, v = P[judged], vj
    keep = P[:, 0] != P[:, 1]
    P, v = P[keep], v[keep]
    lo, hi = np.minimum(P[:, 0], P[:, 1]), np.maximum(P[:, 0], P[:, 1])
    counts = sp.coo_array((np.ones(lo.size), (lo, hi)), shape=(n, n)).tocsr()
    sums = sp.coo_array((v, (lo, hi)), shape=(n, n)).tocsr()
    counts.sum_duplicates()
    sums.sum_duplicates()
    mean = _mean_upper(sums, counts)
    A = (mean + mean.T).tocsr()
    A.eliminate_zeros()
    if not return_mask:
        return A
    obs = counts.copy()
    obs.data[:] = 1.0
    return A, (obs + obs.T).tocsr()


def _mean_upper(sums, counts):
    """Entry-wise sums/counts on the support of counts (counts' structure)."""
    c = counts.tocoo()
    if c.nnz == 0:
        return sp.csr_array(counts.shape, dtype=float)
    s = sums.tocsr()
    vals = np.asarray(s[c.row, c.col]).ravel() / c.data
    return sp.coo_array((vals, (c.row, c.col)), shape=counts.shape).tocsr()


def judge_graph(judge, texts, pairs=None, *, return_mask: bool = False):
    """Ask ``judge`` about ``pairs`` of ``texts`` (all unordered pairs by default) and build the graph.

    Parameters
    ----------
    judge : object with ``pairs(texts, pairs) -> array of bool``
        Any :class:`semvar.judges.Judge`.
    texts : sequence of str
    pairs : array-like of shape (m, 2), optional
        Defaults to :func:`all_pairs` ``(len(texts))``: each unordered pair once.
    return_mask : bool
        Also return the observed-pair mask (see :func:`adjacency_from_verdicts`).
    """
    n = len(texts)
    if n == 0:
        raise ValueError("texts must not be empty")
    P = all_pairs(n) if pairs is None else _check_pairs(pairs, n)
    verdicts = judge.pairs(texts, P)
    return adjacency_from_verdicts(n, P, verdicts, return_mask=return_mask)


def block_labels(sizes) -> np.ndarray:
    """Labels ``0..K-1`` repeated by block ``sizes``.

    >>> block_labels([2, 3]).tolist()
    [0, 0, 1, 1, 1]
    """
    s = check_array(sizes, "sizes", ndim=1, dtype=np.int64)
    if s.size == 0 or s.min() < 1:
        raise ValueError(f"sizes must be a non-empty list of positive integers, got {s.tolist()}")
    return np.repeat(np.arange(s.size), s)


def _triangle_index_to_pair(idx: np.ndarray, m: int):
    """Map linear indices of the strict upper triangle of an m x m matrix to (row, col)."""
    idx = idx.astype(np.int64)
    b = 2 * m - 1
    row = np.floor((b - np.sqrt(b * b - 8.0 * idx)) / 2).astype(np.int64)
    # exact integer correction for floating error
    start = row * (2 * m - row - 1) // 2
    too_far = start > idx
    while too_far.any():
        row[too_far] -= 1
        start = row * (2 * m - row - 1) // 2
        too_far = start > idx
    nxt = (row + 1) * (2 * m - row - 2) // 2
    short = nxt <= idx
    while short.any():
        row[short] += 1
        start = row * (2 * m - row - 1) // 2
        nxt = (row + 1) * (2 * m - row - 2) // 2
        short = nxt <= idx
    col = idx - start + row + 1
    return row, col


def _sample_distinct(rng, total: int, p: float) -> np.ndarray:
    """Each of ``total`` slots independently with probability ``p``; return the chosen slots."""
    if total <= 0 or p <= 0:
        return np.zeros(0, dtype=np.int64)
    if p >= 1:
        return np.arange(total, dtype=np.int64)
    if total <= 5_000_000:
        return np.flatnonzero(rng.random(total) < p).astype(np.int64)
    m = int(rng.binomial(total, p))
    return np.sort(rng.choice(total, size=m, replace=False)).astype(np.int64)


def sample_sbm(sizes, p, q=None, *, random_state=None) -> sp.csr_array:
    """Draw an undirected stochastic block model graph (no self-loops) as a sparse matrix.

    Parameters
    ----------
    sizes : array-like of int, shape (K,)
        Block sizes; nodes are ordered block by block (see :func:`block_labels`).
    p : float or array-like of shape (K, K)
        Within-block edge probability, or the full symmetric matrix ``B`` of
        edge probabilities (then ``q`` must be None).
    q : float, optional
        Between-block edge probability (Liu 2025, eqs. 3-4).
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    scipy.sparse.csr_array of shape (n, n), float 0/1 entries.

    Notes
    -----
    Memory and time are proportional to the number of edges, so graphs with a
    million nodes and tens of millions of edges are practical.
    """
    s = block_labels(sizes)  # validates
    sizes = np.bincount(s)
    K = sizes.size
    if q is None:
        B = check_array(p, "p", ndim=2)
        if B.shape != (K, K):
            raise ValueError(f"p must be a ({K}, {K}) matrix when q is None, got shape {B.shape}")
        if np.abs(B - B.T).max() > 0:
            raise ValueError("the block probability matrix p must be symmetric")
        if B.min() < 0 or B.max() > 1:
            raise ValueError("block probabilities must lie in [0, 1]")
    else:
        p = check_probability(p, "p")
        q = check_probability(q, "q")
        B = np.full((K, K), q)
        np.fill_diagonal(B, p)
    rng = check_random_state(random_state)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    rows, cols = [], []
    for a in range(K):
        for b in range(a, K):
            if a == b:
                m = int(sizes[a])
                chosen = _sample_distinct(rng, m * (m - 1) // 2, B[a, a])
                r, c = _triangle_index_to_pair(chosen, m)
            else:
                chosen = _sample_distinct(rng, int(sizes[a]) * int(sizes[b]), B[a, b])
                r, c = np.divmod(chosen, int(sizes[b]))
            rows.append(r + offsets[a])
            cols.append(c + offsets[b])
    r = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    c = np.concatenate(cols) if cols else np.zeros(0, np.int64)
    n = int(offsets[-1])
    idx_dtype = np.int32 if n < 2**31 - 1 else np.int64
    upper = sp.coo_array((np.ones(r.size), (r.astype(idx_dtype), c.astype(idx_dtype))), shape=(n, n))
    return (upper + upper.T).tocsr()
