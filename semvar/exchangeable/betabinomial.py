"""Beta-binomial fits of group (subject) accuracies from success counts."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize, special, stats

from .._validation import check_option, drop_masked
from ._checks import _check_counts
from .proxies import bernoulli_subgaussian_proxy, beta_proxy_upper_bound, beta_subgaussian_proxy, beta_variance

__all__ = ["BetaBinomialFit", "fit_beta_binomial"]

#: the fits :func:`fit_beta_binomial` makes
METHODS = ("mle", "moments")
#: the sub-Gaussian proxies :meth:`BetaBinomialFit.proxy` gives
PROXIES = ("optimal", "variance", "bound", "bernoulli")


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
        check_option(kind, "kind", PROXIES)
        if kind == "bernoulli":
            return bernoulli_subgaussian_proxy(self.mean)
        if self.rho == 0.0:
            return 0.0
        if kind == "optimal":
            return beta_subgaussian_proxy(self.a, self.b)
        if kind == "variance":
            return beta_variance(self.a, self.b)
        return beta_proxy_upper_bound(self.a, self.b)


def _loglik(k, n, a, b):
    if not np.isfinite(a + b):
        p = a / (a + b) if np.isfinite(a) else k.sum() / n.sum()
        return float(np.sum(stats.binom.logpmf(k, n, p)))
    return float(np.sum(stats.betabinom.logpmf(k, n, a, b)))


_MAX_PRECISION = 1e7  # a + b beyond this is treated as "no over-dispersion"


def fit_beta_binomial(successes: ArrayLike, trials: ArrayLike, method: str = "mle") -> BetaBinomialFit:
    """Fit Beta(a, b) to group accuracies from success counts (beta-binomial model).

    Parameters
    ----------
    successes, trials : array-like of shape (m,)
        Correct answers and items per group (subject), ``m >= 2``.  A
        subject masked (:class:`numpy.ma.MaskedArray`) in either is left out.
    method : {"mle", "moments"}, default="mle"
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
        Bad counts, fewer than two groups (once masked ones are left out), an
        unknown method.

    Examples
    --------
    >>> fit = fit_beta_binomial([5, 50, 95], [100, 100, 100], method="moments")
    >>> round(fit.mean, 2), round(fit.rho, 3)
    (0.5, 0.808)
    """
    check_option(method, "method", METHODS)
    successes, trials = drop_masked([successes, trials], ["successes", "trials"])
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
