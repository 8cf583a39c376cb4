"""Shared test helpers.

Tests that need a data set call the ``require_data`` fixture.  When the data is
in no data directory the test is skipped with the reason shown (``pytest -rs``)
on a development machine, and fails when ``SEMVAR_REQUIRE_DATA=1`` (set by
``.ci/run``), so that continuous integration never passes by skipping.
"""

from __future__ import annotations

import os
import sqlite3

import pytest

from semvar.data import candidate_dirs, find_data_dir

_TRUE = {"1", "true", "yes", "on"}


def _data_required() -> bool:
    return os.environ.get("SEMVAR_REQUIRE_DATA", "").strip().lower() in _TRUE


def _require_data(subdir: str, files, data_dir=None):
    files = [files] if isinstance(files, str) else list(files)
    folder = find_data_dir(subdir, files, data_dir)
    if folder is not None:
        return folder
    where = ", ".join(str(d / subdir) for d in candidate_dirs(data_dir)) or "no data directory (SEMVAR_DATA_DIR unset)"
    reason = (
        f"needs {', '.join(files)} in one of: {where} "
        "(set SEMVAR_DATA_DIR to a folder that holds it; see the README, Reproducibility -> data)"
    )
    if _data_required():
        pytest.fail(f"SEMVAR_REQUIRE_DATA=1 but the data is missing: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture
def require_data():
    """``require_data(subdir, files, data_dir=None) -> Path``: the folder holding ``files``, else skip or fail.

    Returns the data folder (``<data dir>/<subdir>``) when every file is found;
    otherwise skips with the reason, or fails when ``SEMVAR_REQUIRE_DATA=1``.
    """
    return _require_data


def _committed_verdicts(cache) -> int:
    """Rows committed to the SQLite verdict cache at ``cache`` so far (0 while it does not exist yet).

    Read with a plain connection, not :class:`semvar.llm.VerdictCache`, so a test can watch a cache
    that another process is writing without taking part in its locking.
    """
    try:
        con = sqlite3.connect(cache, timeout=5)
        try:
            return con.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


@pytest.fixture
def committed_verdicts():
    """``committed_verdicts(cache) -> int``: rows another process has committed to a verdict cache."""
    return _committed_verdicts
