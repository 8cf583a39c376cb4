"""Tests of semvar.select_k.choose: choosing K by a rule's name."""

import numpy as np
import pytest

from semvar.graph import sample_sbm
from semvar.select_k import (
    METHODS,
    KSelection,
    auto,
    bethe_hessian,
    bic,
    choose_k,
    consensus,
    ecv,
    eigengap,
    icl,
    ncv,
)


def _two_cliques(m=6):
    return np.kron(np.eye(2), np.ones((m, m))) - np.eye(2 * m)


def test_choose_k_dispatch():
    A = _two_cliques(6)
    for m in METHODS:
        assert choose_k(A, m, k_max=4, random_state=0) == 2
    assert choose_k(np.ones((4, 4)) - np.eye(4), "eigengap", k_max=10) == 1  # k_max lowered to n - 1
    # 4 nodes: two folds of two nodes, so at most n - 2 = 2 candidates; the same K as ncv with those settings
    A4 = _two_cliques(2)
    for seed in range(3):
        assert choose_k(A4, "ncv", k_max=10, random_state=seed) == int(ncv(A4, 2, folds=2, random_state=seed))


def test_choose_k_is_the_rule_it_names():
    """choose_k checks the graph once and runs the rule itself: the same K as the public rule."""
    A = sample_sbm([25, 30, 35], 0.6, 0.08, random_state=7)
    assert choose_k(A, "ncv", 6, random_state=3) == int(ncv(A, 6, random_state=3))
    assert choose_k(A, "ecv", 6, random_state=3) == int(ecv(A, 6, random_state=3))
    assert choose_k(A, "eigengap", 6) == int(eigengap(A, 6))
    assert choose_k(A, "bethe_hessian", 6) == int(bethe_hessian(A, 6))
    assert choose_k(A, "icl", 6, random_state=3) == int(icl(A, 6))
    assert choose_k(A, "bic", 6, random_state=3) == int(bic(A, 6))
    assert choose_k(A, "auto", 6, random_state=3) == int(auto(A, 6))
    assert choose_k(A, "consensus", 6, random_state=3) == int(consensus(A, 6, random_state=3))
    for m in METHODS:
        assert choose_k(A, m, 6, random_state=3, check_input=False) == choose_k(A, m, 6, random_state=3)
    sel = choose_k(A, "auto", 6, random_state=3, return_selection=True)
    assert isinstance(sel, KSelection) and sel.method == "auto" and 0 < sel.confidence <= 1


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
        (lambda A: choose_k(A, "gap"), "method"),
        (lambda A: ncv(A[:, :5], 3), "square"),
        (lambda A: ncv(np.where(A > 0, np.nan, 0), 3), "NaN"),
        (lambda A: choose_k(A[:2, :2], "ncv"), "at least 3"),
        (lambda A: ecv(A[:3, :3], 2), "too few observed pairs"),
        (lambda A: ncv(A, 3, repeats=0), "repeats"),
        (lambda A: ncv(A, 3, se_rule=1), "se_rule"),
        (lambda A: eigengap(A, 3, threshold="noise"), "threshold"),
        (lambda A: eigengap(A, 3, threshold="bulk", skip_first=True), "combined"),
        (lambda A: icl(A, 3, model="full"), "model"),
        (lambda A: bic(A, 0), "k_max"),
        (lambda A: consensus(A, 3, methods=("ncv", "auto")), "methods"),
        (lambda A: consensus(A, 3, methods="ncv"), "methods"),
        (lambda A: consensus(A, 3, methods=()), "methods"),
        (lambda A: auto(A[:2, :2]), "at least 3"),
        (lambda A: auto(A, 0), "k_max"),
        (lambda A: choose_k(A, return_selection="yes"), "return_selection"),
        (lambda A: choose_k(A, "ncv", random_state="x"), "random_state"),
        (lambda A: choose_k(A, "ncv", check_input="no"), "check_input"),
        (lambda A: choose_k(np.triu(A), "eigengap"), "symmetric"),
        (lambda A: eigengap(A, 1, skip_first=True), "skip_first"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call(_two_cliques(6))


# --------------------------------------------------------------------------- the pipeline's entry
def test_select_with_core_is_choose_k_with_the_core():
    """The same K as choose_k, the mask and adjacency of the texts with an edge, and the spectrum read."""
    import scipy.sparse as sp

    from semvar.select_k import select_with_core

    A = sample_sbm([6, 7, 8], 0.9, 0.05, random_state=2).toarray()
    A = np.pad(A, ((0, 2), (0, 2)))  # two isolated texts
    keep = A.sum(1) > 0
    for m in METHODS:
        choice = select_with_core(A, m, 6, random_state=3)
        assert choice.selection.k == choose_k(A, m, 6, random_state=3), m
        assert choice.keep.tolist() == keep.tolist() and np.array_equal(choice.core, A[np.ix_(keep, keep)])
        if m in ("auto", "icl", "bic", "eigengap"):
            assert choice.spectrum[1].shape == (keep.sum(), 7)  # k_max + 1 leading eigenpairs of the core
        else:
            assert choice.spectrum is None
        on_sparse = select_with_core(sp.csr_array(A), m, 6, random_state=3)
        assert sp.issparse(on_sparse.core) and on_sparse.selection.k == choice.selection.k, m
    tiny = select_with_core(np.zeros((2, 2)), "auto")
    assert tiny.selection.k == 2 and tiny.selection.details["fallback"] == "connected components"


@pytest.mark.parametrize(
    "args, kwargs, match",
    [
        ((np.triu(np.ones((4, 4))),), {}, "symmetric"),
        ((2.0 * _two_cliques(),), {}, "verdicts"),
        ((_two_cliques(), "gap"), {}, "method"),
        ((_two_cliques(),), {"k_max": 0}, "k_max"),
        ((_two_cliques(),), {"check_input": "no"}, "check_input"),
    ],
)
def test_select_with_core_bad_input(args, kwargs, match):
    from semvar.select_k import select_with_core

    with pytest.raises(ValueError, match=match):
        select_with_core(*args, **kwargs)
