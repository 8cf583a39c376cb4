"""The data-directory rule, the project's own result files, and the not-found error.

Environment variables: ``SEMVAR_DATA_DIR`` and ``SEMVAR_DATA_DIR_ONLY``
(:func:`candidate_dirs`), and ``SEMVAR_RESULTS_DIR``, the folder of the
project's own result files (:func:`result_path`), which an installed semvar
without the project's ``data/`` folder needs in order to read or write them.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent
"""The folder that holds ``semvar/``, ``data/`` and ``notebooks/``."""

_TRUE = {"1", "true", "yes", "on"}


#: The environment variable naming the folder of the project's result files (read and written there).
RESULTS_DIR_ENV = "SEMVAR_RESULTS_DIR"


def result_path(name: str) -> Path:
    """Path of a file the project generates itself (a small result file of ``data/``).

    Experiments write their small result files there and chapters read them back
    through this one function, so every part of the book locates them the same way.

    Parameters
    ----------
    name : str
        File name relative to ``data/`` (e.g. ``"select_k_sweep.csv"``).

    Returns
    -------
    pathlib.Path
        The first of:

        1. ``$SEMVAR_RESULTS_DIR/<name>`` when that variable is set (the
           file need not exist yet: an experiment writes it there);
        2. ``<project root>/data/<name>`` when semvar runs from a checkout of
           the project, whose ``data/`` folder is beside the package (the
           file need not exist yet);
        3. otherwise (semvar installed from a wheel or an sdist, which do not
           ship the project's ``data/``): ``<d>/<name>`` for the first data
           directory ``d`` of :func:`candidate_dirs` (``SEMVAR_DATA_DIR``
           first) that holds the file.

    Raises
    ------
    ValueError
        When ``name`` is empty, absolute or leaves ``data/`` through ``..``.
    DataNotFoundError
        In case 3, when no data directory holds the file; the message says
        to set ``SEMVAR_RESULTS_DIR`` (to the ``data/`` folder of a checkout
        of the project, or to where an experiment should write the file) and
        names the places searched.

    Examples
    --------
    >>> result_path("scorecard.json").name
    'scorecard.json'
    """
    if not isinstance(name, str) or not name or Path(name).is_absolute() or ".." in Path(name).parts:
        raise ValueError(f"name must be a relative file name under data/, got {name!r}")
    folder = os.environ.get(RESULTS_DIR_ENV, "").strip()
    if folder:
        return Path(folder) / name
    if (PROJECT_ROOT / "data").is_dir():
        return PROJECT_ROOT / "data" / name
    return _installed_result_path(name)


def _installed_result_path(name: str) -> Path:
    """``name`` in the first data directory that holds it, for a semvar installed without the project's folder."""
    for d in candidate_dirs():
        if (d / name).is_file():
            return d / name
    looked = "\n".join(f"  {d / name}" for d in candidate_dirs()) or "  (no data directory: SEMVAR_DATA_DIR is not set)"
    raise DataNotFoundError(
        f"{name} is one of the project's result files (data/{name} in its repository), and this installation of "
        f"semvar has no project folder beside it ({PROJECT_ROOT / 'data'} does not exist: an install from a wheel or "
        f"an sdist ships the package only). Set {RESULTS_DIR_ENV} to a folder that holds it (the data/ folder of a "
        "checkout of the project) or where an experiment should write it, or put the file in a data directory "
        f"(SEMVAR_DATA_DIR). Looked for:\n{looked}"
    )


def _check_data_dir(data_dir) -> None:
    """A loader's ``data_dir``: None or a folder path (``str`` or :class:`os.PathLike`), else ``ValueError``."""
    if data_dir is not None and not isinstance(data_dir, (str, os.PathLike)):
        raise ValueError(
            f"data_dir must be None or a folder path (str or os.PathLike), got {data_dir!r} "
            f"of type {type(data_dir).__name__}"
        )


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
