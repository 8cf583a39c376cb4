"""Likelihood rules for K: the integrated classification likelihood (ICL) and its BIC form.

See the package notes of :mod:`semvar.select_k` ("Self-loops and weights", "Large sparse graphs").
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike
from scipy.special import betaln, gammaln

from .._batched import icl_scores
from .._kmeans import kmeans_pivoted
from .._masks import completed as _completed
from .._threads import one_thread
from .._validation import check_option
from ._common import (
    MODELS,
    KSelection,
    check_common,
    check_mask,
    check_verdict_weights,
    checked_graph,
    normalized_top,
    on_core,
    posterior_row,
    result,
)
from ._registry import rule
from ._sparse import _try_sparse

__all__ = ["icl", "bic", "icl_of"]


def icl(
    adjacency: ArrayLike | sp.sparray | sp.spmatrix, k_max: int, *, model: str = "judge",
    observed: ArrayLike | sp.sparray | sp.spmatrix | None = None,
) -> KSelection:
    """The integrated classification likelihood of the spectral clusters for each ``K``.

    Parameters
    ----------
    adjacency : array-like or scipy sparse matrix of shape (n, n)
        Symmetric 0/1 (or [0, 1]-weighted) judged graph.
    k_max : int
        Largest candidate ``K``; ``1 <= k_max < n``.
    model : {"judge", "sbm"}, default="judge"
        ``"judge"``: Liu's judge model, equations (3)-(4): one probability
        ``p`` of a TRUE verdict for texts of the same meaning and one ``q``
        for different meanings.  ``"sbm"``: a probability for every pair of
        clusters (a full stochastic block model).
    observed : array-like or sparse matrix of shape (n, n), optional
        0/1 mask of the pairs judged; None: every pair.  An unjudged pair is
        no evidence (see the package notes, "Partly judged graphs").

    Returns
    -------
    KSelection
        ``.losses[K-1]`` is ``-ICL(K)``; ``details["icl"]`` the ICL,
        ``details["posterior"]`` its normalised exponential,
        ``details["labels"]`` the clusters of each candidate (texts with an
        edge only), ``.confidence`` the posterior of the chosen ``K``.

    Raises
    ------
    ValueError
        For an invalid adjacency, ``k_max`` outside ``[1, n)``, an unknown
        ``model``, or a weight above 1 (see the package notes).

    Notes
    -----
    For each ``K`` the texts are clustered spectrally as in Algorithm 1, on
    the ``K`` leading eigenvectors of ``D^{-1/2} A D^{-1/2}``, with one
    deterministic k-means run started from rows chosen by a pivoted QR
    (instead of ten random restarts: the rule compares many ``K``; chapter
    4's study found the same choices either way).  ``K`` runs up to
    ``k_max`` or the number of positive eigenvalues, whichever is smaller: an
    assortative block structure (``p > q``) puts its leading eigenvalues
    above zero.  With labels ``z`` and cluster sizes ``n_1, ..., n_K``,

    .. math::

        \\mathrm{ICL}(K) = \\sum_{g} \\log B(e_g + 1, N_g - e_g + 1)
            + \\log \\frac{\\Gamma(K)}{\\Gamma(n + K)} + \\sum_{k=1}^K \\log \\Gamma(n_k + 1)
            + \\log K!

    where ``B`` is the Beta function and the sum runs over the groups of
    pairs that share a probability: for ``"judge"`` the pairs inside clusters
    and the pairs between them (two groups), for ``"sbm"`` each pair of
    clusters; ``e_g`` is the number of TRUE verdicts among the ``N_g`` pairs
    of group ``g``.  The first sum is the log probability of the verdicts
    given ``z`` with each probability integrated over a uniform prior; the
    next two terms are that of ``z`` under a uniform (Dirichlet(1)) prior on
    the cluster proportions (Come & Latouche 2015, eq. 7); ``log K!`` turns a
    labelling into a partition, which is what is being chosen.  Reading
    ``ICL(K)`` as the log evidence for ``K``, a uniform prior on
    ``K = 1..k_max`` gives the posterior in ``details["posterior"]``.
    Isolated texts are set aside and counted as meanings of their own.

    References
    ----------
    Biernacki, C., Celeux, G. and Govaert, G. (2000). Assessing a mixture model
    for clustering with the integrated completed likelihood. IEEE TPAMI 22(7).
    Come, E. and Latouche, P. (2015). Model selection and clustering in
    stochastic block models based on the exact integrated complete data
    likelihood. Statistical Modelling 15(6), 564-589.

    Examples
    --------
    >>> from semvar.graph import sample_sbm
    >>> A = sample_sbm([4, 6, 10], 0.87, 0.07, random_state=3)
    >>> res = icl(A, 6)
    >>> res.k, round(res.confidence, 2)
    (3, 1.0)
    """
    check_option(model, "model", MODELS)
    sel = _try_sparse(adjacency, "icl", k_max) if model == "judge" and observed is None else None
    if sel is not None:
        return sel
    A, n, k_max = check_common(adjacency, k_max)
    O = check_mask(observed, A)
    check_verdict_weights(A, "icl")
    with one_thread():
        return _icl(A, k_max, model, O=O)


def bic(
    adjacency: ArrayLike | sp.sparray | sp.spmatrix, k_max: int, *, model: str = "judge",
    observed: ArrayLike | sp.sparray | sp.spmatrix | None = None,
) -> KSelection:
    """The large-sample (BIC) form of :func:`icl`: maximised likelihood minus a penalty.

    Parameters
    ----------
    adjacency : array-like or scipy sparse matrix of shape (n, n)
    k_max : int
        Largest candidate ``K``; ``1 <= k_max < n``.
    model : {"judge", "sbm"}, default="judge"
        As for :func:`icl`.
    observed : array-like or sparse matrix of shape (n, n), optional
        0/1 mask of the pairs judged; None: every pair.  An unjudged pair is
        no evidence (see the package notes, "Partly judged graphs").

    Returns
    -------
    KSelection
        ``.losses[K-1]`` is ``-BIC(K)``; ``details["bic"]``,
        ``details["posterior"]``, ``details["labels"]`` and ``.confidence``
        as for :func:`icl`.

    Raises
    ------
    ValueError
        For an invalid adjacency, ``k_max`` outside ``[1, n)``, an unknown
        ``model``, or a weight above 1 (see the package notes).

    Notes
    -----
    With the same spectral labels ``z`` as :func:`icl`,

    .. math::

        \\mathrm{BIC}(K) = \\sum_g \\bigl[e_g \\log \\hat p_g + (N_g - e_g) \\log(1 - \\hat p_g)\\bigr]
            + \\sum_k n_k \\log \\frac{n_k}{n} - \\frac{\\nu_K}{2} \\log \\frac{n(n-1)}{2} - \\frac{K-1}{2} \\log n,

    with ``p_hat_g = e_g / N_g`` and ``nu_K`` probabilities (2 for the judge
    model when ``K >= 2``, 1 when ``K = 1``; ``K(K+1)/2`` for the block
    model): the Laplace approximation of the ICL (Biernacki et al. 2000; Daudin,
    Picard & Robin 2008, for block models).

    Examples
    --------
    >>> from semvar.graph import sample_sbm
    >>> A = sample_sbm([4, 6, 10], 0.87, 0.07, random_state=3)
    >>> int(bic(A, 6))
    3
    """
    A, n, k_max = check_common(adjacency, k_max)
    check_option(model, "model", MODELS)
    O = check_mask(observed, A)
    check_verdict_weights(A, "bic")
    with one_thread():
        return _bic(A, k_max, model, O=O)


def icl_of(
    adjacency: ArrayLike | sp.sparray | sp.spmatrix, labels: ArrayLike, *, model: str = "judge",
    observed: ArrayLike | sp.sparray | sp.spmatrix | None = None,
) -> float:
    """The integrated classification likelihood of one labelling of a judged graph (the criterion of :func:`icl`).

    Parameters
    ----------
    adjacency : array-like or scipy sparse matrix of shape (n, n)
        Symmetric 0/1 (or [0, 1]-weighted) judged graph; the diagonal is ignored.
    labels : array-like of shape (n,)
        A cluster for every text (any integers; their values only group the texts).
    model : {"judge", "sbm"}, default="judge"
        As for :func:`icl`.
    observed : array-like or sparse matrix of shape (n, n), optional
        0/1 mask of the pairs judged; None: every pair.  Only judged pairs count.

    Returns
    -------
    float
        ``ICL`` in nats (see :func:`icl`, Notes): the verdicts' log
        probability with each rate integrated over a uniform prior, plus the
        labelling's under a uniform prior on the cluster proportions.

    Raises
    ------
    ValueError
        For an invalid adjacency, labels of another length or not whole
        numbers, an unknown ``model``, an invalid mask, or a weight above 1.

    Examples
    --------
    Five pairs of texts, each pair judged equivalent and nothing else: one
    meaning describes these 45 verdicts more cheaply than five.

    >>> import numpy as np
    >>> A = np.kron(np.eye(5), np.ones((2, 2))) - np.eye(10)
    >>> round(icl_of(A, np.zeros(10, dtype=int)), 2), round(icl_of(A, np.repeat(np.arange(5), 2)), 2)
    (-17.84, -19.27)
    """
    A = checked_graph(adjacency)
    n = A.shape[0]
    check_option(model, "model", MODELS)
    check_verdict_weights(A, "icl")
    z = np.asarray(labels)
    if z.shape != (n,) or not np.issubdtype(z.dtype, np.integer):
        raise ValueError(f"labels must be {n} whole numbers (one cluster per text), got {z.dtype} of shape {z.shape}")
    O = None if observed is None else check_mask(observed, A)
    return float(_icl_value(A, z, model, O))


def _group_counts(A: np.ndarray, z: np.ndarray, model: str, O=None):
    """TRUE verdicts ``e_g``, pairs ``N_g`` of each group of pairs, and the cluster sizes, for labels ``z``.

    With ``O`` (the 0/1 mask of judged pairs) ``N_g`` counts the judged pairs of each group only:
    an unjudged pair is no evidence either way.
    """
    z = np.unique(z, return_inverse=True)[1]
    k = int(z.max()) + 1
    Z = np.eye(k)[z]
    E = Z.T @ A @ Z
    nk = Z.sum(0)
    if model == "judge":
        n = A.shape[0]
        e_in, e_all = np.trace(E) / 2.0, A.sum() / 2.0
        if O is None:
            N_in, N_all = float((nk * (nk - 1.0)).sum()) / 2.0, n * (n - 1.0) / 2.0
        else:
            N_in, N_all = float(np.trace(Z.T @ O @ Z)) / 2.0, float(O.sum()) / 2.0
        e = np.array([e_in, e_all - e_in])
        N = np.array([N_in, N_all - N_in])
    else:
        iu = np.triu_indices(k)
        pairs = np.outer(nk, nk) - np.diag(nk) if O is None else Z.T @ O @ Z
        diag = iu[0] == iu[1]
        e = np.where(diag, E[iu] / 2.0, E[iu])
        N = np.where(diag, pairs[iu] / 2.0, pairs[iu])
    keep = N > 0
    return e[keep], N[keep], nk


#: Stored entries summed at a time by :func:`_weight_inside` (about 2 M: some 40 MB of temporaries
#: whatever the size of the graph; at n = 10^6, degree 50, the whole edge list at once held 700 MB).
_EDGE_BLOCK = 1 << 21


def _edge_list(A) -> tuple:
    """The stored entries of a sparse adjacency in CSR form ``(indptr, indices, weights, all ones)`` (each edge twice)."""
    C = sp.csr_array(A)
    return C.indptr, C.indices, C.data, bool(np.all(C.data == 1.0))


def _weight_inside(edges, z: np.ndarray) -> float:
    """The summed weight of the stored entries whose two ends share a label, a block of rows at a time.

    The labels are compared in the smallest integer type that holds them (one byte for fewer than
    256 clusters: an eighth of the memory traffic of int64), and weights that are all 1 are counted
    rather than gathered and summed (0.74 s -> 0.17 s at n = 10^6, degree 50).
    """
    indptr, cols, data, ones = edges
    n = indptr.size - 1
    if n == 0:
        return 0.0
    z = z.astype(np.min_scalar_type(max(int(z.max()), 0)), copy=False)
    total, start = 0.0, 0
    while start < n:
        stop = int(np.searchsorted(indptr, indptr[start] + _EDGE_BLOCK, side="right")) - 1
        stop = min(max(stop, start + 1), n)  # rows [start, stop): about _EDGE_BLOCK entries, at least one row
        lo, hi = indptr[start], indptr[stop]
        same = np.repeat(z[start:stop], np.diff(indptr[start:stop + 1])) == z[cols[lo:hi]]
        total += float(np.count_nonzero(same)) if ones else float(data[lo:hi][same].sum())
        start = stop
    return total


def _icl_judge_edges(edges, n: int, z: np.ndarray, nk: np.ndarray, e_all: float, N_all: float) -> float:
    """The judge-model ICL (:func:`semvar._batched.icl_scores`) from the edge list of a sparse adjacency: ``O(edges)``, nothing ``n x n``.

    ``e_in`` is the weight of the edges inside clusters (``trace(Z^T A Z) / 2`` for the label
    indicator ``Z``), summed over the stored entries in blocks; for 0/1 verdicts every partial sum
    is an integer, so it equals the dense sum exactly (and for one cluster it is ``e_all``).
    """
    e_in = e_all if nk.size == 1 else _weight_inside(edges, z) / 2.0
    N_in = float((nk * (nk - 1.0)).sum()) / 2.0
    k = nk.size
    verdicts = betaln(e_in + 1.0, N_in - e_in + 1.0)
    if N_all > N_in:
        verdicts += betaln(e_all - e_in + 1.0, N_all - N_in - (e_all - e_in) + 1.0)
    return float(verdicts + gammaln(k) - gammaln(n + k) + gammaln(nk + 1.0).sum() + gammaln(k + 1.0))


def _icl_value(A: np.ndarray, z: np.ndarray, model: str, O=None) -> float:
    e, N, nk = _group_counts(A, z, model, O)
    n, k = A.shape[0], nk.size
    verdicts = float(betaln(e + 1.0, N - e + 1.0).sum())
    labels = float(gammaln(k) - gammaln(n + k) + gammaln(nk + 1.0).sum() + gammaln(k + 1.0))
    return verdicts + labels


def _bic_value(A: np.ndarray, z: np.ndarray, model: str, O=None) -> float:
    e, N, nk = _group_counts(A, z, model, O)
    n, k = A.shape[0], nk.size
    n_pairs = n * (n - 1) / 2.0 if O is None else max(float(O.sum()) / 2.0, 1.0)
    p = e / N
    with np.errstate(divide="ignore", invalid="ignore"):
        ll = np.where(e > 0, e * np.log(p), 0.0) + np.where(N - e > 0, (N - e) * np.log1p(-p), 0.0)
    nu = (1 if k == 1 else 2) if model == "judge" else k * (k + 1) / 2
    pen = nu / 2.0 * np.log(n_pairs) + (k - 1) / 2.0 * np.log(n)
    return float(ll.sum() + (nk * np.log(nk / n)).sum() - pen)


def _criterion_core(name: str, value, core: np.ndarray, kc_max: int, model: str, spectrum=None, O=None) -> KSelection:
    """ICL or BIC of spectral clusters of a core (no isolated text) for ``K = 1, ..., K_up``.

    With ``O``, the 0/1 mask of judged pairs of a partly judged core, the clusters come from the
    completed graph (:func:`semvar._masks.completed`) and the criterion counts judged
    pairs only.

    ``K_up`` is ``kc_max`` or, if smaller, the number of positive eigenvalues of the normalised
    matrix (an assortative block structure puts its leading eigenvalues above zero); larger ``K``
    get ``-inf`` (posterior 0).  The clusters of each ``K`` are one k-means run on the ``K``
    leading eigenvectors, started from rows chosen by a pivoted QR (:func:`semvar._kmeans.kmeans_pivoted`).
    A dense, fully judged core under the judge model is scored by :func:`semvar._batched.icl_scores`
    (the code that scores a batch of graphs, with a batch of one).
    """
    if O is not None:
        spectrum = normalized_top(_completed(core, O), kc_max + 1)
    w, V = spectrum[:2] if spectrum is not None else normalized_top(core, kc_max + 1)
    floor = spectrum[2] if spectrum is not None and len(spectrum) > 2 else 0.0  # see _sparse._bulk_top
    k_up = int(min(kc_max, max(int(np.count_nonzero(w[:kc_max] > floor)), 1)))
    if value is _icl_value and model == "judge" and O is None and not sp.issparse(core):
        scores, by_k = icl_scores(core[None], w[None], V[None], kc_max, floor)
        return _criterion_result(name, kc_max, scores[0], {k: z[0] for k, (_, z) in by_k.items()}, model, k_up)
    labels = {}
    scores = np.full(kc_max, -np.inf)
    n = core.shape[0]
    e_all, N_all = float(core.sum()) / 2.0, n * (n - 1) / 2.0
    edges = _edge_list(core) if sp.issparse(core) else None
    for k in range(1, k_up + 1):
        z = kmeans_pivoted(V[:, :k], k)
        labels[k] = z
        nk = np.bincount(z, minlength=k)
        if nk.size == k and nk.min() > 0:  # a k-means answer with an empty cluster is not a K-partition
            if edges is not None:
                scores[k - 1] = _icl_judge_edges(edges, n, z, nk, e_all, N_all)
            else:
                scores[k - 1] = value(core, z, model, O)
    return _criterion_result(name, kc_max, scores, labels, model, k_up)


def _criterion_result(name: str, kc_max: int, scores: np.ndarray, labels: dict, model: str, k_up: int) -> KSelection:
    post = posterior_row(scores)
    res = result(name, kc_max, -scores, {name: scores, "posterior": post, "labels": labels, "model": model,
                                           "k_up": k_up})
    res.confidence = float(post[res.k - 1])
    return res


def _criterion(name: str, value, A: np.ndarray, k_max: int, model: str, spectrum=None, O=None) -> KSelection:
    return on_core(name, A, k_max,
                    lambda core, kc_max, Oc=None: _criterion_core(name, value, core, kc_max, model,
                                                                  spectrum if Oc is None else None, Oc), O=O)


def _icl(A: np.ndarray, k_max: int, model: str, spectrum=None, O=None) -> KSelection:
    """icl on a checked dense adjacency (isolated texts set aside here)."""
    return _criterion("icl", _icl_value, A, k_max, model, spectrum, O)


def _bic(A: np.ndarray, k_max: int, model: str, spectrum=None, O=None) -> KSelection:
    """bic on a checked dense adjacency (isolated texts set aside here)."""
    return _criterion("bic", _bic_value, A, k_max, model, spectrum, O)


# --------------------------------------------------------------------------- by name, with the defaults
@rule(icl, verdicts=True, spectrum="eigenpairs", sparse=True, rank=1)
def _icl_rule(A: np.ndarray, k_max: int, rng, spectrum, *, model: str, observed=None) -> KSelection:
    return _icl(A, k_max, model, spectrum, observed)


@rule(bic, verdicts=True, spectrum="eigenpairs", rank=2)
def _bic_rule(A: np.ndarray, k_max: int, rng, spectrum, *, model: str, observed=None) -> KSelection:
    return _bic(A, k_max, model, spectrum, observed)

