"""Shared test helpers.

Tests that need a data set call the ``require_data`` fixture.  When the data is
in no data directory the test is skipped with the reason shown (``pytest -rs``)
on a development machine, and fails when ``SEMVAR_REQUIRE_DATA=1`` (set by
``.ci/run``), so that continuous integration never passes by skipping.
"""

from __future__ import annotations

import os

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
