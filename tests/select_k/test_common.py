"""Tests of what the rules of semvar.select_k share (semvar.select_k._common): isolated texts, tiny cores."""

import numpy as np
import pytest

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
    # two components: the rule runs on each (one clique: eigenvalues 1, then -1/7 (x7)) and adds their K
    res = eigengap(A, 4)
    assert res.k == 2 and res.details["part_k"].tolist() == [1, 1]
    np.testing.assert_allclose(eigengap(A[:8, :8], 4).details["eigenvalues"][:2], [1, -1 / 7], atol=1e-12)


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


# --------------------------------------------------------------------------- graphs in parts, partly judged graphs
def _cliques(sizes, seed):
    z = np.repeat(np.arange(len(sizes)), sizes)
    A = (z[:, None] == z[None, :]).astype(float)
    np.fill_diagonal(A, 0.0)
    p = np.random.default_rng(seed).permutation(z.size)
    return A[np.ix_(p, p)]


@pytest.mark.parametrize("sizes", [[2, 2, 2], [3, 3, 3], [5, 6, 2, 3], [2, 1, 2]])
@pytest.mark.parametrize("method", list(METHODS))
def test_every_rule_finds_every_clique_of_an_equivalence_relation(method, sizes):
    """Noise-free disjoint cliques: each is a component, and every rule counts them (10 seeds)."""
    for seed in range(10):
        A = _cliques(sizes, seed)
        assert choose_k(A, method, random_state=seed) == len(sizes), (method, sizes, seed)
        kwargs = {"random_state": seed} if method in ("ncv", "ecv", "consensus") else {}
        if method == "ncv":
            kwargs["folds"] = min(3, A.shape[0] // 2)
        k_max = min(A.shape[0] - 1, 2)  # within NCV's limit: the training nodes of a fold
        assert METHODS[method](A, k_max, **kwargs).k == len(sizes), (method, sizes, seed)


def _paths():
    """Three paths of four texts: the path edges judged TRUE, the other pairs inside a path never judged."""
    A = np.kron(np.eye(3), np.eye(4, k=1) + np.eye(4, k=-1))
    O = np.ones((12, 12)) - np.kron(np.eye(3), np.ones((4, 4))) + A
    return A, O


@pytest.mark.parametrize("method", [m for m in METHODS if m != "eigengap"])
def test_every_rule_reads_unjudged_pairs_as_no_evidence(method):
    """Every judged verdict right, the rest unjudged: three meanings, whichever rule.

    The eigengap reads the TRUE verdicts as they are (package notes): a mask that leaves out half the
    pairs inside each meaning, and none across, splits a path of four texts in two for it; on a
    uniformly sampled design of 60 texts and 30 % of the pairs it is right (the next test).
    """
    A, O = _paths()
    for seed in range(5):
        assert choose_k(A, method, observed=O, random_state=seed) == 3, (method, seed)
        kwargs = {"random_state": seed} if method in ("ncv", "ecv", "consensus") else {}
        assert METHODS[method](A, 8, observed=O, **kwargs).k == 3, (method, seed)


@pytest.mark.parametrize("method", list(METHODS))
def test_a_mask_of_every_pair_is_no_mask(method):
    A = sample_sbm([6, 5, 4], 0.87, 0.07, random_state=2).toarray()
    full = np.ones_like(A)
    a = choose_k(A, method, random_state=3, return_selection=True)
    b = choose_k(A, method, observed=full, random_state=3, return_selection=True)
    assert a.k == b.k and np.array_equal(a.losses, b.losses) and b.n_unresolved == 0


@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("p, q", [(1.0, 0.0), (0.87, 0.07)])
def test_every_rule_on_a_sampled_design(method, p, q):
    """60 texts of three meanings, 30 % of the pairs judged: K = 3 in most draws, perfect judge or GPT-like."""
    from semvar.graph import adjacency_from_verdicts, random_pairs

    z = np.repeat([0, 1, 2], 20)
    right = 0
    for seed in range(8):
        P = random_pairs(60, 0.3, random_state=seed)
        u = np.random.default_rng(seed).random(len(P))
        verdicts = np.where(z[P[:, 0]] == z[P[:, 1]], u < p, u < q)
        A, O = adjacency_from_verdicts(60, P, verdicts, return_mask=True)
        right += choose_k(A, method, observed=O, random_state=seed) == 3
    assert right >= {"ncv": 3, "ecv": 5}.get(method, 7), (method, right)  # cross-validation is noisy at this size


def test_texts_left_unresolved_are_not_meanings():
    """A text with no TRUE verdict and unjudged pairs is left out; one judged FALSE against all is a meaning."""
    A, O = _paths()
    A, O = np.pad(A, ((0, 2), (0, 2))), np.pad(O, ((0, 2), (0, 2)))
    O[12, :12] = O[:12, 12] = 1  # text 12: judged FALSE against the first twelve, its pair with 13 unjudged
    O[13, :4] = O[:4, 13] = 1  # text 13: judged FALSE against one meaning only
    sel = auto(A, 10, observed=O)
    assert sel.k == 3 and sel.n_unresolved == 2 and sel.n_singletons == 0
    assert consensus(A, 10, observed=O, random_state=0).n_unresolved == 2
    O[12, 13] = O[13, 12] = 1  # now text 12 has every pair judged FALSE: a meaning of its own; 13 is not
    sel = auto(A, 10, observed=O)
    assert sel.k == 4 and sel.n_unresolved == 1 and sel.n_singletons == 1


def test_a_bad_mask_is_refused_by_every_rule():
    A, O = _paths()
    for method, fn in METHODS.items():
        with pytest.raises(ValueError, match="observed"):
            fn(A, 5, observed=O[:5, :5])
        with pytest.raises(ValueError, match="observed"):
            choose_k(A, method, observed=np.zeros_like(A))  # edges on pairs marked unjudged


@pytest.mark.parametrize("method", sorted(METHODS))
def test_every_rule_refuses_a_graph_with_no_resolved_text(method):
    """No TRUE verdict and every text with an unjudged pair: there is no K to read, not K = 0."""
    A = np.zeros((6, 6))
    O = np.ones((6, 6)) - np.kron(np.eye(3), np.ones((2, 2)))
    with pytest.raises(ValueError, match="every one of the 6 texts is unresolved"):
        choose_k(A, method, observed=O, random_state=0)


def test_bethe_hessian_counts_the_meanings_of_a_graph_with_lost_verdicts():
    """Three meanings of four texts, a perfect judge, 27 of the 66 verdicts lost at random: unjudged pairs hold the
    TRUE components in one part; the rule reads each TRUE component, not the part, and finds three meanings."""
    z = np.repeat([0, 1, 2], 4)
    iu = np.triu_indices(12, 1)
    right = 0
    for seed in range(20):
        lost = np.random.default_rng(seed).permutation(66)[:27]
        O = np.ones((12, 12)) - np.eye(12)
        O[iu[0][lost], iu[1][lost]] = O[iu[1][lost], iu[0][lost]] = 0
        A = (z[:, None] == z[None, :]) * O
        sel = choose_k(A, "bethe_hessian", observed=O, return_selection=True)
        right += sel.k + sel.n_unresolved // 4 == 3  # a meaning whose every verdict was lost is left out
    assert right >= 18
