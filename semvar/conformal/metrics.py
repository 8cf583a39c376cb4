"""Summaries of prediction sets: set size, coverage, accuracy, inclusion probabilities."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_array, check_unmasked
from ._checks import _check_labels, _check_sets

__all__ = ["set_size", "coverage", "accuracy", "inclusion_probabilities"]


def set_size(sets: ArrayLike) -> float:
    """Mean set size ``SS = mean_i |C(X_i)|`` (Ye et al. 2024, eq. 6).

    >>> set_size(np.array([[True, True, False], [True, False, False]]))
    1.5
    """
    return float(_check_sets(sets).sum(axis=1).mean())


def coverage(sets: ArrayLike, y: ArrayLike) -> float:
    """Share of test items whose true option is in their set.

    >>> coverage(np.array([[True, True, False], [True, False, False]]), [1, 2])
    0.5
    """
    s = _check_sets(sets)
    y = _check_labels(y, "y", s.shape[0], s.shape[1])
    return float(s[np.arange(s.shape[0]), y].mean())


def accuracy(scores: ArrayLike, y: ArrayLike) -> float:
    """Share of items whose top-scoring option (``np.argmax``, first on ties) is the true one.

    ``scores`` may be logits or probabilities: the argmax is the same.

    >>> accuracy([[2.0, 1.0], [0.0, 3.0], [1.0, 1.0]], [0, 0, 0])
    0.6666666666666666
    """
    z = check_array(check_unmasked(scores, "scores"), "scores", ndim=2)
    y = _check_labels(y, "y", z.shape[0], z.shape[1])
    return float((np.argmax(z, axis=1) == y).mean())


def inclusion_probabilities(sets: ArrayLike) -> np.ndarray:
    """Empirical ``P(y in C(X))`` for each option y: the column means of ``sets``.

    Their sum is the mean set size, ``E|C(X)| = sum_y P(y in C(X))`` (linearity
    of expectation applied to ``|C| = sum_y 1{y in C}``).

    >>> s = np.array([[True, True, False], [True, False, False]])
    >>> inclusion_probabilities(s), float(inclusion_probabilities(s).sum()) == set_size(s)
    (array([1. , 0.5, 0. ]), True)
    """
    return _check_sets(sets).mean(axis=0)
