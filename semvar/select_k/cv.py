"""Cross-validation rules for K: network cross-validation (NCV) and edge cross-validation (ECV).

See the package notes of :mod:`semvar.select_k` ("Losses of the cross-validation
methods", "Isolated texts").
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
from numpy.typing import ArrayLike

from .._masks import completed as _completed
from .._threads import one_thread
from .._validation import (
    RandomStateLike,
    check_adjacency,
    check_bool,
    check_int,
    check_option,
    check_random_state,
    check_real,
)
from ._common import (
    LOSSES,
    KSelection,
    as_dense,
    check_common,
    check_mask,
    kmeans_labels,
    n_components,
    on_core,
    result,
)
from ._registry import rule

__all__ = ["ncv", "ecv"]

_CLIP = 1e-6


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


# --------------------------------------------------------------------------- NCV
def ncv(
    adjacency: ArrayLike | sp.sparray | sp.spmatrix,
    k_max: int,
    *,
    folds: int = 3,
    loss: str = "l2",
    repeats: int = 1,
    se_rule: bool = False,
    observed: ArrayLike | sp.sparray | sp.spmatrix | None = None,
    random_state: RandomStateLike = None,
) -> KSelection:
    """Network cross-validation for the number of blocks (Chen & Lei 2018).

    Parameters
    ----------
    adjacency : array-like or scipy sparse matrix of shape (n, n)
        Symmetric 0/1 (or [0, 1]-weighted) judged graph.
    k_max : int
        Largest candidate ``K``; ``1 <= k_max < n``.
    folds : int, default=3
        Number of node folds ``V``, ``2 <= folds <= n // 2`` (each fold must
        hold at least one held-out pair).
    loss : {"l2", "deviance"}, default="l2"
        Held-out loss used to choose ``K`` (both are stored in ``details``).
    repeats : int, default=1
        Number of independent fold splits; their fold losses are pooled.
    se_rule : bool, default=False
        Choose the smallest ``K`` whose mean fold loss is within one standard
        error of the smallest mean (the one-standard-error rule of
        cross-validation, Hastie, Tibshirani & Friedman 2009, section 7.10)
        instead of the smallest mean.  Together with ``repeats`` this is the
        small-sample variant of chapter 4: the held-out loss of a small graph
        is flat above the true ``K`` and decided by a few verdicts.
    observed : array-like or sparse matrix of shape (n, n), optional
        0/1 mask of the pairs judged; None: every pair.  An unjudged pair is
        no evidence (see the package notes, "Partly judged graphs").
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the fold split and k-means.

    Returns
    -------
    KSelection
        ``.k`` the chosen ``K``; ``.losses[K-1]`` the held-out loss of ``K``
        summed over folds (and averaged over repeats); ``details["fold_l2"]``,
        ``details["fold_deviance"]`` arrays of shape ``(repeats * folds, k_max)``.

    Raises
    ------
    ValueError
        For an invalid adjacency, ``k_max`` outside ``[1, n)`` or above the
        number of training nodes of a fold, ``folds`` outside ``[2, n // 2]``,
        ``repeats < 1`` or an unknown ``loss``.

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
    a wide ``k_max`` can occasionally return too large a ``K``.  Isolated
    texts are set aside and counted as meanings of their own (see the module
    notes); folds and ``k_max`` shrink to fit the remaining texts.

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
    A, n, k_max = check_common(adjacency, k_max)
    folds = check_int(folds, "folds", low=2)
    if folds > n // 2:
        raise ValueError(f"folds must satisfy 2 <= folds <= n // 2 = {n // 2} so every fold holds a pair, got {folds}")
    check_option(loss, "loss", LOSSES)
    repeats = check_int(repeats, "repeats", low=1)
    check_bool(se_rule, "se_rule")
    n_train_min = n - -(-n // folds)
    if k_max > n_train_min:
        raise ValueError(
            f"k_max must be <= {n_train_min}, the number of training nodes of the largest fold "
            f"(n = {n}, folds = {folds}), got {k_max}"
        )
    O = check_mask(observed, A)
    rng = check_random_state(random_state)
    with one_thread():
        return _ncv(A, k_max, folds, loss, rng, repeats, se_rule, O)


def _ncv(A: np.ndarray, k_max: int, folds: int, loss: str, rng, repeats: int = 1, se_rule: bool = False,
         O=None) -> KSelection:
    """ncv on a checked dense adjacency and checked arguments (isolated texts set aside here).

    With ``O`` (the mask of judged pairs) the fit reads the completed graph and the held-out loss
    the judged pairs only.
    """

    def run(core, kc_max, Oc=None):
        nc = core.shape[0]
        f = min(folds, nc // 2)
        kk = min(kc_max, nc - -(-nc // f))
        return _ncv_core(core, kk, f, loss, rng, repeats, se_rule, Oc)

    return on_core("ncv", A, k_max, run, min_nodes=4, O=O)


def _ncv_core(A: np.ndarray, k_max: int, folds: int, loss: str, rng, repeats: int, se_rule: bool,
              O=None) -> KSelection:
    n = A.shape[0]
    judged = None if O is None else O
    A = _completed(A, O)
    fl2 = np.full((repeats * folds, k_max), np.inf)
    fdev = np.full((repeats * folds, k_max), np.inf)
    for rep in range(repeats):
        perm = rng.permutation(n)
        fold_of = np.empty(n, dtype=np.int64)
        fold_of[perm] = np.arange(n) % folds
        for v in range(folds):
            row = rep * folds + v
            test = np.flatnonzero(fold_of == v)
            train = np.flatnonzero(fold_of != v)
            order = np.concatenate([train, test])
            A1 = A[np.ix_(train, order)]  # rectangular training rows, all columns
            kk = min(k_max, len(train))
            _, _, Vt = la.svd(A1, full_matrices=False)
            Vall = Vt[:kk].T  # (n, kk), rows in `order`
            iu = np.triu_indices(len(test), 1)
            if judged is not None:  # held-out pairs that were judged: the others are no evidence
                seen = judged[np.ix_(test, test)][iu] > 0
                iu = (iu[0][seen], iu[1][seen])
            a_test = A[np.ix_(test, test)][iu]
            nt = len(train)
            cross = A[np.ix_(train, test)]
            Att = A[np.ix_(train, train)]
            for k in range(1, kk + 1):
                g = kmeans_labels(Vall[:, :k], k, rng)
                g_tr, g_te = g[:nt], g[nt:]
                # block densities from pairs touching the training nodes
                Btt = _block_fit(A, train, train, g_tr, g_tr, k, same=True)
                Zt = np.eye(k)[g_tr]
                Ze = np.eye(k)[g_te]
                s = Zt.T @ Att @ Zt + Zt.T @ cross @ Ze + (Zt.T @ cross @ Ze).T
                ntr_k = Zt.sum(0)
                nte_k = Ze.sum(0)
                c = np.outer(ntr_k, ntr_k) - np.diag(ntr_k) + np.outer(ntr_k, nte_k) + np.outer(nte_k, ntr_k)
                B = np.where(c > 0, s / np.where(c > 0, c, 1.0), Btt)
                p_test = B[g_te[iu[0]], g_te[iu[1]]]
                fl2[row, k - 1], fdev[row, k - 1] = _pair_losses(a_test, p_test)
    l2 = fl2.sum(0) / repeats
    dev = fdev.sum(0) / repeats
    chosen = l2 if loss == "l2" else dev
    details = {"fold_l2": fl2, "fold_deviance": fdev, "l2": l2, "deviance": dev, "loss": loss,
               "folds": folds, "repeats": repeats, "se_rule": se_rule}
    res = result("ncv", k_max, chosen, details)
    if se_rule and fl2.shape[0] > 1:
        rows = fl2 if loss == "l2" else fdev
        mean = rows.mean(0)
        best = int(np.argmin(mean))
        se = rows[:, best].std(ddof=1) / np.sqrt(rows.shape[0])
        res.k = int(np.flatnonzero(mean <= mean[best] + se)[0]) + 1
        res.details["standard_error"] = float(se)
    return res


# --------------------------------------------------------------------------- ECV
def ecv(
    adjacency: ArrayLike | sp.sparray | sp.spmatrix,
    k_max: int,
    *,
    holdout: float = 0.1,
    repeats: int = 3,
    observed: ArrayLike | sp.sparray | sp.spmatrix | None = None,
    loss: str = "l2",
    random_state: RandomStateLike = None,
) -> KSelection:
    """Edge cross-validation for the number of blocks (Li, Levina & Zhu 2020).

    Parameters
    ----------
    adjacency : array-like or scipy sparse matrix of shape (n, n)
        Symmetric judged graph; entries of unobserved pairs are ignored.
    k_max : int
        Largest candidate ``K``; ``1 <= k_max < n``.
    holdout : float, default=0.1
        Fraction of observed pairs held out per repetition, in ``(0, 0.5]``.
    repeats : int, default=3
        Number of random hold-out splits (losses are summed), ``>= 1``.
    observed : array-like or sparse matrix of shape (n, n), optional
        Symmetric 0/1 mask of the pairs the judge actually scored (as returned
        by :func:`semvar.graph.adjacency_from_verdicts` with ``return_mask``).
        ``None`` means every pair was judged.
    loss : {"l2", "deviance"}, default="l2"
    random_state : None, int or numpy.random.Generator, default=None

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
    block densities over training pairs, and score ``H``.  Isolated texts are
    set aside and counted as meanings of their own; a core with too few
    observed pairs for the hold-out has as many meanings as components.

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
    A, n, k_max = check_common(adjacency, k_max)
    holdout = check_real(holdout, "holdout", low=0.0, high=0.5, low_open=True)
    repeats = check_int(repeats, "repeats", low=1)
    check_option(loss, "loss", LOSSES)
    if observed is None:
        M = None
    else:
        M = as_dense(check_adjacency(observed, "observed"))
        if M.shape != (n, n):
            raise ValueError(f"observed must have shape {(n, n)}, got {M.shape}")
        if not np.all((M == 0) | (M == 1)):
            raise ValueError("observed must be a 0/1 mask")
    iu = np.triu_indices(n, 1)
    _n_holdout(np.ones(iu[0].size, dtype=bool) if M is None else M[iu] > 0, holdout, n)
    rng = check_random_state(random_state)
    with one_thread():
        return _ecv(A, k_max, M, holdout, repeats, loss, rng)


def _n_holdout(obs: np.ndarray, holdout: float, n: int) -> int:
    """Number of pairs ECV holds out; raises when too few pairs are observed."""
    n_obs = int(np.count_nonzero(obs))
    n_hold = int(round(holdout * n_obs))
    if n_hold < 1 or n_obs - n_hold < n:
        raise ValueError(
            f"too few observed pairs ({n_obs}) for edge cross-validation with holdout={holdout} on n={n} nodes"
        )
    return n_hold


def _ecv(A: np.ndarray, k_max: int, M, holdout: float, repeats: int, loss: str, rng) -> KSelection:
    """ecv on a checked dense adjacency and mask (None: all pairs); isolated texts set aside here."""

    def run(core, kc_max, Oc=None):
        nc = core.shape[0]
        iu = np.triu_indices(nc, 1)
        obs = np.ones(iu[0].size, dtype=bool) if Oc is None else Oc[iu] > 0
        n_obs = int(np.count_nonzero(obs))
        n_hold = int(round(holdout * n_obs))
        if n_hold < 1 or n_obs - n_hold < nc:
            kc = n_components(core)
            return KSelection(k=kc, candidates=np.array([kc]), losses=np.zeros(1), method="ecv",
                              details={"fallback": "connected components"})
        return _ecv_core(core, kc_max, obs, n_hold, repeats, loss, rng)

    O = None if M is None else (M.toarray() if sp.issparse(M) else np.asarray(M, dtype=float))
    return on_core("ecv", A, k_max, run, O=O)


def _ecv_core(A: np.ndarray, k_max: int, obs: np.ndarray, n_hold: int, repeats: int, loss: str, rng) -> KSelection:
    n = A.shape[0]
    iu = np.triu_indices(n, 1)
    obs_idx = np.flatnonzero(obs)
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
        order = np.argsort(-np.abs(vals), kind="stable")[:k_max]
        hi, hj = iu[0][held], iu[1][held]
        a_held = a_up[held]
        for k in range(1, k_max + 1):
            g = kmeans_labels(vecs[:, order[:k]], k, rng)
            Z = np.eye(k)[g]
            s = Z.T @ (W * A) @ Z
            c = Z.T @ W @ Z
            overall = (W * A).sum() / W.sum()
            B = np.where(c > 0, s / np.where(c > 0, c, 1.0), overall)
            rl2[r, k - 1], rdev[r, k - 1] = _pair_losses(a_held, B[g[hi], g[hj]])
    l2, dev = rl2.sum(0), rdev.sum(0)
    chosen = l2 if loss == "l2" else dev
    return result("ecv", k_max, chosen, {"repeat_l2": rl2, "repeat_deviance": rdev, "l2": l2, "deviance": dev, "loss": loss})


# --------------------------------------------------------------------------- by name, with the defaults
@rule(ncv, random_state=True, rank=4)
def _ncv_rule(A: np.ndarray, k_max: int, rng, spectrum, *, folds: int, loss: str, repeats: int,
              se_rule: bool, observed=None) -> KSelection:
    """ncv as :func:`semvar.select_k.choose_k` runs it: at most ``folds`` folds, fewer on small graphs."""
    return _ncv(A, k_max, max(2, min(folds, A.shape[0] // 2)), loss, rng, repeats, se_rule, observed)


@rule(ecv, random_state=True, rank=5)
def _ecv_rule(A: np.ndarray, k_max: int, rng, spectrum, *, holdout: float, repeats: int, loss: str,
              observed=None) -> KSelection:
    """ecv with its defaults; ``observed`` None (every pair judged) or the mask of judged pairs."""
    return _ecv(A, k_max, observed, holdout, repeats, loss, rng)

