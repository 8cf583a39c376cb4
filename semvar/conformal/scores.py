"""Probabilities and nonconformity scores: softmax, LAC and APS.

* LAC (Sadinle, Lei & Wasserman 2019): score ``1 - p_y``.
* APS (Romano, Sesia & Candes 2020, without randomisation): options sorted by
  decreasing probability; the score is the cumulative probability down to and
  including the true option.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_array, check_real, check_unmasked, float_dtype
from ._checks import _check_labels, _check_probs

__all__ = ["softmax", "lac_scores", "aps_scores"]


def softmax(logits: ArrayLike, temperature: float = 1.0) -> np.ndarray:
    """Row-wise softmax of ``logits / temperature`` (float32 logits in float32, anything else in float64).

    Parameters
    ----------
    logits : array-like of shape (n, K)
    temperature : float, default=1.0
        Positive.

    Returns
    -------
    ndarray of shape (n, K), rows summing to 1.

    Raises
    ------
    ValueError
        For a non-2-D or non-finite array (or a masked array with a masked
        entry), or a temperature that is not positive.

    Notes
    -----
    ``exp(z - max z) / sum exp(z - max z)``, the form of the released code.
    Dividing by ``T`` is monotone, so ``argmax`` does not depend on ``T``.
    The released logits are float32 and the released code computes in their
    precision; so does this function, because the rounding of a cumulative
    sum near 1 (``0.99999994`` or ``1.0000001``) decides whether an APS set
    holds its last option when the threshold is itself such a sum.

    Examples
    --------
    >>> softmax([[0.0, np.log(3.0)]]).round(3)
    array([[0.25, 0.75]])
    >>> softmax([[0.0, np.log(3.0)]], temperature=2.0).round(3)
    array([[0.366, 0.634]])
    >>> softmax([[0.0, 1.0, 1.0]], temperature=1e-320)  # the T -> 0 limit: argmax, ties split
    array([[0. , 0.5, 0.5]])
    """
    logits = check_unmasked(logits, "logits")
    dtype = float_dtype(logits)
    z = check_array(logits, "logits", ndim=2, dtype=dtype)
    t = check_real(temperature, "temperature", low=0.0, low_open=True)
    if t != 1.0:
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            scaled = z / dtype(t)
        if not np.all(np.isfinite(scaled)):
            # a temperature so small (or so far below float32's range) that z / T overflows: divide the
            # shifted logits instead; they are <= 0, so the largest entry of a row stays 0 and the rest
            # go to -inf, the T -> 0 limit (an even split between tied maxima)
            with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
                shifted = (z - z.max(axis=1, keepdims=True)).astype(float) / t
                shifted[np.isnan(shifted)] = 0.0  # 0 / T underflowing to 0 / 0 cannot occur, but be safe
                scaled = shifted.astype(dtype)  # very negative entries become -inf in float32, as meant
        z = scaled
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def lac_scores(p: ArrayLike, y: ArrayLike) -> np.ndarray:
    """LAC nonconformity scores ``1 - p[i, y_i]``.

    >>> lac_scores([[0.5, 0.4, 0.1]], [1])
    array([0.6])
    """
    p = _check_probs(p, "p")
    y = _check_labels(y, "y", p.shape[0], p.shape[1])
    return 1 - p[np.arange(p.shape[0]), y]


def _descending(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # descending, as argsort(...)[::-1] per row; a stable sort keeps tied options in index order, so the last
    # tied option comes first on every CPU (the default sort orders ties by whichever SIMD kernel numpy picks)
    order = np.argsort(p, axis=1, kind="stable")[:, ::-1]
    cums = np.take_along_axis(p, order, axis=1).cumsum(axis=1)
    return order, cums


def aps_scores(p: ArrayLike, y: ArrayLike) -> np.ndarray:
    """APS nonconformity scores: cumulative probability down to and including the true option.

    Options are sorted by decreasing probability (``argsort`` reversed, as in
    the released code); no randomisation.

    >>> aps_scores([[0.5, 0.4, 0.1], [0.5, 0.4, 0.1]], [0, 2]).round(3)
    array([0.5, 1. ])
    """
    p = _check_probs(p, "p")
    y = _check_labels(y, "y", p.shape[0], p.shape[1])
    order, cums = _descending(p)
    pos = np.argsort(order, axis=1)  # position of each option in the descending order
    return cums[np.arange(p.shape[0]), pos[np.arange(p.shape[0]), y]]
