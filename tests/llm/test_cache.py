"""Tests of semvar.llm.cache: the verdict cache's key, and a killed run that resumes from it.

Against a real HTTP server on 127.0.0.1 (semvar.testing.SimulatedEndpoint); nothing in the client is patched.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys

import numpy as np

from semvar.graph import all_pairs
from semvar.llm import PROMPTS, LLMJudge, VerdictCache
from semvar.llm.cache import owner_id
from semvar.testing import SimulatedEndpoint

from ._helpers import corpus, fast_judge, truth, wait_until


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
        wait_until(lambda: committed_verdicts(cache) >= n_first and ep.in_flight > 0, proc, f"{n_first} committed answers")
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


def test_claims_let_one_process_make_each_call(tmp_path):
    """A claim is held by one owner until it is released, expires, the call is stored, or its process is gone."""
    cache = VerdictCache(tmp_path / "c.sqlite")
    key = VerdictCache.key("m", "{text_A} / {text_B}", "a cat", "one cat")
    me, other = owner_id(), "another-host:1:0"
    assert cache.claim(key, me, 30.0) == ("claimed", None)
    assert cache.claim(key, me, 30.0) == ("claimed", None)  # its own claim is renewed
    assert cache.claim(key, other, 30.0) == ("busy", None)
    cache.release(key, me)
    assert cache.claim(key, other, 30.0) == ("claimed", None)
    assert cache.claim(key, me, -1.0) == ("busy", None)  # the other's claim still holds
    assert cache.claim(key, other, -1.0) == ("claimed", None)  # renewed with a claim that has already expired
    assert cache.claim(key, me, 30.0) == ("claimed", None)  # so it can be taken over
    # a claim of a process of this host that no longer runs is taken over at once
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    gone = f"{socket.gethostname()}:{int(dead.stdout)}:0"
    cache.release(key, me)
    assert cache.claim(key, gone, 30.0) == ("claimed", None)
    assert cache.claim(key, me, 30.0) == ("claimed", None)
    # a stored verdict answers every claim, and the first verdict stored stays
    assert cache.put(key, "m", "sha", "a cat", "one cat", True, "TRUE.") is True
    assert cache.claim(key, other, 30.0) == ("stored", True)
    assert cache.put(key, "m", "sha", "a cat", "one cat", False, "FALSE.") is True
    cache.close()
