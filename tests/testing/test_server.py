"""semvar.testing.server: the simulated OpenAI-compatible judge endpoint, started, served and stopped on 127.0.0.1."""

import json
import socket
import threading
import urllib.error
import urllib.request

import pytest

from semvar.testing import FAULT_KINDS, HOSTILE_FAULT_KINDS, SimulatedEndpoint, extract_texts

LABELS = {"a cat": 0, "one cat": 0, "a dog": 1, "some dog": 1}


def prompt(a: str, b: str) -> str:
    return f"Decide.\n\nTEXT A:\n{a}\n\nTEXT B:\n{b}\n\n## OUTPUT\n"


def post(ep, a, b, *, model="m", key=None, path="/chat/completions", body=None, timeout=10):
    """POST one chat request; return (HTTP status, parsed JSON or raw bytes, headers)."""
    if body is None:
        body = json.dumps({"model": model, "messages": [{"role": "user", "content": prompt(a, b)}]}).encode()
    req = urllib.request.Request(ep.base_url + path, data=body, method="POST")
    req.add_header("Content-Type", "application/json")
    if key is not None:
        req.add_header("Authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            raw, status, headers = r.read(), r.status, r.headers
    except urllib.error.HTTPError as err:
        raw, status, headers = err.read(), err.code, err.headers
    try:
        return status, json.loads(raw), headers
    except ValueError:
        return status, raw, headers


def content(reply) -> str:
    return reply["choices"][0]["message"]["content"]


def test_start_serve_stop_on_localhost():
    ep = SimulatedEndpoint(LABELS)
    with pytest.raises(RuntimeError, match="not running"):
        _ = ep.base_url
    assert "stopped" in repr(ep)
    assert ep.start() is ep and ep.start() is ep  # starting twice keeps the one server
    url = ep.base_url
    assert url.startswith("http://127.0.0.1:") and url.endswith("/v1") and url in repr(ep)
    status, reply, _ = post(ep, "a cat", "one cat")
    assert status == 200 and content(reply).startswith("TRUE")
    status, reply, _ = post(ep, "a cat", "a dog")
    assert status == 200 and content(reply).startswith("FALSE")
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    ep.stop()
    assert "stopped" in repr(ep)
    with pytest.raises(ConnectionRefusedError), socket.create_connection(("127.0.0.1", port), timeout=2):
        pass
    ep.stop()  # stopping again is harmless


def test_models_route_counts_and_unknown_routes():
    with SimulatedEndpoint(LABELS, model="served") as ep:
        with urllib.request.urlopen(ep.base_url + "/models", timeout=10) as r:
            assert json.load(r)["data"][0]["id"] == "served"
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(ep.base_url + "/nowhere", timeout=10)
        assert err.value.code == 404
        assert post(ep, "a cat", "one cat", path="/completions")[0] == 404
        status, reply, _ = post(ep, "a cat", "one cat", model="other")
        assert status == 404 and reply["error"]["code"] == "model_not_found"
        assert post(ep, "a cat", "one cat", model="served")[0] == 200
        assert post(ep, "a cat", "one cat", model="served")[0] == 200
        assert ep.requests[("a cat", "one cat")] == 2 and ep.answered[("a cat", "one cat")] == 2
        assert ep.n_requests == 2  # refused requests are not counted as asked


def test_bad_requests_are_400():
    with SimulatedEndpoint(LABELS) as ep:
        assert post(ep, "", "", body=b"{not json")[0] == 400
        assert post(ep, "", "", body=json.dumps({"model": "m", "messages": []}).encode())[0] == 400
        no_pair = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hello"}]}).encode()
        assert post(ep, "", "", body=no_pair)[0] == 400
        status, reply, _ = post(ep, "a cat", "a horse")
        assert status == 400 and "not one this endpoint knows" in reply["error"]["message"]
        assert ep.n_requests == 0


def test_api_key():
    with SimulatedEndpoint(LABELS, api_key="k-123") as ep:
        status, reply, _ = post(ep, "a cat", "a dog")
        assert status == 401 and reply["error"]["code"] == "invalid_api_key"
        assert post(ep, "a cat", "a dog", key="wrong")[0] == 401
        assert post(ep, "a cat", "a dog", key="k-123")[0] == 200


def test_faults_come_in_turn():
    kinds = ("500", "503", "429", "unparseable", "malformed")
    with SimulatedEndpoint(LABELS, fault_every=2, faults=kinds, retry_after="7") as ep:
        seen = [post(ep, "a cat", "one cat") for _ in range(2 * len(kinds))]
    assert [s for s, _, _ in seen[0::2]] == [200] * len(kinds)  # odd-numbered requests are answered
    faults = seen[1::2]
    assert [s for s, _, _ in faults[:3]] == [500, 503, 429]
    assert faults[2][2]["Retry-After"] == "7"
    assert faults[3][0] == 200 and not content(faults[3][1]).upper().startswith(("TRUE", "FALSE"))
    assert faults[4][0] == 200 and isinstance(faults[4][1], bytes)  # cut-off JSON
    assert ep.n_faults == len(kinds) and ep.n_requests == 2 * len(kinds)
    assert ep.answered[("a cat", "one cat")] == len(kinds)


def test_answer_styles_cycle():
    with SimulatedEndpoint(LABELS, styles=("plain", "markdown", "lower")) as ep:
        answers = [content(post(ep, "a dog", "some dog")[1]) for _ in range(6)]
    assert answers[:3] == answers[3:]  # the styles are used in turn
    assert sorted(a[:8] for a in answers[:3]) == sorted(["TRUE. Th", "**True**", "  true, "])


def test_verdicts_follow_p_and_q_and_are_fixed_per_pair():
    texts = {f"t{i}": i % 4 for i in range(80)}
    ep = SimulatedEndpoint(texts, p=0.7, q=0.2, seed=3)  # verdicts need no server
    same = [ep.verdict(a, b) for a in texts for b in texts if a != b and texts[a] == texts[b]]
    diff = [ep.verdict(a, b) for a in texts for b in texts if texts[a] != texts[b]]
    assert abs(sum(same) / len(same) - 0.7) < 0.05 and abs(sum(diff) / len(diff) - 0.2) < 0.03
    assert [ep.verdict("t0", "t4") for _ in range(5)] == [ep.verdict("t0", "t4")] * 5
    other_seed = SimulatedEndpoint(texts, p=0.7, q=0.2, seed=4)
    assert [other_seed.verdict(a, "t1") for a in texts] != [ep.verdict(a, "t1") for a in texts]
    exact = SimulatedEndpoint(texts)
    assert all(exact.verdict(a, b) == (texts[a] == texts[b]) for a in texts for b in list(texts)[:10])
    warm = SimulatedEndpoint(texts, p=0.5, q=0.5, resample=True)
    assert len({warm.verdict("t0", "t4", number) for number in range(40)}) == 2  # repeated calls disagree


def test_hold_after_holds_until_release():
    with SimulatedEndpoint(LABELS, hold_after=1) as ep:
        assert post(ep, "a cat", "one cat")[0] == 200
        result = {}
        worker = threading.Thread(target=lambda: result.update(reply=post(ep, "a cat", "a dog")))
        worker.start()
        worker.join(timeout=0.5)
        assert worker.is_alive() and "reply" not in result  # held
        ep.release()
        worker.join(timeout=10)
        assert result["reply"][0] == 200 and ep.answered[("a cat", "a dog")] == 1


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"labels": {}}, "labels must be a non-empty mapping"),
        ({"labels": ["a"]}, "labels must be a non-empty mapping"),
        ({"p": 1.5}, "p must lie in"),
        ({"q": -0.1}, "q must lie in"),
        ({"seed": -1}, "seed must be >= 0"),
        ({"fault_every": 1.5}, "fault_every must be an integer"),
        ({"faults": ()}, "faults must be a non-empty sequence"),
        ({"faults": ("500", "teapot")}, r"faults\[1\] must be one of"),
        ({"styles": ("shouty",)}, r"styles\[0\] must be one of"),
        ({"delay": -1.0}, "delay must lie in"),
        ({"resample": 1}, "resample must be True or False"),
        ({"hold_after": -2}, "hold_after must be >= 0"),
    ],
)
def test_bad_settings(kwargs, match):
    kwargs = {"labels": LABELS, **kwargs}
    with pytest.raises(ValueError, match=match):
        SimulatedEndpoint(**kwargs)


def test_fault_kinds_are_distinct():
    assert len(set(FAULT_KINDS + HOSTILE_FAULT_KINDS)) == len(FAULT_KINDS) + len(HOSTILE_FAULT_KINDS)


def test_extract_texts():
    assert extract_texts(prompt("  red car ", "car, red")) == ("red car", "car, red")
    assert extract_texts(prompt("line one\nline two", "b")) == ("line one\nline two", "b")
    with pytest.raises(ValueError, match="does not contain a 'TEXT A:'"):
        extract_texts("TEXT A:\nonly one text\n")
