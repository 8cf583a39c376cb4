"""Spectral rules for K: the eigengap of the normalised adjacency and the Bethe-Hessian count.

See the package notes of :mod:`semvar.select_k` ("Isolated texts", "Large sparse graphs").
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
from numpy.typing import ArrayLike

from .._threads import one_thread
from .._validation import check_bool, check_real
from ._common import (
    KSelection,
    bulk_edge,
    check_common,
    check_mask,
    largest_gap_k,
    n_components,
    normalized_top,
    on_core,
    result,
)
from ._registry import rule
from ._sparse import _try_sparse

__all__ = ["eigengap", "bethe_hessian"]


# --------------------------------------------------------------------------- eigengap
def eigengap(
    adjacency: ArrayLike | sp.sparray | sp.spmatrix, k_max: int, *, skip_first: bool = False,
    threshold: str | float | None = None, observed: ArrayLike | sp.sparray | sp.spmatrix | None = None,
) -> KSelection:
    """The eigengap heuristic on ``D^{-1/2} A D^{-1/2}``, or a count of eigenvalues above the noise.

    Parameters
    ----------
    adjacency : array-like or scipy sparse matrix of shape (n, n)
    k_max : int
        Largest candidate ``K``; ``1 <= k_max < n``.
    skip_first : bool, default=False
        Ignore the first gap ``mu_1 - mu_2`` (the trivial eigenvalue
        ``mu_1 = 1`` of a connected graph often sits far above the rest, so the
        plain rule returns 1 on dense graphs with a strong degree term); then
        ``K_hat >= 2``.
    threshold : None, "bulk" or float, default=None
        None: the largest gap.  A number ``t``: ``K_hat`` is the number of
        eigenvalues ``mu_k > t`` (at least 1, at most ``k_max``).  ``"bulk"``:
        the same with ``t`` the edge of the noise bulk of an Erdős-Rényi graph
        of the same density, ``t = 2 sqrt((1 - rho) / d_bar)`` with ``d_bar``
        the mean degree and ``rho = d_bar / (n - 1)`` (see Notes).
    observed : array-like or sparse matrix of shape (n, n), optional
        0/1 mask of the pairs judged; None: every pair.  An unjudged pair is
        no evidence (see the package notes, "Partly judged graphs").

    Returns
    -------
    KSelection
        ``.losses[K-1] = -(mu_K - mu_{K+1})`` where ``mu_1 >= mu_2 >= ...`` are
        the eigenvalues of the normalised adjacency; ``K_hat`` maximises the gap
        (or counts the eigenvalues above ``details["threshold"]``).

    Raises
    ------
    ValueError
        For an invalid adjacency, ``k_max`` outside ``[1, n)``, ``skip_first``
        with ``k_max < 2``, or an invalid ``threshold``.

    Notes
    -----
    For an SBM with ``K`` blocks the population matrix has rank ``K``: ``K``
    eigenvalues of order one and ``n - K`` zeros; the sample eigenvalues spread
    the zeros into a bulk (von Luxburg 2007).  For an Erdős-Rényi graph with
    edge probability ``rho`` the centred adjacency has the semicircle bulk of
    radius ``2 sqrt(n rho (1 - rho))`` (Füredi & Komlós 1981); dividing by the
    degree ``n rho`` gives the edge ``2 sqrt((1 - rho) / (n rho))``, or
    ``2 / sqrt(d_bar)`` for a sparse graph.  Isolated texts are set aside and
    counted as meanings of their own; they would otherwise add spurious zero
    eigenvalues.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.kron(np.eye(3), np.ones((4, 4))) - np.eye(12)
    >>> A[0, 4] = A[4, 0] = A[4, 8] = A[8, 4] = 1
    >>> int(eigengap(A, 5))
    3
    >>> int(eigengap(A, 5, threshold=0.2))  # eigenvalues above 0.2
    3
    """
    if skip_first is False and threshold is None and observed is None:
        sel = _try_sparse(adjacency, "eigengap", k_max)
        if sel is not None:
            return sel
    A, n, k_max = check_common(adjacency, k_max)
    check_bool(skip_first, "skip_first")
    if skip_first and k_max < 2:
        raise ValueError(f"skip_first=True needs k_max >= 2, got {k_max}")
    if threshold is not None and threshold != "bulk":
        threshold = check_real(threshold, "threshold")
    if skip_first and threshold is not None:
        raise ValueError("skip_first and threshold cannot be combined (a threshold has no first gap to skip)")
    O = check_mask(observed, A)
    with one_thread():
        return _eigengap(A, k_max, skip_first, threshold, O=O)


def _eigengap(A: np.ndarray, k_max: int, skip_first: bool, threshold=None, spectrum=None, O=None) -> KSelection:
    """eigengap on a checked dense adjacency (isolated texts set aside here; ``O`` the mask of judged pairs)."""

    def run(core, kc_max, Oc=None):
        if skip_first and kc_max < 2:
            return KSelection(k=n_components(core), candidates=np.array([1]), losses=np.zeros(1),
                              method="eigengap", details={"fallback": "connected components"})
        # a partly judged core is read as it is: its TRUE verdicts (see the package notes)
        mu = spectrum[0][: kc_max + 1] if spectrum is not None and Oc is None else normalized_top(core, kc_max + 1)[0]
        gaps = mu[:-1] - mu[1:]
        details = {"eigenvalues": mu, "skip_first": skip_first, "threshold": None}
        if skip_first:
            gaps = gaps.copy()
            gaps[0] = -np.inf
            k = largest_gap_k(gaps)
            return KSelection(k=k, candidates=np.arange(1, kc_max + 1), losses=-gaps, method="eigengap", details=details)
        res = result("eigengap", kc_max, -gaps, details)
        res.k = largest_gap_k(gaps)
        if threshold is not None:
            t = bulk_edge(core) if threshold == "bulk" else float(threshold)
            res.details["threshold"] = t
            res.k = int(min(max(np.count_nonzero(mu[:kc_max] > t), 1), kc_max))
        return res

    return on_core("eigengap", A, k_max, run, O=O)


# --------------------------------------------------------------------------- Bethe-Hessian
def bethe_hessian(
    adjacency: ArrayLike | sp.sparray | sp.spmatrix, k_max: int, *,
    observed: ArrayLike | sp.sparray | sp.spmatrix | None = None,
) -> KSelection:
    """Number of negative eigenvalues of the Bethe-Hessian (Saade et al. 2014; Le & Levina 2015).

    Parameters
    ----------
    adjacency : array-like or scipy sparse matrix of shape (n, n)
    k_max : int
        Largest candidate ``K``; ``1 <= k_max < n``.  The count is clipped to
        ``[1, k_max]``.
    observed : array-like or sparse matrix of shape (n, n), optional
        0/1 mask of the pairs judged; None: every pair.  An unjudged pair is
        no evidence (see the package notes, "Partly judged graphs").

    Returns
    -------
    KSelection
        ``.losses[K-1]`` is the ``K``-th smallest eigenvalue of ``H(r)``;
        ``K_hat`` is the number of negative ones (at least 1).
        ``details["r"]`` the value of ``r``, ``details["n_negative"]`` the raw count.

    Raises
    ------
    ValueError
        For an invalid adjacency or ``k_max`` outside ``[1, n)``.

    Notes
    -----
    ``H(r) = (r^2 - 1) I - r A + D`` with ``r = sqrt(mean degree)``.  Its
    negative eigenvalues correspond to informative eigenvalues of the
    non-backtracking matrix above the bulk radius ``sqrt(mean degree)``.
    Isolated texts are set aside and counted as meanings of their own.

    Examples
    --------
    >>> from semvar.graph import sample_sbm
    >>> A = sample_sbm([40, 40, 40], 0.6, 0.05, random_state=1)
    >>> int(bethe_hessian(A, 5))
    3
    """
    A, n, k_max = check_common(adjacency, k_max)
    O = check_mask(observed, A)
    with one_thread():
        return _bethe_hessian(A, k_max, O)


def _bethe_hessian(A: np.ndarray, k_max: int, O=None) -> KSelection:
    """bethe_hessian on a checked dense adjacency (isolated texts set aside here; ``O`` the mask of judged pairs)."""

    def run(core, kc_max, Oc=None):  # a partly judged core is read as it is (see the package notes)
        n = core.shape[0]
        deg = core.sum(1)
        r = float(np.sqrt(deg.mean()))
        H = (r * r - 1.0) * np.eye(n) - r * core + np.diag(deg)
        vals = la.eigh(H, eigvals_only=True, subset_by_index=[0, min(kc_max, n - 1)])
        n_neg = int((vals < 0).sum())
        k = int(min(max(n_neg, 1), kc_max))
        return KSelection(k=k, candidates=np.arange(1, kc_max + 1), losses=vals[:kc_max], method="bethe_hessian",
                          details={"r": r, "n_negative": n_neg})

    return on_core("bethe_hessian", A, k_max, run, O=O, true_parts=True)


# --------------------------------------------------------------------------- by name, with the defaults
@rule(eigengap, spectrum="eigenvalues", sparse=True, rank=3)
def _eigengap_rule(A: np.ndarray, k_max: int, rng, spectrum, *, skip_first: bool, threshold,
                   observed=None) -> KSelection:
    return _eigengap(A, k_max, skip_first, threshold, spectrum, observed)


@rule(bethe_hessian, rank=6)
def _bethe_hessian_rule(A: np.ndarray, k_max: int, rng, spectrum, *, observed=None) -> KSelection:
    return _bethe_hessian(A, k_max, observed)

