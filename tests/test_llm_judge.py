"""Tests of semvar.llm against a real HTTP server on 127.0.0.1.

The server (semvar.testing.SimulatedEndpoint) answers from known
meaning labels and injects faults; nothing in the client is patched.
"""

from __future__ import annotations

import base64
import glob
import http.client
import json
import logging
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar.graph import adjacency_from_verdicts, all_pairs
from semvar.judges import LLMJudge as LazyLLMJudge
from semvar.llm import (
    PROMPTS,
    AuthenticationError,
    EndpointError,
    LLMJudge,
    VerdictCache,
    parse_verdict,
    render_prompt,
)
from semvar.testing import SimulatedEndpoint, extract_texts

HOBBIES = ["running", "drone flying", "aerobics", "pottery", "caving"]
KEY = "sk-test-5ecret-KEY-0123456789"


def corpus(n_groups: int, per_group: int):
    """n_groups meanings, per_group surface forms each; texts are distinct."""
    texts, labels = [], []
    for g in range(n_groups):
        for i in range(per_group):
            texts.append(f"In his free time John likes {HOBBIES[g % 5]} (meaning {g}, wording {i}).")
            labels.append(g)
    return texts, np.array(labels)


def truth(labels, P):
    return labels[P[:, 0]] == labels[P[:, 1]]


def fast_judge(ep, **kw):
    opts = dict(api_key="", timeout=5.0, max_retries=8, concurrency=8, backoff_base=0.005, backoff_max=0.05, progress=False)
    opts.update(kw)
    return LLMJudge(ep.base_url, "judge-model", **opts)


# --------------------------------------------------------------------------- parsing and prompts
def test_parse_verdict_hand_cases():
    yes = ["TRUE", "true", "True.", "  TRUE, because", "**TRUE**", "**True** both say", "## FALSE", "`false`",
           "\n\nFALSE: no", '"TRUE"', "<think>hmm, FALSE?</think>\nTRUE", "'TRUE'", "FALSE - they differ"]
    no = ["", "  ", "Yes", "The answer is TRUE", "TRUEFALSE", "Truthfully, no", "untrue", "FALSEHOOD", "T R U E", None, 1,
          "TRUE or FALSE", "true/false", "**FALSE** | **TRUE**", "TRUE. Or FALSE?",
          # the first word must be the verdict word itself, not a longer word that begins with it
          "True-ish, but actually FALSE", "TRUE's the word", "false-positive, TRUE", "TRUE\u2019s"]
    assert [parse_verdict(a) for a in yes] == [True] * 6 + [False] * 3 + [True] * 3 + [False]
    assert [parse_verdict(a) for a in no] == [None] * len(no)


@settings(max_examples=60, deadline=None)
@given(
    lead=st.text(alphabet=" \n\t*_#`>\"'", max_size=5),
    word=st.sampled_from(["true", "TRUE", "True", "false", "FALSE", "fAlSe"]),
    tail=st.text(max_size=20).filter(
        lambda t: not t[:1].isalnum() and t[:1] not in "_-"
        and not (t[:1] in "'\u2019" and (t[1:2].isalnum() or t[1:2] == "_"))
        and "true" not in t.lower() and "false" not in t.lower()
    ),
)
def test_parse_verdict_reads_the_leading_word(lead, word, tail):
    assert parse_verdict(lead + word + tail) is (word.lower() == "true")


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=30))
def test_parse_verdict_never_guesses(text):
    if "true" not in text.lower() and "false" not in text.lower():
        assert parse_verdict(text) is None
    assert parse_verdict("The verdict: " + text) is None


def test_builtin_prompts_fill_both_texts_once():
    a, b = "Water is vital to human survival.", "Humans must have water to survive."
    for name in ("liu2025", "liu2025_format"):
        text = render_prompt(name, a, b)
        assert text.count(a) == 1 and text.count(b) == 1 and text.index(a) < text.index(b)
        assert "{text_" not in text
        assert extract_texts(text) == (a, b)
        assert "return TRUE if TEXT A implies TEXT B and TEXT B implies TEXT A" in text
    assert "START with either TRUE or FALSE" in render_prompt("liu2025_format", a, b)
    assert "START with" not in render_prompt("liu2025", a, b)
    assert PROMPTS["liu2025_format"].startswith(PROMPTS["liu2025"])


def test_custom_template_is_validated():
    with pytest.raises(ValueError, match=r"lacks \{text_B\}"):
        render_prompt("Compare {text_A} with nothing", "x", "y")
    with pytest.raises(ValueError, match="liu2025"):
        LLMJudge("http://127.0.0.1:9/v1", "m", prompt="no placeholders")
    assert render_prompt("B={text_B}; A={text_A}", "a", "b") == "B=b; A=a"


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"base_url": "ftp://host/v1"}, "http:// or https://"),
        ({"base_url": ""}, "base_url"),
        ({"base_url": "http://localhost:8000/v1/chat/completions"}, "without the endpoint"),
        ({"base_url": "http://user:pw@localhost/v1"}, "credentials"),
        ({"model": ""}, "model"),
        ({"timeout": 0}, "timeout"),
        ({"concurrency": 0}, "concurrency"),
        ({"max_retries": -1}, "max_retries"),
        ({"api_key": 123}, "api_key"),
    ],
)
def test_bad_constructor_arguments(kwargs, match):
    args = {"base_url": "http://127.0.0.1:9/v1", "model": "m"}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        LLMJudge(args.pop("base_url"), args.pop("model"), **args)


def test_bad_pairs_and_texts():
    judge = LLMJudge("http://127.0.0.1:9/v1", "m", api_key="")
    with pytest.raises(ValueError, match=r"\(m, 2\)"):
        judge.pairs(["a", "b"], [0, 1])
    with pytest.raises(ValueError, match="index texts"):
        judge.pairs(["a", "b"], [[0, 2]])
    with pytest.raises(ValueError, match="strings"):
        judge.pairs(["a", 3], [[0, 1]])
    empty = judge.pairs(["a", "b"], np.zeros((0, 2), dtype=int))
    assert empty.shape == (0,) and judge.stats.requests == 0


def test_lazy_export_is_the_same_class():
    assert LazyLLMJudge is LLMJudge


def test_importing_the_judges_does_not_load_http_or_sqlite():
    code = (
        "import sys, semvar.judges; "
        "print(sorted(m for m in ('semvar.llm', 'sqlite3', 'http.client') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_backoff_is_full_jitter_and_honours_retry_after():
    import random

    from semvar.llm.client import _backoff_delay

    rng = random.Random(0)
    delays = [_backoff_delay(rng, 3, 0.5, 30.0, None, 120.0) for _ in range(2000)]
    assert 0.0 <= min(delays) < 0.2 and 3.8 < max(delays) <= 4.0  # uniform on [0, 0.5 * 2**3]
    assert _backoff_delay(rng, 0, 0.5, 30.0, 7.0, 120.0) == 7.0  # Retry-After is a floor
    assert _backoff_delay(rng, 0, 0.5, 30.0, 500.0, 120.0) == 120.0  # capped by max_retry_after
    assert max(_backoff_delay(rng, 20, 0.5, 30.0, None, 120.0) for _ in range(200)) <= 30.0


# --------------------------------------------------------------------------- acceptance: faults and the cache
def test_190_pairs_one_fault_in_three_all_right_and_warm_cache_sends_nothing(tmp_path):
    texts, labels = corpus(4, 5)
    P = all_pairs(20)
    assert P.shape[0] == 190
    cache = tmp_path / "judge.sqlite"
    faults = ("500", "503", "429", "timeout", "reset", "malformed", "unparseable")
    with SimulatedEndpoint(dict(zip(texts, labels)), fault_every=3, faults=faults, delay=600,
                           styles=("plain", "markdown", "lower")) as ep:
        # a "timeout" fault answers after 600 s; a real answer has 3 s to arrive, plenty on a busy machine
        judge = fast_judge(ep, cache_path=cache, timeout=3.0)
        v = judge.pairs(texts, P)
        assert not np.ma.getmaskarray(v).any()
        np.testing.assert_array_equal(np.ma.getdata(v), truth(labels, P))
        s = judge.stats
        assert ep.n_faults == ep.n_requests // 3 and ep.n_faults >= 90  # one request in three was a fault
        assert s.requests == ep.n_requests == 190 + s.retries
        assert s.done == 190 and s.unjudged == 0 and s.retried > 0 and s.cached == 0
        assert sum(ep.answered.values()) == 190 and set(ep.answered.values()) == {1}
        judge.close()

        before = ep.n_requests
        again = fast_judge(ep, cache_path=cache)
        v2 = again.pairs(texts, P)
        assert ep.n_requests == before  # the server saw nothing
        assert again.stats.requests == 0 and again.stats.cached == 190
        np.testing.assert_array_equal(np.ma.getdata(v2), np.ma.getdata(v))
        again.close()


def test_10000_pairs_concurrency_8_no_lost_or_duplicated_call(tmp_path):
    texts, labels = corpus(5, 29)  # 145 texts, 10440 pairs; take 10000
    P = all_pairs(len(texts))[:10_000]
    with SimulatedEndpoint(dict(zip(texts, labels)), fault_every=50, faults=("500", "429")) as ep:
        judge = fast_judge(ep, cache_path=tmp_path / "c.sqlite", concurrency=8)
        v = judge.pairs(texts, P)
        assert not np.ma.getmaskarray(v).any()
        np.testing.assert_array_equal(np.ma.getdata(v), truth(labels, P))
        asked = {(texts[i], texts[j]) for i, j in P.tolist()}
        assert set(ep.requests) == asked  # no pair lost, none invented
        assert set(ep.answered.values()) == {1} and sum(ep.answered.values()) == 10_000  # none answered twice
        assert ep.n_requests == 10_000 + ep.n_faults == judge.stats.requests
        assert 1 < ep.max_in_flight <= 8
        assert len(judge.cache) == 10_000
        judge.close()


def test_unparseable_answers_are_unjudged_not_false(tmp_path):
    texts, labels = corpus(2, 3)
    P = all_pairs(6)
    with SimulatedEndpoint(dict(zip(texts, labels)), fault_every=1, faults=("unparseable",)) as ep:
        judge = fast_judge(ep, max_retries=2, cache_path=tmp_path / "c.sqlite")
        v = judge.pairs(texts, P)
        assert np.ma.getmaskarray(v).all()
        assert judge.stats.unjudged == 15 and judge.stats.requests == 15 * 3 == ep.n_requests
        A, observed = adjacency_from_verdicts(6, P, v, return_mask=True)
        assert A.nnz == 0 and observed.nnz == 0  # unobserved, not "different"
        judge.pairs(texts, P)  # unjudged pairs are not cached: they are asked again
        assert ep.n_requests == 90
        judge.close()


def test_partly_unjudged_pairs_are_masked_and_left_out_of_the_graph():
    texts, labels = corpus(3, 4)
    P = all_pairs(12)
    with SimulatedEndpoint(dict(zip(texts, labels)), fault_every=2, faults=("unparseable",)) as ep:
        judge = fast_judge(ep, max_retries=0, concurrency=1)
        v = judge.pairs(texts, P)
    mask = np.ma.getmaskarray(v)
    assert mask.sum() == P.shape[0] // 2 == judge.stats.unjudged  # every second request was unparseable
    np.testing.assert_array_equal(np.ma.getdata(v)[~mask], truth(labels, P)[~mask])
    _, observed = adjacency_from_verdicts(12, P, v, return_mask=True)
    assert observed.nnz == 2 * int((~mask).sum())


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


def test_cache_is_keyed_by_model_prompt_and_ordered_pair(tmp_path):
    texts, labels = corpus(2, 2)
    cache = tmp_path / "c.sqlite"
    with SimulatedEndpoint(dict(zip(texts, labels))) as ep:
        fast_judge(ep, cache_path=cache).pairs(texts, [[0, 1]])
        fast_judge(ep, cache_path=cache).pairs(texts, [[0, 1], [0, 1]])
        assert ep.n_requests == 1
        fast_judge(ep, cache_path=cache).pairs(texts, [[1, 0]])  # the other order is another call
        fast_judge(ep, cache_path=cache, prompt="liu2025_format").pairs(texts, [[0, 1]])
        LLMJudge(ep.base_url, "other-model", api_key="", cache_path=cache, progress=False).pairs(texts, [[0, 1]])
        assert ep.n_requests == 4
    con = sqlite3.connect(cache)
    assert con.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0] == 4
    assert con.execute("SELECT COUNT(*) FROM templates").fetchone()[0] == 2
    con.close()


def test_duplicate_rows_are_asked_once():
    texts, labels = corpus(2, 2)
    with SimulatedEndpoint(dict(zip(texts, labels))) as ep:
        judge = fast_judge(ep)
        v = judge.pairs(texts + [texts[0]], [[0, 1], [0, 1], [4, 1]])  # text 4 repeats text 0
    assert v.tolist() == [True, True, True] and ep.n_requests == 1
    assert judge.stats.pairs == 3 and judge.stats.unique == 1


# --------------------------------------------------------------------------- interruption
def _wait_until(condition, proc, what: str) -> None:
    """Poll ``condition`` while ``proc`` runs: the test waits for a state, not for a time.

    The one bound (ten minutes) only keeps a broken client from hanging the suite.
    """
    stop = time.monotonic() + 600
    while not condition():
        assert proc.poll() is None, f"the command ended before {what}: {proc.communicate()}"
        assert time.monotonic() < stop, f"still waiting for {what} after ten minutes"
        threading.Event().wait(0.02)

def test_killed_run_resumes_without_repeating_a_completed_call(tmp_path, committed_verdicts):
    texts, labels = corpus(4, 5)
    P = all_pairs(20)
    path = tmp_path / "texts.jsonl"
    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts), encoding="utf-8")
    cache = tmp_path / "cache.sqlite"
    n_first = 60
    with SimulatedEndpoint(dict(zip(texts, labels)), hold_after=n_first) as ep:
        cmd = [sys.executable, "-m", "semvar", "judge", str(path), "--base-url", ep.base_url, "--model", "judge-model",
               "--k", "4", "--cache", str(cache), "--out", str(tmp_path / "r.json"), "--quiet"]
        env = dict(os.environ, OPENAI_API_KEY="")
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        # the state to kill it in: n_first answers committed and further requests held by the server
        _wait_until(lambda: committed_verdicts(cache) >= n_first and ep.in_flight > 0, proc, f"{n_first} committed answers")
        assert committed_verdicts(cache) == n_first
        os.kill(proc.pid, signal.SIGKILL)  # mid-run, with calls in flight
        proc.communicate()
        first = ep.requests.copy()
        assert sum(first.values()) > n_first  # some calls were in flight when it died

        completed = set(VerdictCache(cache).get_many(
            [VerdictCache.key("judge-model", PROMPTS["liu2025"], texts[i], texts[j], server=ep.base_url)
             for i, j in P.tolist()]))
        assert len(completed) == n_first  # no completed call was lost

        ep.hold_after = None
        ep.release()
        judge = fast_judge(ep, cache_path=cache)
        v = judge.pairs(texts, P)
        np.testing.assert_array_equal(np.ma.getdata(v), truth(labels, P))
        assert judge.stats.cached == n_first and judge.stats.done == 190 - n_first
        for i, j in P.tolist():
            key = VerdictCache.key("judge-model", PROMPTS["liu2025"], texts[i], texts[j], server=ep.base_url)
            again = ep.requests[(texts[i], texts[j])] - first[(texts[i], texts[j])]
            assert again == (0 if key in completed else 1)
        judge.close()


def test_ctrl_c_stops_the_command_and_keeps_every_finished_call(tmp_path, committed_verdicts):
    texts, labels = corpus(3, 4)
    path = tmp_path / "texts.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in texts), encoding="utf-8")
    cache = tmp_path / "cache.sqlite"
    with SimulatedEndpoint(dict(zip(texts, labels)), hold_after=20) as ep:
        cmd = [sys.executable, "-m", "semvar", "judge", str(path), "--base-url", ep.base_url, "--model", "judge-model",
               "--k", "3", "--cache", str(cache), "--out", str(tmp_path / "r.json"), "--no-progress",
               "--timeout", "600", "--concurrency", "4"]
        proc = subprocess.Popen(cmd, env=dict(os.environ, OPENAI_API_KEY=""), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        # Ctrl-C in a known state: 20 answers committed, the next four requests held by the server
        # (and a request timeout far beyond the test, so that no held call ends by itself)
        _wait_until(lambda: committed_verdicts(cache) >= 20 and ep.in_flight == 4, proc, "20 committed answers and 4 held requests")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=600)  # the command must end on its own, however slowly
    assert proc.returncode == 130, err
    assert "interrupted: 20 finished calls are in" in err and "run the same command again" in err
    assert len(VerdictCache(cache)) == 20 and not (tmp_path / "r.json").exists()


# --------------------------------------------------------------------------- errors and the key
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


# --------------------------------------------------------------------------- proxies
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
