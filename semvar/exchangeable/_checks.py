"""Argument checks shared by the modules of :mod:`semvar.exchangeable`."""

from __future__ import annotations

import numpy as np

from .._validation import check_array, check_int, check_real


def _check_delta(delta) -> float:
    return check_real(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)


def _check_range(value_range) -> float:
    return check_real(value_range, "value_range", low=0.0, low_open=True)


def _check_n_N(n, N):
    N = check_int(N, "N", low=1)
    n = check_int(n, "n", low=1)
    if n > N:
        raise ValueError(f"n must be <= N (a subsample of the full set), got n={n} > N={N}")
    return n, N


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
