"""Tests of semvar._masks: unresolved texts, the completed graph, the dense mask, the size limit."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar._masks import MASKED_N_MAX, check_mask_size, completed, dense_mask, unresolved


def _paths():
    """Three paths of four texts; judged: the path edges (TRUE) and every pair across meanings (FALSE)."""
    A = np.kron(np.eye(3), np.eye(4, k=1) + np.eye(4, k=-1))
    O = np.ones((12, 12)) - np.kron(np.eye(3), np.ones((4, 4))) + A
    return A, O


def test_a_text_with_no_true_verdict_is_unresolved_only_while_a_pair_of_it_is_unjudged():
    A, O = _paths()
    assert not unresolved(A, O).any()
    B, P = A.copy(), O.copy()
    B[0, 1] = B[1, 0] = 0  # text 0 loses its one TRUE verdict: unjudged now
    P[0, 1] = P[1, 0] = 0
    assert unresolved(B, P).tolist() == [True] + [False] * 11
    P[0, :] = P[:, 0] = 1  # every pair of text 0 judged (FALSE): a meaning of its own, resolved
    P[0, 0] = 0
    assert not unresolved(B, P).any()
    assert not unresolved(B, None).any()  # every pair judged


def test_unresolved_reads_sparse_input_as_dense():
    A, O = _paths()
    A[0, 1] = A[1, 0] = O[0, 1] = O[1, 0] = 0
    assert unresolved(sp.csr_array(A), sp.csr_array(O)).tolist() == unresolved(A, O).tolist()


def test_the_completed_graph_keeps_judged_pairs_and_fills_the_others_with_their_mean():
    A, O = _paths()
    Y = completed(A, O)
    rho = A.sum() / O.sum()
    off = ~np.eye(12, dtype=bool)
    assert np.array_equal(Y[O > 0], A[O > 0]) and np.allclose(Y[(O == 0) & off], rho)
    assert np.all(np.diagonal(Y) == 0) and completed(A, None) is A


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 12), st.integers(0, 2**31 - 1))
def test_a_full_mask_is_none_and_a_partial_one_is_kept(n, seed):
    rng = np.random.default_rng(seed)
    full = np.ones((n, n))
    assert dense_mask(full, n) is None and dense_mask(None, n) is None
    M = np.triu(rng.random((n, n)) < 0.5, 1)
    M = (M | M.T).astype(float)
    out = dense_mask(M, n)
    assert (out is None) == bool(M.sum() == n * (n - 1))
    if out is not None:
        assert np.array_equal(out, M)


def test_masks_of_very_large_graphs_are_refused_before_anything_dense_is_made():
    assert check_mask_size("mask", MASKED_N_MAX) == "mask" and check_mask_size(None, 10**7) is None
    with pytest.raises(ValueError, match=r"observed: a partly judged graph of 20,001 texts .* at most 20,000"):
        check_mask_size("mask", MASKED_N_MAX + 1)
