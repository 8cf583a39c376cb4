"""Spectral clustering of a judged graph.

Liu (2025, Algorithm 1) clusters the graph whose edge ``E_ij = 1`` says that
the judge found texts ``i`` and ``j`` equivalent: form a Laplacian, take ``K``
eigenvectors, run k-means on their rows.  The paper's main text writes the
unnormalised Laplacian ``L = D - E`` (its ``K`` *smallest* eigenvectors carry
the clusters); the theory in its appendix follows Su et al. (2019) and uses
the normalised matrix ``D^{-1/2} E D^{-1/2}`` (its ``K`` *largest*
eigenvectors).  Both are offered here.  The entropy of the cluster sizes,
the last step of Algorithm 1, is :mod:`semvar.pipeline`'s.

Two further forms serve designs that judge only some pairs (chapter 6):
``"regularized"`` adds ``tau/n`` to every entry before normalising (Amini et
al. 2013; Qin & Rohe 2013), which stops isolated and low-degree texts from
dominating a sparse graph's spectrum; ``"centered"`` subtracts the mean
verdict from every *asked* pair (``A - rho O``), which removes the noise of
the design itself and the uninformative degree direction, the failure mode
of judges that often say TRUE across meanings.  For sparse input above a few
hundred texts none of them forms an ``n x n`` dense matrix: each is applied
as an operator (a sparse product plus rank-one terms) inside ARPACK's
Lanczos solver.  :func:`spectral_matrix` returns each matrix explicitly, or
as the operator the solver uses, and :func:`leading_eigenpairs` the leading
eigenpairs of the normalised matrix from that solver (the rules of
:mod:`semvar.select_k` read large sparse graphs through it).

The public functions check their input once; the private functions they
call (``_spectral_clusters``, ``_embed``, ...) take checked input.
"""

from __future__ import annotations

import warnings
from typing import cast

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
import scipy.sparse.linalg as sla
from numpy.typing import ArrayLike
from sklearn.cluster import KMeans

from ._kmeans import kmeans as _numpy_kmeans
from ._validation import (
    RandomStateLike,
    check_adjacency,
    check_bool,
    check_int,
    check_label_codes,
    check_laplacian,
    check_observed,
    check_option,
    check_random_state,
    check_real,
)

__all__ = ["spectral_matrix", "spectral_embedding", "spectral_clusters", "canonical_labels", "leading_eigenpairs"]

DENSE_LIMIT = 2000  # below this many nodes a dense eigensolver is used
OPERATOR_DENSE_LIMIT = 300  # the same for the "regularized" and "centered" operators


def canonical_labels(labels: ArrayLike) -> np.ndarray:
    """Relabel clusters 0, 1, 2, ... in order of first appearance.

    >>> canonical_labels([5, 5, 2, 9, 2]).tolist()
    [0, 0, 1, 2, 1]

    Labels are compared as the values given: ``1`` and ``"1"`` are refused
    together, ``"a"`` and ``"a\\x00"`` are two clusters.
    """
    if isinstance(labels, np.ndarray) and labels.dtype.kind in "iub" and not isinstance(labels, np.ma.MaskedArray):
        arr = labels  # integer labels (the package's own): nothing to convert
    else:
        arr = check_label_codes(labels)[0]
    _, first, inverse = np.unique(arr, return_index=True, return_inverse=True)
    order = np.argsort(np.argsort(first))
    return order[inverse].astype(np.int64)


def _check_spectral_input(adjacency, laplacian, tau, observed):
    """The checks shared by the public functions: adjacency, laplacian, tau, observed."""
    A = check_adjacency(adjacency)
    check_laplacian(laplacian, tau=tau, observed=observed)
    if tau is not None:
        tau = check_real(tau, "tau", low=0.0)
    O = None if observed is None else check_observed(observed, A)
    return A, tau, O


# --------------------------------------------------------------------------- the matrices
def spectral_matrix(
    adjacency: ArrayLike | sp.sparray | sp.spmatrix, laplacian: str = "normalized", *, tau: float | None = None,
    observed: ArrayLike | sp.sparray | sp.spmatrix | None = None, operator: bool = False,
) -> np.ndarray | sp.csr_array | sla.LinearOperator:
    """The matrix whose eigenvectors :func:`spectral_embedding` takes.

    Parameters
    ----------
    adjacency : array-like or scipy sparse matrix of shape (n, n)
        Symmetric, non-negative, finite judged graph ``A`` with degrees
        ``d_i = sum_j A_ij`` and ``D = diag(d)``.
    laplacian : {"normalized", "unnormalized", "regularized", "centered"}, default="normalized"
        ``"normalized"``: ``D^{-1/2} A D^{-1/2}`` (Liu 2025, appendix A; rows
        and columns of isolated nodes are zero).
        ``"unnormalized"``: ``L = D - A`` (Liu 2025, section 2.2).
        ``"regularized"``: ``D_tau^{-1/2} (A + (tau/n) 1 1^T) D_tau^{-1/2}``
        with ``D_tau = D + tau I`` (Amini et al. 2013; Qin & Rohe 2013).
        ``"centered"``: ``A - rho O`` with ``O`` the 0/1 matrix of observed
        pairs and ``rho = sum(A) / sum(O)`` the share of observed pairs judged
        equivalent.
    tau : float or None, default=None
        Regularisation for ``"regularized"``, ``tau >= 0``; None: the mean degree.
    observed : array-like or sparse matrix of shape (n, n), optional
        Observed-pair mask for ``"centered"``; None: every pair ``i != j``
        observed (``O = J - I``).
    operator : bool, default=False
        Return a :class:`scipy.sparse.linalg.LinearOperator` that applies the
        matrix without storing it (the form the eigensolver uses for large
        sparse graphs) instead of the matrix itself.

    Returns
    -------
    ndarray, scipy.sparse.csr_array or LinearOperator of shape (n, n)
        The explicit matrix is sparse when ``adjacency`` is sparse and the
        matrix is (``"normalized"``, ``"unnormalized"``, ``"centered"`` with
        a sparse ``observed``); otherwise a dense ndarray.  ``"regularized"``
        and ``"centered"`` without a mask are dense by nature: for a large
        graph ask for ``operator=True``.

    Raises
    ------
    ValueError
        For a bad adjacency, ``laplacian``, ``tau`` or ``observed``, or
        ``"regularized"`` with ``tau = 0`` and an isolated node.

    Notes
    -----
    :func:`spectral_embedding` takes the ``k`` largest eigenvectors of this
    matrix (the ``k - 1`` largest for ``"centered"``), or the ``k`` smallest
    for ``"unnormalized"``.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]])
    >>> spectral_matrix(A, "unnormalized").astype(int).tolist()
    [[2, -1, -1], [-1, 1, 0], [-1, 0, 1]]
    >>> np.round(spectral_matrix(A, "centered"), 3).tolist()  # rho = 4 / 6
    [[0.0, 0.333, 0.333], [0.333, 0.0, -0.667], [0.333, -0.667, 0.0]]
    """
    A, tau, O = _check_spectral_input(adjacency, laplacian, tau, observed)
    check_bool(operator, "operator")
    deg = _degrees(A)
    if operator:
        return _operator(A, laplacian, deg, tau, O)
    return _matrix(A, laplacian, deg, tau, O)


def _degrees(A) -> np.ndarray:
    return np.asarray(A.sum(axis=1)).ravel()


def _inv_sqrt_degrees(deg: np.ndarray, *, warn: bool = False) -> np.ndarray:
    """``1 / sqrt(d)`` with 0 for isolated nodes (optionally warning about them)."""
    isolated = deg == 0
    if warn and isolated.any():
        warnings.warn(
            f"{int(isolated.sum())} node(s) have no edges; their rows of the embedding are zero",
            RuntimeWarning,
            stacklevel=4,
        )
    inv_sqrt = np.zeros_like(deg)
    inv_sqrt[~isolated] = 1.0 / np.sqrt(deg[~isolated])
    return inv_sqrt


def _regularizer(n: int, deg: np.ndarray, tau):
    """The row scaling ``s = (d + tau)^{-1/2}`` and the added constant ``c = tau / n``."""
    if tau is None:
        tau = float(deg.mean())
    dtau = deg + tau
    if np.any(dtau <= 0):
        raise ValueError("laplacian='regularized' needs tau > 0 when some node has no edges")
    return 1.0 / np.sqrt(dtau), tau / n


def _mean_verdict(A, O) -> float:
    """``rho``: the share of observed pairs judged equivalent (every pair observed when ``O`` is None)."""
    n = A.shape[0]
    if O is None:
        n_obs = n * (n - 1)
    else:
        n_obs = O.nnz if sp.issparse(O) else int(O.sum())
    return float(A.sum()) / n_obs if n_obs else 0.0


def _matrix(A, laplacian: str, deg: np.ndarray, tau, O):
    """The explicit spectral matrix of a checked adjacency (sparse where it is sparse)."""
    n = A.shape[0]
    if laplacian == "normalized":
        inv_sqrt = _inv_sqrt_degrees(deg)
        if sp.issparse(A):
            scale = sp.diags_array(inv_sqrt)
            return sp.csr_array(scale @ A @ scale)
        return A * inv_sqrt[:, None] * inv_sqrt[None, :]
    if laplacian == "unnormalized":
        return sp.csr_array(sp.diags_array(deg) - A) if sp.issparse(A) else np.diag(deg) - A
    if laplacian == "regularized":
        s, c = _regularizer(n, deg, tau)
        dense = A.toarray() if sp.issparse(A) else A
        return (dense + c) * s[:, None] * s[None, :]
    rho = _mean_verdict(A, O)
    if O is None:
        dense = A.toarray() if sp.issparse(A) else A
        return dense - rho * (np.ones((n, n)) - np.eye(n))
    if sp.issparse(A) and sp.issparse(O):
        return sp.csr_array(A - rho * O)
    dense = A.toarray() if sp.issparse(A) else A
    return dense - rho * (O.toarray() if sp.issparse(O) else O)


def _operator(A, laplacian: str, deg: np.ndarray, tau, O) -> sla.LinearOperator:
    """The spectral matrix of a checked adjacency as a matrix-free operator (nothing ``n x n`` stored)."""
    n = A.shape[0]
    if laplacian == "normalized":
        inv_sqrt = _inv_sqrt_degrees(deg)
        return _normalized_operator(A, inv_sqrt)
    if laplacian == "unnormalized":
        return sla.aslinearoperator(sp.diags_array(deg) - A if sp.issparse(A) else np.diag(deg) - A)
    if laplacian == "regularized":
        s, c = _regularizer(n, deg, tau)
        return _regularized_operator(A, s, c)
    return _centered_operator(A, O, _mean_verdict(A, O))


def _normalized_operator(A, inv_sqrt: np.ndarray) -> sla.LinearOperator:
    # D^{-1/2} A D^{-1/2} as an operator: no second n x n matrix is stored
    n = A.shape[0]
    return sla.LinearOperator((n, n), matvec=lambda x: inv_sqrt * (A @ (inv_sqrt * np.ravel(x))), dtype=float)


def _regularized_operator(A, s: np.ndarray, c: float) -> sla.LinearOperator:
    n = A.shape[0]
    return sla.LinearOperator(
        (n, n),
        matvec=lambda x: s * (A @ (s * np.ravel(x))) + c * s * np.dot(s, np.ravel(x)),
        dtype=float,
    )


def _centered_operator(A, O, rho: float) -> sla.LinearOperator:
    n = A.shape[0]
    if O is None:
        # A - rho (J - I): the all-pairs mask is never stored
        return sla.LinearOperator(
            (n, n), matvec=lambda x: A @ np.ravel(x) - rho * (np.sum(x) - np.ravel(x)), dtype=float
        )
    if not sp.issparse(A):
        A = sp.csr_array(A)
    if not sp.issparse(O):
        O = sp.csr_array(O)
    return sla.LinearOperator((n, n), matvec=lambda x: A @ np.ravel(x) - rho * (O @ np.ravel(x)), dtype=float)


# --------------------------------------------------------------------------- the embedding
def spectral_embedding(
    adjacency: ArrayLike | sp.sparray | sp.spmatrix,
    k: int,
    *,
    laplacian: str = "normalized",
    tau: float | None = None,
    observed: ArrayLike | sp.sparray | sp.spmatrix | None = None,
) -> np.ndarray:
    """Rows of the eigenvectors that carry the block structure.

    Parameters
    ----------
    adjacency : array-like or scipy sparse matrix of shape (n, n)
        Symmetric, non-negative judged graph.
    k : int
        Number of clusters the embedding should separate, ``1 <= k <= n``.
    laplacian : {"normalized", "unnormalized", "regularized", "centered"}, default="normalized"
        Which matrix of :func:`spectral_matrix` to use.
        ``"normalized"``: the ``k`` largest eigenvectors of
        ``D^{-1/2} A D^{-1/2}`` (Su et al. 2019; Liu 2025, appendix A).
        ``"unnormalized"``: the ``k`` smallest eigenvectors of ``L = D - A``
        (Liu 2025, section 2.2).
        ``"regularized"``: the ``k`` largest eigenvectors of
        ``D_tau^{-1/2} (A + (tau/n) 1 1^T) D_tau^{-1/2}`` with
        ``D_tau = D + tau I`` (Amini et al. 2013; Qin & Rohe 2013), rows
        scaled to unit length.  Never formed densely for sparse input.
        ``"centered"``: the ``k - 1`` largest eigenvectors of
        ``A - rho * O``, where ``O`` is the 0/1 matrix of observed pairs and
        ``rho`` the share of observed pairs judged equivalent; the constant
        "degree" direction is removed, so every eigenvector kept is
        informative.  Never formed densely for sparse input.
    tau : float or None, default=None
        Regularisation for ``"regularized"``; None: the mean degree.
    observed : array-like or sparse matrix of shape (n, n), optional
        Observed-pair mask for ``"centered"`` (as returned by
        :func:`semvar.graph.adjacency_from_verdicts` with ``return_mask``);
        default: every pair observed.

    Returns
    -------
    ndarray of shape (n, k), or (n, k - 1) for ``"centered"``

    Raises
    ------
    ValueError
        For a bad adjacency, ``k``, ``laplacian``, ``tau`` or ``observed``.

    Notes
    -----
    Why the regularised and centred forms exist.  In a sparse judged graph
    (few pairs asked) many texts have degree 0, 1 or 2; every connected
    component gives ``D^{-1/2} A D^{-1/2}`` an eigenvalue 1, so the leading
    eigenvectors are indicators of tiny components, not of meanings.  Adding
    ``tau/n`` to every entry joins the components and lifts small degrees
    to about ``tau``.  When the judge says TRUE often across meanings (large
    ``q``) the leading eigenvector of ``A`` is the near-constant degree
    direction; centring subtracts the expected verdict of an observed pair,
    ``rho``, from each observed entry, leaving a matrix whose expectation
    has ``K - 1`` non-zero eigenvalues, all carrying the partition.

    Ties.  Each column's sign is fixed (its entry of largest magnitude is
    positive).  When the ``k``-th eigenvalue equals the next (within
    ``1e-8`` times a bound on the matrix's norm; a graph with more connected
    components than ``k`` is the common case), the matrix does not determine
    which ``k`` vectors of the tied eigenspace to return, and an eigensolver
    picks them by its floating-point rounding, which differs from CPU to
    CPU.  On the dense path (``n <= 2000``) the tied columns are then the
    orthonormalised projections of fixed probe vectors onto the tied
    eigenspace: the same on every machine, and a convention, not a property
    of the graph.

    References
    ----------
    Amini, Chen, Bickel & Levina (2013); Qin & Rohe (2013); Le, Levina &
    Vershynin (2017).

    Examples
    --------
    >>> import numpy as np
    >>> A = np.kron(np.eye(2), np.ones((3, 3))) - np.eye(6)
    >>> U = spectral_embedding(A, 2, laplacian="centered")
    >>> U.shape, bool(np.sign(U[0, 0]) == -np.sign(U[5, 0]))
    ((6, 1), True)
    """
    A, tau, O = _check_spectral_input(adjacency, laplacian, tau, observed)
    k = check_int(k, "k", low=1, high=A.shape[0])
    return _embed(A, k, laplacian, tau, O)


def _embed(A, k: int, laplacian: str, tau, O) -> np.ndarray:
    """spectral_embedding on checked input (``O`` a checked 0/1 mask or None)."""
    n = A.shape[0]
    deg = _degrees(A)
    if laplacian != "regularized" and sp.issparse(A) and A.nnz == 0:
        # no edge: the matrix is zero (every eigenvalue tied); the tie convention of the dense path,
        # without forming the n x n matrix (an iterative solver cannot start on a zero operator)
        kk = k - 1 if laplacian == "centered" else k
        if kk >= 1 and not _use_dense(n, kk, OPERATOR_DENSE_LIMIT if laplacian == "centered" else DENSE_LIMIT):
            if laplacian == "normalized":
                _inv_sqrt_degrees(deg, warn=True)
            return _fix_signs(_probe_basis(n, kk))
    if laplacian == "regularized":
        s, c = _regularizer(n, deg, tau)
        if _use_dense(n, k, OPERATOR_DENSE_LIMIT):
            dense = A.toarray() if sp.issparse(A) else A
            U = _eigvecs((dense + c) * s[:, None] * s[None, :], k, largest=True)
        else:
            U = _eigvecs(_regularized_operator(A, s, c), k, largest=True)
        norms = np.linalg.norm(U, axis=1)
        norms[norms == 0] = 1.0
        return U / norms[:, None]
    if laplacian == "centered":
        if k == 1:
            return np.zeros((n, 0))
        if _use_dense(n, k - 1, OPERATOR_DENSE_LIMIT):
            dense = A.toarray() if sp.issparse(A) else A
            Od = O.toarray() if sp.issparse(O) else O
            rho = _mean_verdict(A, O)
            M = dense - rho * (np.ones((n, n)) - np.eye(n)) if O is None else dense - rho * Od
            return _eigvecs(M, k - 1, largest=True)
        return _eigvecs(_centered_operator(A, O, _mean_verdict(A, O)), k - 1, largest=True)
    if laplacian == "normalized":
        inv_sqrt = _inv_sqrt_degrees(deg, warn=True)
        if sp.issparse(A) and not _use_dense(n, k):
            return _eigvecs(_normalized_operator(A, inv_sqrt), k, largest=True)
        dense = A.toarray() if sp.issparse(A) else A
        return _eigvecs(dense * inv_sqrt[:, None] * inv_sqrt[None, :], k, largest=True)
    return _eigvecs(_matrix(A, laplacian, deg, tau, O), k, largest=False)


def _use_dense(n: int, k: int, limit: int = DENSE_LIMIT) -> bool:
    return n <= limit or k >= n - 1


TIE_RTOL = 1e-8  # eigenvalues closer than this (relative to the matrix's norm) count as equal


def _eigvecs(M, k: int, *, largest: bool) -> np.ndarray:
    """The ``k`` eigenvectors of the ``k`` largest (or smallest) eigenvalues, in that order.

    Each column's sign is fixed (its entry of largest magnitude is positive).
    When the ``k``-th eigenvalue is repeated (a graph with more than ``k``
    connected components, for instance), the matrix does not say which
    ``k`` vectors of the tied eigenspace to take, and a solver's choice
    depends on the CPU's floating-point rounding; the dense path then
    decides it by a fixed rule instead (:func:`_settle_tie`).
    """
    n = M.shape[0]
    if isinstance(M, sla.LinearOperator):
        if k >= n - 1:  # ARPACK needs k < n - 1; tiny problems only
            M = M @ np.eye(n)
        else:
            v0 = np.ones(n) / np.sqrt(n) + np.cos(np.arange(n)) / (2 * np.sqrt(n))
            vals, vecs = _eigsh(M, k, largest, v0)
            order = np.argsort(vals, kind="stable")
            if largest:
                order = order[::-1]
            return _fix_signs(vecs[:, order])
    if _use_dense(n, k):
        dense = M.toarray() if sp.issparse(M) else np.asarray(M)
        return _fix_signs(_dense_eigvecs(dense, k, largest))
    M = sp.csr_array(M)
    v0 = np.ones(n) / np.sqrt(n)
    vals, vecs = _eigsh(M, k, largest, v0)
    order = np.argsort(vals, kind="stable")
    if largest:
        order = order[::-1]
    return _fix_signs(vecs[:, order])


def _eigsh(M, k: int, largest: bool, v0: np.ndarray, ncv: int | None = None):
    """ARPACK's Lanczos solver, its failures turned into a message that says what to do."""
    try:
        return sla.eigsh(M, k=k, which="LA" if largest else "SA", v0=v0, ncv=ncv)
    except (sla.ArpackError, sla.ArpackNoConvergence) as exc:
        raise ValueError(
            f"the iterative eigensolver failed on this graph of {M.shape[0]} nodes for k = {k} ({exc}); "
            "this happens when the graph has many more connected components than k (isolated texts, "
            "for instance), which leave the k-th eigenvalue tied: choose K with a rule "
            "(semvar.pipeline.graph_entropy with k='auto' gives each isolated text a meaning of its own), "
            "or cluster the texts that have an edge"
        ) from None


def leading_eigenpairs(
    adjacency: ArrayLike | sp.sparray | sp.spmatrix, k: int, *, tol: float = 0.0, ncv: int | None = None,
    check_input: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` largest eigenvalues of ``D^{-1/2} A D^{-1/2}`` and their eigenvectors, by the Lanczos solver.

    The matrix is applied as an operator (a product with ``A`` and two
    diagonal scalings; nothing ``n x n`` is stored), so a large sparse graph
    is never made dense.  The solver starts from a fixed vector, so the
    answer is the same on every run.

    Parameters
    ----------
    adjacency : array-like or scipy sparse matrix of shape (n, n)
        Symmetric, non-negative, finite judged graph in which every node has
        an edge (set isolated texts aside first).
    k : int
        Number of eigenpairs, ``1 <= k <= n - 2`` (ARPACK's limit).
    tol : float, default=0.0
        Relative accuracy asked of ARPACK; 0 is machine precision.  Should
        ARPACK not converge to a positive ``tol``, the eigenpairs are solved
        to machine precision instead.
    ncv : int or None, default=None
        Number of Lanczos vectors ARPACK keeps between restarts, ``k < ncv
        <= n``; None is ARPACK's ``max(2k + 1, 20)``.  More vectors cost
        ``8 n`` bytes each and usually fewer products with the graph where
        the wanted eigenvalues are crowded.
    check_input : bool, default=True
        False skips the check of ``adjacency`` (a large graph's check reads
        every edge); it must then be a float ndarray or
        ``scipy.sparse.csr_array`` that is square, symmetric, finite and
        non-negative.

    Returns
    -------
    eigenvalues : ndarray of shape (k,)
        Descending.
    eigenvectors : ndarray of shape (n, k)
        Column ``j`` belongs to eigenvalue ``j``; each column's sign is fixed
        (its entry of largest magnitude is positive), as in
        :func:`spectral_embedding`.

    Raises
    ------
    ValueError
        For an invalid adjacency, a node without an edge, ``k`` outside
        ``[1, n - 2]``, a negative ``tol``, ``ncv`` outside ``[k + 1, n]``, or a solver that does not converge
        (the message says why and what to do).

    Notes
    -----
    Where eigenvalues are distinct the eigenvectors are determined up to
    sign, and equal a dense solver's to rounding; where they are tied (a
    graph in several connected components has the eigenvalue 1 once per
    component), any basis of the tied eigenspace is an answer, and the
    solver's floating-point rounding picks one.

    Examples
    --------
    >>> A = np.kron(np.eye(2), np.ones((10, 10))) - np.eye(20)
    >>> A[0, 10] = A[10, 0] = 1  # two cliques joined by one edge
    >>> w, V = leading_eigenpairs(A, 3)
    >>> np.round(w, 2).tolist(), V.shape  # the trivial eigenvalue 1, the near-split 0.98, the bulk
    ([1.0, 0.98, -0.01], (20, 3))
    """
    A = (check_adjacency(adjacency) if check_bool(check_input, "check_input")
         else cast("np.ndarray | sp.csr_array", adjacency))
    n = A.shape[0]
    k = check_int(k, "k", low=1, high=max(n - 2, 0))
    tol = check_real(tol, "tol", low=0.0)
    if ncv is not None:
        ncv = check_int(ncv, "ncv", low=k + 1, high=n)
    deg = _degrees(A)
    if np.any(deg == 0):
        raise ValueError(f"adjacency has {int(np.sum(deg == 0))} node(s) without an edge; set them aside first")
    return _leading_eigenpairs(A, k, tol, deg, ncv)


def _leading_eigenpairs(A, k: int, tol: float, deg: np.ndarray, ncv: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """leading_eigenpairs on checked input (``deg`` the degrees, all positive)."""
    n = A.shape[0]
    op = _normalized_operator(A, 1.0 / np.sqrt(deg))
    v0 = np.ones(n) / np.sqrt(n) + np.cos(np.arange(n)) / (2 * np.sqrt(n))
    if tol > 0:
        try:
            w, V = sla.eigsh(op, k=k, which="LA", v0=v0, tol=tol, ncv=ncv)
        except (sla.ArpackError, sla.ArpackNoConvergence):
            w, V = _eigsh(op, k, True, v0, ncv)  # the solve to machine precision, or its message
    else:
        w, V = _eigsh(op, k, True, v0, ncv)
    order = np.argsort(w, kind="stable")[::-1]
    return w[order], _fix_signs(V[:, order])


def _probe_basis(n: int, r: int) -> np.ndarray:
    """Orthonormalised fixed probe vectors: the tie convention's columns when the whole space is tied."""
    Q, R = np.linalg.qr(_probes(n, r))
    return Q * np.where(np.diag(R) < 0, -1.0, 1.0)


def _probes(n: int, r: int) -> np.ndarray:
    # fixed, generic probes: cosines at incommensurate frequencies (no random stream involved)
    return np.cos(np.outer(np.arange(1, n + 1), np.sqrt(np.arange(2, r + 2)) * np.pi / 7))


def _dense_eigvecs(dense: np.ndarray, k: int, largest: bool) -> np.ndarray:
    """:func:`_eigvecs` for a dense symmetric matrix, ties at the ``k``-th eigenvalue settled."""
    n = dense.shape[0]
    want = min(k + 1, n)  # one more than needed, to see whether the k-th eigenvalue is tied
    try:
        vals, vecs = la.eigh(dense, subset_by_index=[n - want, n - 1] if largest else [0, want - 1])
    except la.LinAlgError:  # the subset driver can fail outright on such spectra, with some BLAS kernels
        vals, vecs = np.zeros(0), np.zeros((n, 0))
    if vecs.shape[1] != want:
        # LAPACK's subset driver can return fewer vectors for highly degenerate
        # spectra (many isolated nodes); the full divide-and-conquer decomposition cannot
        vals, vecs = la.eigh(dense, driver="evd")
    if largest:
        vals, vecs = vals[::-1], vecs[:, ::-1]
    tol = TIE_RTOL * max(1.0, float(np.abs(dense).sum(axis=1).max()))  # a bound on the spectral radius
    if want == k or abs(vals[k - 1] - vals[k]) > tol:
        return vecs[:, :k]
    if vals.size < n:  # the tied group may run past the computed vectors
        vals, vecs = la.eigh(dense, driver="evd")
        if largest:
            vals, vecs = vals[::-1], vecs[:, ::-1]
    return _settle_tie(vals, vecs, k, tol)


def _settle_tie(vals: np.ndarray, vecs: np.ndarray, k: int, tol: float) -> np.ndarray:
    """Columns for a ``k``-th eigenvalue shared with further ones (``vals`` in the order wanted).

    The tied group is every eigenvalue within ``tol`` of the ``k``-th.  Its
    eigenspace is determined by the matrix; a basis of it is not.  The
    ``r`` columns still needed are the orthonormalised projections of ``r``
    fixed probe vectors onto that eigenspace: they depend on the eigenspace
    only, not on the basis the solver returned.  (Keeping the whole tied
    eigenspace instead would not settle the clustering: for ``L = D - A``
    and a graph of ``c > k`` components, every grouping of the components
    into ``k`` clusters has the same k-means cost, ``c - k``.)
    """
    tied = np.flatnonzero(np.abs(vals - vals[k - 1]) <= tol)
    a, b = int(tied[0]), int(tied[-1]) + 1
    n, r = vecs.shape[0], k - a
    W = vecs[:, a:b]
    probes = _probes(n, r)
    Q, R = np.linalg.qr(W @ (W.T @ probes))
    Q = Q * np.where(np.diag(R) < 0, -1.0, 1.0)
    return np.hstack([vecs[:, :a], Q])


def _fix_signs(U: np.ndarray) -> np.ndarray:
    """Flip each column so that its entry of largest magnitude is positive."""
    if U.size == 0:
        return U
    pivot = U[np.argmax(np.abs(U), axis=0), np.arange(U.shape[1])]
    return U * np.where(pivot < 0, -1.0, 1.0)


# --------------------------------------------------------------------------- the clusters
def spectral_clusters(
    adjacency: ArrayLike | sp.sparray | sp.spmatrix,
    k: int,
    *,
    laplacian: str = "normalized",
    n_init: int = 10,
    random_state: RandomStateLike = None,
    tau: float | None = None,
    observed: ArrayLike | sp.sparray | sp.spmatrix | None = None,
    check_input: bool = True,
    kmeans: str = "sklearn",
    embedding: ArrayLike | None = None,
) -> np.ndarray:
    """Cluster the nodes of a judged graph into ``k`` groups (Liu 2025, Algorithm 1).

    Parameters
    ----------
    adjacency : array-like or scipy sparse matrix of shape (n, n)
        Symmetric, non-negative, finite judged graph (dense or sparse).
    k : int
        Number of clusters, ``1 <= k <= n``.
    laplacian : {"normalized", "unnormalized", "regularized", "centered"}, default="normalized"
        Which spectral matrix to use; see :func:`spectral_embedding`.
        For sparse designs (a fraction of pairs judged) prefer
        ``"regularized"``; for judges with a large ``q``, ``"centered"``.
    n_init : int, default=10
        Number of k-means restarts.
    random_state : None, int or numpy.random.Generator, default=None
        Seeds k-means.
    tau, observed
        Passed to :func:`spectral_embedding` (``"regularized"`` and
        ``"centered"`` only).
    check_input : bool, default=True
        False skips the checks of ``adjacency`` and ``observed``, whose cost
        grows with the graph (the symmetry check reads every entry).  Only
        for callers that have already checked them: ``adjacency`` must then
        be a float ndarray or ``scipy.sparse.csr_array`` that is square,
        symmetric, finite and non-negative, and ``observed`` a 0/1 mask that
        covers every edge, as :func:`semvar.pipeline.graph_entropy` passes
        them.  The other arguments are always checked.
    kmeans : {"sklearn", "numpy"}, default="sklearn"
        The k-means run on the embedding's rows: :class:`sklearn.cluster.KMeans`,
        or the numpy implementation of :mod:`semvar._kmeans` (the same
        algorithm, k-means++ seeding and ``n_init`` restarts, without
        scikit-learn's fixed cost per call, which dominates graphs of a few
        dozen texts; :mod:`semvar.pipeline` uses it for graphs of at most
        :data:`semvar.pipeline.FAST_N` texts).  Both draw one seed from
        ``random_state``; their partitions agree whenever both reach the
        k-means optimum, but they are different random streams.
    embedding : array-like of shape (n, d) with ``d >= k``, optional
        Rows of the graph's leading eigenvectors computed already (for
        example by a rule that chose ``k`` from the same spectrum); its first
        ``k`` columns are clustered instead of :func:`spectral_embedding`'s.
        None: computed here.

    Returns
    -------
    ndarray of shape (n,)
        Integer labels ``0..k-1`` numbered by first appearance.

    Raises
    ------
    ValueError
        For a non-square, non-symmetric, negative or non-finite adjacency, or
        ``k`` outside ``[1, n]``, or a bad ``laplacian``, ``n_init``,
        ``random_state``, ``tau``, ``observed``, ``kmeans`` or ``embedding``;
        or a sparse graph above :data:`DENSE_LIMIT` texts on which the
        iterative eigensolver does not converge (the message says why and
        what to do).

    See Also
    --------
    semvar.pipeline.graph_entropy : the entropy of these clusters' sizes.

    Notes
    -----
    A graph with no edge at all carries no information about meanings:
    every ``k``-partition fits it equally well.  Its spectral matrix is zero,
    and the clusters follow the convention for tied eigenvalues described in
    :func:`spectral_embedding` (on every path, sparse ones included), with a
    warning that the nodes have no edges.  To read each isolated text as a
    meaning of its own, choose ``K`` with a rule
    (:func:`semvar.pipeline.graph_entropy` with ``k="auto"``).

    Examples
    --------
    Two triangles joined by nothing are recovered exactly:

    >>> import numpy as np
    >>> A = np.kron(np.eye(2), np.ones((3, 3))) - np.eye(6)
    >>> spectral_clusters(A, 2, random_state=0).tolist()
    [0, 0, 0, 1, 1, 1]
    """
    check_bool(check_input, "check_input")
    if check_input:
        A = check_adjacency(adjacency)
    else:
        A = adjacency
    n = A.shape[0]
    k = check_int(k, "k", low=1, high=n)
    n_init = check_int(n_init, "n_init", low=1)
    rng = check_random_state(random_state)
    check_laplacian(laplacian, tau=tau, observed=observed)
    if tau is not None:
        tau = check_real(tau, "tau", low=0.0)
    O = observed if observed is None or not check_input else check_observed(observed, A)
    check_option(kmeans, "kmeans", _KMEANS)
    if embedding is not None:
        embedding = _check_embedding(embedding, n, k)
    return _spectral_clusters(A, k, laplacian, n_init, rng, tau, O, kmeans, embedding)


_KMEANS = ("sklearn", "numpy")


def _check_embedding(embedding, n: int, k: int) -> np.ndarray:
    U = np.asarray(embedding)
    if U.ndim != 2 or U.shape[0] != n or U.shape[1] < k or U.dtype.kind not in "biuf":
        raise ValueError(
            f"embedding must be a numeric array of shape (n, d) with n = {n} and d >= k = {k}, "
            f"got {'shape ' + str(U.shape) if U.ndim else repr(embedding)}"
        )
    if not np.all(np.isfinite(U)):
        raise ValueError("embedding contains NaN or infinite values")
    return U.astype(float, copy=False)


def _spectral_clusters(A, k: int, laplacian: str, n_init: int, rng, tau, O, kmeans: str = "sklearn",
                       embedding=None) -> np.ndarray:
    """spectral_clusters on checked input."""
    if k == 1:
        return np.zeros(A.shape[0], dtype=np.int64)
    U = _embed(A, k, laplacian, tau, O) if embedding is None else embedding[:, :k]
    seed = int(rng.integers(2**31 - 1))
    if kmeans == "numpy":
        return canonical_labels(_numpy_kmeans(U, k, np.random.default_rng(seed), n_init=n_init)[0])
    km = KMeans(n_clusters=k, n_init=n_init, random_state=seed)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Number of distinct clusters")
        labels = km.fit_predict(U)
    return canonical_labels(labels)
