"""Paired comparisons of two models on the same items, as zero-sum contrasts.

Two models answer the same ``N`` items; ``D_i = X_i^A - X_i^B`` in {-1, 0, 1}.
If the models are interchangeable (for every value of the directing measure
``Theta``, the pair ``(X_i^A, X_i^B)`` has the same law as ``(X_i^B, X_i^A)``),
then ``E[D_i | Theta] = 0``: the mean difference is a contrast whose mixture
term vanishes for every ``Theta`` (Lin, Frei & de la Peña 2026, the argument
of Theorem 5.2), so its bound needs no model of the latent structure.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from .._validation import drop_masked
from ._checks import _check_binary, _check_delta

__all__ = ["paired_halfwidth"]


def _check_pair(correct_a: ArrayLike, correct_b: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    correct_a, correct_b = drop_masked([correct_a, correct_b], ["correct_a", "correct_b"])
    a = _check_binary(correct_a, "correct_a", min_rows=1)
    b = _check_binary(correct_b, "correct_b", min_rows=1)
    if a.shape != b.shape:
        raise ValueError(f"correct_a and correct_b must score the same items, got lengths {a.shape[0]} and {b.shape[0]}")
    return a, b


def paired_halfwidth(correct_a: ArrayLike, correct_b: ArrayLike, delta: float = 0.05) -> float:
    """Half-width ``t`` for the accuracy difference of two models on the same items.

    Under the hypothesis that the two models are interchangeable,
    ``P(|mean(a) - mean(b)| >= t) <= delta`` with

    ``t = sqrt(2 n_d log(2/delta)) / N``,

    where ``N`` is the number of items and ``n_d`` the number on which
    exactly one of the two models is right (the discordant items).  A
    difference at least ``t`` is **resolved** at level ``1 - delta``.

    Parameters
    ----------
    correct_a, correct_b : array-like of shape (N,) of 0/1
        Correctness of the two models, item by item (the same items, in the
        same order).  An item masked (:class:`numpy.ma.MaskedArray`) in
        either is left out of both.
    delta : float in (0, 1), default=0.05

    Returns
    -------
    float
        0 when the two models agree on every item.

    Raises
    ------
    ValueError
        Lengths that differ, values other than 0/1, ``delta`` outside (0, 1),
        or no item left once the masked ones are left out.

    Notes
    -----
    Given ``Theta`` the pairs ``(X_i^A, X_i^B)`` are i.i.d. across items; if
    each pair is exchangeable, then given ``Theta`` and the set of discordant
    items the signs of the non-zero ``D_i`` are independent fair signs.  The
    contrast ``sum_i D_i`` is then a sum of ``n_d`` independent variables of
    range 2, and Hoeffding's inequality gives
    ``P(|sum D_i| >= s) <= 2 exp(-s**2 / (2 n_d))`` whatever ``Theta`` is: the
    mixture term of the general bound is exactly zero (Lin, Frei & de la
    Peña 2026, Theorem 5.2's cancellation, ``E[D_i | Theta] = 0``).
    Conditioning on the discordant items is what makes the bound sharp: the
    unconditional bound on ``N`` variables of range 2 is
    ``sqrt(2 log(2/delta) / N)``, larger by ``sqrt(N / n_d)``.  It is the
    sub-Gaussian form of the sign (McNemar) test.

    Examples
    --------
    >>> a = np.r_[np.ones(60), np.zeros(40)]
    >>> b = np.r_[np.ones(50), np.zeros(50)]      # 10 discordant items, all won by a
    >>> round(paired_halfwidth(a, b, 0.05), 4)     # sqrt(2 * 10 * log 40) / 100
    0.0859
    >>> bool(abs(a.mean() - b.mean()) >= paired_halfwidth(a, b, 0.05))
    True
    """
    a, b = _check_pair(correct_a, correct_b)
    d = _check_delta(delta)
    n_d = int(np.sum(a != b))
    return math.sqrt(2.0 * n_d * (math.log(2.0 / d) if d > 1e-300 else math.log(2.0) - math.log(d))) / len(a)
