"""Helpers shared by the tests of the loaders: a stand-in origin, crafted pickles, the pinned origins' copies."""

from __future__ import annotations

import http.server
import os
import pickle
import shutil
import threading
from pathlib import Path

import numpy as np

from semvar import data


class _System:
    def __init__(self, command):
        self.command = command

    def __reduce__(self):
        return os.system, (self.command,)


class _Exec:
    def __init__(self, code):
        self.code = code

    def __reduce__(self):
        return exec, (self.code,)


class _NumpyOther:
    def __reduce__(self):  # a numpy callable, but not array reconstruction
        return np.save, ("x.npy", np.zeros(1))


def malicious_pickles(marker: Path) -> dict[str, bytes]:
    """Pickle streams that a plain unpickler would run; each one would create the file ``marker``."""
    # each one, loaded by plain pickle.load, would create the marker file
    array = np.zeros(6, dtype=np.float32)
    return {
        "os.system": pickle.dumps([{"id": 0, "logits_options": array}, _System(f"touch {marker}")], protocol=4),
        "exec": pickle.dumps({"x": _Exec(f"open({str(marker)!r}, 'w').close()")}, protocol=2),
        "numpy.save": pickle.dumps([_NumpyOther()], protocol=4),
    }


class Origin:
    """A local stand-in for raw.githubusercontent.com, serving the byte-exact copies in ye2024/raw."""

    def __init__(self, raw: Path | None = None):
        self.raw = raw
        self.requests: list[str] = []
        self.overrides: dict[str, bytes] = {}  # origin path -> bytes served instead
        self.cut: set[str] = set()  # origin paths whose body stops half-way
        self.trickle: dict[str, tuple[float, bool]] = {}  # origin path -> (seconds between bytes, headers too)
        self.trickled = 0  # bytes sent by trickling answers
        self.headers: dict[str, dict[str, str]] = {}  # origin path -> headers sent with it (Content-Length replaced)
        self.endless: set[str] = set()  # origin paths whose body goes on (zeros, no Content-Length) until the client leaves
        self.sent = 0  # bytes of endless answers sent
        self.asked_with: list[dict[str, str]] = []  # the headers of each request
        self.stop = threading.Event()
        origin = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                origin.requests.append(self.path)
                origin.asked_with.append(dict(self.headers.items()))
                prefix = f"/{data.YE_REPO}/{data.YE_COMMIT}/"
                rel = self.path[len(prefix):] if self.path.startswith(prefix) else None
                body = origin.overrides.get(rel)
                if body is None and rel is not None and rel.count("/") == 1 and origin.raw is not None:
                    copy = origin.raw / rel.split("/")[1]
                    body = copy.read_bytes() if copy.is_file() else None
                if body is None:
                    self.send_error(404)
                    return
                if rel in origin.trickle:  # one byte every gap seconds, until the client leaves
                    gap, head_too = origin.trickle[rel]
                    head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n\r\n".encode()
                    self.close_connection = True
                    try:
                        if not head_too:
                            self.wfile.write(head)
                        for byte in (head if head_too else b"") + body:
                            self.wfile.write(bytes([byte]))
                            self.wfile.flush()
                            origin.trickled += 1
                            if origin.stop.wait(gap):
                                return
                    except OSError:
                        pass
                    return
                if rel in origin.endless:
                    self._endless(body)
                    return
                extra = dict(origin.headers.get(rel, {}))
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Length", extra.pop("Content-Length", str(len(body))))
                for name, value in extra.items():
                    self.send_header(name, value)
                self.end_headers()
                if rel in origin.cut:
                    self.wfile.write(body[: len(body) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(body)

            def _endless(self, body):  # the body, then zeros for ever (until the client leaves or the test ends)
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                zeros = bytes(1 << 16)
                try:
                    self.wfile.write(body)
                    origin.sent += len(body)
                    while not origin.stop.is_set():
                        self.wfile.write(zeros)
                        origin.sent += len(zeros)
                except OSError:
                    pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def close(self):
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def cache_files(folder: Path) -> list[Path]:
    """Every file under ``folder`` (none if it does not exist): what a fetch left in the cache."""
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


# --------------------------------------------------------------------------- the loaders of files pinned at a commit

def pinned_loaders() -> dict:
    """Every loader of files pinned at a commit, from the origin tables: ``semvar.data.<NAME>_ORIGIN`` (a table with
    a ``subdir``) and its loader ``semvar.data.load_<subdir>`` (a table without one is an error here, not a skip)."""
    found = {}
    for name in sorted(vars(data)):
        origin = getattr(data, name)
        if name.endswith("_ORIGIN") and isinstance(origin, dict) and "subdir" in origin:
            found[origin["subdir"]] = (origin, getattr(data, f"load_{origin['subdir']}"))
    return found


ORIGINS = pinned_loaders()
# the offline copies, located when this module is imported, before any test changes the environment
# (a SHA256SUMS beside the files is checked where the copy has one: not every shared folder ships it)
FOUND = {k: data.find_data_dir(o["subdir"], list(o["files"])) for k, (o, _) in ORIGINS.items()}


def real_folder(require_data, key):
    """The folder of the offline copy of loader ``key``'s files (skip or fail through ``require_data`` if absent)."""
    if FOUND[key] is not None:
        return FOUND[key]
    origin = ORIGINS[key][0]
    return require_data(origin["subdir"], list(origin["files"]))


def copy_folder(src, dst_root, origin):
    """A writable copy of a data folder under ``dst_root/<subdir>``."""
    dst = dst_root / origin["subdir"]
    dst.mkdir(parents=True)
    for name in origin["files"]:
        shutil.copyfile(src / name, dst / name)
    return dst


def pin_sha256(monkeypatch, origin, name, path):
    """Pin the sha256 of a rewritten file, so that the test reaches the content checks."""
    monkeypatch.setitem(origin["files"], name, (origin["files"][name][0], data._paths._sha256(path)))
