"""LAC and APS prediction sets, built as in the released code of Ye et al. (2024).

In both, an empty set is replaced by the single top option (``np.argmax``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_probability
from ._checks import _check_labels, _check_probs, _check_quantile
from .scores import _descending
from .thresholds import _check_size, _rank_k, conformal_threshold

__all__ = ["lac_sets", "aps_sets"]


def _prepare(
    p_cal: ArrayLike, y_cal: ArrayLike, p_test: ArrayLike, alpha: float, quantile: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    p_cal = _check_probs(p_cal, "p_cal")
    y_cal = _check_labels(y_cal, "y_cal", p_cal.shape[0], p_cal.shape[1])
    p_test = _check_probs(p_test, "p_test", n_options=p_cal.shape[1])
    alpha_f = check_probability(alpha, "alpha", low_open=True, high_open=True)
    _check_quantile(quantile)
    _check_size(p_cal.shape[0], alpha, _rank_k(p_cal.shape[0], alpha, quantile), quantile)
    return p_cal, y_cal, p_test, alpha_f


def _fill_empty(sets: np.ndarray, p_test: np.ndarray) -> np.ndarray:
    empty = ~sets.any(axis=1)
    if empty.any():
        rows = np.flatnonzero(empty)
        sets[rows, np.argmax(p_test[rows], axis=1)] = True
    return sets


def lac_sets(
    p_cal: ArrayLike, y_cal: ArrayLike, p_test: ArrayLike, alpha: float, *, quantile: str = "paper"
) -> np.ndarray:
    """LAC prediction sets, built as in the released code of Ye et al. (2024).

    Parameters
    ----------
    p_cal : array-like of shape (n_cal, K)
        Calibration probabilities (rows sum to 1).
    y_cal : array-like of shape (n_cal,)
        True options of the calibration items, integers in ``0..K-1``.
    p_test : array-like of shape (n_test, K)
        Test probabilities.
    alpha : float in (0, 1)
        Target miscoverage (the paper uses 0.1).
    quantile : {"paper", "textbook"}, default="paper"
        Threshold rule, see :func:`conformal_threshold`.

    Returns
    -------
    ndarray of bool, shape (n_test, K)
        ``sets[i, j]`` is True when option j is in the set of test item i.

    Raises
    ------
    ValueError
        Rows that are not probabilities (negative, NaN, not summing to 1),
        labels out of range, a masked array with a masked entry, ``alpha``
        outside (0, 1), an unknown ``quantile``, or a calibration set too
        small for ``alpha``.

    Notes
    -----
    Score ``1 - p_y``; ``qhat`` from :func:`conformal_threshold`; the set is
    ``{j : p_j >= 1 - qhat}`` (the comparison the released code makes), and an
    empty set becomes ``{argmax p}``.  Sadinle, Lei & Wasserman (2019).

    References
    ----------
    Ye et al. (2024), Benchmarking LLMs via Uncertainty Quantification, section 3.

    Examples
    --------
    >>> p_cal = np.array([[0.7, 0.2, 0.1]] * 9 + [[0.2, 0.7, 0.1]])
    >>> y_cal = np.zeros(10, dtype=int)
    >>> lac_sets(p_cal, y_cal, [[0.6, 0.3, 0.1]], 0.2, quantile="textbook")
    array([[ True, False, False]])
    >>> lac_sets(p_cal, y_cal, [[0.6, 0.3, 0.1]], 0.2)   # one rank higher: qhat = 0.8
    array([[ True,  True, False]])
    """
    p_cal, y_cal, p_test, _ = _prepare(p_cal, y_cal, p_test, alpha, quantile)  # alpha goes on as written
    scores = 1 - p_cal[np.arange(p_cal.shape[0]), y_cal]
    # the public threshold (its check of clean scores is cheap): a replacement of it reaches the sets too
    qhat = conformal_threshold(scores, alpha, quantile=quantile)
    sets = p_test >= 1 - qhat
    return _fill_empty(sets, p_test)


def aps_sets(
    p_cal: ArrayLike, y_cal: ArrayLike, p_test: ArrayLike, alpha: float, *, quantile: str = "paper"
) -> np.ndarray:
    """APS prediction sets, built as in the released code of Ye et al. (2024).

    Parameters and errors as in :func:`lac_sets`.

    Returns
    -------
    ndarray of bool, shape (n_test, K)

    Notes
    -----
    Score: with options sorted by decreasing probability, the cumulative sum
    down to and including the true option.  Test set: the top options in that
    order while the cumulative sum stays ``<= qhat``; an empty set becomes the
    top option.  Since cumulative sums only grow, the set is exactly
    ``{y : s(x, y) <= qhat}`` (plus the top option when that is empty), so the
    coverage guarantee holds.  Romano, Sesia & Candes (2020) instead keep the
    option that crosses the threshold, with randomisation; MAPIE follows them.

    Examples
    --------
    >>> p_cal = np.array([[0.5, 0.3, 0.2]] * 10)
    >>> y_cal = np.array([0] * 6 + [1] * 3 + [2])        # scores 0.5 x6, 0.8 x3, 1.0
    >>> aps_sets(p_cal, y_cal, [[0.45, 0.3, 0.25], [0.9, 0.06, 0.04]], 0.3, quantile="textbook")  # qhat = 0.8
    array([[ True,  True, False],
           [ True, False, False]])
    """
    p_cal, y_cal, p_test, _ = _prepare(p_cal, y_cal, p_test, alpha, quantile)  # alpha goes on as written
    order, cums = _descending(p_cal)
    pos = np.argsort(order, axis=1)
    rows = np.arange(p_cal.shape[0])
    scores = cums[rows, pos[rows, y_cal]]
    qhat = conformal_threshold(scores, alpha, quantile=quantile)
    order_t, cums_t = _descending(p_test)
    keep_sorted = np.logical_and.accumulate(cums_t <= qhat, axis=1)  # the while loop: stop at the first excess
    sets = np.zeros(p_test.shape, dtype=bool)
    np.put_along_axis(sets, order_t, keep_sorted, axis=1)
    empty = ~keep_sorted[:, 0]
    sets[np.flatnonzero(empty), order_t[empty, 0]] = True
    return sets
