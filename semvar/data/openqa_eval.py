"""1,490 answers to 301 NQ-open questions judged by humans, GPT-4, text-davinci-003 and BEM (Kamalloo et al.).

Origin: GitHub ``ehsk/OpenQA-eval`` (Kamalloo, Dziri, Clarke & Rafiei,
"Evaluating Open-Domain Question Answering in the Era of Large Language
Models", ACL 2023) at commit ``8b9317d0f0c92b52e1c71c0168dff74b5f76a5f4``,
licence MIT, files ``data/NQ301_{human,gpt-4,text-davinci-003,BEM}.tsv``
(:data:`OPENQA_EVAL_ORIGIN`, each sha256 pinned).

Local copy: ``openqa_eval/NQ301_*.tsv`` in a data directory (the rule of
:mod:`semvar.data`).

What the files hold
-------------------
One row per answer of one of 12 QA systems to one of 301 NQ-open test
questions, 1,490 rows, in the same order in all four files:

- ``NQ301_human.tsv``: ``id`` (the question's number, 1-301),
  ``Question``, ``Model answer``, ``Acceptable?`` (the human majority,
  ``Yes``/``No``) and ``annotator1``, ``annotator2``, ``annotator3`` (each
  ``Yes``, ``No`` or empty: the third annotator judged only some rows);
- ``NQ301_gpt-4.tsv`` and ``NQ301_text-davinci-003.tsv``: ``id``,
  ``Question``, ``Model answer``, ``Acceptable?`` and the judge's free-text
  verdict;
- ``NQ301_BEM.tsv``: a row number, ``Question``, ``Gold answers`` (joined
  by ``" | "``), ``Model answer``, ``Acceptable?`` and ``BEM probs per gold
  answer``: for each gold answer BEM's two-class output ``[p(different),
  p(equivalent)]`` (Bulian et al. 2022).

The human and the two LLM files are plain tab-separated text: a field that
begins with ``"`` is text, not CSV quoting.  The BEM file is CSV-quoted.

Rules, applied and reported (``attrs["report"]``)
-------------------------------------------------
Alignment
    The judge files are aligned to the human file **row by row**, never by
    a key: one ``(id, answer)`` pair occurs twice (question 228, answer
    ``1991``), so a join on it would cross the two rows.  Each judge row must
    have the human row's id (the LLM files) and question, else ``ValueError``.
    Its answer text is compared with the human one: where they differ only in
    double quotes (the judge files lost the quotes that open some answers)
    the row is counted in ``answer_quotes_differ``; where they differ
    otherwise (one GPT-4 row, two BEM rows on the pinned files) it is
    counted in ``answer_differs`` and listed in ``attrs["answer_differs_rows"]``.
    The verdict is kept in both cases: it is what the release gives for that
    row.  Repeated pairs are counted in ``duplicate_pairs`` and listed in
    ``attrs["duplicate_pair_rows"]``; both rows are kept.
The fused text-davinci-003 column
    In the text-davinci-003 file the tab between question and answer is
    missing (on every row at the pinned commit): the question is the human
    row's question, which the fused field must begin with, and the rest is
    the answer.  Repaired rows are counted (``davinci_fused_repaired``); a
    fused field that does not begin with the question raises ``ValueError``.
Verdicts
    An LLM's verdict is parsed from its text by one rule: the text's first
    word, after any leading white space or punctuation, is ``Yes`` (True) or
    ``No`` (False), in any case; any other text ("The candidate is partially
    correct", "I cannot determine ...") is ``pd.NA`` and counted
    (``gpt4_unparsed``, ``davinci_unparsed``).  BEM's score is its highest
    probability of equivalence over the gold answers, and its verdict
    ``bem >= 0.5``: the argmax of BEM's two-class output (Bulian et al.
    2022), which is the verdict the release's own ``Acceptable?`` column of
    the BEM file records (``file_verdict_not_parsed["bem"]`` counts the rows
    where it does not: 0 on the pinned files).
The judge files' ``Acceptable?`` column
    It holds each judge's own verdict as the authors read it, not the
    human majority: ``file_acceptable_not_human`` counts the rows where it
    differs from the human column, ``file_verdict_not_parsed`` those where
    it differs from the verdict parsed here (for GPT-4: the unparsed texts
    and one text that begins "No, the candidate is not entirely correct"
    that the authors read as Yes).  The frame takes the human verdict from
    the human file only.
The human file
    ``human`` must be the majority of the annotators present (counted in
    ``human_not_majority``, 0 on the pinned files); a value other than
    ``Yes``/``No`` (or empty for an annotator) raises ``ValueError``.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re

import numpy as np
import pandas as pd

from ._fetch import _load_pinned

__all__ = [
    "OPENQA_EVAL_ORIGIN",
    "OPENQA_EVAL_ROWS",
    "OPENQA_EVAL_QUESTIONS",
    "OPENQA_EVAL_COLUMNS",
    "BEM_THRESHOLD",
    "parse_verdict",
    "load_openqa_eval",
]

OPENQA_EVAL_ORIGIN = {
    "repo": "ehsk/OpenQA-eval",
    "commit": "8b9317d0f0c92b52e1c71c0168dff74b5f76a5f4",
    "licence": "MIT",
    "subdir": "openqa_eval",
    "files": {
        "NQ301_human.tsv": ("data/NQ301_human.tsv",
                            "45ea9fa6106eb3a094efef41de12ce5b0bc88522cf310bcdf99277d4d297890e"),
        "NQ301_gpt-4.tsv": ("data/NQ301_gpt-4.tsv",
                            "90ac9b7d868726908802d42d8f846b2f61e8bda557c352d8188a8965d9437ac6"),
        "NQ301_text-davinci-003.tsv": ("data/NQ301_text-davinci-003.tsv",
                                       "becc5e8a146f3c8f646c4b31a05cab4436bdf31fb1f86367e61ebeeef79a27e3"),
        "NQ301_BEM.tsv": ("data/NQ301_BEM.tsv",
                          "b755ff7fbad3b6909ba22ba5f45e9e01aef4512f1a1a5d3eb4124d4851efaf55"),
    },
}
"""Where the data comes from: repository, commit, licence, the folder under a data
directory, and per local file name its path in the repository and its sha256."""

OPENQA_EVAL_ROWS = 1490
"""Judged answers (rows of every file)."""

OPENQA_EVAL_QUESTIONS = 301
"""NQ-open test questions."""

BEM_THRESHOLD = 0.5
"""BEM says "equivalent" when its probability of equivalence is at least this (its two-class argmax)."""

OPENQA_EVAL_COLUMNS = (
    "id", "question", "answer", "human", "annotator1", "annotator2", "annotator3",
    "gpt4", "gpt4_text", "davinci", "davinci_text", "bem", "bem_verdict", "gold",
)

_HEADERS = {
    "NQ301_human.tsv": ["id", "Question", "Model answer", "Acceptable?", "annotator1", "annotator2", "annotator3"],
    "NQ301_gpt-4.tsv": ["id", "Question", "Model answer", "Acceptable?", "gpt-4"],
    "NQ301_text-davinci-003.tsv": ["id", "Question", "Model answer", "Acceptable?", "text-davinci-003"],
    "NQ301_BEM.tsv": ["id", "Question", "Gold answers", "Model answer", "Acceptable?", "BEM probs per gold answer"],
}
_YES_NO = {"Yes": True, "No": False}
_VERDICT = re.compile(r"^\W*(yes|no)\b", re.IGNORECASE)


def parse_verdict(text: object) -> bool | None:
    """The verdict of a judge's free text: its first word Yes (True) or No (False), else None.

    Parameters
    ----------
    text : str
        A judge's answer, e.g. ``"Yes, the candidate is correct."``.

    Returns
    -------
    bool or None
        ``True`` / ``False`` when the first word (after leading white space
        and punctuation, any case) is ``yes`` / ``no``; ``None`` otherwise.

    Raises
    ------
    ValueError
        If ``text`` is not a str.

    Examples
    --------
    >>> parse_verdict("No, the correct answer is Single-screw Steamship.")
    False
    >>> parse_verdict("**Yes**.") , parse_verdict("The candidate is partially correct.")
    (True, None)
    >>> parse_verdict("Nobody knows") is None
    True
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a str, got {text!r} of type {type(text).__name__}")
    m = _VERDICT.match(text)
    return None if m is None else m.group(1).lower() == "yes"


# --------------------------------------------------------------------------- reading


def _read_plain(path, name: str, source: str) -> list[list[str]]:
    """Rows of a plain tab-separated file (no quoting), header checked and dropped."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{source} is not UTF-8 text ({exc})") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    rows = [line.split("\t") for line in lines]
    if not rows or rows[0] != _HEADERS[name]:
        raise ValueError(f"{source}: the header must be {_HEADERS[name]}, got {rows[0] if rows else 'nothing'}")
    return _count(rows[1:], source)


def _read_quoted(path, name: str, source: str) -> list[list[str]]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{source} is not UTF-8 text ({exc})") from None
    try:
        rows = list(csv.reader(io.StringIO(text, newline=""), delimiter="\t", strict=True))
    except csv.Error as exc:
        raise ValueError(f"{source} is not a readable tab-separated file ({exc})") from None
    if not rows or rows[0] != _HEADERS[name]:
        raise ValueError(f"{source}: the header must be {_HEADERS[name]}, got {rows[0] if rows else 'nothing'}")
    return _count(rows[1:], source)


def _count(rows: list[list[str]], source: str) -> list[list[str]]:
    if len(rows) != OPENQA_EVAL_ROWS:
        raise ValueError(f"{source}: expected {OPENQA_EVAL_ROWS} rows, found {len(rows)}; "
                         "the file is not the pinned one or was read partially")
    return rows


def _fields(row: list[str], n: int, source: str, k: int) -> list[str]:
    if len(row) != n:
        raise ValueError(f"{source}, row {k + 1}: expected {n} tab-separated fields, found {len(row)}")
    return row


def _yes_no(value: str, source: str, k: int, column: str, *, empty_ok: bool):
    if value in _YES_NO:
        return _YES_NO[value]
    if empty_ok and value == "":
        return pd.NA
    allowed = "Yes, No or empty" if empty_ok else "Yes or No"
    raise ValueError(f"{source}, row {k + 1}: {column} is {value!r}; it must be {allowed}")


def _human(rows, source: str):
    cols: dict[str, list] = {c: [] for c in ("id", "question", "answer", "human", "annotator1", "annotator2", "annotator3")}
    not_majority = 0
    for k, row in enumerate(rows):
        qid, question, answer, acc, *ann = _fields(row, 7, source, k)
        if not qid.isdigit():
            raise ValueError(f"{source}, row {k + 1}: id {qid!r} is not a question number")
        human = _yes_no(acc, source, k, "Acceptable?", empty_ok=False)
        votes = [_yes_no(a, source, k, f"annotator{j + 1}", empty_ok=True) for j, a in enumerate(ann)]
        given = [v for v in votes if v is not pd.NA]
        if not given or (2 * sum(given) > len(given)) != human or 2 * sum(given) == len(given):
            not_majority += 1
        for c, v in zip(cols, (int(qid), question, answer, human, *votes)):
            cols[c].append(v)
    return cols, not_majority


def _compare_answer(judge: str, human: str) -> str:
    if judge == human:
        return "same"
    return "quotes" if judge.replace('"', "") == human.replace('"', "") else "differs"


def _llm(rows, human_cols, source: str, judge: str, report: dict, differs: dict):
    """Verdict texts of an LLM judge file aligned to the human rows; repairs the fused question column."""
    texts, verdicts, file_acc = [], [], []
    fused = quotes = 0
    differ_rows = []
    for k, row in enumerate(rows):
        qid, question = row[0], human_cols["question"][k]
        if len(row) == 5:
            _, q, answer, acc, text = row
            if q != question:
                raise ValueError(f"{source}, row {k + 1}: question {q[:60]!r} is not the human file's {question[:60]!r}")
        elif len(row) == 4 and row[1].startswith(question):
            _, joined, acc, text = row
            answer = joined[len(question):]
            fused += 1
        else:
            raise ValueError(f"{source}, row {k + 1}: expected 5 tab-separated fields (or 4 with the question and the "
                             f"answer fused, beginning with the human file's question), found {len(row)}")
        if qid != str(human_cols["id"][k]):
            raise ValueError(f"{source}, row {k + 1}: id {qid!r} is not the human file's {human_cols['id'][k]}")
        how = _compare_answer(answer, human_cols["answer"][k])
        quotes += how == "quotes"
        if how == "differs":
            differ_rows.append(k)
        v = parse_verdict(text)
        texts.append(text)
        verdicts.append(pd.NA if v is None else v)
        file_acc.append(_YES_NO.get(acc))
    report["answer_quotes_differ"][judge] = quotes
    report["answer_differs"][judge] = len(differ_rows)
    differs[judge] = differ_rows
    report[f"{judge}_unparsed"] = sum(v is pd.NA for v in verdicts)
    if judge == "davinci":
        report["davinci_fused_repaired"] = fused
    elif fused:
        report[f"{judge}_fused_repaired"] = fused
    _file_column(report, judge, file_acc, verdicts, human_cols["human"])
    return texts, pd.array(verdicts, dtype="boolean")


def _file_column(report, judge, file_acc, verdicts, human) -> None:
    report["file_acceptable_not_human"][judge] = sum(a is None or a != h for a, h in zip(file_acc, human))
    report["file_acceptable_empty"][judge] = sum(a is None for a in file_acc)
    report["file_verdict_not_parsed"][judge] = sum(
        a is None or v is pd.NA or a != v for a, v in zip(file_acc, verdicts))


def _bem(rows, human_cols, source: str, report: dict, differs: dict):
    scores, gold, file_acc = [], [], []
    quotes = 0
    differ_rows = []
    for k, row in enumerate(rows):
        _, question, gold_text, answer, acc, probs_text = _fields(row, 6, source, k)
        if question != human_cols["question"][k]:
            raise ValueError(f"{source}, row {k + 1}: question {question[:60]!r} is not the human file's "
                             f"{human_cols['question'][k][:60]!r}")
        answers = tuple(gold_text.split(" | "))
        try:
            probs = json.loads(probs_text)
        except json.JSONDecodeError:
            probs = None
        ok = (isinstance(probs, list) and len(probs) == len(answers)
              and all(isinstance(p, list) and len(p) == 2
                      and all(isinstance(x, (int, float)) and not isinstance(x, bool) and 0 <= x <= 1 for x in p)
                      and math.isclose(p[0] + p[1], 1.0, abs_tol=1e-4) for p in probs))
        if not ok:
            raise ValueError(f"{source}, row {k + 1}: BEM probs must be one [p(different), p(equivalent)] pair in "
                             f"[0, 1] per gold answer ({len(answers)} here), got {probs_text[:80]!r}")
        how = _compare_answer(answer, human_cols["answer"][k])
        quotes += how == "quotes"
        if how == "differs":
            differ_rows.append(k)
        scores.append(max(float(p[1]) for p in probs))
        gold.append(answers)
        file_acc.append(_YES_NO.get(acc))
    bem = np.asarray(scores)
    verdict = bem >= BEM_THRESHOLD
    report["answer_quotes_differ"]["bem"] = quotes
    report["answer_differs"]["bem"] = len(differ_rows)
    differs["bem"] = differ_rows
    _file_column(report, "bem", file_acc, verdict.tolist(), human_cols["human"])
    return bem, verdict, gold


def _frame(paths: dict) -> tuple[pd.DataFrame, dict]:
    """The four files read, aligned row by row and checked (the rules of the module docstring)."""
    src = {name: str(p) for name, p in paths.items()}
    human_cols, not_majority = _human(_read_plain(paths["NQ301_human.tsv"], "NQ301_human.tsv",
                                                  src["NQ301_human.tsv"]), src["NQ301_human.tsv"])
    report = {
        "rows": OPENQA_EVAL_ROWS,
        "questions": len(set(human_cols["id"])),
        "duplicate_pairs": 0,
        "human_not_majority": not_majority,
        "annotator3_present": sum(v is not pd.NA for v in human_cols["annotator3"]),
        "annotator2_missing": sum(v is pd.NA for v in human_cols["annotator2"]),
        "answer_quotes_differ": {}, "answer_differs": {},
        "file_acceptable_not_human": {}, "file_acceptable_empty": {}, "file_verdict_not_parsed": {},
    }
    if report["questions"] != OPENQA_EVAL_QUESTIONS:
        raise ValueError(f"{src['NQ301_human.tsv']}: expected {OPENQA_EVAL_QUESTIONS} questions, "
                         f"found {report['questions']}")
    differs: dict[str, list[int]] = {}
    gpt4_text, gpt4 = _llm(_read_plain(paths["NQ301_gpt-4.tsv"], "NQ301_gpt-4.tsv", src["NQ301_gpt-4.tsv"]),
                           human_cols, src["NQ301_gpt-4.tsv"], "gpt4", report, differs)
    dav = "NQ301_text-davinci-003.tsv"
    davinci_text, davinci = _llm(_read_plain(paths[dav], dav, src[dav]), human_cols, src[dav], "davinci",
                                 report, differs)
    bem, bem_verdict, gold = _bem(_read_quoted(paths["NQ301_BEM.tsv"], "NQ301_BEM.tsv", src["NQ301_BEM.tsv"]),
                                  human_cols, src["NQ301_BEM.tsv"], report, differs)
    df = pd.DataFrame({
        "id": np.asarray(human_cols["id"], dtype=np.int64),
        "question": human_cols["question"],
        "answer": human_cols["answer"],
        "human": np.asarray(human_cols["human"], dtype=bool),
        **{f"annotator{j}": pd.array(human_cols[f"annotator{j}"], dtype="boolean") for j in (1, 2, 3)},
        "gpt4": gpt4, "gpt4_text": gpt4_text,
        "davinci": davinci, "davinci_text": davinci_text,
        "bem": bem, "bem_verdict": bem_verdict,
        "gold": gold,
    })
    dup = df.duplicated(["id", "answer"], keep=False).to_numpy()
    report["duplicate_pairs"] = int(df.duplicated(["id", "answer"]).sum())
    return df, {"report": report, "answer_differs_rows": differs, "duplicate_pair_rows": np.flatnonzero(dup).tolist()}


# --------------------------------------------------------------------------- public


def load_openqa_eval(data_dir: str | os.PathLike | None = None) -> pd.DataFrame:
    """Humans', GPT-4's, text-davinci-003's and BEM's verdicts on 1,490 NQ-open answers (Kamalloo et al. 2023).

    Parameters
    ----------
    data_dir : path-like, optional
        A folder holding ``openqa_eval/NQ301_{human,gpt-4,text-davinci-003,BEM}.tsv``,
        searched first; see :mod:`semvar.data` for the other places (then the
        cache, then the origin, :data:`OPENQA_EVAL_ORIGIN`).

    Returns
    -------
    pandas.DataFrame
        1,490 rows aligned one to one with ``NQ301_human.tsv`` (index = row
        of that file, 0-based), columns :data:`OPENQA_EVAL_COLUMNS`:

        - ``id`` (int, the question's number 1-301), ``question``,
          ``answer`` (the system's answer, as the human file gives it);
        - ``human`` (bool, the human majority), ``annotator1``,
          ``annotator2``, ``annotator3`` (pandas ``boolean``, NA where the
          annotator did not judge the row);
        - ``gpt4``, ``davinci`` (pandas ``boolean``: the verdict parsed from
          the text by :func:`parse_verdict`, NA where it does not parse) and
          ``gpt4_text``, ``davinci_text`` (the free-text verdicts);
        - ``bem`` (float, BEM's highest probability of equivalence over the
          gold answers), ``bem_verdict`` (bool, ``bem >= 0.5``,
          :data:`BEM_THRESHOLD`), ``gold`` (tuple of the gold answers).

        ``attrs["report"]``: ``rows``, ``questions``, ``duplicate_pairs``,
        ``human_not_majority``, ``annotator3_present``,
        ``annotator2_missing``, ``davinci_fused_repaired``,
        ``gpt4_unparsed``, ``davinci_unparsed``, and dicts by judge
        (``gpt4``, ``davinci``, ``bem``): ``answer_quotes_differ``,
        ``answer_differs``, ``file_acceptable_not_human``,
        ``file_acceptable_empty``, ``file_verdict_not_parsed`` (see the rules
        in :mod:`semvar.data.openqa_eval`).  ``attrs["answer_differs_rows"]``
        (judge -> rows), ``attrs["duplicate_pair_rows"]`` and
        ``attrs["source"]``.

    Raises
    ------
    ValueError
        A bad ``data_dir``; a local file whose sha256 is not the pinned one; a
        file with another header, row count or field count, a judge row whose
        id or question is not the human row's, a value other than Yes/No,
        unreadable BEM probabilities.
    DataNotFoundError
        The files are in no data directory nor the cache and the origin
        cannot be reached; the message names the places searched and the
        origin.

    Notes
    -----
    On the pinned files the human majority says Yes to 816 answers; GPT-4's
    verdict does not parse for 10 texts, text-davinci-003's for none; the
    fused question column is repaired on all 1,490 rows of the
    text-davinci-003 file.

    Examples
    --------
    >>> load_openqa_eval(data_dir=1.5)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: data_dir must be None or a folder path (str or os.PathLike), got 1.5 of type float
    """
    return _load_pinned(OPENQA_EVAL_ORIGIN, data_dir, "the OpenQA-eval judgements (4 TSV files)", _frame)
