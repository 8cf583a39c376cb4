"""Shared pieces of the tests of semvar.llm: a corpus with known meanings, the truth, a quick judge."""

from __future__ import annotations

import threading
import time

import numpy as np

from semvar.llm import LLMJudge

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


def wait_until(condition, proc, what: str) -> None:
    """Poll ``condition`` while ``proc`` runs: the test waits for a state, not for a time.

    The one bound (ten minutes) only keeps a broken client from hanging the suite.
    """
    stop = time.monotonic() + 600
    while not condition():
        assert proc.poll() is None, f"the command ended before {what}: {proc.communicate()}"
        assert time.monotonic() < stop, f"still waiting for {what} after ten minutes"
        threading.Event().wait(0.02)
