"""Tests of semvar.select_k: choosing the number of blocks K."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

from semvar.graph import sample_sbm
from semvar.select_k import KSelection, bethe_hessian, choose_k, ecv, eigengap, ncv


def _two_cliques(m=6):
    return np.kron(np.eye(2), np.ones((m, m))) - np.eye(2 * m)


def test_ncv_recovers_three_blocks_in_eight_of_ten():
    """SBM(p=0.5, q=0.1), three blocks of 100: NCV returns 3 in at least 8 of 10 graphs."""
    hits = 0
    for seed in range(10):
        A = sample_sbm([100, 100, 100], 0.5, 0.1, random_state=1000 + seed)
        hits += int(ncv(A, k_max=6, random_state=seed)) == 3
    assert hits >= 8


def test_result_type_and_losses():
    A = sample_sbm([30, 30], 0.7, 0.05, random_state=3)
    res = ncv(A, 4, random_state=0)
    assert isinstance(res, KSelection)
    assert int(res) == res.k == int(np.argmin(res.losses)) + 1
    assert res.losses.shape == (4,) and np.all(np.isfinite(res.losses))
    assert res.details["fold_l2"].shape == (3, 4)
    assert list(range(1, 5)) == res.candidates.tolist()


def test_noiseless_cliques_all_methods():
    """Two disjoint cliques: every method must find 2 (hand-checkable spectrum)."""
    A = _two_cliques(8)
    assert int(ncv(A, 4, random_state=0)) == 2
    assert int(ecv(A, 4, random_state=0)) == 2
    assert int(bethe_hessian(A, 4)) == 2
    # normalised adjacency of two disjoint cliques: eigenvalues 1, 1, then -1/7 (x14)
    res = eigengap(A, 4)
    assert res.k == 2
    np.testing.assert_allclose(res.details["eigenvalues"][:3], [1, 1, -1 / 7], atol=1e-12)


def test_erdos_renyi_is_one_block():
    A = sample_sbm([120], [[0.3]], random_state=5)
    assert int(ncv(A, 4, random_state=1)) == 1
    assert int(bethe_hessian(A, 4)) == 1


def test_deviance_loss_and_sparse_input():
    A = sample_sbm([40, 40, 40], 0.6, 0.05, random_state=2)
    assert int(ncv(sp.csr_array(A), 5, loss="deviance", random_state=0)) == 3
    assert int(ecv(A, 5, loss="deviance", random_state=0)) == 3


def test_ecv_partially_observed():
    """ECV with only 60 % of the pairs judged still finds the blocks."""
    rng = np.random.default_rng(0)
    A = sample_sbm([50, 50, 50], 0.7, 0.05, random_state=4).toarray()
    n = A.shape[0]
    mask = np.triu(rng.random((n, n)) < 0.6, 1).astype(float)
    mask = mask + mask.T
    assert int(ecv(A * mask, 5, observed=mask, random_state=1)) == 3


def test_isolated_nodes():
    A = sample_sbm([30, 30], 0.7, 0.05, random_state=3).toarray()
    A = np.pad(A, ((0, 2), (0, 2)))  # two isolated nodes
    for f in (lambda: ncv(A, 4, random_state=0), lambda: ecv(A, 4, random_state=0), lambda: bethe_hessian(A, 4)):
        res = f()
        assert np.all(np.isfinite(res.losses)) and 1 <= res.k <= 4
    with pytest.raises(ValueError, match="isolated"):
        eigengap(A, 4)


def test_choose_k_dispatch():
    A = _two_cliques(6)
    for m in ("ncv", "ecv", "eigengap", "bethe_hessian"):
        assert choose_k(A, m, k_max=4, random_state=0) == 2
    assert choose_k(np.ones((4, 4)) - np.eye(4), "eigengap", k_max=10) == 1  # k_max lowered to n - 1
    assert 1 <= choose_k(_two_cliques(2), "ncv", k_max=10, random_state=0) <= 3  # 4 nodes: two folds


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda A: ncv(A, 0), "k_max"),
        (lambda A: ncv(A, 12), "k_max"),
        (lambda A: ncv(A, 3, folds=1), "folds"),
        (lambda A: ncv(A, 3, folds=7), "folds"),
        (lambda A: ncv(A, 9, folds=2), "training nodes"),
        (lambda A: ncv(A, 3, loss="abs"), "loss"),
        (lambda A: ecv(A, 3, holdout=0.9), "holdout"),
        (lambda A: ecv(A, 3, repeats=0), "repeats"),
        (lambda A: ecv(A, 3, observed=np.ones((3, 3))), "observed"),
        (lambda A: eigengap(A, 12), "k_max"),
        (lambda A: bethe_hessian(A, -1), "k_max"),
        (lambda A: bethe_hessian(np.zeros((12, 12)), 3), "no edges"),
        (lambda A: choose_k(A, "bic"), "method"),
        (lambda A: ncv(A[:, :5], 3), "square"),
        (lambda A: ncv(np.where(A > 0, np.nan, 0), 3), "NaN"),
        (lambda A: choose_k(A[:2, :2], "ncv"), "at least 3"),
        (lambda A: choose_k(A[:3, :3], "ncv"), "at least 4"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call(_two_cliques(6))


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


def test_ecv_with_mask_from_partial_verdicts():
    """The observed-pair mask of a partially judged graph plugs straight into ECV."""
    from semvar.graph import adjacency_from_verdicts, all_pairs
    from semvar.judges import SBMJudge
    from semvar.graph import block_labels

    truth = block_labels([40, 40, 40])
    pairs = all_pairs(truth.size)
    keep = np.random.default_rng(2).random(len(pairs)) < 0.5
    verdicts = SBMJudge(truth, 0.8, 0.05, random_state=0).pairs([str(i) for i in range(truth.size)], pairs[keep])
    A, mask = adjacency_from_verdicts(truth.size, pairs[keep], verdicts, return_mask=True)
    assert int(ecv(A, 5, observed=mask, random_state=0)) == 3
