"""A local, simulated OpenAI-compatible chat endpoint with a known ground truth.

:class:`SimulatedEndpoint` is a real HTTP server (standard library only) that
listens on ``127.0.0.1`` and answers ``POST /v1/chat/completions`` the way an
OpenAI-compatible server does.  It is **not** a language model: it reads the
two texts out of the judge prompt, looks up their known meaning labels and
answers ``TRUE`` or ``FALSE`` from that ground truth, optionally flipped at
random so that the judged graph is a stochastic block model with chosen
``p`` and ``q`` (Liu 2025, eqs. 3-4).  It can also inject the faults a real
server produces (HTTP 5xx, 429 with ``Retry-After``, answers slower than the
client's timeout, connection resets, malformed JSON, answers that start with
neither TRUE nor FALSE), and it counts every request per text pair, so a test
or a chapter can check that a client lost no call and repeated none.

It exists for the tests of :mod:`semvar.llm` and for the book's LLM
judge page, where every output produced with it is labelled as simulated.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .._validation import check_bool, check_int, check_option, check_probability, check_real

__all__ = ["SimulatedEndpoint", "extract_texts", "FAULT_KINDS", "HOSTILE_FAULT_KINDS"]

#: fault kinds the endpoint can inject (and cycles through by default)
FAULT_KINDS = ("500", "503", "429", "timeout", "reset", "malformed", "unparseable")
#: further faults, used only when asked for: an HTML page with HTTP 200 (a login page or a wrong
#: route), an answer trickled out one byte every ``delay`` seconds, and an answer of 10 MB
HOSTILE_FAULT_KINDS = ("html", "trickle", "huge")
#: how the endpoint may word its answers
STYLES = ("plain", "markdown", "lower")

_PAIR_RE = re.compile(r"TEXT A:[ \t]*\n(?P<a>.*?)\n[ \t]*\n[ \t]*TEXT B:[ \t]*\n(?P<b>.*?)\n[ \t]*\n", re.DOTALL)


def extract_texts(prompt: str) -> tuple[str, str]:
    """Read TEXT A and TEXT B back out of a prompt shaped like Liu (2025, appendix C).

    Each text is the block after its ``TEXT A:`` / ``TEXT B:`` line, up to the
    next blank line, with surrounding spaces stripped.

    >>> extract_texts("x\\nTEXT A:\\nred car\\n\\nTEXT B:\\ncar, red\\n\\n## OUTPUT")
    ('red car', 'car, red')
    """
    m = _PAIR_RE.search(prompt)
    if m is None:
        raise ValueError("prompt does not contain a 'TEXT A:' ... 'TEXT B:' block")
    return m.group("a").strip(), m.group("b").strip()


def _check_options(values: Sequence[str], name: str, options: tuple[str, ...]) -> tuple[str, ...]:
    """A non-empty sequence of strings, each one of ``options``."""
    values = tuple(values)
    if not values:
        raise ValueError(f"{name} must be a non-empty sequence of {options}, got ()")
    for i, value in enumerate(values):
        check_option(value, f"{name}[{i}]", options)
    return values


def _pair_uniform(seed: int, a: str, b: str) -> float:
    """A uniform number fixed by (seed, a, b): the same ordered pair always gets the same draw."""
    h = hashlib.sha256(json.dumps([seed, a, b]).encode("utf-8")).digest()
    return int.from_bytes(h[:8], "big") / 2.0**64


class SimulatedEndpoint:
    """A threaded HTTP server that simulates an OpenAI-compatible judge from known labels.

    Parameters
    ----------
    labels : mapping of str to hashable
        The true meaning label of every text the endpoint may be asked about.
    p, q : float in [0, 1]
        Probability of answering TRUE for a pair with the same label (``p``) or
        different labels (``q``).  The defaults answer the ground truth
        exactly.  The draw is fixed per ordered pair (and ``seed``), so asking
        again gives the same answer, as a model at temperature 0 would.
    seed : int
        Seeds the per-pair draws.
    api_key : str, optional
        If given, requests must carry ``Authorization: Bearer <api_key>``;
        others get HTTP 401.
    model : str, optional
        If given, requests for another model get HTTP 404 (``model_not_found``).
    fault_every : int
        Every ``fault_every``-th request (counted over the whole server) gets a
        fault instead of an answer; 0 disables faults.
    faults : sequence of str
        Fault kinds, used in turn (see :data:`FAULT_KINDS` and
        :data:`HOSTILE_FAULT_KINDS`).
    delay : float
        Seconds a ``"timeout"`` fault waits before answering (set it above the
        client's timeout); for ``"trickle"``, the seconds between bytes.
    retry_after : str
        Value of the ``Retry-After`` header sent with HTTP 429.
    styles : sequence of str
        Answer styles used in turn: ``"plain"`` (``TRUE. ...``), ``"markdown"``
        (``**True**``), ``"lower"`` (two spaces, then ``false, because ...``).
    resample : bool
        Draw every answer afresh (from ``seed`` and the request's number)
        instead of once per ordered pair: a judge at a temperature above 0,
        whose repeated calls disagree.
    hold_after : int, optional
        Answer only the first ``hold_after`` valid requests; later requests wait
        (without answer) until :meth:`release` or :meth:`stop`.  Used to
        interrupt a client at a well-defined point.
    extract : callable, optional
        ``extract(prompt) -> (text_a, text_b)``; defaults to :func:`extract_texts`.

    Attributes
    ----------
    requests : collections.Counter
        Number of requests received per ordered text pair ``(a, b)``.
    answered : collections.Counter
        Number of valid (parseable, HTTP 200) answers sent per ordered pair.
    n_requests : int
        All requests received on the chat endpoint.
    n_faults : int
        Requests that got an injected fault.
    max_in_flight : int
        Most chat requests being handled at the same time.
    trickled : int
        Bytes sent by ``"trickle"`` faults (each write is one byte).

    Examples
    --------
    >>> import json, urllib.request
    >>> with SimulatedEndpoint({"a cat": 0, "one cat": 0, "a dog": 1}) as ep:
    ...     body = {"model": "m", "messages": [{"role": "user",
    ...             "content": "TEXT A:\\na cat\\n\\nTEXT B:\\none cat\\n\\n"}]}
    ...     req = urllib.request.Request(ep.base_url + "/chat/completions",
    ...                                  data=json.dumps(body).encode(), method="POST")
    ...     reply = json.load(urllib.request.urlopen(req, timeout=5))
    >>> reply["choices"][0]["message"]["content"].split()[0]
    'TRUE.'
    >>> ep.answered[("a cat", "one cat")]
    1
    """

    def __init__(
        self,
        labels: Mapping[str, Hashable],
        *,
        p: float = 1.0,
        q: float = 0.0,
        seed: int = 0,
        api_key: str | None = None,
        model: str | None = None,
        fault_every: int = 0,
        faults: Sequence[str] = FAULT_KINDS,
        delay: float = 1.0,
        retry_after: str = "0",
        styles: Sequence[str] = ("plain",),
        resample: bool = False,
        hold_after: int | None = None,
        extract: Callable[[str], tuple[str, str]] | None = None,
    ):
        if not isinstance(labels, Mapping) or not labels:
            raise ValueError("labels must be a non-empty mapping from text to meaning label")
        self.labels = dict(labels)
        self.p = check_probability(p, "p")
        self.q = check_probability(q, "q")
        self.seed = check_int(seed, "seed", low=0)
        self.api_key = api_key
        self.model = model
        self.fault_every = check_int(fault_every, "fault_every", low=0)
        self.faults = _check_options(faults, "faults", FAULT_KINDS + HOSTILE_FAULT_KINDS)
        self.delay = check_real(delay, "delay", low=0.0)
        self.retry_after = str(retry_after)
        self.styles = _check_options(styles, "styles", STYLES)
        self.resample = check_bool(resample, "resample")
        self.hold_after = None if hold_after is None else check_int(hold_after, "hold_after", low=0)
        self.extract = extract or extract_texts
        self.requests: Counter = Counter()
        self.answered: Counter = Counter()
        self.n_requests = 0
        self.n_faults = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.request_times: dict[tuple[str, str], list[float]] = {}
        self.trickled = 0  # bytes sent by "trickle" faults
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._release = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ control
    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1`` (the server must be started)."""
        if self._server is None:
            raise RuntimeError("the endpoint is not running; call start() first")
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> SimulatedEndpoint:
        """Start serving on a free port of 127.0.0.1 in a background thread."""
        if self._server is not None:
            return self
        endpoint = self

        class Handler(_Handler):
            ep = endpoint

        server = _QuietServer(("127.0.0.1", 0), Handler)
        server.errors = self.errors
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def release(self) -> None:
        """Let requests held by ``hold_after`` go on (they are then answered normally)."""
        self._release.set()

    def stop(self) -> None:
        """Stop the server and release any held requests."""
        self._release.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> SimulatedEndpoint:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "stopped" if self._server is None else self.base_url
        return f"SimulatedEndpoint({len(self.labels)} texts, p={self.p}, q={self.q}, {state})"

    # ------------------------------------------------------------------ answers
    def verdict(self, a: str, b: str, number: int = 0) -> bool:
        """The answer this endpoint gives for the ordered pair ``(a, b)`` (to request ``number`` if ``resample``)."""
        same = self.labels[a] == self.labels[b]
        u = _pair_uniform(self.seed * 1_000_003 + number if self.resample else self.seed, a, b)
        return u < (self.p if same else self.q)

    def _answer_text(self, verdict: bool, number: int) -> str:
        style = self.styles[number % len(self.styles)]
        word = "TRUE" if verdict else "FALSE"
        if style == "markdown":
            return f"**{word.capitalize()}**\n\nThe two texts {'do' if verdict else 'do not'} state the same thing."
        if style == "lower":
            return f"  {word.lower()}, because the texts {'agree' if verdict else 'differ'}."
        return f"{word}. The texts {'imply each other' if verdict else 'do not imply each other'}."


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    errors: list

    def handle_error(self, request, client_address):
        # a client that was killed or timed out leaves broken sockets behind; record, do not print
        import sys

        self.errors.append(repr(sys.exc_info()[1]))


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in separate writes
    ep: SimulatedEndpoint

    def log_message(self, format, *args):  # silence the default stderr log
        pass

    def _send_json(self, status: int, obj, headers=None) -> None:
        body = json.dumps(obj).encode("utf-8")
        self._send_raw(status, body, headers)

    def _send_raw(self, status: int, body: bytes, headers=None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _error(self, status: int, message: str, code: str, headers=None) -> None:
        self._send_json(status, {"error": {"message": message, "type": code, "code": code}}, headers)

    def do_GET(self):
        if self.path.rstrip("/") == "/v1/models":
            model = self.ep.model or "simulated-judge"
            self._send_json(200, {"object": "list", "data": [{"id": model, "object": "model"}]})
        else:
            self._error(404, f"no route for GET {self.path}", "not_found")

    def do_POST(self):
        ep = self.ep
        with ep._lock:
            ep.in_flight += 1
            ep.max_in_flight = max(ep.max_in_flight, ep.in_flight)
        try:
            self._chat()
        finally:
            with ep._lock:
                ep.in_flight -= 1

    def _chat(self):
        ep = self.ep
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if self.path != "/v1/chat/completions":
            self._error(404, f"no route for POST {self.path}", "not_found")
            return
        if ep.api_key is not None and self.headers.get("Authorization") != f"Bearer {ep.api_key}":
            self._error(401, "Incorrect API key provided.", "invalid_api_key")
            return
        try:
            body = json.loads(raw)
            model = body["model"]
            prompt = body["messages"][-1]["content"]
            a, b = ep.extract(prompt)
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            self._error(400, f"bad request: {exc}", "invalid_request_error")
            return
        if ep.model is not None and model != ep.model:
            self._error(404, f"The model '{model}' does not exist", "model_not_found")
            return
        if a not in ep.labels or b not in ep.labels:
            self._error(400, "a text in the prompt is not one this endpoint knows", "invalid_request_error")
            return
        with ep._lock:
            ep.n_requests += 1
            number = ep.n_requests
            ep.requests[(a, b)] += 1
            ep.request_times.setdefault((a, b), []).append(time.monotonic())
            fault = None
            if ep.fault_every and number % ep.fault_every == 0:
                fault = ep.faults[(number // ep.fault_every - 1) % len(ep.faults)]
                ep.n_faults += 1
            hold = fault is None and ep.hold_after is not None and sum(ep.answered.values()) >= ep.hold_after
            if fault is None and not hold:
                ep.answered[(a, b)] += 1  # counted before sending, so a held-back count is never exceeded
        if hold:
            ep._release.wait()
            with ep._lock:
                ep.answered[(a, b)] += 1
        if fault == "500":
            self._error(500, "The server had an error while processing your request.", "server_error")
        elif fault == "503":
            self._error(503, "The engine is currently overloaded.", "overloaded")
        elif fault == "429":
            self._error(429, "Rate limit reached.", "rate_limit_exceeded", {"Retry-After": ep.retry_after})
        elif fault == "timeout":
            time.sleep(ep.delay)
            self._reply(a, b, number)
        elif fault == "reset":
            self.close_connection = True
            try:
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            except OSError:  # pragma: no cover - platform without SO_LINGER
                pass
            self.connection.close()
        elif fault == "malformed":
            self._send_raw(200, b'{"choices": [{"message": {"content": "TR')
        elif fault == "unparseable":
            self._send_json(200, _completion(model, "I cannot decide whether the two texts are equivalent."))
        elif fault == "html":
            page = b"<!DOCTYPE html><html><head><title>Sign in</title></head><body>Please sign in.</body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)
        elif fault == "trickle":
            body = json.dumps(_completion(model, self.ep._answer_text(self.ep.verdict(a, b, number), number)))
            self._trickle(body.encode("utf-8"))
        elif fault == "huge":
            self._send_json(200, _completion(model, "TRUE " + "x" * 10_000_000))
        else:
            self._reply(a, b, number, model, body)

    def _trickle(self, body: bytes) -> None:
        """Send ``body`` one byte every ``delay`` seconds (headers at once), until done or the client leaves."""
        ep = self.ep
        self.close_connection = True
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.flush()
            for i in range(len(body)):
                self.wfile.write(body[i : i + 1])
                self.wfile.flush()
                with ep._lock:
                    ep.trickled += 1
                if ep._release.wait(ep.delay):  # stop() (or release()) ends the trickle
                    return
        except OSError:  # the client gave up
            pass

    def _reply(self, a: str, b: str, number: int, model: str = "simulated-judge", body: dict | None = None) -> None:
        """The answer, in the form the request asks for: llama.cpp's ``grammar`` gives the bare word, a
        ``response_format`` the JSON document, ``logprobs`` the first token's top log-probabilities (the
        verdict's word with probability 0.6, the other word's with 0.1 and a distractor token with 0.3)."""
        body = body or {}
        verdict = self.ep.verdict(a, b, number)
        word = "TRUE" if verdict else "FALSE"
        if body.get("grammar"):
            text = word
        elif isinstance(body.get("response_format"), dict):
            text = json.dumps({"verdict": word})
        else:
            text = self.ep._answer_text(verdict, number)
        reply = _completion(model, text)
        if body.get("logprobs"):
            other = "FALSE" if verdict else "TRUE"
            top = [{"token": w[:2], "logprob": math.log(pr)} for w, pr in ((word, 0.6), ("To", 0.3), (other, 0.1))]
            reply["choices"][0]["logprobs"] = {"content": [{"token": top[0]["token"], "logprob": top[0]["logprob"],
                                                            "top_logprobs": top[: int(body.get("top_logprobs", 3))]}]}
        try:
            self._send_json(200, reply)
        except OSError:  # the client went away (timed out or was killed)
            self.close_connection = True


def _completion(model: str, content: str) -> dict:
    return {
        "id": "chatcmpl-simulated",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }
