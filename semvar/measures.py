"""The peers' uncertainty measures, each once, in one registry, so that a chapter can loop over them on one graph.

Every function here returns an **uncertainty**: higher means the answers to
a prompt are more variable in meaning, so the model is less sure.  The two
measures that are confidences in their papers (self-similarity and lexical
similarity) are turned round as ``1 - s``; nothing is negated.

=========================  ==========  =====================================================
registry key               input       measure
=========================  ==========  =====================================================
``semantic_entropy``       verdicts    discrete semantic entropy of greedy bidirectional
                                       clusters (Kuhn et al. 2023; Farquhar et al. 2024)
``num_semantic_sets``      verdicts    number of those clusters (NumSet)
``spectral_entropy``       verdicts    semantic spectral entropy, K chosen by "auto" (Liu 2025)
``eigv`` / ``eigv_w``      verdicts /  sum of ``max(0, 1 - lambda_k)`` over the normalised
                           similarity  Laplacian's eigenvalues (Lin, Trivedi & Sun 2024)
``ecc`` / ``ecc_w``        verdicts /  eccentricity: norm of the centred spectral embedding
                           similarity
``deg`` / ``deg_w``        verdicts /  one minus the mean degree over ``n``
                           similarity
``self_similarity``        embeddings  ``1 -`` mean pairwise cosine
``lexical_similarity``     texts       ``1 -`` mean pairwise ROUGE-L F-measure (LexSim)
=========================  ==========  =====================================================

:data:`MEASURES` holds one :class:`Measure` per key and
:func:`uncertainty_measures` evaluates every registered measure whose input
it is given, all of them on the same matrices.

The inputs
----------
``verdicts``
    An ``(n, n)`` boolean (or 0/1) matrix, ``verdicts[i, j]`` the judge's
    verdict that text ``i`` means what text ``j`` means.  It may be
    asymmetric (a directional judge, such as entailment by a natural-language
    inference model).  Its diagonal is ignored.  The greedy clusters read
    both directions; the graph measures (spectral entropy, EigV, Ecc, Deg on
    verdicts) use the **bidirectional graph** ``A_ij = verdicts[i, j] and
    verdicts[j, i]``, which is ``verdicts`` itself for a symmetric judge.
``similarity``
    A symmetric ``(n, n)`` matrix of similarities in ``[0, 1]`` (for example
    entailment probabilities, symmetrised as ``(S + S.T) / 2``, or cosines
    mapped into ``[0, 1]``).  Its diagonal is ignored.
``embeddings``
    ``(n, d)`` sentence embeddings, one row per text.
``texts``
    The ``n`` texts.

The diagonal rule
-----------------
The measures of Lin, Trivedi & Sun read a text's similarity with itself as 1
(``W_jj = 1``).  Here the diagonal of the matrix given is always replaced by
1 before EigV, Ecc and Deg (and by 0, the convention of the judged graphs of
:mod:`semvar.graph`, before the spectral entropy).  So a matrix with a zero
diagonal (a judged graph) and the same matrix with a unit diagonal give the
same values, and a text the judge matched with nothing (an isolated text) has
degree 1 from its self-loop instead of 0: the Laplacian stays defined, and
the text counts as a meaning of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import cast

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
from numpy.typing import ArrayLike

from ._validation import RandomStateLike, check_array, check_option, check_random_state, check_real, check_texts, show
from .entropy import empirical_entropy
from .judges import rouge_l, rouge_l_tokens, word_tokens
from .pipeline import graph_entropy
from .similarity import self_similarity

__all__ = [
    "greedy_clusters",
    "semantic_entropy",
    "num_semantic_sets",
    "spectral_entropy",
    "eigv",
    "ecc",
    "deg",
    "self_similarity_uncertainty",
    "lexical_similarity_uncertainty",
    "rouge_l",
    "Measure",
    "MEASURES",
    "measure",
    "NEEDS",
    "uncertainty_measures",
]

#: The inputs a measure can need, in the order :func:`uncertainty_measures` takes them.
NEEDS = ("verdicts", "similarity", "embeddings", "texts")

#: Eccentricity keeps the eigenvectors whose eigenvalue is below this (see :func:`ecc`).
ECC_THRESHOLD = 0.9

_SYMMETRY_ATOL = 1e-8


# --------------------------------------------------------------------------- checks
def _as_square(x: ArrayLike, name: str) -> np.ndarray:
    if sp.issparse(x):
        x = cast("sp.sparray", x).toarray()  # scipy ships no types, so issparse does not narrow ``x``
    raw = np.asarray(x) if not isinstance(x, np.ndarray) else x
    if raw.dtype.kind not in "biufc" and raw.dtype != object:
        raise ValueError(f"{name} must hold numbers or booleans, got dtype {raw.dtype}")
    arr = check_array(raw, name, ndim=2)
    if arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be a square (n, n) matrix, got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} must not be empty (n >= 1 texts)")
    return arr


def _check_verdicts(verdicts: ArrayLike, name: str = "verdicts") -> np.ndarray:
    """A square boolean matrix (any diagonal), from booleans or 0/1 numbers."""
    arr = _as_square(verdicts, name)
    bad = (arr != 0) & (arr != 1)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(f"{name} must hold booleans or 0/1, found {arr[i, j]!r} at [{i}, {j}]")
    return arr.astype(bool)


def _check_similarity(W: ArrayLike, name: str) -> np.ndarray:
    """A square symmetric float matrix with entries in [0, 1], its diagonal set to 1."""
    arr = _as_square(W, name)
    lo, hi = float(arr.min()), float(arr.max())
    if lo < 0 or hi > 1:
        raise ValueError(f"{name} must hold similarities in [0, 1], found values in [{lo:.6g}, {hi:.6g}]")
    gap = float(np.abs(arr - arr.T).max())
    if gap > _SYMMETRY_ATOL:
        raise ValueError(
            f"{name} must be symmetric, largest |W - W.T| is {gap:.3g} (symmetrise a directional score as (W + W.T) / 2)"
        )
    out = (arr + arr.T) / 2.0
    np.fill_diagonal(out, 1.0)
    return out


def _check_embeddings(embeddings: ArrayLike) -> np.ndarray:
    """The embeddings as an array, checked as :func:`semvar.similarity.self_similarity` checks them."""
    E = np.asarray(embeddings) if not isinstance(embeddings, np.ndarray) else embeddings
    self_similarity(E)  # validates (ndim, rows, finiteness, zero rows)
    return E


def _check_lexical_texts(texts: Sequence[str]) -> list[str]:
    """At least two texts (their pairs are averaged)."""
    texts = check_texts(texts)
    if len(texts) < 2:
        raise ValueError(f"texts must hold at least two texts (pairs are averaged), got {len(texts)}")
    return texts


#: the check of each input a measure can need (:data:`NEEDS`), by its name
_CHECKS: dict[str, Callable] = {
    "verdicts": _check_verdicts,
    "similarity": lambda W: _check_similarity(W, "similarity"),
    "embeddings": _check_embeddings,
    "texts": _check_lexical_texts,
}


def _bidirectional(V: np.ndarray) -> np.ndarray:
    """The bidirectional graph ``V and V.T`` as floats, zero diagonal."""
    A = (V & V.T).astype(float)
    np.fill_diagonal(A, 0.0)
    return A


def _with_unit_diagonal(A: np.ndarray) -> np.ndarray:
    W = A.copy()
    np.fill_diagonal(W, 1.0)
    return W


# --------------------------------------------------------------------------- greedy clusters
def greedy_clusters(verdicts: ArrayLike) -> np.ndarray:
    """Greedy bidirectional clusters of texts (Kuhn et al. 2023, Algorithm 1), in the order of the texts.

    Parameters
    ----------
    verdicts : array-like of bool or 0/1, shape (n, n), n >= 1
        ``verdicts[i, j]``: text ``i`` is judged to mean what text ``j``
        means (may be asymmetric; the diagonal is ignored).  Sparse matrices
        are accepted.

    Returns
    -------
    labels : ndarray of int64, shape (n,)
        Cluster of each text, numbered ``0, 1, ...`` in order of first appearance.

    Raises
    ------
    ValueError
        If ``verdicts`` is not a non-empty square matrix of booleans or 0/1
        (NaN, other values, strings and complex numbers are refused).

    Notes
    -----
    Texts are visited in their order.  Text ``i`` joins the first existing
    cluster whose **representative** (its first member) ``r`` it is
    equivalent to in both directions, ``verdicts[i, r]`` and
    ``verdicts[r, i]``; if there is none it opens a new cluster.  For verdicts
    that form an equivalence relation the clusters are its classes whatever
    the order.  Otherwise the result can depend on the order of the texts:
    with ``a ~ b``, ``b ~ c`` and ``a !~ c``, the order ``a, b, c`` gives
    ``{a, b}, {c}`` and the order ``b, a, c`` gives ``{b, a, c}``.  Comparing
    with the representative only is Kuhn et al.'s rule (one comparison per
    cluster, not one per member).

    References
    ----------
    Kuhn, Gal & Farquhar (2023), Semantic uncertainty, section 3.1 and
    Algorithm 1; Farquhar et al. (2024).

    Examples
    --------
    >>> V = [[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]]  # Paris, Paris, London, London
    >>> greedy_clusters(V).tolist()
    [0, 0, 1, 1]
    >>> greedy_clusters([[1, 1], [0, 1]]).tolist()  # one direction only: two clusters
    [0, 1]
    """
    return _greedy(_check_verdicts(verdicts))


def _greedy(V: np.ndarray) -> np.ndarray:
    both = V & V.T
    n = V.shape[0]
    labels = np.empty(n, dtype=np.int64)
    reps: list[int] = []
    for i in range(n):
        for c, r in enumerate(reps):
            if both[i, r]:
                labels[i] = c
                break
        else:
            labels[i] = len(reps)
            reps.append(i)
    return labels


def semantic_entropy(verdicts: ArrayLike) -> float:
    """Discrete semantic entropy (nats): the entropy of the greedy clusters' frequencies.

    Parameters
    ----------
    verdicts : array-like of bool or 0/1, shape (n, n), n >= 1
        As in :func:`greedy_clusters`.

    Returns
    -------
    float in [0, log n]
        :math:`-\\sum_c \\frac{n_c}{n}\\log\\frac{n_c}{n}` over the clusters
        ``c`` of :func:`greedy_clusters`, ``n_c`` texts each.

    Raises
    ------
    ValueError
        As :func:`greedy_clusters`.

    Notes
    -----
    Kuhn et al. (2023, eq. 3) estimate semantic entropy from the sequence
    probabilities of the sampled answers, :math:`-\\frac1{|C|}\\sum_c \\log
    p(c\\mid x)` with :math:`p(c\\mid x)` the summed probability of the
    answers in cluster ``c``.  Without token probabilities (a black-box
    model), Farquhar et al. (2024, Methods, "discrete semantic entropy")
    replace :math:`p(c\\mid x)` by the share of the ``n`` sampled answers that
    fall in ``c`` and take the entropy of that distribution; that is the
    value returned.  It is the plug-in entropy of eq. 5 of Liu (2025) applied
    to the greedy clusters instead of the spectral ones
    (:func:`semvar.entropy.empirical_entropy`).

    References
    ----------
    Kuhn, Gal & Farquhar (2023); Farquhar, Kossen, Kuhn & Gal (2024), Nature 630, 625-630.

    Examples
    --------
    Answers "Paris, Paris, London, London": two meanings of two answers, entropy log 2.

    >>> V = [[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]]
    >>> round(semantic_entropy(V), 6)
    0.693147
    """
    return _semantic_entropy(_check_verdicts(verdicts))


def _semantic_entropy(V: np.ndarray) -> float:
    return float(empirical_entropy(_greedy(V)))


def num_semantic_sets(verdicts: ArrayLike) -> int:
    """The number of greedy bidirectional clusters (NumSet).

    Parameters
    ----------
    verdicts : array-like of bool or 0/1, shape (n, n), n >= 1
        As in :func:`greedy_clusters`.

    Returns
    -------
    int in [1, n]

    Raises
    ------
    ValueError
        As :func:`greedy_clusters`.

    Notes
    -----
    Lin, Trivedi & Sun (2024, section 4.1, :math:`U_{\\mathrm{NumSet}}`)
    count the semantic sets of Kuhn et al. (2023) as the simplest black-box
    uncertainty; :func:`eigv` is its continuous version.

    Examples
    --------
    >>> num_semantic_sets([[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]])
    2
    """
    return _num_sets(_check_verdicts(verdicts))


def _num_sets(V: np.ndarray) -> int:
    return int(_greedy(V).max()) + 1


# --------------------------------------------------------------------------- spectral entropy
def spectral_entropy(verdicts: ArrayLike, *, k: int | str = "auto", random_state: RandomStateLike = 0) -> float:
    """Semantic spectral entropy (Liu 2025, Algorithm 1) of the bidirectional graph of ``verdicts``.

    Parameters
    ----------
    verdicts : array-like of bool or 0/1, shape (n, n), n >= 1
        As in :func:`greedy_clusters`; the graph is ``A_ij = verdicts[i, j]
        and verdicts[j, i]`` with a zero diagonal.
    k : int or str, default="auto"
        Number of meanings or a rule of :data:`semvar.select_k.METHODS`;
        passed to :func:`semvar.pipeline.graph_entropy`.
    random_state : None, int or numpy.random.Generator, default=0
        Seeds k-means and the rule.

    Returns
    -------
    float in [0, log K]

    Raises
    ------
    ValueError
        For bad ``verdicts`` (as :func:`greedy_clusters`), ``k`` or ``random_state``.

    Notes
    -----
    The same estimator as :func:`semvar.pipeline.graph_entropy`: cluster the
    judged graph spectrally into ``K`` groups and take the plug-in entropy of
    the cluster sizes.  Only the bidirectional graph is built here.

    Examples
    --------
    >>> V = [[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]]
    >>> round(spectral_entropy(V), 6)
    0.693147
    """
    A = _bidirectional(_check_verdicts(verdicts))
    return float(graph_entropy(A, k, random_state=random_state))


def _spectral_entropy(V: np.ndarray, random_state: RandomStateLike = 0) -> float:
    return float(graph_entropy(_bidirectional(V), "auto", random_state=random_state))


# --------------------------------------------------------------------------- Lin, Trivedi & Sun
def _normalized_laplacian(W: np.ndarray) -> np.ndarray:
    """``I - D^{-1/2} W D^{-1/2}`` of a symmetric ``W`` with unit diagonal (every degree >= 1)."""
    s = 1.0 / np.sqrt(W.sum(axis=1))
    L = -(s[:, None] * W * s[None, :])
    L[np.diag_indices_from(L)] += 1.0
    return (L + L.T) / 2.0


def eigv(W: ArrayLike) -> float:
    """EigV: the sum of ``max(0, 1 - lambda_k)`` over the eigenvalues of the normalised Laplacian (Lin et al. 2024).

    Parameters
    ----------
    W : array-like of shape (n, n), n >= 1
        Symmetric similarities in ``[0, 1]``: 0/1 verdicts or weights.  The
        diagonal is ignored and read as 1 (see the module's diagonal rule).

    Returns
    -------
    float in [1, n]
        :math:`U_{\\mathrm{EigV}} = \\sum_{k=1}^{n}\\max(0, 1-\\lambda_k)`, the
        :math:`\\lambda_k` the eigenvalues of
        :math:`L = I - D^{-1/2} W D^{-1/2}`, :math:`D = \\mathrm{diag}(W\\mathbf 1)`.

    Raises
    ------
    ValueError
        If ``W`` is not a non-empty square, symmetric, finite matrix with
        entries in ``[0, 1]``.

    Notes
    -----
    Lin, Trivedi & Sun (2024, section 4.2) read the answers as a weighted
    graph and count its "soft" connected components.  The eigenvalues of
    ``L`` lie in ``[0, 2]``; the multiplicity of 0 is the number of connected
    components (von Luxburg 2007, Proposition 4), so for ``K`` disjoint
    cliques of verdicts the eigenvalues are ``K`` zeros and the rest at least
    1, and EigV equals ``K``: the number of semantic sets.  Weak links
    between the cliques move the zeros up a little and EigV down a little, so
    it is a continuous version of NumSet.  For the identity (no text like
    another) ``L = 0`` and EigV is ``n``; for the complete graph ``L = I - J/n``
    (eigenvalues 0 once and 1) and EigV is 1.  EigV is at least 1 because
    the smallest eigenvalue is always 0, with eigenvector :math:`D^{1/2}\\mathbf 1`.

    References
    ----------
    Lin, Trivedi & Sun (2024), Generating with confidence: uncertainty
    quantification for black-box large language models, TMLR (arXiv 2305.19187).

    Examples
    --------
    Two cliques of two texts, no link between them: two soft components.

    >>> W = [[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]]
    >>> round(eigv(W), 6)
    2.0
    """
    return _eigv(_check_similarity(W, "W"))


def _eigv(W: np.ndarray) -> float:
    lam = la.eigvalsh(_normalized_laplacian(W))
    return float(np.clip(1.0 - lam, 0.0, None).sum())


def ecc(W: ArrayLike, *, threshold: float = ECC_THRESHOLD) -> float:
    """Ecc: the eccentricity of the answers' spectral embedding (Lin et al. 2024).

    Parameters
    ----------
    W : array-like of shape (n, n), n >= 1
        As in :func:`eigv`.
    threshold : float in (0, 2], default=0.9
        Keep the eigenvectors of the normalised Laplacian whose eigenvalue is
        below ``threshold`` (at least the one of eigenvalue 0 is always kept).

    Returns
    -------
    float in [0, sqrt(n - 1)]
        :math:`U_{\\mathrm{Ecc}} = \\lVert [v'_1, \\dots, v'_n] \\rVert_F`, the
        Frobenius norm of the centred rows of the spectral embedding.

    Raises
    ------
    ValueError
        For a bad ``W`` (as :func:`eigv`) or ``threshold``.

    Notes
    -----
    Let :math:`u_1, \\dots, u_k` be orthonormal eigenvectors of the ``k``
    smallest eigenvalues of :math:`L = I - D^{-1/2} W D^{-1/2}`, text ``j``
    embedded as the row :math:`v_j = (u_{1j}, \\dots, u_{kj})`, and
    :math:`v'_j = v_j - \\frac1n\\sum_i v_i` the centred rows.  Lin, Trivedi &
    Sun (2024, section 4.2) take the distance :math:`\\lVert v'_j\\rVert` of
    text ``j`` from the centre as its (negated) confidence and the norm of
    all of them, :math:`\\sqrt{\\sum_j \\lVert v'_j\\rVert^2}`, as the
    uncertainty of the prompt.  The number ``k`` of eigenvectors is set by
    a threshold on the eigenvalues: those below it are kept.  This function
    keeps the eigenvalues below 0.9, the default threshold of the authors'
    released experiments as we read them (the paper's text leaves the
    value to its code); below 1 are the eigenvalues that EigV counts, and
    0.9 keeps a margin from the eigenvalue 1 that every clique contributes.
    Pass ``threshold`` to change it.  With ``threshold = 2`` all ``n``
    eigenvectors are kept (with a unit diagonal every eigenvalue is below 2:
    :math:`D + W = 2I + \\sum_{i<j} W_{ij}(e_i+e_j)(e_i+e_j)^\\top` is
    positive definite) and Ecc is :math:`\\sqrt{n-1}` for every graph, so
    the threshold is what makes Ecc informative.

    The value does not depend on which orthonormal basis the eigensolver
    returns: with :math:`U` the ``n x k`` matrix of the kept eigenvectors and
    :math:`C = I - \\frac1n J` the centring matrix,
    :math:`U_{\\mathrm{Ecc}}^2 = \\lVert C U\\rVert_F^2 = \\mathrm{tr}(C P)`,
    with :math:`P = U U^\\top` the projector on the kept eigenspaces, which
    does not depend on the basis as long as an eigenspace is kept whole (a
    threshold keeps or drops a repeated eigenvalue whole).  Hence the
    oracle values: for ``K`` disjoint cliques ``P`` projects on the span of
    the block indicators (the kernel of ``L`` is spanned by
    :math:`D^{1/2}\\mathbf 1_c` for each component ``c``, and the degree is
    constant on a clique), which contains the all-ones vector, so
    :math:`\\mathrm{tr}(CP) = K - 1` and Ecc is :math:`\\sqrt{K-1}`: 0 for
    one meaning, :math:`\\sqrt{n-1}` for ``n``
    different answers.

    References
    ----------
    Lin, Trivedi & Sun (2024), section 4.2.

    Examples
    --------
    >>> W = [[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]]
    >>> round(ecc(W), 6)
    1.0
    >>> round(ecc([[1, 1], [1, 1]]), 6)
    0.0
    """
    W = _check_similarity(W, "W")
    threshold = check_real(threshold, "threshold", low=0.0, high=2.0, low_open=True)
    return _ecc(W, threshold)


def _ecc(W: np.ndarray, threshold: float = ECC_THRESHOLD) -> float:
    lam, U = la.eigh(_normalized_laplacian(W))
    U = U[:, lam < threshold]
    C = U - U.mean(axis=0, keepdims=True)
    return float(np.sqrt(np.einsum("ij,ij->", C, C)))


def deg(W: ArrayLike) -> float:
    """Deg: one minus the mean degree over ``n``, :math:`\\mathrm{tr}(nI - D)/n^2` (Lin et al. 2024).

    Parameters
    ----------
    W : array-like of shape (n, n), n >= 1
        As in :func:`eigv` (diagonal read as 1).

    Returns
    -------
    float in [0, 1 - 1/n]
        :math:`U_{\\mathrm{Deg}} = \\mathrm{tr}(nI - D)/n^2 = 1 - \\frac{1}{n^2}\\sum_{i,j} W_{ij}`.

    Raises
    ------
    ValueError
        As :func:`eigv`.

    Notes
    -----
    The degree :math:`D_{jj} = \\sum_i W_{ij}` (self-loop included) counts
    the answers like answer ``j``; Lin, Trivedi & Sun (2024, section 4.2)
    take :math:`D_{jj}/n` as answer ``j``'s confidence and one minus its
    mean as the prompt's uncertainty.  0 when all answers agree; ``1 - 1/n``
    when none does.  For verdicts this is the share of ordered pairs
    (self-pairs included) judged different.

    Examples
    --------
    >>> deg([[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]])
    0.5
    """
    return _deg(_check_similarity(W, "W"))


def _deg(W: np.ndarray) -> float:
    n = W.shape[0]
    return float(np.trace(n * np.eye(n) - np.diag(W.sum(axis=1))) / n**2)


# --------------------------------------------------------------------------- embeddings and texts
def self_similarity_uncertainty(embeddings: ArrayLike) -> float:
    """One minus the self-similarity (mean pairwise cosine) of the embeddings: :math:`1 - \\mathrm{SS}`.

    Parameters
    ----------
    embeddings : array-like of shape (n, d), n >= 2
        One row per answer (rows are normalised).

    Returns
    -------
    float in [0, 1 + 1/(n - 1)]
        :math:`1 - \\frac{1}{n(n-1)}\\sum_{i\\ne j}\\cos(u_i, u_j)`, by
        :func:`semvar.similarity.self_similarity`; 0 when all answers point
        the same way.

    Raises
    ------
    ValueError
        As :func:`semvar.similarity.self_similarity`.

    Notes
    -----
    Self-similarity is a confidence (high = consistent answers), so its
    complement is the uncertainty.  It is a variance:
    :math:`1 - \\mathrm{SS} = \\frac1{n-1}\\sum_i\\lVert\\hat u_i-\\bar u\\rVert^2`,
    the total sample variance of the unit rows :math:`\\hat u_i` (see
    :func:`semvar.similarity.self_similarity`).

    Examples
    --------
    >>> round(self_similarity_uncertainty([[1, 0], [0, 1], [-1, 0]]), 6)
    1.333333
    """
    return 1.0 - self_similarity(embeddings)


def lexical_similarity_uncertainty(texts: Sequence[str]) -> float:
    """One minus the mean ROUGE-L F-measure over the pairs of texts (LexSim, Lin et al. 2024).

    Parameters
    ----------
    texts : sequence of str, at least 2

    Returns
    -------
    float in [0, 1]
        :math:`1 - \\binom n2^{-1}\\sum_{i<j}\\mathrm{ROUGE\\text{-}L}(t_i, t_j)`
        with :func:`rouge_l` on lower-cased word tokens.

    Raises
    ------
    ValueError
        If ``texts`` is not a sequence of at least two strings.

    Notes
    -----
    Lin, Trivedi & Sun (2024, section 4.1) use the mean pairwise lexical
    similarity of the answers (ROUGE-L) as a confidence baseline; ROUGE-L F
    is symmetric, so the mean over ordered pairs equals the mean over
    unordered ones.

    Examples
    --------
    >>> round(lexical_similarity_uncertainty(["it is Paris", "Paris it is", "it is London"]), 6)
    0.333333
    """
    return _lexical(_check_lexical_texts(texts))


def _lexical(texts: list[str]) -> float:
    toks = [word_tokens(t) for t in texts]
    n = len(toks)
    total = sum(rouge_l_tokens(toks[i], toks[j]) for i in range(n) for j in range(i + 1, n))
    return 1.0 - total / (n * (n - 1) / 2)


# --------------------------------------------------------------------------- registry
@dataclass(frozen=True)
class Measure:
    """One uncertainty measure of the registry.

    Attributes
    ----------
    name : str
        The registry key.
    function : callable
        The public function (validates its input).
    needs : {"verdicts", "similarity", "embeddings", "texts"}
        The input it reads.
    label : str
        A short name for tables and figure legends.
    citation : str
        The key of its source in ``book/references.bib``.
    """

    name: str
    function: Callable
    needs: str
    label: str
    citation: str
    _compute: Callable = field(repr=False, compare=False)
    _seeded: bool = field(default=False, repr=False, compare=False)

    def __post_init__(self):
        check_option(self.needs, "needs", NEEDS)


def _on_graph(f: Callable[[np.ndarray], float]) -> Callable[[np.ndarray], float]:
    """A measure of a symmetric unit-diagonal matrix, applied to the bidirectional verdict graph."""
    return lambda V: f(_with_unit_diagonal(_bidirectional(V)))


#: Every uncertainty measure, by key; :func:`uncertainty_measures` dispatches through it.
MEASURES: dict[str, Measure] = {}


def measure(name: str, function: Callable, needs: str, label: str, citation: str, *,
            seeded: bool = False) -> Callable[[Callable], Callable]:
    """Register a measure: decorate the private function that computes it from checked input.

    ``function`` is the public function (which checks its input), ``needs`` the input it reads
    (one of ``"verdicts"``, ``"similarity"``, ``"embeddings"``, ``"texts"``), ``label`` its short name
    in tables, ``citation`` its key in ``book/references.bib``; ``seeded``: the computation takes a
    ``random_state``.  The decorated function is returned unchanged; the measure joins
    :data:`MEASURES` (after those registered before it), and with it :func:`uncertainty_measures`,
    the registry-driven tests and the tables that iterate the registry.
    """
    def decorate(compute: Callable) -> Callable:
        if name in MEASURES:
            raise ValueError(f"a measure named {name!r} is registered already")
        MEASURES[name] = Measure(name, function, needs, label, citation, compute, seeded)
        return compute

    return decorate


# the package's measures, in the order of the module notes' table
measure("semantic_entropy", semantic_entropy, "verdicts", "semantic entropy", "farquhar2024detecting")(_semantic_entropy)
measure("num_semantic_sets", num_semantic_sets, "verdicts", "NumSet", "kuhn2023semantic")(_num_sets)
measure("spectral_entropy", spectral_entropy, "verdicts", "spectral entropy", "liu2025semantic",
        seeded=True)(_spectral_entropy)
measure("eigv", eigv, "verdicts", "EigV", "lin2024generating")(_on_graph(_eigv))
measure("ecc", ecc, "verdicts", "Ecc", "lin2024generating")(_on_graph(_ecc))
measure("deg", deg, "verdicts", "Deg", "lin2024generating")(_on_graph(_deg))
measure("eigv_w", eigv, "similarity", "EigV (weighted)", "lin2024generating")(_eigv)
measure("ecc_w", ecc, "similarity", "Ecc (weighted)", "lin2024generating")(_ecc)
measure("deg_w", deg, "similarity", "Deg (weighted)", "lin2024generating")(_deg)
measure("self_similarity", self_similarity_uncertainty, "embeddings", "1 - self-similarity",
        "selfsimilarity")(lambda E: 1.0 - self_similarity(E))
measure("lexical_similarity", lexical_similarity_uncertainty, "texts", "1 - LexSim (ROUGE-L)",
        "lin2024generating")(_lexical)


def _check_names(names: Sequence[str] | None, given: dict) -> list[str]:
    if names is None:
        return [k for k, m in MEASURES.items() if m.needs in given]
    if isinstance(names, (str, bytes)) or not hasattr(names, "__iter__"):
        raise ValueError(f"names must be None or a sequence of measure names from {tuple(MEASURES)}, got {show(names)}")
    out = list(names)
    for name in out:
        if not isinstance(name, str) or name not in MEASURES:
            raise ValueError(f"names must be measure names from {tuple(MEASURES)}, got {show(name)}")
        need = MEASURES[name].needs
        if need not in given:
            raise ValueError(f"measure {name!r} needs {need}=, which was not given")
    if len(set(out)) != len(out):
        raise ValueError(f"names must not repeat a measure, got {out}")
    return out


def uncertainty_measures(
    *,
    verdicts: ArrayLike | None = None,
    similarity: ArrayLike | None = None,
    embeddings: ArrayLike | None = None,
    texts: Sequence[str] | None = None,
    names: Sequence[str] | None = None,
    random_state: RandomStateLike = 0,
) -> dict[str, float]:
    """Every registered uncertainty measure whose input is given, on the same matrices.

    Parameters
    ----------
    verdicts : array-like of bool or 0/1, shape (n, n), optional
        Judge verdicts (see the module notes): for semantic entropy, NumSet,
        spectral entropy and EigV/Ecc/Deg of the bidirectional graph.
    similarity : array-like of shape (n, n), optional
        Symmetric similarities in [0, 1]: for the weighted EigV/Ecc/Deg.
    embeddings : array-like of shape (n, d), optional
        For ``1 - self-similarity``.
    texts : sequence of str, optional
        For ``1 - LexSim``.
    names : sequence of str, optional
        Keys of :data:`MEASURES` to evaluate, in this order; None: every
        measure whose input is given, in the registry's order.
    random_state : None, int or numpy.random.Generator, default=0
        Seeds the spectral entropy.

    Returns
    -------
    dict of str to float
        Registry key to uncertainty (higher = more uncertain); NumSet as a float.

    Raises
    ------
    ValueError
        If no input is given, an input is invalid (as for the measure's own
        function), the inputs disagree on the number of texts ``n``, or
        ``names`` is not a sequence of distinct registry keys whose inputs
        are given.

    Notes
    -----
    Each input is checked once; the measures then receive the checked
    arrays.  All verdict measures see the same verdict matrix (the graph
    measures its bidirectional graph) and all weighted ones the same
    similarity matrix, so differences between them are differences of the
    measures, not of the graphs.

    Examples
    --------
    >>> V = [[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]]
    >>> out = uncertainty_measures(verdicts=V, texts=["Paris", "Paris", "London", "London"])
    >>> list(out) == [k for k, m in MEASURES.items() if m.needs in ("verdicts", "texts")]
    True
    >>> {k: round(out[k], 4) for k in ("semantic_entropy", "num_semantic_sets", "spectral_entropy", "eigv",
    ...                                "ecc", "deg", "lexical_similarity")}  # doctest: +NORMALIZE_WHITESPACE
    {'semantic_entropy': 0.6931, 'num_semantic_sets': 2.0, 'spectral_entropy': 0.6931, 'eigv': 2.0,
     'ecc': 1.0, 'deg': 0.5, 'lexical_similarity': 0.6667}
    """
    rng = check_random_state(random_state)
    inputs = {"verdicts": verdicts, "similarity": similarity, "embeddings": embeddings, "texts": texts}
    given = {need: _CHECKS[need](x) for need, x in inputs.items() if x is not None}
    sizes = {need: len(x) for need, x in given.items()}
    if not given:
        raise ValueError(f"uncertainty_measures needs at least one of {', '.join(n + '=' for n in NEEDS)}")
    if len(set(sizes.values())) > 1:
        raise ValueError(f"the inputs must describe the same number of texts, got {sizes}")
    chosen = _check_names(names, given)
    out: dict[str, float] = {}
    for name in chosen:
        m = MEASURES[name]
        x = given[m.needs]
        if m._seeded:
            out[name] = float(m._compute(x, random_state=rng))
        else:
            out[name] = float(m._compute(x))
    return out
