"""Entropy of a partition: the empirical (plug-in) entropy of cluster sizes.

Liu (2025), equation 5, measures semantic variability by the entropy of the
proportions of texts that fall in each meaning class,

.. math:: \\bar{\\mathcal E} = -\\sum_{k=1}^{K} \\frac{n_k}{n} \\log \\frac{n_k}{n},

with natural logarithms.  This module holds that estimator; the spectral route
from a judged graph to the labels is :mod:`semvar.spectral`.
"""

from __future__ import annotations

import numpy as np

from ._validation import check_labels

__all__ = ["empirical_entropy", "entropy_from_counts", "semantic_spectral_entropy"]


def entropy_from_counts(counts) -> float:
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
        If ``counts`` is not 1-D, has a negative or non-finite entry, or sums to zero.

    Examples
    --------
    >>> round(entropy_from_counts([2, 2]), 6)
    0.693147
    """
    c = np.asarray(counts, dtype=float)
    if c.ndim != 1 or c.size == 0:
        raise ValueError(f"counts must be a non-empty 1-D array, got shape {c.shape}")
    if not np.all(np.isfinite(c)) or np.any(c < 0):
        raise ValueError("counts must be finite and non-negative")
    total = c.sum()
    if total <= 0:
        raise ValueError("counts must not all be zero")
    prop = c[c > 0] / total
    return float(-(prop * np.log(prop)).sum())


def empirical_entropy(labels) -> float:
    """Plug-in entropy (nats) of the cluster sizes given by ``labels`` (Liu 2025, eq. 5).

    Parameters
    ----------
    labels : array-like of shape (n,)
        Cluster label of each text; any hashable values.  Only the sizes of
        the clusters matter, so the result is invariant to relabelling.

    Returns
    -------
    float
        A value in ``[0, log K]`` where ``K`` is the number of distinct labels.

    Raises
    ------
    ValueError
        If ``labels`` is empty or not 1-D.

    Examples
    --------
    Four answers "Paris, Paris, London, London" form two meanings of equal size:

    >>> round(empirical_entropy(["Paris", "Paris", "London", "London"]), 6)
    0.693147
    >>> empirical_entropy([3, 3, 3])
    0.0
    """
    arr = check_labels(labels)
    _, counts = np.unique(arr, return_counts=True)
    return entropy_from_counts(counts)


def semantic_spectral_entropy(
    texts,
    judge,
    k,
    *,
    laplacian: str = "normalized",
    k_max: int = 10,
    random_state=None,
    return_labels: bool = False,
):
    """Semantic spectral entropy of ``texts`` end to end (Liu 2025, Algorithm 1).

    Ask ``judge`` about every unordered pair of texts, assemble the judged
    graph, cluster it spectrally into ``k`` groups and return the plug-in
    entropy (eq. 5) of the cluster sizes.

    Parameters
    ----------
    texts : sequence of str
        The ``n`` texts.
    judge : Judge
        Anything with ``pairs(texts, pairs) -> bool array`` (see :mod:`semvar.judges`).
    k : int or {"ncv", "eigengap"}
        Number of meanings, ``1 <= k <= n``; or the name of a rule that
        chooses it from the judged graph (:func:`semvar.select_k.choose_k`).
    laplacian : {"normalized", "unnormalized"}
        Spectral matrix; see :func:`semvar.spectral.spectral_embedding`.
    k_max : int
        Largest ``k`` a selection rule may return (ignored for an int ``k``).
    random_state : None, int or numpy.random.Generator
        Seeds k-means (and the selection rule).
    return_labels : bool
        Also return the cluster labels.

    Returns
    -------
    entropy : float
        :math:`\\hat{\\mathcal E} = -\\sum_j \\hat p_j \\log \\hat p_j` in nats.
    labels : ndarray of shape (n,), only if ``return_labels``

    Raises
    ------
    ValueError
        For empty ``texts``, an invalid ``k`` or ``laplacian``, or a judge that
        does not follow the protocol.

    Notes
    -----
    Each unordered pair is judged once (``n(n-1)/2`` calls) rather than each
    ordered pair as the paper's Algorithm 1 writes; for a symmetric judge the
    two are the same, for an asymmetric one the second verdict is extra noise.

    Examples
    --------
    >>> from semvar.judges import OracleJudge
    >>> texts = ["Paris", "It is Paris", "London", "It is London"]
    >>> round(semantic_spectral_entropy(texts, OracleJudge([0, 0, 1, 1]), 2, random_state=0), 6)
    0.693147
    """
    from .graph import judge_graph
    from .spectral import spectral_clusters
    from ._validation import check_int, check_random_state

    if isinstance(texts, str):
        raise ValueError("texts must be a sequence of strings, got a single string")
    texts = list(texts)
    if not texts:
        raise ValueError("texts must not be empty")
    if not callable(getattr(judge, "pairs", None)):
        raise ValueError(f"judge must have a pairs(texts, pairs) method, got {type(judge).__name__}")
    if laplacian not in ("normalized", "unnormalized"):
        raise ValueError(f"laplacian must be 'normalized' or 'unnormalized', got {laplacian!r}")
    rng = check_random_state(random_state)
    n = len(texts)
    if isinstance(k, str):
        if k not in ("ncv", "eigengap"):
            raise ValueError(f"k must be an int or one of 'ncv', 'eigengap', got {k!r}")
    else:
        k = check_int(k, "k", low=1, high=n)
    A = judge_graph(judge, texts)
    if isinstance(k, str):
        from .select_k import choose_k

        k = choose_k(A, method=k, k_max=min(check_int(k_max, "k_max", low=1), n), random_state=rng)
    labels = spectral_clusters(A, k, laplacian=laplacian, random_state=rng)
    h = empirical_entropy(labels)
    return (h, labels) if return_labels else h
