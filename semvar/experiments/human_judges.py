"""Study: real judges against human labels, read as the ``(p, q)`` of Liu's judge model.

Liu (2025) summarises a judge by two numbers (eqs. 3-4, Table 2): ``p``, the
chance that it says "same" to two texts that mean the same, and ``q``, the
chance that it says "same" to two texts that do not.  This study measures
them for judges that exist, against human labels, on three public data sets
(see the data README):

* ``sas`` (Risch et al. 2021): 5,025 pairs of answers to one question, each
  labelled by people as 0 (different meaning), 1 (partly the same) or 2 (same
  meaning), in English (NQ-open, SQuAD) and German (GermanQuAD).  Two answers
  against each other: the task of Liu's judge.  ``p`` is read on label 2,
  ``q`` on label 0, and the TRUE rate on label 1 is reported apart (it belongs
  to neither class).
* ``openqa_eval`` (Kamalloo et al. 2023): 1,490 answers of QA systems to 301
  NQ-open questions, judged correct or not by three annotators and by GPT-4,
  text-davinci-003 and BEM.  One answer against gold answers, not two samples
  against each other: ``p`` is the judge's sensitivity (it accepts what the
  humans accept) and ``q`` is one minus its specificity (it accepts what the
  humans reject).  The annotators against each other give the human ceiling.
* ``evouna`` (Wang et al. 2023): five systems' answers to 5,610 NQ and
  TriviaQA questions with human correctness labels; the judges the book can
  run (MiniLM cosine, word overlap, ROUGE-L, exact match, gold containment)
  score each answer against the golden answer's aliases.

Every rate has a Wilson interval (:func:`semvar.evaluation.rate_ci`) and
``p - q`` a Newcombe interval (:func:`newcombe_interval`).  For each judge
the SBM prediction of the entropy error at the settings of Liu's Table 1 is
computed with :func:`semvar.experiments.table1.table1_errors` (the protocol of
chapter 3, run with the judge's measured ``(p, q)``), with the full-design
signal-to-noise ratio of :func:`semvar.pair_budget.budget_snr`; a grid of SBM
errors over the ``(q, p)`` plane (:func:`phase_grid`) is the phase diagram the
judges are placed on.

Regenerate with::

    python -m semvar.experiments.human_judges    # writes data/human_judges.json, _scores.csv.gz, _phase.csv

Embedding the answers with all-MiniLM-L6-v2 dominates (several CPU minutes);
the embeddings of each data set are kept in the cache folder
(:func:`semvar.data.cache_dir`), so an interrupted run resumes where it stopped.
MiniLM verdicts are taken on cosines rounded to five decimals, the values
stored in ``human_judges_scores.csv.gz``, so the claims and the chapter read
the same verdicts on every CPU; the run counts the cosines that lie within
``1e-5`` of a threshold (where another CPU's rounding could flip a verdict).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .._validation import check_int, check_real
from ..data import cache_dir, result_path
from ..judges import ExactMatchJudge, LexicalJudge, RougeJudge, normalize_answer
from ..pair_budget import budget_snr

__all__ = [
    "RESULT_FILE",
    "SCORES_FILE",
    "PHASE_FILE",
    "THRESHOLDS",
    "ANSWERERS",
    "LLM_JUDGES",
    "newcombe_interval",
    "judge_rates",
    "sas_rates",
    "annotator_ceiling",
    "gold_aliases",
    "text_digest",
    "lexical_scores",
    "verdicts_from_scores",
    "length_group",
    "rate_homogeneity",
    "sbm_prediction",
    "phase_grid",
    "run",
    "write_study",
    "load_study",
    "main",
]

RESULT_FILE = "human_judges.json"
SCORES_FILE = "human_judges_scores.csv.gz"
PHASE_FILE = "human_judges_phase.csv"

#: MiniLM cosine thresholds of the study
THRESHOLDS: tuple[float, ...] = (0.6, 0.7, 0.8, 0.9)
#: word-overlap (token Jaccard) and ROUGE-L thresholds
OVERLAP_THRESHOLD = 0.5
ROUGE_THRESHOLD = 0.5
#: the five answering systems of EVOUNA, in the data set's order
ANSWERERS: tuple[str, ...] = ("fid", "gpt35", "chatgpt", "gpt4", "newbing")
#: the released automatic judges of openqa_eval: column of the verdict, display name
LLM_JUDGES: dict[str, str] = {"gpt4": "GPT-4", "davinci": "text-davinci-003", "bem": "BEM"}
#: Liu's Table 1 cluster ratio used for the phase grid and the signal-to-noise ratios
PHASE_RATIO = (0.2, 0.3, 0.5)
PHASE_N = 50
ROUND = 5          # decimals of the stored cosines (the verdicts are taken on these)
KNIFE_EDGE = 1e-5  # a cosine this close to a threshold could flip on another CPU
ALIAS_SEPARATOR = "/"


# --------------------------------------------------------------------------- rates and intervals

def _wilson(k: int, n: int, level: float) -> tuple[float, float, float]:
    from ..evaluation import rate_ci  # looked up when called: a test replaces evaluation.rate_ci

    return rate_ci(int(k), int(n), method="wilson", level=level)


def newcombe_interval(k1: int, n1: int, k2: int, n2: int, *, level: float = 0.95) -> tuple[float, float, float]:
    """Difference of two independent proportions ``k1/n1 - k2/n2`` with Newcombe's hybrid score interval.

    Parameters
    ----------
    k1, n1 : int
        Successes and trials of the first proportion (``0 <= k1 <= n1``, ``n1 >= 1``).
    k2, n2 : int
        The same for the second.
    level : float in (0, 1), default=0.95

    Returns
    -------
    (difference, low, high) : tuple of float

    Raises
    ------
    ValueError
        If a count is not an integer in range, or ``level`` is not in (0, 1).

    Notes
    -----
    Method 10 of Newcombe (1998): with ``(l_i, u_i)`` the Wilson interval of
    proportion ``i`` and ``d = p_1 - p_2``,

    .. math::

        L = d - \\sqrt{(p_1 - l_1)^2 + (u_2 - p_2)^2}, \\qquad
        U = d + \\sqrt{(u_1 - p_1)^2 + (p_2 - l_2)^2}.

    It keeps the good coverage of the Wilson interval near 0 and 1, where the
    Wald interval of a difference fails.  Here the two proportions are a
    judge's ``p`` and ``q``, read on disjoint sets of items.

    References
    ----------
    Newcombe (1998), Interval estimation for the difference between
    independent proportions: comparison of eleven methods, Statistics in
    Medicine 17, 873-890.

    Examples
    --------
    >>> [round(v, 4) for v in newcombe_interval(8, 10, 2, 10)]
    [0.6, 0.1618, 0.8027]
    """
    n1 = check_int(n1, "n1", low=1)
    k1 = check_int(k1, "k1", low=0, high=n1)
    n2 = check_int(n2, "n2", low=1)
    k2 = check_int(k2, "k2", low=0, high=n2)
    level = check_real(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)
    p1, l1, u1 = _wilson(k1, n1, level)
    p2, l2, u2 = _wilson(k2, n2, level)
    d = p1 - p2
    return d, d - math.hypot(p1 - l1, u2 - p2), d + math.hypot(u1 - p1, p2 - l2)


def _bool_array(x, name: str) -> np.ndarray:
    """A 1-D boolean array from bools or 0/1 (no missing values)."""
    if isinstance(x, pd.Series):
        if x.isna().any():
            raise ValueError(f"{name} must not hold missing values; drop them first (got {int(x.isna().sum())})")
        x = x.to_numpy()
    a = np.asarray(x)
    if a.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {a.shape}")
    if a.dtype == bool:
        return a
    if a.dtype == object or not np.issubdtype(a.dtype, np.number):
        if not all(isinstance(v, (bool, np.bool_)) or v in (0, 1) for v in a.tolist()):
            raise ValueError(f"{name} must hold booleans or 0/1")
        return a.astype(bool)
    if not np.isin(a, (0, 1)).all():
        raise ValueError(f"{name} must hold booleans or 0/1, got values {sorted(set(np.unique(a).tolist()) - {0, 1})[:5]}")
    return a.astype(bool)


def _rates(k_same: int, n_same: int, k_diff: int, n_diff: int, level: float) -> dict:
    p, p_lo, p_hi = _wilson(k_same, n_same, level)
    q, q_lo, q_hi = _wilson(k_diff, n_diff, level)
    gap, g_lo, g_hi = newcombe_interval(k_same, n_same, k_diff, n_diff, level=level)
    return {"p": p, "p_ci": [p_lo, p_hi], "k_same": int(k_same), "n_same": int(n_same),
            "q": q, "q_ci": [q_lo, q_hi], "k_diff": int(k_diff), "n_diff": int(n_diff),
            "p_minus_q": gap, "p_minus_q_ci": [g_lo, g_hi]}


def judge_rates(verdict: ArrayLike, same: ArrayLike, *, level: float = 0.95) -> dict:
    """A judge's ``p`` and ``q`` against a reference, with Wilson intervals and a Newcombe interval of ``p - q``.

    Parameters
    ----------
    verdict : array-like of bool, shape (m,)
        The judge's verdicts ("same" / "correct").
    same : array-like of bool, shape (m,)
        The reference (the humans say "same" / "correct").
    level : float in (0, 1), default=0.95

    Returns
    -------
    dict
        ``p`` = TRUE share among items the reference calls same (sensitivity),
        ``q`` = TRUE share among the others (one minus specificity), each with
        its Wilson interval (``p_ci``, ``q_ci``) and counts (``k_same``,
        ``n_same``, ``k_diff``, ``n_diff``), and ``p_minus_q`` with its
        Newcombe interval ``p_minus_q_ci``.

    Raises
    ------
    ValueError
        If the arrays are not 1-D booleans of one length, hold missing values,
        or the reference lacks one of the two classes.

    Notes
    -----
    Liu (2025), eqs. 3-4: ``p = P(e = 1 | same meaning)``,
    ``q = P(e = 1 | different meanings)``; the estimates are the maximum
    likelihood estimates of chapter 2.  The intervals treat items as
    independent.

    Examples
    --------
    >>> r = judge_rates([1, 1, 0, 1, 0, 0], [1, 1, 1, 0, 0, 0])
    >>> round(r["p"], 4), round(r["q"], 4), r["n_same"], r["n_diff"]
    (0.6667, 0.3333, 3, 3)
    """
    v = _bool_array(verdict, "verdict")
    y = _bool_array(same, "same")
    if v.shape != y.shape:
        raise ValueError(f"verdict and same must have the same length, got {v.size} and {y.size}")
    if y.all() or not y.any():
        raise ValueError("same must hold both classes (at least one True and one False)")
    level = check_real(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)
    return _rates(int((v & y).sum()), int(y.sum()), int((v & ~y).sum()), int((~y).sum()), level)


def sas_rates(verdict: ArrayLike, label: ArrayLike, *, level: float = 0.95) -> dict:
    """``p``, ``q`` and the "partly" rate of a judge on SAS-labelled answer pairs.

    Parameters
    ----------
    verdict : array-like of bool, shape (m,)
        The judge's verdict on each pair.
    label : array-like of int in {0, 1, 2}, shape (m,)
        The human label: 0 different meaning, 1 partly the same, 2 same meaning.
    level : float in (0, 1), default=0.95

    Returns
    -------
    dict
        The fields of :func:`judge_rates` read on labels 2 (``p``) and 0
        (``q``), and ``partly`` with its Wilson interval ``partly_ci`` and
        counts ``k_partly``, ``n_partly``: the TRUE share on label 1, which
        is neither same nor different and is never merged into either.

    Raises
    ------
    ValueError
        If a label is not 0, 1 or 2, the lengths differ, or label 0 or 2 is
        absent.

    Examples
    --------
    >>> r = sas_rates([1, 0, 1, 1, 0, 1], [2, 2, 1, 1, 0, 0])
    >>> r["p"], r["q"], r["partly"], r["n_partly"]
    (0.5, 0.5, 1.0, 2)
    """
    v = _bool_array(verdict, "verdict")
    if isinstance(label, pd.Series) and label.isna().any():
        raise ValueError("label must not hold missing values; drop them first")
    lab = np.asarray(label)
    if lab.ndim != 1 or lab.shape != v.shape:
        raise ValueError(f"label must be 1-D of the length of verdict ({v.size}), got shape {lab.shape}")
    if not np.isin(lab, (0, 1, 2)).all():
        bad = sorted({x for x in lab.tolist() if x not in (0, 1, 2)}, key=str)[:5]
        raise ValueError(f"label must hold 0, 1 or 2, got {bad}")
    lab = lab.astype(int)
    if not (lab == 2).any() or not (lab == 0).any():
        raise ValueError("label must hold both 0 (different) and 2 (same)")
    level = check_real(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)
    s, d, m = lab == 2, lab == 0, lab == 1
    out = _rates(int(v[s].sum()), int(s.sum()), int(v[d].sum()), int(d.sum()), level)
    if m.any():
        r, lo, hi = _wilson(int(v[m].sum()), int(m.sum()), level)
        out.update(partly=r, partly_ci=[lo, hi])
    else:
        out.update(partly=float("nan"), partly_ci=[float("nan"), float("nan")])
    out.update(k_partly=int(v[m].sum()), n_partly=int(m.sum()))
    return out


def annotator_ceiling(annotators: pd.DataFrame, *, level: float = 0.95) -> list[dict]:
    """Annotators judged as judges: each against each other, and each against the others' majority.

    Parameters
    ----------
    annotators : DataFrame
        One column per annotator, nullable booleans (missing = not annotated).
    level : float in (0, 1), default=0.95

    Returns
    -------
    list of dict
        One row per ordered pair ``(reference, judge)`` of annotators on the
        items both annotated (``kind="pairwise"``), then one row per annotator
        against the majority of the *other* annotators who annotated the item
        (``kind="vs_others"``; an item whose other annotators split evenly is
        left out, and counted in ``ties``).  Each row holds the fields of
        :func:`judge_rates` plus ``reference``, ``judge``, ``kind``, ``items``
        and ``agreement`` (share of items with the same verdict).

    Raises
    ------
    ValueError
        If ``annotators`` is not a DataFrame of at least two columns holding
        booleans or missing values.

    Examples
    --------
    >>> a = pd.DataFrame({"a1": [True, True, False, False], "a2": [True, False, False, False]}, dtype="boolean")
    >>> rows = annotator_ceiling(a)
    >>> [(r["reference"], r["judge"], r["p"], r["q"]) for r in rows if r["kind"] == "pairwise"]
    [('a1', 'a2', 0.5, 0.0), ('a2', 'a1', 1.0, 0.3333333333333333)]
    """
    if not isinstance(annotators, pd.DataFrame) or annotators.shape[1] < 2:
        raise ValueError("annotators must be a DataFrame with one column per annotator (at least two)")
    level = check_real(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)
    cols = list(annotators.columns)
    A = {}
    for c in cols:
        s = annotators[c]
        ok = s.dropna()
        if not ok.map(lambda v: isinstance(v, (bool, np.bool_))).all():
            raise ValueError(f"annotators[{c!r}] must hold booleans or missing values")
        A[c] = (s.notna().to_numpy(), s.fillna(False).astype(bool).to_numpy())
    rows = []
    for ref in cols:
        for jud in cols:
            if ref == jud:
                continue
            both = A[ref][0] & A[jud][0]
            y, v = A[ref][1][both], A[jud][1][both]
            if y.all() or not y.any():
                continue
            r = judge_rates(v, y, level=level)
            r.update(reference=ref, judge=jud, kind="pairwise", items=int(both.sum()),
                     agreement=float((y == v).mean()), ties=0)
            rows.append(r)
    for jud in cols:
        others = [c for c in cols if c != jud]
        yes = sum(A[c][0] & A[c][1] for c in others).astype(int)
        seen = sum(A[c][0] for c in others).astype(int)
        has = A[jud][0] & (seen > 0)
        tie = has & (2 * yes == seen)
        use = has & ~tie
        y, v = (2 * yes > seen)[use], A[jud][1][use]
        if y.all() or not y.any():
            continue
        r = judge_rates(v, y, level=level)
        r.update(reference="majority of the others", judge=jud, kind="vs_others", items=int(use.sum()),
                 agreement=float((y == v).mean()), ties=int(tie.sum()))
        rows.append(r)
    return rows


def rate_homogeneity(verdict: ArrayLike, same: ArrayLike, group: ArrayLike) -> dict:
    """Is a judge's TRUE rate the same in every group, among same and among different items (chi-square)?

    The stochastic block model gives a judge one ``p`` for every same-meaning
    item and one ``q`` for every other; this tests both against a grouping
    of the items (e.g. by answer length).

    Parameters
    ----------
    verdict, same : array-like of bool, shape (m,)
    group : array-like, shape (m,)
        A label per item; groups with no item of a class are left out of that class's test.

    Returns
    -------
    dict
        ``p_by_group`` and ``q_by_group`` (TRUE share and count per group),
        ``p_pvalue`` and ``q_pvalue`` (Pearson chi-square test of homogeneity
        of the ``groups x {TRUE, FALSE}`` table; NaN when fewer than two
        groups have items or one column is empty).

    Raises
    ------
    ValueError
        If the lengths differ or the arrays are not boolean.

    Examples
    --------
    >>> r = rate_homogeneity([1] * 20 + [0] * 20 + [1] * 2 + [0] * 18, [1] * 40 + [0] * 20, ["a"] * 20 + ["b"] * 20 + ["a"] * 20)
    >>> r["p_by_group"]["a"]["rate"], r["p_by_group"]["b"]["rate"], r["p_pvalue"] < 1e-6
    (1.0, 0.0, True)
    """
    from scipy.stats import chi2_contingency

    v = _bool_array(verdict, "verdict")
    y = _bool_array(same, "same")
    g = np.asarray(group)
    if not (v.shape == y.shape == g.shape):
        raise ValueError(f"verdict, same and group must have one length, got {v.size}, {y.size}, {g.size}")
    out: dict[str, Any] = {}
    for name, cls in (("p", y), ("q", ~y)):
        table, by = [], {}
        for key in sorted(set(g[cls].tolist()), key=str):
            sel = cls & (g == key)
            k, n = int(v[sel].sum()), int(sel.sum())
            by[str(key)] = {"rate": k / n, "n": n}
            table.append([k, n - k])
        t = np.array(table)
        pval = float("nan")
        if t.shape[0] >= 2 and t.sum(axis=0).min() > 0:
            pval = float(chi2_contingency(t, correction=False)[1])
        out[f"{name}_by_group"], out[f"{name}_pvalue"] = by, pval
    return out


def length_group(answers: Sequence[str] | np.ndarray) -> np.ndarray:
    """Answer length bins used by the homogeneity checks: ``"1-3"``, ``"4-9"`` or ``"10+"`` words.

    Examples
    --------
    >>> length_group(["Paris", "it is in Paris France", "a b c d e f g h i j"]).tolist()
    ['1-3', '4-9', '10+']
    """
    words = np.array([len(str(a).split()) for a in answers])
    return np.where(words <= 3, "1-3", np.where(words <= 9, "4-9", "10+"))


# --------------------------------------------------------------------------- correctness against gold answers

def gold_aliases(golden: str, sep: str = ALIAS_SEPARATOR) -> tuple[str, ...]:
    """The aliases of a golden answer string (EVOUNA joins them with ``"/"``), stripped, empty ones dropped.

    A slash that belongs to an answer ("AC/DC") splits it too; the whole string is
    therefore kept as an alias of its own.

    Examples
    --------
    >>> gold_aliases("Scorpio/Skorpio")
    ('Scorpio/Skorpio', 'Scorpio', 'Skorpio')
    >>> gold_aliases("Paris")
    ('Paris',)
    """
    if not isinstance(golden, str):
        raise ValueError(f"golden must be a string, got {type(golden).__name__}")
    parts = [s.strip() for s in golden.split(sep)]
    out = [golden.strip()] + [s for s in parts if s]
    return tuple(dict.fromkeys(s for s in out if s))


def lexical_scores(answers: Sequence[str], golds: Sequence[Sequence[str]]) -> pd.DataFrame:
    """Lexical correctness scores of answers against their gold aliases (best alias).

    Parameters
    ----------
    answers : sequence of str, length m
    golds : sequence of tuple of str, length m
        The accepted answers of each item (at least one each).

    Returns
    -------
    DataFrame with m rows
        ``exact`` (SQuAD-normalised answer equals a normalised alias),
        ``contained`` (a normalised alias occurs in the normalised answer as
        a whole-word substring), ``overlap`` (largest token Jaccard,
        :class:`semvar.judges.LexicalJudge`) and ``rouge`` (largest ROUGE-L F,
        :class:`semvar.judges.RougeJudge`).

    Raises
    ------
    ValueError
        If the lengths differ, an answer is not a string, or an item has no alias.

    Examples
    --------
    >>> lexical_scores(["The Paris.", "It is Paris, France"], [("paris",), ("London", "Paris")]).round(3).to_dict("list")
    {'exact': [True, False], 'contained': [True, True], 'overlap': [0.5, 0.25], 'rouge': [0.667, 0.4]}
    """
    answers = list(answers)
    golds = list(golds)
    if len(answers) != len(golds):
        raise ValueError(f"answers and golds must have one length, got {len(answers)} and {len(golds)}")
    lex, rou, em = LexicalJudge(OVERLAP_THRESHOLD), RougeJudge(ROUGE_THRESHOLD), ExactMatchJudge()
    rows = []
    for i, (a, g) in enumerate(zip(answers, golds)):
        if not isinstance(a, str):
            raise ValueError(f"answers[{i}] must be a string, got {type(a).__name__}")
        g = tuple(g) if not isinstance(g, str) else (g,)
        if not g or not all(isinstance(x, str) for x in g):
            raise ValueError(f"golds[{i}] must be a non-empty tuple of strings, got {g!r}")
        texts = [a, *g]
        P = np.array([[0, k] for k in range(1, len(texts))])
        na = f" {normalize_answer(a)} "
        contained = any(normalize_answer(x) and f" {normalize_answer(x)} " in na for x in g)
        rows.append((bool(em.pairs(texts, P).any()), bool(contained), float(lex.score(texts, P).max()),
                     float(rou.score(texts, P).max())))
    return pd.DataFrame(rows, columns=["exact", "contained", "overlap", "rouge"])


def verdicts_from_scores(scores: pd.DataFrame, *, correctness: bool) -> dict[str, np.ndarray]:
    """The verdicts of every judge of the study from a frame of scores, by the study's thresholds.

    Parameters
    ----------
    scores : DataFrame
        Columns ``cos`` (MiniLM cosine, rounded to five decimals), ``overlap``,
        ``rouge``, ``exact`` and, when ``correctness``, ``contained``.
    correctness : bool
        Whether the items are answers against gold answers (adds the
        containment judge).

    Returns
    -------
    dict
        Judge name -> boolean verdicts, in a fixed order: MiniLM at each of
        :data:`THRESHOLDS`, word overlap, ROUGE-L, exact match (and gold
        contained).

    Examples
    --------
    >>> s = pd.DataFrame({"cos": [0.95, 0.65], "overlap": [1.0, 0.2], "rouge": [1.0, 0.6], "exact": [True, False]})
    >>> {k: v.tolist() for k, v in verdicts_from_scores(s, correctness=False).items()}["MiniLM cos>=0.7"]
    [True, False]
    """
    need = ["cos", "overlap", "rouge", "exact"] + (["contained"] if correctness else [])
    missing = [c for c in need if c not in scores.columns]
    if missing:
        raise ValueError(f"scores lacks the columns {missing}")
    cos = scores["cos"].to_numpy(dtype=float)
    out = {f"MiniLM cos>={t}": cos >= t for t in THRESHOLDS}
    out[f"word overlap (Jaccard>={OVERLAP_THRESHOLD})"] = scores["overlap"].to_numpy(dtype=float) >= OVERLAP_THRESHOLD
    out[f"ROUGE-L>={ROUGE_THRESHOLD}"] = scores["rouge"].to_numpy(dtype=float) >= ROUGE_THRESHOLD
    out["exact match"] = scores["exact"].to_numpy(dtype=bool)
    if correctness:
        out["gold contained"] = scores["contained"].to_numpy(dtype=bool)
    return out


# --------------------------------------------------------------------------- what the SBM predicts

def sbm_prediction(p: float, q: float, *, iterations: int = 10, random_state: int = 1) -> dict:
    """What chapter 3's SBM model of the judge predicts for a judge with these ``(p, q)`` at Table 1's settings.

    Parameters
    ----------
    p, q : float in [0, 1]
    iterations : int, default=10
        Graphs per Table 1 cell (the paper's 10).
    random_state : int, default=1

    Returns
    -------
    dict
        ``table1_error``: mean ``|E_bar - E_hat|`` of the Table 1 protocol
        (:func:`semvar.experiments.table1.table1_errors`: hobby corpora at the
        three ratios and n = 30, 50, 70, an SBM judge with these ``(p, q)``,
        K known) per Laplacian convention, over all nine cells and over the
        six three-meaning cells; ``snr``: the full-design signal-to-noise ratio
        :func:`semvar.pair_budget.budget_snr` at ratio (0.2, 0.3, 0.5) for n = 30 and
        70 (None when ``p <= q``); ``liu_side``: which side of Liu's change
        point ``p - q = 0.4`` the judge is on.

    Raises
    ------
    ValueError
        If ``p`` or ``q`` is not in [0, 1] or ``iterations`` < 1.

    Examples
    --------
    >>> r = sbm_prediction(0.87, 0.07, iterations=1)
    >>> r["liu_side"], r["table1_error"]["normalized"]["all"] < 0.05
    ('above', True)
    """
    from .table1 import table1_errors

    p = check_real(p, "p", low=0.0, high=1.0)
    q = check_real(q, "q", low=0.0, high=1.0)
    iterations = check_int(iterations, "iterations", low=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = table1_errors(p, q, conventions=("normalized", "unnormalized"), iterations=iterations, random_state=random_state)
    three = df["ratio"] != str((0.5, 0.5))
    err = {}
    for conv, g in df.groupby("convention", sort=True):
        k3 = g[three.loc[g.index]]
        err[conv] = {"all": float(g["error"].mean()), "three_meanings": float(k3["error"].mean()),
                     "worst_cell": float(g.groupby(["ratio", "n"])["error"].mean().max())}
    snr = {str(n): (budget_snr(n, 1.0, p, q, PHASE_RATIO) if p > q else None) for n in (30, 70)}
    return {"p": p, "q": q, "table1_error": err, "snr": snr, "liu_side": "above" if p - q > 0.4 else "below",
            "iterations": iterations}


def phase_grid(qs: Sequence[float] | None = None, diffs: Sequence[float] | None = None, *, n: int = PHASE_N,
               iterations: int = 20, random_state: int = 2, progress: bool = False) -> pd.DataFrame:
    """Mean SBM entropy error over a grid of the ``(q, p)`` plane (the phase diagram behind Liu's Figure 1).

    Parameters
    ----------
    qs : sequence of float, default=0, 0.05, ..., 0.95
    diffs : sequence of float, default=0.05, 0.10, ..., 1.0
        Values of ``p - q``; points with ``p > 1`` are left out.
    n : int, default=50
        Texts per graph, in the ratio (0.2, 0.3, 0.5).
    iterations : int, default=20
    random_state : int, default=2
    progress : bool, default=False

    Returns
    -------
    DataFrame
        The columns of :func:`semvar.experiments.table1.phase_errors`
        (``q, p_minus_q, n, convention, mean_error, se``) plus ``p``, for the
        normalised and unnormalised Laplacians.

    Examples
    --------
    >>> g = phase_grid([0.0], [0.9], n=30, iterations=2)
    >>> sorted(g.convention), bool((g.mean_error < 0.05).all())
    (['normalized', 'unnormalized'], True)
    """
    from tqdm.auto import tqdm

    from .table1 import phase_errors

    qs = [round(0.05 * i, 2) for i in range(20)] if qs is None else [check_real(x, "qs", low=0.0, high=1.0) for x in qs]
    diffs = [round(0.05 * i, 2) for i in range(1, 21)] if diffs is None else [check_real(d, "diffs", low=0.0, high=1.0, low_open=True) for d in diffs]
    n = check_int(n, "n", low=4)
    iterations = check_int(iterations, "iterations", low=1)
    frames = []
    for q in tqdm(qs, desc="phase grid (q)", disable=not progress):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            frames.append(phase_errors(q, [d for d in diffs if q + d <= 1 + 1e-9], ratio=PHASE_RATIO, sizes=(n,),
                                       iterations=iterations, conventions=("normalized", "unnormalized"),
                                       random_state=random_state))
    out = pd.concat(frames, ignore_index=True)
    out["p"] = (out["q"] + out["p_minus_q"]).clip(upper=1.0).round(4)
    return out


# --------------------------------------------------------------------------- the study

def text_digest(texts: Iterable[str]) -> str:
    """A short sha256 digest of a sequence of texts (ties stored per-item scores to the loaded data).

    Examples
    --------
    >>> text_digest(["a", "b"]) == text_digest(["a", "b"]) != text_digest(["ab"])
    True
    """
    h = hashlib.sha256()
    for t in texts:
        h.update(str(t).encode("utf-8"))
        h.update(b"\x00")
    return h.hexdigest()[:16]


def _embed_cached(texts: list[str], tag: str, *, progress: bool) -> dict[str, np.ndarray]:
    """Unit MiniLM embeddings of distinct texts, kept in the cache folder under ``tag`` (resumable per data set)."""
    from ..similarity import DEFAULT_MODEL, embed

    distinct = sorted(set(texts))
    key = text_digest([DEFAULT_MODEL, *distinct])
    folder = _cache_folder()
    path = folder / f"{tag}-{key}.npy"
    E = None
    if path.is_file():
        try:
            E = np.load(path)
            if E.shape[0] != len(distinct):
                E = None
        except (OSError, ValueError):
            E = None
    if E is None:
        E = np.asarray(embed(distinct, progress=progress, batch_size=64), dtype=np.float32)
        tmp = folder / f".{tag}-{key}.part.npy"
        np.save(tmp, E)
        tmp.replace(path)  # a finished data set is never lost, a half-written one never read
    E = E.astype(np.float64)
    E /= np.linalg.norm(E, axis=1, keepdims=True)
    return dict(zip(distinct, E))


def _max_cosine(emb: dict, answers, golds) -> np.ndarray:
    return np.array([max(float(emb[a] @ emb[g]) for g in gs) for a, gs in zip(answers, golds)])


def _knife_edges(cos: np.ndarray) -> dict:
    return {str(t): int((np.abs(cos - t) < KNIFE_EDGE).sum()) for t in THRESHOLDS}


def _sas_part(sas: pd.DataFrame, progress: bool):
    keep = sas["answer1"].notna() & sas["answer2"].notna() & sas["label"].notna()
    skipped = sas.loc[~keep].groupby("dataset", sort=False).size().to_dict()
    d = sas.loc[keep].copy()
    a1, a2 = d["answer1"].astype(str).tolist(), d["answer2"].astype(str).tolist()
    emb = _embed_cached(a1 + a2, "sas", progress=progress)
    raw = np.array([float(emb[x] @ emb[y]) for x, y in zip(a1, a2)])
    lex, rou, em = LexicalJudge(OVERLAP_THRESHOLD), RougeJudge(ROUGE_THRESHOLD), ExactMatchJudge()
    scores = pd.DataFrame({
        "part": "sas", "row": d.index.to_numpy(), "answerer": "",
        "cos": raw.round(ROUND),
        "overlap": [lex.score([x, y], [[0, 1]])[0] for x, y in zip(a1, a2)],
        "rouge": [rou.score([x, y], [[0, 1]])[0] for x, y in zip(a1, a2)],
        "exact": [bool(em.pairs([x, y], [[0, 1]])[0]) for x, y in zip(a1, a2)],
        "contained": False,
    })
    return d, scores, {"skipped_rows": {k: int(v) for k, v in skipped.items()}, "knife_edges": _knife_edges(raw),
                       "digest": text_digest(a1 + a2)}


def sas_results(sas: pd.DataFrame, scores: pd.DataFrame) -> dict:
    """Per data set of ``sas`` and judge, :func:`sas_rates` (rows aligned through ``scores["row"]``)."""
    d = sas.loc[scores["row"].to_numpy()]
    verdicts = verdicts_from_scores(scores.reset_index(drop=True), correctness=False)
    out = {}
    for name in d["dataset"].drop_duplicates().tolist():
        sel = (d["dataset"] == name).to_numpy()
        lab = d["label"].to_numpy()[sel].astype(int)
        out[name] = {"language": str(d["language"].to_numpy()[sel][0]),
                     "pairs": int(sel.sum()), "labels": {str(k): int((lab == k).sum()) for k in (0, 1, 2)},
                     "judges": {j: sas_rates(v[sel], lab) for j, v in verdicts.items()}}
    return out


def _openqa_part(oq: pd.DataFrame, progress: bool):
    golds = [tuple(g) for g in oq["gold"]]
    answers = oq["answer"].astype(str).tolist()
    emb = _embed_cached(answers + [g for gs in golds for g in gs], "openqa", progress=progress)
    raw = _max_cosine(emb, answers, golds)
    lex = lexical_scores(answers, golds)
    scores = pd.DataFrame({"part": "openqa", "row": oq.index.to_numpy(), "answerer": "", "cos": raw.round(ROUND)})
    scores = pd.concat([scores, lex], axis=1)
    return scores, {"knife_edges": _knife_edges(raw), "digest": text_digest(answers)}


def openqa_results(oq: pd.DataFrame, scores: pd.DataFrame) -> dict:
    """The released judges, the book's judges and the annotators on ``openqa_eval`` against the human majority."""
    human = oq["human"].astype(bool).to_numpy()
    llm = {}
    groups = length_group(oq["answer"].astype(str))
    for col, name in LLM_JUDGES.items():
        raw = oq[col if col != "bem" else "bem_verdict"]
        ok = raw.notna().to_numpy()  # an unreadable verdict is left out, never read as "incorrect"
        v = raw[ok].astype(bool).to_numpy()
        r = judge_rates(v, human[ok])
        r["homogeneity_by_length"] = rate_homogeneity(v, human[ok], groups[ok])
        r["unparsed"] = int((~ok).sum())
        llm[name] = r
    d = oq.loc[scores["row"].to_numpy()]
    verdicts = verdicts_from_scores(scores.reset_index(drop=True), correctness=True)
    hum = d["human"].astype(bool).to_numpy()
    book = {j: judge_rates(v, hum) for j, v in verdicts.items()}
    ann = oq[[c for c in oq.columns if c.startswith("annotator")]]
    return {"rows": int(len(oq)), "human_yes": int(human.sum()), "llm": llm, "book": book,
            "ceiling": annotator_ceiling(ann),
            "annotated": {c: int(oq[c].notna().sum()) for c in ann.columns}}


def _evouna_part(ev: pd.DataFrame, progress: bool):
    golds_all = [gold_aliases(str(g)) for g in ev["golden_answer"]]
    items = []
    for s in ANSWERERS:
        lab = ev[f"label_{s}"]
        ans = ev[f"answer_{s}"]
        ok = lab.notna() & ans.notna() & ~ev["improper"].astype(bool)
        for i in np.flatnonzero(ok.to_numpy()):
            items.append((s, int(ev.index[i]), str(ans.iloc[i]), golds_all[i]))
    answers = [a for _, _, a, _ in items]
    golds = [g for _, _, _, g in items]
    emb = _embed_cached(answers + [g for gs in golds for g in gs], "evouna", progress=progress)
    raw = _max_cosine(emb, answers, golds)
    lex = lexical_scores(answers, golds)
    scores = pd.DataFrame({"part": "evouna", "row": [r for _, r, _, _ in items], "answerer": [s for s, _, _, _ in items],
                           "cos": raw.round(ROUND)})
    scores = pd.concat([scores, lex], axis=1)
    counts = {"improper_questions": {k: int(v) for k, v in ev.groupby("dataset", sort=False)["improper"].sum().items()},
              "missing_labels": {s: int(ev[f"label_{s}"].isna().sum()) for s in ANSWERERS},
              "missing_answers": {s: int((ev[f"label_{s}"].notna() & ev[f"answer_{s}"].isna()).sum()) for s in ANSWERERS},
              "knife_edges": _knife_edges(raw), "digest": text_digest(answers)}
    return scores, counts


def evouna_results(ev: pd.DataFrame, scores: pd.DataFrame) -> dict:
    """The book's judges as correctness judges on ``evouna``, per data set and answerer, and pooled per data set."""
    s = scores.reset_index(drop=True)
    verdicts = verdicts_from_scores(s, correctness=True)
    rows = s["row"].to_numpy()
    dataset = ev["dataset"].to_numpy()[ev.index.get_indexer(rows)]
    human = np.array([bool(ev.at[r, f"label_{a}"]) for r, a in zip(rows, s["answerer"])])
    out = {}
    for name in ev["dataset"].drop_duplicates().tolist():
        part = {}
        for a in (*ANSWERERS, "all"):
            sel = (dataset == name) & ((s["answerer"].to_numpy() == a) if a != "all" else True)
            part[a] = {"items": int(sel.sum()), "human_correct": int(human[sel].sum()),
                       "judges": {j: judge_rates(v[sel], human[sel]) for j, v in verdicts.items()}}
        out[name] = part
    return out


def _cache_folder() -> Path:
    folder = cache_dir() / "human_judges"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _cached_prediction(p: float, q: float, iterations: int) -> dict:
    """:func:`sbm_prediction` kept in the cache folder, so that an interrupted run does not redo finished judges."""
    path = _cache_folder() / f"sbm-{text_digest([repr(float(p)), repr(float(q)), str(iterations), 'v1'])}.json"
    if path.is_file():
        try:
            with open(path, encoding="utf-8") as fh:
                return json.load(fh)
        except (OSError, ValueError):
            pass
    r = sbm_prediction(p, q, iterations=iterations)
    tmp = path.with_name("." + path.name + ".part")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(r, fh)
    tmp.replace(path)
    return r


def _cached_phase(iterations: int, progress: bool) -> pd.DataFrame:
    """:func:`phase_grid` at the study's settings, kept in the cache folder."""
    path = _cache_folder() / f"phase-{text_digest([str(iterations), str(PHASE_N), 'v1'])}.csv"
    if path.is_file():
        try:
            return pd.read_csv(path)
        except (OSError, ValueError):
            pass
    g = phase_grid(iterations=iterations, progress=progress)
    tmp = path.with_name("." + path.name + ".part")
    g.to_csv(tmp, index=False)
    tmp.replace(path)
    return g


def _prediction_targets(res: dict) -> dict[str, tuple[float, float]]:
    """The (p, q) of the judges whose SBM prediction the study computes."""
    t = {f"openqa: {name}": (r["p"], r["q"]) for name, r in res["openqa"]["llm"].items()}
    for r in res["openqa"]["ceiling"]:
        if r["kind"] == "pairwise":
            t[f"openqa: {r['judge']} vs {r['reference']}"] = (r["p"], r["q"])
    for j, r in res["openqa"]["book"].items():
        t[f"openqa: {j}"] = (r["p"], r["q"])
    for name, part in res["sas"].items():
        for j, r in part["judges"].items():
            t[f"sas {name}: {j}"] = (r["p"], r["q"])
    for name, part in res["evouna"].items():
        for j, r in part["all"]["judges"].items():
            t[f"evouna {name}: {j}"] = (r["p"], r["q"])
    return t


def run(*, progress: bool = True, phase_iterations: int = 20, iterations: int = 10) -> dict:
    """The whole study: rates on the three data sets, SBM predictions and the phase grid.

    Returns
    -------
    dict
        ``result`` (the JSON-ready results), ``scores`` (per-item scores) and ``phase`` (the grid).
    """
    from threadpoolctl import threadpool_limits
    from tqdm.auto import tqdm

    from ..data import load_evouna, load_openqa_eval, load_sas

    stages = tqdm(total=5, desc="human judges", disable=not progress)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the loaders' wrinkle reports; their counts are stored below
        sas, oq, ev = load_sas(), load_openqa_eval(), load_evouna()
    sas_d, sas_scores, sas_meta = _sas_part(sas, progress)
    stages.update()
    oq_scores, oq_meta = _openqa_part(oq, progress)
    stages.update()
    ev_scores, ev_meta = _evouna_part(ev, progress)
    stages.update()
    res = {"sas": sas_results(sas, sas_scores), "openqa": openqa_results(oq, oq_scores),
           "evouna": evouna_results(ev, ev_scores)}
    with threadpool_limits(1):
        targets = _prediction_targets(res)
        res["predictions"] = {k: _cached_prediction(p, q, iterations) for k, (p, q) in
                              tqdm(targets.items(), desc="SBM predictions", disable=not progress, leave=False)}
        stages.update()
        phase = _cached_phase(phase_iterations, progress)
    stages.update()
    stages.close()
    res["meta"] = {
        "thresholds": list(THRESHOLDS), "overlap_threshold": OVERLAP_THRESHOLD, "rouge_threshold": ROUGE_THRESHOLD,
        "cos_decimals": ROUND, "knife_edge": KNIFE_EDGE, "alias_separator": ALIAS_SEPARATOR,
        "phase": {"n": PHASE_N, "ratio": list(PHASE_RATIO), "iterations": phase_iterations},
        "sbm_iterations": iterations,
        "sas": {"rows": int(len(sas)), "used": int(len(sas_d)), **sas_meta},
        "openqa": {"rows": int(len(oq)), **oq_meta},
        "evouna": {"questions": int(len(ev)), "items": int(len(ev_scores)), **ev_meta},
        "command": "python -m semvar.experiments.human_judges",
    }
    scores = pd.concat([sas_scores, oq_scores, ev_scores], ignore_index=True)
    return {"result": res, "scores": scores, "phase": phase}


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (np.floating, float)):
        x = float(x)
        return None if math.isnan(x) else round(x, 6)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.bool_):
        return bool(x)
    return x


def write_study(study: dict, out: str | os.PathLike | None = None) -> Path:
    """Write :func:`run`'s output to ``out`` (default: the project's ``data/``); returns the folder."""
    out = Path(out) if out else result_path(RESULT_FILE).parent
    out.mkdir(parents=True, exist_ok=True)
    with open(out / RESULT_FILE, "w", encoding="utf-8") as fh:
        json.dump(_jsonable(study["result"]), fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    s = study["scores"].copy()
    for c in ("overlap", "rouge"):
        s[c] = s[c].round(6)
    for c in ("exact", "contained"):
        s[c] = s[c].astype(int)
    s.to_csv(out / SCORES_FILE, index=False, compression={"method": "gzip", "mtime": 0})
    study["phase"].round(5).to_csv(out / PHASE_FILE, index=False)
    return out


def load_study(folder: str | os.PathLike | None = None) -> dict:
    """Read the stored study: ``{"result": dict, "scores": DataFrame, "phase": DataFrame}``.

    Raises
    ------
    FileNotFoundError
        If a file is missing (regenerate with ``python -m semvar.experiments.human_judges``).
    """
    folder = Path(folder) if folder else result_path(RESULT_FILE).parent
    with open(folder / RESULT_FILE, encoding="utf-8") as fh:
        result = json.load(fh)
    scores = pd.read_csv(folder / SCORES_FILE, keep_default_na=False, dtype={"answerer": str, "part": str})
    for c in ("exact", "contained"):
        scores[c] = scores[c].astype(bool)
    return {"result": result, "scores": scores, "phase": pd.read_csv(folder / PHASE_FILE)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m semvar.experiments.human_judges", description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="output folder (default: the project's data/)")
    ap.add_argument("--phase-iterations", type=int, default=20, help="graphs per point of the phase grid")
    ap.add_argument("--iterations", type=int, default=10, help="graphs per Table 1 cell in the SBM predictions")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    study = run(progress=not args.no_progress, phase_iterations=args.phase_iterations, iterations=args.iterations)
    out = write_study(study, args.out)
    print(f"wrote {out / RESULT_FILE}, {SCORES_FILE} ({len(study['scores']):,} items) and {PHASE_FILE}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
