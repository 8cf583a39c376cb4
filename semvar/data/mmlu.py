"""MMLU (Hendrycks et al., 2021): the benchmark's questions, through Hugging Face ``datasets``.

Local copy: ``mmlu/{split}.parquet`` in a data directory (sha256 and row count
checked).  Origin: the hub dataset ``cais/mmlu``, config ``all``, which
``datasets`` downloads and caches itself.
"""

from __future__ import annotations

import os
import warnings

import pandas as pd

from .._mmlu_subjects import SUBJECTS
from .._validation import check_option
from ._paths import _not_found, _verify_checksum, find_data_dir

__all__ = [
    "MMLU_COLUMNS",
    "MMLU_ROWS",
    "MMLU_SHA256",
    "load_mmlu",
    "mmlu_subjects",
]

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


def load_mmlu(split: str = "test", *, data_dir: str | os.PathLike | None = None,
              online: bool | None = None) -> pd.DataFrame:
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
    check_option(split, "split", sorted(MMLU_ROWS))
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
