"""Semantic entropy in its own regime: one model's twenty sampled answers per question (uq_nlg).

The data are LLaMA-13B's 20 answers, sampled at temperature 1, to each of 500
TriviaQA questions, with one reference answer per question
(:func:`semvar.data.load_uq_nlg`; Lin, Trivedi & Sun 2024).  This is the
setting semantic entropy was made for: many samples of **one** model, so the
variability measures how unsure that model is.

What the study computes (:func:`run`), per question:

- **judges** of "same meaning" between two answers, each an ``20 x 20``
  verdict matrix (:data:`JUDGES`): normalised exact match
  (:class:`semvar.judges.ExactMatchJudge`), word overlap
  (:class:`semvar.judges.LexicalJudge`, Jaccard >= 0.5), ROUGE-L >= 0.5
  (:class:`semvar.judges.RougeJudge`) and the MiniLM cosine judge at two
  thresholds (:data:`MINILM_THRESHOLDS`; the 10,000 answers are embedded once
  with all-MiniLM-L6-v2 and cached);
- **correctness** of the question's most frequent answer against the
  reference under three rules (:data:`CORRECTNESS`, :func:`is_correct`) --
  the target every measure is scored on;
- **every measure** of :data:`semvar.measures.MEASURES` under every judge
  (the verdict measures on the judge's verdicts, the weighted ones on its
  scores), the variants of :mod:`semvar.spectral_variants`, the K that
  ``k="auto"`` chooses, and the judge's ``p`` and ``q`` against the
  exact-match relation and against a reference-anchored relation;
- a **subsampling** study: ``N`` of the 20 answers (:data:`SUBSAMPLE_N`,
  :data:`DRAWS` draws with fixed seeds), every measure recomputed on the
  induced subgraph, scored against the same target.

Regenerate the stored results with::

    python -m semvar.experiments.regime     # writes data/regime_*.csv.gz, .npz, .json

The embeddings (about one CPU minute) are cached (:func:`semvar.data.cache_dir`);
everything else takes a few CPU minutes and is deterministic.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import time
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .._validation import check_array, check_bool, check_int, check_option, check_texts
from ..data import cache_dir, load_uq_nlg, result_path
from ..entropy import empirical_entropy
from ..evaluation import auarc, auroc_ci
from ..judges import LexicalJudge, RougeJudge, normalize_answer, rouge_l
from ..measures import MEASURES, uncertainty_measures
from ..pipeline import graph_entropy
from ..select_k import choose_k
from ..spectral_variants import effective_k, spectral_entropy_given_k_rule, von_neumann_entropy

__all__ = [
    "MINILM_THRESHOLDS", "JUDGES", "CORRECTNESS", "SUBSAMPLE_N", "DRAWS", "SEED", "GRAPH_NEEDS", "FREE_NEEDS",
    "VARIANTS", "FREE_EXTRAS", "REGENERATE", "QUESTIONS_FILE", "COSINES_FILE", "SUBSAMPLE_FILE", "SUMMARY_FILE",
    "graph_measures", "free_measures", "measure_labels", "lin_peers", "missing_measures", "answer_classes", "most_frequent", "study_questions", "is_correct", "judge_matrices", "question_row", "pq_counts",
    "dispersion", "score_table", "subsample_rows", "disagreement", "embed_answers", "cosine_matrices",
    "load_study", "run", "write_study", "main",
]

#: The MiniLM cosine judge's two thresholds: a lenient and a strict one.
MINILM_THRESHOLDS = (0.8, 0.9)
#: Judge key -> description, in the order of the tables.
JUDGES = {
    "exact": "normalised exact match",
    "lexical": "word overlap (Jaccard >= 0.5)",
    "rouge": "ROUGE-L >= 0.5",
    "minilm80": "MiniLM cosine >= 0.8",
    "minilm90": "MiniLM cosine >= 0.9",
}
#: Correctness rules of an answer against the reference (see :func:`is_correct`).
CORRECTNESS = ("exact", "contains", "rouge")
SUBSAMPLE_N = (2, 3, 5, 10, 20)
DRAWS = 10
SEED = 0
_ROUGE_CORRECT = 0.5
_JACCARD = 0.5
_ROUGE_JUDGE = 0.5

#: The inputs of the registry's measures that a judge gives (its verdicts, its scores): these measures are
#: computed once per judge (:func:`graph_measures`).
GRAPH_NEEDS = ("verdicts", "similarity")
#: The inputs of the registry's measures that need no judge (:func:`free_measures`).
FREE_NEEDS = ("embeddings", "texts")
#: The study's own scores beside the registry, with their labels: the variants of
#: :mod:`semvar.spectral_variants`, computed from each judge's verdicts ...
VARIANTS = {"von_neumann": "von Neumann (no K)", "spectral_k_rule": "spectral, K by rho"}
#: ... and two scores that need no judge: the von Neumann entropy of the cosine matrix and one minus
#: the share of the most frequent answer.
FREE_EXTRAS = {"von_neumann_cos": "von Neumann of the cosines", "one_minus_top_share": "1 - share of the most frequent"}
#: The command that regenerates the stored study (``data/regime_*``).
REGENERATE = "python -m semvar.experiments.regime"

QUESTIONS_FILE = "regime_questions.csv.gz"
COSINES_FILE = "regime_cosines.npz"
SUBSAMPLE_FILE = "regime_subsample.csv.gz"
SUMMARY_FILE = "regime_summary.json"
_GZ = {"method": "gzip", "mtime": 0}
_DIGITS = 6  # per-question values are kept to 6 decimals, so equal graphs give exactly equal (tied) scores


# --------------------------------------------------------------------------- the measures of the study


def graph_measures(*, variants: bool = True) -> list[str]:
    """The scores the study computes from each judge: the registry's measures of a judged graph, then the variants.

    Parameters
    ----------
    variants : bool, default=True
        Append the keys of :data:`VARIANTS` (the study's own scores of a judge's verdicts).

    Returns
    -------
    list of str
        The keys of :data:`semvar.measures.MEASURES` whose input is in
        :data:`GRAPH_NEEDS` (a judge's verdicts or scores), in the
        registry's order, read when called (a measure registered later is
        included); then :data:`VARIANTS`.  The study stores judge ``j``'s
        value of measure ``m`` in the column ``f"{j}:{m}"``.

    Examples
    --------
    >>> "spectral_entropy" in graph_measures(variants=False), graph_measures()[-2:]
    (True, ['von_neumann', 'spectral_k_rule'])
    """
    keys = [k for k, m in MEASURES.items() if m.needs in GRAPH_NEEDS]
    return keys + list(VARIANTS) if check_bool(variants, "variants") else keys


def free_measures(*, extras: bool = True) -> list[str]:
    """The scores the study computes without a judge: the registry's measures of embeddings or texts, then its own.

    Parameters
    ----------
    extras : bool, default=True
        Append the keys of :data:`FREE_EXTRAS`.

    Returns
    -------
    list of str
        The keys of :data:`semvar.measures.MEASURES` whose input is in
        :data:`FREE_NEEDS`, in the registry's order (read when called); then
        :data:`FREE_EXTRAS`.  Each is one column of the study.

    Examples
    --------
    >>> "self_similarity" in free_measures(extras=False), free_measures()[-2:]
    (True, ['von_neumann_cos', 'one_minus_top_share'])
    """
    keys = [k for k, m in MEASURES.items() if m.needs in FREE_NEEDS]
    return keys + list(FREE_EXTRAS) if check_bool(extras, "extras") else keys


def measure_labels() -> dict[str, str]:
    """The label of every score of the study, for tables: the registry's labels, then those of the study's own.

    Returns
    -------
    dict of str to str
        Key to label: the ``label`` of :class:`semvar.measures.Measure` for every
        registered measure (read when called), then :data:`VARIANTS` and
        :data:`FREE_EXTRAS`.

    Examples
    --------
    >>> labels = measure_labels()
    >>> labels["deg"], labels["von_neumann"]
    ('Deg', 'von Neumann (no K)')
    """
    return {k: m.label for k, m in MEASURES.items()} | VARIANTS | FREE_EXTRAS


def lin_peers() -> list[str]:
    """The measures of Lin, Trivedi & Sun (2024) on a judge's verdicts: spectral entropy's peers on the same graph.

    Returns
    -------
    list of str
        The keys of :data:`semvar.measures.MEASURES` that read verdicts and
        cite ``lin2024generating``, in the registry's order (read when
        called).  Chapter 10 and its record ``regime.spectral_vs_graph_measures``
        compare spectral entropy with each of them under every judge.

    Examples
    --------
    >>> lin_peers()[:3]
    ['eigv', 'ecc', 'deg']
    """
    return [k for k, m in MEASURES.items() if m.needs == "verdicts" and m.citation == "lin2024generating"]


def missing_measures(questions: pd.DataFrame, subsample: pd.DataFrame | None = None) -> list[str]:
    """The scores of the study a stored result lacks: a measure registered after it was written, for example.

    Parameters
    ----------
    questions : pandas.DataFrame
        The per-question table (:func:`load_study`'s ``questions``, or
        :func:`study_questions`'s frame).
    subsample : pandas.DataFrame, optional
        The subsampling table (:func:`load_study`'s ``subsample``: columns
        ``N`` and ``measure``); every size ``N`` in it must score every
        measure.

    Returns
    -------
    list of str
        The columns of :func:`graph_measures` under every judge of
        :data:`JUDGES` (``"judge:measure"``) and of :func:`free_measures`
        that ``questions`` lacks, then ``"N=<size>: <column>"`` for each
        one a size of ``subsample`` lacks; empty when the result is
        complete.  Regenerate an incomplete one with :data:`REGENERATE`.
        ``one_minus_top_share`` is derived from ``top_share``
        (:func:`load_study` adds it), so ``questions`` needs one of the two.

    Raises
    ------
    ValueError
        If ``questions`` is not a DataFrame, or ``subsample`` is neither
        None nor a DataFrame with columns ``N`` and ``measure``.

    Examples
    --------
    >>> q = pd.DataFrame({f"{j}:{m}": [0.0] for j in JUDGES for m in graph_measures()})
    >>> missing_measures(q.assign(**{m: 0.0 for m in free_measures()}))
    []
    >>> missing_measures(q.drop(columns="rouge:eigv").assign(**{m: 0.0 for m in free_measures()}))
    ['rouge:eigv']
    """
    if not isinstance(questions, pd.DataFrame):
        raise ValueError(f"questions must be a pandas DataFrame, got {type(questions).__name__}")
    if subsample is not None and (not isinstance(subsample, pd.DataFrame)
                                  or not {"N", "measure"} <= set(subsample.columns)):
        raise ValueError("subsample must be None or a DataFrame with columns N and measure (load_study's subsample)")
    wanted = [f"{j}:{m}" for j in JUDGES for m in graph_measures()] + free_measures()
    have = set(questions.columns) | ({"one_minus_top_share"} if "top_share" in questions.columns else set())
    out = [c for c in wanted if c not in have]
    if subsample is not None:
        for size, names in subsample.groupby("N", sort=True)["measure"]:
            scored = set(names)
            out += [f"N={size}: {c}" for c in wanted if c not in scored]
    return out


def _with_top_share_score(q: pd.DataFrame) -> pd.DataFrame:
    """``q`` with the column ``one_minus_top_share`` (:data:`FREE_EXTRAS`) appended (a new frame)."""
    return pd.concat([q, (1.0 - q["top_share"]).rename("one_minus_top_share")], axis=1)


# --------------------------------------------------------------------------- answers and correctness


def answer_classes(answers: Sequence[str]) -> np.ndarray:
    """Normalised exact-match classes of a question's answers, labelled 0, 1, ... by first appearance.

    Parameters
    ----------
    answers : sequence of str

    Returns
    -------
    ndarray of int64, shape (n,)
        Two answers share a label when their SQuAD-normalised strings
        (:func:`semvar.judges.normalize_answer`) are equal.

    Examples
    --------
    >>> answer_classes(["Paris", "paris.", "London", "The Paris"]).tolist()
    [0, 0, 1, 0]
    """
    texts = check_texts(answers)
    return _classes([normalize_answer(t) for t in texts])


def _classes(norm: list[str]) -> np.ndarray:
    index: dict[str, int] = {}
    return np.array([index.setdefault(s, len(index)) for s in norm], dtype=np.int64)


def most_frequent(answers: Sequence[str]) -> tuple[int, float]:
    """The most frequent answer (by normalised exact match) and its share.

    Parameters
    ----------
    answers : sequence of str

    Returns
    -------
    (index, share) : (int, float)
        ``index`` of the first answer of the largest class; ``share`` its size
        over ``n``.  **Tie rule**: among classes of equal size the one whose
        first answer comes first in the sample order wins.

    Examples
    --------
    >>> most_frequent(["London", "Paris", "paris", "london", "Rome"])
    (0, 0.4)
    """
    labels = answer_classes(answers)
    return _most_frequent(labels)


def _most_frequent(labels: np.ndarray) -> tuple[int, float]:
    counts = np.bincount(labels)
    top = int(np.argmax(counts))  # argmax returns the first maximum: the class seen first
    return int(np.flatnonzero(labels == top)[0]), float(counts[top] / labels.size)


def is_correct(answer: str, reference: str, rule: str = "exact") -> bool:
    """Whether ``answer`` matches the one reference answer under ``rule``.

    Parameters
    ----------
    answer, reference : str
    rule : {"exact", "contains", "rouge"}, default="exact"
        ``"exact"``: the normalised strings are equal
        (:func:`semvar.judges.normalize_answer`).  ``"contains"``: the
        normalised reference occurs in the normalised answer as a run of
        whole words (so "Annie and Clarabel" is right for "Annie").
        ``"rouge"``: ROUGE-L F-measure (:func:`semvar.judges.rouge_l`) of
        the answer against the reference at least 0.5.

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        For a non-string answer or reference, or an unknown rule.

    Notes
    -----
    The data hold one alias of the reference per question, so every rule
    misses right answers written another way ("JFK" for "John F. Kennedy"):
    measured correctness is a lower bound, and the looser rules show how far
    it moves.  An empty answer is never right.

    Examples
    --------
    >>> is_correct("The Eiffel Tower.", "eiffel tower")
    True
    >>> is_correct("Annie and Clarabel", "Annie"), is_correct("Annie and Clarabel", "Annie", "contains")
    (False, True)
    """
    for name, value in (("answer", answer), ("reference", reference)):
        if not isinstance(value, str):
            raise ValueError(f"{name} must be a string, got {type(value).__name__}")
    check_option(rule, "rule", CORRECTNESS)
    return _correct(answer, reference, rule)


def _correct(answer: str, reference: str, rule: str) -> bool:
    a, r = normalize_answer(answer), normalize_answer(reference)
    if not a or not r:
        return False
    if rule == "exact":
        return a == r
    if rule == "contains":
        return f" {r} " in f" {a} "
    return rouge_l(answer, reference) >= _ROUGE_CORRECT


# --------------------------------------------------------------------------- judges


def judge_matrices(answers: Sequence[str], cosines: ArrayLike) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Every judge of :data:`JUDGES` on one question's answers: ``{key: (verdicts, scores)}``.

    Parameters
    ----------
    answers : sequence of str, length n
    cosines : array-like of shape (n, n)
        MiniLM cosines of the answers (symmetric; the diagonal is ignored).

    Returns
    -------
    dict
        For each judge a boolean ``(n, n)`` verdict matrix with a zero
        diagonal and an ``(n, n)`` score matrix in ``[0, 1]`` with a unit
        diagonal (the exact-match verdicts; the Jaccard index; the ROUGE-L
        F-measure; the cosine clipped to ``[0, 1]``), from which the
        weighted measures of Lin et al. read.

    Examples
    --------
    >>> C = np.array([[1.0, 0.95, 0.1], [0.95, 1.0, 0.2], [0.1, 0.2, 1.0]])
    >>> m = judge_matrices(["Paris", "paris", "London"], C)
    >>> m["exact"][0].astype(int).tolist(), m["minilm90"][0][0, 1]
    ([[0, 1, 0], [1, 0, 0], [0, 0, 0]], np.True_)
    """
    texts = check_texts(answers)
    n = len(texts)
    C = check_array(cosines, "cosines", ndim=2)
    if C.shape != (n, n):
        raise ValueError(f"cosines must have shape ({n}, {n}) for {n} answers, got {C.shape}")
    if np.abs(C - C.T).max() > 1e-8:
        raise ValueError("cosines must be symmetric")
    return _judge_matrices(texts, C)


def _score_matrix(n: int, iu, values) -> np.ndarray:
    S = np.eye(n)
    S[iu] = values
    return np.maximum(S, S.T)


def _judge_matrices(texts: list[str], C: np.ndarray) -> dict:
    n = len(texts)
    iu = np.triu_indices(n, 1)
    P = np.stack(iu, axis=1)
    lab = _classes([normalize_answer(t) for t in texts])
    X = lab[:, None] == lab[None, :]
    J = _score_matrix(n, iu, LexicalJudge().score(texts, P)) if n > 1 else np.eye(n)
    R = _score_matrix(n, iu, RougeJudge().score(texts, P)) if n > 1 else np.eye(n)
    Cc = np.clip(C, 0.0, 1.0)
    np.fill_diagonal(Cc, 1.0)
    out = {
        "exact": (X, X.astype(float)),
        "lexical": (J >= _JACCARD, J),
        "rouge": (R >= _ROUGE_JUDGE, R),
        "minilm80": (C >= MINILM_THRESHOLDS[0], Cc),
        "minilm90": (C >= MINILM_THRESHOLDS[1], Cc),
    }
    for V, _ in out.values():
        np.fill_diagonal(V, False)
    return out


def pq_counts(verdicts: ArrayLike, labels: ArrayLike) -> tuple[int, int, int, int]:
    """TRUE verdicts and pairs among same-label and different-label pairs: ``(k_same, n_same, k_diff, n_diff)``.

    Parameters
    ----------
    verdicts : array-like of bool, shape (n, n)
        Symmetric verdicts (the upper triangle is read).
    labels : array-like of shape (n,)
        The reference relation's classes; a negative label marks an answer
        whose class is unknown (its pairs are left out).

    Returns
    -------
    tuple of int
        The judge's ``p`` is ``k_same / n_same`` and ``q`` is ``k_diff / n_diff``.

    Examples
    --------
    >>> V = np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]], dtype=bool)
    >>> pq_counts(V, [0, 0, 1])
    (1, 1, 1, 2)
    """
    V = np.asarray(verdicts).astype(bool)
    lab = np.asarray(labels)
    if V.ndim != 2 or V.shape[0] != V.shape[1] or lab.shape != (V.shape[0],):
        raise ValueError(f"verdicts must be (n, n) and labels (n,), got shapes {V.shape} and {lab.shape}")
    return _pq_counts(V, lab)


def _pq_counts(V: np.ndarray, lab: np.ndarray) -> tuple[int, int, int, int]:
    iu = np.triu_indices(V.shape[0], 1)
    known = (lab[iu[0]] >= 0) & (lab[iu[1]] >= 0)
    same = (lab[iu[0]] == lab[iu[1]]) & known
    diff = ~same & known
    v = V[iu]
    return int(v[same].sum()), int(same.sum()), int(v[diff].sum()), int(diff.sum())


def dispersion(k: ArrayLike, n: ArrayLike) -> tuple[float, int, float]:
    """Pearson's dispersion test of one success rate across groups: ``(chi2, dof, p_value)``.

    Parameters
    ----------
    k, n : array-like of int, shape (g,)
        Successes and trials per group (groups with ``n = 0`` are dropped).

    Returns
    -------
    (statistic, dof, p_value)
        :math:`\\sum_g (k_g - n_g \\hat p)^2 / (n_g \\hat p (1 - \\hat p))`
        with the pooled :math:`\\hat p`, on ``g - 1`` degrees of freedom.
        Under one binomial rate the statistic is about its ``dof``; much
        larger means overdispersion (the rate differs between groups).

    Raises
    ------
    ValueError
        Shapes differ, a count is negative or ``k > n``, fewer than two
        groups with trials, or a pooled rate of 0 or 1 (no variance).

    Examples
    --------
    >>> stat, dof, p = dispersion([5, 5, 5], [10, 10, 10])
    >>> stat, dof, round(p, 3)
    (0.0, 2, 1.0)
    """
    from scipy.stats import chi2

    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    if k.shape != n.shape or k.ndim != 1:
        raise ValueError(f"k and n must be 1-D of the same length, got shapes {k.shape} and {n.shape}")
    if np.any(n < 0) or np.any(k < 0) or np.any(k > n):
        raise ValueError("k and n must be counts with 0 <= k <= n")
    keep = n > 0
    k, n = k[keep], n[keep]
    if k.size < 2:
        raise ValueError(f"dispersion needs at least two groups with trials, got {k.size}")
    p = k.sum() / n.sum()
    if p <= 0 or p >= 1:
        raise ValueError(f"the pooled rate must lie strictly between 0 and 1, got {p}")
    stat = float(((k - n * p) ** 2 / (n * p * (1 - p))).sum())
    dof = int(k.size - 1)
    return stat, dof, float(chi2.sf(stat, dof))


# --------------------------------------------------------------------------- one question


def _spectral_k(A: np.ndarray, k: int, seed: int) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(graph_entropy(A, k, random_state=seed))


def question_row(answers: Sequence[str], reference: str, cosines: ArrayLike, embeddings: ArrayLike | None = None, *,
                 random_state: int = SEED) -> dict:
    """Every per-question quantity of the study for one question (see the module docstring).

    Parameters
    ----------
    answers : sequence of str
        The question's sampled answers (``n >= 2``).
    reference : str
        The reference answer.
    cosines : array-like of shape (n, n)
        MiniLM cosines of the answers.
    embeddings : array-like of shape (n, d), optional
        Their embeddings, for ``1 - self-similarity`` (left out when None).
    random_state : int, default=SEED
        Seeds k-means in the spectral measures.

    Returns
    -------
    dict
        Keys ``n``, ``k_exact`` (number of exact-match classes),
        ``singletons``, ``h_exact`` (plug-in entropy of those classes),
        ``top_share``, ``mf_index``; ``mf_correct_<rule>`` and
        ``accuracy_<rule>`` for each rule of :data:`CORRECTNESS`; the
        judge-free uncertainties (every key of ``free_measures(extras=False)``
        as :func:`semvar.measures.uncertainty_measures` returns it, e.g.
        ``self_similarity`` and ``lexical_similarity``, one minus the mean
        pairwise cosine / ROUGE-L; those that read embeddings only when
        ``embeddings`` is given;
        ``von_neumann_cos``: :func:`semvar.spectral_variants.von_neumann_entropy`
        of the cosine matrix); and for every judge ``j`` of :data:`JUDGES`:
        ``j:<measure>`` for every key of :func:`graph_measures`,
        ``j:k_auto``, ``j:k_rule``, ``j:isolated``, ``j:spectral_k_exact``
        (spectral entropy with K set to ``k_exact``), and the counts behind
        the judge's ``p`` and ``q``: ``j:exact_k_same``, ``j:exact_n_same``,
        ``j:exact_k_diff``, ``j:exact_n_diff`` against the exact-match
        relation, and the same with ``anchored`` against the
        reference-anchored relation (two answers right under the
        "contains" or "rouge" rule are the same; a right and a wrong answer
        differ; two wrong answers are left out).

    Examples
    --------
    >>> C = np.eye(4); C[0, 1] = C[1, 0] = C[2, 3] = C[3, 2] = 0.95
    >>> row = question_row(["Paris", "Paris", "London", "london"], "Paris", C)
    >>> row["k_exact"], round(row["h_exact"], 4), row["mf_correct_exact"], round(row["minilm90:spectral_entropy"], 4)
    (2, 0.6931, True, 0.6931)
    """
    texts = check_texts(answers)
    if len(texts) < 2:
        raise ValueError(f"answers must hold at least two answers, got {len(texts)}")
    if not isinstance(reference, str):
        raise ValueError(f"reference must be a string, got {type(reference).__name__}")
    C = check_array(cosines, "cosines", ndim=2)
    if C.shape != (len(texts), len(texts)):
        raise ValueError(f"cosines must have shape ({len(texts)}, {len(texts)}), got {C.shape}")
    seed = check_int(random_state, "random_state", low=0)
    E = None if embeddings is None else check_array(embeddings, "embeddings", ndim=2)
    return _question_row(texts, reference, C, E, seed)


def _question_row(texts, reference, C, E, seed, *, subsample: bool = False, judges=None) -> dict:
    n = len(texts)
    lab = _classes([normalize_answer(t) for t in texts])
    counts = np.bincount(lab)
    row: dict = {"n": n, "k_exact": int(counts.size), "singletons": int((counts == 1).sum()),
                 "h_exact": empirical_entropy(lab)}
    mf, share = _most_frequent(lab)
    row["top_share"] = share
    row["mf_index"] = mf
    if not subsample:
        for rule in CORRECTNESS:
            row[f"mf_correct_{rule}"] = _correct(texts[mf], reference, rule)
            row[f"accuracy_{rule}"] = float(np.mean([_correct(t, reference, rule) for t in texts]))
        anchored = np.array([_correct(t, reference, "contains") or _correct(t, reference, "rouge") for t in texts])
    given = {"texts": texts} if E is None else {"embeddings": E, "texts": texts}
    free = [k for k in free_measures(extras=False) if MEASURES[k].needs in given]
    row.update(uncertainty_measures(**given, names=free, random_state=seed))
    row["von_neumann_cos"] = von_neumann_entropy(np.clip(C, -1.0, 1.0))
    graph = graph_measures(variants=False)
    for j, (V, S) in _judge_matrices(texts, C).items():
        if judges is not None and j not in judges:
            continue
        m = uncertainty_measures(verdicts=V, similarity=S, names=graph, random_state=seed)
        for key, value in m.items():
            row[f"{j}:{key}"] = value
        A = V.astype(float)
        row[f"{j}:von_neumann"] = von_neumann_entropy(A)
        row[f"{j}:spectral_k_rule"] = float(spectral_entropy_given_k_rule(A, random_state=seed))
        row[f"{j}:k_rule"] = effective_k(A)
        row[f"{j}:isolated"] = int((A.sum(axis=1) == 0).sum())
        if n >= 3:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                row[f"{j}:k_auto"] = int(choose_k(A, "auto", k_max=min(10, n - 1), random_state=seed))
        row[f"{j}:spectral_k_exact"] = _spectral_k(A, int(counts.size), seed)
        if not subsample:
            for name, counts4 in (("exact", _pq_counts(V, lab)), ("anchored", _anchored_counts(V, anchored))):
                ks, ns, kd, nd = counts4
                row[f"{j}:{name}_k_same"], row[f"{j}:{name}_n_same"] = ks, ns
                row[f"{j}:{name}_k_diff"], row[f"{j}:{name}_n_diff"] = kd, nd
    return row


def _anchored_counts(V: np.ndarray, right: np.ndarray) -> tuple[int, int, int, int]:
    """Counts against the reference-anchored relation: two right answers are "same", a right and a wrong one
    "different"; two wrong answers are left out (they may or may not agree with each other)."""
    iu = np.triu_indices(V.shape[0], 1)
    ri, rj = right[iu[0]], right[iu[1]]
    same, diff = ri & rj, ri ^ rj
    v = V[iu]
    return int(v[same].sum()), int(same.sum()), int(v[diff].sum()), int(diff.sum())


# --------------------------------------------------------------------------- scoring


def score_table(questions: pd.DataFrame, columns: Iterable[str], *, target: str = "mf_correct_exact",
                level: float = 0.95) -> pd.DataFrame:
    """AUROC (DeLong interval) and AUARC of each uncertainty column for predicting a wrong answer.

    Parameters
    ----------
    questions : pandas.DataFrame
        One row per question, with the columns and a boolean ``target`` column
        (True = the answer is right).
    columns : sequence of str
        Uncertainty columns (higher = more uncertain).
    target : str, default="mf_correct_exact"
    level : float, default=0.95

    Returns
    -------
    pandas.DataFrame
        Indexed by column: ``auroc``, ``low``, ``high`` (predicting
        ``~target``) and ``auarc`` (accuracy of the kept answers, ``target``).

    Examples
    --------
    >>> q = pd.DataFrame({"u": [0.1, 0.2, 0.8, 0.9, 0.3, 0.7], "ok": [1, 1, 0, 0, 1, 0]})
    >>> score_table(q.astype({"ok": bool}), ["u"], target="ok").loc["u", "auroc"]
    np.float64(1.0)
    """
    if not isinstance(questions, pd.DataFrame):
        raise ValueError(f"questions must be a pandas DataFrame, got {type(questions).__name__}")
    if target not in questions.columns:
        raise ValueError(f"target {target!r} is not a column of questions")
    cols = [columns] if isinstance(columns, str) else list(columns)
    missing = [c for c in cols if c not in questions.columns]
    if missing:
        raise ValueError(f"columns {missing} are not columns of questions")
    right = questions[target].to_numpy().astype(bool)
    rows = {}
    for c in cols:
        u = questions[c].to_numpy(dtype=float)
        auc, lo, hi = auroc_ci(u, ~right, level=level)
        rows[c] = {"auroc": auc, "low": lo, "high": hi, "auarc": auarc(u, right)}
    return pd.DataFrame(rows).T


def disagreement(questions: pd.DataFrame, columns: Sequence[str], *, top: int = 3) -> pd.DataFrame:
    """The questions on which uncertainty measures disagree most: largest spread of their percentile ranks.

    Parameters
    ----------
    questions : pandas.DataFrame
    columns : sequence of str
        At least two uncertainty columns.
    top : int, default=3

    Returns
    -------
    pandas.DataFrame
        The ``top`` questions, each column's percentile rank (0-1; ties get
        the mean rank) and ``spread`` (largest minus smallest rank), sorted by
        spread (stable).

    Examples
    --------
    >>> q = pd.DataFrame({"a": [1, 2, 3, 4], "b": [4, 3, 2, 1]})
    >>> disagreement(q, ["a", "b"], top=1).index.tolist()
    [0]
    """
    cols = list(columns)
    if len(cols) < 2:
        raise ValueError(f"columns must name at least two measures, got {cols}")
    top = check_int(top, "top", low=1)
    ranks = questions[cols].rank(pct=True)
    ranks["spread"] = ranks.max(axis=1) - ranks.min(axis=1)
    return ranks.sort_values("spread", ascending=False, kind="stable").head(top)


# --------------------------------------------------------------------------- subsampling


def _check_judges(judges) -> tuple:
    if judges is None:
        return tuple(JUDGES)
    if isinstance(judges, str) or not hasattr(judges, "__iter__"):
        raise ValueError(f"judges must be None or a sequence of keys from {tuple(JUDGES)}, got {judges!r}")
    out = tuple(judges)
    bad = [j for j in out if j not in JUDGES]
    if bad or not out:
        raise ValueError(f"judges must be keys from {tuple(JUDGES)}, got {list(out)}")
    return out


def study_questions(frame: pd.DataFrame, cosines: ArrayLike, embeddings: Sequence[ArrayLike] | np.ndarray | None = None, *, seed: int = SEED,
                    judges: Sequence[str] | None = None, progress: bool = False) -> pd.DataFrame:
    """:func:`question_row` of every question of the loader's frame, indexed by question id.

    Parameters
    ----------
    frame : pandas.DataFrame
        :func:`semvar.data.load_uq_nlg`'s frame (``id``, ``answers``, ``reference``).
    cosines : array-like of shape (questions, n, n)
        The answers' MiniLM cosines (:func:`cosine_matrices`, or the stored file).
    embeddings : array-like of shape (questions, n, d), optional
        For ``self_similarity`` (left out when None).
    seed : int, default=SEED
    judges : sequence of str, optional
        Keys of :data:`JUDGES` (default all).
    progress : bool, default=False

    Returns
    -------
    pandas.DataFrame
        One row per question (index ``id``), the keys of :func:`question_row`
        as columns, floats rounded to 6 decimals: scores of graphs that are
        equal up to the order of the answers then tie exactly, on every CPU,
        and the frame equals the stored ``data/regime_questions.csv.gz``.
    """
    from tqdm.auto import tqdm

    from .._threads import one_thread as _one_thread

    if not isinstance(frame, pd.DataFrame) or not {"id", "answers", "reference"} <= set(frame.columns):
        raise ValueError("frame must be the DataFrame load_uq_nlg returns (columns id, answers, reference)")
    C = np.asarray(cosines, dtype=float)
    n = len(frame["answers"].iloc[0]) if len(frame) else 0
    if C.shape != (len(frame), n, n):
        raise ValueError(f"cosines must have shape ({len(frame)}, {n}, {n}), got {C.shape}")
    judges = _check_judges(judges)
    seed = check_int(seed, "seed", low=0)
    rows = []
    with _one_thread():
        for qi in tqdm(range(len(frame)), desc="measures per question", unit="question", disable=not progress):
            r = frame.iloc[qi]
            row = {"id": r["id"]}
            E = None if embeddings is None else np.asarray(embeddings[qi])
            row.update(_question_row(list(r["answers"]), r["reference"], C[qi], E, seed, judges=judges))
            rows.append(row)
    return pd.DataFrame(rows).set_index("id").round(_DIGITS)


def subsample_rows(frame: pd.DataFrame, cos: np.ndarray, right: np.ndarray, n_sub: int, draw: int, *, seed: int = SEED,
                   embeddings: np.ndarray | None = None,
                   judges: Sequence[str] | None = None) -> tuple[list[dict], dict]:
    """Scores of every measure on ``n_sub`` answers drawn from each question (one draw of the subsampling study).

    Parameters
    ----------
    frame : pandas.DataFrame
        The loader's frame (``answers``, ``reference``).
    cos : ndarray of shape (questions, n, n)
        The cosine matrices.
    right : ndarray of bool, shape (questions,)
        Whether each question's most frequent answer (of all its answers) is right.
    n_sub : int
        Answers kept per question (2 to n).
    draw : int
        Draw number; the answers kept are ``default_rng([seed, n_sub, draw])``'s
        choice, question after question.
    seed : int, default=SEED
    embeddings : ndarray of shape (questions, n, d), optional
    judges : sequence of str, optional
        Keys of :data:`JUDGES` to score (default all).

    Returns
    -------
    (rows, bias) : (list of dict, dict)
        ``rows``: one dict per measure column (``N``, ``draw``, ``measure``,
        ``auroc``, ``auarc``); ``bias``: means over questions of the plug-in
        entropy ``h_exact`` of the subsample, of its Miller-Madow correction,
        of ``h_exact`` of all answers, and per judge the mean
        ``|spectral entropy - h_exact|`` and the share of questions where
        ``k="auto"`` finds ``k_exact`` (for ``n_sub >= 3``).
    """
    n_sub = check_int(n_sub, "n_sub", low=2, high=cos.shape[1])
    judges = _check_judges(judges)
    rng = np.random.default_rng([seed, n_sub, draw])
    per_q = []
    h_full = []
    for qi, (answers, reference) in enumerate(zip(frame["answers"], frame["reference"])):
        idx = np.sort(rng.choice(len(answers), size=n_sub, replace=False))
        texts = [answers[i] for i in idx]
        C = cos[qi][np.ix_(idx, idx)]
        E = None if embeddings is None else embeddings[qi][idx]
        per_q.append(_question_row(texts, reference, C, E, seed, subsample=True, judges=judges))
        h_full.append(empirical_entropy(_classes([normalize_answer(t) for t in answers])))
    q = pd.DataFrame(per_q)
    rows = []
    graph = graph_measures()
    measure_cols = [c for c in q.columns if ":" in c and c.split(":")[1] in graph] + \
        [c for c in free_measures(extras=False) + ["von_neumann_cos"] if c in q.columns]
    measure_cols += ["h_exact_mm"]
    q["h_exact_mm"] = q["h_exact"] + (q["k_exact"] - 1) / (2.0 * n_sub)
    q = _with_top_share_score(q)
    measure_cols += ["one_minus_top_share"]
    for c in measure_cols:
        u = q[c].to_numpy(dtype=float)
        rows.append({"N": n_sub, "draw": draw, "measure": c, "auroc": auroc_ci(u, ~right)[0], "auarc": auarc(u, right)})
    bias = {"N": n_sub, "draw": draw, "h_exact": float(q["h_exact"].mean()), "h_exact_mm": float(q["h_exact_mm"].mean()),
            "h_full": float(np.mean(h_full))}
    for j in judges:
        bias[f"{j}:abs_error"] = float(np.abs(q[f"{j}:spectral_entropy"] - q["h_exact"]).mean())
        if f"{j}:k_auto" in q.columns:
            bias[f"{j}:k_found"] = float((q[f"{j}:k_auto"] == q["k_exact"]).mean())
    return rows, bias


# --------------------------------------------------------------------------- embeddings


def embed_answers(answers: Sequence[str], *, progress: bool = True) -> np.ndarray:
    """MiniLM (all-MiniLM-L6-v2) embeddings of a flat list of answers, cached on disk by the answers' hash.

    Parameters
    ----------
    answers : sequence of str
    progress : bool, default=True

    Returns
    -------
    ndarray of float32, shape (len(answers), 384)
        Raw embeddings (:func:`semvar.similarity.embed` with ``unique=True``:
        each distinct answer embedded once).  A second call with the same
        answers reads the cache (:func:`semvar.data.cache_dir`).
    """
    from ..similarity import DEFAULT_MODEL, embed

    texts = check_texts(answers)
    tag = hashlib.sha256(json.dumps([DEFAULT_MODEL, texts]).encode()).hexdigest()[:16]
    path = cache_dir() / "regime" / f"minilm-{tag}.npy"
    if path.is_file():
        try:
            E = np.load(path)
            if E.shape[0] == len(texts):
                return E
        except (OSError, ValueError):
            pass
    E = np.asarray(embed(texts, unique=True, progress=progress), dtype=np.float32)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".part.npy")
    np.save(tmp, E)
    tmp.replace(path)  # a finished file is never half-written
    return E


def cosine_matrices(embeddings: np.ndarray, n: int) -> np.ndarray:
    """Cosines of each question's ``n`` answers, rounded to 4 decimals (the stored precision).

    Parameters
    ----------
    embeddings : ndarray of shape (questions * n, d)
    n : int
        Answers per question.

    Returns
    -------
    ndarray of shape (questions, n, n)
        Symmetric, unit diagonal, rounded to 4 decimals so that the verdicts
        of the stored file and those of a fresh run are the same.

    Examples
    --------
    >>> cosine_matrices(np.array([[1.0, 0.0], [1.0, 1.0]]), 2)[0].tolist()
    [[1.0, 0.7071], [0.7071, 1.0]]
    """
    E = check_array(embeddings, "embeddings", ndim=2)
    n = check_int(n, "n", low=1)
    if E.shape[0] % n:
        raise ValueError(f"embeddings must have a multiple of n = {n} rows, got {E.shape[0]}")
    U = E / np.linalg.norm(E, axis=1, keepdims=True)
    U = U.reshape(-1, n, E.shape[1])
    C = np.round(np.einsum("qid,qjd->qij", U, U), 4)
    C = (C + np.transpose(C, (0, 2, 1))) / 2
    idx = np.arange(n)
    C[:, idx, idx] = 1.0
    return np.clip(C, -1.0, 1.0)


# --------------------------------------------------------------------------- the study


def run(*, draws: int = DRAWS, sizes: Sequence[int] = SUBSAMPLE_N, seed: int = SEED, progress: bool = True,
        data_dir: str | os.PathLike | None = None) -> dict:
    """The whole study (see the module docstring); returns what :func:`write_study` stores."""
    from tqdm.auto import tqdm

    from .._threads import one_thread as _one_thread

    draws = check_int(draws, "draws", low=1)
    t0 = time.perf_counter()
    frame = load_uq_nlg(data_dir, progress=progress)
    n = len(frame["answers"].iloc[0])
    flat = [t for a in frame["answers"] for t in a]
    E = embed_answers(flat, progress=progress)
    cos = cosine_matrices(E, n)
    Eq = E.reshape(len(frame), n, -1)
    questions = study_questions(frame, cos, Eq, seed=seed, progress=progress)
    with _one_thread():
        right = questions["mf_correct_exact"].to_numpy().astype(bool)
        sub_rows, bias_rows = [], []
        plan = [(m, d) for m in sizes for d in range(draws if m < n else 1)]
        for m, d in tqdm(plan, desc="subsampling (N, draw)", unit="draw", disable=not progress):
            r_, b_ = subsample_rows(frame, cos, right, m, d, seed=seed, embeddings=Eq)
            sub_rows += r_
            bias_rows.append(b_)
    sub = pd.DataFrame(sub_rows)
    bias = pd.DataFrame(bias_rows)
    summary = {
        "questions": int(len(questions)), "samples_per_question": int(n), "seed": int(seed), "draws": int(draws),
        "sizes": [int(s) for s in sizes], "minilm_thresholds": list(MINILM_THRESHOLDS), "judges": JUDGES,
        "jaccard_threshold": _JACCARD, "rouge_judge_threshold": _ROUGE_JUDGE, "rouge_correct_threshold": _ROUGE_CORRECT,
        "report": {k: v for k, v in frame.attrs.get("report", {}).items()},
        "seconds_total": round(time.perf_counter() - t0, 1),
    }
    return {"questions": questions, "cosines": cos, "subsample": sub, "bias": bias, "summary": summary}


def write_study(res: dict, out: str | os.PathLike | None = None) -> Path:
    """Write the result of :func:`run` to ``out`` (default: the project's ``data/``); returns the folder."""
    out = Path(out) if out else result_path(QUESTIONS_FILE).parent
    out.mkdir(parents=True, exist_ok=True)
    res["questions"].round(_DIGITS).to_csv(out / QUESTIONS_FILE, compression=_GZ)
    sub = res["subsample"].copy()
    sub["kind"] = "score"
    bias = res["bias"].melt(id_vars=["N", "draw"], var_name="measure", value_name="value")
    bias["kind"] = "bias"
    table = pd.concat([sub.melt(id_vars=["N", "draw", "measure", "kind"], var_name="stat", value_name="value"),
                       bias.assign(stat="mean")], ignore_index=True)
    table["value"] = table["value"].round(6)
    table.to_csv(out / SUBSAMPLE_FILE, index=False, compression=_GZ)
    C = np.round(res["cosines"] * 10_000).astype(np.int16)
    with open(out / COSINES_FILE, "wb") as fh:
        np.savez_compressed(fh, cosines_x10000=C, ids=np.array(res["questions"].index, dtype=str))
    with open(out / SUMMARY_FILE, "w", encoding="utf-8") as fh:
        json.dump(res["summary"], fh, indent=1)
        fh.write("\n")
    return out


def load_study() -> dict:
    """The stored study (``data/regime_*``): ``questions``, ``cosines``, ``subsample``, ``bias``, ``summary``.

    ``questions`` is the stored per-question table with the score ``one_minus_top_share``
    (:data:`FREE_EXTRAS`) derived from its ``top_share``.  :func:`missing_measures` says which
    scores of the registry it lacks.
    """
    questions = _with_top_share_score(pd.read_csv(result_path(QUESTIONS_FILE), index_col="id"))
    table = pd.read_csv(result_path(SUBSAMPLE_FILE))
    sub = table[table["kind"] == "score"].pivot_table(index=["N", "draw", "measure"], columns="stat",
                                                      values="value").reset_index()
    sub.columns.name = None
    bias = table[table["kind"] == "bias"].pivot_table(index=["N", "draw"], columns="measure", values="value").reset_index()
    bias.columns.name = None
    with np.load(result_path(COSINES_FILE)) as z:
        cos = z["cosines_x10000"].astype(float) / 10_000
        ids = z["ids"].tolist()
    if ids != questions.index.tolist():
        raise ValueError("the stored cosines and questions disagree on the question order")
    with open(result_path(SUMMARY_FILE), encoding="utf-8") as fh:
        summary = json.load(fh)
    return {"questions": questions, "cosines": cos, "subsample": sub, "bias": bias, "summary": summary}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m semvar.experiments.regime", description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=DRAWS, help=f"subsample draws per N (default {DRAWS})")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--out", default=None, help="output folder (default: the project's data/)")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    res = run(draws=args.draws, seed=args.seed, progress=not args.no_progress)
    out = write_study(res, args.out)
    print(f"wrote {out / QUESTIONS_FILE}, {SUBSAMPLE_FILE}, {COSINES_FILE}, {SUMMARY_FILE} "
          f"({res['summary']['questions']} questions, {res['summary']['seconds_total']} s)")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
