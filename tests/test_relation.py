"""Tests of equivalence-relation checks."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar.judges import OracleJudge, SBMJudge
from semvar.relation import (
    closure_partition,
    count_violations,
    is_equivalence,
    is_reflexive,
    is_symmetric,
    is_transitive,
    judge_relation,
    partition_from_relation,
    relation_from_partition,
)


def test_hand_counted_violations():
    # 0 -> 1 only (not back), 1 ~ 2 both ways, node 2 not reflexive
    R = np.array([[1, 1, 0], [0, 1, 1], [0, 1, 0]], dtype=bool)
    v = count_violations(R)
    assert v.reflexivity == 1
    assert v.symmetry == 1  # pair (0, 1)
    # paths i->j->k with distinct i, j, k: 0->1->2 (0,2 absent: violation); 2->1->? 1->0 absent. Only one path.
    assert (v.transitivity, v.paths) == (1, 1)
    assert not is_reflexive(R) and not is_symmetric(R) and not is_transitive(R) and not is_equivalence(R)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=25))
def test_partition_relation_roundtrip(labels):
    R = relation_from_partition(labels)
    assert is_equivalence(R)
    back = partition_from_relation(R)
    # same partition: i ~ j iff back[i] == back[j]
    assert np.array_equal(relation_from_partition(back), R)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 15), st.integers(0, 1000))
def test_closure_is_an_equivalence_containing_the_relation(n, seed):
    rng = np.random.default_rng(seed)
    R = rng.random((n, n)) < 0.2
    C = relation_from_partition(closure_partition(R))
    assert is_equivalence(C)
    assert np.all(C[R | R.T])


def test_judge_relation_oracle_and_sbm():
    labels = [0, 0, 1, 1, 1]
    texts = list("abcde")
    assert is_equivalence(judge_relation(OracleJudge(labels), texts))
    R = judge_relation(SBMJudge(labels, 0.5, 0.5, random_state=0), texts)
    v = count_violations(R)
    assert v.symmetry > 0  # independent coin flips for (i, j) and (j, i)
    Ru = judge_relation(SBMJudge(labels, 0.5, 0.5, random_state=0), texts, ordered=False)
    assert is_symmetric(Ru) and is_reflexive(Ru)


def test_partition_from_non_equivalence_raises():
    with pytest.raises(ValueError, match="not an equivalence relation"):
        partition_from_relation(np.array([[1, 1, 0], [1, 1, 1], [0, 1, 1]]))


@pytest.mark.parametrize(
    "bad, msg",
    [
        (np.ones((2, 3)), "square"),
        (np.zeros((0, 0)), "empty"),
        (np.array([[1, 0.5], [0.5, 1]]), "0/1"),
        (np.array([[1, np.nan], [np.nan, 1]]), "0/1"),
        (np.array([["a", "b"], ["c", "d"]]), "booleans"),
    ],
)
def test_bad_relations(bad, msg):
    for fn in (count_violations, is_reflexive, is_symmetric, is_transitive, is_equivalence, closure_partition, partition_from_relation):
        with pytest.raises(ValueError, match=msg):
            fn(bad)


def test_bad_input_other():
    with pytest.raises(ValueError, match="labels"):
        relation_from_partition([])
    with pytest.raises(ValueError, match="empty"):
        judge_relation(OracleJudge([0]), [])
    with pytest.raises(ValueError, match="single string"):
        judge_relation(OracleJudge([0]), "a")
