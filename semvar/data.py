"""Loaders for the public data the book uses, with one data-directory rule.

The rule
--------
Every loader looks for its files, in order, in

1. the ``data_dir=`` argument,
2. the directory named by the environment variable ``SEMVAR_DATA_DIR``,
3. the project's own ``data/`` folder,
4. ``../shared/data`` beside the project root (an offline mirror),

each holding a subfolder per data set (``mmlu/``, ``ye2024/``).  Files found
there are verified (checksums, row counts) before use.  If none of the places
has them, the loader goes to the data's origin (the Hugging Face hub) and says
so; if that fails too, it raises an error that lists every file it looked for
and how to obtain it.  It never returns partial data silently.
"""

from __future__ import annotations

import hashlib
import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from ._mmlu_subjects import SUBJECTS

__all__ = [
    "candidate_dirs",
    "find_data_dir",
    "DataNotFoundError",
    "load_mmlu",
    "mmlu_subjects",
    "load_ye_logits",
    "YE_TASKS",
    "YE_MODELS",
    "YE_PROMPTS",
]

PROJECT_ROOT = Path(__file__).resolve().parent.parent


class DataNotFoundError(FileNotFoundError):
    """Raised when a data set is in none of the data directories and its origin cannot be reached."""


def candidate_dirs(data_dir=None) -> list[Path]:
    """The data directories searched, in order (see the module docstring)."""
    dirs: list[Path] = []
    if data_dir is not None:
        dirs.append(Path(data_dir))
    env = os.environ.get("SEMVAR_DATA_DIR")
    if env:
        dirs.append(Path(env))
    dirs.append(PROJECT_ROOT / "data")
    dirs.append(PROJECT_ROOT.parent / "shared" / "data")
    return dirs


def find_data_dir(subdir: str, files, data_dir=None) -> Path | None:
    """First directory ``d`` in :func:`candidate_dirs` such that every ``d/subdir/f`` exists."""
    for d in candidate_dirs(data_dir):
        folder = d / subdir
        if all((folder / f).is_file() for f in files):
            return folder
    return None


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _verify_checksum(path: Path, expected: str, how_to_get: str) -> None:
    got = _sha256(path)
    if got != expected:
        raise ValueError(
            f"{path} is damaged or not the expected file: sha256 {got[:12]}... but expected "
            f"{expected[:12]}... Delete it and obtain it again: {how_to_get}"
        )


def _not_found(what: str, subdir: str, files, data_dir, how_to_get: str, origin_error=None) -> DataNotFoundError:
    looked = "\n".join(f"  {d / subdir / f}" for d in candidate_dirs(data_dir) for f in files)
    msg = f"{what} not found. Looked for:\n{looked}\n"
    if origin_error is not None:
        msg += f"and its origin could not be reached ({type(origin_error).__name__}: {origin_error}).\n"
    msg += f"To get it: {how_to_get}"
    return DataNotFoundError(msg)


# --------------------------------------------------------------------------- MMLU

MMLU_ROWS = {"test": 14042, "validation": 1531, "dev": 285}
MMLU_SHA256 = {
    "test": "8b211f7e7129fe12fe92e83bd045d3017a43f9acbebb6006504ab7579b42cf35",
    "validation": "3b0c9b3a589259918090534570bd50cba2611a16d91a7a2b07ef606e3e7d3ef3",
    "dev": "50921ef0bd13e0e3b978211122bd9c147f986db285b9ffca9850b16023bbea75",
}
MMLU_COLUMNS = ["question", "subject", "choices", "answer"]
_MMLU_HOWTO = (
    "online, `datasets.load_dataset('cais/mmlu', 'all', split=SPLIT)` (MIT licence) is used "
    "automatically; offline, put {split}.parquet (columns question, subject, choices, answer) "
    "in a folder mmlu/ under SEMVAR_DATA_DIR."
)


def mmlu_subjects() -> pd.DataFrame:
    """The 57 MMLU subjects with their test-set size, subcategory and category.

    Categories follow Hendrycks et al. (2021): ``STEM``, ``humanities``,
    ``social sciences`` and ``other (business, health, misc.)``.

    >>> mmlu_subjects().groupby("category").size().to_dict()["STEM"]
    18
    """
    df = pd.DataFrame(
        [(s, n, sub, cat) for s, (n, sub, cat) in SUBJECTS.items()],
        columns=["subject", "n_test_items", "subcategory", "category"],
    )
    return df


def load_mmlu(split: str = "test", *, data_dir=None, online: bool | None = None) -> pd.DataFrame:
    """Load MMLU (Hendrycks et al. 2021) through Hugging Face ``datasets``.

    Parameters
    ----------
    split : {"test", "validation", "dev"}
    data_dir : path-like, optional
        A folder holding ``mmlu/{split}.parquet``; see the module docstring
        for the search order.
    online : bool, optional
        ``True``: always read from the hub (``cais/mmlu``, config ``all``);
        ``False``: never go online; ``None`` (default): local first, hub if
        the files are not found.

    Returns
    -------
    pandas.DataFrame
        One row per item, in the hub's order, with columns ``question``,
        ``subject``, ``choices`` (list of 4 str), ``answer`` (0-3),
        ``subcategory`` and ``category``.

    Raises
    ------
    ValueError
        For an unknown split, or a local file that fails its checksum or row count.
    DataNotFoundError
        When the data is neither local nor reachable online.
    """
    if split not in MMLU_ROWS:
        raise ValueError(f"split must be one of {sorted(MMLU_ROWS)}, got {split!r}")
    import datasets

    howto = _MMLU_HOWTO.replace("SPLIT", repr(split)).format(split=split)
    fname = f"{split}.parquet"
    folder = None if online else find_data_dir("mmlu", [fname], data_dir)
    bars_were_on = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()
    try:
        df = _read_mmlu(datasets, split, folder, online, fname, data_dir, howto)
    finally:
        if bars_were_on:
            datasets.enable_progress_bars()
    return _check_mmlu(df, split, howto)


def _read_mmlu(datasets, split, folder, online, fname, data_dir, howto) -> pd.DataFrame:
    if folder is not None:
        path = folder / fname
        _verify_checksum(path, MMLU_SHA256[split], howto)
        ds = datasets.load_dataset("parquet", data_files={split: str(path)}, split=split)
    elif online is False:
        raise _not_found(f"MMLU {split} split", "mmlu", [fname], data_dir, howto)
    else:
        warnings.warn(
            f"MMLU {split} split not found in any data directory; downloading cais/mmlu from the Hugging Face hub",
            stacklevel=2,
        )
        try:
            ds = datasets.load_dataset("cais/mmlu", "all", split=split)
        except Exception as exc:  # offline, hub down, ...
            raise _not_found(f"MMLU {split} split", "mmlu", [fname], data_dir, howto, exc) from None
    return ds.to_pandas()


def _check_mmlu(df: pd.DataFrame, split: str, howto: str) -> pd.DataFrame:
    missing = [c for c in MMLU_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"MMLU {split} data lacks the columns {missing}; {howto}")
    df = df[MMLU_COLUMNS].copy()
    if len(df) != MMLU_ROWS[split]:
        raise ValueError(f"MMLU {split} has {len(df)} rows, expected {MMLU_ROWS[split]}; {howto}")
    unknown = sorted(set(df["subject"]) - set(SUBJECTS))
    if unknown or df["subject"].nunique() != len(SUBJECTS):
        raise ValueError(f"MMLU {split}: expected the 57 standard subjects, found {df['subject'].nunique()} (unknown: {unknown[:5]})")
    df["choices"] = df["choices"].map(list)
    meta = mmlu_subjects().set_index("subject")
    df["subcategory"] = df["subject"].map(meta["subcategory"])
    df["category"] = df["subject"].map(meta["category"])
    if split == "test":
        counts = df["subject"].value_counts()
        bad = {s: (int(counts.get(s, 0)), n) for s, (n, _, _) in SUBJECTS.items() if counts.get(s, 0) != n}
        if bad:
            raise ValueError(f"MMLU test: subject sizes differ from the standard ones: {bad}")
    return df


# --------------------------------------------------------------------------- Ye et al. (2024) logits

YE_TASKS = {
    "qa": "mmlu_10k",
    "rc": "cosmosqa_10k",
    "ci": "hellaswag_10k",
    "drs": "halu_dialogue",
    "ds": "halu_summarization",
}
YE_SHA256 = {
    "cosmosqa_10k": "6a940f2210eb71f642008e265d1bd547c1a96e7a7a99fd9b3daf50b242ea9fe1",
    "halu_dialogue": "9563c6757f03df170aee2292c26fb173e58151b9081dc49a9e3d632eba73a332",
    "halu_summarization": "2a661ad55411f778236e46a534ff00a5d9445247024e864b2a2d84cddc122b45",
    "hellaswag_10k": "a6670dafa383f2965e2c06cb1e42951e0f8cb76ff53d5a5561f8bc0501f9d010",
    "mmlu_10k": "d94454a2824ca85f7cc79716feb0519feb9e0550c444ab17bf85d10383dc29a9",
}
YE_MODELS = [
    "Llama-2-7b-hf", "Llama-2-13b-hf", "Llama-2-70b-hf", "Mistral-7B-v0.1",
    "Qwen-1_8B", "Qwen-7B", "Qwen-14B", "Qwen-72B", "Yi-6B", "Yi-34B",
    "deepseek-llm-7b-base", "deepseek-llm-67b-base", "falcon-7b", "falcon-40b",
    "internlm-7b", "mpt-7b",
]
YE_PROMPTS = ["base", "shared", "task"]
_YE_HOWTO = (
    "the logits were released with Ye et al. (2024), 'Benchmarking LLMs via Uncertainty "
    "Quantification' (MIT licence). Put {file} (48 float32 arrays named MODEL__PROMPT, "
    "each of shape (10000, 6)) in a folder ye2024/ under SEMVAR_DATA_DIR. The original "
    "release is a set of Python pickles, which this package does not unpickle."
)


def load_ye_logits(task: str, *, data_dir=None) -> dict[str, np.ndarray]:
    """Load the released option logits of Ye et al. (2024) for one task.

    Parameters
    ----------
    task : str
        A task key (``"qa"``, ``"rc"``, ``"ci"``, ``"drs"``, ``"ds"``) or file
        stem (``"mmlu_10k"``, ...).
    data_dir : path-like, optional
        A folder holding ``ye2024/{stem}.npz``.

    Returns
    -------
    dict
        ``"{model}__{prompt}" -> float32 array of shape (10000, 6)``; row ``i``
        is item id ``i``, columns are options A-F.

    Raises
    ------
    ValueError
        Unknown task, or a file that fails its checksum or shape checks.
    DataNotFoundError
        The file is in no data directory.  There is no automatic download:
        the original release is pickled, and pickles are never loaded.
    """
    stem = YE_TASKS.get(task, task)
    if stem not in YE_SHA256:
        raise ValueError(f"task must be one of {sorted(YE_TASKS)} or {sorted(YE_SHA256)}, got {task!r}")
    fname = f"{stem}.npz"
    howto = _YE_HOWTO.format(file=fname)
    folder = find_data_dir("ye2024", [fname], data_dir)
    if folder is None:
        raise _not_found(f"Ye et al. logits for {stem}", "ye2024", [fname], data_dir, howto)
    path = folder / fname
    _verify_checksum(path, YE_SHA256[stem], howto)
    with np.load(path, allow_pickle=False) as z:
        out = {name: z[name] for name in z.files}
    expected = {f"{m}__{p}" for m in YE_MODELS for p in YE_PROMPTS}
    if set(out) != expected:
        raise ValueError(f"{path}: expected arrays {len(expected)} named MODEL__PROMPT, found {len(out)}")
    for name, arr in out.items():
        if arr.shape != (10000, 6):
            raise ValueError(f"{path}: array {name} has shape {arr.shape}, expected (10000, 6)")
    return out


# --- MMLU response data (chapter 8) -----------------------------------------

# Item-level correctness of models on the MMLU test split.  An item id is the
# row index of the test split as :func:`load_mmlu` returns it (subjects in
# alphabetical order, original order within a subject), so item ``i`` of
# subject ``s`` in the per-subject hub configs has id ``offset[s] + i``.

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
    ids = pd.to_numeric(out["item_id"], errors="coerce")
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
    out["model"] = out["model"].astype(str)
    dup = out.duplicated(["model", "item_id"])
    if dup.any():
        first = out.loc[dup, ["model", "item_id"]].iloc[0].tolist()
        raise ValueError(f"{what} gives {int(dup.sum())} (model, item_id) pairs more than once, e.g. {first}")
    return out.sort_values(["model", "item_id"], kind="stable").reset_index(drop=True)


def load_response_table(path, *, n_items: int = MMLU_ROWS["test"]) -> pd.DataFrame:
    """Read a per-item response table (CSV, CSV.gz or parquet) with columns model, item_id, correct.

    Raises
    ------
    FileNotFoundError
        When ``path`` does not exist.
    ValueError
        As :func:`validate_responses`, or an unknown file type.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"response table {path} does not exist")
    name = path.name.lower()
    if name.endswith(".parquet"):
        df = pd.read_parquet(path)
    elif name.endswith((".csv", ".csv.gz")):
        df = pd.read_csv(path)
    else:
        raise ValueError(f"response table must be .csv, .csv.gz or .parquet, got {path.name}")
    return validate_responses(df, n_items, what=str(path))


def load_mmlu_responses(*, data_dir=None) -> pd.DataFrame:
    """The item-level MMLU responses this project generated (``data/mmlu_responses.csv.gz``).

    Answerers that run on a CPU, written by ``python -m semvar.sweep_mmlu_responses``;
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
            "regenerate it with `python -m semvar.sweep_mmlu_responses` (several minutes on a CPU)",
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


def load_lm_eval_samples(paths, model: str | None = None, *, metric: str | None = None, mmlu: pd.DataFrame | None = None) -> pd.DataFrame:
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
        No files, a line that is not JSON, a subject that is not an MMLU
        subject, a ``doc_id`` beyond the subject's size, a question that does
        not match, non-binary correctness.

    Notes
    -----
    Each JSONL line holds ``doc_id`` (the index within the subject's test
    split), ``doc`` (the item) and one field per metric.  The item id is
    ``mmlu_subject_offsets()[subject] + doc_id``.
    """
    import json

    if isinstance(paths, (str, Path)):
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
    offsets = mmlu_subject_offsets()
    rows = []
    for f in files:
        name = model if model is not None else f.parent.name
        with open(f, encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{f}:{lineno} is not valid JSON ({exc})") from None
                doc = rec.get("doc")
                subject = _lm_eval_subject(f, doc)
                if subject is None:
                    raise ValueError(f"{f}:{lineno}: cannot tell the MMLU subject (no doc.subject, and the file name names no MMLU subject)")
                if "doc_id" not in rec:
                    raise ValueError(f"{f}:{lineno} has no doc_id")
                doc_id = int(rec["doc_id"])
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



# --- Ye et al. answer keys (chapter 10) -------------------------------------

YE_ANSWER_REPO = "ErikYip/LLM-Uncertainty-Bench"
YE_OPTIONS = "ABCDEF"
_YE_KEYS_HOWTO = (
    "the answer keys are in the task JSON files of the Hugging Face dataset "
    f"{YE_ANSWER_REPO} (MIT licence). Online, load_ye_answers(task, online=None) reads "
    "them through `datasets`; to keep a local copy, run once while online "
    f"`datasets.load_dataset('{YE_ANSWER_REPO}', data_files='{{file}}', split='train').to_json('{{file}}')` "
    "and put {file} (JSON list or JSON lines of records with fields id and answer, a letter A-F) "
    "in a folder ye2024/ under SEMVAR_DATA_DIR."
)


def _ye_answers_frame(records, source: str, howto: str) -> pd.DataFrame:
    df = pd.DataFrame(records)
    missing = [c for c in ("id", "answer") if c not in df.columns]
    if missing:
        raise ValueError(f"{source}: the answer records lack the fields {missing}; {howto}")
    df = df[["id", "answer"] + [c for c in ("subcategory",) if c in df.columns]].copy()
    try:
        df["id"] = df["id"].astype(np.int64)
    except (TypeError, ValueError):
        raise ValueError(f"{source}: field id must hold integers 0-9999") from None
    if len(df) != 10000 or set(df["id"]) != set(range(10000)):
        raise ValueError(
            f"{source}: expected 10,000 records with ids 0-9999 exactly once, found {len(df)} records "
            f"with {df['id'].nunique()} distinct ids; {howto}"
        )
    df["answer"] = df["answer"].astype(str).str.strip()
    bad = sorted(set(df["answer"]) - set(YE_OPTIONS))
    if bad:
        raise ValueError(f"{source}: field answer must be a letter A-F, found {bad[:5]}")
    df = df.sort_values("id").set_index("id")
    df["label"] = df["answer"].map(YE_OPTIONS.index).astype(np.int64)
    return df


def _read_json_records(path: Path):
    import json

    text = path.read_text(encoding="utf-8")
    stripped = text.lstrip()
    if stripped.startswith("["):
        return json.loads(text)
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def load_ye_answers(task: str, *, data_dir=None, online: bool | None = None) -> pd.DataFrame:
    """Load the answer keys of one task of Ye et al. (2024).

    Parameters
    ----------
    task : str
        A task key (``"qa"``, ``"rc"``, ``"ci"``, ``"drs"``, ``"ds"``) or file
        stem (``"mmlu_10k"``, ...).
    data_dir : path-like, optional
        A folder holding ``ye2024/{stem}.json``; see the module docstring.
    online : bool, optional
        ``False``: never go online; ``True``: always read from the hub;
        ``None`` (default): local first, then the hub.

    Returns
    -------
    pandas.DataFrame
        Indexed by item ``id`` (0-9999, the row order of
        :func:`load_ye_logits`), with columns ``answer`` (letter A-F),
        ``label`` (0-5) and, where the file has it, ``subcategory``.

    Raises
    ------
    ValueError
        Unknown task, or records that are not 10,000 items with ids 0-9999
        and letters A-F.
    DataNotFoundError
        The keys are in no data directory and the hub
        (``ErikYip/LLM-Uncertainty-Bench``) cannot be reached or was not
        asked.

    Notes
    -----
    Only JSON is read (never a pickle).  No checksum is known for these
    files, so the content checks above are what is verified.
    """
    stem = YE_TASKS.get(task, task)
    if stem not in YE_SHA256:
        raise ValueError(f"task must be one of {sorted(YE_TASKS)} or {sorted(YE_SHA256)}, got {task!r}")
    fname = f"{stem}.json"
    howto = _YE_KEYS_HOWTO.format(file=fname)
    what = f"Ye et al. answer keys for {stem} (dataset {YE_ANSWER_REPO})"
    folder = None if online else find_data_dir("ye2024", [fname], data_dir)
    if folder is not None:
        path = folder / fname
        return _ye_answers_frame(_read_json_records(path), str(path), howto)
    if online is False:
        raise _not_found(what, "ye2024", [fname], data_dir, howto)
    import datasets

    warnings.warn(f"{fname} not found in any data directory; reading {YE_ANSWER_REPO} from the Hugging Face hub", stacklevel=2)
    try:
        ds = datasets.load_dataset(YE_ANSWER_REPO, data_files=fname, split="train")
    except Exception as exc:  # offline, hub down, file renamed ...
        raise _not_found(what, "ye2024", [fname], data_dir, howto, exc) from None
    return _ye_answers_frame(ds.to_pandas(), f"{YE_ANSWER_REPO}/{fname}", howto)
