"""SIMULATION: exchangeable binary data, for the checks of chapters 11-12 (clearly simulation, never data).

Draws from the models of :mod:`semvar.exchangeable`: a sequence exchangeable
through ``p ~ Beta(a, b)``, and the domain-stratified hierarchical model of a
benchmark.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._validation import RandomStateLike, check_array, check_beta_params, check_int, check_random_state

__all__ = ["simulate_exchangeable_means", "simulate_hierarchical"]


def simulate_exchangeable_means(n: int, a: float, b: float, n_reps: int, *,
                                random_state: RandomStateLike = None) -> tuple[np.ndarray, np.ndarray]:
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
    a, b = check_beta_params(a, b)
    n_reps = check_int(n_reps, "n_reps", low=1)
    rng = check_random_state(random_state)
    p = rng.beta(a, b, size=n_reps)
    return rng.binomial(n, p) / n, p


def simulate_hierarchical(trials: ArrayLike, domains: ArrayLike, params: dict, n_reps: int, *,
                          random_state: RandomStateLike = None) -> dict:
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
    a = np.array([check_beta_params(*params[d])[0] for d in dom])
    b = np.array([check_beta_params(*params[d])[1] for d in dom])
    n_reps = check_int(n_reps, "n_reps", low=1)
    rng = check_random_state(random_state)
    p = rng.beta(a, b, size=(n_reps, len(n)))
    n1 = n // 2
    n2 = n - n1
    half1 = rng.binomial(n1, p)
    half2 = rng.binomial(n2, p)
    return {"p": p, "successes": half1 + half2, "half1": half1, "half2": half2, "half_trials": np.vstack([n1, n2])}
