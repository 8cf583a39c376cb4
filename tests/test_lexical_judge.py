"""Tests of semvar.judges.LexicalJudge (token-Jaccard threshold judge)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar.graph import all_pairs, judge_graph
from semvar.judges import Judge, LexicalJudge

words = st.lists(st.sampled_from(["the", "answer", "is", "B", "C", "so", "x1", "Paris"]), max_size=8)
texts = st.lists(words.map(" ".join), min_size=2, max_size=6)


def test_hand_computed_scores():
    j = LexicalJudge(0.5)
    t = ["The answer is (B).", "the ANSWER is b", "So it is C", ""]
    s = j.score(t, [[0, 1], [0, 2], [2, 3], [3, 3]])
    # {the, answer, is, b} vs itself: 1; vs {so, it, is, c}: 1/7; anything vs no token: 0; no token vs no token: 1
    assert s.tolist() == [1.0, 1 / 7, 0.0, 1.0]
    assert j.pairs(t, [[0, 1], [0, 2]]).tolist() == [True, False]
    assert isinstance(j, Judge)
    assert repr(j) == "LexicalJudge(threshold=0.5)"


def test_threshold_edges():
    t = ["a b", "a c"]  # Jaccard 1/3
    assert LexicalJudge(1 / 3).pairs(t, [[0, 1]]).tolist() == [True]
    assert LexicalJudge(0.34).pairs(t, [[0, 1]]).tolist() == [False]
    assert LexicalJudge(0.0).pairs(["x", "y"], [[0, 1]]).tolist() == [True]


@settings(max_examples=60, deadline=None)
@given(texts)
def test_reflexive_symmetric_and_bounded(ts):
    j = LexicalJudge(0.4)
    P = all_pairs(len(ts))
    s = j.score(ts, P)
    assert np.all((s >= 0) & (s <= 1))
    assert np.array_equal(s, j.score(ts, P[:, ::-1]))
    assert np.all(j.score(ts, np.stack([np.arange(len(ts))] * 2, axis=1)) == 1.0)
    # invariant under word order and case
    shuffled = [" ".join(reversed(t.upper().split())) for t in ts]
    assert np.array_equal(s, j.score(shuffled, P))


def test_graph_through_the_judge_protocol():
    A = judge_graph(LexicalJudge(0.5), ["the answer is B", "answer is B the", "no idea at all"])
    assert A.toarray().astype(int).tolist() == [[0, 1, 0], [1, 0, 0], [0, 0, 0]]


@pytest.mark.parametrize("threshold", [-0.1, 1.5, float("nan"), "0.5"])
def test_bad_threshold(threshold):
    with pytest.raises(ValueError, match="threshold"):
        LexicalJudge(threshold)


def test_bad_texts_and_pairs():
    j = LexicalJudge()
    with pytest.raises(ValueError):
        j.score("one string", [[0, 1]])
    with pytest.raises(ValueError):
        j.score(["a", "b"], [[0, 2]])
    with pytest.raises(ValueError):
        j.score(["a", 3], [[0, 1]])
