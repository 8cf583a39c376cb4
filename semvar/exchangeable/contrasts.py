"""Zero-sum linear contrasts, whose mixture term vanishes, and the subsample-vs-full bound.

Lin, Frei & de la Peña (2026), Theorem 5.2: for coefficients summing to zero,
``E[sum a_i X_i | Theta] = 0``, so the bound holds with no mixture term; the
difference between the mean of a random subsample and the full mean is such a
contrast.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_array, check_int, check_real, check_unmasked
from ._checks import _check_delta, _check_n_N, _check_range


def _log2_over(delta: float) -> float:
    """``log(2 / delta)`` without overflow for a tiny ``delta`` (``2 / 1e-320`` is inf)."""
    return math.log(2.0 / delta) if delta > 1e-300 else math.log(2.0) - math.log(delta)


__all__ = ["subsample_contrast", "contrast_variance_proxy", "subsample_halfwidth", "subsample_size", "serfling_halfwidth"]


def subsample_contrast(n: int, N: int) -> np.ndarray:
    """Coefficients ``a`` with ``sum(a * x) = mean(x[:n]) - mean(x[:N])``.

    ``a_i = 1/n - 1/N`` for ``i < n`` and ``-1/N`` for ``n <= i < N``; they sum to zero.

    Examples
    --------
    >>> subsample_contrast(1, 2).tolist()
    [0.5, -0.5]
    """
    n, N = _check_n_N(n, N)
    a = np.full(N, -1.0 / N)
    a[:n] += 1.0 / n
    return a


def contrast_variance_proxy(a: ArrayLike, value_range: float = 1.0, *, atol: float = 1e-9) -> float:
    """Variance proxy ``R**2 sum(a**2) / 4`` of a zero-sum linear contrast ``sum(a_i X_i)``.

    Parameters
    ----------
    a : array-like of shape (n,)
        Contrast coefficients; they must sum to zero (within ``atol`` times
        ``sum(|a|)``).
    value_range : float, default=1.0
        Range ``R`` of each ``X_i``.
    atol : float, default=1e-9
        Relative tolerance on ``sum(a)``.

    Raises
    ------
    ValueError
        If ``a`` does not sum to zero: then ``E[f | Theta] = sum(a) mu(Theta)``
        moves with ``Theta`` and the mixture term does not cancel; or if ``a``
        is not a finite 1-D array (a masked array with a masked entry included).

    Notes
    -----
    Lin, Frei & de la Peña (2026), Theorem 5.2: ``E[f | Theta] = (sum a_i)
    mu(Theta) = 0``, so ``sigma2_mix = 0`` exactly; ``c_i = R |a_i|``.

    Examples
    --------
    >>> contrast_variance_proxy([1, -1])
    0.5
    """
    a = check_array(check_unmasked(a, "a"), "a", ndim=1, min_rows=1)
    r = _check_range(value_range)
    total = float(np.sum(a))
    scale = float(np.sum(np.abs(a)))
    if abs(total) > atol * max(scale, 1e-300):
        raise ValueError(
            f"a must sum to zero for the mixture term to cancel, got sum(a) = {total:.3g}; "
            "for other statistics use effective_variance with a sigma2_mix"
        )
    return float(r**2 * np.sum(a**2) / 4.0)


def subsample_halfwidth(n: int, N: int, delta: float, value_range: float = 1.0) -> float:
    """Half-width ``t`` with ``P(|mean_n - mean_N| >= t) <= delta``, mixture-free.

    Parameters
    ----------
    n : int
        Size of the random subsample (``1 <= n <= N``).
    N : int
        Size of the full set (the benchmark).
    delta : float in (0, 1)
        Error probability.
    value_range : float, default=1.0
        Range ``R`` of each item score (1 for correct/incorrect).

    Returns
    -------
    float
        ``R sqrt((N - n) log(2/delta) / (2 n N))``; 0 when ``n == N``.

    Raises
    ------
    ValueError
        ``n > N``, ``n < 1``, ``delta`` outside (0, 1), ``value_range <= 0``.

    Notes
    -----
    Lin, Frei & de la Peña (2026), Theorem 5.2 and its corollary: the
    contrast :func:`subsample_contrast` has ``sum(a**2) = (N - n)/(n N)``, so
    ``P(|mean_n - mean_N| >= t) <= 2 exp(-2 t**2 n N / (R**2 (N - n)))``.
    The first ``n`` of an exchangeable sequence are, in law, a uniformly
    random subset of the first ``N``.

    Examples
    --------
    >>> round(subsample_halfwidth(5000, 14042, 0.05), 5)
    0.01541
    """
    n, N = _check_n_N(n, N)
    d = _check_delta(delta)
    r = _check_range(value_range)
    return r * math.sqrt((N - n) * _log2_over(d) / (2.0 * n * N))


def subsample_size(t: float, N: int, delta: float, value_range: float = 1.0) -> int:
    """Smallest ``n`` whose :func:`subsample_halfwidth` is at most ``t``.

    Solves ``R**2 (N - n) log(2/delta) / (2 n N) <= t**2``:
    ``n >= N / (1 + 2 t**2 N / (R**2 log(2/delta)))``.

    Examples
    --------
    >>> subsample_size(0.01, 14042, 0.05), subsample_size(0.02, 14042, 0.05)
    (7973, 3472)
    """
    t = check_real(t, "t", low=0.0, low_open=True)
    N = check_int(N, "N", low=1)
    d = _check_delta(delta)
    r = _check_range(value_range)
    n = math.ceil(N / (1.0 + 2.0 * (t * t) * N / (r * r * _log2_over(d))) - 1e-9)  # t * t: inf for a huge t, not an error
    n = min(max(n, 1), N)
    while n > 1 and subsample_halfwidth(n - 1, N, d, r) <= t:  # guard against rounding
        n -= 1
    while subsample_halfwidth(n, N, d, r) > t:
        n += 1
    return n


def serfling_halfwidth(n: int, N: int, delta: float, value_range: float = 1.0) -> float:
    """Serfling's half-width for sampling ``n`` of a fixed finite population of ``N``.

    ``R sqrt((1 - (n - 1)/N) log(2/delta) / (2 n))`` (Serfling 1974; Bardenet &
    Maillard 2015, Corollary 2.5).  Valid for any fixed population, with no
    exchangeable extension assumed; it differs from
    :func:`subsample_halfwidth` only by ``(n - 1)/N`` in place of ``n/N``.

    Examples
    --------
    >>> round(serfling_halfwidth(5000, 14042, 0.05), 5)
    0.01541
    """
    n, N = _check_n_N(n, N)
    d = _check_delta(delta)
    r = _check_range(value_range)
    return r * math.sqrt((1.0 - (n - 1.0) / N) * _log2_over(d) / (2.0 * n))
