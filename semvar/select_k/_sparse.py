"""The route of large sparse graphs: the rules that read only the leading eigenpairs, never made dense.

See the package notes ("Large sparse graphs").  The thresholds are the
attributes of one object, :data:`SPARSE` (re-exported as
``semvar.select_k.SPARSE``), read at every call: setting one there sets it
for every caller.

Private to the subpackage.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._threads import one_thread
from .._validation import check_adjacency, check_int
from ..spectral import leading_eigenpairs
from ._common import (
    KSelection,
    bulk_edge,
    check_verdict_weights,
    components_of,
    decomposed,
    sparse_no_loops,
    split_isolated,
    with_singletons,
)
from ._registry import RULES, run

__all__ = ["SparseRoute", "SPARSE"]


@dataclass
class SparseRoute:
    """The sizes at which the route of large sparse graphs takes over (one instance: :data:`SPARSE`).

    Attributes
    ----------
    n : int, default=500
        Cores (texts with an edge) of more texts than this, held sparse, are never made dense by
        the rules that read only the leading eigenpairs ("auto", "icl" with the judge model,
        "eigengap").
    tied_n : int, default=2000
        A core in several connected components takes the sparse route only above this many texts
        (and is then decomposed: the rule on each component); below it the dense route.
    exact_n : int, default=20000
        Above this many texts in the core (where the dense route would need tens of GiB) the
        judge-model ICL of the sparse route compares only the ``K`` whose eigenvalues stand above
        the noise bulk.
    """

    n: int = 500
    tied_n: int = 2000
    exact_n: int = 20_000


#: The thresholds every caller reads (``semvar.select_k.SPARSE.n = 10**9`` sends every graph the dense route).
SPARSE = SparseRoute()

#: Relative accuracy that :func:`_bulk_top` asks of the Lanczos solver where the loose first solve
#: does not settle the question (and for the eigenvalues the eigengap reads).
_BULK_TOL = 1e-4

#: Relative accuracy of :func:`_bulk_top`'s first solve.  ARPACK stops when every requested Ritz
#: pair's residual is below ``tol`` times its Ritz value: the last pair, inside the bulk, is then known
#: to about 1 %, while the eigenpairs above the bulk, far apart from it, are converged to machine
#: precision long before (their residuals are checked, not assumed).
_BULK_LOOSE_TOL = 1e-2

#: Residual ``||M v - w v||`` at or below which a computed eigenpair counts as converged to machine
#: precision (its eigenvector is then the one an exact solve gives, to rounding, and is reused for the
#: clusters).
_EXACT_RESIDUAL = 1e-10


#: Lanczos vectors of the exact sparse solve (:func:`_sparse_top`): at n = 10^4 and 2 x 10^4, eleven
#: eigenpairs took 937 and 1,096 products with ARPACK's default of 23 vectors, 631 and 753 with 40
#: (0.72 s -> 0.40 s, 2.1 s -> 1.6 s); 8 n bytes each.
_EXACT_NCV = 40


def _sparse_top(core, k: int):
    """The ``k`` leading eigenpairs of a connected sparse core by ARPACK's Lanczos solver.

    :func:`semvar.spectral.leading_eigenpairs`: ``D^{-1/2} A D^{-1/2}`` applied as an operator (a
    sparse product and two diagonal scalings; nothing ``n x n`` is stored), eigenvalues descending,
    each column's sign fixed as :func:`semvar.spectral.spectral_embedding` fixes it.  The
    eigenvalues equal the dense solver's to rounding, and so do the eigenvectors up to sign where
    the eigenvalues are distinct.  The core was checked with the graph; one in several components
    is decomposed first (:func:`_part_rule`).  The solve keeps :data:`_EXACT_NCV` Lanczos vectors (ARPACK's
    default for these ``k`` is about 20): the leading bulk eigenvalues are crowded, and the larger
    basis needs a third fewer products with the graph.
    """
    return leading_eigenpairs(core, k, ncv=min(core.shape[0], max(2 * k + 1, _EXACT_NCV)), check_input=False)


def _scaling(core) -> np.ndarray:
    """``D^{-1/2}`` of a core (every degree positive) as a vector."""
    return 1.0 / np.sqrt(np.asarray(core.sum(axis=1), dtype=float).ravel())


def _residuals(core, w: np.ndarray, V: np.ndarray, s: np.ndarray | None = None) -> np.ndarray:
    """``||M v_j - w_j v_j||`` for each column of ``V``, ``M = D^{-1/2} A D^{-1/2}`` (one sparse product)."""
    s = _scaling(core) if s is None else s
    MV = s[:, None] * (core @ (s[:, None] * V))
    return np.linalg.norm(MV - V * w, axis=0)


def _leading_exact(r: np.ndarray) -> int:
    """How many leading columns have residuals ``r`` at machine precision (:data:`_EXACT_RESIDUAL`)."""
    return _leading_run(r <= _EXACT_RESIDUAL)


def _bulk_solve(core, k: int, t: float, last: bool = True, s: np.ndarray | None = None):
    """The ``k`` leading eigenpairs of a connected core for :func:`_bulk_top`, loosely where that settles the question.

    A Ritz value never exceeds the eigenvalue of the same rank (Cauchy's interlacing), so a last
    Ritz value above ``t`` shows that eigenvalue above the bulk (and, unless ``last``, that more
    eigenpairs are needed, so nothing else of the solve is used).  One with ``w + r <= t`` (``r``
    its residual, within which an eigenvalue lies) places it inside, unless the Krylov space
    missed an eigenvalue altogether, the standing assumption of every Lanczos solve (the tighter
    one included).  A core in several connected components is where it fails (its eigenvalue 1 is
    repeated), and such a core is decomposed first, the rule run on each component (:func:`_part_rule`).
    The loose answer is accepted when every eigenpair above ``t`` is also converged to machine
    precision; otherwise the eigenpairs are solved to :data:`_BULK_TOL`, as before the loose solve
    existed.  Returns ``(w, V, exact)``, ``exact`` the number of leading columns converged to
    machine precision.
    """
    s = _scaling(core) if s is None else s  # D^{-1/2}, read once by the caller's rounds
    w, V = leading_eigenpairs(core, k, tol=_BULK_LOOSE_TOL, check_input=False)
    if not last and w[-1] > t:
        return w, V, 0
    r = _residuals(core, w, V, s)
    exact = _leading_exact(r)
    settled = w[-1] > t or w[-1] + r[-1] <= t
    if settled and exact >= int(np.count_nonzero(w[:-1] > t)):  # the columns the ICL and the clusters read
        return w, V, exact
    w, V = leading_eigenpairs(core, k, tol=_BULK_TOL, check_input=False)
    return w, V, _leading_exact(_residuals(core, w, V, s))


def _bulk_top(core, kc_max: int, eigenvalues_only: bool = False, t: float | None = None):
    """The leading eigenpairs of a very large connected sparse core down to the first one inside the noise bulk.

    The bulk of ``D^{-1/2} A D^{-1/2}`` for a graph without block structure ends near
    ``t = 2 sqrt((1 - rho) / d_bar)`` (or the ``t`` given); its top eigenvalues are ever closer
    together as ``n`` grows (gaps of order ``n^{-2/3}``), so converging their eigenvectors costs
    Lanczos ever more iterations, and the clusters they would give are noise.  Eigenpairs are
    computed 4, 8, ... at a time until one falls below ``t`` (or ``kc_max + 1`` are known), each
    time loosely first (:func:`_bulk_solve`); the spectrum returned carries ``t`` as a third entry,
    and the ICL compares only the ``K`` whose ``K``-th eigenvalue exceeds it, and the number of
    leading eigenvectors converged to machine precision as a fourth (those the clusters may reuse).
    With ``eigenvalues_only`` (the eigengap) the ``kc_max + 1`` leading eigenvalues are computed to
    :data:`_BULK_TOL`.
    """
    t = bulk_edge(core) if t is None else t
    if eigenvalues_only:
        w, V = leading_eigenpairs(core, kc_max + 1, tol=_BULK_TOL, check_input=False)
        return w, V, t, 0
    k = min(4, kc_max + 1)
    scaling = _scaling(core)
    while True:
        w, V, exact = _bulk_solve(core, k, t, last=k == kc_max + 1, s=scaling)
        if k == kc_max + 1 or w[-1] <= t:
            return w, V, t, exact
        k = min(2 * k, kc_max + 1)


def _leading_run(flags: np.ndarray) -> int:
    """The length of the leading run of True in ``flags``."""
    return int(np.argmin(np.append(flags, False)))


def _sparse_route(A, method: str, k_max: int):
    """A rule with a sparse route, on a checked sparse adjacency (no self-loops), never made dense.

    Returns ``(selection, core, keep, spectrum)`` (``core`` the sparse adjacency of the texts with an
    edge, ``keep`` their mask, ``spectrum`` the core's leading eigenpairs), or None when the core has
    at most ``SPARSE.n`` texts: the caller then takes the dense route.  ``k_max < n``.
    """
    core, keep, m = split_isolated(A)
    nc = core.shape[0]
    kc_max = min(k_max, nc - 1)
    if nc <= SPARSE.n or kc_max + 2 >= nc:
        return None  # (Lanczos needs fewer than nc - 1 eigenpairs)
    count, labels = components_of(core)  # O(edges): about a tenth of the solve at n = 10^6
    if nc <= SPARSE.tied_n and count > 1:
        return None
    eigenvalues_only = RULES[method].spectrum == "eigenvalues"
    if count > 1:  # no meaning spans two components: the rule on each, large ones by this route
        sel = with_singletons(decomposed(method, core, count, labels, kc_max, _part_rule(method), 3), m)
        return sel, core, keep, None
    if nc <= SPARSE.exact_n:
        spectrum = _sparse_top(core, kc_max + 1)
    else:
        spectrum = _bulk_top(core, kc_max, eigenvalues_only=eigenvalues_only)
    sel = with_singletons(run(core, method, kc_max, None, spectrum), m)
    return sel, core, keep, spectrum


def _part_rule(method: str):
    """``solve(part, k_max) -> KSelection`` for one connected part of a large core: this route, or dense."""

    def solve(part, kc_max):
        route = _sparse_route(part, method, kc_max)
        if route is not None:
            return route[0]
        # the core is large: "auto" asks no eigengap for it (the dense route decides that once, for the whole
        # core), so a small component is read by auto's ICL alone
        return run(part.toarray(), "icl" if method == "auto" else method, kc_max, None)

    return solve


def _try_sparse(adjacency, method: str, k_max, checked: bool = False) -> KSelection | None:
    """The sparse route of rule ``method`` (with its defaults) for a large sparse graph, or None (the dense route).

    The caller passes only calls that use the rule's defaults.
    """
    if not sp.issparse(adjacency) or not RULES[method].sparse:
        return None
    A = sparse_no_loops(adjacency if checked else check_adjacency(adjacency))
    n = A.shape[0]
    if n <= SPARSE.n:
        return None
    k_max = check_int(k_max, "k_max", low=1)
    if method == "auto":
        k_max = min(k_max, n - 1)
    elif k_max >= n:
        raise ValueError(f"k_max must satisfy 1 <= k_max < n = {n}, got {k_max}")
    if RULES[method].verdicts:
        check_verdict_weights(A, method)
    with one_thread():
        out = _sparse_route(A, method, k_max)
    return None if out is None else out[0]
