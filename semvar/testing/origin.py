"""A folder served over HTTP on ``127.0.0.1``: a stand-in for a data set's origin.

The loaders of :mod:`semvar.data` fetch from ``<mirror>/<owner>/<repo>/<commit>/<path>``
when ``SEMVAR_DATA_MIRROR`` names a mirror.  :func:`serve_folder` serves a local
folder laid out that way, so that a test (or a reader without network) can run
the same download-and-check path that an online machine runs, against files it
controls.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import threading
from collections.abc import Iterator
from pathlib import Path

__all__ = ["serve_folder"]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # no request log on stderr
        pass


@contextlib.contextmanager
def serve_folder(root: str | os.PathLike) -> Iterator[str]:
    """Serve the files below ``root`` on ``127.0.0.1`` for the duration of a ``with`` block.

    Parameters
    ----------
    root : path-like
        An existing folder; ``<url>/a/b.csv`` answers with ``root/a/b.csv``,
        a missing file with HTTP 404.

    Yields
    ------
    str
        The base URL, ``http://127.0.0.1:<port>`` (a free port chosen by the system).

    Raises
    ------
    ValueError
        If ``root`` is not a folder.

    Examples
    --------
    >>> import tempfile, urllib.request
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = (Path(d) / "hello.txt").write_text("hi")
    ...     with serve_folder(d) as url:
    ...         urllib.request.urlopen(f"{url}/hello.txt").read()
    b'hi'
    """
    root = Path(root)
    if not root.is_dir():
        raise ValueError(f"root={str(root)!r} is not a folder")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(root)))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
