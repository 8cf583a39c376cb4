"""Bounded-difference concentration for exchangeable sequences, and its use on benchmarks.

The objects of chapters 7-8 (Lin, Frei & de la Peña 2026):

* the effective variance proxy of a bounded-difference function of an
  infinitely exchangeable sequence, ``sigma2_eff = sum(c**2) / 4 + sigma2_mix``
  (their Theorem 4.2), its two-sided tail and the half-width it gives;
* zero-sum linear contrasts, whose mixture term vanishes (their Theorem 5.2),
  and the subsample-vs-full bound that follows;
* sub-Gaussian variance proxies of bounded variables: the optimal proxy of a
  Beta law (Marchal & Arbel 2017), of a Bernoulli law (Kearns & Saul 1998),
  and simple upper bounds;
* beta-binomial fits of subject accuracies and the hierarchical,
  domain-stratified model of a benchmark, with the half-width of the
  subject-macro score under it;
* simulators of exchangeable binary data (clearly simulation, never data).

All functions are pure: numpy in, numpy out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import integrate, optimize, special, stats

from ._validation import check_array, check_int, check_random_state, check_real

__all__ = [
    "effective_variance",
    "tail_bound",
    "halfwidth",
    "hoeffding_halfwidth",
    "wald_halfwidth",
    "subsample_contrast",
    "contrast_variance_proxy",
    "subsample_halfwidth",
    "subsample_size",
    "serfling_halfwidth",
    "beta_variance",
    "beta_from_mean_sd",
    "beta_subgaussian_proxy",
    "beta_proxy_upper_bound",
    "bernoulli_subgaussian_proxy",
    "BetaBinomialFit",
    "fit_beta_binomial",
    "macro_halfwidth",
    "iid_macro_halfwidth",
    "hierarchical_macro_halfwidth",
    "split_half_correlation",
    "simulate_exchangeable_means",
    "simulate_hierarchical",
]


def _check_delta(delta) -> float:
    return check_real(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)


def _check_range(value_range) -> float:
    return check_real(value_range, "value_range", low=0.0, low_open=True)


# --------------------------------------------------------------------------- the general bound


def effective_variance(c, sigma2_mix=0.0) -> float:
    """The effective variance proxy ``sum(c_i**2) / 4 + sigma2_mix``.

    Parameters
    ----------
    c : array-like of shape (n,)
        Bounded-difference constants: changing coordinate ``i`` alone changes
        ``f`` by at most ``c[i]`` (non-negative).
    sigma2_mix : float, default 0
        A sub-Gaussian variance proxy of the latent mixture fluctuation
        ``E[f | Theta] - E[f]`` (non-negative).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        Negative or non-finite constants, or a negative ``sigma2_mix``.

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
    c = check_array(c, "c", ndim=1, nonnegative=True)
    s2 = check_real(sigma2_mix, "sigma2_mix", low=0.0)
    return float(np.sum(c**2) / 4.0 + s2)


def tail_bound(t, sigma2_eff) -> np.ndarray | float:
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

    Examples
    --------
    >>> round(tail_bound(1.96, 1.0), 4)
    0.2929
    """
    s2 = check_real(sigma2_eff, "sigma2_eff", low=0.0, low_open=True)
    arr = check_array(t, "t", nonnegative=True)
    out = np.minimum(1.0, 2.0 * np.exp(-(arr**2) / (2.0 * s2)))
    return float(out) if out.ndim == 0 else out


def halfwidth(sigma2_eff, delta) -> float:
    """The ``t`` at which the tail bound equals ``delta``: ``sqrt(2 sigma2_eff log(2/delta))``.

    With probability at least ``1 - delta``, ``|f - E f| < t``.

    Examples
    --------
    >>> round(halfwidth(1.0, 0.05), 4)
    2.7162
    """
    s2 = check_real(sigma2_eff, "sigma2_eff", low=0.0)
    d = _check_delta(delta)
    return math.sqrt(2.0 * s2 * math.log(2.0 / d))


def hoeffding_halfwidth(n, delta, value_range=1.0) -> float:
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


def wald_halfwidth(p, n, delta=0.05) -> float:
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


# --------------------------------------------------------------------------- zero-sum contrasts


def _check_n_N(n, N):
    N = check_int(N, "N", low=1)
    n = check_int(n, "n", low=1)
    if n > N:
        raise ValueError(f"n must be <= N (a subsample of the full set), got n={n} > N={N}")
    return n, N


def subsample_contrast(n, N) -> np.ndarray:
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


def contrast_variance_proxy(a, value_range=1.0, *, atol=1e-9) -> float:
    """Variance proxy ``R**2 sum(a**2) / 4`` of a zero-sum linear contrast ``sum(a_i X_i)``.

    Parameters
    ----------
    a : array-like of shape (n,)
        Contrast coefficients; they must sum to zero (within ``atol`` times
        ``sum(|a|)``).
    value_range : float
        Range ``R`` of each ``X_i``.

    Raises
    ------
    ValueError
        If ``a`` does not sum to zero: then ``E[f | Theta] = sum(a) mu(Theta)``
        moves with ``Theta`` and the mixture term does not cancel.

    Notes
    -----
    Lin, Frei & de la Peña (2026), Theorem 5.2: ``E[f | Theta] = (sum a_i)
    mu(Theta) = 0``, so ``sigma2_mix = 0`` exactly; ``c_i = R |a_i|``.

    Examples
    --------
    >>> contrast_variance_proxy([1, -1])
    0.5
    """
    a = check_array(a, "a", ndim=1, min_rows=1)
    r = _check_range(value_range)
    total = float(np.sum(a))
    scale = float(np.sum(np.abs(a)))
    if abs(total) > atol * max(scale, 1e-300):
        raise ValueError(
            f"a must sum to zero for the mixture term to cancel, got sum(a) = {total:.3g}; "
            "for other statistics use effective_variance with a sigma2_mix"
        )
    return float(r**2 * np.sum(a**2) / 4.0)


def subsample_halfwidth(n, N, delta, value_range=1.0) -> float:
    """Half-width ``t`` with ``P(|mean_n - mean_N| >= t) <= delta``, mixture-free.

    Parameters
    ----------
    n : int
        Size of the random subsample (``1 <= n <= N``).
    N : int
        Size of the full set (the benchmark).
    delta : float in (0, 1)
        Error probability.
    value_range : float, default 1
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
    return r * math.sqrt((N - n) * math.log(2.0 / d) / (2.0 * n * N))


def subsample_size(t, N, delta, value_range=1.0) -> int:
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
    n = math.ceil(N / (1.0 + 2.0 * t**2 * N / (r**2 * math.log(2.0 / d))) - 1e-9)
    n = min(max(n, 1), N)
    while n > 1 and subsample_halfwidth(n - 1, N, d, r) <= t:  # guard against rounding
        n -= 1
    while subsample_halfwidth(n, N, d, r) > t:
        n += 1
    return n


def serfling_halfwidth(n, N, delta, value_range=1.0) -> float:
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
    return r * math.sqrt((1.0 - (n - 1.0) / N) * math.log(2.0 / d) / (2.0 * n))


# --------------------------------------------------------------------------- sub-Gaussian proxies


def _check_ab(a, b):
    a = check_real(a, "a", low=0.0, low_open=True)
    b = check_real(b, "b", low=0.0, low_open=True)
    return a, b


def beta_variance(a, b) -> float:
    """Variance ``a b / ((a + b)**2 (a + b + 1))`` of Beta(a, b).

    >>> beta_variance(1, 1) == 1 / 12
    True
    """
    a, b = _check_ab(a, b)
    return a * b / ((a + b) ** 2 * (a + b + 1.0))


def beta_from_mean_sd(mean, sd) -> tuple[float, float]:
    """Beta(a, b) parameters with the given mean and standard deviation.

    Requires ``0 < sd**2 < mean (1 - mean)``.

    >>> beta_from_mean_sd(0.5, math.sqrt(1 / 12))
    (1.0, 1.0)
    """
    m = check_real(mean, "mean", low=0.0, high=1.0, low_open=True, high_open=True)
    s = check_real(sd, "sd", low=0.0, low_open=True)
    if s**2 >= m * (1.0 - m):
        raise ValueError(f"sd must satisfy sd**2 < mean (1 - mean) = {m * (1 - m):.4g}, got sd = {s}")
    total = m * (1.0 - m) / s**2 - 1.0
    return (round(m * total, 12), round((1.0 - m) * total, 12))


def beta_proxy_upper_bound(a, b) -> float:
    """The simple upper bound ``1 / (4 (a + b + 1))`` on the optimal proxy of Beta(a, b).

    Marchal & Arbel (2017): Beta(a, b) is ``1/(4(a+b+1))``-sub-Gaussian; the
    bound equals the variance when ``a = b``.

    >>> beta_proxy_upper_bound(1, 1)
    0.08333333333333333
    """
    a, b = _check_ab(a, b)
    return 1.0 / (4.0 * (a + b + 1.0))


def bernoulli_subgaussian_proxy(p) -> float:
    """Optimal sub-Gaussian variance proxy of Bernoulli(p) (Kearns & Saul 1998).

    ``(1 - 2p) / (2 log((1 - p)/p))`` for ``p`` not in {0, 1/2, 1}; ``1/4`` at
    ``p = 1/2`` (the limit) and 0 at ``p`` in {0, 1}.  By convex ordering it
    is also a valid proxy for every variable in [0, 1] with mean ``p``.

    >>> bernoulli_subgaussian_proxy(0.5)
    0.25
    """
    p = check_real(p, "p", low=0.0, high=1.0)
    if p in (0.0, 1.0):
        return 0.0
    if abs(p - 0.5) < 1e-8:
        return 0.25
    return (1.0 - 2.0 * p) / (2.0 * math.log((1.0 - p) / p))


def _beta_log_mgf(lam: float, a: float, b: float) -> float:
    """log E exp(lam X) for X ~ Beta(a, b): log 1F1(a; a+b; lam), stable for large |lam|.

    Tries scipy's ``hyp1f1`` directly and through Kummer's transformation
    ``1F1(a; c; lam) = exp(lam) 1F1(c - a; c; -lam)``; when both over- or
    underflow, evaluates the series in arbitrary precision (mpmath).
    """
    c = a + b
    for shift, args in ((0.0, (a, c, lam)), (lam, (b, c, -lam))):
        val = float(special.hyp1f1(*args))
        if np.isfinite(val) and 1e-280 < val < 1e280:
            return shift + math.log(val)
    if a > 1.0 and b > 1.0:  # a smooth, single-peaked tilted density: Laplace-centred quadrature
        return _beta_log_mgf_quad(lam, a, b)
    import mpmath

    with mpmath.workdps(30):
        return float(mpmath.log(mpmath.hyp1f1(a, c, lam, maxterms=10**6)))


def _beta_log_mgf_quad(lam: float, a: float, b: float) -> float:
    """log E exp(lam X), X ~ Beta(a, b) with a, b > 1, by quadrature around the tilted mode."""

    def logf(x):
        return lam * x + (a - 1.0) * math.log(x) + (b - 1.0) * math.log1p(-x)

    # the tilted mode solves lam x^2 - (lam - a - b + 2) x - (a - 1) = 0 in (0, 1)
    x0 = optimize.brentq(lambda x: lam + (a - 1.0) / x - (b - 1.0) / (1.0 - x), 1e-300, 1.0 - 1e-16, xtol=1e-300, rtol=1e-15)
    curv = (a - 1.0) / x0**2 + (b - 1.0) / (1.0 - x0) ** 2
    sd = 1.0 / math.sqrt(curv)
    lo, hi = max(0.0, x0 - 60.0 * sd), min(1.0, x0 + 60.0 * sd)
    m = logf(x0)
    val, _ = integrate.quad(lambda x: math.exp(logf(x) - m), lo, hi, points=[x0], limit=200, epsabs=0.0, epsrel=1e-12)
    return m + math.log(val) - float(special.betaln(a, b))


def _proxy_ratio(lam: float, a: float, b: float, mu: float) -> float:
    """2 K(lam) / lam**2, with K the centred cumulant generating function of Beta(a, b)."""
    return 2.0 * (_beta_log_mgf(lam, a, b) - lam * mu) / lam**2


_LARGE_PRECISION = 1e5


def beta_subgaussian_proxy(a, b) -> float:
    """The optimal sub-Gaussian variance proxy of Beta(a, b), computed numerically.

    ``sigma2_opt = sup_{lam != 0} 2 log E exp(lam (X - mu)) / lam**2``: the
    smallest ``s2`` with ``E exp(lam (X - mu)) <= exp(lam**2 s2 / 2)`` for all
    real ``lam``.

    Parameters
    ----------
    a, b : float
        Positive Beta parameters.

    Returns
    -------
    float
        Equals the variance when ``a == b`` and exceeds it otherwise; never
        above :func:`beta_proxy_upper_bound` nor the Bernoulli proxy of the
        mean.

    Raises
    ------
    ValueError
        Non-positive or non-finite ``a`` or ``b``.

    Notes
    -----
    Marchal & Arbel (2017).  The moment generating function of Beta(a, b)
    is Kummer's ``1F1(a; a + b; lam)``; the ratio ``2K(lam)/lam**2`` tends to
    the variance as ``lam -> 0`` and to 0 as ``|lam| -> inf``, so the supremum
    is either the variance (the symmetric case, where the third cumulant
    vanishes and the ratio never exceeds its limit) or attained at a finite
    ``lam`` of order ``a + b``.  For ``a + b > 1e5`` the ratio of the proxy to
    the variance is taken at ``a + b = 1e5`` with the same mean (it has
    converged there to better than 1e-6 relative).  It is located on a log-spaced grid
    on each side and refined with Brent's method; relative accuracy is far
    below 1e-4 (checked against mpmath in the tests).

    References
    ----------
    O. Marchal and J. Arbel (2017). On the sub-Gaussianity of the Beta and
    Dirichlet distributions. Electronic Communications in Probability 22(54).

    Examples
    --------
    >>> round(beta_subgaussian_proxy(2, 2) / beta_variance(2, 2), 6)
    1.0
    >>> beta_subgaussian_proxy(2, 5) > beta_variance(2, 5)
    True
    """
    a, b = _check_ab(a, b)
    mu = a / (a + b)
    var = beta_variance(a, b)
    best = var  # the lam -> 0 limit
    if a == b:
        return var
    if a + b > _LARGE_PRECISION:
        # The ratio proxy / variance converges as a + b grows with the mean fixed
        # (it moves by < 1e-6 relative between a + b = 3e4 and 1e5); evaluate
        # it at a + b = 1e5, where the quadrature is fast and accurate.
        scale = _LARGE_PRECISION / (a + b)
        return var * beta_subgaussian_proxy(a * scale, b * scale) / beta_variance(a * scale, b * scale)
    hi = math.log(20.0 * (a + b + 1.0) + 50.0)
    us = np.linspace(math.log(1e-2), hi, 56)
    for sign in (1.0, -1.0):
        vals = np.array([_proxy_ratio(sign * math.exp(u), a, b, mu) for u in us])
        k = int(np.argmax(vals))
        lo_u, hi_u = us[max(k - 1, 0)], us[min(k + 1, len(us) - 1)]
        res = optimize.minimize_scalar(
            lambda u: -_proxy_ratio(sign * math.exp(u), a, b, mu),
            bounds=(lo_u, hi_u),
            method="bounded",
            options={"xatol": 1e-10},
        )
        best = max(best, float(vals[k]), float(-res.fun))
    return best


# --------------------------------------------------------------------------- beta-binomial fits


@dataclass(frozen=True)
class BetaBinomialFit:
    """A beta-binomial fit of group success counts.

    Attributes
    ----------
    a, b : float
        Beta parameters (``inf`` when no over-dispersion is found).
    mean : float
        ``a / (a + b)``.
    rho : float
        Intra-group correlation ``1 / (a + b + 1)`` (0 without over-dispersion).
    method : str
        ``"moments"`` or ``"mle"``.
    loglik : float
        Beta-binomial log-likelihood at the fit.
    n_groups : int
    """

    a: float
    b: float
    mean: float
    rho: float
    method: str
    loglik: float
    n_groups: int

    @property
    def sd(self) -> float:
        """Standard deviation of the fitted Beta law."""
        return math.sqrt(self.mean * (1.0 - self.mean) * self.rho)

    def proxy(self, kind: str = "optimal") -> float:
        """Sub-Gaussian proxy of the fitted Beta: ``optimal``, ``variance``, ``bound`` or ``bernoulli``."""
        if kind == "bernoulli":
            return bernoulli_subgaussian_proxy(self.mean)
        if self.rho == 0.0:
            return 0.0
        if kind == "optimal":
            return beta_subgaussian_proxy(self.a, self.b)
        if kind == "variance":
            return beta_variance(self.a, self.b)
        if kind == "bound":
            return beta_proxy_upper_bound(self.a, self.b)
        raise ValueError(f"kind must be 'optimal', 'variance', 'bound' or 'bernoulli', got {kind!r}")


def _check_counts(successes, trials):
    k = check_array(successes, "successes", ndim=1, min_rows=2)
    n = check_array(trials, "trials", ndim=1)
    if k.shape != n.shape:
        raise ValueError(f"successes and trials must have the same length, got {k.shape[0]} and {n.shape[0]}")
    if np.any(n < 1) or np.any(n != np.round(n)):
        raise ValueError("trials must be positive integers")
    if np.any(k < 0) or np.any(k > n) or np.any(k != np.round(k)):
        raise ValueError("successes must be integers with 0 <= successes <= trials")
    if np.all(k == 0) or np.all(k == n):
        raise ValueError("successes are all 0 or all equal to trials: a beta-binomial fit is undefined")
    return k.astype(int), n.astype(int)


def _loglik(k, n, a, b):
    if not np.isfinite(a + b):
        p = a / (a + b) if np.isfinite(a) else k.sum() / n.sum()
        return float(np.sum(stats.binom.logpmf(k, n, p)))
    return float(np.sum(stats.betabinom.logpmf(k, n, a, b)))


_MAX_PRECISION = 1e7  # a + b beyond this is treated as "no over-dispersion"


def fit_beta_binomial(successes, trials, method: str = "mle") -> BetaBinomialFit:
    """Fit Beta(a, b) to group accuracies from success counts (beta-binomial model).

    Parameters
    ----------
    successes, trials : array-like of shape (m,)
        Correct answers and items per group (subject), ``m >= 2``.
    method : {"mle", "moments"}
        ``"moments"``: unweighted mean ``m`` of the group proportions ``y_s``
        and their sample variance ``s2`` (ddof 1), solved from
        ``E s2 = m(1-m) [h + rho (1 - h)]`` with ``h = mean(1/n_s)``
        (exact for equal means).  ``"mle"``: maximum likelihood with
        ``scipy.stats.betabinom`` over ``(logit mean, log(a + b))``, started at
        the moment fit.

    Returns
    -------
    BetaBinomialFit

    Raises
    ------
    ValueError
        Bad counts, fewer than two groups, an unknown method.

    Examples
    --------
    >>> fit = fit_beta_binomial([5, 50, 95], [100, 100, 100], method="moments")
    >>> round(fit.mean, 2), round(fit.rho, 3)
    (0.5, 0.808)
    """
    if method not in ("mle", "moments"):
        raise ValueError(f"method must be 'mle' or 'moments', got {method!r}")
    k, n = _check_counts(successes, trials)
    y = k / n
    m = float(np.mean(y))
    s2 = float(np.var(y, ddof=1))
    h = float(np.mean(1.0 / n))
    base = m * (1.0 - m)
    rho = (s2 / base - h) / (1.0 - h) if h < 1.0 and base > 0 else 0.0
    rho = float(min(max(rho, 0.0), 1.0 - 1e-9))
    if method == "moments":
        if rho <= 1.0 / (_MAX_PRECISION + 1.0):
            return BetaBinomialFit(math.inf, math.inf, m, 0.0, "moments", _loglik(k, n, math.inf, math.inf), len(k))
        tot = 1.0 / rho - 1.0
        a, b = m * tot, (1.0 - m) * tot
        return BetaBinomialFit(a, b, m, rho, "moments", _loglik(k, n, a, b), len(k))

    def nll(theta):
        mu = special.expit(theta[0])
        tot = math.exp(theta[1])
        return -float(np.sum(stats.betabinom.logpmf(k, n, mu * tot, (1.0 - mu) * tot)))

    mu0 = min(max(m, 1e-4), 1 - 1e-4)
    tot0 = 1.0 / rho - 1.0 if rho > 1e-6 else 1e4
    start = np.array([special.logit(mu0), math.log(min(max(tot0, 1e-2), _MAX_PRECISION))])
    bounds = [(-20.0, 20.0), (math.log(1e-3), math.log(_MAX_PRECISION))]
    res = optimize.minimize(nll, start, method="L-BFGS-B", bounds=bounds)
    mu = float(special.expit(res.x[0]))
    tot = math.exp(res.x[1])
    if res.x[1] >= math.log(_MAX_PRECISION) - 1e-3:  # boundary: binomial (no over-dispersion) fits as well
        p = float(k.sum() / n.sum())
        return BetaBinomialFit(math.inf, math.inf, p, 0.0, "mle", _loglik(k, n, math.inf, math.inf), len(k))
    return BetaBinomialFit(mu * tot, (1.0 - mu) * tot, mu, 1.0 / (tot + 1.0), "mle", -float(res.fun), len(k))


# --------------------------------------------------------------------------- the hierarchical model


def macro_halfwidth(trials, sigma2_mix, delta) -> float:
    """Half-width of the subject-macro score ``(1/S) sum_s mean_s`` under the hierarchy.

    Items are conditionally independent given subject accuracies ``p_s``,
    and ``p_s - E p_s`` are independent with proxies ``sigma2_mix[s]``.

    ``sigma2_eff = (1/(4 S**2)) sum_s 1/n_s + (1/S**2) sum_s sigma2_mix[s]``:
    an item of subject ``s`` moves the score by ``c = 1/(S n_s)``, and the
    mixture term is ``(1/S) sum_s (p_s - E p_s)``.

    Parameters
    ----------
    trials : array-like of shape (S,)
        Items per subject.
    sigma2_mix : float or array-like of shape (S,)
        Sub-Gaussian proxy of each subject's accuracy (0 gives the
        i.i.d. half-width).
    delta : float in (0, 1)

    Examples
    --------
    >>> round(macro_halfwidth([100, 100], 0.0, 0.05), 4) == round(hoeffding_halfwidth(200, 0.05), 4)
    True
    """
    n = check_array(trials, "trials", ndim=1, min_rows=1)
    if np.any(n < 1):
        raise ValueError("trials must be positive")
    s2 = check_array(np.broadcast_to(np.asarray(sigma2_mix, dtype=float), n.shape), "sigma2_mix", nonnegative=True)
    S = len(n)
    sigma2_eff = float(np.sum(1.0 / n) / (4.0 * S**2) + np.sum(s2) / S**2)
    return halfwidth(sigma2_eff, delta)


def iid_macro_halfwidth(trials, delta) -> float:
    """The naive half-width of the subject-macro score: :func:`macro_halfwidth` without the mixture term."""
    return macro_halfwidth(trials, 0.0, delta)


def hierarchical_macro_halfwidth(successes, trials, domains, delta, *, method="mle", proxy="optimal") -> dict:
    """Fit one beta-binomial per domain and return the subject-macro half-width.

    Parameters
    ----------
    successes, trials : array-like of shape (S,)
        Correct answers and items per subject.
    domains : array-like of shape (S,)
        Domain label of each subject (subjects are exchangeable within a domain).
    delta : float in (0, 1)
    method : {"mle", "moments"}
    proxy : {"optimal", "variance", "bound", "bernoulli"}
        Which proxy of the fitted Beta law to use as ``sigma2_mix``
        (``"optimal"``: Marchal-Arbel, the paper's choice).

    Returns
    -------
    dict
        ``halfwidth`` (hierarchical), ``iid_halfwidth``, ``macro`` (the
        score), ``fits`` (domain -> BetaBinomialFit), ``sigma2_mix`` (per subject).
    """
    k, n = _check_counts(successes, trials)
    dom = np.asarray(domains)
    if dom.shape != k.shape:
        raise ValueError(f"domains must have one label per subject, got {dom.shape[0]} labels for {k.shape[0]} subjects")
    fits = {}
    s2 = np.zeros(len(k))
    for d in sorted(set(dom.tolist()), key=str):
        idx = dom == d
        if idx.sum() < 2:
            raise ValueError(f"domain {d!r} has fewer than two subjects; a beta-binomial fit needs at least two")
        fit = fit_beta_binomial(k[idx], n[idx], method=method)
        fits[d] = fit
        s2[idx] = fit.proxy(proxy)
    return {
        "halfwidth": macro_halfwidth(n, s2, delta),
        "iid_halfwidth": iid_macro_halfwidth(n, delta),
        "macro": float(np.mean(k / n)),
        "fits": fits,
        "sigma2_mix": s2,
    }


def split_half_correlation(correct, groups, *, random_state=None) -> float:
    """Correlation across groups of the accuracies of two random halves of each group.

    Each group's items are split uniformly at random into two halves (sizes
    ``floor(n/2)`` and the rest); the accuracies of the first halves are
    correlated (Pearson) with those of the second halves across groups.
    Near 0 when items are i.i.d. whatever their group; large when group
    accuracies differ (positive dependence within groups).

    Parameters
    ----------
    correct : array-like of shape (n_items,) of 0/1
    groups : array-like of shape (n_items,)
        Group (subject) of each item; at least three groups, each with at
        least two items.
    random_state : None, int or Generator

    Returns
    -------
    float
        ``nan`` if either half's accuracies are constant across groups.
    """
    x = check_array(correct, "correct", ndim=1)
    if not np.all((x == 0) | (x == 1)):
        raise ValueError("correct must hold only 0 and 1")
    g = np.asarray(groups)
    if g.shape != x.shape:
        raise ValueError(f"groups must have one label per item, got {g.shape} for {x.shape}")
    rng = check_random_state(random_state)
    labels, inv = np.unique(g, return_inverse=True)
    if len(labels) < 3:
        raise ValueError(f"need at least three groups for a correlation, got {len(labels)}")
    h1 = np.empty(len(labels))
    h2 = np.empty(len(labels))
    for j in range(len(labels)):
        items = x[inv == j]
        if len(items) < 2:
            raise ValueError(f"group {labels[j]!r} has fewer than two items")
        perm = rng.permutation(len(items))
        half = len(items) // 2
        h1[j] = items[perm[:half]].mean()
        h2[j] = items[perm[half:]].mean()
    if np.std(h1) == 0 or np.std(h2) == 0:
        return float("nan")
    return float(np.corrcoef(h1, h2)[0, 1])


# --------------------------------------------------------------------------- simulators (simulation, not data)


def simulate_exchangeable_means(n, a, b, n_reps, *, random_state=None) -> tuple[np.ndarray, np.ndarray]:
    """SIMULATION: means of ``n`` binary items, exchangeable through ``p ~ Beta(a, b)``.

    Each replicate draws ``p ~ Beta(a, b)`` (the directing measure), then
    ``X_1..X_n | p`` i.i.d. Bernoulli(p).

    Returns
    -------
    means : ndarray (n_reps,)
        Sample means ``mean(X_1..X_n)``.
    p : ndarray (n_reps,)
        The latent ``p`` of each replicate.
    """
    n = check_int(n, "n", low=1)
    a, b = _check_ab(a, b)
    n_reps = check_int(n_reps, "n_reps", low=1)
    rng = check_random_state(random_state)
    p = rng.beta(a, b, size=n_reps)
    return rng.binomial(n, p) / n, p


def simulate_hierarchical(trials, domains, params, n_reps, *, random_state=None) -> dict:
    """SIMULATION of the domain-stratified hierarchical model of a benchmark.

    For each replicate: each subject ``s`` of domain ``d`` draws its accuracy
    ``p_s ~ Beta(a_d, b_d)`` independently, and its ``n_s`` items are i.i.d.
    Bernoulli(p_s).  Items are returned as counts, in two halves per subject
    (sizes ``floor(n_s/2)`` and the rest) so split-half statistics can be
    computed.

    Parameters
    ----------
    trials : array-like of shape (S,)
        Items per subject.
    domains : array-like of shape (S,)
    params : dict
        Domain -> (a_d, b_d).
    n_reps : int
    random_state : None, int or Generator

    Returns
    -------
    dict with ``p`` (n_reps, S), ``successes`` (n_reps, S), ``half1``,
    ``half2`` (n_reps, S) counts, and ``half_trials`` (2, S).
    """
    n = check_array(trials, "trials", ndim=1, min_rows=1).astype(int)
    dom = np.asarray(domains)
    if dom.shape != n.shape:
        raise ValueError("domains must have one label per subject")
    missing = sorted(set(dom.tolist()) - set(params), key=str)
    if missing:
        raise ValueError(f"params lacks the domains {missing}")
    a = np.array([_check_ab(*params[d])[0] for d in dom])
    b = np.array([_check_ab(*params[d])[1] for d in dom])
    n_reps = check_int(n_reps, "n_reps", low=1)
    rng = check_random_state(random_state)
    p = rng.beta(a, b, size=(n_reps, len(n)))
    n1 = n // 2
    n2 = n - n1
    half1 = rng.binomial(n1, p)
    half2 = rng.binomial(n2, p)
    return {"p": p, "successes": half1 + half2, "half1": half1, "half2": half2, "half_trials": np.vstack([n1, n2])}
