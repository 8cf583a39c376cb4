"""A persistent, thread-safe SQLite store of finished judge calls.

Every finished call is committed before the caller moves on, keyed by model,
prompt template and the *ordered* text pair, so an interrupted run resumes
without repeating or losing a completed call and a warm cache sends no
request at all.

One cache, one truth: a verdict is stored once and never changed, and
:meth:`VerdictCache.put` returns the verdict the cache holds after the write,
so two processes that share a file and judge the same pair at the same time
both return the first verdict stored.  A short-lived *claim* on a key tells
other processes that a call is in flight, so they can wait for its verdict
instead of repeating it.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import socket
import sqlite3
import threading
import time
from collections.abc import Sequence

__all__ = ["VerdictCache", "CacheError", "owner_id"]

_COLUMNS = {
    "verdicts": ["key", "model", "template_sha", "text_a", "text_b", "verdict", "answer", "created"],
    "templates": ["sha", "template"],
    "claims": ["key", "owner", "expires"],
}


def owner_id() -> str:
    """``host:pid:random``: who holds a claim, and how to tell that it died (same host, no such process)."""
    return f"{socket.gethostname()}:{os.getpid()}:{random.getrandbits(48):012x}"


def _gone(owner: str) -> bool:
    """True if ``owner`` (see :func:`owner_id`) is a process of this host that no longer runs."""
    rest = owner.split(":")
    if os.name != "posix" or len(rest) < 3 or ":".join(rest[:-2]) != socket.gethostname():
        return False
    try:
        pid = int(rest[-2])
    except ValueError:
        return False
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # it exists but belongs to someone else
        return False
    return False


class CacheError(RuntimeError):
    """The cache file cannot be used (corrupted, read-only, another program's, locked); the message names it."""


def _describe(path: str, exc: sqlite3.Error, lock_timeout: float) -> str:
    """A message for a SQLite error on ``path`` that says what went wrong and what to do."""
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        return (
            f"the cache {path} stayed locked by another process for {lock_timeout:g} s (waited that long). "
            "Wait for the other run to finish, or give this run its own --cache file."
        )
    if "readonly" in text or "read-only" in text:
        return (
            f"cannot write to the cache {path}: it is read-only (the file or its folder). Make it writable, "
            "or give another --cache file."
        )
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return (
            f"the cache {path} is not a usable SQLite database ({exc}). If it is a damaged cache, move it "
            "away or delete it (its calls will be made again); otherwise give another --cache file."
        )
    if "unable to open" in text:
        folder = os.path.dirname(os.path.abspath(path))
        where = "does not exist" if not os.path.isdir(folder) else "cannot be written"
        return f"cannot open the cache {path}: its folder {folder} {where}."
    if "disk" in text or "full" in text or "i/o" in text:
        return f"cannot write to the cache {path} ({exc}); check the disk it is on."
    return f"the cache {path} failed: {exc}"


class VerdictCache:
    """A persistent, thread-safe store of finished judge calls (SQLite).

    A row is keyed by the SHA-256 of ``(model, template, text_a, text_b)``
    and holds the verdict and the raw answer.  Each :meth:`put` is its own
    committed transaction (write-ahead log), so a process that is killed
    loses at most the calls that had not finished.  Several processes may
    share one file: the first verdict stored for a key is kept, and
    :meth:`put` returns it, so every process returns what the cache holds.

    Parameters
    ----------
    path : str or os.PathLike
        The SQLite file (created if absent; its folder must exist).
    lock_timeout : float, default=30.0
        Seconds to wait for another process's write lock before giving up
        with a :class:`CacheError`.

    Raises
    ------
    CacheError
        The file is not a SQLite database, holds tables of another program,
        is read-only, stays locked, or its folder does not exist; the message
        names the path and what to do.  Later, :meth:`get_many`, :meth:`put`
        and :meth:`claim` raise it for a stored verdict other than 0 or 1
        (naming the file and the row's key): such a file was changed by
        something else and is refused, never read as TRUE.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "verdicts.sqlite")
    >>> cache = VerdictCache(path)
    >>> key = VerdictCache.key("model", "{text_A} / {text_B}", "a cat", "one cat")
    >>> cache.put(key, "model", "sha", "a cat", "one cat", True, "TRUE.")
    True
    >>> cache.put(key, "model", "sha", "a cat", "one cat", False, "FALSE.")  # the first verdict stays
    True
    >>> cache.get_many([key, "no-such-key"]) == {key: True}, len(cache)
    (True, 1)
    >>> cache.close()
    """

    def __init__(self, path: str | os.PathLike, *, lock_timeout: float = 30.0):
        self.path = os.fspath(path)
        self.lock_timeout = float(lock_timeout)
        self._lock = threading.Lock()
        self._con = None
        if os.path.isdir(self.path):
            raise CacheError(f"the cache {self.path} is a folder; give a file name, e.g. {self.path}/judge.sqlite")
        try:
            # a new cache is created readable and writable by its owner only: it holds the texts
            # (SQLite gives its -wal and -shm files the same mode)
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        except OSError:
            pass  # a missing folder or no permission: sqlite3 says so below, in its terms
        else:
            os.close(fd)
        try:
            self._con = sqlite3.connect(
                self.path, timeout=self.lock_timeout, isolation_level=None, check_same_thread=False
            )
            self._setup()
        except sqlite3.Error as exc:
            if self._con is not None:
                self._con.close()
            raise CacheError(_describe(self.path, exc, self.lock_timeout)) from None

    def _setup(self) -> None:
        con = self._con
        assert con is not None  # opened by the caller just before
        # fails on a file that is not a database; a database with tables of another program is left untouched
        tables = [
            row[0] for row in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if not row[0].startswith("sqlite_")
        ]
        foreign = sorted(set(tables) - set(_COLUMNS))
        if foreign:
            raise CacheError(
                f"the cache {self.path} is a SQLite database of another program (it has the tables "
                f"{', '.join(map(repr, foreign[:5]))}{', ...' if len(foreign) > 5 else ''}); it was not changed. "
                "Give --cache a new file name, or a file this program wrote."
            )
        try:
            con.execute("PRAGMA journal_mode=WAL")
            con.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.OperationalError as exc:  # pragma: no cover - e.g. a file system without shared memory
            if "locked" in str(exc) or "readonly" in str(exc):
                raise
        con.execute(
            "CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, model TEXT NOT NULL, "
            "template_sha TEXT NOT NULL, text_a TEXT NOT NULL, text_b TEXT NOT NULL, "
            "verdict INTEGER NOT NULL, answer TEXT, created REAL NOT NULL)"
        )
        con.execute("CREATE TABLE IF NOT EXISTS templates (sha TEXT PRIMARY KEY, template TEXT NOT NULL)")
        con.execute("CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, owner TEXT NOT NULL, expires REAL NOT NULL)")
        for table, expected in _COLUMNS.items():
            got = [row[1] for row in con.execute(f"PRAGMA table_info({table})")]
            if got != expected:
                raise CacheError(
                    f"the cache {self.path} has a table {table!r} with the columns {got}, not {expected}: it was "
                    "written by another program or version. Give another --cache file, or move this one away."
                )

    def _run(self, fn):
        """Run ``fn(connection)`` under the lock; SQLite errors become a CacheError naming the file."""
        with self._lock:
            if self._con is None:
                raise CacheError(f"the cache {self.path} is closed")
            try:
                return fn(self._con)
            except BaseException as exc:  # a SQLite error, or a CacheError of fn: no transaction is left open
                if self._con is not None and self._con.in_transaction:
                    try:
                        self._con.execute("ROLLBACK")
                    except sqlite3.Error:  # pragma: no cover
                        pass
                if isinstance(exc, sqlite3.Error):
                    raise CacheError(_describe(self.path, exc, self.lock_timeout)) from None
                raise

    def _verdict(self, key: str, value) -> bool:
        """The stored ``value`` of ``key`` as a verdict; anything but the integers 0 and 1 is a CacheError.

        :meth:`put` writes 0 (FALSE) or 1 (TRUE) and nothing else (an unjudged
        call is never stored), so any other value -- ``'FALSE'``, ``-1``, ``2``,
        ``0.5``, NULL -- was written by something else, and the file is not
        trusted.
        """
        if type(value) is int and value in (0, 1):
            return bool(value)
        raise CacheError(
            f"the cache {self.path} holds the verdict {value!r} in the row with key {key} (table verdicts), but a "
            "verdict is stored as 0 or 1 (FALSE or TRUE) and nothing else: the file was changed by another program "
            "or by hand, so it is not trusted. Move it away or delete it (its calls will be made again), or give "
            "another --cache file."
        )

    @staticmethod
    def key(model: str, template: str, text_a: str, text_b: str, *, server: str | None = None,
            options: str = "") -> str:
        """The cache key of one ordered pair (asked of ``server``, a base URL, when given).

        :class:`~semvar.llm.LLMJudge` always passes its base URL, so two
        servers that both call a model ``"gpt"`` never share verdicts, and
        ``options``, how the verdict was asked for (a constrained answer, a
        soft verdict and its threshold; "" for a free answer, whose keys are
        those of earlier versions).  Texts are encoded as JSON with ASCII
        escapes, so every Python string has a key (a lone surrogate included;
        the judge refuses those earlier).
        """
        parts = [model, template, text_a, text_b] if server is None else [server, model, template, text_a, text_b]
        if options:
            parts.append(options)
        return hashlib.sha256(json.dumps(parts).encode("ascii")).hexdigest()

    def add_template(self, template: str) -> str:
        sha = hashlib.sha256(template.encode("utf-8")).hexdigest()
        self._run(lambda con: con.execute("INSERT OR IGNORE INTO templates VALUES (?, ?)", (sha, template)))
        return sha

    def get_many(self, keys: Sequence[str]) -> dict[str, bool]:
        """Verdicts stored for those of ``keys`` that are present.

        Raises
        ------
        CacheError
            A stored verdict that is not 0 or 1 (the file was changed by
            something else; the message names the file and the row's key), or
            the file cannot be read.
        """
        return {k: self._verdict(k, v) for k, v in self._column(keys, "verdict")}

    def get_answers(self, keys: Sequence[str]) -> dict[str, str]:
        """The raw answers stored for those of ``keys`` that are present (a soft verdict's probability is there)."""
        return {k: a for k, a in self._column(keys, "answer") if isinstance(a, str)}

    def _column(self, keys: Sequence[str], column: str) -> list[tuple[str, object]]:
        """``(key, value of column)`` for those of ``keys`` that are stored, read 500 keys a query."""
        keys = list(keys)

        def read(con):
            out = []
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                marks = ",".join("?" * len(chunk))
                out += con.execute(f"SELECT key, {column} FROM verdicts WHERE key IN ({marks})", chunk).fetchall()
            return out

        return self._run(read)

    def put(self, key: str, model: str, template_sha: str, text_a: str, text_b: str, verdict: bool, answer: str) -> bool:
        """Store one finished call (committed before returning) and return the verdict the cache now holds.

        That is ``verdict``, unless another process stored this key first: then
        its verdict, which stays.  The claim on ``key`` (if any) is released in
        the same transaction.
        """

        def write(con):
            con.execute("BEGIN IMMEDIATE")
            con.execute(
                "INSERT OR IGNORE INTO verdicts VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (key, model, template_sha, text_a, text_b, int(bool(verdict)), answer[:2000], time.time()),
            )
            stored = self._verdict(key, con.execute("SELECT verdict FROM verdicts WHERE key = ?", (key,)).fetchone()[0])
            con.execute("DELETE FROM claims WHERE key = ?", (key,))
            con.execute("COMMIT")
            return stored

        return self._run(write)

    def claim(self, key: str, owner: str, seconds: float) -> tuple[str, bool | None]:
        """Claim ``key`` for ``seconds`` unless it is stored or claimed by another owner whose claim still holds.

        Returns ``("stored", verdict)``, ``("claimed", None)`` (the caller may
        make the call; its own claim is renewed) or ``("busy", None)``
        (another process is making it).  The claim of a process of this host
        that no longer runs (killed mid-call) is taken over at once.
        """

        def write(con):
            now = time.time()
            con.execute("BEGIN IMMEDIATE")
            row = con.execute("SELECT verdict FROM verdicts WHERE key = ?", (key,)).fetchone()
            if row is not None:
                stored = self._verdict(key, row[0])
                con.execute("COMMIT")
                return "stored", stored
            held = con.execute("SELECT owner, expires FROM claims WHERE key = ?", (key,)).fetchone()
            if held is not None and held[0] != owner and held[1] >= now and not _gone(held[0]):
                con.execute("COMMIT")
                return "busy", None
            con.execute("INSERT OR REPLACE INTO claims VALUES (?, ?, ?)", (key, owner, now + seconds))
            con.execute("COMMIT")
            return "claimed", None

        return self._run(write)

    def release(self, key: str, owner: str) -> None:
        """Drop ``owner``'s claim on ``key`` (after a call that ended without a verdict)."""
        self._run(lambda con: con.execute("DELETE FROM claims WHERE key = ? AND owner = ?", (key, owner)))

    def __len__(self) -> int:
        return int(self._run(lambda con: con.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0]))

    def close(self, *, wait: float | None = None) -> None:
        """Close the file.  With ``wait``, give up (leaving it open) if another thread holds it that long."""
        if not self._lock.acquire(timeout=-1 if wait is None else wait):
            return
        try:
            if self._con is not None:
                self._con.close()
                self._con = None
        finally:
            self._lock.release()

    def __repr__(self) -> str:
        return f"VerdictCache({self.path!r})"
