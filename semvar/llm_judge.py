"""An LLM as the judge ``e(t_i, t_j)``: any OpenAI-compatible chat endpoint.

Liu (2025, section 2.1 and appendix C) asks a language model, for every pair
of texts, whether each implies the other, and reads the verdict from the first
word of the answer: ``TRUE`` or ``FALSE``.  :class:`LLMJudge` does this
against any server that speaks the OpenAI chat-completions protocol (OpenAI,
Azure's OpenAI-compatible endpoint, vLLM, llama.cpp's ``llama-server``,
Ollama, ...), and behaves like client code that has to survive a long run:

- both appendix C prompts are built in (``"liu2025"`` and
  ``"liu2025_format"``); a custom template with ``{text_A}`` and ``{text_B}``
  may be given;
- an answer that does not start with TRUE or FALSE is asked again; when the
  retries run out the pair is *unjudged* and masked in the returned
  :class:`numpy.ma.MaskedArray` -- never silently read as FALSE;
- HTTP 5xx, 408, 409, 425 and 429 (honouring ``Retry-After``), timeouts,
  connection resets and malformed JSON are retried with exponential backoff
  and full jitter; HTTP 401/403 and a wrong base URL stop the run at once
  with a message that says what to check;
- at most ``concurrency`` requests are in flight (one keep-alive connection
  per worker thread);
- every finished call is committed to a SQLite cache before the worker starts
  its next call, keyed by model, prompt template and the *ordered* text pair,
  so an interrupted run resumes without repeating or losing a completed call
  and a warm cache sends no request at all;
- the API key (argument or ``OPENAI_API_KEY``) is sent only in the
  ``Authorization`` header: it is never logged, cached, shown in a ``repr``
  or in an error message.

Only the standard library is used for HTTP (:mod:`http.client`,
:mod:`concurrent.futures`), so no dependency is added.  Proxies are taken from
the usual environment variables (``HTTPS_PROXY``, ``HTTP_PROXY``,
``NO_PROXY``); loopback hosts are always reached directly.
"""

from __future__ import annotations

import email.utils
import hashlib
import http.client
import json
import logging
import os
import random
import re
import socket
import sqlite3
import ssl
import textwrap
import urllib.request
from base64 import b64encode
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from typing import Sequence
from urllib.parse import urlsplit

import numpy as np

from ._validation import check_int, check_real
from .graph import _check_pairs

__all__ = [
    "LLMJudge",
    "PROMPTS",
    "parse_verdict",
    "render_prompt",
    "VerdictCache",
    "JudgeStats",
    "LLMJudgeError",
    "AuthenticationError",
    "EndpointError",
]

logger = logging.getLogger(__name__)

# The two prompts of Liu (2025, appendix C), word for word (including the
# paper's own grammar), with the paper's code indentation removed.  The first
# was used for Phi-3-mini-4k-instruct, AI21-Jamba-1.5-Mini and
# Cohere-command-r-08-2024; the second, which adds a FORMAT section, for
# Ministral-3B, Llama-3.3-70B-Instruct and gpt-35-turbo.
_LIU2025 = textwrap.dedent(
    """\
    You are a expert in logical deduction and you are given 2 piece of texts: TEXT A and TEXT B.
    You are to identify if TEXT A implies TEXT B and TEXT B implies TEXT A at the same time.

    TEXT A:
    {text_A}

    TEXT B:
    {text_B}

    ## OUTPUT
    You are to return TRUE if TEXT A implies TEXT B and TEXT B implies TEXT A at the same time.
    otherwise, you are to return FALSE
    """
)
_LIU2025_FORMAT = _LIU2025 + textwrap.dedent(
    """
    ##FORMAT:
    START with either TRUE or FALSE, then detail your reasoning
    """
)

#: built-in prompt templates (Liu 2025, appendix C)
PROMPTS = {"liu2025": _LIU2025, "liu2025_format": _LIU2025_FORMAT}

_PLACEHOLDERS = ("{text_A}", "{text_B}")
_PLACEHOLDER_RE = re.compile(r"\{text_A\}|\{text_B\}")
_THINK_RE = re.compile(r"^\s*<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_VERDICT_RE = re.compile(r"^[\s*_#`>\"'(\[:.-]*(true|false)(?![a-z0-9_])", re.IGNORECASE)
_RETRY_STATUS = frozenset({408, 409, 425, 429}) | frozenset(range(500, 600))


class LLMJudgeError(RuntimeError):
    """A fault that retrying cannot fix; the message says what to check."""


class AuthenticationError(LLMJudgeError):
    """The server refused the credentials (HTTP 401 or 403)."""


class EndpointError(LLMJudgeError):
    """The endpoint is wrong or rejects the request (404, connection refused, unknown host, other 4xx)."""


def parse_verdict(answer) -> bool | None:
    """Read the verdict from an answer: TRUE, FALSE, or ``None`` when it is neither.

    The answer must *start* with TRUE or FALSE (any case).  Leading
    whitespace, markdown emphasis or heading marks, quotes and a reasoning
    model's leading ``<think>...</think>`` block are skipped; punctuation may
    follow the word.  Anything else -- including an answer that mentions the
    word only later -- is unparseable.

    Parameters
    ----------
    answer : str or None

    Returns
    -------
    bool or None

    Examples
    --------
    >>> [parse_verdict(a) for a in ["TRUE", "  false.", "**True**", "## FALSE: no", "Truely", "I think TRUE", None]]
    [True, False, True, False, None, None, None]
    """
    if not isinstance(answer, str):
        return None
    m = _VERDICT_RE.match(_THINK_RE.sub("", answer, count=1))
    if m is None:
        return None
    return m.group(1).lower() == "true"


def _check_template(prompt: str) -> str:
    if not isinstance(prompt, str):
        raise ValueError(f"prompt must be one of {sorted(PROMPTS)} or a template string, got {type(prompt).__name__}")
    if prompt in PROMPTS:
        return PROMPTS[prompt]
    missing = [p for p in _PLACEHOLDERS if p not in prompt]
    if missing:
        shown = prompt if len(prompt) <= 40 else prompt[:37] + "..."
        raise ValueError(
            f"prompt must be one of {sorted(PROMPTS)} or a template containing both {_PLACEHOLDERS[0]} and "
            f"{_PLACEHOLDERS[1]}; {shown!r} lacks {', '.join(missing)}"
        )
    return prompt


def render_prompt(template: str, text_a: str, text_b: str) -> str:
    """Fill ``{text_A}`` and ``{text_B}`` of ``template`` (a name in :data:`PROMPTS` or a template).

    The substitution is a single pass, so braces or placeholders inside the
    texts are left alone.

    >>> render_prompt("A={text_A} B={text_B}", "x {text_B}", "y")
    'A=x {text_B} B=y'
    >>> "TEXT A:\\nWater is vital" in render_prompt("liu2025", "Water is vital", "We need water")
    True
    """
    template = _check_template(template)
    values = {"{text_A}": text_a, "{text_B}": text_b}
    return _PLACEHOLDER_RE.sub(lambda m: values[m.group(0)], template)


@dataclass
class JudgeStats:
    """Counts of the most recent :meth:`LLMJudge.pairs` call.

    Attributes
    ----------
    pairs : rows asked for; unique : distinct (model, prompt, ordered text pair) keys among them;
    cached : keys answered from the cache; done : keys judged by a request in this call;
    retried : keys that needed at least one retry; retries : retry attempts in all;
    unjudged : keys still without a verdict when their retries ran out;
    requests : HTTP requests sent.
    """

    pairs: int = 0
    unique: int = 0
    cached: int = 0
    done: int = 0
    retried: int = 0
    retries: int = 0
    unjudged: int = 0
    requests: int = 0

    def as_dict(self) -> dict:
        return asdict(self)


class VerdictCache:
    """A persistent, thread-safe store of finished judge calls (SQLite).

    A row is keyed by the SHA-256 of ``(model, template, text_a, text_b)``
    and holds the verdict and the raw answer.  Each :meth:`put` is its own
    committed transaction (autocommit, write-ahead log), so a process that is
    killed loses at most the calls that had not finished.  Several processes
    may share one file; the first answer stored for a key is kept.

    Parameters
    ----------
    path : str or os.PathLike
        The SQLite file (created if absent).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "verdicts.sqlite")
    >>> cache = VerdictCache(path)
    >>> key = VerdictCache.key("model", "{text_A} / {text_B}", "a cat", "one cat")
    >>> cache.put(key, "model", "sha", "a cat", "one cat", True, "TRUE.")
    >>> cache.get_many([key, "no-such-key"]) == {key: True}, len(cache)
    (True, 1)
    >>> cache.close()
    """

    def __init__(self, path):
        self.path = os.fspath(path)
        self._lock = threading.Lock()
        self._con = sqlite3.connect(self.path, timeout=60.0, isolation_level=None, check_same_thread=False)
        try:
            self._con.execute("PRAGMA journal_mode=WAL")
            self._con.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.DatabaseError:  # pragma: no cover - e.g. a file system without shared memory
            pass
        self._con.execute(
            "CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, model TEXT NOT NULL, "
            "template_sha TEXT NOT NULL, text_a TEXT NOT NULL, text_b TEXT NOT NULL, "
            "verdict INTEGER NOT NULL, answer TEXT, created REAL NOT NULL)"
        )
        self._con.execute("CREATE TABLE IF NOT EXISTS templates (sha TEXT PRIMARY KEY, template TEXT NOT NULL)")

    @staticmethod
    def key(model: str, template: str, text_a: str, text_b: str) -> str:
        """The cache key of one ordered pair."""
        payload = json.dumps([model, template, text_a, text_b], ensure_ascii=False)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def add_template(self, template: str) -> str:
        sha = hashlib.sha256(template.encode("utf-8")).hexdigest()
        with self._lock:
            self._con.execute("INSERT OR IGNORE INTO templates VALUES (?, ?)", (sha, template))
        return sha

    def get_many(self, keys: Sequence[str]) -> dict[str, bool]:
        """Verdicts stored for those of ``keys`` that are present."""
        out: dict[str, bool] = {}
        keys = list(keys)
        with self._lock:
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                marks = ",".join("?" * len(chunk))
                for k, v in self._con.execute(f"SELECT key, verdict FROM verdicts WHERE key IN ({marks})", chunk):
                    out[k] = bool(v)
        return out

    def put(self, key: str, model: str, template_sha: str, text_a: str, text_b: str, verdict: bool, answer: str) -> None:
        """Store one finished call (committed before returning)."""
        with self._lock:
            self._con.execute(
                "INSERT OR IGNORE INTO verdicts VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (key, model, template_sha, text_a, text_b, int(bool(verdict)), answer[:2000], time.time()),
            )

    def __len__(self) -> int:
        with self._lock:
            return int(self._con.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._con.close()

    def __repr__(self) -> str:
        return f"VerdictCache({self.path!r})"


class _Secret:
    """Holds the API key; its repr never shows it."""

    __slots__ = ("value",)

    def __init__(self, value: str | None):
        self.value = value or None

    def __repr__(self) -> str:
        return "<set>" if self.value else "<none>"

    def __bool__(self) -> bool:
        return bool(self.value)


def _check_key(key: str | None) -> str | None:
    """Strip surrounding whitespace (a key read from a file keeps its newline); reject what no header can carry.

    ``http.client`` refuses a header value with control characters and echoes
    the whole value in its error, so the key is checked here, with a message
    that does not show it.
    """
    if key is None:
        return None
    key = key.strip()
    if any(not (0x21 <= ord(c) <= 0x7E) for c in key):
        raise ValueError(
            "api_key (or OPENAI_API_KEY) contains spaces, control or non-ASCII characters; an API key is one "
            "token of printable ASCII characters. Check how the key was copied (the key itself is not shown)."
        )
    return key


class _Transient(Exception):
    """A fault worth retrying; ``retry_after`` in seconds when the server said so."""

    def __init__(self, reason: str, retry_after: float | None = None):
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after


class _Cancelled(Exception):
    pass


def _retry_after_seconds(value) -> float | None:
    """Parse a Retry-After header: delta-seconds or an HTTP date."""
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class LLMJudge:
    """Ask an OpenAI-compatible chat endpoint whether two texts mean the same (Liu 2025, appendix C).

    Parameters
    ----------
    base_url : str
        The API root, e.g. ``https://api.openai.com/v1`` or
        ``http://localhost:8000/v1`` (vLLM); requests go to
        ``{base_url}/chat/completions``.
    model : str
        The model name the server knows.
    api_key : str, optional
        Sent as ``Authorization: Bearer ...``.  Defaults to the environment
        variable ``OPENAI_API_KEY``; with neither, or with ``api_key=""``, no
        header is sent (local servers usually need none).
    prompt : str
        ``"liu2025"`` or ``"liu2025_format"`` (appendix C, first and second
        prompt), or a template containing ``{text_A}`` and ``{text_B}``.
    cache_path : str or os.PathLike, optional
        SQLite file of finished calls (see :class:`VerdictCache`).  Without it
        nothing persists between runs.
    timeout : float
        Seconds allowed for connecting and for each read of a response.
    max_retries : int
        Retries per pair after the first request (for faults and for
        unparseable answers together).  When they run out the pair is unjudged.
    concurrency : int
        Requests in flight at most.
    temperature, max_tokens : optional
        Sent with each request when given; otherwise the server's defaults
        apply.  They are not part of the cache key.
    backoff_base, backoff_max : float
        Retry ``r`` (0, 1, ...) waits a uniform time in
        ``[0, min(backoff_max, backoff_base * 2**r)]`` (full jitter), and at
        least the server's ``Retry-After``.
    max_retry_after : float
        Upper limit on a ``Retry-After`` wait.
    progress : bool
        Show a tqdm bar with counts of done / cached / retried / unjudged.
    random_state : None or int
        Seeds the jitter.

    Attributes
    ----------
    stats : JudgeStats
        Counts of the most recent :meth:`pairs` call, including ``requests``.
    template : str
        The prompt template in use.

    Raises
    ------
    ValueError
        For a malformed ``base_url``, an unknown prompt name or a template
        without both placeholders, or out-of-range numbers.

    Notes
    -----
    A verdict is a draw of the Bernoulli variable ``e(t_i, t_j)`` of Liu
    (2025, eqs. 2-4).  The cache stores the first draw for each ordered pair
    and returns it from then on, so a resumed or repeated run sees the same
    graph; delete the cache (or change the model or prompt) for fresh draws.
    Pairs ``(i, j)`` and ``(j, i)`` are different calls, as in the paper's
    Algorithm 1, which asks about every ordered pair.

    References
    ----------
    Liu (2025), "A statistically consistent measure of semantic variability
    using language models", arXiv:2502.00507, section 2.1 and appendix C.

    Examples
    --------
    Against the simulated endpoint of :mod:`semvar.testing_server` (a local
    server that answers from known labels, not a language model):

    >>> from semvar.testing_server import SimulatedEndpoint
    >>> texts = ["John likes caving and rowing.", "John likes sculling and spelunking.", "John likes reading."]
    >>> with SimulatedEndpoint(dict(zip(texts, [0, 0, 1]))) as ep:
    ...     judge = LLMJudge(ep.base_url, "simulated", api_key="", progress=False)
    ...     verdicts = judge.pairs(texts, [[0, 1], [0, 2], [1, 2]])
    >>> verdicts.tolist(), judge.stats.requests
    ([True, False, False], 3)
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        prompt: str = "liu2025",
        cache_path=None,
        timeout: float = 30.0,
        max_retries: int = 5,
        concurrency: int = 8,
        temperature: float | None = None,
        max_tokens: int | None = None,
        backoff_base: float = 0.5,
        backoff_max: float = 30.0,
        max_retry_after: float = 120.0,
        progress: bool = True,
        random_state: int | None = None,
    ):
        self.base_url, self._scheme, self._host, self._port, self._path = _check_base_url(base_url)
        self._proxy = _proxy_for(self._scheme, self._host)
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"model must be a non-empty string, got {model!r}")
        self.model = model
        self.prompt = prompt if isinstance(prompt, str) and prompt in PROMPTS else "custom"
        self.template = _check_template(prompt)
        if api_key is None:
            api_key = os.environ.get("OPENAI_API_KEY")
        if api_key is not None and not isinstance(api_key, str):
            raise ValueError(f"api_key must be a string or None, got {type(api_key).__name__}")
        self._key = _Secret(_check_key(api_key))
        self.timeout = check_real(timeout, "timeout", low=0.0, low_open=True)
        self.max_retries = check_int(max_retries, "max_retries", low=0)
        self.concurrency = check_int(concurrency, "concurrency", low=1, high=256)
        self.temperature = None if temperature is None else check_real(temperature, "temperature", low=0.0)
        self.max_tokens = None if max_tokens is None else check_int(max_tokens, "max_tokens", low=1)
        self.backoff_base = check_real(backoff_base, "backoff_base", low=0.0)
        self.backoff_max = check_real(backoff_max, "backoff_max", low=0.0)
        self.max_retry_after = check_real(max_retry_after, "max_retry_after", low=0.0)
        self.progress = bool(progress)
        self._random = random.Random(random_state)
        self.cache = None if cache_path is None else VerdictCache(cache_path)
        self._template_sha = hashlib.sha256(self.template.encode("utf-8")).hexdigest()
        if self.cache is not None:
            self.cache.add_template(self.template)
        self.stats = JudgeStats()
        self._stats_lock = threading.Lock()
        self._local = threading.local()
        self._conns: list = []
        self._conns_lock = threading.Lock()
        self._stop = threading.Event()
        self._connected_once = False

    # ------------------------------------------------------------------ public
    @property
    def url(self) -> str:
        """The endpoint every request goes to."""
        return f"{self.base_url}/chat/completions"

    def __repr__(self) -> str:
        cache = None if self.cache is None else self.cache.path
        return (
            f"LLMJudge(base_url={self.base_url!r}, model={self.model!r}, prompt={self.prompt!r}, "
            f"api_key={self._key!r}, cache_path={cache!r}, concurrency={self.concurrency})"
        )

    def close(self) -> None:
        """Close the cache file and any open connections."""
        self._close_connections()
        if self.cache is not None:
            self.cache.close()

    def __enter__(self) -> "LLMJudge":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def pairs(self, texts: Sequence[str], pairs) -> np.ma.MaskedArray:
        """Judge each row ``(i, j)`` of ``pairs``: does ``texts[i]`` mean the same as ``texts[j]``?

        Parameters
        ----------
        texts : sequence of str
        pairs : array-like of shape (m, 2), integer indices into ``texts``
            Ordered pairs: ``texts[i]`` fills TEXT A, ``texts[j]`` TEXT B.

        Returns
        -------
        numpy.ma.MaskedArray of bool, shape (m,)
            The verdicts; entries whose retries ran out are masked (unjudged).

        Raises
        ------
        ValueError
            For texts that are not strings or malformed pairs.
        AuthenticationError
            HTTP 401/403: check the API key.
        EndpointError
            Wrong base URL or model (HTTP 404), connection refused or unknown
            host, or another request the server rejects (4xx).
        """
        texts = list(texts)
        bad = [i for i, t in enumerate(texts) if not isinstance(t, str)]
        if bad:
            raise ValueError(f"texts must be strings; item {bad[0]} is {type(texts[bad[0]]).__name__}")
        P = _check_pairs(pairs, len(texts))
        m = P.shape[0]
        row_keys: list[str] = []
        jobs: dict[str, tuple[str, str]] = {}
        for i, j in P.tolist():
            a, b = texts[i], texts[j]
            k = VerdictCache.key(self.model, self.template, a, b)
            row_keys.append(k)
            jobs.setdefault(k, (a, b))
        self.stats = JudgeStats(pairs=m, unique=len(jobs))
        results: dict[str, bool | None] = {}
        if self.cache is not None and jobs:
            results.update(self.cache.get_many(list(jobs)))
        self.stats.cached = len(results)
        todo = [k for k in jobs if k not in results]
        if todo:
            results.update(self._run(todo, jobs))
        data = np.array([bool(results.get(k)) for k in row_keys], dtype=bool)
        mask = np.array([results.get(k) is None for k in row_keys], dtype=bool)
        return np.ma.MaskedArray(data, mask=mask)

    # ------------------------------------------------------------------ machinery
    def _run(self, todo: list[str], jobs: dict[str, tuple[str, str]]) -> dict[str, bool | None]:
        from tqdm.auto import tqdm

        out: dict[str, bool | None] = {}
        self._stop.clear()
        bar = tqdm(
            total=self.stats.unique,
            initial=self.stats.cached,
            desc="judge",
            unit="pair",
            disable=not self.progress,
            dynamic_ncols=True,
        )
        pool = ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="llm-judge")
        futures = [pool.submit(self._judge_one, k, *jobs[k]) for k in todo]
        try:
            for fut in as_completed(futures):
                key, verdict = fut.result()
                out[key] = verdict
                bar.update(1)
                if self.progress:
                    s = self.stats
                    bar.set_postfix(done=s.done, cached=s.cached, retried=s.retried, unjudged=s.unjudged, refresh=False)
        except BaseException:
            # a fatal error or an interrupt: stop handing out work; calls in flight finish and are cached
            self._stop.set()
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        finally:
            pool.shutdown(wait=True)
            bar.close()
            self._close_connections()
        if self.stats.unjudged:
            logger.warning(
                "%d of %d pairs are unjudged after %d retries each; they are masked, not read as FALSE",
                self.stats.unjudged,
                self.stats.unique,
                self.max_retries,
            )
        return out

    def _judge_one(self, key: str, a: str, b: str) -> tuple[str, bool | None]:
        body = {"model": self.model, "messages": [{"role": "user", "content": render_prompt(self.template, a, b)}]}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        payload = json.dumps(body).encode("utf-8")
        attempt = 0
        while True:
            if self._stop.is_set():
                raise _Cancelled()
            try:
                verdict, answer = self._ask(payload)
                if verdict is None:
                    raise _Transient("unparseable answer " + repr(answer[:60] if isinstance(answer, str) else answer))
            except _Transient as exc:
                if attempt >= self.max_retries:
                    with self._stats_lock:
                        self.stats.unjudged += 1
                    logger.warning("pair unjudged after %d attempts (last fault: %s)", attempt + 1, exc.reason)
                    return key, None
                delay = self._random.uniform(0.0, min(self.backoff_max, self.backoff_base * 2.0**attempt))
                if exc.retry_after is not None:
                    delay = max(delay, min(exc.retry_after, self.max_retry_after))
                with self._stats_lock:
                    self.stats.retries += 1
                    if attempt == 0:
                        self.stats.retried += 1
                logger.info("retry %d in %.2f s: %s", attempt + 1, delay, exc.reason)
                attempt += 1
                if self._stop.wait(delay):
                    raise _Cancelled() from None
                continue
            if self.cache is not None:
                self.cache.put(key, self.model, self._template_sha, a, b, verdict, answer)
            with self._stats_lock:
                self.stats.done += 1
            return key, verdict

    def _connection(self):
        conn = getattr(self._local, "conn", None)
        if conn is None:
            host, port = (self._host, self._port) if self._proxy is None else self._proxy[:2]
            if self._scheme == "https":
                conn = http.client.HTTPSConnection(host, port, timeout=self.timeout, context=ssl.create_default_context())
                if self._proxy is not None:  # tunnel through the proxy with CONNECT
                    conn.set_tunnel(self._host, self._port, headers=self._proxy[2])
            else:
                conn = http.client.HTTPConnection(host, port, timeout=self.timeout)
            self._local.conn = conn
            with self._conns_lock:
                self._conns.append(conn)
        return conn

    def _drop_connection(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def _close_connections(self) -> None:
        with self._conns_lock:
            for conn in self._conns:
                conn.close()
            self._conns.clear()

    def _headers(self) -> dict:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._key:
            headers["Authorization"] = "Bearer " + self._key.value
        if self._proxy is not None and self._scheme == "http":
            headers.update(self._proxy[2])
        return headers

    def _redact(self, text: str) -> str:
        if self._key.value:
            text = text.replace(self._key.value, "***")
        return text

    def _ask(self, payload: bytes) -> tuple[bool | None, str | None]:
        """One HTTP request; returns (verdict or None, answer) or raises _Transient / LLMJudgeError."""
        with self._stats_lock:
            self.stats.requests += 1
        conn = self._connection()
        try:
            target = self._path
            if self._proxy is not None and self._scheme == "http":  # a forward proxy wants the absolute URL
                target = f"http://{self._host}:{self._port}{self._path}"
            conn.request("POST", target, body=payload, headers=self._headers())
            resp = conn.getresponse()
            data = resp.read()
            status = resp.status
            retry_after = _retry_after_seconds(resp.getheader("Retry-After"))
            if resp.will_close:
                self._drop_connection()
        except (TimeoutError, socket.timeout):
            self._drop_connection()
            raise _Transient(f"no answer within {self.timeout:g} s") from None
        except ConnectionRefusedError:
            self._drop_connection()
            if not self._connected_once:
                if self._proxy is not None:
                    raise EndpointError(
                        f"could not connect to the proxy {self._proxy[0]}:{self._proxy[1]} (from the environment "
                        f"variables {self._scheme.upper()}_PROXY / {self._scheme}_proxy) to reach {self.url}: "
                        "connection refused. Check the proxy setting, or list the host in NO_PROXY."
                    ) from None
                raise EndpointError(
                    f"could not connect to {self.url}: connection refused. Check that the server is running and "
                    f"listening on {self._host}:{self._port}, and that base_url is right."
                ) from None
            raise _Transient("connection refused") from None
        except socket.gaierror:
            self._drop_connection()
            raise EndpointError(
                f"could not resolve the host {self._host!r} of {self.url}. Check base_url for typos and your network."
            ) from None
        except ssl.SSLCertVerificationError as exc:
            self._drop_connection()
            raise EndpointError(f"TLS certificate check failed for {self.url}: {exc.verify_message}") from None
        except (OSError, http.client.HTTPException) as exc:
            self._drop_connection()
            raise _Transient(f"connection fault ({type(exc).__name__})") from None
        self._connected_once = True
        if status == 200:
            try:
                content = json.loads(data)["choices"][0]["message"]["content"]
            except (ValueError, KeyError, IndexError, TypeError):
                raise _Transient("malformed JSON in a 200 response") from None
            answer = self._redact(content if isinstance(content, str) else repr(content))
            return parse_verdict(answer), answer
        message = self._redact(_error_message(data))
        if status in (401, 403):
            raise AuthenticationError(
                f"{self.url} answered HTTP {status} ({message}): the server refused the credentials. Check the API "
                "key (the api_key argument or the OPENAI_API_KEY environment variable"
                + ("" if self._key else "; none was given")
                + f") and that it may use the model {self.model!r}."
            )
        if status == 404:
            raise EndpointError(
                f"{self.url} answered HTTP 404 ({message}). Check base_url (it is the API root, for most servers "
                f"ending in /v1, e.g. http://localhost:8000/v1; /chat/completions is appended) and that the server "
                f"serves a model named {self.model!r} (GET {self.base_url}/models lists them)."
            )
        if status in _RETRY_STATUS:
            raise _Transient(f"HTTP {status}", retry_after)
        raise EndpointError(f"{self.url} rejected the request with HTTP {status}: {message}")


def _error_message(data: bytes) -> str:
    try:
        obj = json.loads(data)
        msg = obj["error"]["message"] if isinstance(obj.get("error"), dict) else obj.get("error") or obj
    except (ValueError, KeyError, TypeError, AttributeError):
        msg = data.decode("utf-8", "replace")
    msg = str(msg).strip()
    return msg[:300] if msg else "no message"


_LOOPBACK = ("localhost", "127.0.0.1", "::1")


def _proxy_for(scheme: str, host: str):
    """``(proxy_host, proxy_port, headers)`` from HTTP(S)_PROXY / NO_PROXY, or None.

    Loopback hosts never go through a proxy (a proxy cannot reach your
    localhost).  Proxy credentials in the URL become a Proxy-Authorization
    header; like the API key they are never shown.
    """
    if host in _LOOPBACK or host.startswith("127."):
        return None
    proxies = urllib.request.getproxies_environment()
    url = proxies.get(scheme)
    if not url or urllib.request.proxy_bypass_environment(host, proxies):
        return None
    if "://" not in url:
        url = "http://" + url
    parts = urlsplit(url)
    if not parts.hostname:
        return None
    headers = {}
    if parts.username is not None:
        from urllib.parse import unquote

        token = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode("utf-8")
        headers["Proxy-Authorization"] = "Basic " + b64encode(token).decode("ascii")
    return _Proxy(parts.hostname, parts.port or (443 if parts.scheme == "https" else 80), headers)


class _Proxy(tuple):
    """``(host, port, headers)`` of a proxy; its repr hides the headers (they may hold credentials)."""

    def __new__(cls, host: str, port: int, headers: dict):
        return super().__new__(cls, (host, port, headers))

    def __repr__(self) -> str:
        return f"<proxy {self[0]}:{self[1]}>"

    __str__ = __repr__


def _check_base_url(base_url):
    if not isinstance(base_url, str) or not base_url.strip():
        raise ValueError(f"base_url must be a URL such as 'http://localhost:8000/v1', got {base_url!r}")
    url = base_url.strip().rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"base_url must start with http:// or https:// and name a host, got {base_url!r}")
    if parts.username or parts.password:
        raise ValueError("base_url must not carry credentials; pass the key as api_key or OPENAI_API_KEY")
    if parts.query or parts.fragment:
        raise ValueError(f"base_url must not have a query or fragment, got {base_url!r}")
    if parts.path.endswith("/chat/completions"):
        raise ValueError(
            f"base_url is the API root without the endpoint: use {url[: -len('/chat/completions')]!r}, "
            f"not {base_url!r}"
        )
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return url, parts.scheme, parts.hostname, port, parts.path + "/chat/completions"
