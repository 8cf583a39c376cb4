"""A user's own httpx client under the judge: it is used, left open, and held to the same deadline and size cap."""

from __future__ import annotations

import logging

import httpx2
import numpy as np
import pytest

from semvar.graph import all_pairs
from semvar.llm import LLMJudge
from semvar.testing import SimulatedEndpoint

from ._helpers import corpus, fast_judge, truth


def _httpx_modules():
    """httpx2, and classic httpx where it is installed (JupyterLab brings it)."""
    try:
        import httpx
    except ImportError:
        return [httpx2]
    return [httpx2, httpx]


@pytest.mark.parametrize("hx", _httpx_modules(), ids=lambda m: m.__name__)
def test_a_users_client_carries_the_requests_and_stays_open(hx):
    texts, labels = corpus(2, 2)
    seen = []
    client = hx.Client(
        auth=hx.BasicAuth("team", "t0ken"), headers={"X-Team": "semvar"},
        event_hooks={"request": [lambda r: seen.append((r.headers.get("Authorization"), r.headers["X-Team"]))]},
    )
    with client, SimulatedEndpoint(dict(zip(texts, labels))) as ep:
        judge = fast_judge(ep, http_client=client)
        v = judge.pairs(texts, all_pairs(4))
        judge.close()
        asked = list(seen)
        assert not client.is_closed  # the judge never closes a client it was given
        assert client.get(ep.base_url.replace("/v1", "/v1/models")).status_code < 500
    np.testing.assert_array_equal(np.ma.getdata(v), truth(labels, all_pairs(4)))
    assert len(asked) == 6 and all(auth.startswith("Basic ") and team == "semvar" for auth, team in asked)
    assert "t0ken" not in repr(judge) + str(vars(judge))


@pytest.mark.parametrize("hx", _httpx_modules(), ids=lambda m: m.__name__)
def test_a_users_client_is_held_to_the_deadline(hx):
    texts, labels = corpus(2, 1)
    with hx.Client(timeout=600) as client:  # its own timeout is per read: a trickle would never end
        with SimulatedEndpoint(dict(zip(texts, labels)), fault_every=1, faults=("trickle",), delay=0.1) as ep:
            judge = fast_judge(ep, http_client=client, timeout=0.5, max_retries=1, concurrency=1)
            v = judge.pairs(texts, [[0, 1]])
            assert v.mask.all() and judge.stats.unjudged_reasons == {"timeout": 1}
            assert ep.n_requests == 2 and ep.trickled < 30  # about 5 bytes a request, not the whole answer


def test_a_users_client_is_held_to_the_size_cap():
    texts, labels = corpus(2, 1)
    with httpx2.Client() as client:
        with SimulatedEndpoint(dict(zip(texts, labels)), fault_every=1, faults=("huge",)) as ep:
            judge = fast_judge(ep, http_client=client, max_retries=0, max_response_bytes=100_000)
            v = judge.pairs(texts, [[0, 1]])
    assert v.mask.all() and judge.stats.unjudged_reasons == {"answer longer than 100000 bytes": 1}


@pytest.mark.parametrize("bad", [object(), "http://proxy:3128", httpx2.AsyncClient()])
def test_anything_but_a_synchronous_client_is_refused(bad):
    with pytest.raises(TypeError, match="http_client must be a synchronous httpx2.Client"):
        LLMJudge("http://127.0.0.1:9/v1", "m", api_key="", http_client=bad)


def test_a_closed_client_is_refused():
    client = httpx2.Client()
    client.close()
    with pytest.raises(ValueError, match="http_client is closed"):
        LLMJudge("http://127.0.0.1:9/v1", "m", api_key="", http_client=client)


def test_a_key_echoed_in_a_header_stays_out_of_the_debug_log(caplog):
    # httpcore logs the headers of each answer at DEBUG level: a server that echoes the key there must not put it
    # in the log
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from ._helpers import KEY

    class Echo(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            body = json.dumps({"choices": [{"message": {"content": "TRUE"}}]}).encode()
            self.send_response(200)
            self.send_header("X-Seen-Authorization", self.headers["Authorization"])
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with caplog.at_level(logging.DEBUG):
            judge = LLMJudge(f"http://127.0.0.1:{server.server_address[1]}/v1", "m", api_key=KEY, progress=False)
            assert judge.pairs(["a", "b"], [[0, 1]]).tolist() == [True]
    finally:
        server.shutdown()
        server.server_close()
    logged = [r.getMessage() for r in caplog.records]
    assert any("X-Seen-Authorization" in m for m in logged)  # the header was logged, with the key blanked out
    assert not any(KEY[:10] in m or KEY[-10:] in m for m in logged)
