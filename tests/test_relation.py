"""Tests of equivalence-relation checks."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar.graph import all_pairs
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
    relation_report,
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
    with pytest.raises(TypeError, match="pairs"):
        judge_relation(object(), ["a", "b"])
    with pytest.raises(ValueError, match="ordered must be True or False"):
        judge_relation(OracleJudge([0, 1]), ["a", "b"], ordered="yes")


# --------------------------------------------------------------------------- violations among judged pairs
def brute_report(n, pairs, verdicts, judged):
    """The report computed the slow way: pooled majority verdicts, then every triple and pair looked at."""
    per_order, pooled = {}, {}
    for (i, j), v, ok in zip(pairs, verdicts, judged):
        if ok and i != j:
            per_order.setdefault((i, j), []).append(float(v))
            pooled.setdefault((min(i, j), max(i, j)), []).append(float(v))
    both = [(i, j) for (i, j) in per_order if i < j and (j, i) in per_order]
    sym = sum(np.mean(per_order[(i, j)]) != np.mean(per_order[(j, i)]) for i, j in both)

    def state(i, j):
        vals = pooled.get((min(i, j), max(i, j)))
        if vals is None or np.mean(vals) == 0.5:
            return None
        return bool(np.mean(vals) > 0.5)

    paths = violations = 0
    for i in range(n):
        for j in range(n):
            for k in range(n):
                if len({i, j, k}) == 3 and state(i, j) is True and state(j, k) is True:
                    paths += 1
                    violations += state(i, k) is False
    return {"symmetry": {"pairs_judged_both_orders": len(both), "violations": int(sym)},
            "transitivity": {"violations": violations, "paths": paths}}


def test_relation_report_hand_chain_and_unjudged_pairs():
    # 0 ~ 1 and 1 ~ 2 judged TRUE, 0 ~ 2 judged FALSE: the open path counts from both ends
    P = np.array([[0, 1], [1, 2], [0, 2]])
    rep = relation_report(3, P, np.ma.MaskedArray([True, True, False], mask=[False, False, False]))
    assert rep == {"symmetry": {"pairs_judged_both_orders": 0, "violations": 0},
                   "transitivity": {"violations": 2, "paths": 2}}
    # the same with 0 ~ 2 unjudged (masked, or NaN): no violation can be seen
    rep = relation_report(3, P, np.ma.MaskedArray([True, True, False], mask=[False, False, True]))
    assert rep["transitivity"] == {"violations": 0, "paths": 2}
    assert relation_report(3, P, [1.0, 1.0, np.nan])["transitivity"] == {"violations": 0, "paths": 2}


def test_relation_report_two_orders_that_disagree():
    # (0, 1) TRUE and (1, 0) FALSE: a symmetry violation, and the pooled pair is neither TRUE nor FALSE
    P = np.array([[0, 1], [1, 0], [1, 2], [0, 2]])
    rep = relation_report(3, P, [True, False, True, False])
    assert rep["symmetry"] == {"pairs_judged_both_orders": 1, "violations": 1}
    assert rep["transitivity"] == {"violations": 0, "paths": 0}
    # asked twice in the same order with the same verdicts as the other order: no violation
    rep = relation_report(3, [[0, 1], [0, 1], [1, 0], [1, 0]], [True, False, False, True])
    assert rep["symmetry"] == {"pairs_judged_both_orders": 1, "violations": 0}


def test_relation_report_on_a_symmetric_design_matches_count_violations():
    rng = np.random.default_rng(0)
    n = 9
    P = all_pairs(n)
    v = rng.random(P.shape[0]) < 0.4
    R = np.eye(n, dtype=bool)
    R[P[:, 0], P[:, 1]] = v
    R[P[:, 1], P[:, 0]] = v
    rep = relation_report(n, P, v)
    cv = count_violations(R)
    assert rep["transitivity"] == {"violations": cv.transitivity, "paths": cv.paths} and cv.transitivity > 0


def test_relation_report_on_an_ordered_design_counts_symmetry_as_count_violations():
    rng = np.random.default_rng(1)
    n = 8
    P = all_pairs(n)
    P = np.concatenate([P, P[:, ::-1]])
    v = rng.random(P.shape[0]) < 0.5
    R = np.eye(n, dtype=bool)
    R[P[:, 0], P[:, 1]] = v
    rep = relation_report(n, P, v)
    assert rep["symmetry"] == {"pairs_judged_both_orders": n * (n - 1) // 2,
                               "violations": count_violations(R).symmetry}
    assert count_violations(R).symmetry > 0


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 7), st.integers(0, 40), st.integers(0, 10_000))
def test_relation_report_matches_a_brute_force_count(n, m, seed):
    rng = np.random.default_rng(seed)
    P = rng.integers(0, n, size=(m, 2))
    v = rng.random(m) < 0.6
    judged = rng.random(m) < 0.85
    rep = relation_report(n, P, np.ma.MaskedArray(v, mask=~judged))
    assert rep == brute_report(n, P.tolist(), v, judged)


def test_relation_report_skips_transitivity_above_the_limit():
    P = np.array([[0, 1], [1, 2], [0, 2]])
    rep = relation_report(3, P, [True, True, False], transitivity_max_n=2)
    assert rep["transitivity"] == {"violations": None, "paths": None, "note": "skipped for more than 2 texts"}
    assert rep["symmetry"] == {"pairs_judged_both_orders": 0, "violations": 0}


def test_relation_report_of_nothing_judged():
    empty = relation_report(4, np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=bool))
    assert empty == {"symmetry": {"pairs_judged_both_orders": 0, "violations": 0},
                     "transitivity": {"violations": 0, "paths": 0}}
    # self-pairs are not pairs
    assert relation_report(2, [[0, 0], [1, 1]], [True, False]) == empty


@pytest.mark.parametrize(
    "args, kwargs, msg",
    [
        ((0, [[0, 1]], [True]), {}, "n must be"),
        ((2, [[0, 2]], [True]), {}, "pairs must index texts"),
        ((3, [[0, 1, 2]], [True]), {}, "pairs must be an"),
        ((3, [[0, 1]], [True, False]), {}, "one entry per pair"),
        ((3, [[0, 1]], [True]), {"transitivity_max_n": -1}, "transitivity_max_n"),
    ],
)
def test_relation_report_bad_input(args, kwargs, msg):
    with pytest.raises(ValueError, match=msg):
        relation_report(*args, **kwargs)
