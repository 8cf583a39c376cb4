"""Tests of semvar.llm.judge: LLMJudge's arguments, its verdicts under faults, and an interrupted run.

Against a real HTTP server on 127.0.0.1 (semvar.testing.SimulatedEndpoint); nothing in the client is patched.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import numpy as np
import pytest

from semvar.graph import adjacency_from_verdicts, all_pairs
from semvar.judges import LLMJudge as LazyLLMJudge
from semvar.llm import LLMJudge, VerdictCache
from semvar.testing import SimulatedEndpoint

from ._helpers import corpus, fast_judge, truth, wait_until


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


def test_duplicate_rows_are_asked_once():
    texts, labels = corpus(2, 2)
    with SimulatedEndpoint(dict(zip(texts, labels))) as ep:
        judge = fast_judge(ep)
        v = judge.pairs(texts + [texts[0]], [[0, 1], [0, 1], [4, 1]])  # text 4 repeats text 0
    assert v.tolist() == [True, True, True] and ep.n_requests == 1
    assert judge.stats.pairs == 3 and judge.stats.unique == 1


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
        wait_until(lambda: committed_verdicts(cache) >= 20 and ep.in_flight == 4, proc, "20 committed answers and 4 held requests")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=600)  # the command must end on its own, however slowly
    assert proc.returncode == 130, err
    assert "interrupted: 20 finished calls are in" in err and "run the same command again" in err
    assert len(VerdictCache(cache)) == 20 and not (tmp_path / "r.json").exists()


def test_texts_and_flags_are_checked_before_any_request():
    judge = LLMJudge("http://127.0.0.1:9/v1", "m", api_key="")  # nobody listens on port 9: no request may be sent
    with pytest.raises(ValueError, match="texts must be a sequence of strings, got a single string"):
        judge.pairs("ab", [[0, 1]])
    with pytest.raises(ValueError, match="texts must all be strings; item 1 is int"):
        judge.pairs(["a", 3], [[0, 1]])
    none = judge.pairs([], np.zeros((0, 2), dtype=int))  # no texts and no pairs: nothing to ask
    assert none.shape == (0,) and judge.stats.requests == 0
    same = judge.pairs(["a", "a"], [[0, 1], [1, 0]])  # identical texts are TRUE without a request
    assert same.tolist() == [True, True] and judge.stats.requests == 0 and judge.stats.identical == 2
    with pytest.raises(TypeError, match="progress must be True or False, got 'yes'"):
        LLMJudge("http://127.0.0.1:9/v1", "m", api_key="", progress="yes")


# --------------------------------------------------------------------------- constrained answers, soft verdicts
@pytest.mark.parametrize("constrain", ["grammar", "json", "json_object"])
def test_a_constrained_answer_is_asked_for_and_read(constrain):
    texts, labels = corpus(2, 3)
    P = all_pairs(len(texts))
    with SimulatedEndpoint(dict(zip(texts, labels))) as ep:
        v = fast_judge(ep, constrain=constrain).pairs(texts, P)
    assert v.mask.sum() == 0 and np.array_equal(v.data, truth(labels, P))


def test_a_soft_verdict_keeps_its_probability_and_is_cached_under_its_options(tmp_path):
    texts, labels = corpus(2, 3)
    P = all_pairs(len(texts))
    cache = tmp_path / "c.sqlite"
    with SimulatedEndpoint(dict(zip(texts, labels))) as ep:
        judge = fast_judge(ep, soft=True, cache_path=cache)
        pi = judge.scores(texts, P)
        assert judge.max_tokens == 1 and ep.n_requests == len(P)
        # the simulated server gives the verdict's word 0.6 and the other 0.1: pi = 6/7 or 1/7
        assert np.allclose(pi, np.where(truth(labels, P), 6 / 7, 1 / 7), atol=1e-6)
        again = fast_judge(ep, soft=True, cache_path=cache)
        assert np.allclose(again.scores(texts, P), pi) and again.stats.requests == 0  # from the cache
        strict = fast_judge(ep, soft=True, threshold=0.9, cache_path=cache)
        v = strict.pairs(texts, P)  # another threshold is another call: not answered from the first one's cache
        assert strict.stats.requests == len(P) and not v.filled(True).any()
        free = fast_judge(ep, cache_path=cache)
        free.pairs(texts, P)
        assert free.stats.requests == len(P)  # a free answer is not a soft one


def test_soft_and_constrain_arguments_are_checked(tmp_path):
    with pytest.raises(ValueError, match="constrain must be"):
        LLMJudge("http://127.0.0.1:9/v1", "m", constrain="regex")
    with pytest.raises(ValueError, match="soft=True reads the first token"):
        LLMJudge("http://127.0.0.1:9/v1", "m", soft=True, constrain="json")
    for bad in (0.0, 1.0, 1.5, float("nan")):
        with pytest.raises(ValueError, match="threshold"):
            LLMJudge("http://127.0.0.1:9/v1", "m", soft=True, threshold=bad)
    with pytest.raises(ValueError, match="top_logprobs"):
        LLMJudge("http://127.0.0.1:9/v1", "m", soft=True, top_logprobs=0)
    with pytest.raises(ValueError, match="soft=True"):
        LLMJudge("http://127.0.0.1:9/v1", "m").scores(["a", "b"], [[0, 1]])


def test_a_server_without_logprobs_leaves_soft_pairs_unjudged_with_the_reason():
    texts, labels = corpus(1, 3)
    with SimulatedEndpoint(dict(zip(texts, labels)), faults=("unparseable",), fault_every=1) as ep:
        judge = fast_judge(ep, soft=True, max_retries=0)
        v = judge.pairs(texts, [[0, 1]])
    assert v.mask.all() and "log-probabilities" in judge.stats.why_unjudged()


def test_raw_answers_stay_aligned_with_their_rows_when_some_are_lost():
    """Every third call fails for good: the answers of the other rows are still their own rows' answers."""
    texts, labels = corpus(2, 3)
    P = np.array([[0, 1], [0, 0], [0, 3], [1, 4], [2, 2], [2, 5], [3, 4], [4, 5], [1, 0], [5, 3]])
    with SimulatedEndpoint(dict(zip(texts, labels)), fault_every=3, faults=("500",)) as ep:
        judge = fast_judge(ep, constrain="grammar", max_retries=0, concurrency=1)
        answers = judge.answers(texts, P)
    same = P[:, 0] == P[:, 1]
    # one key per row here: as many rows hold an answer as keys were judged
    assert sum(a is not None for a in answers) == judge.stats.done
    assert all(a is None for a in np.array(answers, dtype=object)[same])
    got = [(r, a) for r, a in enumerate(answers) if not same[r]]
    assert any(a is None for _, a in got) and sum(a is not None for _, a in got) >= 3
    for r, a in got:  # a lost row is None; every other row holds the verdict of its own pair
        assert a is None or a == ("TRUE" if labels[P[r, 0]] == labels[P[r, 1]] else "FALSE")
