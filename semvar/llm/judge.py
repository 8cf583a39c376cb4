"""An LLM as the judge ``e(t_i, t_j)``: :class:`LLMJudge`, for any OpenAI-compatible chat endpoint.

Liu (2025, section 2.1 and appendix C) asks a language model, for every pair
of texts, whether each implies the other, and reads the verdict from the first
word of the answer.  :class:`LLMJudge` does this over HTTP and behaves like
client code that has to survive a long run:

- an answer that does not start with TRUE or FALSE is asked again; when the
  retries run out the pair is *unjudged* and masked in the returned
  :class:`numpy.ma.MaskedArray` -- never silently read as FALSE;
- faults are retried with backoff, a policy declared with :mod:`tenacity`
  (:meth:`LLMJudge._retrying`; the transport is :mod:`semvar.llm.client`); at most
  ``concurrency`` requests are in flight, each with a total deadline;
- every finished call is committed to the cache (:mod:`semvar.llm.cache`)
  before the worker starts its next call, and the verdict returned is the
  one the cache holds; processes sharing a cache do not repeat a call that
  another has in flight;
- an interrupt (Ctrl-C) cancels the requests in flight at once: finished
  calls are already committed, and a second interrupt is not delayed;
- a pair of identical texts is TRUE without a request, and a pair asked
  twice is one call.
"""

from __future__ import annotations

import hashlib
import heapq
import itertools
import json
import logging
import os
import queue
import random
import threading
import time
import warnings
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import tenacity
from numpy.typing import ArrayLike

from .._redact import redact
from .._validation import check_bool, check_int, check_pairs, check_real, check_texts
from .answers import (
    CONSTRAINTS,
    GRAMMAR,
    RESPONSE_FORMAT,
    RESPONSE_FORMAT_OBJECT,
    parse_json_verdict,
    score_of_answer,
    soft_answer,
    soft_verdict,
)
from .cache import CacheError, VerdictCache, owner_id
from .client import (
    _KEY_SOURCE,
    _backoff_delay,
    _ChatClient,
    _check_base_url,
    _check_key,
    _http_module,
    _is_loopback,
    _proxy_for,
    _Secret,
    _Transient,
)
from .prompts import PROMPTS, _check_template, forged_heading, lone_surrogate, parse_verdict, render_prompt

__all__ = ["LLMJudge", "JudgeStats"]

logger = logging.getLogger(__name__)


class _Cancelled(Exception):
    pass


_DEFER = object()  # another process has the call in flight: look again later
#: seconds a finished worker waits for the others to commit after an interrupt
_GRACE = 1.0
#: the longest time any of the judge's time arguments may give (about 11.6 days); beyond it the
#: operating system's timers overflow
_MAX_SECONDS = 1e6


@dataclass
class JudgeStats:
    """Counts of the most recent :meth:`LLMJudge.pairs` call.

    Attributes
    ----------
    pairs : rows asked for; unique : distinct (model, prompt, ordered text pair) keys among them;
    identical : rows whose two texts are the same string (TRUE without a request);
    cached : keys answered from the cache; shared : keys another process sharing the cache answered
    while this call waited for it; done : keys judged by a request in this call;
    retried : keys that needed at least one retry; retries : retry attempts in all;
    unjudged : keys still without a verdict when their retries ran out;
    unjudged_reasons : the last fault of each unjudged key, counted by kind;
    uncached : keys judged in this call that the cache could not store (it stayed locked);
    requests : HTTP requests sent.
    """

    pairs: int = 0
    unique: int = 0
    identical: int = 0
    cached: int = 0
    shared: int = 0
    done: int = 0
    retried: int = 0
    retries: int = 0
    unjudged: int = 0
    unjudged_reasons: dict = field(default_factory=dict)
    uncached: int = 0
    requests: int = 0

    def as_dict(self) -> dict:
        return asdict(self)

    def why_unjudged(self) -> str:
        """The reasons pairs were left unjudged, e.g. ``"3 x unparseable answer, 1 x HTTP 500"``."""
        return ", ".join(f"{n} x {kind}" for kind, n in sorted(self.unjudged_reasons.items(), key=lambda kv: -kv[1]))


class _WorkQueue:
    """The keys one :meth:`LLMJudge._run` has left to judge, shared by its worker threads.

    Keys wait in order; a key that another process sharing the cache has in
    flight is deferred and handed out again after a growing pause (0.1 s,
    0.2 s, ... up to 2 s).  :meth:`take` returns None once every key has its
    verdict or the run is stopped.
    """

    def __init__(self, todo: list[str], stop: threading.Event):
        self.stop = stop
        self._ready = deque(todo)
        self._later: list = []  # (not before, sequence, key): calls another process has in flight
        self._order = itertools.count()
        self._defers: Counter = Counter()
        self._cond = threading.Condition()
        self._pending = len(todo)

    def take(self) -> str | None:
        """The next key to judge, waiting for a deferred one if need be; None when the work is done or stopped."""
        with self._cond:
            while True:
                if self.stop.is_set() or self._pending == 0:
                    return None
                if self._ready:
                    return self._ready.popleft()
                now = time.monotonic()
                if self._later and self._later[0][0] <= now:
                    return heapq.heappop(self._later)[2]
                self._cond.wait(min(0.25, self._later[0][0] - now) if self._later else 0.25)

    def defer(self, key: str) -> None:
        """Hand ``key`` out again later: another process has its call in flight."""
        with self._cond:
            self._defers[key] += 1
            not_before = time.monotonic() + min(2.0, 0.05 * 2 ** self._defers[key])
            heapq.heappush(self._later, (not_before, next(self._order), key))
            self._cond.notify()

    def finish(self) -> None:
        """One key has its verdict (the last one wakes every waiting worker)."""
        with self._cond:
            self._pending -= 1
            if self._pending == 0:
                self._cond.notify_all()

    def cancel(self) -> None:
        """Hand out no more keys; wake every waiting worker."""
        self.stop.set()
        with self._cond:
            self._cond.notify_all()


def _distinct_calls(texts: list[str], P: np.ndarray) -> tuple[list[str], np.ndarray, list[int], list[int], np.ndarray]:
    """One call per distinct ordered pair of distinct texts, however often a row asks for it.

    Returns the distinct texts, a mask of the rows whose two texts are the same string, the
    calls as indices ``first[c], second[c]`` into the distinct texts, and for each other row
    the index of its call.
    """
    index: dict[str, int] = {}
    codes = np.fromiter((index.setdefault(t, len(index)) for t in texts), dtype=np.int64, count=len(texts))
    distinct = list(index)
    C = codes[P] if P.shape[0] else np.zeros((0, 2), dtype=np.int64)
    same = C[:, 0] == C[:, 1]
    flat = C[~same, 0] * len(distinct) + C[~same, 1]
    calls, inverse = np.unique(flat, return_inverse=True)
    first, second = np.divmod(calls, len(distinct)) if calls.size else (calls, calls)
    return distinct, same, first.tolist(), second.tolist(), inverse


def _masked_verdicts(
    results: dict[str, bool | None], keys: list[str], same: np.ndarray, inverse: np.ndarray
) -> np.ma.MaskedArray:
    """One verdict per row: TRUE for two identical texts, else its call's, masked where that has none."""
    m = same.shape[0]
    got = np.array([results.get(k) for k in keys], dtype=object)
    known = np.array([v is not None for v in got], dtype=bool)
    value = np.array([bool(v) for v in got], dtype=bool)
    data = np.ones(m, dtype=bool)
    mask = np.zeros(m, dtype=bool)
    data[~same] = value[inverse] if keys else False
    mask[~same] = ~known[inverse] if keys else False
    return np.ma.MaskedArray(data, mask=mask)


def _options_tag(constrain: str | None, soft: bool, threshold: float) -> str:
    """The part of the cache key that says how the verdict was asked for ("" for a free answer, as before)."""
    if constrain is None and not soft:
        return ""
    return json.dumps({"constrain": constrain, "soft": soft, "threshold": threshold if soft else None},
                      sort_keys=True)


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
        variable ``api_key_env`` names (``OPENAI_API_KEY`` unless given); with
        neither, or with ``api_key=""``, no header is sent (local servers
        usually need none).
    api_key_env : str, optional
        The name of the environment variable the key comes from: read when
        ``api_key`` is None, and the place that messages about the key (HTTP
        401/403, a key with spaces) tell you to check.  Pass it when you read
        the key yourself, as ``python -m semvar judge --api-key-env NAME``
        does.  Without it the key is read from ``OPENAI_API_KEY`` and messages
        name "the api_key argument or the OPENAI_API_KEY environment
        variable".
    prompt : str, default="liu2025"
        ``"liu2025"`` or ``"liu2025_format"`` (appendix C, first and second
        prompt), or a template containing ``{text_A}`` and ``{text_B}``.
    cache_path : str or os.PathLike, optional
        SQLite file of finished calls (see :class:`VerdictCache`).  Without it
        nothing persists between runs.  A call is stored under the server
        (``base_url``), the model, the prompt and the ordered pair, so the
        cache of one server is never answered for another that happens to
        serve a model of the same name.  A new file is created readable by its
        owner only (mode 0600: it holds the texts).
    timeout : float, default=30.0
        Seconds (at most 10**6) allowed for one request in all: connecting,
        sending and receiving the whole answer (a deadline, not a limit per read, so a
        server that trickles its answer out cannot hold a call longer).
    max_retries : int, default=5
        Retries per pair after the first request (for faults and for
        unparseable answers together).  When they run out the pair is unjudged.
    concurrency : int, default=8
        Requests in flight at most.
    temperature, max_tokens : optional
        Sent with each request when given; otherwise the server's defaults
        apply (with ``soft``, ``max_tokens`` defaults to 1).  They are not part
        of the cache key.
    constrain : {None, "grammar", "json", "json_object"}, default=None
        Constrain the answer to the two verdicts (:mod:`semvar.llm.answers`):
        "grammar" sends llama.cpp's ``grammar`` field (only ``TRUE`` or
        ``FALSE`` can be sampled), "json" a JSON-schema ``response_format``
        (only ``{"verdict": "TRUE"}`` or ``{"verdict": "FALSE"}``; OpenAI,
        vLLM), "json_object" the same schema in llama-cpp-python's form.  None:
        the model answers freely and :func:`~semvar.llm.parse_verdict` reads
        the first word.  Part of the cache key.
    soft : bool, default=False
        Ask for the first token's log-probabilities (``logprobs``,
        ``top_logprobs``) and take the verdict ``pi >= threshold`` from
        ``pi = P(TRUE) / (P(TRUE) + P(FALSE))``
        (:func:`~semvar.llm.answers.soft_verdict`); ``pi`` is stored with
        the call and returned by :meth:`scores`.  Not with
        ``constrain="json"`` (its first token is a brace).  Part of the cache
        key.
    threshold : float, default=0.5
        The soft verdict's threshold, in ``(0, 1)``.  Part of the cache key.
    top_logprobs : int, default=20
        How many first tokens the server lists (1 to 100; OpenAI allows
        at most 20).
    backoff_base, backoff_max : float, default=0.5 and 30.0
        Retry ``r`` (0, 1, ...) waits a uniform time in
        ``[0, min(backoff_max, backoff_base * 2**r)]`` (full jitter), and at
        least the server's ``Retry-After``.
    max_retry_after : float, default=60.0
        Upper limit, in seconds, on one wait that a server asks for with
        ``Retry-After`` (HTTP 429 or 503).  A longer request is cut to this
        (a server asking for ``Retry-After: 10000`` is asked again after 60 s,
        and the pair is unjudged when the retries run out), so a run never
        sleeps for hours on one header.
    max_response_bytes : int, default=1048576
        Longest answer read; a longer one is refused unread (a fault).
    lock_timeout : float, default=30.0
        Seconds to wait for another process's lock on the cache file.
    progress : bool, default=True
        Show a tqdm bar with counts of done / cached / retried / unjudged.
    random_state : None or int, default=None
        Seeds the jitter.
    http_client : httpx2.Client, optional
        Your own HTTP client (``httpx2.Client``, or ``httpx.Client`` where
        that is installed), for a proxy, TLS settings (a company CA, a
        client certificate) or an auth scheme of your own.  It is used as it
        is and never closed by the judge; the deadline, the size cap and the
        retries apply to its requests as to the judge's own.  Without it the
        judge makes its own client (keep-alive, no redirects, the system's
        certificates, the proxy of ``HTTPS_PROXY`` / ``HTTP_PROXY`` /
        ``NO_PROXY``, never for a loopback host).

    Attributes
    ----------
    stats : JudgeStats
        Counts of the most recent :meth:`pairs` call, including ``requests``.
    template : str
        The prompt template in use.

    Warns
    -----
    UserWarning
        When an API key is set, ``base_url`` is plain ``http://`` and
        ``HTTP_PROXY`` names a proxy that is not on this machine: the key
        would travel in clear text to and through that proxy.

    Raises
    ------
    ValueError
        For a malformed ``base_url`` (not http(s); credentials, a query or a
        fragment; spaces, control characters or unescaped characters in the
        path; a host that is no host name; a port outside 1 to 65535), an
        unknown prompt name or a template without both placeholders, a bad
        ``api_key`` or ``api_key_env``, or out-of-range numbers.
    CacheError
        When ``cache_path`` cannot be used (see :class:`VerdictCache`).

    Notes
    -----
    A verdict is a draw of the Bernoulli variable ``e(t_i, t_j)`` of Liu
    (2025, eqs. 2-4).  The cache stores the first draw for each ordered pair
    and returns it from then on, so a resumed or repeated run sees the same
    graph; delete the cache (or change the model or prompt) for fresh draws.
    Pairs ``(i, j)`` and ``(j, i)`` are different calls, as in the paper's
    Algorithm 1, which asks about every ordered pair.  A pair of identical
    strings is TRUE without a call (a text means what it means).

    References
    ----------
    Liu (2025), "A statistically consistent measure of semantic variability
    using language models", arXiv:2502.00507, section 2.1 and appendix C.

    Examples
    --------
    Against the simulated endpoint of :mod:`semvar.testing` (a local
    server that answers from known labels, not a language model):

    >>> from semvar.testing import SimulatedEndpoint
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
        api_key_env: str | None = None,
        prompt: str = "liu2025",
        cache_path: str | os.PathLike | None = None,
        timeout: float = 30.0,
        max_retries: int = 5,
        concurrency: int = 8,
        temperature: float | None = None,
        max_tokens: int | None = None,
        constrain: str | None = None,
        soft: bool = False,
        threshold: float = 0.5,
        top_logprobs: int = 20,
        backoff_base: float = 0.5,
        backoff_max: float = 30.0,
        max_retry_after: float = 60.0,
        max_response_bytes: int = 1 << 20,
        lock_timeout: float = 30.0,
        progress: bool = True,
        random_state: int | None = None,
        http_client: Any = None,
    ):
        if api_key_env is not None and (
            not isinstance(api_key_env, str) or not api_key_env or "=" in api_key_env
            or any(c.isspace() or not c.isprintable() for c in api_key_env)
        ):
            raise ValueError(
                "api_key_env must be None or the name of an environment variable (no spaces, '=' or control "
                f"characters), got {api_key_env!r}"
            )
        key_source = _KEY_SOURCE if api_key_env is None else f"the environment variable {api_key_env}"
        endpoint = _check_base_url(
            base_url, "api_key or OPENAI_API_KEY" if api_key_env is None else f"api_key or {api_key_env}"
        )
        if http_client is not None:
            _http_module(http_client)  # checked before anything is opened
        # a user's client brings its own proxy settings (httpx reads the same environment variables)
        proxy = _proxy_for(endpoint[1], endpoint[2]) if http_client is None else None
        self.base_url = endpoint[0]
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"model must be a non-empty string, got {model!r}")
        self.model = model
        self.prompt = prompt if isinstance(prompt, str) and prompt in PROMPTS else "custom"
        self.template = _check_template(prompt)
        if api_key is None:
            api_key = os.environ.get(api_key_env or "OPENAI_API_KEY")
        if api_key is not None and not isinstance(api_key, str):
            raise ValueError(f"api_key must be a string or None, got {type(api_key).__name__}")
        key = _Secret(_check_key(api_key, key_source))
        if key and proxy is not None and endpoint[1] == "http" and not _is_loopback(proxy[0]):
            warnings.warn(
                f"the API key will go in clear text (plain http) through the proxy {proxy[0]}:{proxy[1]}, taken from "
                "the environment variable HTTP_PROXY / http_proxy, to "
                f"{redact(endpoint[0])}: anyone on the way can read it. Use an https:// base_url, or list the host "
                "in NO_PROXY.",
                UserWarning,
                stacklevel=2,
            )
        self.timeout = check_real(timeout, "timeout", low=0.0, high=_MAX_SECONDS, low_open=True)
        self.max_retries = check_int(max_retries, "max_retries", low=0)
        self.concurrency = check_int(concurrency, "concurrency", low=1, high=256)
        self.temperature = None if temperature is None else check_real(temperature, "temperature", low=0.0)
        self.max_tokens = None if max_tokens is None else check_int(max_tokens, "max_tokens", low=1)
        if constrain not in CONSTRAINTS:
            raise ValueError(f"constrain must be None, 'grammar', 'json' or 'json_object', got {constrain!r}")
        self.constrain = constrain
        self.soft = check_bool(soft, "soft")
        self.threshold = check_real(threshold, "threshold", low=0.0, high=1.0, low_open=True, high_open=True)
        self.top_logprobs = check_int(top_logprobs, "top_logprobs", low=1, high=100)
        if self.soft and constrain in ("json", "json_object"):
            raise ValueError("soft=True reads the first token's log-probabilities, which with constrain='json' are "
                             "those of a brace, not of a verdict: use constrain=None or 'grammar' with soft=True")
        if self.soft and self.max_tokens is None:
            self.max_tokens = 1  # only the first token is read
        self._options = _options_tag(constrain, self.soft, self.threshold)
        self._raw: dict[str, str] = {}  # the raw answers of this judge's calls, by key
        self.backoff_base = check_real(backoff_base, "backoff_base", low=0.0, high=_MAX_SECONDS)
        self.backoff_max = check_real(backoff_max, "backoff_max", low=0.0, high=_MAX_SECONDS)
        self.max_retry_after = check_real(max_retry_after, "max_retry_after", low=0.0, high=_MAX_SECONDS)
        self.max_response_bytes = check_int(max_response_bytes, "max_response_bytes", low=1)
        self.lock_timeout = check_real(lock_timeout, "lock_timeout", low=0.0, high=_MAX_SECONDS)
        self.progress = check_bool(progress, "progress")
        if random_state is not None:
            check_int(random_state, "random_state", low=0)
        self._random = random.Random(random_state)
        self.cache = None if cache_path is None else VerdictCache(cache_path, lock_timeout=self.lock_timeout)
        self._template_sha = hashlib.sha256(self.template.encode("utf-8")).hexdigest()
        if self.cache is not None:
            try:
                self.cache.add_template(self.template)
            except CacheError:
                self.cache.close()
                raise
        self._client = _ChatClient(
            endpoint, proxy, key, self.timeout, self.model, self.max_response_bytes, key_source=key_source,
            http_client=http_client,
        )
        self.stats = JudgeStats()
        self._stats_lock = threading.Lock()
        self._stop = threading.Event()
        self._claims_off = False

    # ------------------------------------------------------------------ public
    @property
    def url(self) -> str:
        """The endpoint every request goes to."""
        return self._client.url

    def __repr__(self) -> str:
        cache = None if self.cache is None else self.cache.path
        return (
            f"LLMJudge(base_url={self.base_url!r}, model={self.model!r}, prompt={self.prompt!r}, "
            f"api_key={self._client.key!r}, cache_path={cache!r}, concurrency={self.concurrency})"
        )

    def close(self) -> None:
        """Close the cache file and any open connections.

        Does not wait more than a moment for a worker left behind by an
        interrupt (it may be waiting for a locked cache).
        """
        self._client.close()
        if self.cache is not None:
            self.cache.close(wait=_GRACE)

    def __enter__(self) -> LLMJudge:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def pairs(self, texts: Sequence[str], pairs: ArrayLike) -> np.ma.MaskedArray:
        """Judge each row ``(i, j)`` of ``pairs``: does ``texts[i]`` mean the same as ``texts[j]``?

        Parameters
        ----------
        texts : sequence of str
        pairs : array-like of shape (m, 2), integer indices into ``texts``
            Ordered pairs: ``texts[i]`` fills TEXT A, ``texts[j]`` TEXT B.

        Returns
        -------
        numpy.ma.MaskedArray of bool, shape (m,)
            The verdicts; entries whose retries ran out are masked (unjudged;
            :attr:`stats` says why).  A row whose two texts are the same
            string is TRUE without a request; rows that repeat a pair share
            one call.

        Raises
        ------
        ValueError
            For texts that are not strings, a text holding a line of the
            prompt itself (such as ``TEXT B:``; see
            ``semvar.llm.prompts.forged_heading``), or malformed pairs.
        AuthenticationError
            HTTP 401/403: check the API key.
        EndpointError
            Wrong base URL or model (HTTP 404), connection refused or unknown
            host, another request the server rejects (4xx), or HTTP 200
            answers that are not chat-completions JSON from the start.
        CacheError
            When the cache cannot be read, or holds a verdict other than 0 or
            1 for a pair asked (a file changed by something else is refused,
            not trusted).  A finished call that cannot be stored (the file
            stays locked) is returned, counted in ``stats.uncached`` and
            logged, not lost.
        KeyboardInterrupt
            Passed on after the requests in flight are cancelled; every call
            that finished before is in the cache.
        """
        texts = self._check_texts(texts)
        P = check_pairs(pairs, len(texts))
        distinct, same, first, second, inverse = _distinct_calls(texts, P)
        keys = [
            VerdictCache.key(self.model, self.template, distinct[i], distinct[j], server=self.base_url,
                             options=self._options)
            for i, j in zip(first, second)
        ]
        self.stats = JudgeStats(pairs=P.shape[0], unique=len(keys), identical=int(same.sum()))
        results = self._answer(keys, [(distinct[i], distinct[j]) for i, j in zip(first, second)])
        self._last = (keys, same, inverse)
        return _masked_verdicts(results, keys, same, inverse)

    def answers(self, texts: Sequence[str], pairs: ArrayLike) -> list[str | None]:
        """Judge the pairs as :meth:`pairs` does and return each row's raw answer (from this run or the cache).

        None for a row whose two texts are the same string (no call) or whose pair is unjudged.  A soft
        verdict's answer is ``{"p_true": ..., "text": ...}`` (:func:`semvar.llm.answers.soft_answer`).
        """
        verdicts = self.pairs(texts, pairs)
        keys, same, inverse = self._last
        if self.cache is not None:
            missing = [k for k in keys if k not in self._raw]
            self._raw.update(self.cache.get_answers(missing))
        per_key = [self._raw.get(k) for k in keys]
        out: list[str | None] = []
        unjudged = np.ma.getmaskarray(verdicts)
        keys_of_rows = iter(inverse.tolist())  # one key per row whose two texts differ, in row order
        for r in range(len(same)):
            key = None if same[r] else next(keys_of_rows)
            out.append(None if key is None or unjudged[r] else per_key[key])
        return out

    def scores(self, texts: Sequence[str], pairs: ArrayLike) -> np.ma.MaskedArray:
        """Judge the pairs as :meth:`pairs` does and return the soft verdicts' probabilities ``pi`` (``soft=True``).

        Returns
        -------
        numpy.ma.MaskedArray of float, shape (m,)
            ``P(TRUE) / (P(TRUE) + P(FALSE))`` of each row's call (from the
            cache for calls made before); 1 for two identical strings; masked
            where the pair is unjudged.

        Raises
        ------
        ValueError
            When the judge was made without ``soft=True``.
        """
        if not self.soft:
            raise ValueError("scores() needs a judge made with soft=True (the probabilities come from logprobs)")
        raw = self.answers(texts, pairs)
        _, same, _ = self._last
        found = [None if a is None else score_of_answer(a) for a in raw]
        p = np.array([1.0 if same[r] else (np.nan if v is None else v) for r, v in enumerate(found)], dtype=float)
        mask = np.isnan(p)
        return np.ma.array(np.where(mask, 0.0, p), mask=mask)

    def _check_texts(self, texts: Sequence[str]) -> list[str]:
        """The texts as a list of strings that can be sent, cached and pasted into the prompt."""
        texts = check_texts(texts, allow_empty=True)
        for i, t in enumerate(texts):
            at = lone_surrogate(t)
            if at is not None:
                raise ValueError(
                    f"texts[{i}] holds a lone surrogate U+{ord(t[at]):04X} at character {at}: it is not a Unicode "
                    "character and has no UTF-8 form, so the text can be neither sent nor cached"
                )
            forged = forged_heading(self.template, t)
            if forged is not None:
                raise ValueError(
                    f"texts[{i}] holds the line {forged!r}, which is (or begins with) a line of the prompt: pasted "
                    "into it, the prompt would no longer say where the text ends. Reword or remove that line of the "
                    "text."
                )
        return texts

    def _answer(self, keys: list[str], texts: list[tuple[str, str]]) -> dict[str, bool | None]:
        """The verdict of each key (``texts[i]`` is the ordered pair of ``keys[i]``): the cache's, else judged now."""
        results: dict[str, bool | None] = {}
        if self.cache is not None and keys:
            results.update(self.cache.get_many(keys))
        self.stats.cached = len(results)
        jobs = {k: ab for k, ab in zip(keys, texts) if k not in results}
        if jobs:
            results.update(self._run(list(jobs), jobs))
        return results

    # ------------------------------------------------------------------ machinery
    def _run(self, todo: list[str], jobs: dict[str, tuple[str, str]]) -> dict[str, bool | None]:
        """Judge the keys of ``todo`` with ``concurrency`` worker threads; see :meth:`pairs`.

        The workers are daemon threads fed from a queue.  An interrupt or a
        fatal error stops them handing out work, cancels the requests in
        flight (their sockets are shut down), waits at most ``_GRACE``
        seconds for calls being committed, and re-raises.
        """
        stop = threading.Event()
        self._stop = stop
        self._claims_off = False
        self._client.reset()
        work = _WorkQueue(todo, stop)
        results: queue.Queue = queue.Queue()
        owner = owner_id()
        bar = self._progress_bar()
        threads = [
            threading.Thread(target=self._worker, args=(work, jobs, results, owner), name=f"llm-judge-{i}", daemon=True)
            for i in range(min(self.concurrency, len(todo)))
        ]
        try:
            for t in threads:
                t.start()
            out = self._collect(results, len(threads), len(todo), bar)
        except BaseException:
            # an interrupt or a fatal error: hand out no more work and cancel the requests in flight;
            # finished calls are committed by their workers, which get a moment to do so
            work.cancel()
            self._client.abort()
            until = time.monotonic() + _GRACE
            for t in threads:
                t.join(max(0.0, until - time.monotonic()))
            raise
        finally:
            stop.set()
            bar.close()
            self._client.close()
        self._log_shortfalls()
        return out

    def _progress_bar(self):
        from tqdm.auto import tqdm  # tqdm only when a run sends requests

        return tqdm(
            total=self.stats.unique,
            initial=self.stats.cached,
            desc="judge",
            unit="pair",
            disable=not self.progress,
            dynamic_ncols=True,
        )

    def _worker(self, work: _WorkQueue, jobs: dict[str, tuple[str, str]], results: queue.Queue, owner: str) -> None:
        """One worker thread: judge keys until none is left or the run stops; report each verdict on ``results``."""
        try:
            while True:
                key = work.take()
                if key is None:
                    return
                try:
                    verdict = self._judge_one(key, *jobs[key], work.stop, owner)
                except _Cancelled:
                    return
                except BaseException as exc:  # a fatal error: hand it to the caller
                    results.put(("error", exc))
                    return
                if verdict is _DEFER:
                    work.defer(key)
                    continue
                results.put(("ok", key, verdict))
                work.finish()
        finally:
            results.put(("exit",))

    def _collect(self, results: queue.Queue, running: int, total: int, bar) -> dict[str, bool | None]:
        """Gather the workers' verdicts until all ``total`` are in or every worker has exited; raise a fatal error."""
        out: dict[str, bool | None] = {}
        while running and len(out) < total:
            try:
                item = results.get(timeout=0.25)
            except queue.Empty:
                continue
            if item[0] == "exit":
                running -= 1
            elif item[0] == "error":
                raise item[1]
            else:
                out[item[1]] = item[2]
                bar.update(1)
                if self.progress:
                    st = self.stats
                    bar.set_postfix(
                        done=st.done, cached=st.cached + st.shared, retried=st.retried, unjudged=st.unjudged,
                        refresh=False,
                    )
        return out

    def _log_shortfalls(self) -> None:
        """Warn about pairs left unjudged and finished calls the cache could not store."""
        if self.stats.unjudged:
            logger.warning(
                "%d of %d pairs are unjudged after %d retries each (%s); they are masked, not read as FALSE",
                self.stats.unjudged,
                self.stats.unique,
                self.max_retries,
                self.stats.why_unjudged(),
            )
        if self.stats.uncached:
            logger.warning(
                "%d finished calls could not be stored in the cache %s; they count in this result and will be "
                "asked again next time",
                self.stats.uncached,
                None if self.cache is None else self.cache.path,
            )

    def _claim(self, key: str, owner: str, seconds: float):
        """Claim ``key`` in the cache; a cache that fails here is reported once and then not used for claims."""
        if self._claims_off or self.cache is None:
            return "unclaimed", None
        try:
            return self.cache.claim(key, owner, seconds)
        except CacheError as exc:
            if not self._claims_off:
                self._claims_off = True
                logger.warning("could not coordinate with other processes through the cache: %s", exc)
            return "unclaimed", None

    def _retrying(self, key: str, owner: str, stop: threading.Event, lease: list[float]) -> tenacity.Retrying:
        """The retry policy of one key, declared: faults (``_Transient``) are retried ``max_retries`` times.

        Waits are full jitter with the server's ``Retry-After`` as a floor
        (capped at ``max_retry_after``, :func:`_backoff_delay`); an interrupt
        (``stop``) ends a wait at once and cancels the key.  When the retries
        run out the key is unjudged (None) and its last fault is counted.
        """

        def wait(state: tenacity.RetryCallState) -> float:
            exc = state.outcome.exception() if state.outcome is not None else None
            return _backoff_delay(self._random, state.attempt_number - 1, self.backoff_base, self.backoff_max,
                                  getattr(exc, "retry_after", None), self.max_retry_after)

        def sleep(delay: float) -> None:
            if stop.wait(delay):
                raise _Cancelled()

        def before_sleep(state: tenacity.RetryCallState) -> None:
            delay = state.upcoming_sleep
            with self._stats_lock:
                self.stats.retries += 1
                if state.attempt_number == 1:
                    self.stats.retried += 1
            exc = state.outcome.exception() if state.outcome is not None else None
            reason = getattr(exc, "reason", exc)
            logger.info("retry %d in %.2f s: %s", state.attempt_number, delay, reason)
            lease[0] = delay + self.timeout + 10.0  # the claim covers the wait and the next request
            if self.cache is not None and delay > 5.0:
                self._claim(key, owner, lease[0])

        def give_up(state: tenacity.RetryCallState) -> None:
            if stop.is_set():
                raise _Cancelled()
            exc = state.outcome.exception() if state.outcome is not None else None
            kind = getattr(exc, "kind", "unknown")
            with self._stats_lock:
                self.stats.unjudged += 1
                reasons = self.stats.unjudged_reasons
                reasons[kind] = reasons.get(kind, 0) + 1
            logger.info("pair unjudged after %d attempts (last fault: %s)", state.attempt_number,
                        getattr(exc, "reason", exc))
            return None

        return tenacity.Retrying(
            retry=tenacity.retry_if_exception_type(_Transient),
            stop=tenacity.stop_after_attempt(self.max_retries + 1) | tenacity.stop_when_event_set(stop),
            wait=wait,
            sleep=sleep,
            before_sleep=before_sleep,
            retry_error_callback=give_up,
        )

    def _judge_one(self, key: str, a: str, b: str, stop: threading.Event, owner: str) -> Any:
        """Ask about one key until it has a verdict, its retries run out (None), or it is another's (_DEFER)."""
        body: dict[str, Any] = {
            "model": self.model, "messages": [{"role": "user", "content": render_prompt(self.template, a, b)}]
        }
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        if self.constrain == "grammar":
            body["grammar"] = GRAMMAR
        elif self.constrain == "json":
            body["response_format"] = RESPONSE_FORMAT
        elif self.constrain == "json_object":
            body["response_format"] = RESPONSE_FORMAT_OBJECT
        if self.soft:
            body["logprobs"] = True
            body["top_logprobs"] = self.top_logprobs
        payload = json.dumps(body).encode("utf-8")
        cache = self.cache
        lease = [self.timeout + 10.0]
        claimed = False

        def attempt() -> tuple[str, Any, str]:
            """One try: ("stored", verdict) when another process answered it, ("busy", ...), or ("asked", ...)."""
            nonlocal claimed
            if stop.is_set():
                raise _Cancelled()
            if cache is not None:
                state, stored = self._claim(key, owner, lease[0])
                if state in ("stored", "busy"):
                    return state, stored, ""
                claimed = state == "claimed"
            verdict, answer = self._ask(payload)
            if verdict is None:
                raise _Transient(
                    "unparseable answer " + repr(answer[:60] if isinstance(answer, str) else answer),
                    kind="unparseable answer",
                )
            self._raw[key] = answer
            return "asked", verdict, answer

        try:
            outcome = self._retrying(key, owner, stop, lease)(attempt)
            if outcome is None:  # the retries ran out: unjudged
                return None
            state, verdict, answer = outcome
            if state == "stored":  # another process sharing the cache answered it
                with self._stats_lock:
                    self.stats.shared += 1
                return verdict
            if state == "busy":
                return _DEFER
            if cache is not None:
                try:
                    verdict = cache.put(key, self.model, self._template_sha, a, b, verdict, answer)
                    claimed = False
                except CacheError as exc:
                    claimed = False  # the cache is unusable now; its claims expire by themselves
                    with self._stats_lock:
                        self.stats.uncached += 1
                        first = self.stats.uncached == 1
                    if first:  # once per run (a full disk fails every write); the count comes at the end
                        logger.warning(
                            "a finished call could not be stored: %s; later calls that cannot be stored "
                            "are counted, not reported one by one", exc,
                        )
            with self._stats_lock:
                self.stats.done += 1
            return verdict
        finally:
            if claimed and cache is not None:
                try:
                    cache.release(key, owner)
                except CacheError:
                    pass

    def _ask(self, payload: bytes) -> tuple[bool | None, str]:
        """One request; returns (verdict or None, answer) or raises _Transient / LLMJudgeError."""
        with self._stats_lock:
            self.stats.requests += 1
        if self.soft:
            text, top = self._client.complete(payload, logprobs=True)
            p = soft_verdict(top)
            if p is None:
                return None, "no TRUE or FALSE among the first tokens: " + text
            return p >= self.threshold, soft_answer(p, text)
        answer = self._client.complete(payload)
        if self.constrain in ("json", "json_object"):
            return parse_json_verdict(answer), answer
        return parse_verdict(answer), answer
