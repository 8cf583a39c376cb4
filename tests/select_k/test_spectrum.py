"""Tests of semvar.select_k.spectrum: the eigengap and the Bethe-Hessian."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar.graph import sample_sbm
from semvar.select_k import auto, bethe_hessian, eigengap


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 10_000))
def test_permutation_invariance_of_deterministic_methods(seed):
    """Relabelling the nodes does not change eigengap or Bethe-Hessian choices."""
    A = sample_sbm([15, 15, 10], 0.8, 0.1, random_state=seed).toarray()
    perm = np.random.default_rng(seed).permutation(A.shape[0])
    B = A[np.ix_(perm, perm)]
    if A.sum(1).min() > 0:
        assert eigengap(A, 5).k == eigengap(B, 5).k
    assert bethe_hessian(A, 5).k == bethe_hessian(B, 5).k


def test_eigengap_threshold():
    A = sample_sbm([40, 40, 40], 0.6, 0.05, random_state=1)
    res = eigengap(A, 6, threshold="bulk")
    mu, t = res.details["eigenvalues"], res.details["threshold"]
    assert res.k == int((mu[:6] > t).sum()) == 3
    assert eigengap(A, 6, threshold=0.99).k == 1  # only the trivial eigenvalue exceeds 0.99


def test_tied_gaps_go_to_the_smaller_k_whatever_the_rounding():
    """A path of three texts has eigenvalues 1, 0, -1: two equal gaps, which rounding must not decide."""
    from semvar.select_k import GAP_TIE
    from semvar.select_k._common import largest_gap_k

    path = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=float)
    assert eigengap(path, 2).k == 1 and auto(path, 2).details["eigengap_k"] == 1
    assert largest_gap_k(np.array([0.5, 0.5 - GAP_TIE / 2, 0.2])) == 1
    assert largest_gap_k(np.array([0.5, 0.5 + 10 * GAP_TIE, 0.2])) == 2
