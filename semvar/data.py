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


# --- Ye et al. answer keys (chapter 10) -------------------------------------
