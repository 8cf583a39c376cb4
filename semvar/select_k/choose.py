"""Choosing K by a rule's name: for a graph (:func:`choose_k`), or for a graph to be clustered (:func:`select_with_core`).

Both run the rule through the registry (:func:`semvar.select_k._registry.run`)
with its defaults; :func:`select_with_core` also hands back what the
clustering of the graph needs, so that :mod:`semvar.pipeline` clusters the
texts with an edge from the spectrum the rule read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike

from .._masks import dense_mask, unresolved
from .._threads import one_thread
from .._validation import RandomStateLike, check_adjacency, check_bool, check_int, check_option, check_random_state
from ._common import (
    KSelection,
    as_dense,
    check_mask,
    check_n,
    components,
    no_loops,
    normalized_top,
    parts,
    split_isolated,
    with_singletons,
    without_loops,
)
from ._registry import METHODS, RULES, _check_rule_weights, run
from ._sparse import _sparse_route, _try_sparse

__all__ = ["choose_k", "select_with_core", "CoreSelection"]


def choose_k(
    adjacency: ArrayLike | sp.sparray | sp.spmatrix,
    method: str = "auto",
    k_max: int = 10,
    random_state: RandomStateLike = None,
    *,
    observed: ArrayLike | sp.sparray | sp.spmatrix | None = None,
    check_input: bool = True,
    return_selection: bool = False,
) -> int | KSelection:
    """Choose the number of meanings ``K`` of a judged graph.

    Parameters
    ----------
    adjacency : array-like or scipy sparse matrix of shape (n, n)
    method : {"auto", "icl", "bic", "eigengap", "ncv", "ecv", "bethe_hessian", "consensus"}, default="auto"
        The rule, with its defaults (see :data:`METHODS` for the functions).
    k_max : int, default=10
        Largest candidate; lowered to ``n - 1`` for graphs with fewer than
        ``k_max + 1`` nodes.  NCV uses ``min(3, n // 2)`` folds and at most as
        many candidates as a fold has training nodes.  It bounds the ``K`` of
        each part of the graph that verdicts link: isolated texts and parts
        between which every pair was judged FALSE add meanings of their own,
        so the answer can exceed ``k_max``.
    random_state : None, int or numpy.random.Generator, default=None
        Used by the rules that cluster or split at random.
    observed : array-like or sparse matrix of shape (n, n), optional
        0/1 mask of the pairs judged; None: every pair.  An unjudged pair is
        no evidence: the rule reads the judged pairs only, and texts with no
        TRUE verdict and an unjudged pair are left out, not counted as
        meanings (``KSelection.n_unresolved``; package notes, "Partly judged
        graphs").
    check_input : bool, default=True
        False skips the check of ``adjacency`` (square, symmetric, finite,
        non-negative), for callers that have already made it;
        ``adjacency`` must then be a float ndarray or ``scipy.sparse.csr_array``.
    return_selection : bool, default=False
        Return the rule's :class:`KSelection` (with its confidence) instead of
        the int.

    Returns
    -------
    int or KSelection

    Raises
    ------
    ValueError
        For an unknown method or an invalid adjacency / ``k_max`` / ``random_state``.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.kron(np.eye(2), np.ones((5, 5))) - np.eye(10)
    >>> choose_k(A, "eigengap", k_max=4)
    2
    >>> A[0, 1] = A[1, 0] = A[0, 2] = A[2, 0] = 0  # text 0 now agrees with only two others
    >>> sel = choose_k(A, return_selection=True, random_state=0)
    >>> sel.k, sel.method
    (2, 'auto')
    """
    check_option(method, "method", METHODS)
    check_bool(check_input, "check_input")
    check_bool(return_selection, "return_selection")
    A = check_adjacency(adjacency) if check_input else cast("np.ndarray | sp.csr_array", adjacency)
    n = A.shape[0]
    k_max = check_int(k_max, "k_max", low=1)
    check_n(n)
    rng = check_random_state(random_state)
    O = check_mask(observed, A)
    sel = _try_sparse(A, method, min(k_max, n - 1), checked=True) if O is None else None
    if sel is None:
        A = no_loops(as_dense(A))
        _check_rule_weights(A, method)
        with one_thread():
            sel = run(A, method, min(k_max, n - 1), rng, observed=O)
    return sel if return_selection else int(sel)


@dataclass
class CoreSelection:
    """A rule's ``K`` for a graph, with what clustering the graph needs (:func:`select_with_core`).

    Attributes
    ----------
    selection : KSelection
        The rule's answer for the whole graph (isolated texts counted as meanings of their own).
    keep : ndarray of bool, shape (n,)
        The texts with an edge (the *core*); the others are meanings of their
        own, except the unresolved ones.
    core : ndarray or scipy.sparse.csr_array of shape (n_core, n_core)
        The adjacency of the core, sparse when the graph is.
    spectrum : tuple or None
        The leading eigenvalues (descending) and eigenvectors of the core's
        ``D^{-1/2} A D^{-1/2}`` that the rule read, and for the bulk-limited
        sparse route the bulk edge as a third entry and, as a fourth, the
        number of leading eigenvectors converged to machine precision (the
        others were solved loosely); None when the rule read no
        spectrum computed for sharing.  The eigenvectors of a dense core are
        numpy's (signs as the solver returns them); those of a sparse core are
        :func:`semvar.spectral.leading_eigenpairs`'.
    unresolved : ndarray of bool, shape (n,)
        The texts a partly judged graph leaves unresolved (no TRUE verdict,
        an unjudged pair): in no cluster and not counted in ``K``.
    observed : ndarray or None
        The dense 0/1 mask of judged pairs of the core, None when every pair
        of the core was judged.
    """

    selection: KSelection
    keep: np.ndarray
    core: np.ndarray | sp.csr_array
    spectrum: tuple | None = None
    unresolved: np.ndarray | None = None
    observed: np.ndarray | None = None


def select_with_core(
    adjacency: ArrayLike | sp.sparray | sp.spmatrix,
    method: str = "auto",
    k_max: int = 10,
    random_state: RandomStateLike = None,
    *,
    observed: ArrayLike | sp.sparray | sp.spmatrix | None = None,
    check_input: bool = True,
) -> CoreSelection:
    """Choose ``K`` by rule ``method`` as :func:`semvar.pipeline.graph_entropy` does, and return the core too.

    Isolated texts are set aside (each a meaning of its own) and the rule runs
    with its defaults on the others.  A graph of fewer than three texts has
    as many meanings as connected components.  A rule that reads only the
    spectrum of the core's normalised matrix gets it computed once here and
    returned, so that the caller can cluster the core from the same vectors.
    A large sparse graph takes the sparse route of the rules that have one
    (see the package notes) and is never made dense; another sparse graph has
    only its core made dense, for the rule.

    Parameters
    ----------
    adjacency : array-like or scipy sparse matrix of shape (n, n)
        The judged graph (its diagonal is ignored).
    method : str, default="auto"
        A name of :data:`METHODS`.
    k_max : int, default=10
        Largest ``K`` for the texts with an edge, lowered to ``n - 1``.
    random_state : None, int or numpy.random.Generator, default=None
        Used by the rules that cluster or split at random.
    observed : array-like or sparse matrix of shape (n, n), optional
        0/1 mask of the pairs judged; None: every pair.  An unjudged pair is
        no evidence: the rule reads the judged pairs only, and texts with no
        TRUE verdict and an unjudged pair are left out, not counted as
        meanings (``KSelection.n_unresolved``; package notes, "Partly judged
        graphs").
    check_input : bool, default=True
        False skips the check of ``adjacency`` and ``observed``; they must then be a float
        ndarray or ``scipy.sparse.csr_array`` that is square, symmetric,
        finite, non-negative and without self-loops.

    Returns
    -------
    CoreSelection

    Raises
    ------
    ValueError
        For an invalid adjacency, ``method``, ``k_max`` or ``random_state``,
        or a weight above 1 for a rule that reads weights as verdicts.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.pad(np.kron(np.eye(2), np.ones((3, 3))) - np.eye(6), ((0, 1), (0, 1)))
    >>> A[2, 3] = A[3, 2] = 1  # one cross verdict: the core is connected
    >>> choice = select_with_core(A)
    >>> choice.selection.k, choice.keep.tolist(), choice.core.shape, choice.spectrum[1].shape
    (3, [True, True, True, True, True, True, False], (6, 6), (6, 6))
    """
    check_option(method, "method", METHODS)
    check_bool(check_input, "check_input")
    A = without_loops(check_adjacency(adjacency)) if check_input else adjacency
    k_max = check_int(k_max, "k_max", low=1)
    rng = check_random_state(random_state)
    _check_rule_weights(A, method)
    O = check_mask(observed, A) if check_input else observed
    return _select_with_core(A, method, k_max, rng, O)


def _select_with_core(A, method: str, k_max: int, rng, O=None) -> CoreSelection:
    """select_with_core on checked input (``O`` the dense 0/1 mask of judged pairs, or None)."""
    if O is not None:
        return _select_masked(A, method, k_max, rng, O)
    n = A.shape[0]
    if sp.issparse(A) and n >= 3 and RULES[method].sparse:
        route = _sparse_route(A, method, min(k_max, n - 1))
        if route is not None:
            sel, core, keep, spectrum = route
            return CoreSelection(sel, keep, core, spectrum)
    core, keep, m = split_isolated(A)  # a sparse graph: only its core is made dense
    dense = core.toarray() if sp.issparse(core) else core
    nc = core.shape[0]
    spectrum = None
    if n < 3:
        sel = components(method, dense, m)
    elif sp.issparse(A):
        sel = with_singletons(run(dense, method, min(k_max, n - 1), rng), m)
    elif nc >= 3 and RULES[method].spectrum is not None and parts(dense)[0] == 1:
        spectrum = normalized_top(dense, min(k_max, n - 1, nc - 1) + 1)
        sel = run(A, method, min(k_max, n - 1), rng, spectrum)
    else:
        sel = run(A, method, min(k_max, n - 1), rng)
    return CoreSelection(sel, keep, core, spectrum, np.zeros(n, dtype=bool))


def _select_masked(A, method: str, k_max: int, rng, O) -> CoreSelection:
    """select_with_core for a partly judged graph (dense ``O``): the unresolved texts set aside, no shared spectrum."""
    A = A.toarray() if sp.issparse(A) else A
    n = A.shape[0]
    drop = unresolved(A, O)
    kept = ~drop
    core, keep_r, m = split_isolated(A[np.ix_(kept, kept)])
    keep = np.zeros(n, dtype=bool)
    keep[np.flatnonzero(kept)[keep_r]] = True
    Oc = dense_mask(O[np.ix_(keep, keep)], core.shape[0])
    if n < 3:
        sel = components(method, core, m, Oc)
        sel.n_unresolved = int(np.count_nonzero(drop))
    else:
        sel = run(A, method, min(k_max, n - 1), rng, observed=O)
    return CoreSelection(sel, keep, core, None, drop, Oc)
