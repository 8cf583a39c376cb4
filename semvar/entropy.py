"""Entropy of a partition: the empirical (plug-in) entropy of cluster sizes.

Liu (2025), equation 5, measures semantic variability by the entropy of the
proportions of texts that fall in each meaning class,

.. math:: \\bar{\\mathcal E} = -\\sum_{k=1}^{K} \\frac{n_k}{n} \\log \\frac{n_k}{n},

with natural logarithms.  This module holds that estimator and needs nothing
but numpy; the spectral route from a judged graph to the labels is
:mod:`semvar.spectral`, and the whole path from texts to the entropy is
:mod:`semvar.pipeline`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._validation import check_label_codes, check_unmasked, drop_masked

__all__ = ["empirical_entropy", "entropy_from_counts"]


def entropy_from_counts(counts: ArrayLike) -> float:
    """Entropy (nats) of the distribution proportional to non-negative ``counts``.

    Parameters
    ----------
    counts : array-like of shape (K,)
        Non-negative cluster sizes; zeros contribute nothing.

    Returns
    -------
    float
        :math:`-\\sum_k (c_k/n)\\log(c_k/n)` with :math:`n = \\sum_k c_k`.

    Raises
    ------
    ValueError
        If ``counts`` is not 1-D, has a negative or non-finite entry, sums to
        zero, or is a masked array with a masked entry (an unknown count has
        no share to leave out).

    Examples
    --------
    >>> round(entropy_from_counts([2, 2]), 6)
    0.693147
    >>> round(entropy_from_counts([1e308, 1e308]), 6)  # no overflow: only the proportions matter
    0.693147
    """
    c = np.asarray(check_unmasked(counts, "counts"), dtype=float)
    if c.ndim != 1 or c.size == 0:
        raise ValueError(f"counts must be a non-empty 1-D array, got shape {c.shape}")
    if not np.all(np.isfinite(c)) or np.any(c < 0):
        raise ValueError("counts must be finite and non-negative")
    if c.max() <= 0:
        raise ValueError("counts must not all be zero")
    c = c[c > 0]
    with np.errstate(over="ignore"):
        total = c.sum()
    if not np.isfinite(total):  # counts near the float maximum: scale first (the proportions do not change)
        c = c / c.max()
        total = c.sum()
    prop = c / total
    return float(-(prop * np.log(prop)).sum()) + 0.0  # + 0.0: one cluster gives 0.0, not -0.0


def empirical_entropy(labels: ArrayLike) -> float:
    """Plug-in entropy (nats) of the cluster sizes given by ``labels`` (Liu 2025, eq. 5).

    Parameters
    ----------
    labels : array-like of shape (n,)
        Cluster label of each text: hashable values of one kind (numbers,
        strings, ...), compared as given.  Only the sizes of the clusters
        matter, so the result is invariant to relabelling.  A masked entry of
        a :class:`numpy.ma.MaskedArray` is a text without a label and is left
        out.

    Returns
    -------
    float
        A value in ``[0, log K]`` where ``K`` is the number of distinct labels.

    Raises
    ------
    ValueError
        If ``labels`` is empty (or every entry is masked) or not 1-D, holds
        None or NaN, or mixes kinds of label (``1`` and ``"1"``).

    Examples
    --------
    Four answers "Paris, Paris, London, London" form two meanings of equal size:

    >>> round(empirical_entropy(["Paris", "Paris", "London", "London"]), 6)
    0.693147
    >>> empirical_entropy([3, 3, 3])
    0.0
    """
    (labels,) = drop_masked([labels], ["labels"])
    codes, _ = check_label_codes(labels)
    return entropy_from_counts(np.bincount(codes))
