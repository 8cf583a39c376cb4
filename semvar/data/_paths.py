"""The data-directory rule, the project's own result files, and the not-found error."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent
"""The folder that holds ``semvar/``, ``data/`` and ``notebooks/``."""

_TRUE = {"1", "true", "yes", "on"}


def result_path(name: str) -> Path:
    """Path of a file the project generates itself, under the project's ``data/`` folder.

    Experiments write their small result files there and chapters read them back
    through this one function, so every part of the book locates them the same way.

    Parameters
    ----------
    name : str
        File name relative to ``data/`` (e.g. ``"select_k_sweep.csv"``).

    Returns
    -------
    pathlib.Path
        ``<project root>/data/<name>``; the file need not exist yet.

    Raises
    ------
    ValueError
        When ``name`` is empty, absolute or leaves ``data/`` through ``..``.

    Examples
    --------
    >>> result_path("scorecard.json").name
    'scorecard.json'
    """
    if not isinstance(name, str) or not name or Path(name).is_absolute() or ".." in Path(name).parts:
        raise ValueError(f"name must be a relative file name under data/, got {name!r}")
    return PROJECT_ROOT / "data" / name


class DataNotFoundError(FileNotFoundError):
    """Raised when a data set is in none of the data directories and its origin cannot be reached."""


def _defaults_excluded() -> bool:
    return os.environ.get("SEMVAR_DATA_DIR_ONLY", "").strip().lower() in _TRUE


def candidate_dirs(data_dir=None) -> list[Path]:
    """The data directories searched, in order.

    Parameters
    ----------
    data_dir : path-like, optional
        An explicit folder, searched first.

    Returns
    -------
    list of pathlib.Path
        ``data_dir`` (if given), ``$SEMVAR_DATA_DIR`` (if set), then the
        project's ``data/`` and ``../shared/data`` beside the project root.
        The last two are left out when ``SEMVAR_DATA_DIR_ONLY=1``, which lets a
        developer (or a test) see what a fresh machine sees.

    Examples
    --------
    >>> candidate_dirs("/somewhere")[0].as_posix()
    '/somewhere'
    """
    dirs: list[Path] = []
    if data_dir is not None:
        dirs.append(Path(data_dir))
    env = os.environ.get("SEMVAR_DATA_DIR")
    if env:
        dirs.append(Path(env))
    if not _defaults_excluded():
        dirs.append(PROJECT_ROOT / "data")
        dirs.append(PROJECT_ROOT.parent / "shared" / "data")
    return dirs


def find_data_dir(subdir: str, files, data_dir=None) -> Path | None:
    """First folder ``d / subdir`` with ``d`` in :func:`candidate_dirs` that holds every one of ``files``.

    Returns ``None`` when no data directory has all of them.
    """
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
    if not looked:
        looked = "  (no data directory: data_dir= was not given and SEMVAR_DATA_DIR is not set)"
    msg = f"{what} not found. Looked for:\n{looked}\n"
    if _defaults_excluded():
        msg += "(the project's data/ and ../shared/data were not searched: SEMVAR_DATA_DIR_ONLY is set)\n"
    if origin_error is not None:
        msg += f"and its origin could not be reached ({type(origin_error).__name__}: {origin_error}).\n"
    msg += f"To get it: {how_to_get}"
    return DataNotFoundError(msg)
