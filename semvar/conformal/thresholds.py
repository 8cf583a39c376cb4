"""The split-conformal threshold: the textbook rank and the rank of the released code of Ye et al. (2024).

Given n calibration scores, the threshold is an order statistic:

* ``quantile="textbook"``: the ``k``-th smallest score with
  ``k = ceil((n + 1)(1 - alpha))`` (Vovk et al. 2005; Angelopoulos & Bates
  2023), which gives ``P(Y in C(X)) >= 1 - alpha`` under exchangeability;
* ``quantile="paper"``: ``np.quantile(scores, k / n, method="higher")``, the
  released code's rule, one rank above the textbook threshold when ``k < n``.

The two rules compute ``k`` differently.  The paper rule keeps the released
code's floating-point expression ``np.ceil((n + 1) * (1 - alpha))``, rounding
included, because it reproduces that code.  The textbook rank is exact: alpha
is read as the decimal its caller wrote (see :func:`quantile_rank`), and
``(n + 1)(1 - alpha)`` is rounded up in rational arithmetic.  In floating point
``1 - 0.7`` is ``0.30000000000000004``, so ``10 (1 - 0.7)`` rounds up to 4
where the exact rank is 3; where the float expression lands just above an
integer the released code is two ranks above the textbook one, not one.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_array, check_int, check_probability, check_unmasked, float_dtype
from ._checks import _check_quantile

__all__ = ["min_calibration_size", "quantile_rank", "conformal_threshold"]


def _k(n: int, alpha: float) -> int:
    # the released code's float expression, kept verbatim (the paper rule reproduces that code)
    return int(np.ceil((n + 1) * (1 - alpha)))


def _decimal_alpha(alpha: float) -> Fraction:
    """``alpha`` as the number its caller wrote, exactly (``alpha`` already checked to be a real in (0, 1)).

    A binary float stands for the shortest decimal that rounds to it in its
    own precision (``repr`` for a Python or numpy float64: ``0.7`` is 7/10,
    not the double 0.6999999999999999556; a float32 ``0.7`` is 7/10 too, not
    the float32 value 0.699999988); an int or a ``fractions.Fraction``
    (any exact rational) is taken as it is.
    """
    if isinstance(alpha, numbers.Rational) and not isinstance(alpha, (bool, np.bool_)):
        return Fraction(int(alpha.numerator), int(alpha.denominator))
    if isinstance(alpha, np.floating):
        return Fraction(np.format_float_scientific(alpha, unique=True))
    return Fraction(repr(float(alpha)))


def _textbook_k(n: int, alpha: float) -> int:
    """``ceil((n + 1)(1 - alpha))`` in exact arithmetic, with ``alpha`` read as written (:func:`_decimal_alpha`)."""
    keep = 1 - _decimal_alpha(alpha)
    return -(-(n + 1) * keep.numerator // keep.denominator)


def _rank_k(n: int, alpha: float, quantile: str) -> int:
    """The ``k`` of a rule: exact for ``"textbook"``, the released code's float expression for ``"paper"``."""
    return _textbook_k(n, alpha) if quantile == "textbook" else _k(n, float(alpha))


def min_calibration_size(alpha: float, *, quantile: str = "paper") -> int:
    """Smallest n with ``ceil((n+1)(1-alpha)) <= n``: fewer calibration points give no finite threshold.

    Parameters
    ----------
    alpha : float in (0, 1)
    quantile : {"paper", "textbook"}, default="paper"
        Whose ``k``: the released code's float expression, or the exact
        textbook rank (then ``n = max(1, ceil((1 - alpha) / alpha))`` with
        alpha read as written, see :func:`quantile_rank`).

    Returns
    -------
    int

    Raises
    ------
    ValueError
        For ``alpha`` outside (0, 1), one so small that over 2**62 scores
        would be needed, or an unknown ``quantile``.

    Examples
    --------
    >>> min_calibration_size(0.1), min_calibration_size(0.05)
    (9, 19)
    >>> min_calibration_size(0.1, quantile="textbook")  # ceil(0.9 / 0.1)
    9
    """
    alpha_f = check_probability(alpha, "alpha", low_open=True, high_open=True)
    _check_quantile(quantile)
    if (1 - alpha_f) / alpha_f > 2.0**62:
        raise ValueError(f"alpha = {alpha_f!r} is too small: a finite threshold would need over 2**62 calibration scores")
    if quantile == "textbook":
        a = _decimal_alpha(alpha)
        return max(1, math.ceil((1 - a) / a))
    n = max(1, int(math.floor((1 - alpha_f) / alpha_f)) - 2)
    while _k(n, alpha_f) > n:
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
        ``k = ceil((n+1)(1-alpha))`` for ``"textbook"``, in exact arithmetic;
        the rank that ``np.quantile(., k/n, method="higher")`` returns for
        ``"paper"``, with ``k`` from the released code's float expression
        (``k + 1`` when ``k < n``).

    Raises
    ------
    ValueError
        For ``alpha`` outside (0, 1), ``n < 1``, or ``k > n`` (see
        :func:`conformal_threshold`).

    Notes
    -----
    The textbook rank reads ``alpha`` as the decimal its caller wrote: a
    Python or numpy float as the shortest decimal string that rounds to it in
    its own precision (its ``repr``; for float32, numpy's shortest float32
    string), an int or ``fractions.Fraction`` exactly.  So ``0.7`` is
    ``7/10`` and ``quantile_rank(9, 0.7, quantile="textbook")`` is
    ``ceil(10 * 3/10) = 3``; the float expression gives 4.  A rational that is
    not a short decimal, such as one third, is exact only as a Fraction:
    ``1/3`` as a float is the decimal 0.3333333333333333.

    Examples
    --------
    The paper's split, 9,995 items halved: n = 4,997 calibration items.

    >>> quantile_rank(4997, 0.1, quantile="textbook"), quantile_rank(4997, 0.1)
    (4499, 4500)
    """
    n = check_int(n, "n", low=1)
    alpha_f = check_probability(alpha, "alpha", low_open=True, high_open=True)
    _check_quantile(quantile)
    k = _rank_k(n, alpha, quantile)
    _check_size(n, alpha, k, quantile)
    if quantile == "textbook":
        return k
    alpha = alpha_f
    level = np.ceil((n + 1) * (1 - alpha)) / n
    # what numpy does for method="higher": index ceil(level * (n - 1)), 0-based
    scores = np.arange(n, dtype=float)
    return int(np.quantile(scores, level, method="higher")) + 1


def _check_size(n: int, alpha: float, k: int, quantile: str = "paper") -> None:
    if k > n:
        raise ValueError(
            f"the calibration set (n={n}) is too small for alpha={float(alpha)}: ceil((n+1)(1-alpha)) = {k} > n, so "
            f"the released code's quantile level {k}/{n} = {k / n:.4g} exceeds 1 (np.quantile would fail) and the "
            f"textbook threshold is +infinity (every set is all options). Use at least "
            f"{min_calibration_size(alpha, quantile=quantile)} calibration items or a larger alpha."
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
        as in the released code of Ye et al. (2024), in its floating point;
        ``"textbook"``: the ``ceil((n+1)(1-alpha))``-th smallest score, the
        rank in exact arithmetic (see :func:`quantile_rank`).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        Non-finite scores (or a masked array with a masked entry), ``alpha``
        outside (0, 1), an unknown ``quantile``, or a calibration set too
        small for ``alpha``.

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
    scores = check_unmasked(scores, "scores")
    s = check_array(scores, "scores", ndim=1, dtype=float_dtype(scores))
    if s.size == 0:
        raise ValueError("scores must not be empty")
    alpha_f = check_probability(alpha, "alpha", low_open=True, high_open=True)
    _check_quantile(quantile)
    n = s.size
    k = _rank_k(n, alpha, quantile)
    _check_size(n, alpha, k, quantile)
    alpha = alpha_f
    if quantile == "paper":
        q_level = np.ceil((n + 1) * (1 - alpha)) / n
        return np.quantile(s, q_level, method="higher")
    return np.sort(s)[k - 1]
