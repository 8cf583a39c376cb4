"""Partly judged graphs: which texts they leave unresolved, and the graph with its unjudged pairs filled in.

An unjudged pair is never a FALSE verdict.  These helpers are shared by the
rules for ``K`` (:mod:`semvar.select_k`), the pipeline and the command line;
they take checked input.  See :mod:`semvar.select_k`, "Partly judged graphs".
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._validation import check_observed

__all__ = ["dense_mask", "unresolved", "completed", "check_mask_size", "checked_dense_mask", "MASKED_N_MAX"]

#: Largest graph read with an ``observed`` mask by a rule for ``K``: the mask and the completed graph
#: are dense (three ``n x n`` float arrays: 9.6 GB at this size).
MASKED_N_MAX = 20_000


def check_mask_size(observed, n: int):
    """``observed``, unless a graph of ``n`` texts is too large to be read densely with it (ValueError)."""
    if observed is not None and n > MASKED_N_MAX:
        raise ValueError(
            f"observed: a partly judged graph of {n:,} texts is read densely when K is chosen (three {n:,} x {n:,} "
            f"arrays, {3 * 8 * n * n / 2**30:,.1f} GiB); at most {MASKED_N_MAX:,} texts are allowed. Give an int k "
            "(laplacian='centered' reads the mask as a sparse operator), or judge fewer texts"
        )
    return observed


def dense_mask(O, n: int):
    """A checked dense 0/1 mask of observed pairs, or None when it marks every pair off the diagonal."""
    if O is None:
        return None
    O = O.toarray() if sp.issparse(O) else np.asarray(O, dtype=float)
    O = (O > 0).astype(float)
    np.fill_diagonal(O, 0.0)
    return None if int(np.count_nonzero(O)) == n * (n - 1) else O


def checked_dense_mask(observed, A):
    """``observed`` for a checked ``A``: size-checked, checked as a mask, dense 0/1; None when every pair is judged."""
    if observed is None:
        return None
    n = A.shape[0]
    return dense_mask(check_observed(check_mask_size(observed, n), A), n)


def unresolved(A, O) -> np.ndarray:
    """The texts a partly judged graph says nothing of: no TRUE verdict, and at least one pair unjudged.

    A text judged FALSE against every other text is a meaning of its own (an isolated text); one
    with no TRUE verdict among the few pairs asked about it may share its meaning with any of the
    texts it was not compared with, so it is left out, not made a meaning of its own (which would
    inflate ``K`` and the entropy: every such text would count as one more meaning).
    """
    n = A.shape[0]
    if O is None:
        return np.zeros(n, dtype=bool)
    no_true = np.asarray(A.sum(axis=1)).ravel() == 0
    return no_true & (np.asarray(O.sum(axis=1)).ravel() < n - 1)


def completed(core: np.ndarray, O) -> np.ndarray:
    """The judged graph with every unjudged pair filled in by the share of judged pairs found TRUE.

    ``Y = A + rho (J - I - O)`` with ``rho = sum(A) / sum(O)``: the matrix-completion estimate of the
    probability of a TRUE verdict for each pair (the observed entries as they are, the others at their
    mean).  Its spectrum is that of the centred matrix ``A - rho O`` (chapter 6) plus the constant
    direction, so the rules that read a spectrum read it as they read a fully judged graph's.
    """
    if O is None:
        return core
    rho = float(core.sum()) / float(O.sum()) if O.sum() else 0.0
    Y = core + rho * (1.0 - O)
    np.fill_diagonal(Y, 0.0)
    return Y
