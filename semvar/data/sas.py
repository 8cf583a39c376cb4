"""Human "same meaning?" labels for 5,025 pairs of answers (Risch et al., Semantic Answer Similarity).

Origin: GitHub ``e184633/semantic-answer-similarity`` at commit
``8395a87a851988ab9cd241500310d1931334e406``, files
``data/data/{NQ-open,SQuAD,GermanQuAD}_SAS.csv`` (:data:`SAS_ORIGIN`, each
sha256 pinned): the data of Risch, Möller, Gutsch & Pietsch, "Semantic
Answer Similarity for Evaluating Question Answering Models" (MRQA 2021).  The
repository has no licence file; its data README (removed at a later commit)
gives those of the underlying data: NQ CC BY-SA 3.0, SQuAD CC BY-SA 4.0,
GermanQuAD CC BY 4.0.

Local copy: ``sas/{NQ-open,SQuAD,GermanQuAD}_SAS.csv`` in a data directory
(the rule of :mod:`semvar.data`).

What a file holds
-----------------
A CSV with the header ``answer1,answer2,label``: two answers to the same
question (the question is not in the file) and the annotators' label, written
as a float: ``0.0`` different meaning, ``1.0`` partly the same, ``2.0`` the
same meaning.  NQ-open has 3,658 pairs, SQuAD 942, GermanQuAD 425 (German).

Rules, applied and reported (``attrs["report"]``)
-------------------------------------------------
- An answer written ``None`` (a missing value written out as text; all 9
  are ``answer1`` of NQ-open, in two runs of consecutive rows) or left empty
  (GermanQuAD) is missing: ``pd.NA``.  The row is **kept** and counted
  (``missing_answer1``, ``missing_answer2``; ``none_as_missing`` counts the
  ``None`` texts among them).  Other answers are kept exactly as released.
- A label left empty (3 GermanQuAD rows, 2 of them wholly empty) is
  ``pd.NA`` (``missing_label``; ``empty_rows`` counts the wholly empty rows);
  a label that is not 0, 1 or 2 raises ``ValueError``.
- Each file's row count must be the pinned one (:data:`SAS_ROWS`), and its
  header ``answer1,answer2,label``.
"""

from __future__ import annotations

import os

import pandas as pd

from ._fetch import _load_pinned

__all__ = ["SAS_ORIGIN", "SAS_DATASETS", "SAS_ROWS", "SAS_COLUMNS", "SAS_LABELS", "load_sas"]

SAS_ORIGIN = {
    "repo": "e184633/semantic-answer-similarity",
    "commit": "8395a87a851988ab9cd241500310d1931334e406",
    "licence": "no licence file; the data: NQ CC BY-SA 3.0, SQuAD CC BY-SA 4.0, GermanQuAD CC BY 4.0",
    "subdir": "sas",
    "files": {
        "NQ-open_SAS.csv": ("data/data/NQ-open_SAS.csv",
                            "e62d3cb175513a41ed97bcf5fd59214c5024ce31f50451f0d75a65b70dcc2439"),
        "SQuAD_SAS.csv": ("data/data/SQuAD_SAS.csv",
                          "cef4bc0f273ad7d125c8acf4dad0a755d60d4f4c5db09d1379058de62bef97d6"),
        "GermanQuAD_SAS.csv": ("data/data/GermanQuAD_SAS.csv",
                               "fad168d37476e267b8b0f714b21d858bd2c997d541d066becdf6aefbfa5d639e"),
    },
}
"""Where the data comes from: repository, commit, licence, the folder under a data
directory, and per local file name its path in the repository and its sha256."""

SAS_DATASETS = {"NQ-open": "en", "SQuAD": "en", "GermanQuAD": "de"}
"""The three data sets, in the frame's order, and their language."""

SAS_ROWS = {"NQ-open": 3658, "SQuAD": 942, "GermanQuAD": 425}
"""Answer pairs per file at the pinned commit."""

SAS_LABELS = {0: "different", 1: "partly the same", 2: "same meaning"}
"""What the labels mean."""

SAS_COLUMNS = ("dataset", "language", "answer1", "answer2", "label")

_HEADER = ["answer1", "answer2", "label"]
_LABEL_TEXT = {"0": 0, "0.0": 0, "1": 1, "1.0": 1, "2": 2, "2.0": 2}


def _parse(path, name: str, source: str) -> tuple[pd.DataFrame, dict]:
    try:
        raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise ValueError(f"{source} is not a readable CSV file ({exc})") from None
    if list(raw.columns) != _HEADER:
        raise ValueError(f"{source}: the header must be {','.join(_HEADER)}, got {list(raw.columns)}")
    if len(raw) != SAS_ROWS[name]:
        raise ValueError(f"{source}: expected {SAS_ROWS[name]} answer pairs, found {len(raw)}; "
                         "the file is not the pinned one or was read partially")
    empty_rows = int((raw == "").all(axis=1).sum())
    label_text = raw["label"].str.strip()
    bad = ~(label_text.isin(list(_LABEL_TEXT)) | (label_text == ""))
    if bad.any():
        j = int(bad.to_numpy().nonzero()[0][0])
        raise ValueError(f"{source}, pair {j + 1}: label {raw['label'].iloc[j]!r} is not 0, 1 or 2 "
                         f"({SAS_LABELS})")
    label = pd.array([_LABEL_TEXT.get(t) for t in label_text], dtype="Int8")
    out = pd.DataFrame({"dataset": name, "language": SAS_DATASETS[name]}, index=range(len(raw)))
    report = {"rows": len(raw)}
    none_as_missing = 0
    for col in ("answer1", "answer2"):
        text = raw[col]
        missing = (text == "") | (text == "None")
        none_as_missing += int((text == "None").sum())
        out[col] = pd.array(text.where(~missing, None).tolist(), dtype="string")
        report[f"missing_{col}"] = int(missing.sum())
    out["label"] = label
    for v in SAS_LABELS:
        report[f"label_{v}"] = int((label == v).sum())
    report["missing_label"] = int(label.isna().sum())
    report["none_as_missing"] = none_as_missing
    report["empty_rows"] = empty_rows
    return out, report


def _frame(paths: dict) -> tuple[pd.DataFrame, dict]:
    parts, report = [], {}
    for name in SAS_DATASETS:
        path = paths[f"{name}_SAS.csv"]
        part, report[name] = _parse(path, name, str(path))
        parts.append(part)
    df = pd.concat(parts, ignore_index=True)
    df["dataset"] = df["dataset"].astype(str)
    return df[list(SAS_COLUMNS)], {"report": report}


def load_sas(data_dir: str | os.PathLike | None = None) -> pd.DataFrame:
    """The 5,025 answer pairs of Risch et al. (2021) with their human similarity labels.

    Parameters
    ----------
    data_dir : path-like, optional
        A folder holding ``sas/{NQ-open,SQuAD,GermanQuAD}_SAS.csv``, searched
        first; see :mod:`semvar.data` for the other places (then the cache,
        then the origin, :data:`SAS_ORIGIN`).

    Returns
    -------
    pandas.DataFrame
        5,025 rows, the files' rows in order (NQ-open, SQuAD, GermanQuAD),
        columns :data:`SAS_COLUMNS`: ``dataset`` (``"NQ-open"``,
        ``"SQuAD"``, ``"GermanQuAD"``), ``language`` (``"en"``/``"de"``),
        ``answer1``, ``answer2`` (pandas ``string``; ``pd.NA`` where the file
        has no answer, row kept) and ``label`` (pandas ``Int8``: 0 different,
        1 partly, 2 same meaning; ``pd.NA`` where the file gives none).
        ``attrs["report"]`` holds per data set ``rows``, ``label_0``,
        ``label_1``, ``label_2``, ``missing_label``, ``missing_answer1``,
        ``missing_answer2``, ``none_as_missing`` (answers written ``None``)
        and ``empty_rows``; ``attrs["source"]`` says where the files were read.

    Raises
    ------
    ValueError
        A bad ``data_dir``; a local file whose sha256 is not the pinned one;
        a file that is not a CSV with the header ``answer1,answer2,label``,
        has another row count than :data:`SAS_ROWS`, or a label outside
        0, 1, 2.
    DataNotFoundError
        The files are in no data directory nor the cache and the origin
        cannot be reached; the message names the places searched and the
        origin.

    Notes
    -----
    On the pinned files: NQ-open 2,621 / 593 / 444 pairs labelled 0 / 1 / 2
    and 9 pairs without ``answer1``; SQuAD 533 / 289 / 120; GermanQuAD
    115 / 217 / 90 and 3 pairs without a label.

    Examples
    --------
    >>> load_sas(data_dir=["sas"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: data_dir must be None or a folder path (str or os.PathLike), got ['sas'] of type list
    """
    return _load_pinned(SAS_ORIGIN, data_dir, "the SAS answer pairs (3 CSV files)", _frame)
