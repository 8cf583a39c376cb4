"""ContextSL's human evaluation: 720 answers of three models, scored by two LLM judges and by people (Lin et al.).

Origin: GitHub ``zlin7/ContextSL`` at commit
``44f37173ccaa89849d20683570d0b5d4e68f0a1e``, licence MIT, file
``human_eval_new - final.xlsx`` (:data:`CONTEXTSL_ORIGIN`, sha256 and size
pinned; the spaces of the name are URL-encoded in the path fetched): the
human evaluation of Lin, Trivedi & Sun, "Contextualized Sequence Likelihood:
Enhanced Confidence Scores for Natural Language Generation" (2024),
drawn by that repository's ``scripts/human_eval.py``.

Local copy: ``contextsl/human_eval_new_final.xlsx`` in a data directory (the
rule of :mod:`semvar.data`).

What the file holds
-------------------
One Excel sheet, 720 rows: three answering models (``llama2-13b``,
``gemma-7b``, ``mistralai/Mistral-7B-v0.1``) on three data sets
(``coqa_new``, ``triviaqa_new``, ``nq_open_new``), 80 rows per pair in
blocks of 80 (the script draws 40 most-likely generations, then 40 sampled
ones).  Per row: the question (and for CoQA the prompt with its story), the
reference answer, the model's response, two LLM judges' ratings of how
consistent the response is with the reference (``llama2_score``:
Llama-2-70B, ``gpt_score``: gpt-3.5-turbo-0125; the repository asks each for
a rating from 0 to 100 and divides by 100), the human label ``human_eval``
(1 correct, 0 wrong, and a few in between: 0.5, 0.8) and a free-text
``Note``.  A first column ``Column1`` (Excel's name for the unnamed index
that ``DataFrame.to_excel`` wrote) numbers the rows 0-719.

How it is read
--------------
The workbook is read with :mod:`zipfile` and :mod:`xml.etree.ElementTree`
(no spreadsheet library): the shared strings and the one sheet, cells of type
shared string, inline string, formula string and number.  Only the pinned
file (its sha256 checked first) is ever parsed.

Rules, applied and reported (``attrs["report"]``)
-------------------------------------------------
- The header must be ``Column1`` then :data:`CONTEXTSL_COLUMNS`; ``Column1``
  must number the rows 0, 1, ..., 719 in order (it becomes the frame's
  index, and is not a column); the row count must be :data:`CONTEXTSL_ROWS`.
- ``dataset`` and ``model`` must be among :data:`CONTEXTSL_DATASETS` and
  :data:`CONTEXTSL_MODELS`; ``id``, ``question`` and ``ref_answer`` must be
  present, as text.
- An empty cell of ``story`` (TriviaQA and NQ rows have none), ``response``
  or ``Note`` is ``pd.NA``; of ``llama2_score`` or ``gpt_score`` it is NaN.
  The row is **kept** and counted (``missing``).  On the pinned file one
  Mistral CoQA row has no response and no score from either judge (the
  repository scores an empty answer as missing); its human label is 0.
- Scores and ``human_eval`` must be numbers in [0, 1]; ``human_eval`` must
  be present on every row.
"""

from __future__ import annotations

import os
import re
import zipfile
from urllib.parse import quote
from xml.etree import ElementTree

import numpy as np
import pandas as pd

from ._fetch import _load_pinned

__all__ = [
    "CONTEXTSL_ORIGIN",
    "CONTEXTSL_ROWS",
    "CONTEXTSL_COLUMNS",
    "CONTEXTSL_DATASETS",
    "CONTEXTSL_MODELS",
    "load_contextsl",
]

_FILE = "human_eval_new_final.xlsx"

CONTEXTSL_ORIGIN = {
    "repo": "zlin7/ContextSL",
    "commit": "44f37173ccaa89849d20683570d0b5d4e68f0a1e",
    "licence": "MIT",
    "subdir": "contextsl",
    "files": {
        # the name in the repository has spaces: "human_eval_new - final.xlsx"
        _FILE: (quote("human_eval_new - final.xlsx"),
                "edfb4ced6176f5d18cc18cfd839bc701992426e1bd1ed8f53cbf0c9ba1c81426", 287140),
    },
}
"""Where the data comes from: repository, commit, licence, the folder under a data directory, and per
local file name its path in the repository (URL-encoded), its sha256 and its size in bytes."""

CONTEXTSL_ROWS = 720
"""Judged answers in the file at the pinned commit."""

CONTEXTSL_COLUMNS = ("dataset", "model", "id", "story", "question", "ref_answer", "response",
                     "llama2_score", "gpt_score", "human_eval", "Note")
"""The frame's columns: the file's, in its order, without its index column ``Column1``."""

CONTEXTSL_DATASETS = ("coqa_new", "triviaqa_new", "nq_open_new")
"""The three data sets, in the file's order (the repository's names)."""

CONTEXTSL_MODELS = ("llama2-13b", "gemma-7b", "mistralai/Mistral-7B-v0.1")
"""The three answering models, in the file's order (the repository's names)."""

_INDEX = "Column1"
_TEXT_REQUIRED = ("dataset", "model", "id", "question", "ref_answer")
_TEXT_OPTIONAL = ("story", "response", "Note")
_NUMBERS = ("llama2_score", "gpt_score", "human_eval")

# --------------------------------------------------------------------------- a small .xlsx reader

_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_PKG_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_CELL_REF = re.compile(r"([A-Z]{1,3})([0-9]+)")


def _column_number(letters: str) -> int:
    """``"A"`` -> 0, ``"Z"`` -> 25, ``"AA"`` -> 26."""
    n = 0
    for ch in letters:
        n = 26 * n + ord(ch) - ord("A") + 1
    return n - 1


def _string_item(si) -> str:
    """The text of a shared-string item: its ``<t>``, or its rich-text runs' ``<t>`` (phonetic runs left out)."""
    parts = []
    for child in si:
        if child.tag == _MAIN + "t":
            parts.append(child.text or "")
        elif child.tag == _MAIN + "r":
            parts.extend(t.text or "" for t in child.iter(_MAIN + "t"))
    return "".join(parts)


def _xml(book: zipfile.ZipFile, name: str, source: str):
    try:
        return ElementTree.fromstring(book.read(name))
    except KeyError:
        raise ValueError(f"{source}: the workbook has no part {name}") from None
    except ElementTree.ParseError as exc:
        raise ValueError(f"{source}: the part {name} is not well-formed XML ({exc})") from None


def _sheet_part(book: zipfile.ZipFile, source: str) -> str:
    """The zip member of the workbook's one sheet (through ``xl/workbook.xml`` and its relationships)."""
    sheets = _xml(book, "xl/workbook.xml", source).findall(f"{_MAIN}sheets/{_MAIN}sheet")
    if len(sheets) != 1:
        raise ValueError(f"{source}: expected one sheet, found {len(sheets)}")
    rid = sheets[0].get(_REL + "id")
    rels = _xml(book, "xl/_rels/workbook.xml.rels", source)
    targets = {r.get("Id"): r.get("Target", "") for r in rels.iter(_PKG_REL + "Relationship")}
    if rid not in targets:
        raise ValueError(f"{source}: the sheet's relationship {rid!r} is not in xl/_rels/workbook.xml.rels")
    target = targets[rid]
    return target.lstrip("/") if target.startswith("/") else f"xl/{target}"


def _cell_value(c, strings: list[str], source: str):
    """A cell's value: str (shared, inline or formula string), float (number) or None (empty)."""
    kind = c.get("t", "n")
    v = c.find(_MAIN + "v")
    where = c.get("r", "?")
    if kind == "inlineStr":
        return "".join(t.text or "" for t in c.iter(_MAIN + "t"))
    if v is None or v.text is None:
        return None
    if kind == "s":
        try:
            return strings[int(v.text)]
        except (ValueError, IndexError):
            raise ValueError(f"{source}, cell {where}: shared string {v.text!r} does not exist") from None
    if kind == "str":
        return v.text
    if kind == "n":
        try:
            return float(v.text)
        except ValueError:
            raise ValueError(f"{source}, cell {where}: {v.text!r} is not a number") from None
    raise ValueError(f"{source}, cell {where}: cells of type {kind!r} (boolean, error, date) are not expected here")


def _read_xlsx(path, source: str) -> list[list]:
    """The rows of the one sheet of an .xlsx file, each a list of cell values (None where empty)."""
    try:
        book = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise ValueError(f"{source} is not an .xlsx workbook (a zip archive): {exc}") from None
    with book:
        names = set(book.namelist())
        strings = []
        if "xl/sharedStrings.xml" in names:
            strings = [_string_item(si) for si in _xml(book, "xl/sharedStrings.xml", source).iter(_MAIN + "si")]
        sheet = _xml(book, _sheet_part(book, source), source)
    rows: list = []
    for row in sheet.iter(_MAIN + "row"):
        cells: dict[int, object] = {}
        col = -1
        for c in row.iter(_MAIN + "c"):
            m = _CELL_REF.fullmatch(c.get("r", ""))
            col = _column_number(m.group(1)) if m else col + 1  # "r" may be left out: the next column
            cells[col] = _cell_value(c, strings, source)
        number = int(row.get("r", len(rows) + 1))
        while len(rows) < number - 1:  # rows left out of the XML are empty rows
            rows.append([])
        rows.append([cells.get(j) for j in range(max(cells, default=-1) + 1)])
    return rows


# --------------------------------------------------------------------------- the frame


def _text(value, source: str, k: int, column: str, *, required: bool):
    if value is None or value == "":
        if required:
            raise ValueError(f"{source}, row {k + 2}: {column} is empty; every row must have one")
        return None
    if not isinstance(value, str):
        raise ValueError(f"{source}, row {k + 2}: {column} must be text, got the number {value!r}")
    return value


def _number(value, source: str, k: int, column: str, *, required: bool) -> float:
    if value is None:
        if required:
            raise ValueError(f"{source}, row {k + 2}: {column} is empty; every row must have one")
        return float("nan")
    if not isinstance(value, float) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{source}, row {k + 2}: {column} must be a number in [0, 1], got {value!r}")
    return value


def _frame(paths: dict) -> tuple[pd.DataFrame, dict]:
    path = paths[_FILE]
    source = str(path)
    rows = _read_xlsx(path, source)
    header = [_INDEX, *CONTEXTSL_COLUMNS]
    if not rows or rows[0] != header:
        raise ValueError(f"{source}: the header must be {header}, got {rows[0] if rows else 'no rows'}")
    body = [r + [None] * (len(header) - len(r)) for r in rows[1:]]
    while body and all(v is None for v in body[-1]):
        body.pop()  # trailing empty rows are not data
    if len(body) != CONTEXTSL_ROWS:
        raise ValueError(f"{source}: expected {CONTEXTSL_ROWS} rows, found {len(body)}; "
                         "the file is not the pinned one or was read partially")
    cols: dict[str, list] = {c: [] for c in CONTEXTSL_COLUMNS}
    for k, r in enumerate(body):
        if len(r) > len(header):
            raise ValueError(f"{source}, row {k + 2}: {len(r)} cells, more than the header's {len(header)}")
        if r[0] != float(k):
            raise ValueError(f"{source}, row {k + 2}: {_INDEX} is {r[0]!r}, expected {k} (the rows numbered in order)")
        for c, v in zip(CONTEXTSL_COLUMNS, r[1:]):
            if c in _NUMBERS:
                cols[c].append(_number(v, source, k, c, required=c == "human_eval"))
            else:
                cols[c].append(_text(v, source, k, c, required=c in _TEXT_REQUIRED))
    for c, allowed in (("dataset", CONTEXTSL_DATASETS), ("model", CONTEXTSL_MODELS)):
        bad = sorted(set(cols[c]) - set(allowed))
        if bad:
            raise ValueError(f"{source}: {c} holds {bad}; allowed are {list(allowed)}")
    df = pd.DataFrame({c: (np.asarray(cols[c], dtype=np.float64) if c in _NUMBERS
                           else pd.array(cols[c], dtype="string")) for c in CONTEXTSL_COLUMNS})
    human = df["human_eval"]
    report = {
        "rows": len(df),
        "cells": {f"{d} | {m}": int(n) for (d, m), n in df.groupby(["dataset", "model"], sort=False).size().items()},
        "human_eval": {f"{v:g}": int((human == v).sum()) for v in sorted(human.unique())},
        "missing": {c: int(df[c].isna().sum()) for c in ("story", "response", "llama2_score", "gpt_score")},
        "score_half": {c: int((df[c] == 0.5).sum()) for c in ("llama2_score", "gpt_score")},
        "notes": {str(k): int(v) for k, v in df["Note"].value_counts(sort=True).items()},
    }
    return df, {"report": report}


def load_contextsl(data_dir: str | os.PathLike | None = None) -> pd.DataFrame:
    """ContextSL's 720 answers with two LLM judges' consistency ratings and a human label (Lin et al. 2024).

    Parameters
    ----------
    data_dir : path-like, optional
        A folder holding ``contextsl/human_eval_new_final.xlsx``, searched
        first; see :mod:`semvar.data` for the other places (then the cache,
        then the origin, :data:`CONTEXTSL_ORIGIN`).  Default ``None``: the
        data rule alone.

    Returns
    -------
    pandas.DataFrame
        720 rows in the file's order (index 0-719, the file's ``Column1``),
        columns :data:`CONTEXTSL_COLUMNS`: ``dataset``, ``model``, ``id``,
        ``story``, ``question``, ``ref_answer``, ``response`` and ``Note``
        (pandas ``string``; ``pd.NA`` where the cell is empty),
        ``llama2_score`` and ``gpt_score`` (float in [0, 1], the judges'
        ratings from 0 to 100 divided by 100; NaN where missing) and
        ``human_eval`` (float: 1 correct, 0 wrong, 0.5 or 0.8 in between).
        ``attrs["report"]``: ``rows``, ``cells`` (rows per data set and
        model), ``human_eval`` (rows per value), ``missing`` (empty cells of
        ``story``, ``response`` and the two scores), ``score_half`` (rows
        with a score of exactly 0.5, per judge), ``notes`` (rows per
        ``Note`` text); ``attrs["source"]`` says where the file was read.

    Raises
    ------
    ValueError
        A bad ``data_dir``; a local file whose sha256 is not the pinned one;
        a file that is not an .xlsx workbook with one sheet, or whose header,
        row count, row numbering, data sets, models, texts or numbers break
        the rules of :mod:`semvar.data.contextsl`.
    DataNotFoundError
        The file is in no data directory nor the cache and the origin cannot
        be reached; the message names the places searched and the origin.

    Notes
    -----
    On the pinned file: ``human_eval`` is 1 on 538 rows, 0 on 162, 0.5 on 19
    and 0.8 on 1; ``gpt_score`` is exactly 0.5 on 140 rows, ``llama2_score``
    on 23; one row (index 207) has no response and no score.

    Examples
    --------
    >>> load_contextsl(data_dir=7)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: data_dir must be None or a folder path (str or os.PathLike), got 7 of type int
    """
    return _load_pinned(CONTEXTSL_ORIGIN, data_dir, "the ContextSL human evaluation (1 .xlsx file)", _frame)
