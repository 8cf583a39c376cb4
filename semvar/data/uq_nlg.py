"""One model's 20 sampled answers to each of 500 TriviaQA questions (Lin, Trivedi & Sun).

Origin: GitHub ``zlin7/UQ-NLG`` (Lin, Trivedi & Sun, "Generating with
Confidence: Uncertainty Quantification for Black-box Large Language Models",
TMLR 2024) at commit ``ecaea91741a6c1076e9069b56d32a9929eea8ff9``, licence
MIT, file ``notebook/demo_data.pkl`` (:data:`UQ_NLG_ORIGIN`, sha256 pinned).

Local copy: ``uq_nlg/demo_data.pkl`` in a data directory (the rule of
:mod:`semvar.data`).  The file is a pickle; it holds only builtin lists,
dicts and strings, so it is read by an unpickler that admits **no global at
all** (:func:`semvar.data._safe_pickle.load_plain_pickle`): a stream that
names any callable, numpy's included, is refused before anything runs.

What the file holds
-------------------
A list of 500 records, one per question: ``id`` (TriviaQA id, e.g.
``qw_8385``), ``question``, ``answer`` (one reference alias), ``prompt``
(the few-shot prompt, decoded) and ``generations`` =
``{"text": [20 raw answers], "text_cleaned": [20 cleaned answers]}``:
LLaMA-13B's samples (the release's generation defaults: temperature 1.0,
top-p 1.0).  The release's cleaning keeps the first sentence of the first
line but not the leading space every sampled answer starts with.

Rules, applied and reported (``attrs["report"]``)
-------------------------------------------------
- ``answers`` are the release's cleaned answers with surrounding white space
  stripped (``answers_stripped`` counts the answers this changed);
  ``answers_raw`` are the raw samples as released.
- An answer that is empty after stripping is **kept** as ``""`` and counted
  (``empty_answers``, with the ids of their questions in
  ``empty_answer_ids``): an empty sample is an outcome, not a missing row.
- A file that is not a list of 500 such records with 20 answers each, or
  that repeats an id, raises ``ValueError`` naming the file and the record.
"""

from __future__ import annotations

import os

import pandas as pd

from .._validation import check_bool
from ._fetch import _load_pinned
from ._safe_pickle import load_plain_pickle

__all__ = [
    "UQ_NLG_ORIGIN",
    "UQ_NLG_QUESTIONS",
    "UQ_NLG_SAMPLES",
    "UQ_NLG_COLUMNS",
    "load_uq_nlg",
]

UQ_NLG_ORIGIN = {
    "repo": "zlin7/UQ-NLG",
    "commit": "ecaea91741a6c1076e9069b56d32a9929eea8ff9",
    "licence": "MIT",
    "subdir": "uq_nlg",
    "files": {"demo_data.pkl": ("notebook/demo_data.pkl",
                                "0ec8cee1d9f7fb44224851e6f175ded72ab00e3c7fa5f479dfd7abb691802e49")},
}
"""Where the data comes from: repository, commit, licence, the folder under a data
directory, and per local file name its path in the repository and its sha256."""

UQ_NLG_QUESTIONS = 500
"""Questions in the file."""

UQ_NLG_SAMPLES = 20
"""Sampled answers per question."""

UQ_NLG_COLUMNS = ("id", "question", "reference", "prompt", "answers", "answers_raw")

_FILE = "demo_data.pkl"
_KEYS = {"id", "question", "answer", "prompt", "generations"}


# --------------------------------------------------------------------------- parsing


def _str_list(value, source: str, where: str) -> list[str]:
    if not isinstance(value, list) or len(value) != UQ_NLG_SAMPLES or not all(isinstance(t, str) for t in value):
        n = len(value) if isinstance(value, list) else type(value).__name__
        raise ValueError(f"{source}: {where} must be a list of {UQ_NLG_SAMPLES} strings, got {n}")
    return value


def _parse(data, source: str) -> pd.DataFrame:
    if not isinstance(data, list):
        raise ValueError(f"{source}: expected a list of records, found a {type(data).__name__}")
    if len(data) != UQ_NLG_QUESTIONS:
        raise ValueError(f"{source}: expected {UQ_NLG_QUESTIONS} records, found {len(data)}")
    rows, seen = [], set()
    stripped = 0
    empty_ids: list[str] = []
    n_empty = n_raw_empty = 0
    for k, rec in enumerate(data):
        if not isinstance(rec, dict) or set(rec) != _KEYS:
            got = sorted(rec) if isinstance(rec, dict) else type(rec).__name__
            raise ValueError(f"{source}: record {k} must be a dict with the keys {sorted(_KEYS)}, got {got}")
        for key in ("id", "question", "answer", "prompt"):
            if not isinstance(rec[key], str):
                raise ValueError(f"{source}: record {k} has a {key} of type {type(rec[key]).__name__}, not str")
        qid = rec["id"]
        if qid in seen:
            raise ValueError(f"{source}: record {k} repeats the id {qid!r}")
        seen.add(qid)
        gen = rec["generations"]
        if not isinstance(gen, dict) or set(gen) != {"text", "text_cleaned"}:
            got = sorted(gen) if isinstance(gen, dict) else type(gen).__name__
            raise ValueError(f"{source}: record {k} ({qid}) needs generations = {{'text', 'text_cleaned'}}, got {got}")
        raw = _str_list(gen["text"], source, f"record {k} ({qid}) generations['text']")
        cleaned = _str_list(gen["text_cleaned"], source, f"record {k} ({qid}) generations['text_cleaned']")
        answers = tuple(t.strip() for t in cleaned)
        stripped += sum(a != t for a, t in zip(answers, cleaned))
        empty = sum(a == "" for a in answers)
        if empty:
            n_empty += empty
            empty_ids.append(qid)
        n_raw_empty += sum(t.strip() == "" for t in raw)
        rows.append((qid, rec["question"], rec["answer"], rec["prompt"], answers, tuple(raw)))
    df = pd.DataFrame(rows, columns=list(UQ_NLG_COLUMNS))
    df.attrs["report"] = {
        "questions": len(df),
        "samples_per_question": UQ_NLG_SAMPLES,
        "answers": len(df) * UQ_NLG_SAMPLES,
        "answers_stripped": int(stripped),
        "empty_answers": int(n_empty),
        "empty_answer_ids": empty_ids,
        "empty_raw_answers": int(n_raw_empty),
    }
    return df


def _frame(paths: dict) -> tuple[pd.DataFrame, dict]:
    path = paths[_FILE]
    return _parse(load_plain_pickle(path), str(path)), {}  # the report is in the frame's attrs already


# --------------------------------------------------------------------------- public


def load_uq_nlg(data_dir: str | os.PathLike | None = None, *, progress: bool = True) -> pd.DataFrame:
    """LLaMA-13B's 20 sampled answers to each of 500 TriviaQA questions (Lin et al. 2024).

    Parameters
    ----------
    data_dir : path-like, optional
        A folder holding ``uq_nlg/demo_data.pkl``, searched first; see
        :mod:`semvar.data` for the other places (then the cache, then the
        origin, :data:`UQ_NLG_ORIGIN`).
    progress : bool, default=True
        Show a download progress bar when the file is fetched from the origin.

    Returns
    -------
    pandas.DataFrame
        500 rows, one per question, in the file's order, columns
        :data:`UQ_NLG_COLUMNS`: ``id`` (str, TriviaQA id), ``question``,
        ``reference`` (the one reference alias the file gives), ``prompt``
        (the few-shot prompt), ``answers`` (tuple of the 20 cleaned answers,
        stripped; ``""`` where the cleaning left nothing) and ``answers_raw``
        (tuple of the 20 raw samples).  ``attrs["report"]``: ``questions``,
        ``samples_per_question``, ``answers`` (total), ``answers_stripped``
        (cleaned answers that had surrounding white space),
        ``empty_answers`` and ``empty_answer_ids`` (the questions that have
        one), ``empty_raw_answers`` (raw samples that are only white space);
        ``attrs["source"]`` says where the file was read.

    Raises
    ------
    ValueError
        A bad ``data_dir`` or ``progress``; a local file whose sha256 is not
        the pinned one; a pickle that names any global
        (:class:`~semvar.data._safe_pickle.RefusedPickleError`, nothing is
        run) or does not hold the layout described in
        :mod:`semvar.data.uq_nlg`.
    DataNotFoundError
        The file is in no data directory nor the cache and the origin cannot
        be reached; the message names the places searched and the origin.

    Notes
    -----
    One alias per question makes "the answer contains the reference" a
    lower bound on correctness; the file has no token log-likelihoods.  On
    the pinned file ``empty_answers`` is 6 (in 6 questions) and
    ``answers_stripped`` 9,997 of 10,000.

    Examples
    --------
    >>> load_uq_nlg(data_dir=3)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: data_dir must be None or a folder path (str or os.PathLike), got 3 of type int
    """
    progress = check_bool(progress, "progress")
    return _load_pinned(UQ_NLG_ORIGIN, data_dir, "the UQ-NLG samples (demo_data.pkl)", _frame, progress=progress)
