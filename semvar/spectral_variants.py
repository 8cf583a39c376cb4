"""Variants of semantic spectral entropy for weak or noisy judges.

Semantic spectral entropy (Liu 2025, Algorithm 1; :mod:`semvar.pipeline`)
turns a judged graph into a number in three steps that can each go wrong on
real data: it **thresholds** the judge's scores into TRUE/FALSE verdicts, it
**chooses K**, the number of meanings, and it **clusters** the graph into K
groups before it counts their sizes.  The variants here drop one or more of
those steps:

- :func:`von_neumann_entropy` needs no K and no clustering.  For an
  equivalence relation with classes of sizes ``n_1, ..., n_K`` the matrix
  ``W = A + I`` (the verdicts with each text equivalent to itself) is
  ``Z Z^T``, with ``Z`` the ``n x K`` class-indicator matrix, so
  ``rho = W / n`` is positive semi-definite with trace 1 and eigenvalues
  ``n_k / n``: its von Neumann entropy ``-tr(rho log rho)`` *is* the plug-in
  entropy of the partition (Liu's eq. 5).  For a noisy judge it changes
  smoothly with the verdicts instead of jumping with a K.  Given a
  similarity with unit diagonal (a cosine Gram matrix) instead of verdicts,
  it needs no threshold either: it is then the logarithm of the Vendi score
  (Friedman & Dieng 2023) and a special case of kernel language entropy
  (Nikitin et al. 2024).
- :func:`spectral_entropy_given_k_rule` is Algorithm 1 on the judged graph
  with ``K`` chosen by a rule that reads the spectrum of ``rho`` instead of a
  block-model likelihood: the number of eigenvalues of ``rho`` of at least
  ``1/n`` -- the meanings that hold at least one text's worth of weight.

None of these replaces the book's default in :mod:`semvar.pipeline`; they are
compared with it, with the same intervals, in the chapter on one model's
samples.

References
----------
Liu (2025), A statistically consistent measure of semantic variability using
language models, Algorithm 1 and eq. (5).  Friedman & Dieng (2023), The Vendi
score: a diversity evaluation metric for machine learning (TMLR).  Nikitin,
Kossen, Gal & Marttinen (2024), Kernel language entropy: fine-grained
uncertainty quantification for LLMs from semantic similarities (NeurIPS).
"""

from __future__ import annotations

from typing import Literal, overload

import numpy as np
from numpy.typing import ArrayLike

from . import spectral
from ._validation import RandomStateLike, check_array, check_bool, check_random_state
from .entropy import empirical_entropy
from .spectral import canonical_labels

__all__ = ["density_matrix", "von_neumann_entropy", "effective_k", "spectral_entropy_given_k_rule", "EIGEN_TOL"]

#: Eigenvalues of the density matrix below this are treated as 0 (they are rounding noise of a zero).
EIGEN_TOL = 1e-10


def _check_similarity(similarity, name: str = "similarity") -> np.ndarray:
    W = check_array(similarity, name, ndim=2)
    if W.shape[0] != W.shape[1] or W.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty square matrix, got shape {W.shape}")
    if np.abs(W - W.T).max() > 1e-8:
        raise ValueError(f"{name} must be symmetric; largest |W - W.T| is {np.abs(W - W.T).max():.3g}")
    off = W[~np.eye(W.shape[0], dtype=bool)]
    if off.size and (off.min() < -1.0 - 1e-9 or off.max() > 1.0 + 1e-9):
        raise ValueError(f"{name} must hold similarities in [-1, 1] (verdicts 0/1 or cosines), "
                         f"found values from {off.min():.4g} to {off.max():.4g}")
    return W


def _density(W: np.ndarray) -> np.ndarray:
    rho = (W + W.T) / 2.0
    np.fill_diagonal(rho, 1.0)
    return rho / rho.shape[0]


def _spectrum(W: np.ndarray) -> np.ndarray:
    """Eigenvalues of the density matrix of ``W``, negatives clipped to 0, renormalised to sum 1 (descending)."""
    lam = np.linalg.eigvalsh(_density(W))[::-1]
    lam = np.where(lam > EIGEN_TOL, lam, 0.0)
    return lam / lam.sum()


def density_matrix(similarity: ArrayLike) -> np.ndarray:
    """The trace-one matrix ``rho = W / n`` of a judged graph or similarity, with ``W_ii = 1``.

    Parameters
    ----------
    similarity : array-like of shape (n, n)
        Symmetric; off-diagonal entries in ``[-1, 1]``: 0/1 verdicts (a
        judged graph's adjacency) or similarities such as cosines.  The
        diagonal is ignored and set to 1 (each text is equivalent to itself).

    Returns
    -------
    ndarray of shape (n, n)
        ``rho``, symmetric with trace 1.

    Raises
    ------
    ValueError
        For a matrix that is not square, not symmetric, empty, not finite or
        has an off-diagonal entry outside ``[-1, 1]``.

    Examples
    --------
    >>> density_matrix([[0, 1], [1, 0]]).tolist()
    [[0.5, 0.5], [0.5, 0.5]]
    """
    return _density(_check_similarity(similarity))


def von_neumann_entropy(similarity: ArrayLike) -> float:
    """Von Neumann entropy ``-tr(rho log rho)`` of the density matrix of a judged graph (nats); needs no K.

    Parameters
    ----------
    similarity : array-like of shape (n, n)
        Symmetric; off-diagonal entries in ``[-1, 1]``: 0/1 verdicts or
        similarities (e.g. cosines).  The diagonal is set to 1.

    Returns
    -------
    float
        :math:`S = -\\sum_i \\lambda_i \\log \\lambda_i` over the eigenvalues
        :math:`\\lambda_i` of :math:`\\rho = W/n` (:func:`density_matrix`),
        after negative eigenvalues (and those below :data:`EIGEN_TOL`) are set
        to 0 and the rest renormalised to sum 1.  ``0 <= S <= log n``.

    Raises
    ------
    ValueError
        As :func:`density_matrix`.

    Notes
    -----
    **Why it equals the plug-in entropy on an equivalence relation.**  If the
    verdicts are an equivalence relation with classes :math:`C_1, \\dots,
    C_K` of sizes :math:`n_k`, then :math:`W = A + I = Z Z^\\top` with
    :math:`Z_{ik} = 1[i \\in C_k]`.  :math:`Z^\\top Z = \\mathrm{diag}(n_k)`,
    so the non-zero eigenvalues of :math:`Z Z^\\top / n` are those of
    :math:`\\mathrm{diag}(n_k)/n`, that is :math:`n_k / n`, and
    :math:`S = -\\sum_k (n_k/n) \\log (n_k/n)`: Liu's eq. (5) with the true
    classes, without choosing K or clustering.

    A judge whose verdicts are not transitive gives a ``W`` that need not be
    positive semi-definite; clipping its negative eigenvalues is the nearest
    (Frobenius) positive semi-definite matrix, renormalised to trace 1.  A
    cosine Gram matrix ``U U^T`` of unit vectors is positive semi-definite
    already; its entropy is the logarithm of the Vendi score of Friedman &
    Dieng (2023), and a kernel language entropy of Nikitin et al. (2024)
    with the cosine kernel.

    References
    ----------
    Liu (2025), eq. (5); Friedman & Dieng (2023); Nikitin et al. (2024).

    Examples
    --------
    Four answers "Paris, Paris, London, London" judged by the oracle:

    >>> A = [[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]]
    >>> round(von_neumann_entropy(A), 6)  # log 2
    0.693147
    >>> round(von_neumann_entropy(np.ones((3, 3))), 6)  # one meaning
    0.0
    """
    lam = _spectrum(_check_similarity(similarity))
    lam = lam[lam > 0]
    return float(max(0.0, -(lam * np.log(lam)).sum()))


def effective_k(similarity: ArrayLike) -> int:
    """The number of eigenvalues of the density matrix of at least ``1/n``: meanings worth one text or more.

    Parameters
    ----------
    similarity : array-like of shape (n, n)
        As for :func:`von_neumann_entropy`.

    Returns
    -------
    int
        ``#{i : lambda_i >= 1/n}`` (at least 1), with :math:`\\lambda_i` the
        clipped, renormalised eigenvalues of :func:`density_matrix`.

    Raises
    ------
    ValueError
        As :func:`density_matrix`.

    Notes
    -----
    On an equivalence relation the eigenvalues are the class shares
    :math:`n_k/n \\ge 1/n`, so the rule returns ``K`` exactly, singletons
    included.  A spurious eigenvalue that a noisy judge adds carries weight
    below one text's (1/n) unless it is backed by a group of answers, which
    is the point: an answer that agrees weakly with a large class does not
    become a meaning of its own, as it does under a rule that counts an
    isolated or weakly connected text as a cluster.  A tolerance of
    ``1e-9 / n`` absorbs rounding at exactly ``1/n``.

    Examples
    --------
    >>> A = np.kron(np.eye(2), np.ones((3, 3))) - np.eye(6)  # two triangles
    >>> effective_k(A)
    2
    >>> effective_k(np.zeros((4, 4)))  # nobody agrees: four meanings
    4
    """
    W = _check_similarity(similarity)
    return _effective_k(W)


def _effective_k(W: np.ndarray) -> int:
    lam = _spectrum(W)
    n = W.shape[0]
    return max(1, int(np.count_nonzero(lam >= (1.0 - 1e-9) / n)))


@overload
def spectral_entropy_given_k_rule(
    adjacency: ArrayLike, *, random_state: RandomStateLike = ..., return_labels: Literal[False] = ...,
) -> float: ...
@overload
def spectral_entropy_given_k_rule(
    adjacency: ArrayLike, *, random_state: RandomStateLike = ..., return_labels: Literal[True],
) -> tuple[float, np.ndarray]: ...
@overload
def spectral_entropy_given_k_rule(
    adjacency: ArrayLike, *, random_state: RandomStateLike = ..., return_labels: bool,
) -> float | tuple[float, np.ndarray]: ...
def spectral_entropy_given_k_rule(
    adjacency: ArrayLike, *, random_state: RandomStateLike = None, return_labels: bool = False,
) -> float | tuple[float, np.ndarray]:
    """Algorithm 1 of Liu (2025) with K from the density-matrix rule (:func:`effective_k`).

    Parameters
    ----------
    adjacency : array-like of shape (n, n)
        A judged graph: symmetric, 0/1 (or weights in [0, 1]) off the
        diagonal; the diagonal is ignored.
    random_state : None, int or numpy.random.Generator, default=None
        Seeds k-means.
    return_labels : bool, default=False
        Also return the cluster labels.

    Returns
    -------
    entropy : float
        The plug-in entropy (nats) of the sizes of the ``K`` spectral clusters.
    labels : ndarray of shape (n,), only if ``return_labels``

    Raises
    ------
    ValueError
        For an adjacency that is not square, symmetric, finite, or has a
        weight outside ``[0, 1]``; an invalid ``random_state``.

    Notes
    -----
    ``K = effective_k(adjacency)``; then the ``K`` leading eigenvectors of
    the normalised matrix ``D^{-1/2} A D^{-1/2}`` are clustered by k-means
    (ten restarts), as in :func:`semvar.pipeline.graph_entropy` with a given
    K.  A text with no TRUE verdict has a zero row in that embedding; it is
    put in a cluster of its own first (each such text is one of the
    ``K`` meanings), and the rest are clustered into the remaining number.

    Examples
    --------
    >>> A = np.kron(np.eye(2), np.ones((3, 3))) - np.eye(6)
    >>> round(spectral_entropy_given_k_rule(A, random_state=0), 6)
    0.693147
    """
    A = check_array(adjacency, "adjacency", ndim=2)
    if A.shape[0] != A.shape[1] or A.shape[0] == 0:
        raise ValueError(f"adjacency must be a non-empty square matrix, got shape {A.shape}")
    A = A.copy()
    np.fill_diagonal(A, 0.0)
    if A.size and (A.min() < 0 or A.max() > 1):
        raise ValueError(f"adjacency must hold weights in [0, 1], found values from {A.min():.4g} to {A.max():.4g}")
    if np.abs(A - A.T).max() > 1e-8:
        raise ValueError("adjacency must be symmetric")
    check_bool(return_labels, "return_labels")
    rng = check_random_state(random_state)
    labels = _k_rule_labels(A, rng)
    h = empirical_entropy(labels)
    return (h, labels) if return_labels else h


def _k_rule_labels(A: np.ndarray, rng) -> np.ndarray:
    n = A.shape[0]
    k = _effective_k(A)
    isolated = A.sum(axis=1) == 0
    m = int(isolated.sum())
    labels = np.empty(n, dtype=np.int64)
    labels[isolated] = np.arange(m)
    core = ~isolated
    nc = int(core.sum())
    kc = min(max(k - m, 1), nc) if nc else 0
    if nc:
        if kc <= 1:
            labels[core] = m
        else:
            # Algorithm 1 on the texts with an edge (checked above), with the numpy k-means
            sub = A[np.ix_(core, core)]
            labels[core] = m + spectral.spectral_clusters(sub, kc, random_state=rng, check_input=False, kmeans="numpy")
    return canonical_labels(labels)

