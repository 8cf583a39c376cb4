"""The split-conformal threshold: the textbook rank and the rank of the released code of Ye et al. (2024).

Given n calibration scores, the threshold is an order statistic:

* ``quantile="textbook"``: the ``k``-th smallest score with
  ``k = ceil((n + 1)(1 - alpha))`` (Vovk et al. 2005; Angelopoulos & Bates
  2023), which gives ``P(Y in C(X)) >= 1 - alpha`` under exchangeability;
* ``quantile="paper"``: ``np.quantile(scores, k / n, method="higher")``, the
  released code's rule, one rank above the textbook threshold when ``k < n``.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_array, check_int, check_probability, float_dtype
from ._checks import _check_quantile

__all__ = ["min_calibration_size", "quantile_rank", "conformal_threshold"]


def _k(n: int, alpha: float) -> int:
    # the released code's float expression, kept verbatim so both rules share k
    return int(np.ceil((n + 1) * (1 - alpha)))


def min_calibration_size(alpha: float) -> int:
    """Smallest n with ``ceil((n+1)(1-alpha)) <= n``: fewer calibration points give no finite threshold.

    >>> min_calibration_size(0.1), min_calibration_size(0.05)
    (9, 19)
    """
    alpha = check_probability(alpha, "alpha", low_open=True, high_open=True)
    if (1 - alpha) / alpha > 2.0**62:
        raise ValueError(f"alpha = {alpha!r} is too small: a finite threshold would need over 2**62 calibration scores")
    n = max(1, int(math.floor((1 - alpha) / alpha)) - 2)
    while _k(n, alpha) > n:
        n += 1
    return n


def quantile_rank(n: int, alpha: float, *, quantile: str = "paper") -> int:
    """The 1-based rank, among n sorted calibration scores, of the threshold.

    Parameters
    ----------
    n : int
        Calibration size.
    alpha : float in (0, 1)
    quantile : {"paper", "textbook"}, default="paper"

    Returns
    -------
    int
        ``k = ceil((n+1)(1-alpha))`` for ``"textbook"``; the rank that
        ``np.quantile(., k/n, method="higher")`` returns for ``"paper"``
        (``k + 1`` when ``k < n``).

    Raises
    ------
    ValueError
        For ``alpha`` outside (0, 1), ``n < 1``, or ``k > n`` (see
        :func:`conformal_threshold`).

    Examples
    --------
    The paper's split, 9,995 items halved: n = 4,997 calibration items.

    >>> quantile_rank(4997, 0.1, quantile="textbook"), quantile_rank(4997, 0.1)
    (4499, 4500)
    """
    n = check_int(n, "n", low=1)
    alpha = check_probability(alpha, "alpha", low_open=True, high_open=True)
    _check_quantile(quantile)
    k = _k(n, alpha)
    _check_size(n, alpha, k)
    if quantile == "textbook":
        return k
    level = np.ceil((n + 1) * (1 - alpha)) / n
    # what numpy does for method="higher": index ceil(level * (n - 1)), 0-based
    scores = np.arange(n, dtype=float)
    return int(np.quantile(scores, level, method="higher")) + 1


def _check_size(n: int, alpha: float, k: int) -> None:
    if k > n:
        raise ValueError(
            f"the calibration set (n={n}) is too small for alpha={alpha}: ceil((n+1)(1-alpha)) = {k} > n, so the "
            f"released code's quantile level {k}/{n} = {k / n:.4g} exceeds 1 (np.quantile would fail) and the "
            f"textbook threshold is +infinity (every set is all options). Use at least "
            f"{min_calibration_size(alpha)} calibration items or a larger alpha."
        )


def conformal_threshold(scores: ArrayLike, alpha: float, *, quantile: str = "paper") -> float:
    """The split-conformal threshold ``qhat`` from calibration scores.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Nonconformity scores of the calibration items (larger = less conforming).
    alpha : float in (0, 1)
        Target miscoverage.
    quantile : {"paper", "textbook"}, default="paper"
        ``"paper"``: ``np.quantile(scores, ceil((n+1)(1-alpha))/n, method="higher")``
        as in the released code of Ye et al. (2024); ``"textbook"``: the
        ``ceil((n+1)(1-alpha))``-th smallest score.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        Non-finite scores, ``alpha`` outside (0, 1), an unknown ``quantile``,
        or a calibration set too small for ``alpha``.

    Notes
    -----
    With exchangeable calibration and test scores, ``P(s_test <= qhat) >=
    k/(n+1) >= 1 - alpha`` for the k-th smallest (Vovk et al. 2005); the
    paper's rank ``k+1`` gives ``>= (k+1)/(n+1)``, slightly more conservative.

    Examples
    --------
    >>> s = np.arange(1, 21) / 20          # 0.05, 0.10, ..., 1.00
    >>> conformal_threshold(s, 0.2, quantile="textbook"), conformal_threshold(s, 0.2)
    (np.float64(0.85), np.float64(0.9))
    """
    s = check_array(scores, "scores", ndim=1, dtype=float_dtype(scores))
    if s.size == 0:
        raise ValueError("scores must not be empty")
    alpha = check_probability(alpha, "alpha", low_open=True, high_open=True)
    _check_quantile(quantile)
    n = s.size
    k = _k(n, alpha)
    _check_size(n, alpha, k)
    if quantile == "paper":
        q_level = np.ceil((n + 1) * (1 - alpha)) / n
        return np.quantile(s, q_level, method="higher")
    return np.sort(s)[k - 1]
