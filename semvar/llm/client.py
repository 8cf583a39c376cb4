"""HTTP to an OpenAI-compatible chat endpoint, with the care a long run needs.

- the API key (argument, or the environment variable ``api_key_env`` names,
  ``OPENAI_API_KEY`` by default) is sent only in the ``Authorization``
  header: it is never logged, cached, shown in a ``repr`` or in an error
  message, and it is redacted from answers that echo it;
- the base URL is checked before any request (characters no request can
  carry, a port outside 1 to 65535, credentials), and HTTP 401/403 (naming
  where the key came from) and a wrong base URL raise at once with a message
  that says what to check;
- HTTP 5xx, 408, 409, 425 and 429 (with ``Retry-After``), timeouts,
  connection resets and malformed JSON are faults worth retrying
  (``_Transient``); :class:`~semvar.llm.LLMJudge` waits them out with
  exponential backoff and full jitter (:func:`_backoff_delay`, a
  :mod:`tenacity` wait), at least the ``Retry-After`` (capped);
  a server whose first answers are all HTTP 200 without chat-completions
  JSON (an HTML page, say) is a wrong URL and stops the run at once;
- each request has a total deadline (connect, send and the whole answer,
  however slowly it trickles in) and a cap on the size of the answer;
  every request in flight can be cancelled at once (:meth:`_ChatClient.abort`);
- keep-alive connections, shared by the worker threads.

The transport is :mod:`httpx2` (the maintained successor of httpx, which
huggingface_hub also uses); the deadline is a wrapper around it: every
network stream a request opens (httpcore's ``trace`` extension) reads and
writes with at most the time left, and a watchdog thread shuts the sockets
of a request down at its deadline.  A user may pass their own
``httpx2.Client`` (or ``httpx.Client``) for proxies, TLS or auth.  Without
one, proxies are taken from the usual environment variables
(``HTTPS_PROXY``, ``HTTP_PROXY``, ``NO_PROXY``); loopback hosts are always
reached directly.
"""

from __future__ import annotations

import email.utils
import heapq
import importlib
import ipaddress
import itertools
import json
import logging
import re
import socket
import ssl
import string
import threading
import time
import urllib.request
import weakref
from base64 import b64encode
from types import ModuleType
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx2

from .._redact import redact

__all__ = ["LLMJudgeError", "AuthenticationError", "EndpointError"]

_RETRY_STATUS = frozenset({408, 409, 425, 429}) | frozenset(range(500, 600))
#: HTTP 200 answers without chat-completions JSON, before any good one, that mean a wrong endpoint
_BAD_200_LIMIT = 3
#: characters of a server's text shown in an error message (after the key is redacted)
_SHOW = 300


class LLMJudgeError(RuntimeError):
    """A fault that retrying cannot fix; the message says what to check."""


class AuthenticationError(LLMJudgeError):
    """The server refused the credentials (HTTP 401 or 403)."""


class EndpointError(LLMJudgeError):
    """The endpoint is wrong or rejects the request (404, connection refused, unknown host, other 4xx)."""


class _Secret:
    """Holds the API key; its repr never shows it."""

    __slots__ = ("value", "__weakref__")

    def __init__(self, value: str | None):
        self.value = value or None

    def __repr__(self) -> str:
        return "<set>" if self.value else "<none>"

    def __bool__(self) -> bool:
        return bool(self.value)


#: where a key came from, as messages name it, when the caller does not say (see LLMJudge's api_key_env)
_KEY_SOURCE = "the api_key argument or the OPENAI_API_KEY environment variable"


def _check_key(key: str | None, source: str = _KEY_SOURCE) -> str | None:
    """Strip surrounding whitespace (a key read from a file keeps its newline); reject what no header can carry.

    An HTTP library refuses a header value with control characters and may
    echo the whole value in its error, so the key is checked here, with a message
    that names where the key came from (``source``) and does not show it.
    """
    if key is None:
        return None
    key = key.strip()
    if any(not (0x21 <= ord(c) <= 0x7E) for c in key):
        raise ValueError(
            f"api_key ({source}) contains spaces, control or non-ASCII characters; an API key is one "
            "token of printable ASCII characters. Check how the key was copied (the key itself is not shown)."
        )
    return key


class _Transient(Exception):
    """A fault worth retrying; ``retry_after`` in seconds when the server said so.

    ``kind`` is a short category (counted in the run's statistics), ``reason``
    the detail for the log.
    """

    def __init__(self, reason: str, retry_after: float | None = None, kind: str | None = None):
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after
        self.kind = kind or reason


def _shorten(text: str, limit: int = _SHOW) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


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


def _backoff_delay(rng, attempt: int, base: float, cap: float, retry_after: float | None, max_retry_after: float) -> float:
    """Seconds to wait before retry ``attempt`` (0, 1, ...).

    Uniform in ``[0, min(cap, base * 2**attempt)]`` (full jitter), and at
    least the server's ``Retry-After`` (itself capped at ``max_retry_after``).
    """
    delay = rng.uniform(0.0, min(cap, base * 2.0**attempt))
    if retry_after is not None:
        delay = max(delay, min(retry_after, max_retry_after))
    return delay


def _loads(data):
    """``json.loads(data)``, with nesting too deep to parse (``RecursionError``) reported as a ValueError."""
    try:
        return json.loads(data)
    except RecursionError:
        raise ValueError("JSON nested too deeply to parse") from None


class _NotText(Exception):
    """The completion's content is JSON that is not text (true, a number, a list of strings, null)."""


def _first_top_logprobs(choice) -> list:
    """The first token's ``top_logprobs`` of a chat-completions choice; _Transient when it has none."""
    try:
        top = choice["logprobs"]["content"][0]["top_logprobs"]
    except (KeyError, IndexError, TypeError):
        top = None
    if not isinstance(top, list) or not top:
        raise _Transient("no log-probabilities in the answer (does the server support logprobs and top_logprobs?)",
                         kind="no log-probabilities in the answer")
    return top


def _content_text(content) -> str:
    """The text of a completion's ``message.content``.

    A string is the answer.  A list of content parts (the OpenAI format
    ``[{"type": "text", "text": "..."}, ...]``) is the concatenation of the
    ``text`` of its text parts.  Anything else -- JSON ``true``, a number,
    ``null``, a list of bare strings such as ``["TRUE"]`` -- is not an answer
    in either format and raises :class:`_NotText` (the call is then an
    unparseable answer), so a verdict is never read from the ``repr`` of a
    structure.
    """
    if isinstance(content, str):
        return content
    if isinstance(content, list) and content:
        texts = []
        for part in content:
            if not (isinstance(part, dict) and part.get("type", "text") == "text" and isinstance(part.get("text"), str)):
                if isinstance(part, dict) and isinstance(part.get("type"), str) and part["type"] != "text":
                    continue  # an image or other part carries no verdict; skip it
                raise _NotText(f"a content part that is not a text part ({type(part).__name__})")
            texts.append(part["text"])
        if texts:
            return "".join(texts)
    raise _NotText(f"content of JSON type {type(content).__name__} rather than text")


def _error_message(data: bytes, secret: str | None = None) -> str:
    """The server's error text, with ``secret`` redacted *before* it is shortened."""
    try:
        obj = _loads(data)
        msg = obj["error"]["message"] if isinstance(obj.get("error"), dict) else obj.get("error") or obj
    except (ValueError, KeyError, TypeError, AttributeError):
        msg = data.decode("utf-8", "replace")
    msg = redact(str(msg), secret).strip()
    return _shorten(msg) if msg else "no message"


class _Request:
    """One request in flight: its deadline and the sockets it has used.

    At the deadline (:class:`_Deadlines`) or on :meth:`_ChatClient.abort` the
    sockets are shut down, which ends any blocked connect, send or receive at
    once, wherever the request is (TLS handshake, headers, body).
    """

    __slots__ = ("deadline", "sockets", "expired", "cut_off", "lock")

    def __init__(self, deadline: float):
        self.deadline = deadline
        self.sockets: list[socket.socket] = []
        self.expired = False  # its deadline passed
        self.cut_off = False  # its sockets were shut down (deadline or abort)
        self.lock = threading.Lock()

    def adopt(self, stream: Any) -> None:
        """Remember the socket under ``stream`` (an httpcore network stream); shut it at once if already cut off."""
        try:
            sock = stream.get_extra_info("socket")
        except Exception:  # noqa: BLE001 - a stream without a socket (a test transport, say)
            return
        if not isinstance(sock, socket.socket):
            return
        with self.lock:
            if not any(s is sock for s in self.sockets):
                self.sockets.append(sock)
            cut = self.cut_off
        if cut:
            _shutdown(sock)

    def cut(self, *, expired: bool) -> None:
        """Shut down every socket of this request; ``expired`` when its deadline is the reason."""
        with self.lock:
            self.cut_off = True
            self.expired = self.expired or expired
            sockets = list(self.sockets)
        for sock in sockets:
            _shutdown(sock)


def _shutdown(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


#: the request in flight on each thread (a worker thread sends one request at a time)
_CURRENT = threading.local()


def _time_left(stream: Any, timeout: float | None) -> float | None:
    """The timeout of one read or write on ``stream``: at most the time left to the request in flight on this thread.

    Raises TimeoutError once that request's deadline has passed, so a server
    that trickles its answer out one byte at a time cannot hold the request
    past its deadline (a limit per read alone would let it).
    """
    request = getattr(_CURRENT, "request", None)
    if request is None:  # the stream used outside a request of this module (a client the user shares)
        return timeout
    request.adopt(stream)
    left = request.deadline - time.monotonic()
    if left <= 0.0 or request.cut_off:
        raise TimeoutError("the request's deadline has passed")
    return left if timeout is None else min(timeout, left)


def _watch(stream: Any) -> None:
    """Make every read and write of an httpcore network stream keep to the deadline of the request in flight.

    httpcore hands the stream out through its ``trace`` extension when it
    opens a connection (and httpx as ``network_stream`` once the headers are
    in); reads and writes are then bounded by :func:`_time_left`, on this
    request and on every later one that reuses the connection.
    """
    if getattr(stream, "_semvar_deadline", False):
        return
    read, write = stream.read, stream.write

    def read_by_deadline(max_bytes: int, timeout: float | None = None) -> bytes:
        return read(max_bytes, _time_left(stream, timeout))

    def write_by_deadline(buffer: bytes, timeout: float | None = None) -> None:
        write(buffer, _time_left(stream, timeout))

    try:
        stream.read = read_by_deadline
        stream.write = write_by_deadline
        stream._semvar_deadline = True
    except AttributeError:  # a stream class that takes no attributes: the deadline thread still cuts it
        pass


_NEW_STREAM = ("connect_tcp.complete", "connect_unix_socket.complete", "start_tls.complete")


def _trace(event: str, info: dict) -> None:
    """httpcore's ``trace`` extension: every stream a request opens is watched and adopted by the request."""
    if event.endswith(_NEW_STREAM):
        stream = info.get("return_value")
        request = getattr(_CURRENT, "request", None)
        if stream is not None:
            _watch(stream)
            if request is not None:
                request.adopt(stream)


class _Deadlines:
    """One daemon thread that cuts off (:meth:`_Request.cut`) any request still running at its deadline.

    A timeout per read does not bound a request, and a stream the deadline
    wrapper (:func:`_watch`) does not know yet -- one that is still in its
    TLS handshake, say -- is only stopped by shutting its socket down from
    outside.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int]] = []
        self._live: dict[int, _Request] = {}
        self._count = itertools.count()
        self._thread: threading.Thread | None = None

    def arm(self, request: _Request) -> int:
        with self._cond:
            token = next(self._count)
            self._live[token] = request
            heapq.heappush(self._heap, (request.deadline, token))
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="llm-judge-deadlines", daemon=True)
                self._thread.start()
            self._cond.notify()
            return token

    def disarm(self, token: int) -> bool:
        """Forget ``token``; True if its deadline had already passed (its sockets were shut down)."""
        with self._cond:
            request = self._live.pop(token, None)
            return bool(request is not None and request.expired)

    def _loop(self) -> None:
        while True:
            with self._cond:
                while not self._heap:
                    if not self._cond.wait(5.0) and not self._heap:  # idle: let the thread go
                        self._thread = None
                        return
                deadline, token = self._heap[0]
                request = self._live.get(token)
                if request is None:
                    heapq.heappop(self._heap)
                    continue
                wait = deadline - time.monotonic()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                heapq.heappop(self._heap)
            request.cut(expired=True)


class _RedactKeys(logging.Filter):
    """Blank out the keys of live clients in the records of httpx's and httpcore's loggers.

    At DEBUG level httpcore logs the headers of each answer; a server that
    echoes the key in a header would otherwise put it in the log.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        keys = [s.value for s in list(_LIVE_KEYS) if s.value]
        if keys:
            message = record.getMessage()
            clean = redact(message, *keys, urls=False)
            if clean != message:
                record.msg, record.args = clean, None
        return True


_LIVE_KEYS: weakref.WeakSet[_Secret] = weakref.WeakSet()
_LOGGERS = ("connection", "http11", "http2", "proxy", "socks")
_FILTERED: set[str] = set()


def _filter_http_logs(module: str) -> None:
    """Put :class:`_RedactKeys` on the loggers of ``module`` (``httpx2`` or ``httpx``) and of its httpcore."""
    core = module.replace("httpx", "httpcore")
    for name in (module, *(f"{core}.{part}" for part in _LOGGERS)):
        if name not in _FILTERED:
            _FILTERED.add(name)
            logging.getLogger(name).addFilter(_RedactKeys())


def _http_module(client: Any) -> ModuleType:
    """The httpx module of a user's client (``httpx2`` or ``httpx``); TypeError for anything else."""
    root = type(client).__module__.partition(".")[0]
    if root in ("httpx2", "httpx"):
        module = importlib.import_module(root)
        if isinstance(client, module.Client):
            if client.is_closed:
                raise ValueError("http_client is closed; pass an open httpx2.Client (or httpx.Client)")
            return module
    raise TypeError(
        "http_client must be a synchronous httpx2.Client or httpx.Client (for your proxy, TLS or auth settings), "
        f"got {type(client).__name__}"
    )


def _cause(exc: BaseException, kind: type | tuple) -> BaseException | None:
    """The first exception of type ``kind`` among ``exc`` and its causes (httpx wraps the socket's error twice)."""
    seen = 0
    e: BaseException | None = exc
    while e is not None and seen < 10:
        if isinstance(e, kind):
            return e
        e = e.__cause__ or e.__context__
        seen += 1
    return None


_LOOPBACK = ("localhost", "127.0.0.1", "::1")


def _is_loopback(host: str) -> bool:
    """True for a host name or address of this machine (``localhost``, 127.0.0.0/8, ``::1``)."""
    return host in _LOOPBACK or host.startswith("127.") or host.lower().endswith(".localhost")


def _proxy_for(scheme: str, host: str):
    """``(proxy_host, proxy_port, headers)`` from HTTP(S)_PROXY / NO_PROXY, or None.

    Loopback hosts never go through a proxy (a proxy cannot reach your
    localhost).  Proxy credentials in the URL become a Proxy-Authorization
    header; like the API key they are never shown.
    """
    if _is_loopback(host):
        return None
    proxies = urllib.request.getproxies_environment()
    url = proxies.get(scheme)
    # the ignore below: CPython has proxy_bypass_environment (what getproxies honours); typeshed omits it
    if not url or urllib.request.proxy_bypass_environment(host, proxies):  # type: ignore[attr-defined]
        return None
    if "://" not in url:
        url = "http://" + url
    parts = urlsplit(url)
    if not parts.hostname:
        return None
    headers = {}
    if parts.username is not None:
        token = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
        headers["Proxy-Authorization"] = "Basic " + b64encode(token).decode("ascii")
    return _Proxy(parts.hostname, parts.port or (443 if parts.scheme == "https" else 80), headers)


class _Proxy(tuple):
    """``(host, port, headers)`` of a proxy; its repr hides the headers (they may hold credentials)."""

    def __new__(cls, host: str, port: int, headers: dict):
        return super().__new__(cls, (host, port, headers))

    def __repr__(self) -> str:
        return f"<proxy {self[0]}:{self[1]}>"

    __str__ = __repr__


# characters a URL's path may hold unescaped (RFC 3986, section 3.3: unreserved, sub-delims, ":", "@" and "/")
_PATH_CHARS = frozenset(string.ascii_letters + string.digits + "-._~" + "!$&'()*+,;=" + ":@/")
_PERCENT_RE = re.compile(r"%[0-9A-Fa-f]{2}")


def _named(c: str) -> str:
    """A character as a message shows it: ``a space``, or its repr and code point."""
    return "a space" if c == " " else f"{c!r} (U+{ord(c):04X})"


def _check_url_characters(url: str, parts, shown: str) -> None:
    """Refuse what no request can carry: spaces and control characters, a bad host, unescaped characters in the path.

    The HTTP library would fail on each of them at the first request, where the
    fault looks like a broken connection; here the message names base_url.
    """
    for c in url:
        if c.isspace() or not c.isprintable():
            raise ValueError(
                f"base_url holds {_named(c)}, which no URL may hold (percent-encode it in the path, e.g. a space "
                f"as %20), got {shown}"
            )
    host = parts.hostname
    if parts.netloc.rpartition("@")[2].startswith("["):
        try:
            ipaddress.IPv6Address(host.split("%")[0])
        except ValueError:
            raise ValueError(f"base_url has the host [{host}], which is not an IPv6 address, got {shown}") from None
    else:
        for c in host:
            if not (c.isalnum() or c in "-._"):  # a letter of another script is kept: an international name
                raise ValueError(
                    f"base_url has the host {host!r}, which holds {_named(c)}: a host name is letters, digits, "
                    f"'-', '.' and '_' (or an IP address), got {shown}"
                )
        try:
            host.encode("idna")
        except UnicodeError:
            raise ValueError(f"base_url has the host {host!r}, which is not a valid host name, got {shown}") from None
    path = parts.path
    for i, c in enumerate(path):
        if c == "%" and not _PERCENT_RE.match(path, i):
            raise ValueError(
                f"base_url holds '%' in its path without two hex digits after it (write a '%' itself as %25), "
                f"got {shown}"
            )
        if c != "%" and c not in _PATH_CHARS:
            raise ValueError(
                f"base_url holds {_named(c)} in its path, which a URL may not hold unescaped: percent-encode it "
                f"(as %XX of its UTF-8 bytes), got {shown}"
            )


def _url_port(parts, shown: str) -> int:
    """The port of a split URL: the one it names (1 to 65535), else 443 for https and 80 for http."""
    hostport = parts.netloc.rpartition("@")[2]
    if hostport.startswith("["):
        tail = hostport.partition("]")[2]
        text = tail[1:] if tail.startswith(":") else ""
    else:
        text = hostport.rpartition(":")[2] if ":" in hostport else ""
    if not text:
        return 443 if parts.scheme == "https" else 80
    if not (text.isascii() and text.isdigit()):
        raise ValueError(f"base_url is not a valid URL (check the host and port), got {shown}")
    port = int(text)
    if not 1 <= port <= 65535:
        raise ValueError(f"base_url has the port {port}; a port is a number from 1 to 65535, got {shown}")
    return port


def _check_base_url(base_url, key_hint: str = "api_key or OPENAI_API_KEY"):
    """Split a base URL; every message shows it redacted (:func:`semvar._redact.redact`).

    Returns ``(url, scheme, host, port, path of the endpoint)``.  Refused with
    a ValueError naming base_url: a URL that is not http(s), carries
    credentials, a query or a fragment, holds characters no request can carry
    (spaces, control characters, unescaped characters in the path, a host
    that is not a host name), or a port outside 1 to 65535.
    """
    if not isinstance(base_url, str) or not base_url.strip():
        shown = redact(repr(base_url)) if isinstance(base_url, str) else type(base_url).__name__
        raise ValueError(f"base_url must be a URL such as 'http://localhost:8000/v1', got {shown}")
    url = base_url.strip().rstrip("/")
    shown = redact(repr(base_url))
    try:
        parts = urlsplit(url)
    except ValueError:
        raise ValueError(f"base_url is not a valid URL (check the host and port), got {shown}") from None
    if "@" in parts.netloc:
        raise ValueError(f"base_url must not carry credentials (got {shown}); pass the key as {key_hint}")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"base_url must start with http:// or https:// and name a host, got {shown}")
    _check_url_characters(url, parts, shown)
    if parts.query or parts.fragment:
        raise ValueError(f"base_url must not have a query or fragment, got {shown}")
    port = _url_port(parts, shown)
    if parts.path.endswith("/chat/completions"):
        raise ValueError(
            f"base_url is the API root without the endpoint: use {url[: -len('/chat/completions')]!r}, "
            f"not {shown}"
        )
    return url, parts.scheme, parts.hostname, port, parts.path + "/chat/completions"


class _ChatClient:
    """The HTTP side of a judge: one chat-completions request at a time per worker thread, on httpx.

    Takes arguments already checked (``endpoint`` from :func:`_check_base_url`,
    ``proxy`` from :func:`_proxy_for`, ``key`` from :func:`_check_key`); the
    model name only enters error messages, and so does ``key_source``: where
    the key came from, as an HTTP 401/403 names it (e.g. ``"the environment
    variable MY_KEY"``).  ``timeout`` is a total deadline per request; an
    answer longer than ``max_response_bytes`` is refused unread.

    ``http_client`` is a user's :class:`httpx2.Client` (or ``httpx.Client``),
    with their proxy, TLS and auth settings; it is used as it is (``proxy`` is
    then not used) and never closed here.  Without it the client builds its
    own: keep-alive connections, no redirects, the proxy ``proxy`` names,
    certificates checked against the system's defaults
    (:func:`ssl.create_default_context`).
    """

    def __init__(self, endpoint, proxy, key: _Secret, timeout: float, model: str, max_response_bytes: int = 1 << 20,
                 key_source: str = _KEY_SOURCE, http_client: Any = None):
        self.base_url, self._scheme, self._host, self._port, self._path = endpoint
        self._user_client = http_client
        self._httpx = httpx2 if http_client is None else _http_module(http_client)
        self._proxy = proxy if http_client is None else None
        self._key = key
        self.key_source = key_source
        self.timeout = timeout
        self.model = model
        self.max_response_bytes = max_response_bytes
        self._own_client: Any = None
        self._conns_lock = threading.Lock()
        self._connected_once = False
        self._deadlines = _Deadlines()
        self._active: dict[int, _Request] = {}  # thread id -> the request it has in flight
        self._aborted = False
        self._good_200 = False
        self._bad_200 = 0
        _LIVE_KEYS.add(key)
        _filter_http_logs(self._httpx.__name__)

    @property
    def url(self) -> str:
        """The endpoint every request goes to."""
        return f"{self.base_url}/chat/completions"

    @property
    def proxy(self) -> _Proxy | None:
        """The proxy requests go through (its repr hides credentials), or None."""
        return self._proxy

    @property
    def key(self) -> _Secret:
        """The API key, wrapped so that its repr never shows it."""
        return self._key

    def _http(self) -> Any:
        """The httpx client requests go through: the user's, else this client's own (made when first needed)."""
        if self._user_client is not None:
            return self._user_client
        with self._conns_lock:
            if self._own_client is None:
                proxy = None
                if self._proxy is not None:
                    host = f"[{self._proxy[0]}]" if ":" in self._proxy[0] else self._proxy[0]
                    proxy = httpx2.Proxy(f"http://{host}:{self._proxy[1]}", headers=self._proxy[2])
                transport = httpx2.HTTPTransport(
                    verify=ssl.create_default_context(), trust_env=False, proxy=proxy,
                    limits=httpx2.Limits(max_connections=None, max_keepalive_connections=256),
                )
                self._own_client = httpx2.Client(transport=transport, trust_env=False, follow_redirects=False)
            return self._own_client

    def close(self) -> None:
        """Close this client's own connections (of all worker threads); a user's client is left open."""
        with self._conns_lock:
            own, self._own_client = self._own_client, None
        if own is not None:
            own.close()

    def reset(self) -> None:
        """Allow requests again after :meth:`abort`."""
        self._aborted = False

    def abort(self) -> None:
        """Cancel every request in flight: their sockets are shut down and they raise at once."""
        self._aborted = True
        with self._conns_lock:
            active = list(self._active.values())
        for request in active:
            request.cut(expired=False)

    def _headers(self) -> dict[str, str]:
        # the bytes as sent: a compressed answer is not decoded (the size cap counts what arrives)
        headers = {"Content-Type": "application/json", "Accept": "application/json", "Accept-Encoding": "identity"}
        if self._key.value:
            headers["Authorization"] = "Bearer " + self._key.value
        return headers

    def _redact(self, text: str) -> str:
        return redact(text, self._key.value)

    def _read_body(self, resp: Any) -> bytes | None:
        """The whole body, or None when it is longer than ``max_response_bytes`` (then it is not read further)."""
        cap = self.max_response_bytes
        length = resp.headers.get("Content-Length")
        try:
            if length is not None and int(length) > cap:
                return None
        except ValueError:
            pass
        chunks, total = [], 0
        for chunk in resp.iter_raw():  # as sent, never decoded
            chunks.append(chunk)
            total += len(chunk)
            if total > cap:
                return None
        return b"".join(chunks)

    def _send(self, payload: bytes) -> tuple[int, float | None, str, bytes | None]:
        """POST ``payload`` within the deadline: (status, Retry-After, Content-Type, body or None if too long).

        Raises TimeoutError when the deadline cut the request off, else what httpx raised.
        """
        http = self._http()
        request = _Request(time.monotonic() + self.timeout)
        me = threading.get_ident()
        with self._conns_lock:
            self._active[me] = request
        token = self._deadlines.arm(request)
        _CURRENT.request = request
        try:
            with http.stream("POST", self.url, content=payload, headers=self._headers(), timeout=self.timeout,
                             extensions={"trace": _trace}) as resp:
                stream = resp.extensions.get("network_stream")
                if stream is not None:  # also a connection opened before this request (by a user's client)
                    _watch(stream)
                    request.adopt(stream)
                status = resp.status_code
                retry_after = _retry_after_seconds(resp.headers.get("Retry-After"))
                content_type = resp.headers.get("Content-Type") or "no Content-Type"
                data = self._read_body(resp)
        except Exception:
            if request.expired:  # the fault is the socket shut down at the deadline
                raise TimeoutError from None
            raise
        finally:
            _CURRENT.request = None
            expired = self._deadlines.disarm(token)
            with self._conns_lock:
                self._active.pop(me, None)
        if expired:  # cut off at the deadline: a body read to EOF may be short
            raise TimeoutError
        if self._aborted:
            raise ConnectionAbortedError
        return status, retry_after, content_type, data

    def complete(self, payload: bytes, *, logprobs: bool = False) -> Any:
        """One chat-completions request; returns the answer text (key redacted) or raises _Transient / LLMJudgeError.

        With ``logprobs`` it returns ``(text, top)``, ``top`` the first token's ``top_logprobs`` (a list of
        ``{"token", "logprob"}``), or raises _Transient when the answer has none.
        """
        if self._aborted:
            raise _Transient("cancelled", kind="cancelled")
        hx = self._httpx
        try:
            status, retry_after, content_type, data = self._send(payload)
        except (OSError, hx.HTTPError, hx.StreamError, ValueError) as exc:
            timed_out = _cause(exc, (TimeoutError, hx.TimeoutException)) is not None
            if self._aborted:
                raise _Transient("cancelled", kind="cancelled") from None
            if timed_out:
                raise _Transient(f"no complete answer within {self.timeout:g} s", kind="timeout") from None
            self._fail_to_connect(exc)
            raise _Transient(f"connection fault ({type(exc).__name__})", kind="connection fault") from None
        self._connected_once = True
        if data is None:
            raise _Transient(
                f"HTTP {status} with an answer longer than {self.max_response_bytes} bytes (not read)",
                kind=f"answer longer than {self.max_response_bytes} bytes",
            )
        return self._parse(status, retry_after, content_type, data, logprobs)

    def _fail_to_connect(self, exc: BaseException) -> None:
        """Raise EndpointError for a fault that retrying cannot fix: refused (before any answer), unknown host, TLS."""
        if _cause(exc, ConnectionRefusedError) is not None:
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
            raise _Transient("connection refused", kind="connection refused") from None
        if _cause(exc, socket.gaierror) is not None:
            raise EndpointError(
                f"could not resolve the host {self._host!r} of {self.url}. Check base_url for typos and your network."
            ) from None
        cert = _cause(exc, ssl.SSLCertVerificationError)
        if cert is not None:
            raise EndpointError(
                f"TLS certificate check failed for {self.url}: {getattr(cert, 'verify_message', cert)}"
            ) from None

    def _parse(self, status: int, retry_after: float | None, content_type: str, data: bytes, logprobs: bool) -> Any:
        """The answer of an HTTP response already read, or the error it means."""
        if 200 <= status < 300:  # 200, or another success code (201, ...) with a completion
            try:
                choice = _loads(data)["choices"][0]
                content = choice["message"]["content"]
            except (ValueError, KeyError, IndexError, TypeError):
                snippet = _shorten(" ".join(self._redact(data.decode("utf-8", "replace")).split()), 80)
                self._note_bad_200(f"HTTP {status}, {content_type}: {snippet!r}")
                raise _Transient(
                    f"malformed JSON in an HTTP {status} response", kind=f"malformed JSON in a {status} response"
                ) from None
            self._good_200 = True
            try:
                text = self._redact(_content_text(content))
            except _NotText as exc:
                raise _Transient(f"unparseable answer: {exc}", kind="unparseable answer") from None
            if not logprobs:
                return text
            return text, _first_top_logprobs(choice)
        message = _error_message(data, self._key.value)
        if status in (401, 403):
            raise AuthenticationError(
                f"{self.url} answered HTTP {status} ({message}): the server refused the credentials. Check the API "
                f"key ({self.key_source}"
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

    def _note_bad_200(self, what: str) -> None:
        """Count an HTTP 200 that is not a chat completion; before any good one, a few of them mean a wrong URL."""
        with self._conns_lock:
            self._bad_200 += 1
            fatal = not self._good_200 and self._bad_200 >= _BAD_200_LIMIT
        if fatal:
            raise EndpointError(
                f"{self.url} answered HTTP 200 to the first {_BAD_200_LIMIT} requests, but not with chat-completions "
                f"JSON (last: {what}). This is not an OpenAI-compatible chat endpoint: check base_url (the API root, "
                "for most servers ending in /v1, e.g. http://localhost:8000/v1; /chat/completions is appended), and "
                "that no proxy or login page answers in its place."
            )
