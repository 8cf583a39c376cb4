"""Tests of what the rules of semvar.select_k share (semvar.select_k._common): isolated texts, tiny cores."""

import numpy as np

from semvar.graph import sample_sbm
from semvar.select_k import METHODS, auto, bethe_hessian, bic, choose_k, consensus, ecv, eigengap, icl, ncv


def _two_cliques(m=6):
    return np.kron(np.eye(2), np.ones((m, m))) - np.eye(2 * m)


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


def test_isolated_nodes_are_singleton_meanings():
    """Every rule sets isolated texts aside and counts each as a meaning of its own."""
    A = sample_sbm([30, 30], 0.7, 0.05, random_state=3).toarray()
    A = np.pad(A, ((0, 2), (0, 2)))  # two isolated nodes
    calls = {
        "ncv": lambda: ncv(A, 4, random_state=0),
        "ncv_small": lambda: ncv(A, 4, repeats=3, se_rule=True, random_state=0),
        "ecv": lambda: ecv(A, 4, random_state=0),
        "bethe_hessian": lambda: bethe_hessian(A, 4),
        "eigengap": lambda: eigengap(A, 4),
        "eigengap_skip1": lambda: eigengap(A, 4, skip_first=True),
        "eigengap_bulk": lambda: eigengap(A, 4, threshold="bulk"),
        "icl": lambda: icl(A, 4),
        "icl_sbm": lambda: icl(A, 4, model="sbm"),
        "bic": lambda: bic(A, 4),
        "consensus": lambda: consensus(A, 4, random_state=0),
        "auto": lambda: auto(A, 4),
    }
    for name, f in calls.items():
        res = f()
        assert res.n_singletons == 2, name
        assert res.k == 4, (name, res.k)  # the two blocks plus two singletons
        assert res.details.get("core_k", res.k - 2) == 2, name


def test_isolated_texts_in_a_small_graph():
    """A triangle plus isolated texts, and a graph without edges (every text its own meaning)."""
    A = np.zeros((6, 6))
    A[:3, :3] = 1 - np.eye(3)
    for m in METHODS:
        assert choose_k(A, m, 4, random_state=0) == 4, m  # one meaning of three texts, three singletons
        assert choose_k(np.zeros((7, 7)), m, 3, random_state=0) == 7, m
    res = bethe_hessian(np.zeros((7, 7)), 3)
    assert res.details["fallback"] == "connected components" and res.n_singletons == 7


def test_tiny_cores_fall_back_to_components():
    """Too few connected texts for a rule: each connected component is a meaning."""
    path = np.zeros((5, 5))
    path[0, 1] = path[1, 0] = path[1, 2] = path[2, 1] = 1  # texts 3 and 4 isolated
    for rule in (lambda: ncv(path, 2, folds=2, random_state=0), lambda: ecv(path, 2, holdout=0.2, random_state=0)):
        res = rule()
        assert res.k == 3 and res.n_singletons == 2 and res.details["fallback"] == "connected components"
    for m in METHODS:
        assert choose_k(path, m, random_state=0) in (3, 4), m
    two_pairs = np.zeros((4, 4))
    two_pairs[0, 1] = two_pairs[1, 0] = two_pairs[2, 3] = two_pairs[3, 2] = 1
    assert choose_k(two_pairs, "auto", random_state=0) == 2  # four texts: the eigengap sees two components
