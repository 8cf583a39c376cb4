"""Tests of semvar.select_k.cv: network and edge cross-validation."""

import numpy as np
import scipy.sparse as sp

from semvar.graph import sample_sbm
from semvar.select_k import KSelection, bethe_hessian, ecv, ncv


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


def test_ecv_with_mask_from_partial_verdicts():
    """The observed-pair mask of a partially judged graph plugs straight into ECV."""
    from semvar.graph import adjacency_from_verdicts, all_pairs, block_labels
    from semvar.judges import SBMJudge

    truth = block_labels([40, 40, 40])
    pairs = all_pairs(truth.size)
    keep = np.random.default_rng(2).random(len(pairs)) < 0.5
    verdicts = SBMJudge(truth, 0.8, 0.05, random_state=0).pairs([str(i) for i in range(truth.size)], pairs[keep])
    A, mask = adjacency_from_verdicts(truth.size, pairs[keep], verdicts, return_mask=True)
    assert int(ecv(A, 5, observed=mask, random_state=0)) == 3


def test_ncv_small_sample_variant():
    A = sample_sbm([17, 17, 17], 0.99, 0.01, random_state=100)
    res = ncv(A, 6, repeats=3, se_rule=True, random_state=0)
    assert res.details["fold_l2"].shape == (9, 6) and res.k == 3
    assert "standard_error" in res.details
