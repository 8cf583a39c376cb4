"""The general bound: bounded-difference concentration for an infinitely exchangeable sequence.

The effective variance proxy ``sigma2_eff = sum(c**2) / 4 + sigma2_mix``
(Lin, Frei & de la Peña 2026, Theorem 4.2), its two-sided tail and the
half-width it gives, with the i.i.d. (Hoeffding) and Wald half-widths for
comparison.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from .._validation import check_array, check_int, check_real, check_unmasked
from ._checks import _check_delta, _check_range

__all__ = ["effective_variance", "tail_bound", "halfwidth", "hoeffding_halfwidth", "wald_halfwidth"]


def effective_variance(c: ArrayLike, sigma2_mix: float = 0.0) -> float:
    """The effective variance proxy ``sum(c_i**2) / 4 + sigma2_mix``.

    Parameters
    ----------
    c : array-like of shape (n,)
        Bounded-difference constants: changing coordinate ``i`` alone changes
        ``f`` by at most ``c[i]`` (non-negative).
    sigma2_mix : float, default=0.0
        A sub-Gaussian variance proxy of the latent mixture fluctuation
        ``E[f | Theta] - E[f]`` (non-negative).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        Negative or non-finite constants (or a masked array with a masked
        entry), or a negative ``sigma2_mix``.

    Notes
    -----
    Lin, Frei & de la Peña (2026), Theorem 4.2.  Conditionally on ``Theta``
    the coordinates are i.i.d., so McDiarmid's argument makes
    ``f - E[f | Theta]`` sub-Gaussian with proxy ``sum(c**2)/4`` whatever
    ``Theta`` is; the two fluctuations then add in the exponent.

    Examples
    --------
    >>> effective_variance([0.5, 0.5], 0.1)
    0.225
    """
    c = check_array(check_unmasked(c, "c"), "c", ndim=1, nonnegative=True)
    s2 = check_real(sigma2_mix, "sigma2_mix", low=0.0)
    return float(np.sum(c**2) / 4.0 + s2)


def tail_bound(t: float | ArrayLike, sigma2_eff: float) -> np.ndarray | float:
    """``min(1, 2 exp(-t**2 / (2 sigma2_eff)))``, the bound on ``P(|f - E f| >= t)``.

    Parameters
    ----------
    t : float or array-like
        Deviations, ``t >= 0``.
    sigma2_eff : float
        Variance proxy (> 0).

    Returns
    -------
    float or ndarray

    Raises
    ------
    ValueError
        Negative or non-finite deviations (or a masked array with a masked
        entry), or a proxy that is not positive.

    Examples
    --------
    >>> round(tail_bound(1.96, 1.0), 4)
    0.2929
    """
    s2 = check_real(sigma2_eff, "sigma2_eff", low=0.0, low_open=True)
    arr = check_array(check_unmasked(t, "t"), "t", nonnegative=True)
    out = np.minimum(1.0, 2.0 * np.exp(-(arr**2) / (2.0 * s2)))
    return float(out) if out.ndim == 0 else out


def halfwidth(sigma2_eff: float, delta: float) -> float:
    """The ``t`` at which the tail bound equals ``delta``: ``sqrt(2 sigma2_eff log(2/delta))``.

    With probability at least ``1 - delta``, ``|f - E f| < t``.

    Examples
    --------
    >>> round(halfwidth(1.0, 0.05), 4)
    2.7162
    """
    s2 = check_real(sigma2_eff, "sigma2_eff", low=0.0)
    d = _check_delta(delta)
    return math.sqrt(2.0 * s2 * (math.log(2.0 / d) if d > 1e-300 else math.log(2.0) - math.log(d)))


def hoeffding_halfwidth(n: int, delta: float, value_range: float = 1.0) -> float:
    """Hoeffding's half-width for the mean of ``n`` independent variables of range ``R``.

    ``R sqrt(log(2/delta) / (2n))``: the general bound with ``c_i = R/n`` and
    no mixture term.

    Examples
    --------
    >>> round(hoeffding_halfwidth(14042, 0.05), 5)
    0.01146
    """
    n = check_int(n, "n", low=1)
    r = _check_range(value_range)
    return halfwidth(r**2 / (4.0 * n), delta)


def wald_halfwidth(p: float, n: int, delta: float = 0.05) -> float:
    """The plain Wald half-width ``z_{1-delta/2} sqrt(p (1-p) / n)`` of a binomial proportion.

    Examples
    --------
    >>> round(wald_halfwidth(0.71, 14042), 4)
    0.0075
    """
    p = check_real(p, "p", low=0.0, high=1.0)
    n = check_int(n, "n", low=1)
    d = _check_delta(delta)
    return float(stats.norm.ppf(1.0 - d / 2.0) * math.sqrt(p * (1.0 - p) / n))
