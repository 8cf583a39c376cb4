"""A user's own httpx client under the judge: it is used, left open, and held to the same deadline and size cap."""

from __future__ import annotations

import httpx2
import numpy as np
import pytest

from semvar.graph import all_pairs
from semvar.llm import LLMJudge
from semvar.testing import SimulatedEndpoint

from ._helpers import corpus, fast_judge, truth


def test_a_users_client_carries_the_requests_and_stays_open():
    texts, labels = corpus(2, 2)
    seen = []
    client = httpx2.Client(
        auth=httpx2.BasicAuth("team", "t0ken"), headers={"X-Team": "semvar"},
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


def test_a_users_client_is_held_to_the_deadline():
    texts, labels = corpus(2, 1)
    with httpx2.Client(timeout=600) as client:  # its own timeout is per read: a trickle would never end
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
