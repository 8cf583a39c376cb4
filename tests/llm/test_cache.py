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
import pytest

from semvar.graph import all_pairs
from semvar.llm import PROMPTS, LLMJudge, VerdictCache
from semvar.llm.cache import CacheError, owner_id
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


# --------------------------------------------------------------------------- tampered verdicts are refused, never trusted
TAMPERED = ["FALSE", "TRUE", -1, 2, 0.5, None, b"\x01", "", 1.5]


def _tampered_cache(tmp_path, value):
    """A cache holding one verdict, then ``value`` written over it by hand (a table without NOT NULL for None)."""
    path = tmp_path / "c.sqlite"
    key = VerdictCache.key("m", "t", "a", "b")
    cache = VerdictCache(path)
    cache.put(key, "m", "sha", "a", "b", False, "FALSE")
    cache.close()
    con = sqlite3.connect(path)
    if value is None:  # the same columns, without the NOT NULL a writer would need to bypass
        con.execute("ALTER TABLE verdicts RENAME TO old")
        con.execute("CREATE TABLE verdicts (key TEXT PRIMARY KEY, model TEXT, template_sha TEXT, text_a TEXT, "
                    "text_b TEXT, verdict INTEGER, answer TEXT, created REAL)")
        con.execute("INSERT INTO verdicts SELECT * FROM old")
        con.execute("DROP TABLE old")
    con.execute("UPDATE verdicts SET verdict = ?", (value,))
    con.commit()
    con.close()
    return path, key


@pytest.mark.parametrize("value", TAMPERED, ids=repr)
def test_a_tampered_verdict_is_refused_naming_the_file_and_the_row(tmp_path, value):
    path, key = _tampered_cache(tmp_path, value)
    cache = VerdictCache(path)
    for read in (lambda: cache.get_many([key]), lambda: cache.claim(key, owner_id(), 10.0),
                 lambda: cache.put(key, "m", "sha", "a", "b", True, "TRUE")):
        with pytest.raises(CacheError, match="verdict") as err:
            read()
        text = str(err.value)
        assert str(path) in text and key in text and repr(value) in text and "0 or 1" in text
    cache.close()


@pytest.mark.parametrize("value", [0, 1, 1.0, "1", "0"], ids=repr)
def test_the_verdicts_a_cache_stores_are_read(tmp_path, value):
    # 0 and 1, the only verdicts put() writes; SQLite's INTEGER affinity stores 1.0 and '1' as the integer 1
    path, key = _tampered_cache(tmp_path, value)
    cache = VerdictCache(path)
    assert cache.get_many([key]) == {key: bool(int(value))}
    assert cache.claim(key, owner_id(), 10.0) == ("stored", bool(int(value)))
    assert cache.put(key, "m", "sha", "a", "b", not bool(int(value)), "x") is bool(int(value))
    cache.close()


def test_a_judge_refuses_a_tampered_cache_rather_than_read_true(tmp_path):
    texts, labels = corpus(2, 2)
    cache = tmp_path / "c.sqlite"
    with SimulatedEndpoint(dict(zip(texts, labels))) as ep:
        fast_judge(ep, cache_path=cache).pairs(texts, [[0, 2]])  # two meanings: FALSE
        con = sqlite3.connect(cache)
        con.execute("UPDATE verdicts SET verdict = 'FALSE'")
        con.commit()
        con.close()
        with pytest.raises(CacheError, match=r"holds the verdict 'FALSE'"):
            fast_judge(ep, cache_path=cache).pairs(texts, [[0, 2]])
        assert ep.n_requests == 1
