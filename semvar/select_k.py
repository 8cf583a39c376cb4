"""Choosing the number of meanings K of a judged graph.

Algorithm 1 of Liu (2025) needs the number of clusters ``K``; section 2.4 of
the paper proposes network cross-validation (NCV, Chen & Lei 2018) to choose
it.  This module holds NCV and three alternatives:

- :func:`ncv` - network cross-validation: node folds; the block model is fitted
  on the *rows* of the training nodes (a rectangular ``n_train x n`` block, so
  every node, held-out ones included, gets a label from its links to the
  training nodes) and scored on the held-out ``n_test x n_test`` block.
- :func:`ecv` - edge cross-validation (Li, Levina & Zhu 2020): hold out random
  node *pairs*, complete the matrix by a rank-``K`` fit, score the held-out
  pairs.  It also accepts a partially judged graph (an observed-pair mask).
- :func:`eigengap` - the largest gap in the spectrum of ``D^{-1/2} A D^{-1/2}``.
- :func:`bethe_hessian` - the number of negative eigenvalues of the Bethe-Hessian
  ``H(r) = (r^2 - 1) I - r A + D`` with ``r = sqrt(mean degree)`` (Saade,
  Krzakala & Zdeborova 2014; Le & Levina 2015).

All return a :class:`KSelection` (``int(result)`` is the chosen ``K``);
:func:`choose_k` dispatches by name.  Sparse input is accepted but densified: the
methods cost ``O(n^2)`` memory and ``O(n^3)`` time, fine up to a few thousand
texts (a judged graph beyond that is rarely complete anyway).

Losses of the cross-validation methods
--------------------------------------
For held-out pairs ``(i, j)`` with observed ``A_ij`` and fitted block
probability ``P_ij = B[g_i, g_j]``:

- ``"l2"``: ``sum (A_ij - P_ij)^2`` (Chen & Lei's main loss);
- ``"deviance"``: the binomial deviance ``-2 sum [A_ij log P_ij + (1 - A_ij) log(1 - P_ij)]``,
  with ``P`` clipped to ``[1e-6, 1 - 1e-6]``.

Both are averaged over folds (repetitions for ECV); the smallest wins.

Isolated nodes
--------------
A node without edges carries no information about the blocks.  NCV, ECV and
the Bethe-Hessian handle it (its row of the fitted subspace is zero and k-means
puts it somewhere; it can never produce a NaN).  :func:`eigengap` uses the
normalised matrix, whose spectrum each isolated node pollutes with an extra
zero eigenvalue, and therefore refuses such graphs with a ``ValueError``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
from sklearn.cluster import KMeans
from threadpoolctl import threadpool_limits

from ._validation import check_adjacency, check_int, check_random_state, check_real

__all__ = ["KSelection", "ncv", "ecv", "eigengap", "bethe_hessian", "choose_k", "METHODS"]

_LOSSES = ("l2", "deviance")


def _single_thread(func):
    """Run ``func`` with one BLAS/OpenMP thread.

    The many small SVDs and k-means fits of cross-validation are far slower
    with oversubscribed thread pools on a shared machine than on one core.
    """
    import functools

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with threadpool_limits(limits=1):
            return func(*args, **kwargs)

    return wrapper
_CLIP = 1e-6


@dataclass
class KSelection:
    """The chosen number of clusters and the criterion behind it.

    Attributes
    ----------
    k : int
        The chosen ``K``.
    candidates : ndarray of int
        The values of ``K`` that were compared (``1..k_max``).
    losses : ndarray of float
        The criterion for each candidate (smaller is better): held-out loss for
        NCV / ECV, minus the eigengap for :func:`eigengap`, the ``K``-th smallest
        Bethe-Hessian eigenvalue for :func:`bethe_hessian`.
    method : str
        ``"ncv"``, ``"ecv"``, ``"eigengap"`` or ``"bethe_hessian"``.
    details : dict
        Method-specific extras (fold losses, the other loss, ``r``, ...).
    """

    k: int
    candidates: np.ndarray
    losses: np.ndarray
    method: str
    details: dict = field(default_factory=dict, repr=False)

    def __int__(self) -> int:
        return int(self.k)

    def __index__(self) -> int:
        return int(self.k)


# --------------------------------------------------------------------------- helpers
def _dense(A) -> np.ndarray:
    return A.toarray() if sp.issparse(A) else np.asarray(A, dtype=float)


def _check_common(adjacency, k_max):
    A = _dense(check_adjacency(adjacency))
    n = A.shape[0]
    if n < 3:
        raise ValueError(f"adjacency must have at least 3 nodes to choose K, got {n}")
    k_max = check_int(k_max, "k_max", low=1)
    if k_max >= n:
        raise ValueError(f"k_max must satisfy 1 <= k_max < n = {n}, got {k_max}")
    return A, n, k_max


def _kmeans(X: np.ndarray, k: int, rng) -> np.ndarray:
    if k == 1:
        return np.zeros(X.shape[0], dtype=np.int64)
    km = KMeans(n_clusters=k, n_init=10, random_state=int(rng.integers(2**31 - 1)))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Number of distinct clusters")
        return km.fit_predict(X).astype(np.int64)


def _block_fit(A, rows, cols, g_rows, g_cols, k, weight=None, *, same=False):
    """Block means of ``A[rows][:, cols]`` by label pair (weights = observed mask).

    Empty blocks fall back to the overall training density (no NaN).  With
    ``same=True`` (rows == cols) the diagonal is excluded.
    """
    sub = A[np.ix_(rows, cols)]
    w = np.ones_like(sub) if weight is None else weight
    if same:
        w = w.copy()
        np.fill_diagonal(w, 0.0)
    Zr = np.eye(k)[g_rows]
    Zc = np.eye(k)[g_cols]
    sums = Zr.T @ (sub * w) @ Zc
    counts = Zr.T @ w @ Zc
    sums = sums + sums.T if not same else sums
    counts = counts + counts.T if not same else counts
    overall = (sub * w).sum() / max(w.sum(), 1.0)
    B = np.where(counts > 0, sums / np.where(counts > 0, counts, 1.0), overall)
    return B


def _pair_losses(a: np.ndarray, p: np.ndarray) -> tuple[float, float]:
    l2 = float(((a - p) ** 2).sum())
    pc = np.clip(p, _CLIP, 1 - _CLIP)
    dev = float(-2.0 * (a * np.log(pc) + (1 - a) * np.log(1 - pc)).sum())
    return l2, dev


def _check_loss(loss):
    if loss not in _LOSSES:
        raise ValueError(f"loss must be one of {_LOSSES}, got {loss!r}")


def _result(method, k_max, losses, details, *, pick="min") -> KSelection:
    losses = np.asarray(losses, dtype=float)
    if not np.all(np.isfinite(losses)):
        raise RuntimeError(f"{method}: a non-finite criterion arose ({losses}); please report this graph")
    k = int(np.argmin(losses)) + 1
    return KSelection(k=k, candidates=np.arange(1, k_max + 1), losses=losses, method=method, details=details)


# --------------------------------------------------------------------------- NCV
@_single_thread
def ncv(adjacency, k_max: int, *, folds: int = 3, loss: str = "l2", random_state=None) -> KSelection:
    """Network cross-validation for the number of blocks (Chen & Lei 2018).

    Parameters
    ----------
    adjacency : array-like or scipy sparse matrix of shape (n, n)
        Symmetric 0/1 (or [0, 1]-weighted) judged graph.
    k_max : int
        Largest candidate ``K``; ``1 <= k_max < n``.
    folds : int
        Number of node folds ``V``, ``2 <= folds <= n // 2`` (each fold must
        hold at least one held-out pair).
    loss : {"l2", "deviance"}
        Held-out loss used to choose ``K`` (both are stored in ``details``).
    random_state : None, int or numpy.random.Generator
        Seeds the fold split and k-means.

    Returns
    -------
    KSelection
        ``.k`` the chosen ``K``; ``.losses[K-1]`` the held-out loss of ``K``
        summed over folds; ``details["fold_l2"]``, ``details["fold_deviance"]``
        arrays of shape ``(folds, k_max)``.

    Raises
    ------
    ValueError
        For an invalid adjacency, ``k_max`` outside ``[1, n)`` or above the
        number of training nodes of a fold, ``folds`` outside ``[2, n // 2]``
        or an unknown ``loss``.

    Notes
    -----
    For fold ``v`` with held-out nodes ``N_v`` and training nodes ``T_v``:

    1. take the ``K`` leading right singular vectors of the rectangular block
       ``A[T_v, :]`` (every node is a column, so held-out nodes are embedded
       through their links to training nodes) and run k-means on their rows;
    2. estimate ``B[k, l]`` by the edge density between groups ``k`` and ``l``
       over all pairs with at least one training node;
    3. predict each held-out pair ``(i, j)``, ``i < j`` in ``N_v`` by
       ``B[g_i, g_j]`` and add its loss.

    The held-out block ``A[N_v, N_v]`` is never used in fitting.  Chen & Lei
    (2018, Theorem 3) show that under-fitting (``K_hat < K``) has vanishing
    probability; over-fitting is controlled only in weaker form, which is why
    a wide ``k_max`` can occasionally return too large a ``K``.

    References
    ----------
    Chen, K. and Lei, J. (2018). Network cross-validation for determining the
    number of communities in network data. JASA 113(521), 241-251.

    Examples
    --------
    >>> from semvar.graph import sample_sbm
    >>> A = sample_sbm([40, 40, 40], 0.6, 0.05, random_state=1)
    >>> int(ncv(A, 5, random_state=0))
    3
    """
    A, n, k_max = _check_common(adjacency, k_max)
    folds = check_int(folds, "folds", low=2)
    if folds > n // 2:
        raise ValueError(f"folds must satisfy 2 <= folds <= n // 2 = {n // 2} so every fold holds a pair, got {folds}")
    _check_loss(loss)
    n_train_min = n - -(-n // folds)
    if k_max > n_train_min:
        raise ValueError(
            f"k_max must be <= {n_train_min}, the number of training nodes of the largest fold "
            f"(n = {n}, folds = {folds}), got {k_max}"
        )
    rng = check_random_state(random_state)
    perm = rng.permutation(n)
    fold_of = np.empty(n, dtype=np.int64)
    fold_of[perm] = np.arange(n) % folds
    fl2 = np.full((folds, k_max), np.inf)
    fdev = np.full((folds, k_max), np.inf)
    for v in range(folds):
        test = np.flatnonzero(fold_of == v)
        train = np.flatnonzero(fold_of != v)
        order = np.concatenate([train, test])
        A1 = A[np.ix_(train, order)]  # rectangular training rows, all columns
        kk = min(k_max, len(train))
        _, _, Vt = la.svd(A1, full_matrices=False)
        Vall = Vt[:kk].T  # (n, kk), rows in `order`
        iu = np.triu_indices(len(test), 1)
        a_test = A[np.ix_(test, test)][iu]
        nt = len(train)
        for k in range(1, kk + 1):
            g = _kmeans(Vall[:, :k], k, rng)
            g_tr, g_te = g[:nt], g[nt:]
            # block densities from pairs touching the training nodes
            Btt = _block_fit(A, train, train, g_tr, g_tr, k, same=True)
            Zt = np.eye(k)[g_tr]
            Ze = np.eye(k)[g_te]
            cross = A[np.ix_(train, test)]
            s = Zt.T @ A[np.ix_(train, train)] @ Zt + Zt.T @ cross @ Ze + (Zt.T @ cross @ Ze).T
            ntr_k = Zt.sum(0)
            nte_k = Ze.sum(0)
            c = np.outer(ntr_k, ntr_k) - np.diag(ntr_k) + np.outer(ntr_k, nte_k) + np.outer(nte_k, ntr_k)
            B = np.where(c > 0, s / np.where(c > 0, c, 1.0), Btt)
            p_test = B[g_te[iu[0]], g_te[iu[1]]]
            fl2[v, k - 1], fdev[v, k - 1] = _pair_losses(a_test, p_test)
    l2 = fl2.sum(0)
    dev = fdev.sum(0)
    chosen = l2 if loss == "l2" else dev
    return _result("ncv", k_max, chosen, {"fold_l2": fl2, "fold_deviance": fdev, "l2": l2, "deviance": dev, "loss": loss})


# --------------------------------------------------------------------------- ECV
@_single_thread
def ecv(
    adjacency,
    k_max: int,
    *,
    holdout: float = 0.1,
    repeats: int = 3,
    observed=None,
    loss: str = "l2",
    random_state=None,
) -> KSelection:
    """Edge cross-validation for the number of blocks (Li, Levina & Zhu 2020).

    Parameters
    ----------
    adjacency : array-like or scipy sparse matrix of shape (n, n)
        Symmetric judged graph; entries of unobserved pairs are ignored.
    k_max : int
        Largest candidate ``K``; ``1 <= k_max < n``.
    holdout : float
        Fraction of observed pairs held out per repetition, in ``(0, 0.5]``.
    repeats : int
        Number of random hold-out splits (losses are summed), ``>= 1``.
    observed : array-like or sparse matrix of shape (n, n), optional
        Symmetric 0/1 mask of the pairs the judge actually scored (as returned
        by :func:`semvar.graph.adjacency_from_verdicts` with ``return_mask``).
        ``None`` means every pair was judged.
    loss : {"l2", "deviance"}
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    KSelection

    Raises
    ------
    ValueError
        For an invalid adjacency or mask, ``k_max`` outside ``[1, n)``,
        ``holdout`` outside ``(0, 0.5]``, ``repeats < 1``, or too few observed pairs.

    Notes
    -----
    Per repetition: draw held-out pairs ``H`` among the observed pairs; let
    ``W`` be the training mask (observed and not held out) with fraction
    ``rho`` of all off-diagonal pairs; form ``Y = W * A / rho`` (an unbiased
    proxy for ``P``), take its best rank-``K`` symmetric approximation, cluster
    the rows of its ``K`` leading eigenvectors with k-means, estimate ``B`` by
    block densities over training pairs, and score ``H``.

    References
    ----------
    Li, T., Levina, E. and Zhu, J. (2020). Network cross-validation by edge
    sampling. Biometrika 107(2), 257-276.

    Examples
    --------
    >>> from semvar.graph import sample_sbm
    >>> A = sample_sbm([40, 40, 40], 0.6, 0.05, random_state=1)
    >>> int(ecv(A, 5, random_state=0))
    3
    """
    A, n, k_max = _check_common(adjacency, k_max)
    holdout = check_real(holdout, "holdout", low=0.0, high=0.5, low_open=True)
    repeats = check_int(repeats, "repeats", low=1)
    _check_loss(loss)
    iu = np.triu_indices(n, 1)
    if observed is None:
        obs = np.ones(iu[0].size, dtype=bool)
    else:
        M = _dense(check_adjacency(observed, "observed"))
        if M.shape != (n, n):
            raise ValueError(f"observed must have shape {(n, n)}, got {M.shape}")
        if not np.all((M == 0) | (M == 1)):
            raise ValueError("observed must be a 0/1 mask")
        obs = M[iu] > 0
    obs_idx = np.flatnonzero(obs)
    n_hold = int(round(holdout * obs_idx.size))
    if n_hold < 1 or obs_idx.size - n_hold < n:
        raise ValueError(
            f"too few observed pairs ({obs_idx.size}) for edge cross-validation with holdout={holdout} on n={n} nodes"
        )
    rng = check_random_state(random_state)
    rl2 = np.zeros((repeats, k_max))
    rdev = np.zeros((repeats, k_max))
    a_up = A[iu]
    for r in range(repeats):
        held = rng.choice(obs_idx, size=n_hold, replace=False)
        train = obs.copy()
        train[held] = False
        rho = train.sum() / iu[0].size
        W = np.zeros((n, n))
        W[iu[0][train], iu[1][train]] = 1.0
        W = W + W.T
        Y = W * A / rho
        vals, vecs = la.eigh(Y)
        order = np.argsort(-np.abs(vals))[:k_max]
        hi, hj = iu[0][held], iu[1][held]
        a_held = a_up[held]
        for k in range(1, k_max + 1):
            g = _kmeans(vecs[:, order[:k]], k, rng)
            Z = np.eye(k)[g]
            s = Z.T @ (W * A) @ Z
            c = Z.T @ W @ Z
            overall = (W * A).sum() / W.sum()
            B = np.where(c > 0, s / np.where(c > 0, c, 1.0), overall)
            rl2[r, k - 1], rdev[r, k - 1] = _pair_losses(a_held, B[g[hi], g[hj]])
    l2, dev = rl2.sum(0), rdev.sum(0)
    chosen = l2 if loss == "l2" else dev
    return _result("ecv", k_max, chosen, {"repeat_l2": rl2, "repeat_deviance": rdev, "l2": l2, "deviance": dev, "loss": loss})


# --------------------------------------------------------------------------- eigengap
@_single_thread
def eigengap(adjacency, k_max: int, *, skip_first: bool = False) -> KSelection:
    """The eigengap heuristic on ``D^{-1/2} A D^{-1/2}``.

    Parameters
    ----------
    adjacency : array-like or scipy sparse matrix of shape (n, n)
    k_max : int
        Largest candidate ``K``; ``1 <= k_max < n``.
    skip_first : bool
        Ignore the first gap ``mu_1 - mu_2`` (the trivial eigenvalue
        ``mu_1 = 1`` of a connected graph often sits far above the rest, so the
        plain rule returns 1 on dense graphs with a strong degree term); then
        ``K_hat >= 2``.

    Returns
    -------
    KSelection
        ``.losses[K-1] = -(mu_K - mu_{K+1})`` where ``mu_1 >= mu_2 >= ...`` are
        the eigenvalues of the normalised adjacency; ``K_hat`` maximises the gap.

    Raises
    ------
    ValueError
        For an invalid adjacency, ``k_max`` outside ``[1, n)``, or isolated
        nodes (each adds a spurious zero eigenvalue; remove them first).

    Notes
    -----
    For an SBM with ``K`` blocks the population matrix has rank ``K``: ``K``
    eigenvalues of order one and ``n - K`` zeros; the sample eigenvalues spread
    the zeros into a bulk of width ``O(1/sqrt(n alpha_n))`` (von Luxburg 2007).

    Examples
    --------
    >>> import numpy as np
    >>> A = np.kron(np.eye(3), np.ones((4, 4))) - np.eye(12)
    >>> A[0, 4] = A[4, 0] = A[4, 8] = A[8, 4] = 1
    >>> int(eigengap(A, 5))
    3
    """
    A, n, k_max = _check_common(adjacency, k_max)
    deg = A.sum(1)
    if np.any(deg == 0):
        raise ValueError(
            f"eigengap needs every node to have an edge; found {int((deg == 0).sum())} isolated node(s) "
            "(remove them, or use method='ncv', 'ecv' or 'bethe_hessian')"
        )
    s = 1.0 / np.sqrt(deg)
    M = A * s[:, None] * s[None, :]
    mu = la.eigh(M, eigvals_only=True, subset_by_index=[n - k_max - 1, n - 1])[::-1]
    gaps = mu[:-1] - mu[1:]
    if skip_first:
        if k_max < 2:
            raise ValueError(f"skip_first=True needs k_max >= 2, got {k_max}")
        gaps = gaps.copy()
        gaps[0] = -np.inf
        losses = -gaps
        k = int(np.argmin(losses)) + 1
        return KSelection(k=k, candidates=np.arange(1, k_max + 1), losses=losses, method="eigengap",
                          details={"eigenvalues": mu, "skip_first": True})
    return _result("eigengap", k_max, -gaps, {"eigenvalues": mu, "skip_first": False})


# --------------------------------------------------------------------------- Bethe-Hessian
@_single_thread
def bethe_hessian(adjacency, k_max: int) -> KSelection:
    """Number of negative eigenvalues of the Bethe-Hessian (Saade et al. 2014; Le & Levina 2015).

    Parameters
    ----------
    adjacency : array-like or scipy sparse matrix of shape (n, n)
    k_max : int
        Largest candidate ``K``; ``1 <= k_max < n``.  The count is clipped to
        ``[1, k_max]``.

    Returns
    -------
    KSelection
        ``.losses[K-1]`` is the ``K``-th smallest eigenvalue of ``H(r)``;
        ``K_hat`` is the number of negative ones (at least 1).
        ``details["r"]`` the value of ``r``, ``details["n_negative"]`` the raw count.

    Raises
    ------
    ValueError
        For an invalid adjacency, ``k_max`` outside ``[1, n)`` or a graph without edges.

    Notes
    -----
    ``H(r) = (r^2 - 1) I - r A + D`` with ``r = sqrt(mean degree)``.  Its
    negative eigenvalues correspond to informative eigenvalues of the
    non-backtracking matrix above the bulk radius ``sqrt(mean degree)``.

    Examples
    --------
    >>> from semvar.graph import sample_sbm
    >>> A = sample_sbm([40, 40, 40], 0.6, 0.05, random_state=1)
    >>> int(bethe_hessian(A, 5))
    3
    """
    A, n, k_max = _check_common(adjacency, k_max)
    deg = A.sum(1)
    if deg.sum() == 0:
        raise ValueError("adjacency has no edges; the number of blocks cannot be estimated")
    r = float(np.sqrt(deg.mean()))
    H = (r * r - 1.0) * np.eye(n) - r * A + np.diag(deg)
    vals = la.eigh(H, eigvals_only=True, subset_by_index=[0, k_max])
    n_neg = int((vals < 0).sum())
    k = int(min(max(n_neg, 1), k_max))
    return KSelection(
        k=k, candidates=np.arange(1, k_max + 1), losses=vals[:k_max], method="bethe_hessian",
        details={"r": r, "n_negative": n_neg},
    )


METHODS = {"ncv": ncv, "ecv": ecv, "eigengap": eigengap, "bethe_hessian": bethe_hessian}


def choose_k(adjacency, method: str = "ncv", k_max: int = 10, random_state=None) -> int:
    """Choose the number of meanings ``K`` of a judged graph.

    Parameters
    ----------
    adjacency : array-like or scipy sparse matrix of shape (n, n)
    method : {"ncv", "ecv", "eigengap", "bethe_hessian"}
    k_max : int
        Largest candidate; lowered to ``n - 1`` for graphs with fewer than
        ``k_max + 1`` nodes.  NCV uses ``min(3, n // 2)`` folds and at most as
        many candidates as a fold has training nodes.
    random_state : None, int or numpy.random.Generator
        Used by the cross-validation methods.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        For an unknown method or an invalid adjacency / ``k_max``.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.kron(np.eye(2), np.ones((5, 5))) - np.eye(10)
    >>> choose_k(A, "eigengap", k_max=4)
    2
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {tuple(METHODS)}, got {method!r}")
    A = check_adjacency(adjacency)
    n = A.shape[0]
    k_max = check_int(k_max, "k_max", low=1)
    if n < 3:
        raise ValueError(f"adjacency must have at least 3 nodes to choose K, got {n}")
    k_max = min(k_max, n - 1)
    if method == "ncv":
        if n < 4:
            raise ValueError(f"method='ncv' needs at least 4 nodes (two folds of two), got {n}")
        folds = min(3, n // 2)
        k_max = min(k_max, n - -(-n // folds))
        return int(ncv(A, k_max, folds=folds, random_state=random_state))
    if method == "ecv":
        return int(ecv(A, k_max, random_state=random_state))
    return int(METHODS[method](A, k_max))
