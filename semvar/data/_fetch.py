"""Fetching a data file from its origin: download, verify, cache.

Every file that lives in a public GitHub repository is named by
``(repo, commit, path)`` and fetched from
``https://raw.githubusercontent.com/<owner>/<repo>/<commit>/<path>`` with
:mod:`pooch`: the bytes go to a temporary file beside the target, their sha256
is compared with the pinned value, and only a file that matches is moved into
place, so an interrupted or corrupted download never leaves a file behind.
Files are cached under ``<cache>/github/<owner>/<repo>/<commit>/<path>``,
where ``<cache>`` is ``$SEMVAR_CACHE_DIR`` or else the platform's user cache
folder (``pooch.os_cache("semvar")``, e.g. ``~/.cache/semvar`` on Linux).

``SEMVAR_DATA_MIRROR=URL`` replaces ``https://raw.githubusercontent.com`` for
every GitHub origin; the mirror must serve the same layout
``<owner>/<repo>/<commit>/<path>``.  The pinned checksums still apply, so a
mirror cannot substitute other bytes.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

from ._paths import DataNotFoundError

GITHUB_RAW = "https://raw.githubusercontent.com"
"""The host that serves raw files of public GitHub repositories."""

_TIMEOUT_S = 60
_CHUNK = 1 << 16
_REPO = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_COMMIT = re.compile(r"[0-9a-f]{40}")
_SHA256 = re.compile(r"[0-9a-f]{64}")


def _pooch():
    try:
        import pooch
    except ImportError:  # pragma: no cover - pooch is in requirements.txt
        raise ImportError(
            "fetching data from its origin needs pooch: pip install 'semvar[data]' (or pooch==1.9.0)"
        ) from None
    return pooch


def cache_dir() -> Path:
    """The folder where fetched files are kept: ``$SEMVAR_CACHE_DIR``, else the platform's user cache.

    The folder may be deleted at any time; files are fetched again when needed.
    """
    env = os.environ.get("SEMVAR_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    return Path(_pooch().os_cache("semvar"))


def _check_github(repo, commit, path) -> None:
    if not isinstance(repo, str) or not _REPO.fullmatch(repo):
        raise ValueError(f"repo must be 'owner/name', got {repo!r}")
    if not isinstance(commit, str) or not _COMMIT.fullmatch(commit):
        raise ValueError(f"commit must be a full 40-character lower-case hex commit id, got {commit!r}")
    if not isinstance(path, str) or not path or path.startswith("/") or ".." in path.split("/"):
        raise ValueError(f"path must be a relative path inside the repository, got {path!r}")


def github_url(repo: str, commit: str, path: str) -> str:
    """URL of one file of a GitHub repository at a commit (``SEMVAR_DATA_MIRROR`` replaces the host).

    Parameters
    ----------
    repo : str
        ``"owner/name"``.
    commit : str
        Full commit id (40 hex digits): an origin is pinned, never a branch.
    path : str
        Path of the file inside the repository.

    Returns
    -------
    str
        ``<base>/<owner>/<name>/<commit>/<path>`` with ``<base>`` the value of
        ``SEMVAR_DATA_MIRROR`` if set, else ``https://raw.githubusercontent.com``.

    Raises
    ------
    ValueError
        A malformed ``repo``, ``commit`` or ``path``.

    Examples
    --------
    >>> github_url("octo/repo", "0" * 40, "a/b.csv").replace("0" * 40, "<commit>")
    'https://raw.githubusercontent.com/octo/repo/<commit>/a/b.csv'
    """
    _check_github(repo, commit, path)
    base = (os.environ.get("SEMVAR_DATA_MIRROR") or GITHUB_RAW).rstrip("/")
    return f"{base}/{repo}/{commit}/{path}"


def github_cache_path(repo: str, commit: str, path: str) -> Path:
    """Where :func:`fetch_github` keeps a file: ``<cache>/github/<owner>/<name>/<commit>/<path>``."""
    _check_github(repo, commit, path)
    return cache_dir() / "github" / repo / commit / path


def fetch_github(repo: str, commit: str, path: str, sha256: str | None, *, progress: bool = True) -> Path:
    """Local path of one file of a GitHub repository at a pinned commit, downloading it if needed.

    Parameters
    ----------
    repo, commit, path : str
        The file's origin; see :func:`github_url`.
    sha256 : str or None
        The file's pinned sha256 (64 lower-case hex digits).  A cached copy
        that differs is fetched again; a download that differs is deleted and
        refused.  ``None`` only where no checksum is known: the file is then
        taken as downloaded and the caller must verify its content.
    progress : bool, default True
        Show a download progress bar.

    Returns
    -------
    pathlib.Path
        The cached file, complete and (when ``sha256`` is given) verified.

    Raises
    ------
    ValueError
        A malformed argument, or downloaded bytes whose sha256 is not
        ``sha256`` (the file is deleted; nothing was read from it).
    DataNotFoundError
        The origin could not be reached or did not serve the file (no network,
        HTTP error, connection closed mid-download); the message names the URL
        and ``SEMVAR_DATA_MIRROR``.

    Notes
    -----
    The download goes to a temporary file in the cache folder and is moved to
    its name only once complete and verified (:func:`pooch.retrieve`), so an
    interrupted download (a lost connection, Ctrl-C) leaves no partial file.
    """
    if sha256 is not None and (not isinstance(sha256, str) or not _SHA256.fullmatch(sha256)):
        raise ValueError(f"sha256 must be 64 lower-case hex digits or None, got {sha256!r}")
    url = github_url(repo, commit, path)
    target = github_cache_path(repo, commit, path)
    return _fetch_url(url, target, sha256, progress=progress)


def _fetch_url(url: str, target: Path, sha256: str | None, *, progress: bool) -> Path:
    pooch = _pooch()
    import requests

    logger = pooch.get_logger()
    level = logger.level
    logger.setLevel(logging.WARNING)  # the callers say what they fetch; pooch's own lines are noise
    try:
        pooch.retrieve(
            url,
            known_hash=None if sha256 is None else f"sha256:{sha256}",
            fname=target.name,
            path=target.parent,
            downloader=pooch.HTTPDownloader(progressbar=progress, chunk_size=_CHUNK, timeout=_TIMEOUT_S),
        )
    except requests.RequestException as exc:
        mirror = os.environ.get("SEMVAR_DATA_MIRROR")
        where = (
            f"SEMVAR_DATA_MIRROR={mirror} stands in for {GITHUB_RAW}"
            if mirror
            else f"SEMVAR_DATA_MIRROR is not set (set it to a mirror that serves <owner>/<repo>/<commit>/<path> "
            f"to use one instead of {GITHUB_RAW})"
        )
        raise DataNotFoundError(f"could not fetch {url} ({type(exc).__name__}: {exc}); {where}") from exc
    except ValueError as exc:  # pooch's hash check: the download was deleted before anything read it
        raise ValueError(
            f"refused {url}: its sha256 is not the pinned {sha256}, so the download was deleted and "
            f"nothing was read from it ({exc})"
        ) from exc
    finally:
        logger.setLevel(level)
    return target
