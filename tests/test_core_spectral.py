"""Core tests of the graph -> spectral -> entropy path (oracle cases and properties)."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar.entropy import empirical_entropy, entropy_from_counts
from semvar.graph import adjacency_from_verdicts, all_pairs, block_labels, judge_graph, sample_sbm
from semvar.judges import OracleJudge, SBMJudge
from semvar.pipeline import graph_entropy
from semvar.spectral import spectral_clusters


def test_paris_london_entropy_is_log2():
    assert empirical_entropy(["Paris", "Paris", "London", "London"]) == pytest.approx(np.log(2))


@given(st.lists(st.integers(0, 6), min_size=1, max_size=60), st.permutations(range(7)))
def test_entropy_invariant_to_relabelling_and_bounded(labels, perm):
    h = empirical_entropy(labels)
    relabelled = [perm[x] for x in labels]
    assert h == pytest.approx(empirical_entropy(relabelled))
    assert h == pytest.approx(empirical_entropy(labels[::-1]))
    k = len(set(labels))
    assert -1e-12 <= h <= np.log(k) + 1e-12


@pytest.mark.parametrize("bad", [[], [[1, 2]]])
def test_entropy_bad_labels(bad):
    with pytest.raises(ValueError, match="labels"):
        empirical_entropy(bad)


def test_entropy_from_counts_bad():
    with pytest.raises(ValueError):
        entropy_from_counts([0, 0])
    with pytest.raises(ValueError):
        entropy_from_counts([1, -1])


def test_two_block_noiseless_graph_exact_recovery():
    A = np.kron(np.eye(2), np.ones((5, 5))) - np.eye(10)
    for lap in ("normalized", "unnormalized"):
        assert spectral_clusters(A, 2, laplacian=lap, random_state=1).tolist() == [0] * 5 + [1] * 5


@pytest.mark.parametrize("dense", [True, False])
def test_acceptance_sbm_entropy_error(dense):
    """SBM p=0.87, q=0.07, n=200, clusters 40/60/100: mean |E_bar - E_hat| <= 0.01 over 10 seeds."""
    truth = empirical_entropy(block_labels([40, 60, 100]))
    errs = []
    for seed in range(10):
        A = sample_sbm([40, 60, 100], 0.87, 0.07, random_state=seed)
        A = A.toarray() if dense else A
        errs.append(abs(graph_entropy(A, 3, random_state=seed) - truth))
    assert np.mean(errs) <= 0.01


def test_sparse_and_dense_agree():
    A = sample_sbm([30, 30, 40], 0.6, 0.1, random_state=3)
    a = spectral_clusters(A, 3, random_state=0)
    b = spectral_clusters(A.toarray(), 3, random_state=0)
    assert (a == b).all()


@pytest.mark.parametrize(
    "adj, k, msg",
    [
        (np.ones((3, 4)), 2, "square"),
        (np.array([[0, 1.0], [0, 0]]), 1, "symmetric"),
        (np.array([[0, -1.0], [-1, 0]]), 1, "non-negative"),
        (np.array([[0, np.nan], [np.nan, 0]]), 1, "NaN"),
        (np.ones((3, 3)), 0, "k must be >= 1"),
        (np.ones((3, 3)), 4, "k must be <= 3"),
        (np.ones((3, 3)), 1.5, "k must be an integer"),
    ],
)
def test_spectral_bad_input(adj, k, msg):
    with pytest.raises(ValueError, match=msg):
        spectral_clusters(adj, k)


def test_spectral_bad_sparse_input():
    with pytest.raises(ValueError, match="symmetric"):
        spectral_clusters(sp.csr_array(np.array([[0, 1.0], [0, 0]])), 1)


def test_isolated_node_warns_not_nan():
    A = np.kron(np.eye(2), np.ones((4, 4))) - np.eye(8)
    A = np.pad(A, ((0, 1), (0, 1)))
    with pytest.warns(RuntimeWarning, match="no edges"):
        labels = spectral_clusters(A, 2, random_state=0)
    assert np.all(np.isfinite(labels))


def test_sample_sbm_edge_density_and_symmetry():
    A = sample_sbm([200, 300], 0.3, 0.05, random_state=0)
    assert (A != A.T).nnz == 0 and A.diagonal().sum() == 0
    within = A[:200][:, :200].sum() / (200 * 199)
    across = A[:200][:, 200:].sum() / (200 * 300)
    assert within == pytest.approx(0.3, abs=0.02) and across == pytest.approx(0.05, abs=0.01)


def test_sample_sbm_large_path_matches_density():
    # the block-pair sampler with rng.choice is used above 5e6 slots
    A = sample_sbm([4000, 4000], 0.01, 0.002, random_state=1)
    assert A.sum() / 2 == pytest.approx(0.01 * 4000 * 3999 + 0.002 * 4000 * 4000, rel=0.03)


@pytest.mark.parametrize("kw, msg", [({"p": 1.2, "q": 0.1}, "p must lie"), ({"p": 0.5, "q": -0.1}, "q must lie")])
def test_sbm_bad_probabilities(kw, msg):
    with pytest.raises(ValueError, match=msg):
        sample_sbm([3, 3], **kw)
    with pytest.raises(ValueError, match=msg):
        SBMJudge([0, 1], **kw)


def test_judges_and_graph_assembly():
    labels = block_labels([3, 2])
    texts = list("abcde")
    A = judge_graph(OracleJudge(labels), texts)
    expected = (labels[:, None] == labels[None, :]).astype(float) - np.eye(5)
    assert np.array_equal(A.toarray(), expected)
    with pytest.raises(ValueError, match="knows labels for 5 texts"):
        OracleJudge(labels).pairs(texts[:4], all_pairs(4))


def test_unjudged_pairs_are_unobserved_not_false():
    pairs = all_pairs(3)
    verdicts = np.ma.array([True, False, True], mask=[False, False, True])
    A, obs = adjacency_from_verdicts(3, pairs, verdicts, return_mask=True)
    assert A[0, 1] == 1 and A[1, 2] == 0
    assert obs[0, 2] == 1 and obs[1, 2] == 0  # judged FALSE vs never judged


def test_adjacency_bad_pairs():
    with pytest.raises(ValueError, match="pairs must index texts"):
        adjacency_from_verdicts(2, [[0, 5]], [True])
    with pytest.raises(ValueError, match="one entry per pair"):
        adjacency_from_verdicts(3, [[0, 1]], [True, False])


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 8), min_size=1, max_size=4), st.integers(0, 10_000))
def test_oracle_graph_recovers_partition(sizes, seed):
    labels = block_labels(sizes)
    n = labels.size
    A = judge_graph(OracleJudge(labels), ["t"] * n)
    k = len(sizes)
    if any(s == 1 for s in sizes):
        return  # singletons are isolated nodes: a separate, warned case
    est = spectral_clusters(A, k, random_state=seed)
    assert empirical_entropy(est) == pytest.approx(empirical_entropy(labels))
