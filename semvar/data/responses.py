"""Item-level response tables: which model answered which MMLU test item correctly.

An item id is the row index of the MMLU test split as :func:`semvar.data.load_mmlu`
returns it (subjects in alphabetical order, original order within a subject),
so item ``i`` of subject ``s`` in the per-subject hub configs has id
``offset[s] + i`` (:func:`mmlu_subject_offsets`).  Sources: tables with columns
``model, item_id, correct`` (CSV, CSV.gz, parquet), lm-evaluation-harness
``--log_samples`` files, and the table this project generates
(``data/mmlu_responses.csv.gz``).
"""

from __future__ import annotations

import gzip
import io
import os
import zlib
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from .._mmlu_subjects import SUBJECTS
from ._paths import _not_found, find_data_dir
from .mmlu import MMLU_ROWS

__all__ = [
    "MMLU_RESPONSES_FILE",
    "RESPONSE_COLUMNS",
    "mmlu_subject_offsets",
    "validate_responses",
    "load_response_table",
    "load_mmlu_responses",
    "load_lm_eval_samples",
    "response_matrix",
]

RESPONSE_COLUMNS = ["model", "item_id", "correct"]
MMLU_RESPONSES_FILE = "mmlu_responses.csv.gz"


def mmlu_subject_offsets() -> dict[str, int]:
    """First test-split item id of each MMLU subject (subjects in alphabetical order).

    >>> mmlu_subject_offsets()["abstract_algebra"], mmlu_subject_offsets()["anatomy"]
    (0, 100)
    """
    out, start = {}, 0
    for s in sorted(SUBJECTS):
        out[s] = start
        start += SUBJECTS[s][0]
    return out


def validate_responses(df: pd.DataFrame, n_items: int = MMLU_ROWS["test"], *, what: str = "responses") -> pd.DataFrame:
    """Check a long response table (model, item_id, correct) and return a clean copy.

    Parameters
    ----------
    df : pandas.DataFrame
        Columns ``model`` (str), ``item_id`` (int in ``[0, n_items)``),
        ``correct`` (0/1, bool, or 0.0/1.0); extra columns are kept.
    n_items : int
        Number of items of the benchmark (14,042 for the MMLU test split).
    what : str
        Name of the source, used in error messages.

    Returns
    -------
    pandas.DataFrame
        ``item_id`` and ``correct`` as int, sorted by model and item.

    Raises
    ------
    ValueError
        Missing columns, unknown or non-integer item ids, correctness other
        than 0/1, or a (model, item) pair given twice.

    Examples
    --------
    >>> validate_responses(pd.DataFrame({"model": ["m"], "item_id": [3], "correct": [True]}))["correct"].tolist()
    [1]
    """
    if not isinstance(df, pd.DataFrame):
        raise ValueError(f"{what} must be a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in RESPONSE_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{what} lacks the columns {missing}; a response table has columns {RESPONSE_COLUMNS}")
    out = df.copy()
    if len(out) == 0:
        raise ValueError(f"{what} holds no responses (no rows)")
    models = out["model"]
    bad = models.map(lambda m: not isinstance(m, str) or not m.strip())
    if bad.any():
        row = int(bad.to_numpy().argmax())
        raise ValueError(
            f"{what} has {int(bad.sum())} rows without a model name (a non-empty string), e.g. row {row}: "
            f"{models.iloc[row]!r}"
        )
    raw_ids = out["item_id"]
    flags = raw_ids.map(lambda v: isinstance(v, bool)) if raw_ids.dtype == object else None
    if raw_ids.dtype == bool or (flags is not None and flags.any()):
        raise ValueError(f"{what} has boolean item ids; item ids are integers 0..{n_items - 1}")
    ids = pd.to_numeric(raw_ids, errors="coerce")
    bad = out.loc[ids.isna() | (ids != ids.round()) | (ids < 0) | (ids >= n_items), "item_id"]
    if len(bad):
        raise ValueError(
            f"{what} has {len(bad)} unknown item ids (allowed: integers 0..{n_items - 1}, the row index of the "
            f"MMLU test split), e.g. {bad.iloc[:3].tolist()}"
        )
    out["item_id"] = ids.astype(int)
    corr = out["correct"]
    if corr.dtype == bool:
        corr = corr.astype(int)
    num = pd.to_numeric(corr, errors="coerce")
    bad = out.loc[~num.isin([0, 1]), "correct"]
    if len(bad):
        raise ValueError(f"{what} has non-binary correctness: {len(bad)} values not in {{0, 1}}, e.g. {bad.iloc[:3].tolist()}")
    out["correct"] = num.astype(int)
    dup = out.duplicated(["model", "item_id"])
    if dup.any():
        first = out.loc[dup, ["model", "item_id"]].iloc[0].tolist()
        raise ValueError(f"{what} gives {int(dup.sum())} (model, item_id) pairs more than once, e.g. {first}")
    return out.sort_values(["model", "item_id"], kind="stable").reset_index(drop=True)


def load_response_table(path: str | os.PathLike, *, n_items: int = MMLU_ROWS["test"]) -> pd.DataFrame:
    """Read a per-item response table (CSV, CSV.gz or parquet) with columns model, item_id, correct.

    Every cell is read as text first, so a model named ``NA`` or ``null``
    stays a name; an empty or non-numeric id or correctness is refused.

    Raises
    ------
    FileNotFoundError
        When ``path`` does not exist.
    ValueError
        As :func:`validate_responses`; an unknown file type; an empty or
        header-only file; a truncated or damaged ``.gz``; text that is not
        UTF-8 (with its line).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"response table {path} does not exist")
    name = path.name.lower()
    if name.endswith(".parquet"):
        try:
            df = pd.read_parquet(path)
        except (OSError, ValueError) as exc:
            raise ValueError(f"{path} is not a readable parquet file ({type(exc).__name__}: {exc})") from None
    elif name.endswith((".csv", ".csv.gz")):
        df = _read_csv(path)
    else:
        raise ValueError(f"response table must be .csv, .csv.gz or .parquet, got {path.name}")
    return validate_responses(df, n_items, what=str(path))


def _text_of(path: Path) -> str:
    """The text of a (possibly gzipped) file; damage and bad UTF-8 are reported with the file and line."""
    try:
        raw = path.read_bytes()
        if path.name.lower().endswith(".gz"):
            raw = gzip.decompress(raw)
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise ValueError(f"{path} is not a complete gzip file (truncated or damaged: {exc})") from None
    except OSError as exc:  # e.g. a CRC or length check that fails
        raise ValueError(f"{path} cannot be read ({exc})") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise ValueError(f"{path}, line {line}: not valid UTF-8 (byte {raw[exc.start]:#04x})") from None


def _read_csv(path: Path) -> pd.DataFrame:
    """A response CSV in which the model names are read as text: ``NA`` or ``null`` stays a name."""
    text = _text_of(path)
    if not text.strip():
        raise ValueError(f"{path} is empty; a response table has a header line model,item_id,correct and one row per answer")
    try:
        header = pd.read_csv(io.StringIO(text), nrows=0).columns
        na = {c: _NA_STRINGS for c in header if c != "model"}
        df = pd.read_csv(io.StringIO(text), dtype={"model": str} if "model" in header else None,
                         keep_default_na=False, na_values=na)
    except pd.errors.ParserError as exc:
        raise ValueError(f"{path}: not a well-formed CSV table ({exc})") from None
    if len(df) == 0:
        raise ValueError(f"{path} holds a header line and no responses")
    return df


_NA_STRINGS = ["", "NA", "N/A", "NaN", "nan", "null", "NULL", "None", "<NA>"]


def load_mmlu_responses(*, data_dir: str | os.PathLike | None = None) -> pd.DataFrame:
    """The item-level MMLU responses this project generated (``data/mmlu_responses.csv.gz``).

    Answerers that run on a CPU, written by ``python -m semvar.experiments.mmlu_responses``;
    columns ``model``, ``item_id``, ``choice``, ``correct``.

    Raises
    ------
    DataNotFoundError
        When the file is in no data directory.
    """
    folder = find_data_dir("", [MMLU_RESPONSES_FILE], data_dir)
    if folder is None:
        raise _not_found(
            "MMLU response table", "", [MMLU_RESPONSES_FILE], data_dir,
            "regenerate it with `python -m semvar.experiments.mmlu_responses` (several minutes on a CPU)",
        )
    return load_response_table(folder / MMLU_RESPONSES_FILE)


def _lm_eval_subject(path: Path, doc: dict | None) -> str | None:
    if isinstance(doc, dict) and doc.get("subject") in SUBJECTS:
        return doc["subject"]
    stem = path.name
    if stem.startswith("samples_"):
        stem = stem[len("samples_"):]
    # task names look like mmlu_<subject>, possibly with a prefix/suffix and a timestamp
    best = None
    for s in SUBJECTS:
        if f"mmlu_{s}_" in stem + "_" or stem.startswith(f"{s}_"):
            if best is None or len(s) > len(best):
                best = s
    return best


def load_lm_eval_samples(paths: str | os.PathLike | Sequence[str | os.PathLike], model: str | None = None, *,
                         metric: str | None = None, mmlu: pd.DataFrame | None = None) -> pd.DataFrame:
    """Read lm-evaluation-harness ``--log_samples`` files of the MMLU subject tasks.

    Parameters
    ----------
    paths : path-like or list of path-like
        ``samples_mmlu_<subject>_<time>.jsonl`` files, or a folder holding them
        (searched recursively).
    model : str, optional
        Model name for the table; by default the name of the folder that
        holds the files (lm-evaluation-harness writes one folder per model).
    metric : str, optional
        Per-sample field holding correctness; by default ``acc`` if present,
        else ``exact_match``.
    mmlu : pandas.DataFrame, optional
        The test split from :func:`load_mmlu`; when given, each sample's
        ``doc.question`` is checked against the item it is mapped to.

    Returns
    -------
    pandas.DataFrame
        Columns ``model``, ``item_id``, ``correct`` (validated with
        :func:`validate_responses`).

    Raises
    ------
    ValueError
        No files, a line that is not a JSON object or not UTF-8, a subject
        that is not an MMLU subject, a ``doc_id`` that is not an integer or
        lies beyond the subject's size, a question that does not match,
        non-binary correctness, an ``mmlu`` table that is not the whole test
        split; each names the file and line.

    Notes
    -----
    Each JSONL line holds ``doc_id`` (the index within the subject's test
    split), ``doc`` (the item) and one field per metric.  The item id is
    ``mmlu_subject_offsets()[subject] + doc_id``.
    """
    import json

    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files.extend(sorted(p.rglob("samples_*mmlu*.jsonl")))
        elif p.is_file():
            files.append(p)
        else:
            raise ValueError(f"paths: {p} is neither a file nor a folder")
    if not files:
        raise ValueError(f"no lm-evaluation-harness sample files (samples_*mmlu*.jsonl) found in {list(map(str, paths))}")
    if model is not None and (not isinstance(model, str) or not model.strip()):
        raise ValueError(f"model must be a non-empty string, got {model!r}")
    if metric is not None and not isinstance(metric, str):
        raise ValueError(f"metric must be a string, got {type(metric).__name__}")
    if mmlu is not None:
        if not isinstance(mmlu, pd.DataFrame) or "question" not in mmlu.columns:
            raise ValueError("mmlu must be the MMLU test split as load_mmlu('test') returns it (a DataFrame with a 'question' column)")
        if len(mmlu) != MMLU_ROWS["test"]:
            raise ValueError(f"mmlu must be the whole MMLU test split ({MMLU_ROWS['test']} rows), got {len(mmlu)} rows")
    offsets = mmlu_subject_offsets()
    rows = []
    for f in files:
        name = model if model is not None else f.parent.name
        with open(f, "rb") as fh:
            for lineno, raw in enumerate(fh, 1):
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise ValueError(f"{f}:{lineno}: not valid UTF-8 (byte {raw[exc.start]:#04x})") from None
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{f}:{lineno} is not valid JSON ({exc})") from None
                if not isinstance(rec, dict):
                    raise ValueError(f"{f}:{lineno}: expected a JSON object (one sample), got a JSON {type(rec).__name__}")
                doc = rec.get("doc")
                subject = _lm_eval_subject(f, doc)
                if subject is None:
                    raise ValueError(f"{f}:{lineno}: cannot tell the MMLU subject (no doc.subject, and the file name names no MMLU subject)")
                if "doc_id" not in rec:
                    raise ValueError(f"{f}:{lineno} has no doc_id")
                doc_id = rec["doc_id"]
                if isinstance(doc_id, bool) or not isinstance(doc_id, int):
                    raise ValueError(f"{f}:{lineno}: doc_id must be an integer (the item's index in {subject}), got {doc_id!r}")
                size = SUBJECTS[subject][0]
                if not 0 <= doc_id < size:
                    raise ValueError(f"{f}:{lineno}: unknown item: doc_id {doc_id} but {subject} has {size} test items")
                key = metric or next((m for m in ("acc", "exact_match") if m in rec), None)
                if key is None or key not in rec:
                    raise ValueError(f"{f}:{lineno} has no correctness field {metric or 'acc/exact_match'}")
                item = offsets[subject] + doc_id
                if mmlu is not None and isinstance(doc, dict) and "question" in doc:
                    if str(doc["question"]).strip() != str(mmlu["question"].iloc[item]).strip():
                        raise ValueError(f"{f}:{lineno}: doc.question does not match MMLU test item {item} ({subject} #{doc_id})")
                rows.append((name, item, rec[key]))
    df = pd.DataFrame(rows, columns=RESPONSE_COLUMNS)
    return validate_responses(df, what="lm-evaluation-harness samples")


def response_matrix(responses: pd.DataFrame, n_items: int = MMLU_ROWS["test"]) -> pd.DataFrame:
    """Wide table item x model of 0/1 correctness (missing answers are NaN).

    >>> r = pd.DataFrame({"model": ["a", "b"], "item_id": [0, 0], "correct": [1, 0]})
    >>> response_matrix(r, n_items=2).to_dict("list")
    {'a': [1.0, nan], 'b': [0.0, nan]}
    """
    r = validate_responses(responses, n_items)
    wide = r.pivot(index="item_id", columns="model", values="correct").reindex(range(n_items))
    wide.columns.name = None
    wide.index.name = "item_id"
    return wide.astype(float)
