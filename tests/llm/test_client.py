"""Tests of semvar.llm.client: retries and backoff, the key, the base URL, proxies and error messages.

Against a real HTTP server on 127.0.0.1 (semvar.testing.SimulatedEndpoint); nothing in the client is patched.
"""

from __future__ import annotations

import base64
import glob
import http.client
import logging
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import numpy as np
import pytest

from semvar.graph import all_pairs
from semvar.llm import AuthenticationError, EndpointError, LLMJudge
from semvar.testing import SimulatedEndpoint

from ._helpers import KEY, corpus, fast_judge, truth


def test_backoff_is_full_jitter_and_honours_retry_after():
    import random

    from semvar.llm.client import _backoff_delay

    rng = random.Random(0)
    delays = [_backoff_delay(rng, 3, 0.5, 30.0, None, 120.0) for _ in range(2000)]
    assert 0.0 <= min(delays) < 0.2 and 3.8 < max(delays) <= 4.0  # uniform on [0, 0.5 * 2**3]
    assert _backoff_delay(rng, 0, 0.5, 30.0, 7.0, 120.0) == 7.0  # Retry-After is a floor
    assert _backoff_delay(rng, 0, 0.5, 30.0, 500.0, 120.0) == 120.0  # capped by max_retry_after
    assert max(_backoff_delay(rng, 20, 0.5, 30.0, None, 120.0) for _ in range(200)) <= 30.0


def test_timeouts_are_retried():
    texts, labels = corpus(2, 2)
    P = all_pairs(4)
    with SimulatedEndpoint(dict(zip(texts, labels)), fault_every=2, faults=("timeout",), delay=600) as ep:
        judge = fast_judge(ep, timeout=1.0, concurrency=2)  # a fault is never answered in time, a real answer is
        v = judge.pairs(texts, P)
    np.testing.assert_array_equal(np.ma.getdata(v), truth(labels, P))
    assert judge.stats.retries >= 1


def test_retry_after_is_honoured():
    texts, labels = corpus(2, 1)
    with SimulatedEndpoint(dict(zip(texts, labels)), fault_every=2, faults=("429",), retry_after="1") as ep:
        judge = fast_judge(ep, concurrency=1)
        judge.pairs(texts, [[0, 1], [1, 0]])  # request 2 (the pair (1, 0)) gets 429, Retry-After: 1
        times = ep.request_times[(texts[1], texts[0])]
    assert len(times) == 2 and ep.n_faults == 1
    assert times[1] - times[0] >= 0.95  # backoff alone would wait at most 0.005 s


def test_wrong_key_raises_a_clear_error_without_the_key(monkeypatch):
    texts, labels = corpus(2, 2)
    with SimulatedEndpoint(dict(zip(texts, labels)), api_key=KEY) as ep:
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        ok = LLMJudge(ep.base_url, "m", progress=False)  # key from the environment
        assert ok.pairs(texts, [[0, 1]]).tolist() == [True]
        wrong = "sk-wrong-" + KEY[::-1]
        with pytest.raises(AuthenticationError) as err:
            LLMJudge(ep.base_url, "m", api_key=wrong, progress=False).pairs(texts, all_pairs(4))
        assert "401" in str(err.value) and "OPENAI_API_KEY" in str(err.value)
        assert wrong not in str(err.value) and KEY not in str(err.value)
        monkeypatch.delenv("OPENAI_API_KEY")
        with pytest.raises(AuthenticationError, match="none was given"):
            LLMJudge(ep.base_url, "m", progress=False).pairs(texts, [[0, 1]])


def test_wrong_base_url_or_model_names_what_to_check():
    texts, labels = corpus(2, 1)
    with SimulatedEndpoint(dict(zip(texts, labels)), model="served-model") as ep:
        root = ep.base_url[: -len("/v1")]
        with pytest.raises(EndpointError) as err:
            LLMJudge(root, "served-model", api_key="", progress=False).pairs(texts, [[0, 1]])
        assert f"{root}/chat/completions" in str(err.value) and "/v1" in str(err.value) and "404" in str(err.value)
        with pytest.raises(EndpointError, match="'other-model'"):
            LLMJudge(ep.base_url, "other-model", api_key="", progress=False).pairs(texts, [[0, 1]])
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(EndpointError, match=rf"connection refused.*127\.0\.0\.1:{port}"):
        LLMJudge(f"http://127.0.0.1:{port}/v1", "m", api_key="", progress=False).pairs(texts, [[0, 1]])


def test_key_never_in_logs_repr_or_cache(tmp_path, caplog):
    texts, labels = corpus(3, 3)
    P = all_pairs(9)
    cache = tmp_path / "c.sqlite"
    with caplog.at_level(logging.DEBUG):
        with SimulatedEndpoint(dict(zip(texts, labels)), api_key=KEY, fault_every=2,
                               faults=("500", "429", "unparseable", "malformed", "reset")) as ep:
            judge = fast_judge(ep, api_key=KEY, cache_path=cache, max_retries=1)
            judge.pairs(texts, P)
            assert judge.stats.retries > 0 and judge.stats.unjudged > 0  # retries and unjudged pairs were logged
            text = repr(judge) + str(vars(judge)) + str(vars(judge._client)) + repr(judge.stats)
            judge.close()
    assert "api_key=<set>" in repr(judge)
    assert KEY not in text
    messages = [r.getMessage() + repr(r.args) for r in caplog.records]
    assert any("retry" in m for m in messages) and any("unjudged" in m for m in messages)
    assert not any(KEY in m for m in messages)
    for f in glob.glob(str(cache) + "*"):
        with open(f, "rb") as fh:
            assert KEY.encode() not in fh.read()


class _ForwardProxy(BaseHTTPRequestHandler):
    """A minimal HTTP forward proxy; every host name it is asked for is served from 127.0.0.1."""

    protocol_version = "HTTP/1.1"
    seen: list = []

    def log_message(self, format, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.seen.append((self.path, self.headers.get("Proxy-Authorization")))
        target = urlsplit(self.path)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("proxy-authorization", "host")}
        upstream = http.client.HTTPConnection("127.0.0.1", target.port, timeout=5)
        upstream.request("POST", target.path, body=body, headers=headers)
        reply = upstream.getresponse()
        data = reply.read()
        upstream.close()
        self.send_response(reply.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def test_requests_go_through_the_proxy_from_the_environment(monkeypatch):
    texts, labels = corpus(2, 2)
    proxy = ThreadingHTTPServer(("127.0.0.1", 0), _ForwardProxy)
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    _ForwardProxy.seen = []
    for var in ("NO_PROXY", "no_proxy", "HTTPS_PROXY", "https_proxy", "http_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HTTP_PROXY", f"http://alice:pr0xy-pass@127.0.0.1:{proxy.server_address[1]}")
    try:
        with SimulatedEndpoint(dict(zip(texts, labels)), api_key=KEY) as ep:
            port = ep.base_url.split(":")[2].split("/")[0]
            judge = LLMJudge(f"http://judge.example:{port}/v1", "m", api_key=KEY, progress=False)
            v = judge.pairs(texts, all_pairs(4))
            direct = LLMJudge(ep.base_url, "m", api_key=KEY, progress=False)  # loopback: never proxied
            direct.pairs(texts, [[1, 0]])
    finally:
        proxy.shutdown()
        proxy.server_close()
    np.testing.assert_array_equal(np.ma.getdata(v), truth(labels, all_pairs(4)))
    assert len(_ForwardProxy.seen) == 6 == ep.n_requests - 1
    assert all(path == f"http://judge.example:{port}/v1/chat/completions" for path, _ in _ForwardProxy.seen)
    assert all(auth == "Basic " + base64.b64encode(b"alice:pr0xy-pass").decode() for _, auth in _ForwardProxy.seen)
    assert "pr0xy-pass" not in repr(judge) + str(vars(judge)) + str(vars(judge._client))

    monkeypatch.setenv("NO_PROXY", "judge.example")
    assert LLMJudge("http://judge.example:1/v1", "m", api_key="")._client.proxy is None
    monkeypatch.delenv("NO_PROXY")
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:1")  # nobody listens on port 1
    with pytest.raises(EndpointError, match=r"proxy 127\.0\.0\.1:1.*NO_PROXY"):
        LLMJudge("http://judge.example:8000/v1", "m", api_key="", progress=False).pairs(texts, [[0, 1]])


class _EchoingEndpoint(SimulatedEndpoint):
    """A server that writes the client's key into its answers (as a careless proxy or log-echoing server might)."""

    def _answer_text(self, verdict: bool, number: int) -> str:
        return super()._answer_text(verdict, number) + " (seen: Bearer " + KEY + ")"


def test_key_with_newline_is_stripped_and_bad_key_is_refused_without_showing_it():
    texts, labels = corpus(2, 2)
    with SimulatedEndpoint(dict(zip(texts, labels)), api_key=KEY) as ep:
        # a key read from a file keeps its newline; http.client would refuse it and print it in its error
        judge = LLMJudge(ep.base_url, "m", api_key=KEY + "\n", progress=False)
        assert judge.pairs(texts, [[0, 1], [0, 2]]).tolist() == [True, False]
    for bad in (KEY[:5] + " " + KEY[5:], KEY + "\r\nX-Injected: 1", KEY + "\u00e9"):
        with pytest.raises(ValueError, match="api_key") as err:
            LLMJudge("http://127.0.0.1:9/v1", "m", api_key=bad)
        assert KEY not in str(err.value) and KEY[5:] not in str(err.value)


def test_key_echoed_by_the_server_is_redacted_from_cache_and_logs(tmp_path, caplog):
    texts, labels = corpus(2, 2)
    cache = tmp_path / "c.sqlite"
    with caplog.at_level(logging.DEBUG):
        with _EchoingEndpoint(dict(zip(texts, labels)), api_key=KEY, fault_every=2, faults=("unparseable",)) as ep:
            judge = fast_judge(ep, api_key=KEY, cache_path=cache, max_retries=1)
            got = judge.pairs(texts, all_pairs(4))
            judge.close()
    assert got.count() > 0  # some answers were cached
    assert not any(KEY in r.getMessage() + repr(r.args) for r in caplog.records)
    for f in glob.glob(str(cache) + "*"):
        with open(f, "rb") as fh:
            assert KEY.encode() not in fh.read()


# --------------------------------------------------------------------------- where the key came from; malformed base URLs
def test_a_401_names_the_environment_variable_the_key_came_from(monkeypatch):
    texts, labels = corpus(2, 2)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("MY_JUDGE_KEY", "sk-wrong-" + KEY[::-1])
    with SimulatedEndpoint(dict(zip(texts, labels)), api_key=KEY) as ep:
        with pytest.raises(AuthenticationError) as err:  # the key read from the variable it names
            LLMJudge(ep.base_url, "m", api_key_env="MY_JUDGE_KEY", progress=False).pairs(texts, [[0, 1]])
        assert "401" in str(err.value) and "the environment variable MY_JUDGE_KEY" in str(err.value)
        assert "OPENAI_API_KEY" not in str(err.value) and "api_key argument" not in str(err.value)
        with pytest.raises(AuthenticationError) as err:  # a key the caller read itself (as the command line does)
            LLMJudge(ep.base_url, "m", api_key="", api_key_env="MY_JUDGE_KEY", progress=False).pairs(texts, [[0, 1]])
        assert "the environment variable MY_JUDGE_KEY; none was given" in str(err.value)
        assert "OPENAI_API_KEY" not in str(err.value)
        monkeypatch.setenv("MY_JUDGE_KEY", KEY)
        ok = LLMJudge(ep.base_url, "m", api_key_env="MY_JUDGE_KEY", progress=False)
        assert ok.pairs(texts, [[0, 1]]).tolist() == [True]
    with pytest.raises(ValueError, match=r"^api_key \(the environment variable MY_JUDGE_KEY\) contains spaces") as err:
        LLMJudge("http://127.0.0.1:9/v1", "m", api_key="a b", api_key_env="MY_JUDGE_KEY")
    assert "OPENAI_API_KEY" not in str(err.value)


@pytest.mark.parametrize("name", ["", "A=B", "A\x00B", 3, "MY KEY"])
def test_a_bad_api_key_env_is_named(name):
    with pytest.raises(ValueError, match="api_key_env must be"):
        LLMJudge("http://127.0.0.1:9/v1", "m", api_key="", api_key_env=name)


@pytest.mark.parametrize(
    "url, what",
    [
        ("http://127.0.0.1:8000/v 1", "a space"),
        ("http://127.0.0.1:8000/v1 ", None),  # surrounding whitespace is stripped, as before
        ("http://local host:8000/v1", "a space"),
        ("http://127.0.0.1:8000/v1\t/x", "U+0009"),
        ("http://127.0.0.1:8000/v\u00e91", "U+00E9"),
        ("http://127.0.0.1:8000/v1\x7f", "U+007F"),
        ("http://127.0.0.1:8000/v<1>", "'<'"),
        ("http://127.0.0.1:8000/v1%2", "'%'"),
        ("http://127.0.0.1:8000/{v1}", "'{'"),
        ("http://exa_mple!.com/v1", "'!'"),
    ],
)
def test_characters_not_allowed_in_a_url_are_refused_at_construction(url, what):
    if what is None:
        assert LLMJudge(url, "m", api_key="").base_url == url.strip()
        return
    with pytest.raises(ValueError, match=r"^base_url") as err:
        LLMJudge(url, "m", api_key="")
    assert what in str(err.value)


@pytest.mark.parametrize("port", ["0", "00", "65536", "99999"])
def test_a_port_out_of_range_is_refused_at_construction(port):
    with pytest.raises(ValueError, match=rf"base_url has the port {int(port)}; a port is a number from 1 to 65535"):
        LLMJudge(f"http://127.0.0.1:{port}/v1", "m", api_key="")


@pytest.mark.parametrize("url, host_port", [("http://127.0.0.1:1/v1", "127.0.0.1:1"),
                                            ("https://127.0.0.1:65535/v1", "127.0.0.1:65535"),
                                            ("http://127.0.0.1/v1", "127.0.0.1:80"),
                                            ("https://[::1]/v1", "::1:443"),
                                            ("http://b\u00fccher.example/v1", "b\u00fccher.example:80")])
def test_ports_in_range_and_default_ports_are_kept(url, host_port):
    judge = LLMJudge(url, "m", api_key="")
    assert f"{judge._client._host}:{judge._client._port}" == host_port
