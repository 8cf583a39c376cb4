"""Argument checks shared by the modules of :mod:`semvar.exchangeable`."""

from __future__ import annotations

from collections.abc import Sized

import numpy as np
from numpy.typing import ArrayLike

from .._validation import (
    RandomStateLike,
    check_array,
    check_int,
    check_label_codes,
    check_random_state,
    check_real,
    check_unmasked,
)


def _check_delta(delta: object) -> float:
    return check_real(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)


def _check_range(value_range: object) -> float:
    return check_real(value_range, "value_range", low=0.0, low_open=True)


def _check_n_N(n: object, N: object) -> tuple[int, int]:
    N = check_int(N, "N", low=1)
    n = check_int(n, "n", low=1)
    if n > N:
        raise ValueError(f"n must be <= N (a subsample of the full set), got n={n} > N={N}")
    return n, N


def _check_counts(successes: ArrayLike, trials: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Success counts and trials per subject (masked subjects already left out by the caller)."""
    k = check_array(check_unmasked(successes, "successes"), "successes", ndim=1, min_rows=2)
    n = check_array(check_unmasked(trials, "trials"), "trials", ndim=1)
    if k.shape != n.shape:
        raise ValueError(f"successes and trials must have the same length, got {k.shape[0]} and {n.shape[0]}")
    if np.any(n < 1) or np.any(n != np.round(n)):
        raise ValueError("trials must be positive integers")
    if np.any(k < 0) or np.any(k > n) or np.any(k != np.round(k)):
        raise ValueError("successes must be integers with 0 <= successes <= trials")
    if np.all(k == 0) or np.all(k == n):
        raise ValueError("successes are all 0 or all equal to trials: a beta-binomial fit is undefined")
    return k.astype(int), n.astype(int)


def _check_binary(x: ArrayLike, name: str, *, min_rows: int = 0) -> np.ndarray:
    """A 1-D array of 0/1 scores (correct or not), as floats."""
    arr = check_array(check_unmasked(x, name), name, ndim=1, min_rows=min_rows)
    if not np.all((arr == 0) | (arr == 1)):
        raise ValueError(f"{name} must hold only 0 and 1")
    return arr


def _check_groups(correct: ArrayLike, groups: ArrayLike, random_state: RandomStateLike):
    """``(x, labels, inverse, rng)`` for a split-half correlation: 0/1 items, their groups (at least three).

    The items masked in ``correct`` or ``groups`` are left out by the caller; groups are labels of one kind
    (:func:`~semvar._validation.check_label_codes`), numbered as ``np.unique`` sorts them.
    """
    x = _check_binary(correct, "correct")
    g = check_unmasked(groups, "groups")
    shape = np.shape(g) if isinstance(g, np.ndarray) or not isinstance(g, Sized) else (len(g),)
    if shape != x.shape:
        raise ValueError(f"groups must have one label per item, got {shape} for {x.shape}")
    rng = check_random_state(random_state)
    inv, labels = check_label_codes(g, "groups", n=x.shape[0])
    if len(labels) < 3:
        raise ValueError(f"need at least three groups for a correlation, got {len(labels)}")
    return x, labels, inv, rng


def _check_trials_mix(trials: ArrayLike, sigma2_mix: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Items per subject (positive) and each subject's proxy (non-negative, broadcast to one per subject)."""
    n = check_array(check_unmasked(trials, "trials"), "trials", ndim=1, min_rows=1)
    if np.any(n < 1):
        raise ValueError("trials must be positive")
    s2 = np.asarray(check_unmasked(sigma2_mix, "sigma2_mix"), dtype=float)
    s2 = check_array(np.broadcast_to(s2, n.shape), "sigma2_mix", nonnegative=True)
    return n, s2
