"""Tests of semvar.select_k.likelihood: the ICL and the BIC."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar.graph import sample_sbm
from semvar.select_k import bic, icl


def _dense_icl(A, z, k, e_all, N_all) -> float:
    """The judge-model ICL of labels ``z`` on a dense graph, as the rules score it (a batch of one)."""
    from semvar._batched import _icl_judge

    return float(_icl_judge(A[None], z[None], k, np.array([e_all]), N_all)[0][0])


def test_icl_matches_direct_integration():
    """ICL of a small labelled graph = log of the integral over (p, q) + log P(z) (Polya urn) + log K!.

    Both parts are computed here independently of the module: the verdict part by numerical
    double integration, the label part by the sequential urn of a Dirichlet(1) prior.
    """
    from math import factorial, log

    from scipy.integrate import dblquad

    from semvar.select_k.likelihood import _icl_value

    A = np.zeros((6, 6))
    for i, j in [(0, 1), (0, 2), (1, 2), (3, 4), (2, 3), (4, 5)]:
        A[i, j] = A[j, i] = 1.0
    z = np.array([0, 0, 0, 1, 1, 1])
    iu = np.triu_indices(6, 1)
    same = (z[:, None] == z[None, :])[iu]
    a = A[iu]
    e_in, n_in = a[same].sum(), same.sum()
    e_out, n_out = a[~same].sum(), (~same).sum()
    f = lambda q, p: p**e_in * (1 - p) ** (n_in - e_in) * q**e_out * (1 - q) ** (n_out - e_out)  # noqa: E731
    verdicts, _ = dblquad(f, 0, 1, 0, 1, epsabs=1e-14, epsrel=1e-10)
    K, urn, counts = 2, 1.0, [0, 0]
    for i, g in enumerate(z):
        urn *= (counts[g] + 1) / (i + K)
        counts[g] += 1
    expected = log(verdicts) + log(urn) + log(factorial(K))
    assert _icl_value(A, z, "judge") == pytest.approx(expected, rel=1e-8)
    # the block model integrates three probabilities (two blocks and the pair between them)
    g = lambda e, N: dblquad(lambda y, x: x**e * (1 - x) ** (N - e), 0, 1, 0, 1)[0]  # noqa: E731
    block = [(A[np.ix_(z == 0, z == 0)][np.triu_indices(3, 1)]), (A[np.ix_(z == 1, z == 1)][np.triu_indices(3, 1)]),
             A[np.ix_(z == 0, z == 1)].ravel()]
    sbm = sum(log(g(b.sum(), b.size)) for b in block) + log(urn) + log(factorial(K))
    assert _icl_value(A, z, "sbm") == pytest.approx(sbm, rel=1e-6)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000))
def test_icl_and_bic_are_invariant_to_relabelling(seed):
    from semvar.select_k.likelihood import _bic_value, _icl_value

    rng = np.random.default_rng(seed)
    A = sample_sbm([6, 5, 4], 0.8, 0.1, random_state=seed).toarray()
    z = rng.integers(0, 3, A.shape[0])
    perm = rng.permutation(A.shape[0])
    names = rng.permutation(3)
    for model in ("judge", "sbm"):
        assert _icl_value(A, z, model) == pytest.approx(_icl_value(A[np.ix_(perm, perm)], names[z[perm]], model))
        assert _bic_value(A, z, model) == pytest.approx(_bic_value(A[np.ix_(perm, perm)], names[z[perm]], model))


def test_icl_posterior_and_labels():
    A = sample_sbm([8, 8, 8], 0.9, 0.05, random_state=2)
    res = icl(A, 6)
    assert res.k == 3 and res.details["posterior"].sum() == pytest.approx(1.0)
    assert res.confidence == pytest.approx(res.details["posterior"][2])
    assert set(res.details["labels"]) == set(range(1, 7))
    assert bic(A, 6).k == 3 and icl(A, 6, model="sbm").k == 3


def test_icl_from_edge_counts_equals_the_dense_sum():
    """The judge-model ICL of a labelling from the edge list equals the dense formula (0/1 and fractional)."""
    import semvar.select_k.likelihood as select_k

    rng = np.random.default_rng(7)
    for weights in (False, True):
        A = sample_sbm([30, 20, 25], 0.4, 0.05, random_state=rng).toarray()
        if weights:
            A = np.triu(A * rng.choice([0.25, 0.5, 1.0], size=A.shape), 1)
            A = A + A.T
        A = A[A.sum(1) > 0][:, A.sum(1) > 0]
        n = A.shape[0]
        z = rng.integers(0, 4, size=n)
        nk = np.bincount(z, minlength=4)
        e_all, N_all = A.sum() / 2.0, n * (n - 1) / 2.0
        dense = _dense_icl(A, z, nk.size, e_all, N_all)
        edges = select_k._icl_judge_edges(select_k._edge_list(sp.csr_array(A)), n, z, nk, e_all, N_all)
        assert edges == pytest.approx(dense, rel=1e-12)
        if not weights:
            assert edges == dense
        with pytest.MonkeyPatch.context() as mp:  # blocks of a few entries (a row may exceed one): the same sum
            mp.setattr(select_k, "_EDGE_BLOCK", 7)
            blocked = select_k._icl_judge_edges(select_k._edge_list(sp.csr_array(A)), n, z, nk, e_all, N_all)
        assert blocked == pytest.approx(dense, rel=1e-12)
        if not weights:
            assert blocked == dense


@pytest.mark.parametrize("k", [1, 3, 300])
def test_weight_inside_is_the_weight_of_the_edges_inside_clusters(k):
    """Any number of labels (one byte or two), 0/1 weights counted or others summed: trace(Z^T A Z)."""
    import semvar.select_k.likelihood as select_k

    rng = np.random.default_rng(k)
    A = sample_sbm([200, 150], 0.1, 0.02, random_state=rng).toarray()
    z = rng.integers(0, k, size=A.shape[0])
    for W in (A, A * 0.5):
        Z = np.eye(k)[z]
        edges = select_k._edge_list(sp.csr_array(W))
        assert edges[3] is (W is A)
        assert select_k._weight_inside(edges, z) == np.trace(Z.T @ W @ Z)
        nk = np.bincount(z, minlength=k)
        e_all, N_all = W.sum() / 2.0, A.shape[0] * (A.shape[0] - 1) / 2.0
        assert select_k._icl_judge_edges(edges, A.shape[0], z, nk, e_all, N_all) == pytest.approx(
            _dense_icl(W, z, nk.size, e_all, N_all), rel=1e-12)


def test_icl_of_is_the_criterion_icl_compares():
    """The ICL of the rule's own labels for each K is the value icl() stores for that K."""
    from semvar.select_k import icl_of

    A = sample_sbm([6, 5, 4], 0.87, 0.07, random_state=5).toarray()
    res = icl(A, 5)
    for k, z in res.details["labels"].items():
        if np.isfinite(res.details["icl"][k - 1]):
            assert icl_of(A, z) == pytest.approx(res.details["icl"][k - 1], abs=1e-9)
    with pytest.raises(ValueError, match="labels must be 15 whole numbers"):
        icl_of(A, np.zeros(14, dtype=int))
    O = np.ones_like(A)
    assert icl_of(A, res.details["labels"][3], observed=O) == pytest.approx(icl_of(A, res.details["labels"][3]))
