"""Spectral clustering of a judged graph and the semantic spectral entropy.

Liu (2025, Algorithm 1) clusters the graph whose edge ``E_ij = 1`` says that
the judge found texts ``i`` and ``j`` equivalent: form a Laplacian, take ``K``
eigenvectors, run k-means on their rows, and report the entropy of the
cluster sizes.  The paper's main text writes the unnormalised Laplacian
``L = D - E`` (its ``K`` *smallest* eigenvectors carry the clusters); the
theory in its appendix follows Su et al. (2019) and uses the normalised
matrix ``D^{-1/2} E D^{-1/2}`` (its ``K`` *largest* eigenvectors).  Both are
offered here.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
import scipy.sparse.linalg as sla
from sklearn.cluster import KMeans

from ._validation import check_adjacency, check_int, check_random_state
from .entropy import empirical_entropy

__all__ = ["spectral_embedding", "spectral_clusters", "spectral_entropy", "canonical_labels"]

_LAPLACIANS = ("normalized", "unnormalized")
DENSE_LIMIT = 2000  # below this many nodes a dense eigensolver is used


def canonical_labels(labels) -> np.ndarray:
    """Relabel clusters 0, 1, 2, ... in order of first appearance.

    >>> canonical_labels([5, 5, 2, 9, 2]).tolist()
    [0, 0, 1, 2, 1]
    """
    arr = np.asarray(labels)
    _, first, inverse = np.unique(arr, return_index=True, return_inverse=True)
    order = np.argsort(np.argsort(first))
    return order[inverse].astype(np.int64)


def spectral_embedding(adjacency, k: int, *, laplacian: str = "normalized") -> np.ndarray:
    """Rows of the ``k`` eigenvectors that carry the block structure.

    Parameters
    ----------
    adjacency : array-like or scipy sparse matrix of shape (n, n)
        Symmetric, non-negative judged graph.
    k : int
        Number of eigenvectors, ``1 <= k <= n``.
    laplacian : {"normalized", "unnormalized"}
        ``"normalized"``: the ``k`` largest eigenvectors of
        ``D^{-1/2} A D^{-1/2}`` (Su et al. 2019; Liu 2025, appendix A).
        ``"unnormalized"``: the ``k`` smallest eigenvectors of ``L = D - A``
        (Liu 2025, section 2.2).

    Returns
    -------
    ndarray of shape (n, k)
    """
    A = check_adjacency(adjacency)
    n = A.shape[0]
    k = check_int(k, "k", low=1, high=n)
    if laplacian not in _LAPLACIANS:
        raise ValueError(f"laplacian must be one of {_LAPLACIANS}, got {laplacian!r}")
    deg = np.asarray(A.sum(axis=1)).ravel()
    if laplacian == "normalized":
        isolated = deg == 0
        if isolated.any():
            warnings.warn(
                f"{int(isolated.sum())} node(s) have no edges; their rows of the embedding are zero",
                RuntimeWarning,
                stacklevel=2,
            )
        inv_sqrt = np.zeros_like(deg)
        inv_sqrt[~isolated] = 1.0 / np.sqrt(deg[~isolated])
        if sp.issparse(A):
            Dm = sp.diags_array(inv_sqrt)
            M = Dm @ A @ Dm
        else:
            M = A * inv_sqrt[:, None] * inv_sqrt[None, :]
        which_large = True
    else:
        if sp.issparse(A):
            M = sp.diags_array(deg) - A
        else:
            M = np.diag(deg) - A
        which_large = False
    return _eigvecs(M, k, largest=which_large)


def _eigvecs(M, k: int, *, largest: bool) -> np.ndarray:
    n = M.shape[0]
    if n <= DENSE_LIMIT or k >= n - 1:
        dense = M.toarray() if sp.issparse(M) else np.asarray(M)
        idx = [n - k, n - 1] if largest else [0, k - 1]
        _, vecs = la.eigh(dense, subset_by_index=idx)
        return vecs[:, ::-1] if largest else vecs
    M = sp.csr_array(M)
    v0 = np.ones(n) / np.sqrt(n)
    vals, vecs = sla.eigsh(M, k=k, which="LA" if largest else "SA", v0=v0)
    order = np.argsort(vals)
    if largest:
        order = order[::-1]
    return vecs[:, order]


def spectral_clusters(
    adjacency,
    k: int,
    *,
    laplacian: str = "normalized",
    n_init: int = 10,
    random_state=None,
) -> np.ndarray:
    """Cluster the nodes of a judged graph into ``k`` groups (Liu 2025, Algorithm 1).

    Parameters
    ----------
    adjacency : array-like or scipy sparse matrix of shape (n, n)
        Symmetric, non-negative, finite judged graph (dense or sparse).
    k : int
        Number of clusters, ``1 <= k <= n``.
    laplacian : {"normalized", "unnormalized"}
        Which spectral matrix to use; see :func:`spectral_embedding`.
    n_init : int
        Number of k-means restarts.
    random_state : None, int or numpy.random.Generator
        Seeds k-means.

    Returns
    -------
    ndarray of shape (n,)
        Integer labels ``0..k-1`` numbered by first appearance.

    Raises
    ------
    ValueError
        For a non-square, non-symmetric, negative or non-finite adjacency, or
        ``k`` outside ``[1, n]``.

    Examples
    --------
    Two triangles joined by nothing are recovered exactly:

    >>> import numpy as np
    >>> A = np.kron(np.eye(2), np.ones((3, 3))) - np.eye(6)
    >>> spectral_clusters(A, 2, random_state=0).tolist()
    [0, 0, 0, 1, 1, 1]
    """
    A = check_adjacency(adjacency)
    n = A.shape[0]
    k = check_int(k, "k", low=1, high=n)
    n_init = check_int(n_init, "n_init", low=1)
    rng = check_random_state(random_state)
    if k == 1:
        return np.zeros(n, dtype=np.int64)
    U = spectral_embedding(A, k, laplacian=laplacian)
    seed = int(rng.integers(2**31 - 1))
    km = KMeans(n_clusters=k, n_init=n_init, random_state=seed)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Number of distinct clusters")
        labels = km.fit_predict(U)
    return canonical_labels(labels)


def spectral_entropy(adjacency, k: int, *, laplacian: str = "normalized", random_state=None) -> float:
    """Semantic spectral entropy: entropy of the sizes of the spectral clusters (Liu 2025, Alg. 1).

    >>> import numpy as np
    >>> A = np.kron(np.eye(2), np.ones((3, 3))) - np.eye(6)
    >>> round(spectral_entropy(A, 2, random_state=0), 6)
    0.693147
    """
    return empirical_entropy(spectral_clusters(adjacency, k, laplacian=laplacian, random_state=random_state))
