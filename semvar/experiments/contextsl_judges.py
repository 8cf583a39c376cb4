"""Study: ContextSL's two LLM judges, and MiniLM, against its human labels, read as the ``(p, q)`` of Liu's judge model.

The data (:func:`semvar.data.load_contextsl`, Lin, Trivedi & Sun 2024): 720
answers of three models (LLaMA-2-13B, Gemma-7B, Mistral-7B) to CoQA,
TriviaQA and NQ-open questions, each rated by two LLM judges for its
consistency with the reference answer (Llama-2-70B, ``llama2_score``, and
gpt-3.5-turbo-0125, ``gpt_score``: a rating from 0 to 100, divided by 100)
and labelled by people (``human_eval``: 1 correct, 0 wrong, 0.5 or 0.8 in
between).  The relation judged is one answer against the reference answer,
not two samples against each other; as in the ``openqa_eval`` part of
:mod:`semvar.experiments.human_judges`, ``p`` is the judge's TRUE rate on
the answers the humans call correct (same meaning as the reference) and
``q`` its TRUE rate on those they call wrong.  Rows labelled 0.5 or 0.8 are
neither: their TRUE rates are reported apart, one per label, never merged
into ``p`` or ``q``.  A row a judge did not score (one answer is empty) is
left out of that judge's rates and counted, never read as FALSE.

From a rating to a verdict
--------------------------
A rating is a verdict only through a threshold, and both judges often give
exactly 0.5 (the GPT judge on 140 rows, the Llama judge on 23), so the
rule at 0.5 matters.  Every judge is reported under three rules
(:data:`RULES`):

* ``ties_same``: ``score >= 0.5`` (0.5 counts as "same");
* ``ties_different``: ``score > 0.5`` (0.5 counts as "different");
* ``repository``: the threshold the ContextSL repository itself uses to turn
  a rating into correct / wrong (``UQ_summ.get_acc`` in its
  ``pipeline/summ.py``: ``score >= 0.2`` for Llama-2, ``score >= 0.6`` for
  GPT; read at commit ``84fffe2996dbdfc92d714a092e7de481fc1f04c7``).

The headline tie rule of each judge (:data:`HEADLINE`) is the one the
repository's threshold implies at 0.5: for GPT ``score >= 0.6`` counts 0.5
as wrong, and no GPT rating lies strictly between 0.5 and 0.6, so its
``repository`` and ``ties_different`` verdicts agree on every row; for
Llama-2 ``score >= 0.2`` counts 0.5 as correct (``ties_same``), and also
the five ratings 0.2 and 0.25, which the ``repository`` rule reports.

MiniLM
------
The book's embedding judge on the same rows: the cosine of the
all-MiniLM-L6-v2 embeddings of the response and the reference answer,
rounded to five decimals (so that every CPU gives the same verdicts; the
run counts the unrounded cosines within ``1e-5`` of a threshold), judged
``cos >= t`` at the thresholds of :mod:`semvar.experiments.human_judges`
(:data:`~semvar.experiments.human_judges.THRESHOLDS`), with that study's
embedding helper and cache.

Every rate has a Wilson 95 % interval and ``p - q`` a Newcombe interval
(:func:`~semvar.experiments.human_judges.judge_rates`); each is given
pooled, by data set and by answering model.

Regenerate with::

    python -m semvar.experiments.contextsl_judges    # writes data/contextsl_judges.json

About ten seconds on two CPU cores, most of it loading MiniLM and embedding
some 1,400 distinct texts (cached in :func:`semvar.data.cache_dir` for the
next run).
"""

from __future__ import annotations

import argparse
import json
import os
import warnings
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .._validation import check_bool, check_real
from ..data import result_path
from .human_judges import ROUND, THRESHOLDS, _embed_cached, _jsonable, _knife_edges, _wilson, judge_rates, text_digest

__all__ = [
    "RESULT_FILE",
    "JUDGES",
    "JUDGE_MODELS",
    "RULES",
    "HEADLINE",
    "score_verdicts",
    "contextsl_rates",
    "grouped_rates",
    "minilm_cosines",
    "judge_results",
    "run",
    "main",
]

RESULT_FILE = "contextsl_judges.json"

#: the two LLM judges of the release: short name -> column of their rating
JUDGES: dict[str, str] = {"llama2": "llama2_score", "gpt35": "gpt_score"}
#: the models behind them (ContextSL's ``dataeval/load_worker.py``)
JUDGE_MODELS: dict[str, str] = {"llama2": "meta-llama/Llama-2-70b-hf", "gpt35": "gpt-3.5-turbo-0125"}
#: per judge, rule name -> (threshold, inclusive): the verdict is ``score >= t`` if inclusive, else ``score > t``
RULES: dict[str, dict[str, tuple[float, bool]]] = {
    "llama2": {"ties_same": (0.5, True), "ties_different": (0.5, False), "repository": (0.2, True)},
    "gpt35": {"ties_same": (0.5, True), "ties_different": (0.5, False), "repository": (0.6, True)},
}
#: the headline tie rule of each judge: the one the repository's own threshold implies at 0.5
HEADLINE: dict[str, str] = {"llama2": "ties_same", "gpt35": "ties_different"}
#: the grouping columns of the breakdowns
GROUPS = ("dataset", "model")
REPOSITORY_COMMIT = "84fffe2996dbdfc92d714a092e7de481fc1f04c7"


# --------------------------------------------------------------------------- verdicts and rates

def score_verdicts(scores: ArrayLike, threshold: float, *, inclusive: bool = True) -> pd.arrays.BooleanArray:
    """A judge's verdicts from its ratings: ``score >= threshold`` (or ``>``), missing where the rating is.

    Parameters
    ----------
    scores : array-like of float, shape (m,)
        Ratings in [0, 1]; NaN (or None) where the judge gave none.
    threshold : float in [0, 1]
    inclusive : bool, default=True
        ``True``: a rating equal to ``threshold`` is a TRUE verdict
        (``score >= threshold``); ``False``: it is FALSE (``score > threshold``).

    Returns
    -------
    pandas.arrays.BooleanArray
        The verdicts, ``pd.NA`` where the rating is missing (an unjudged
        item is never a FALSE verdict).

    Raises
    ------
    ValueError
        If ``scores`` is not 1-D numbers in [0, 1] (NaN allowed), or
        ``threshold`` is not in [0, 1].

    Examples
    --------
    >>> score_verdicts([1.0, 0.5, 0.0, None], 0.5).tolist()
    [True, True, False, <NA>]
    >>> score_verdicts([1.0, 0.5, 0.0, None], 0.5, inclusive=False).tolist()
    [True, False, False, <NA>]
    """
    s = _scores(scores, "scores")
    threshold = check_real(threshold, "threshold", low=0.0, high=1.0)
    inclusive = check_bool(inclusive, "inclusive")
    v = s >= threshold if inclusive else s > threshold
    return pd.array(np.where(np.isnan(s), None, v).tolist(), dtype="boolean")  # type: ignore[call-overload]  # numpy's stubs take no None (an object array)


def _scores(x, name: str) -> np.ndarray:
    """Numbers in [0, 1] as a 1-D float array, NaN where missing (None, NaN, ``pd.NA``)."""
    try:
        shape = np.shape(x)
    except ValueError:  # ragged
        shape = None
    if shape is None or len(shape) != 1 or isinstance(x, (str, bytes)):
        raise ValueError(f"{name} must be 1-D, got {'a ragged sequence' if shape is None else f'shape {shape}'}")
    try:
        s = pd.Series(x, dtype="Float64").to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must hold numbers in [0, 1] (or missing values)") from None
    ok = np.isnan(s) | ((s >= 0) & (s <= 1))
    if not ok.all():
        raise ValueError(f"{name} must hold numbers in [0, 1] (or missing values), got {s[~ok][:5].tolist()}")
    return s


def _verdict_array(x, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Verdicts (bool) and a mask of the judged ones, from bools, 0/1 or a nullable boolean array."""
    if isinstance(x, (str, bytes)):
        raise ValueError(f"{name} must be a 1-D array of booleans (missing values allowed)")
    try:
        arr = pd.array(list(x) if not isinstance(x, (np.ndarray, pd.Series, pd.api.extensions.ExtensionArray))
                       else x, dtype="boolean")
    except (TypeError, ValueError):
        raise ValueError(f"{name} must hold booleans or 0/1 (missing values allowed)") from None
    judged = ~np.asarray(arr.isna())
    return np.asarray(arr.fillna(False), dtype=bool), judged


def contextsl_rates(verdict: ArrayLike, human_eval: ArrayLike, *, level: float = 0.95) -> dict:
    """A judge's ``p`` (humans say 1) and ``q`` (humans say 0), and its TRUE rate on each in-between label.

    Parameters
    ----------
    verdict : array-like of bool, shape (m,)
        The judge's verdicts ("the answer means the reference"), missing
        (``pd.NA``, None) where it gave none: those items are left out.
    human_eval : array-like of float in [0, 1], shape (m,)
        The human label: 1 correct, 0 wrong; any other value (ContextSL has
        0.5 and 0.8) is a partial label, reported apart.
    level : float in (0, 1), default=0.95

    Returns
    -------
    dict
        The fields of :func:`~semvar.experiments.human_judges.judge_rates`
        on the judged items labelled 1 (``p``) and 0 (``q``), with Wilson
        intervals and a Newcombe interval of ``p - q``; ``agreement`` (share
        of those items on which the verdict is the human label);
        ``partial``: per other label (written ``"0.5"``) its TRUE ``rate``,
        Wilson ``ci``, ``k`` and ``n``; ``unjudged``: items without a
        verdict, per label.

    Raises
    ------
    ValueError
        If the lengths differ, ``human_eval`` has a missing value or one
        outside [0, 1], the verdicts are not booleans, or the judged items
        lack label 0 or label 1.

    Examples
    --------
    >>> r = contextsl_rates([1, 1, 0, 1, 0, None, 1], [1, 1, 1, 0, 0, 0, 0.5])
    >>> round(r["p"], 4), r["q"], r["n_diff"], r["partial"]["0.5"]["rate"], r["unjudged"]
    (0.6667, 0.5, 2, 1.0, {'0': 1})
    """
    v, judged = _verdict_array(verdict, "verdict")
    h = _scores(human_eval, "human_eval")
    if h.shape != v.shape:
        raise ValueError(f"verdict and human_eval must have one length, got {v.size} and {h.size}")
    if np.isnan(h).any():
        raise ValueError(f"human_eval must not hold missing values (got {int(np.isnan(h).sum())})")
    level = check_real(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)
    binary = judged & ((h == 0) | (h == 1))
    if not (binary & (h == 1)).any() or not (binary & (h == 0)).any():
        raise ValueError("the judged items must include both human labels 0 and 1")
    out = judge_rates(v[binary], h[binary] == 1, level=level)
    out["agreement"] = float((v[binary] == (h[binary] == 1)).mean())
    partial = {}
    for value in sorted(set(h[judged & ~binary].tolist())):
        sel = judged & (h == value)
        rate, lo, hi = _wilson(int(v[sel].sum()), int(sel.sum()), level)
        partial[f"{value:g}"] = {"rate": rate, "ci": [lo, hi], "k": int(v[sel].sum()), "n": int(sel.sum())}
    out["partial"] = partial
    out["unjudged"] = {f"{value:g}": int((~judged & (h == value)).sum()) for value in sorted(set(h[~judged].tolist()))}
    return out


def grouped_rates(verdict: ArrayLike, frame: pd.DataFrame, *, level: float = 0.95) -> dict:
    """:func:`contextsl_rates` pooled, by data set and by answering model.

    Parameters
    ----------
    verdict : array-like of bool, shape (len(frame),)
        One verdict per row of ``frame`` (missing allowed).
    frame : DataFrame
        Columns ``human_eval``, ``dataset`` and ``model`` (the frame of
        :func:`semvar.data.load_contextsl`).
    level : float in (0, 1), default=0.95

    Returns
    -------
    dict
        ``pooled``, ``by_dataset`` and ``by_model`` (each group -> the
        result of :func:`contextsl_rates`), groups in their order of first
        appearance.

    Raises
    ------
    ValueError
        If ``frame`` lacks a column or has another length than ``verdict``,
        or a group lacks label 0 or 1 among its judged items.

    Examples
    --------
    >>> f = pd.DataFrame({"human_eval": [1, 0, 1, 0], "dataset": ["a", "a", "b", "b"], "model": ["m"] * 4})
    >>> r = grouped_rates([True, False, True, True], f)
    >>> r["pooled"]["q"], r["by_dataset"]["a"]["q"], r["by_dataset"]["b"]["q"]
    (0.5, 0.0, 1.0)
    """
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"frame must be a DataFrame, got {type(frame).__name__}")
    missing = [c for c in ("human_eval", *GROUPS) if c not in frame.columns]
    if missing:
        raise ValueError(f"frame lacks the columns {missing}")
    v, judged = _verdict_array(verdict, "verdict")
    if v.size != len(frame):
        raise ValueError(f"verdict has {v.size} items but frame has {len(frame)} rows")
    nullable = pd.array(np.where(judged, v, None).tolist(), dtype="boolean")  # type: ignore[call-overload]  # numpy's stubs take no None (an object array)
    h = frame["human_eval"].to_numpy(dtype=np.float64, na_value=np.nan)
    out = {"pooled": contextsl_rates(nullable, h, level=level)}
    for col in GROUPS:
        g = frame[col].astype(str).to_numpy()
        out[f"by_{col}"] = {name: contextsl_rates(nullable[g == name], h[g == name], level=level)
                            for name in pd.unique(g)}
    return out


# --------------------------------------------------------------------------- MiniLM


def minilm_cosines(frame: pd.DataFrame, *, progress: bool = False) -> tuple[np.ndarray, dict]:
    """Cosine of the all-MiniLM-L6-v2 embeddings of each response and its reference answer, rounded.

    Parameters
    ----------
    frame : DataFrame
        Columns ``response`` and ``ref_answer`` (missing responses allowed).
    progress : bool, default=False
        Show the embedding progress bar.

    Returns
    -------
    cos : ndarray of float, shape (len(frame),)
        Cosines rounded to five decimals, NaN where the response is missing.
    meta : dict
        ``knife_edges`` (per threshold of the study, unrounded cosines within
        ``1e-5`` of it), ``missing`` (rows without a response) and
        ``digest`` (of the texts embedded, in row order).

    Raises
    ------
    ValueError
        If ``frame`` lacks a column, or a reference answer is missing.
    """
    if not isinstance(frame, pd.DataFrame) or not {"response", "ref_answer"} <= set(frame.columns):
        raise ValueError("frame must be a DataFrame with the columns response and ref_answer")
    progress = check_bool(progress, "progress")
    if frame["ref_answer"].isna().any():
        raise ValueError("ref_answer must not hold missing values")
    has = frame["response"].notna().to_numpy()
    resp = frame["response"].astype(object).where(has, None).tolist()
    ref = frame["ref_answer"].astype(str).tolist()
    texts = [t for t, ok in zip(resp, has) if ok] + ref
    emb = _embed_cached(texts, "contextsl", progress=progress)
    raw = np.array([float(emb[a] @ emb[b]) if ok else np.nan for a, b, ok in zip(resp, ref, has)])
    meta = {"knife_edges": _knife_edges(raw[has]), "missing": int((~has).sum()),
            "digest": text_digest([t if ok else "" for t, ok in zip(resp, has)] + ref)}
    return raw.round(ROUND), meta


# --------------------------------------------------------------------------- the study


def _cosines(cos, n: int) -> np.ndarray:
    """Cosines as a 1-D float array of length ``n``, each in [-1, 1] or NaN (None allowed for NaN)."""
    try:
        c = np.asarray(cos, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("cos must hold numbers in [-1, 1] (or missing values)") from None
    if c.ndim != 1 or c.size != n:
        raise ValueError(f"cos must be 1-D with one value per row of frame ({n}), got shape {c.shape}")
    ok = np.isnan(c) | ((c >= -1.0 - 1e-6) & (c <= 1.0 + 1e-6))
    if not ok.all():
        raise ValueError(f"cos must hold numbers in [-1, 1] (or missing values), got {c[~ok][:5].tolist()}")
    return c


def _value_counts(x: np.ndarray) -> dict[str, int]:
    x = x[~np.isnan(x)]
    return {f"{v:g}": int((x == v).sum()) for v in sorted(set(x.tolist()))}


def judge_results(frame: pd.DataFrame, cos: ArrayLike) -> dict:
    """Every judge and rule of the study on ``frame``, from the LLM ratings and given MiniLM cosines.

    Parameters
    ----------
    frame : DataFrame
        The frame of :func:`semvar.data.load_contextsl` (or one with its
        ``dataset``, ``model``, ``llama2_score``, ``gpt_score`` and
        ``human_eval`` columns).
    cos : array-like of float, shape (len(frame),)
        The rounded MiniLM cosines of :func:`minilm_cosines` (NaN where there
        is no response).

    Returns
    -------
    dict
        ``human`` (rows per label, pooled and per group), ``llm`` (per judge
        of :data:`JUDGES`: ``column``, ``model``, ``scores`` (rows per
        rating), ``missing``, ``half_by_human`` (rows rated exactly 0.5, per
        human label), ``headline``, ``repository_differs_from_headline``
        (judged rows on which the two rules disagree) and ``rules``: per rule
        of :data:`RULES` its ``threshold``, ``inclusive``, ``rule`` (as
        text) and the rates of :func:`grouped_rates`) and ``minilm`` (per
        threshold ``cos>=t`` the rates of :func:`grouped_rates`).

    Raises
    ------
    ValueError
        If ``frame`` lacks a column or ``cos`` has another length.
    """
    need = ["human_eval", *GROUPS, *JUDGES.values()]
    if not isinstance(frame, pd.DataFrame) or any(c not in frame.columns for c in need):
        raise ValueError(f"frame must be a DataFrame with the columns {need}")
    cos = _cosines(cos, len(frame))
    h = frame["human_eval"].to_numpy(dtype=np.float64, na_value=np.nan)
    human: dict[str, Any] = {"pooled": _value_counts(h)}
    for col in GROUPS:
        g = frame[col].astype(str).to_numpy()
        human[f"by_{col}"] = {name: _value_counts(h[g == name]) for name in pd.unique(g)}
    llm = {}
    for judge, column in JUDGES.items():
        s = frame[column].to_numpy(dtype=np.float64, na_value=np.nan)
        rules, verdicts = {}, {}
        for name, (t, inclusive) in RULES[judge].items():
            verdicts[name] = score_verdicts(s, t, inclusive=inclusive)
            rules[name] = {"threshold": t, "inclusive": inclusive, "rule": f"score {'>=' if inclusive else '>'} {t:g}",
                           **grouped_rates(verdicts[name], frame)}
        head = HEADLINE[judge]
        judged = ~np.isnan(s)
        llm[judge] = {
            "column": column, "model": JUDGE_MODELS[judge], "scores": _value_counts(s),
            "missing": int((~judged).sum()), "half_by_human": _value_counts(h[s == 0.5]),
            "headline": head,
            "repository_differs_from_headline": int(
                (verdicts["repository"].to_numpy(dtype=bool, na_value=False)[judged]
                 != verdicts[head].to_numpy(dtype=bool, na_value=False)[judged]).sum()),
            "rules": rules,
        }
    minilm = {f"cos>={t}": grouped_rates(
        pd.array(np.where(np.isnan(cos), None, cos >= t).tolist(), dtype="boolean"),  # type: ignore[call-overload]  # numpy's stubs take no None (an object array)
        frame) for t in THRESHOLDS}
    return {"human": human, "llm": llm, "minilm": minilm}


def run(*, progress: bool = True, data_dir: str | os.PathLike | None = None) -> dict:
    """The whole study: load ContextSL, embed with MiniLM, every judge's rates; a JSON-ready dict.

    Parameters
    ----------
    progress : bool, default=True
        Show the embedding progress bar.
    data_dir : path-like, optional
        Passed to :func:`semvar.data.load_contextsl`; default ``None``: the data rule.

    Returns
    -------
    dict
        ``rows``, the results of :func:`judge_results` (``human``, ``llm``,
        ``minilm``), ``cos`` (the rounded cosines in row order, None where
        there is no response) and ``meta`` (rules, thresholds, the
        repository commit the thresholds were read at, the MiniLM knife
        edges and text digest, the data's report and source, the command).
    """
    from ..data import CONTEXTSL_ORIGIN, load_contextsl

    progress = check_bool(progress, "progress")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a fetch from the origin says so; the source is stored below
        frame = load_contextsl(data_dir)
    cos, cos_meta = minilm_cosines(frame, progress=progress)
    res = {"rows": int(len(frame)), **judge_results(frame, cos)}
    res["cos"] = [None if np.isnan(c) else float(c) for c in cos]
    res["meta"] = {
        "rules": {j: {name: f"score {'>=' if inc else '>'} {t:g}" for name, (t, inc) in r.items()}
                  for j, r in RULES.items()},
        "headline": dict(HEADLINE),
        "headline_reason": "the tie rule the ContextSL repository's own threshold implies at 0.5 (pipeline/summ.py, "
                           f"UQ_summ.get_acc at commit {REPOSITORY_COMMIT}: llama2 >= 0.2, gpt >= 0.6)",
        "p": "TRUE rate on rows with human_eval 1", "q": "TRUE rate on rows with human_eval 0",
        "partial": "TRUE rate on rows with human_eval 0.5 and 0.8, apart",
        "unjudged": "rows without a rating (or response) are left out and counted",
        "minilm": {"thresholds": list(THRESHOLDS), "cos_decimals": ROUND, **cos_meta},
        "data": {"origin": f"{CONTEXTSL_ORIGIN['repo']}@{CONTEXTSL_ORIGIN['commit']}",
                 "sha256": cast("dict[str, tuple]", CONTEXTSL_ORIGIN["files"])["human_eval_new_final.xlsx"][1],
                 "report": frame.attrs.get("report")},
        "command": "python -m semvar.experiments.contextsl_judges",
    }
    return _jsonable(res)


def main(argv: list[str] | None = None) -> int:
    """Run the study and write ``data/contextsl_judges.json`` (or ``--out``); returns the exit status."""
    ap = argparse.ArgumentParser(prog="python -m semvar.experiments.contextsl_judges",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help=f"output file (default: the project's data/{RESULT_FILE})")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    res = run(progress=not args.no_progress)
    out = Path(args.out) if args.out else result_path(RESULT_FILE)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(res, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    for judge, r in res["llm"].items():
        for name, rule in r["rules"].items():
            pooled = rule["pooled"]
            mark = " (headline)" if name == r["headline"] else ""
            print(f"{judge:7s} {rule['rule']:14s} p = {pooled['p']:.3f}  q = {pooled['q']:.3f}{mark}")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
