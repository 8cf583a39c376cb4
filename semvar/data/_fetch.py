"""Fetching a data file from its origin: download, verify, cache.

Every file that lives in a public GitHub repository is named by
``(repo, commit, path)`` and fetched from
``https://raw.githubusercontent.com/<owner>/<repo>/<commit>/<path>`` with
:mod:`pooch` (its :class:`pooch.HTTPDownloader`): the bytes go to a temporary file beside the target, their sha256
is compared with the pinned value, and only a file that matches is moved into
place, so an interrupted or corrupted download never leaves a file behind.
Files are cached under ``<cache>/github/<owner>/<repo>/<commit>/<path>``,
where ``<cache>`` is ``$SEMVAR_CACHE_DIR`` or else the platform's user cache
folder (``pooch.os_cache("semvar")``, e.g. ``~/.cache/semvar`` on Linux).

``SEMVAR_DATA_MIRROR=URL`` replaces ``https://raw.githubusercontent.com`` for
every GitHub origin; the mirror must serve the same layout
``<owner>/<repo>/<commit>/<path>``.  The pinned checksums still apply, so a
mirror cannot substitute other bytes.  Messages show the mirror with any
``user:password@`` and query values blanked out (:func:`semvar._redact.redact`).

A download has a deadline for the whole file, not only for each read:
``SEMVAR_FETCH_DEADLINE`` seconds (default 600).  A server that trickles its
bytes out is cut off then, and the temporary file is deleted.

A download takes the file's bytes as they are: it asks for
``Accept-Encoding: identity`` and refuses an answer sent with any other
``Content-Encoding`` (gzip, deflate, br, ...) rather than decode it, so a
few kilobytes cannot inflate into gigabytes on disk before the sha256 check.
It stops, and deletes what it wrote, as soon as the server sends more than
the file's pinned size (or announces more with ``Content-Length``); a file
without a pinned size may have at most 64 MiB.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from typing import Any

from .._redact import redact
from ._paths import DataNotFoundError, _check_data_dir, _not_found, _verify_checksum, find_data_dir

GITHUB_RAW = "https://raw.githubusercontent.com"
"""The host that serves raw files of public GitHub repositories."""

_TIMEOUT_S = 60
#: seconds one download may take in all (connect, headers and the whole body); SEMVAR_FETCH_DEADLINE overrides
_DEADLINE_S = 600.0
_CHUNK = 1 << 16
#: bytes a download may have when the file's size is not pinned (every file pinned so far is under 5 MB)
_MAX_BYTES = 64 << 20
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
        This is the URL as it may be shown: a mirror's ``user:password@`` and
        query values are blanked out (``***``); :func:`fetch_github` sends
        the full one.

    Raises
    ------
    ValueError
        A malformed ``repo``, ``commit`` or ``path``.

    Examples
    --------
    >>> github_url("octo/repo", "0" * 40, "a/b.csv").replace("0" * 40, "<commit>")
    'https://raw.githubusercontent.com/octo/repo/<commit>/a/b.csv'
    """
    return redact(_github_url_full(repo, commit, path))


def _github_url_full(repo: str, commit: str, path: str) -> str:
    """The URL :func:`fetch_github` requests, credentials of a mirror included: never put it in a message."""
    _check_github(repo, commit, path)
    base = (os.environ.get("SEMVAR_DATA_MIRROR") or GITHUB_RAW).rstrip("/")
    return f"{base}/{repo}/{commit}/{path}"


def github_cache_path(repo: str, commit: str, path: str) -> Path:
    """Where :func:`fetch_github` keeps a file: ``<cache>/github/<owner>/<name>/<commit>/<path>``."""
    _check_github(repo, commit, path)
    return cache_dir() / "github" / repo / commit / path


def fetch_github(
    repo: str, commit: str, path: str, sha256: str | None, *, progress: bool = True, size: int | None = None
) -> Path:
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
    progress : bool, default=True
        Show a download progress bar.
    size : int, optional
        The file's pinned size in bytes.  A server that announces another
        length, or sends more bytes, is cut off and its download deleted.
        Without it a download may have at most 64 MiB.

    Returns
    -------
    pathlib.Path
        The cached file, complete and (when ``sha256`` is given) verified.

    Raises
    ------
    ValueError
        A malformed argument, or a download refused: bytes whose sha256 is
        not ``sha256``, an answer sent with a ``Content-Encoding`` other than
        identity (never decoded), more bytes than ``size`` (or than 64 MiB
        without it), or a ``Content-Length`` that says so.  The download is
        deleted; nothing was read from it.
    DataNotFoundError
        The origin could not be reached or did not serve the file (no network,
        HTTP error, connection closed mid-download); the message names the URL
        and ``SEMVAR_DATA_MIRROR``.

    Notes
    -----
    The download goes to a temporary file in the cache folder and is moved to
    its name only once complete and verified (:func:`pooch.retrieve`), so an
    interrupted download (a lost connection, Ctrl-C) leaves no partial file.
    The bytes are taken as sent (``Accept-Encoding: identity``), so what is
    written is what the sha256 and the size describe.
    """
    if sha256 is not None and (not isinstance(sha256, str) or not _SHA256.fullmatch(sha256)):
        raise ValueError(f"sha256 must be 64 lower-case hex digits or None, got {sha256!r}")
    if size is not None and (not isinstance(size, int) or isinstance(size, bool) or size < 0):
        raise ValueError(f"size must be None or a whole number of bytes >= 0, got {size!r}")
    url = _github_url_full(repo, commit, path)
    target = github_cache_path(repo, commit, path)
    return _fetch_url(url, target, sha256, progress=progress, size=size)


def _deadline() -> float:
    """Seconds a download may take in all: ``$SEMVAR_FETCH_DEADLINE``, else 600."""
    raw = os.environ.get("SEMVAR_FETCH_DEADLINE")
    if not raw:
        return _DEADLINE_S
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0.0 < value <= 1e6:
        raise ValueError(f"SEMVAR_FETCH_DEADLINE must be a number of seconds in (0, 1e6], got {raw!r}")
    return value


def _shut_response(resp) -> None:
    """Shut down the socket a ``requests`` response reads from: a read blocked on it returns at once."""
    import socket

    raw = getattr(resp, "raw", None)
    candidates = [getattr(getattr(raw, "_connection", None), "sock", None)]
    fp = getattr(raw, "_fp", None)  # the http.client response under urllib3
    candidates.append(getattr(getattr(getattr(fp, "fp", None), "raw", None), "_sock", None))
    for sock in candidates:
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class _Refused(Exception):
    """An answer refused as it arrives: a Content-Encoding other than identity, or more bytes than allowed."""


def _check_answer(headers, size: int | None) -> tuple[int, int | None]:
    """The most bytes the answer with ``headers`` may have, and its Content-Length (None if not given).

    Raises ``_Refused`` for an answer with a Content-Encoding other than
    identity, or one announced longer than allowed (or, with a pinned size,
    of another length).
    """
    encoding = (headers.get("Content-Encoding") or "").strip().lower() or "identity"
    if encoding != "identity":
        raise _Refused(
            f"the server sent it with Content-Encoding {headers.get('Content-Encoding')!r} although the bytes as "
            "they are (identity) were asked for; a compressed answer is not decoded, since a few kilobytes can "
            "inflate into gigabytes (a mirror must serve the files as they are)"
        )
    limit = _MAX_BYTES if size is None else size
    try:
        announced = int(headers.get("Content-Length"))
    except (TypeError, ValueError):
        return limit, None
    if size is not None and announced != size:
        raise _Refused(f"the server announces {announced} bytes (Content-Length), but the pinned file has {size}")
    if announced > limit:
        raise _Refused(
            f"the server announces {announced} bytes, more than {limit}, the most a file without a pinned size "
            "may have"
        )
    return limit, announced


def _too_long(limit: int, size: int | None) -> _Refused:
    if size is not None:
        return _Refused(f"the server sent more than the {size} bytes of the pinned file")
    return _Refused(
        f"the server sent more than {limit} bytes, the most a file without a pinned size may have (give "
        "fetch_github the file's size to allow more)"
    )


class _CappedFile:
    """The file a download writes: refuses (``_Refused``) to take more than ``limit`` bytes, or anything once cancelled."""

    def __init__(self, fh, limit: int, size: int | None, cancel) -> None:
        self.fh = fh
        self.limit = limit
        self.size = size
        self.cancel = cancel
        self.written = 0

    def write(self, chunk: bytes) -> int:
        if self.cancel.is_set():
            raise _Refused("cancelled at the deadline")
        self.written += len(chunk)
        if self.written > self.limit:
            raise _too_long(self.limit, self.size)
        return self.fh.write(chunk)

    def flush(self) -> None:
        self.fh.flush()


class _Download:
    """pooch's downloader (:class:`pooch.HTTPDownloader`) with a *total* deadline and a cap on what it writes.

    A per-read timeout does not bound a download: a server that sends one byte
    every second keeps every read short and the download alive for days.  The
    download runs in a worker thread; at the deadline the socket is shut down
    (which ends any read at once), the worker stops, and
    ``requests.exceptions.Timeout`` is raised, upon which pooch deletes its
    temporary file.  The worker writes through a file handle opened here, so it
    never creates a file after pooch has removed it.

    The answer is taken as sent: ``Accept-Encoding: identity`` is asked for,
    and a response hook refuses another ``Content-Encoding`` (before any byte
    of the body is read, so nothing is decoded) and a ``Content-Length`` other
    than the pinned size; the file refuses to take more than ``size`` bytes
    (``_MAX_BYTES`` when the size is not pinned).  A refusal raises ``_Refused``.
    """

    def __init__(self, deadline: float, *, progress: bool, size: int | None = None):
        self.deadline = deadline
        self.progress = progress
        self.size = size

    def __call__(self, url: str, output_file: str, pooch_obj: Any = None) -> None:
        import threading

        import requests

        pooch = _pooch()
        cancel = threading.Event()
        state: dict[str, Any] = {"resp": None, "error": None}
        fh = open(output_file, "wb")  # noqa: SIM115 - closed by the worker
        out = _CappedFile(fh, _MAX_BYTES if self.size is None else self.size, self.size, cancel)
        bar: Any = False
        if self.progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=0, unit="B", unit_scale=True, leave=False)

        def check(resp: Any, *args: Any, **kwargs: Any) -> Any:
            """Response hook: runs once the headers are in, before the body is read."""
            state["resp"] = resp
            if resp.ok:
                try:
                    if cancel.is_set():
                        raise _Refused("cancelled at the deadline")
                    out.limit, _ = _check_answer(resp.headers, self.size)
                except _Refused:
                    resp.close()
                    raise
            return resp

        download = pooch.HTTPDownloader(
            progressbar=bar, chunk_size=_CHUNK, timeout=min(_TIMEOUT_S, self.deadline),
            headers={"Accept-Encoding": "identity"}, hooks={"response": check},
        )

        def work() -> None:
            try:
                download(url, out, pooch_obj)
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                state["error"] = exc
            finally:
                fh.close()

        worker = threading.Thread(target=work, name="semvar-fetch", daemon=True)
        worker.start()
        worker.join(self.deadline)
        if worker.is_alive():
            cancel.set()
            if state["resp"] is not None:
                _shut_response(state["resp"])
            worker.join(1.0)
            if bar is not False:
                bar.close()
            raise requests.exceptions.Timeout(
                f"the download did not finish within {self.deadline:g} s in all (a deadline for the whole file, "
                "set by SEMVAR_FETCH_DEADLINE)"
            )
        if bar is not False:
            bar.close()
        if state["error"] is not None:
            raise state["error"]


def _fetch_url(url: str, target: Path, sha256: str | None, *, progress: bool, size: int | None = None) -> Path:
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
            downloader=_Download(_deadline(), progress=progress, size=size),
        )
    except _Refused as exc:  # the temporary file was deleted by pooch
        raise ValueError(redact(f"refused {url}: {exc}; the download was deleted and nothing was read from it")) from None
    except requests.RequestException as exc:
        mirror = os.environ.get("SEMVAR_DATA_MIRROR")
        where = (
            f"SEMVAR_DATA_MIRROR={mirror} stands in for {GITHUB_RAW}"
            if mirror
            else f"SEMVAR_DATA_MIRROR is not set (set it to a mirror that serves <owner>/<repo>/<commit>/<path> "
            f"to use one instead of {GITHUB_RAW})"
        )
        # the one redaction: a mirror URL may carry user:password@ or a ?token=
        raise DataNotFoundError(redact(f"could not fetch {url} ({type(exc).__name__}: {exc}); {where}")) from None
    except ValueError as exc:  # pooch's hash check: the download was deleted before anything read it
        raise ValueError(redact(
            f"refused {url}: its sha256 is not the pinned {sha256}, so the download was deleted and "
            f"nothing was read from it ({exc})"
        )) from None
    finally:
        logger.setLevel(level)
    return target


# --------------------------------------------------------------------------- files pinned at a commit, for the loaders

def _pinned_howto(origin: dict, title: str) -> str:
    """How to obtain the files of ``origin`` (online and offline), for the error messages."""
    urls = ", ".join(github_url(origin["repo"], origin["commit"], p) for p, *_ in origin["files"].values())
    names = ", ".join(origin["files"])
    return (
        f"{title} is released at {urls} ({origin['licence']}; SEMVAR_DATA_MIRROR replaces the host). Online it is "
        f"fetched, verified and cached automatically; offline, put {names} in a folder {origin['subdir']}/ under "
        "SEMVAR_DATA_DIR. A file from another commit has other bytes and is refused"
    )


def _pinned_files(origin: dict, data_dir, title: str, *, progress: bool = False,
                  stacklevel: int = 3) -> tuple[dict[str, Path], str]:
    """Verified local paths of an origin's files, and where they came from (a folder, or the origin).

    ``origin`` is a loader's ``*_ORIGIN`` dict (``repo``, ``commit``,
    ``licence``, ``subdir`` and ``files``: local name -> (path in the
    repository, sha256) or (path, sha256, size in bytes); a size caps what a
    download may write, see :func:`fetch_github`).  The data-directory rule: the first data directory
    holding every file (each verified against its pinned sha256), else the
    cache of earlier fetches, else the pinned GitHub origin
    (:func:`fetch_github`, which verifies and caches); a warning
    (``stacklevel`` as :func:`warnings.warn` takes it) says when the data
    directories did not have the files.
    """
    import warnings

    files = list(origin["files"])
    howto = _pinned_howto(origin, title)
    folder = find_data_dir(origin["subdir"], files, data_dir)
    if folder is not None:
        paths = {f: folder / f for f in files}
        for f, path in paths.items():
            _verify_checksum(path, origin["files"][f][1], howto)
        return paths, str(folder)
    warnings.warn(
        f"{title} is in no data directory; fetching it from {origin['repo']} at commit {origin['commit'][:12]} "
        "(reusing any already cached copy)",
        stacklevel=stacklevel,
    )
    try:
        paths = {f: fetch_github(origin["repo"], origin["commit"], p, sha, progress=progress,
                                 size=size[0] if size else None)
                 for f, (p, sha, *size) in origin["files"].items()}
    except DataNotFoundError as exc:
        raise _not_found(title, origin["subdir"], files, data_dir, howto, exc) from None
    return paths, f"{origin['repo']}@{origin['commit']}"


def _load_pinned(origin: dict, data_dir, title: str, frame, *, progress: bool = False):
    """The steps every loader of files pinned at a commit shares around its own parsing.

    Checks ``data_dir``, locates and verifies the files (:func:`_pinned_files`),
    calls ``frame(paths) -> (DataFrame, attrs)`` (the loader's parsing: the
    frame and what it reports, e.g. ``{"report": ...}``), puts ``attrs`` on the
    frame and, last, ``attrs["source"]``: where the files were read.
    """
    _check_data_dir(data_dir)
    paths, source = _pinned_files(origin, data_dir, title, progress=progress, stacklevel=4)
    df, attrs = frame(paths)
    df.attrs.update(attrs)
    df.attrs["source"] = source
    return df
