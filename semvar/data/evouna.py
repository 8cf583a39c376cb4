"""Five QA systems' answers to 5,610 questions with human correctness labels (EVOUNA, Wang et al.).

Origin: GitHub ``wangcunxiang/QA-Eval`` (Wang et al., "Evaluating Open-QA
Evaluation", NeurIPS 2023 Datasets and Benchmarks: the EVOUNA data set) at
commit ``90007d39d4ef0720984f80d56a586c66d6241e70``, licence Apache-2.0, files
``EVOUNA/NQ.json`` (3,610 Natural Questions) and ``EVOUNA/TQ.json`` (2,000
TriviaQA questions) (:data:`EVOUNA_ORIGIN`, each sha256 pinned).

Local copy: ``evouna/{NQ,TQ}.json`` in a data directory (the rule of
:mod:`semvar.data`).

What a file holds
-----------------
A JSON list, one record per question: ``question``, ``golden_answer`` (one
string; several aliases are joined by ``/``), ``improper`` (the question was
flagged as ill-posed) and, for each system of :data:`EVOUNA_SYSTEMS`
(FiD, GPT-3.5, ChatGPT, GPT-4, New Bing), ``answer_<system>`` and
``judge_<system>``: the human label of that answer, True (correct) or
False.

Rules, applied and reported (``attrs["report"]``, per data set)
---------------------------------------------------------------
- A label that is null (NQ: 446-582 per system), the text ``"None"`` or
  ``"nan"`` (TQ: 15 per system) is **not dropped**: it becomes ``pd.NA`` and
  is counted per system (``label_missing``).  On the pinned files every
  such question is flagged ``improper`` but one (a New Bing label in NQ).
  A label that is a bool or the text ``"True"``/``"False"`` (any case) is
  read as such; anything else raises ``ValueError``.
- A null answer (NQ: 499 New Bing answers, one FiD answer) or a null
  ``golden_answer`` (one NQ question) becomes ``pd.NA`` and is counted
  (``answer_missing`` per system, ``golden_answer_missing``);
  ``answer_missing_labelled`` counts null answers that nevertheless carry a
  label (the FiD one, labelled False; the New Bing ones have no label
  either).  Texts are otherwise kept as released.
- A question that occurs twice in a file is kept twice (its records differ)
  and counted (``duplicate_questions``; the texts are in
  ``attrs["duplicate_questions"]``).  In NQ the first copy of "colby chees
  is named after a town in what state" carries the gold answer and some
  answers of another question.
- A file with another number of records than :data:`EVOUNA_QUESTIONS`, a
  record without exactly the release's fields, a question that is not a
  string, or an ``improper`` that is not a bool raises ``ValueError``.
"""

from __future__ import annotations

import json
import math
import os

import pandas as pd

from ._fetch import _load_pinned

__all__ = [
    "EVOUNA_ORIGIN",
    "EVOUNA_SYSTEMS",
    "EVOUNA_QUESTIONS",
    "EVOUNA_COLUMNS",
    "EVOUNA_LONG_COLUMNS",
    "load_evouna",
    "evouna_long",
]

EVOUNA_ORIGIN = {
    "repo": "wangcunxiang/QA-Eval",
    "commit": "90007d39d4ef0720984f80d56a586c66d6241e70",
    "licence": "Apache-2.0",
    "subdir": "evouna",
    "files": {
        "NQ.json": ("EVOUNA/NQ.json", "617c7fd95fe4177f39e2304c943cc0abbdbf539bc8a4fb61aeaef255bed503a1"),
        "TQ.json": ("EVOUNA/TQ.json", "e01709ec6b979d3976f2f8f676dab2e2aea50e0a07f3c66d70dae358e5360d23"),
    },
}
"""Where the data comes from: repository, commit, licence, the folder under a data
directory, and per local file name its path in the repository and its sha256."""

EVOUNA_SYSTEMS = ("fid", "gpt35", "chatgpt", "gpt4", "newbing")
"""The answering systems, in the release's order: FiD, GPT-3.5, ChatGPT, GPT-4, New Bing."""

EVOUNA_QUESTIONS = {"NQ": 3610, "TQ": 2000}
"""Questions (records) per file at the pinned commit."""

EVOUNA_COLUMNS = ("dataset", "question", "golden_answer", "improper",
                  *(c for s in EVOUNA_SYSTEMS for c in (f"answer_{s}", f"label_{s}")))

EVOUNA_LONG_COLUMNS = ("item", "dataset", "question", "golden_answer", "improper", "system", "answer", "label")

_FIELDS = {"question", "golden_answer", "improper",
           *(f"{kind}_{s}" for s in EVOUNA_SYSTEMS for kind in ("answer", "judge"))}
_MISSING_TEXT = {"none", "nan", "null", ""}


def _label(value, source: str, k: int, system: str):
    """True / False / pd.NA from a released label; None for a value that is no label at all."""
    if isinstance(value, bool):
        return value
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return pd.NA
    if isinstance(value, str):
        low = value.strip().lower()
        if low in ("true", "false"):
            return low == "true"
        if low in _MISSING_TEXT:
            return pd.NA
    raise ValueError(f"{source}, record {k}: judge_{system} is {value!r}; a label must be True, False or "
                     "missing (null, 'None', 'nan')")


def _text(value, source: str, k: int, field: str):
    if value is None:
        return pd.NA
    if not isinstance(value, str):
        raise ValueError(f"{source}, record {k}: {field} is a {type(value).__name__}, not a string or null")
    return value


def _parse(path, name: str, source: str) -> tuple[pd.DataFrame, dict, list[str]]:
    try:
        data = json.loads(path.read_bytes())
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{source} does not parse as JSON ({exc})") from None
    if not isinstance(data, list):
        raise ValueError(f"{source}: expected a JSON list of records, found a JSON {type(data).__name__}")
    if len(data) != EVOUNA_QUESTIONS[name]:
        raise ValueError(f"{source}: expected {EVOUNA_QUESTIONS[name]} records, found {len(data)}; "
                         "the file is not the pinned one or was read partially")
    cols: dict[str, list] = {c: [] for c in EVOUNA_COLUMNS if c != "dataset"}
    for k, rec in enumerate(data):
        if not isinstance(rec, dict) or set(rec) != _FIELDS:
            got = sorted(rec) if isinstance(rec, dict) else type(rec).__name__
            raise ValueError(f"{source}, record {k}: expected the fields {sorted(_FIELDS)}, got {got}")
        if not isinstance(rec["question"], str):
            raise ValueError(f"{source}, record {k}: question is a {type(rec['question']).__name__}, not a string")
        if not isinstance(rec["improper"], bool):
            raise ValueError(f"{source}, record {k}: improper is {rec['improper']!r}, not a bool")
        cols["question"].append(rec["question"])
        cols["golden_answer"].append(_text(rec["golden_answer"], source, k, "golden_answer"))
        cols["improper"].append(rec["improper"])
        for s in EVOUNA_SYSTEMS:
            cols[f"answer_{s}"].append(_text(rec[f"answer_{s}"], source, k, f"answer_{s}"))
            cols[f"label_{s}"].append(_label(rec[f"judge_{s}"], source, k, s))
    df = pd.DataFrame({"dataset": name, "question": cols["question"]})
    df["golden_answer"] = pd.array(cols["golden_answer"], dtype="string")
    df["improper"] = pd.Series(cols["improper"], dtype=bool)
    for s in EVOUNA_SYSTEMS:
        df[f"answer_{s}"] = pd.array(cols[f"answer_{s}"], dtype="string")
        df[f"label_{s}"] = pd.array(cols[f"label_{s}"], dtype="boolean")
    dup = df["question"].duplicated(keep=False)
    report = {
        "questions": len(df),
        "improper": int(df["improper"].sum()),
        "duplicate_questions": int(df["question"].duplicated().sum()),
        "golden_answer_missing": int(df["golden_answer"].isna().sum()),
        "label_missing": {s: int(df[f"label_{s}"].isna().sum()) for s in EVOUNA_SYSTEMS},
        "label_missing_not_improper": {s: int((df[f"label_{s}"].isna() & ~df["improper"]).sum())
                                       for s in EVOUNA_SYSTEMS},
        "answer_missing": {s: int(df[f"answer_{s}"].isna().sum()) for s in EVOUNA_SYSTEMS},
        "answer_missing_labelled": {s: int((df[f"answer_{s}"].isna() & df[f"label_{s}"].notna()).sum())
                                    for s in EVOUNA_SYSTEMS},
    }
    return df, report, sorted(set(df.loc[dup, "question"]))


def _frame(paths: dict) -> tuple[pd.DataFrame, dict]:
    parts, report, dups = [], {}, {}
    for name in EVOUNA_QUESTIONS:
        path = paths[f"{name}.json"]
        part, report[name], dups[name] = _parse(path, name, str(path))
        parts.append(part)
    df = pd.concat(parts, ignore_index=True)[list(EVOUNA_COLUMNS)]
    return df, {"report": report, "duplicate_questions": dups}


def load_evouna(data_dir: str | os.PathLike | None = None) -> pd.DataFrame:
    """EVOUNA: five systems' answers to 5,610 NQ and TriviaQA questions, with human labels (Wang et al. 2023).

    Parameters
    ----------
    data_dir : path-like, optional
        A folder holding ``evouna/NQ.json`` and ``evouna/TQ.json``, searched
        first; see :mod:`semvar.data` for the other places (then the cache,
        then the origin, :data:`EVOUNA_ORIGIN`).

    Returns
    -------
    pandas.DataFrame
        5,610 rows, one per record (NQ's 3,610 then TQ's 2,000, in the files'
        order), columns :data:`EVOUNA_COLUMNS`: ``dataset`` (``"NQ"``,
        ``"TQ"``), ``question``, ``golden_answer`` (pandas ``string``),
        ``improper`` (bool) and for each system ``s`` of
        :data:`EVOUNA_SYSTEMS` ``answer_<s>`` (pandas ``string``, NA where
        the file has none) and ``label_<s>`` (pandas ``boolean``: the human
        label, NA where the file has none).  ``attrs["report"]`` holds per
        data set ``questions``, ``improper``, ``duplicate_questions``,
        ``golden_answer_missing`` and dicts by system ``label_missing``,
        ``label_missing_not_improper``, ``answer_missing``,
        ``answer_missing_labelled``; ``attrs["duplicate_questions"]`` (per
        data set, the repeated question texts) and ``attrs["source"]``.

    Raises
    ------
    ValueError
        A bad ``data_dir``; a local file whose sha256 is not the pinned one; a
        file that is not a JSON list of :data:`EVOUNA_QUESTIONS` records with
        the release's fields, or holds a label that is neither True, False
        nor missing.
    DataNotFoundError
        The files are in no data directory nor the cache and the origin
        cannot be reached; the message names the places searched and the
        origin.

    Notes
    -----
    Use :func:`evouna_long` for one row per question and system.  On the
    pinned files NQ has 590 improper questions and 529, 529, 446, 582, 530
    missing labels (FiD, GPT-3.5, ChatGPT, GPT-4, New Bing); TQ 62 improper
    questions and 15 missing labels per system.

    Examples
    --------
    >>> load_evouna(data_dir=b"evouna")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: data_dir must be None or a folder path (str or os.PathLike), got b'evouna' of type bytes
    """
    return _load_pinned(EVOUNA_ORIGIN, data_dir, "the EVOUNA answers and labels (NQ.json, TQ.json)", _frame)


def evouna_long(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per question and system from the frame of :func:`load_evouna`.

    Parameters
    ----------
    frame : pandas.DataFrame
        A frame with the columns :data:`EVOUNA_COLUMNS` (as :func:`load_evouna`
        returns it, or a subset of its rows).

    Returns
    -------
    pandas.DataFrame
        ``len(frame) * 5`` rows, columns :data:`EVOUNA_LONG_COLUMNS`: ``item``
        (the row label of the question in ``frame``, which tells apart the
        copies of a repeated question), ``dataset``, ``question``,
        ``golden_answer``, ``improper``, ``system`` (categorical, in the
        order of :data:`EVOUNA_SYSTEMS`), ``answer`` and ``label`` (pandas
        ``boolean``, NA kept).  Ordered by item, then system.  ``attrs`` are
        copied from ``frame``.

    Raises
    ------
    ValueError
        If ``frame`` is not a DataFrame or lacks some of the columns.

    Examples
    --------
    >>> wide = pd.DataFrame({"dataset": ["NQ"], "question": ["q?"], "golden_answer": ["a"], "improper": [False],
    ...                      **{f"answer_{s}": ["a"] for s in EVOUNA_SYSTEMS},
    ...                      **{f"label_{s}": pd.array([s != "fid"], dtype="boolean") for s in EVOUNA_SYSTEMS}})
    >>> evouna_long(wide)[["system", "label"]].to_dict("list")
    {'system': ['fid', 'gpt35', 'chatgpt', 'gpt4', 'newbing'], 'label': [False, True, True, True, True]}
    """
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"frame must be the DataFrame load_evouna returns, got {type(frame).__name__}")
    missing = [c for c in EVOUNA_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"frame lacks the columns {missing}; pass the DataFrame load_evouna returns")
    n, m = len(frame), len(EVOUNA_SYSTEMS)
    base = frame[["dataset", "question", "golden_answer", "improper"]]
    rep = base.loc[base.index.repeat(m)].reset_index(names="item") if n else base.reset_index(names="item")
    answers = frame[[f"answer_{s}" for s in EVOUNA_SYSTEMS]].astype("string").to_numpy().reshape(-1)
    labels = frame[[f"label_{s}" for s in EVOUNA_SYSTEMS]].astype("boolean").to_numpy().reshape(-1)
    rep["system"] = pd.Categorical.from_codes([k % m for k in range(n * m)], categories=list(EVOUNA_SYSTEMS))
    rep["answer"] = pd.array(answers, dtype="string")
    rep["label"] = pd.array(labels, dtype="boolean")
    rep = rep[list(EVOUNA_LONG_COLUMNS)]
    rep.attrs = dict(frame.attrs)
    return rep
