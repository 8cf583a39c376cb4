"""Semantic variability on real LLM answers: 29 models' chain-of-thought answers to MMLU-Pro (chapter 9).

The MMLU-Pro release holds, for 29 models, the written answer of each model to
each of the 12,032 questions and the letter extracted from it
(:func:`semvar.data.load_mmlu_pro_outputs`).  Two answers to a question are
**equivalent** (the oracle relation) when they reach the same letter; an
answer with no extracted letter is an outcome of its own, "unparseable".
This is variability *across models*: 29 different models answer once each,
not one model sampled 29 times.

Two kinds of analysis live here:

- on every question that all 29 models answered (no text needed):
  :func:`answer_entropy_table` gives the entropy of the 29 outcomes, the
  plurality answer and whether it is wrong; :func:`~semvar.evaluation.auroc_ci` measures how
  well a score predicts that the plurality answer is wrong;
- on a random subset of those questions (``N_QUESTIONS``, seed ``SEED``),
  :func:`run` embeds the answers with all-MiniLM-L6-v2 and writes the study
  the chapter reads: per pair of answers the cosine and the token-Jaccard
  overlap (:class:`semvar.judges.LexicalJudge`), per question the
  self-similarity and semantic spectral entropies with both judges, and a
  judge-budget sweep.

Regenerate the stored results with::

    python -m semvar.experiments.realtext     # writes data/realtext_*.csv.gz, .csv, .json

Embedding about 11,600 answers dominates (15-20 CPU minutes on two cores);
finished embeddings are kept per chunk of questions in the cache folder
(:func:`semvar.data.cache_dir`), so an interrupted run resumes where it
stopped.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import time
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import cast

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from threadpoolctl import threadpool_limits

from .._validation import RandomStateLike, check_int, check_random_state
from ..data import MMLU_PRO_LETTERS, cache_dir, load_mmlu_pro_outputs, result_path
from ..entropy import empirical_entropy, entropy_from_counts
from ..evaluation import auroc, auroc_ci, rate_ci
from ..graph import adjacency_from_verdicts, random_pairs
from ..judges import LexicalJudge
from ..pipeline import graph_entropy
from ..select_k import METHODS as K_RULES
from ..select_k import choose_k
from ..similarity import self_similarity
from ..spectral import spectral_clusters

__all__ = [
    "UNPARSEABLE",
    "N_QUESTIONS",
    "SEED",
    "QUESTIONS_FILE",
    "PAIRS_FILE",
    "ANSWERS_FILE",
    "BUDGET_FILE",
    "SUMMARY_FILE",
    "COS_GRID",
    "JACCARD_GRID",
    "BUDGET_FRACTIONS",
    "outcome_codes",
    "answer_entropy_table",
    "auroc",
    "auroc_ci",
    "rate_ci",
    "best_threshold",
    "pq_table",
    "stratified_rates",
    "choose_subset",
    "load_study",
    "run",
    "write_study",
    "main",
]

UNPARSEABLE = "unparseable"
"""The outcome of an answer from which no letter was extracted."""

N_QUESTIONS = 400
SEED = 13
QUESTIONS_FILE = "realtext_questions.csv.gz"
PAIRS_FILE = "realtext_pairs.csv.gz"
ANSWERS_FILE = "realtext_answers.csv.gz"
BUDGET_FILE = "realtext_budget.csv"
SUMMARY_FILE = "realtext_summary.json"
COS_GRID = tuple(np.round(np.arange(0.50, 0.995, 0.01), 2))
JACCARD_GRID = tuple(np.round(np.arange(0.05, 0.955, 0.01), 2))
BUDGET_FRACTIONS = (0.1, 0.2, 0.35, 0.5, 0.75, 1.0)
_CHUNK = 20  # questions per embedding chunk kept in the cache
_N_CODES = len(MMLU_PRO_LETTERS) + 1  # ten letters and "unparseable"


# --------------------------------------------------------------------------- the oracle relation


def outcome_codes(frame: pd.DataFrame, *, guessed_as_unparseable: bool = False) -> np.ndarray:
    """Outcome of each row of a loader frame: 0-9 for the letters A-J, 10 for unparseable.

    Parameters
    ----------
    frame : pandas.DataFrame
        A frame from :func:`semvar.data.load_mmlu_pro_outputs` (columns ``model``,
        ``question_id``, ``pred``).
    guessed_as_unparseable : bool, default=False
        Also count as unparseable the answers whose ``pred`` is a letter their
        text does not contain (``frame.attrs["pred_without_letter_ids"]``).

    Returns
    -------
    ndarray of int8, shape (len(frame),)

    Examples
    --------
    >>> f = pd.DataFrame({"model": ["m", "m"], "question_id": [1, 2],
    ...                   "pred": pd.Categorical(["B", None], categories=list("ABCDEFGHIJ"))})
    >>> outcome_codes(f).tolist()
    [1, 10]
    """
    _check_frame(frame, ("model", "question_id", "pred"))
    codes = frame["pred"].cat.codes.to_numpy().astype(np.int8)
    codes[codes < 0] = _N_CODES - 1
    if guessed_as_unparseable:
        ids = frame.attrs.get("pred_without_letter_ids")
        if not isinstance(ids, dict):
            raise ValueError("guessed_as_unparseable=True needs frame.attrs['pred_without_letter_ids'] "
                             "(the frame load_mmlu_pro_outputs returned)")
        for model, qids in ids.items():
            if qids:
                hit = (frame["model"] == model).to_numpy() & frame["question_id"].isin(qids).to_numpy()
                codes[hit] = _N_CODES - 1
    return codes


def _check_frame(frame, columns) -> None:
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"frame must be a pandas DataFrame from load_mmlu_pro_outputs, got {type(frame).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"frame lacks the columns {missing}; pass the frame load_mmlu_pro_outputs returned")
    if not isinstance(frame["pred"].dtype, pd.CategoricalDtype) or list(frame["pred"].cat.categories) != list(MMLU_PRO_LETTERS):
        raise ValueError("frame['pred'] must be categorical with the categories A-J, as load_mmlu_pro_outputs returns it")


def answer_entropy_table(frame: pd.DataFrame, *, complete: bool = True, guessed_as_unparseable: bool = False) -> pd.DataFrame:
    """Per question: the entropy of the models' outcomes and whether the plurality answer is wrong.

    Parameters
    ----------
    frame : pandas.DataFrame
        A frame from :func:`semvar.data.load_mmlu_pro_outputs` (``text=False`` suffices).
    complete : bool, default=True
        Keep only the questions that every model in ``frame`` answered.
    guessed_as_unparseable : bool, default=False
        See :func:`outcome_codes`.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``question_id``: ``category``, ``answer`` (the key),
        ``n_answers``, ``n_outcomes`` (distinct outcomes, unparseable counted
        as one), ``entropy`` (nats, :func:`semvar.entropy.entropy_from_counts`
        of the outcome counts), ``top_outcome`` (a letter or ``"unparseable"``),
        ``top_share``, ``share_correct``, ``majority_wrong``,
        ``confident_wrong`` and ``key_disputed``.

    Notes
    -----
    The key of a question is the one most files give: for 33 questions the
    files evaluated later carry a corrected key (``key_disputed``; see
    :mod:`semvar.data.mmlu_pro`), and the majority of files (22 to 26 of 29)
    give the original one.
    The **plurality answer is right** when the key's letter has strictly more
    answers than every other outcome (unparseable included); otherwise
    ``majority_wrong`` is True (a tie with the key counts as wrong).  A
    question is **confidently wrong** when one wrong *letter* is reached by
    more than half of the answers.
    """
    _check_frame(frame, ("model", "question_id", "pred", "answer", "category"))
    codes = outcome_codes(frame, guessed_as_unparseable=guessed_as_unparseable)
    qid = frame["question_id"].to_numpy()
    uq, qi = np.unique(qid, return_inverse=True)
    counts = np.zeros((uq.size, _N_CODES), dtype=np.int64)
    np.add.at(counts, (qi, codes), 1)
    n = counts.sum(axis=1)
    first = np.zeros(uq.size, dtype=np.int64)
    first[qi[::-1]] = np.arange(len(frame))[::-1]  # first row of each question
    keys = np.zeros((uq.size, _N_CODES - 1), dtype=np.int64)
    np.add.at(keys, (qi, frame["answer"].cat.codes.to_numpy()), 1)
    key = keys.argmax(axis=1)  # the key most files give (33 questions have two; see the loader)
    category = frame["category"].to_numpy()[first]
    top = counts.argmax(axis=1)
    srt = np.sort(counts, axis=1)
    strict = srt[:, -1] > srt[:, -2]
    key_count = counts[np.arange(uq.size), key]
    right = (top == key) & strict
    names = np.array(list(MMLU_PRO_LETTERS) + [UNPARSEABLE], dtype=object)
    out = pd.DataFrame({
        "category": category,
        "answer": names[key],
        "n_answers": n,
        "n_outcomes": (counts > 0).sum(axis=1),
        "entropy": [entropy_from_counts(c) for c in counts],
        "top_outcome": names[top],
        "top_share": srt[:, -1] / n,
        "share_correct": key_count / n,
        "majority_wrong": ~right,
        "confident_wrong": (top != key) & (top != _N_CODES - 1) & (srt[:, -1] * 2 > n),
        "key_disputed": (keys > 0).sum(axis=1) > 1,
    }, index=pd.Index(uq, name="question_id"))
    if complete:
        out = out[out["n_answers"] == frame["model"].nunique()]
    return out


# --------------------------------------------------------------------------- statistics
# auroc, auroc_ci and rate_ci live in semvar.evaluation (imported above and re-exported here)


def best_threshold(score: ArrayLike, same: ArrayLike, grid: Iterable[float]) -> tuple[float | None, float]:
    """The threshold of ``grid`` whose verdicts ``score >= t`` best separate ``same`` (balanced accuracy).

    Returns ``(threshold, balanced_accuracy)``; ties go to the smallest threshold.

    Examples
    --------
    >>> best_threshold([0.9, 0.8, 0.3, 0.2], [1, 1, 0, 0], [0.1, 0.5, 0.85])
    (0.5, 1.0)
    """
    s = np.asarray(score, dtype=float)
    y = np.asarray(same).astype(bool)
    if s.shape != y.shape or s.ndim != 1:
        raise ValueError("score and same must be 1-D of the same length")
    if y.all() or not y.any():
        raise ValueError("same must hold both same-meaning and different-meaning pairs")
    best: tuple[float | None, float] = (None, -1.0)
    for t in grid:
        v = s >= t
        bal = 0.5 * (v[y].mean() + (~v[~y]).mean())
        if bal > best[1] + 1e-12:
            best = (float(t), float(bal))
    return best


def pq_table(question_id: ArrayLike, same: ArrayLike, verdict: ArrayLike, *, n_boot: int = 2000,
             random_state: RandomStateLike = 0) -> dict:
    """A judge's ``p`` and ``q`` against the oracle, with binomial and question-bootstrap intervals.

    Parameters
    ----------
    question_id : array-like of shape (m,)
        The question each pair belongs to (pairs of one question share texts).
    same : array-like of bool, shape (m,)
        Oracle: the two answers reach the same outcome.
    verdict : array-like of bool, shape (m,)
        The judge's verdict on the pair.
    n_boot : int, default=2000
        Bootstrap resamples of whole questions.
    random_state : None, int or numpy.random.Generator, default=0

    Returns
    -------
    dict
        ``p``, ``q``, ``n_same``, ``n_diff``, ``questions``; Wilson 95 %
        intervals ``p_wilson``, ``q_wilson`` (which treat pairs as
        independent); percentile 95 % intervals from resampling questions
        ``p_boot``, ``q_boot``, ``gap_boot`` (for ``p - q``).
    """
    q_id = np.asarray(question_id)
    y = np.asarray(same).astype(bool)
    v = np.asarray(verdict).astype(bool)
    if not (q_id.shape == y.shape == v.shape) or y.ndim != 1:
        raise ValueError("question_id, same and verdict must be 1-D of the same length")
    n_boot = check_int(n_boot, "n_boot", low=1)
    rng = check_random_state(random_state)
    uq, qi = np.unique(q_id, return_inverse=True)
    per = np.zeros((uq.size, 4))
    # numpy's stubs take no (array, int) index tuple for ufunc.at, which numpy itself accepts
    np.add.at(per, (qi, 0), y & v)  # type: ignore[arg-type]
    np.add.at(per, (qi, 1), y)  # type: ignore[arg-type]
    np.add.at(per, (qi, 2), ~y & v)  # type: ignore[arg-type]
    np.add.at(per, (qi, 3), ~y)  # type: ignore[arg-type]
    tot = per.sum(axis=0)
    if tot[1] == 0 or tot[3] == 0:
        raise ValueError("same must hold both same-meaning and different-meaning pairs")
    draws = rng.integers(0, uq.size, size=(n_boot, uq.size))
    boot = np.stack([per[d].sum(axis=0) for d in draws])
    with np.errstate(invalid="ignore", divide="ignore"):
        bp, bq = boot[:, 0] / boot[:, 1], boot[:, 2] / boot[:, 3]
    ci = lambda a: tuple(float(x) for x in np.nanpercentile(a, [2.5, 97.5]))  # noqa: E731
    p, q = tot[0] / tot[1], tot[2] / tot[3]
    return {
        "p": float(p), "q": float(q), "n_same": int(tot[1]), "n_diff": int(tot[3]), "questions": int(uq.size),
        "p_wilson": rate_ci(int(tot[0]), int(tot[1]))[1:], "q_wilson": rate_ci(int(tot[2]), int(tot[3]))[1:],
        "p_boot": ci(bp), "q_boot": ci(bq), "gap_boot": ci(bp - bq),
    }


def stratified_rates(verdict: ArrayLike, feature: ArrayLike, *, bins: int = 5) -> tuple[pd.DataFrame, float]:
    """TRUE rate of ``verdict`` in strata of ``feature``, and the chi-square test that it is constant.

    Under the stochastic block model of the judge (Liu 2025, eqs. 3-4) the
    verdict on a same-meaning pair is TRUE with one probability ``p``
    whatever the pair, so the rate must not depend on any feature of the pair.

    Parameters
    ----------
    verdict : array-like of bool, shape (m,)
    feature : array-like, shape (m,)
        Numeric (cut into ``bins`` quantile strata) or categorical (one stratum per value).
    bins : int, default=5
        Number of quantile strata of a numeric feature.

    Returns
    -------
    table : pandas.DataFrame
        Per stratum (``"1 of 5"`` ... for a numeric feature, lowest first):
        ``pairs``, ``rate``, ``low``, ``high`` (Wilson 95 %) and, for a numeric
        feature, its range ``from``, ``to`` in the stratum.
    p_value : float
        Of Pearson's chi-square test of homogeneity (``scipy.stats.chi2_contingency``).
    """
    from scipy.stats import chi2_contingency

    v = np.asarray(verdict).astype(bool)
    f = pd.Series(np.asarray(feature))
    if v.ndim != 1 or len(f) != v.size:
        raise ValueError("verdict and feature must be 1-D of the same length")
    bins = check_int(bins, "bins", low=2)
    numeric = pd.api.types.is_numeric_dtype(f) and f.nunique() > bins
    if numeric:  # equal-count strata; ties broken by position so that every stratum has its share
        stratum = pd.qcut(f.rank(method="first"), bins, labels=[f"{b + 1} of {bins}" for b in range(bins)])
    else:
        stratum = f.astype("category")
    frame = pd.DataFrame({"s": stratum.to_numpy(), "v": v, "f": f.to_numpy()})
    g = frame.groupby("s", observed=True)
    k, n = g["v"].sum(), g["v"].size()
    rows = {s: (int(n[s]), *rate_ci(int(k[s]), int(n[s]))) for s in n.index}
    table = pd.DataFrame.from_dict(rows, orient="index", columns=["pairs", "rate", "low", "high"])
    table.index.name = "stratum"
    if numeric:
        table["from"], table["to"] = g["f"].min(), g["f"].max()
    p_value = float(chi2_contingency(np.stack([k.to_numpy(), (n - k).to_numpy()], axis=1))[1])
    return table, p_value


# --------------------------------------------------------------------------- the study


def choose_subset(question_ids: ArrayLike, n: int = N_QUESTIONS, *,
                  random_state: RandomStateLike = SEED) -> tuple[np.ndarray, np.ndarray]:
    """A random subset of ``n`` questions (sorted) and its calibration half (a boolean mask).

    Examples
    --------
    >>> ids, calib = choose_subset(np.arange(100, 200), 10, random_state=0)
    >>> ids.size, int(calib.sum())
    (10, 5)
    """
    ids = np.unique(np.asarray(question_ids))
    n = check_int(n, "n", low=2, high=ids.size)
    rng = check_random_state(random_state)
    chosen = np.sort(rng.choice(ids, size=n, replace=False))
    calib = np.zeros(n, dtype=bool)
    calib[rng.permutation(n)[: n // 2]] = True
    return chosen, calib


def _embed_chunks(texts_by_question: dict, models, *, progress: bool):
    """MiniLM embeddings per question, computed in chunks that are kept in the cache (resumable)."""
    from tqdm.auto import tqdm

    from ..similarity import DEFAULT_MODEL, embed

    qids = list(texts_by_question)
    tag = hashlib.sha256(json.dumps([[int(q) for q in qids], list(models), DEFAULT_MODEL]).encode()).hexdigest()[:12]
    folder = cache_dir() / "realtext" / f"minilm-{tag}"
    folder.mkdir(parents=True, exist_ok=True)
    chunks = [qids[i: i + _CHUNK] for i in range(0, len(qids), _CHUNK)]
    out = {}
    todo = []
    for c, chunk in enumerate(chunks):
        path = folder / f"chunk_{c:03d}.npz"
        if path.is_file():
            try:
                with np.load(path) as z:
                    if z["question_id"].tolist() == [int(q) for q in chunk]:
                        E = z["embeddings"]
                        for k, q in enumerate(chunk):
                            out[q] = E[k * len(models): (k + 1) * len(models)]
                        continue
            except (OSError, ValueError, KeyError):
                pass
        todo.append((c, chunk))
    bar = tqdm(total=sum(len(ch) for _, ch in todo) * len(models), unit="text", disable=not progress,
               desc=f"embedding answers (MiniLM; {len(chunks) - len(todo)} of {len(chunks)} chunks cached)")
    for c, chunk in todo:
        texts = [t for q in chunk for t in texts_by_question[q]]
        E = np.asarray(embed(texts, progress=False), dtype=np.float32)
        path = folder / f"chunk_{c:03d}.npz"
        tmp = folder / f".chunk_{c:03d}.part.npz"
        np.savez(tmp, question_id=np.array([int(q) for q in chunk]), embeddings=E)
        tmp.replace(path)  # a finished chunk is never lost, a half-written one never read
        for k, q in enumerate(chunk):
            out[q] = E[k * len(models): (k + 1) * len(models)]
        bar.update(len(texts))
    bar.close()
    return out, len(chunks) - len(todo)


def _spectral(A: np.ndarray, k: int, seed: int, laplacian: str = "normalized") -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # isolated texts: expected with a strict judge
        return graph_entropy(A, k, laplacian=laplacian, random_state=seed)


def _chosen_k(A: np.ndarray, rule: str, seed: int, failures: list) -> int:
    """K chosen by ``rule``; 0 (and the graph kept in ``failures``) when the rule raises."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            return int(choose_k(A, rule, k_max=10, random_state=seed))
        except (np.linalg.LinAlgError, ValueError) as exc:
            failures.append((rule, repr(exc), A.copy()))
            return 0


def _budget_rows(graphs: dict, truth: dict, k_true: dict, seeds=(0, 1, 2)) -> pd.DataFrame:
    """Entropy error of random pair designs (centred spectrum, true K) on the stored verdicts."""
    rows = []
    for judge, by_q in graphs.items():
        for s in BUDGET_FRACTIONS:
            errs = []
            calls = []
            for q, A in by_q.items():
                n = A.shape[0]
                for seed in seeds:
                    rng = np.random.default_rng([seed, int(q), int(1000 * s)])
                    P = random_pairs(n, s, random_state=rng)
                    if P.shape[0] == 0:
                        continue
                    adj, obs = adjacency_from_verdicts(n, P, A[P[:, 0], P[:, 1]] > 0, return_mask=True)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", RuntimeWarning)
                        lab = spectral_clusters(adj, k_true[q], laplacian="centered", observed=obs, random_state=seed)
                    errs.append(abs(empirical_entropy(lab) - truth[q]))
                    calls.append(P.shape[0])
            rows.append({"judge": judge, "s": s, "calls_per_text": float(np.mean(calls)) / n,
                         "mean_error": float(np.mean(errs)), "sd_error": float(np.std(errs, ddof=1)),
                         "designs": len(errs)})
    return pd.DataFrame(rows)


def run(n_questions: int = N_QUESTIONS, *, seed: int = SEED, progress: bool = True,
        data_dir: str | os.PathLike | None = None) -> dict:
    """Embed a random subset of questions' answers and compute the study (see the module docstring).

    Returns
    -------
    dict
        ``questions``, ``pairs``, ``answers``, ``budget`` (DataFrames) and
        ``summary`` (a dict), as written by ``main``.
    """
    from ..similarity import load_model

    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the loader's wrinkle report: counted in answer_entropy_table
        frame = load_mmlu_pro_outputs(text=True, data_dir=data_dir, progress=progress)
    models = list(frame["model"].cat.categories)
    table = answer_entropy_table(frame)
    ids, calib = choose_subset(table.index.to_numpy(), n_questions, random_state=seed)
    sub = frame[frame["question_id"].isin(ids)].sort_values(["question_id", "model"])
    codes = outcome_codes(sub)
    texts_by_q = {int(q): g["generated_text"].tolist() for q, g in sub.groupby("question_id", sort=True)}
    codes_by_q = {int(q): codes[idx] for q, idx in sub.groupby("question_id", sort=True).indices.items()}
    n_models = len(models)
    if any(len(t) != n_models for t in texts_by_q.values()):
        raise RuntimeError("a chosen question lacks an answer")  # pragma: no cover - complete questions only

    # answers: length in characters and in MiniLM word pieces (the encoder reads at most max_seq_length)
    tok = load_model().tokenizer
    maxlen = int(cast(int, load_model().max_seq_length))  # set for MiniLM (the library types it Optional)
    all_texts = [t for q in texts_by_q for t in texts_by_q[q]]
    n_tokens = np.array([len(x) for x in tok(all_texts, add_special_tokens=True)["input_ids"]])
    answers = pd.DataFrame({
        "question_id": np.repeat(list(texts_by_q), n_models),
        "model": np.tile(models, len(texts_by_q)),
        "outcome": np.array(list(MMLU_PRO_LETTERS) + [UNPARSEABLE], dtype=object)[np.concatenate(list(codes_by_q.values()))],
        "correct": sub["correct"].to_numpy(),
        "chars": [len(t) for t in all_texts],
        "tokens": n_tokens,
    })

    t1 = time.perf_counter()
    emb, from_cache = _embed_chunks(texts_by_q, models, progress=progress)
    t_embed = time.perf_counter() - t1
    with threadpool_limits(1):  # thousands of 29-node eigenproblems and k-means fits: one thread is fastest
        res = _study(table, ids, calib, texts_by_q, codes_by_q, answers, emb, models, maxlen, seed, progress)
    res["summary"]["embedding_chunks"] = -(-len(ids) // _CHUNK)
    res["summary"]["embedding_chunks_from_cache"] = int(from_cache)
    res["summary"]["seconds_embedding"] = round(t_embed, 1)
    res["summary"]["seconds_total"] = round(time.perf_counter() - t0, 1)
    return res


def _study(table, ids, calib, texts_by_q, codes_by_q, answers, emb, models, maxlen, seed, progress):
    from tqdm.auto import tqdm

    from ..similarity import DEFAULT_MODEL

    n_models = len(models)

    # pairs: cosine, token Jaccard, oracle
    iu = np.triu_indices(n_models, 1)
    P = np.stack(iu, axis=1)
    lex = LexicalJudge()
    cos_by_q, jac_by_q, rows = {}, {}, []
    for q in tqdm(texts_by_q, desc="pairs", unit="question", disable=not progress):
        U = emb[q].astype(np.float64)
        U /= np.linalg.norm(U, axis=1, keepdims=True)
        C = np.triu(np.round(U @ U.T, 4), 1)  # the stored precision: verdicts below are those the file gives
        C = C + C.T
        np.fill_diagonal(C, 1.0)
        J = np.eye(n_models)
        J[iu] = np.round(lex.score(texts_by_q[q], P), 4)
        J = np.maximum(J, J.T)
        cos_by_q[q], jac_by_q[q] = C, J
        c = codes_by_q[q]
        rows.append(pd.DataFrame({"question_id": q, "i": iu[0], "j": iu[1], "cos": C[iu], "jaccard": J[iu],
                                  "same": c[iu[0]] == c[iu[1]]}))
    pairs = pd.concat(rows, ignore_index=True)
    is_cal = pairs["question_id"].isin(ids[calib]).to_numpy()
    tau_cos, bal_cos = best_threshold(pairs["cos"][is_cal], pairs["same"][is_cal], COS_GRID)
    tau_jac, bal_jac = best_threshold(pairs["jaccard"][is_cal], pairs["same"][is_cal], JACCARD_GRID)

    # per question: self-similarity and spectral entropies
    k_rules = [r for r in ("ncv", "auto") if r in K_RULES]
    qrows, graphs, failures = [], {"minilm": {}, "lexical": {}, "oracle": {}}, []
    for k_, q in enumerate(tqdm(texts_by_q, desc="spectral entropy, K", unit="question", disable=not progress)):
        c = codes_by_q[q]
        k_true = int(np.unique(c).size)
        row = {"question_id": q, "split": "calibration" if calib[k_] else "evaluation",
               "self_similarity": self_similarity(emb[q]),
               "mean_jaccard": float(jac_by_q[q][iu].mean()),
               "tokens_over_max": int((answers["tokens"].to_numpy()[k_ * n_models:(k_ + 1) * n_models] > maxlen).sum())}
        for judge, M, tau in (("minilm", cos_by_q[q], tau_cos), ("lexical", jac_by_q[q], tau_jac)):
            A = (M >= tau).astype(float)
            np.fill_diagonal(A, 0.0)
            graphs[judge][q] = A
            row[f"isolated_{judge}"] = int((A.sum(axis=1) == 0).sum())
            row[f"spectral_{judge}_k"] = _spectral(A, k_true, seed)
            row[f"spectral_{judge}_k_centered"] = _spectral(A, k_true, seed, laplacian="centered")
            for rule in k_rules:
                kk = _chosen_k(A, rule, seed, failures)
                row[f"k_{rule}_{judge}"] = kk
                row[f"spectral_{judge}_{rule}"] = _spectral(A, kk, seed) if kk else np.nan
        O = (c[:, None] == c[None, :]).astype(float)
        np.fill_diagonal(O, 0.0)
        graphs["oracle"][q] = O
        for rule in k_rules:
            row[f"k_{rule}_oracle"] = _chosen_k(O, rule, seed, failures)
        qrows.append(row)
    questions = pd.DataFrame(qrows).set_index("question_id")
    questions = table.loc[questions.index].join(questions)

    ev = questions.index[questions["split"] == "evaluation"]
    truth = {q: float(questions.at[q, "entropy"]) for q in ev}
    k_true = {q: int(questions.at[q, "n_outcomes"]) for q in ev}
    budget = _budget_rows({j: {q: graphs[j][q] for q in ev} for j in graphs}, truth, k_true)

    summary = {
        "questions": int(len(questions)), "calibration_questions": int(calib.sum()), "seed": int(seed),
        "complete_questions": int(len(table)), "models": models, "texts": int(len(answers)),
        "pairs": int(len(pairs)), "embedding_model": DEFAULT_MODEL, "max_seq_length": maxlen,
        "share_over_max_tokens": float((answers["tokens"] > maxlen).mean()),
        "threshold_cos": tau_cos, "balanced_accuracy_cos_calibration": bal_cos,
        "threshold_jaccard": tau_jac, "balanced_accuracy_jaccard_calibration": bal_jac,
        "k_rules": k_rules,
        "k_rule_failures": {r: sum(f[0] == r for f in failures) for r in k_rules},
        "laplacian": "normalized (Liu's Algorithm 1), and centered for the *_k_centered columns and the budget sweep",
        "budget_fractions": list(BUDGET_FRACTIONS),
    }
    if failures:
        warnings.warn(f"{len(failures)} K selections raised and were recorded as K = 0 (first: {failures[0][0]}: "
                      f"{failures[0][1]})", RuntimeWarning, stacklevel=2)
    return {"questions": questions, "pairs": pairs, "answers": answers, "budget": budget, "summary": summary,
            "k_failures": failures}


def load_study() -> dict:
    """The stored study (``data/realtext_*``) as written by ``main``: four frames and the summary."""
    out = {
        "questions": pd.read_csv(result_path(QUESTIONS_FILE), index_col="question_id"),
        "pairs": pd.read_csv(result_path(PAIRS_FILE)),
        "answers": pd.read_csv(result_path(ANSWERS_FILE)),
        "budget": pd.read_csv(result_path(BUDGET_FILE)),
    }
    with open(result_path(SUMMARY_FILE), encoding="utf-8") as fh:
        out["summary"] = json.load(fh)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m semvar.experiments.realtext", description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=N_QUESTIONS, help=f"questions in the subset (default {N_QUESTIONS})")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--out", default=None, help="output folder (default: the project's data/)")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    res = run(args.questions, seed=args.seed, progress=not args.no_progress)
    out = write_study(res, args.out)
    print(f"wrote {out / QUESTIONS_FILE}, {PAIRS_FILE}, {ANSWERS_FILE}, {BUDGET_FILE}, {SUMMARY_FILE} "
          f"({res['summary']['questions']} questions, {res['summary']['texts']} answers)")
    return 0


def write_study(res: dict, out: str | os.PathLike | None = None) -> Path:
    """Write the result of :func:`run` to ``out`` (default: the project's ``data/``); returns the folder."""
    out = Path(out) if out else result_path(QUESTIONS_FILE).parent
    out.mkdir(parents=True, exist_ok=True)
    gz = {"method": "gzip", "mtime": 0}  # no time stamp in the file: the same study gives the same bytes
    res["questions"].round(6).to_csv(out / QUESTIONS_FILE, compression=gz)
    p = res["pairs"].copy()
    p["cos"] = p["cos"].round(4)
    p["jaccard"] = p["jaccard"].round(4)
    p["same"] = p["same"].astype(int)
    p.to_csv(out / PAIRS_FILE, index=False, compression=gz)
    res["answers"].to_csv(out / ANSWERS_FILE, index=False, compression=gz)
    res["budget"].round(6).to_csv(out / BUDGET_FILE, index=False)
    with open(out / SUMMARY_FILE, "w", encoding="utf-8") as fh:
        json.dump(res["summary"], fh, indent=1)
        fh.write("\n")
    return out


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
