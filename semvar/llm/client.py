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
  (``_Transient``), waited out with exponential backoff and full jitter;
  a server whose first answers are all HTTP 200 without chat-completions
  JSON (an HTML page, say) is a wrong URL and stops the run at once;
- each request has a total deadline (connect, send and the whole answer,
  however slowly it trickles in) and a cap on the size of the answer;
  every request in flight can be cancelled at once (:meth:`_ChatClient.abort`);
- one keep-alive connection per worker thread.

Only the standard library is used (:mod:`http.client`).  Proxies are taken
from the usual environment variables (``HTTPS_PROXY``, ``HTTP_PROXY``,
``NO_PROXY``); loopback hosts are always reached directly.
"""

from __future__ import annotations

import email.utils
import heapq
import http.client
import ipaddress
import itertools
import json
import re
import socket
import ssl
import string
import threading
import time
import urllib.request
from base64 import b64encode
from urllib.parse import unquote, urlsplit

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

    __slots__ = ("value",)

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

    ``http.client`` refuses a header value with control characters and echoes
    the whole value in its error, so the key is checked here, with a message
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


class _Deadlines:
    """One daemon thread that shuts down the socket of any request still running at its deadline.

    A socket timeout bounds each read, not the request: a server that sends
    one byte a second keeps every read short and the request alive for ever.
    Shutting the socket down from outside ends the request wherever it is
    (connecting through TLS, sending, reading headers or body).
    """

    def __init__(self):
        self._cond = threading.Condition()
        self._heap: list = []
        self._live: dict = {}
        self._count = itertools.count()
        self._thread: threading.Thread | None = None

    def arm(self, conn, deadline: float) -> int:
        with self._cond:
            token = next(self._count)
            self._live[token] = [conn, False]
            heapq.heappush(self._heap, (deadline, token))
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="llm-judge-deadlines", daemon=True)
                self._thread.start()
            self._cond.notify()
            return token

    def disarm(self, token: int) -> bool:
        """Forget ``token``; True if its deadline had already passed (its socket was shut down)."""
        with self._cond:
            entry = self._live.pop(token, None)
            return bool(entry and entry[1])

    def _loop(self) -> None:
        while True:
            with self._cond:
                while not self._heap:
                    if not self._cond.wait(5.0) and not self._heap:  # idle: let the thread go
                        self._thread = None
                        return
                deadline, token = self._heap[0]
                entry = self._live.get(token)
                if entry is None:
                    heapq.heappop(self._heap)
                    continue
                wait = deadline - time.monotonic()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                heapq.heappop(self._heap)
                entry[1] = True
                conn = entry[0]
            _shut(conn)


def _shut(conn) -> None:
    """Shut down the socket of ``conn`` (if it has one): any blocked send or receive returns at once.

    ``http.client`` sets ``conn.sock = None`` as soon as it knows that the
    server will close the connection after its answer (HTTP/1.0, or
    ``Connection: close``) and hands the socket to the response, which goes on
    reading from it.  The connection classes below keep their own reference
    (``live_sock``) that ``close`` does not drop, so the socket a response is
    still reading from can be shut down too.
    """
    for sock in (getattr(conn, "live_sock", None), getattr(conn, "sock", None)):
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class _HTTPConnection(http.client.HTTPConnection):
    """An :class:`http.client.HTTPConnection` that remembers its socket after ``close`` hands it to a response."""

    live_sock = None

    def connect(self):
        super().connect()
        self.live_sock = self.sock


class _HTTPSConnection(http.client.HTTPSConnection):
    """The same for HTTPS (the TLS socket, once the handshake is done; before it, the plain one)."""

    live_sock = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        plain = self._create_connection  # http.client sets it per instance

        def create(*a, **kw):  # keep the plain socket, so a stalled TLS handshake can be cut too
            sock = plain(*a, **kw)
            self.live_sock = sock
            return sock

        self._create_connection = create

    def connect(self):
        super().connect()
        self.live_sock = self.sock


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
    if not url or urllib.request.proxy_bypass_environment(host, proxies):
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

    ``http.client`` would fail on each of them at the first request, where the
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
    """The HTTP side of a judge: connections, headers, one chat-completions request at a time per thread.

    Takes arguments already checked (``endpoint`` from :func:`_check_base_url`,
    ``proxy`` from :func:`_proxy_for`, ``key`` from :func:`_check_key`); the
    model name only enters error messages, and so does ``key_source``: where
    the key came from, as an HTTP 401/403 names it (e.g. ``"the environment
    variable MY_KEY"``).  ``timeout`` is a total deadline per request; an
    answer longer than ``max_response_bytes`` is refused unread.
    """

    def __init__(self, endpoint, proxy, key: _Secret, timeout: float, model: str, max_response_bytes: int = 1 << 20,
                 key_source: str = _KEY_SOURCE):
        self.base_url, self._scheme, self._host, self._port, self._path = endpoint
        self._proxy = proxy
        self._key = key
        self.key_source = key_source
        self.timeout = timeout
        self.model = model
        self.max_response_bytes = max_response_bytes
        self._local = threading.local()
        self._conns: list = []
        self._conns_lock = threading.Lock()
        self._connected_once = False
        self._deadlines = _Deadlines()
        self._active: dict = {}  # thread id -> connection with a request in flight
        self._aborted = False
        self._good_200 = False
        self._bad_200 = 0

    @property
    def url(self) -> str:
        """The endpoint every request goes to."""
        return f"{self.base_url}/chat/completions"

    @property
    def proxy(self):
        """The proxy requests go through (its repr hides credentials), or None."""
        return self._proxy

    @property
    def key(self) -> _Secret:
        """The API key, wrapped so that its repr never shows it."""
        return self._key

    def _connection(self):
        conn = getattr(self._local, "conn", None)
        if conn is None:
            host, port = (self._host, self._port) if self._proxy is None else self._proxy[:2]
            if self._scheme == "https":
                conn = _HTTPSConnection(host, port, timeout=self.timeout, context=ssl.create_default_context())
                if self._proxy is not None:  # tunnel through the proxy with CONNECT
                    conn.set_tunnel(self._host, self._port, headers=self._proxy[2])
            else:
                conn = _HTTPConnection(host, port, timeout=self.timeout)
            self._local.conn = conn
            with self._conns_lock:
                self._conns.append(conn)
        return conn

    def _drop_connection(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def close(self) -> None:
        """Close every open connection (of all worker threads)."""
        with self._conns_lock:
            for conn in self._conns:
                try:
                    conn.close()
                except OSError:  # pragma: no cover - a socket already torn down
                    pass
            self._conns.clear()

    def reset(self) -> None:
        """Allow requests again after :meth:`abort`."""
        self._aborted = False

    def abort(self) -> None:
        """Cancel every request in flight: their sockets are shut down and they raise at once."""
        self._aborted = True
        with self._conns_lock:
            active = list(self._active.values())
        for conn in active:
            _shut(conn)

    def _headers(self) -> dict:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._key:
            headers["Authorization"] = "Bearer " + self._key.value
        if self._proxy is not None and self._scheme == "http":
            headers.update(self._proxy[2])
        return headers

    def _redact(self, text: str) -> str:
        return redact(text, self._key.value)

    def _read_body(self, resp) -> bytes | None:
        """The whole body, or None when it is longer than ``max_response_bytes`` (then it is not read)."""
        cap = self.max_response_bytes
        length = resp.getheader("Content-Length")
        try:
            if length is not None and int(length) > cap:
                return None
        except ValueError:
            pass
        chunks, total = [], 0
        while True:
            chunk = resp.read(min(1 << 16, cap + 1 - total))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            total += len(chunk)
            if total > cap:
                return None

    def complete(self, payload: bytes, *, logprobs: bool = False):
        """One chat-completions request; returns the answer text (key redacted) or raises _Transient / LLMJudgeError.

        With ``logprobs`` it returns ``(text, top)``, ``top`` the first token's ``top_logprobs`` (a list of
        ``{"token", "logprob"}``), or raises _Transient when the answer has none.
        """
        if self._aborted:
            raise _Transient("cancelled", kind="cancelled")
        conn = self._connection()
        me = threading.get_ident()
        deadline = time.monotonic() + self.timeout
        conn.timeout = self.timeout  # bounds the connect; the deadline bounds everything
        if conn.sock is not None:
            conn.sock.settimeout(self.timeout)
        with self._conns_lock:
            self._active[me] = conn
        token = self._deadlines.arm(conn, deadline)
        expired = False
        try:
            target = self._path
            if self._proxy is not None and self._scheme == "http":  # a forward proxy wants the absolute URL
                target = f"http://{self._host}:{self._port}{self._path}"
            conn.request("POST", target, body=payload, headers=self._headers())
            resp = conn.getresponse()
            status = resp.status
            retry_after = _retry_after_seconds(resp.getheader("Retry-After"))
            content_type = resp.getheader("Content-Type") or "no Content-Type"
            data = self._read_body(resp)
            if data is None or resp.will_close:
                self._drop_connection()
            if self._deadlines.disarm(token):  # cut off at the deadline: a body read to EOF may be short
                raise TimeoutError
            if self._aborted:
                raise ConnectionAbortedError
        except TimeoutError:
            self._drop_connection()
            raise _Transient(f"no complete answer within {self.timeout:g} s", kind="timeout") from None
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
            raise _Transient("connection refused", kind="connection refused") from None
        except socket.gaierror:
            self._drop_connection()
            raise EndpointError(
                f"could not resolve the host {self._host!r} of {self.url}. Check base_url for typos and your network."
            ) from None
        except ssl.SSLCertVerificationError as exc:
            self._drop_connection()
            raise EndpointError(f"TLS certificate check failed for {self.url}: {exc.verify_message}") from None
        except (OSError, http.client.HTTPException, ValueError) as exc:
            self._drop_connection()
            expired = self._deadlines.disarm(token)
            if self._aborted:
                raise _Transient("cancelled", kind="cancelled") from None
            if expired:
                raise _Transient(f"no complete answer within {self.timeout:g} s", kind="timeout") from None
            raise _Transient(f"connection fault ({type(exc).__name__})", kind="connection fault") from None
        finally:
            self._deadlines.disarm(token)
            with self._conns_lock:
                self._active.pop(me, None)
        self._connected_once = True
        if data is None:
            raise _Transient(
                f"HTTP {status} with an answer longer than {self.max_response_bytes} bytes (not read)",
                kind=f"answer longer than {self.max_response_bytes} bytes",
            )
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
