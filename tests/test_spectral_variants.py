"""semvar.spectral_variants: the von Neumann entropy of a judged graph and the density-matrix K rule."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar.entropy import empirical_entropy
from semvar.graph import block_labels
from semvar.spectral_variants import (
    density_matrix,
    effective_k,
    spectral_entropy_given_k_rule,
    von_neumann_entropy,
)


def _relation(labels) -> np.ndarray:
    lab = np.asarray(labels)
    A = (lab[:, None] == lab[None, :]).astype(float)
    np.fill_diagonal(A, 0.0)
    return A


# --------------------------------------------------------------------------- hand-computed cases


def test_paris_london_is_log_2():
    A = _relation([0, 0, 1, 1])
    assert von_neumann_entropy(A) == pytest.approx(math.log(2), abs=1e-12)
    assert effective_k(A) == 2
    assert spectral_entropy_given_k_rule(A, random_state=0) == pytest.approx(math.log(2), abs=1e-12)


def test_one_meaning_and_all_different():
    assert von_neumann_entropy(np.ones((5, 5))) == pytest.approx(0.0, abs=1e-12)
    assert effective_k(np.ones((5, 5))) == 1
    assert von_neumann_entropy(np.zeros((5, 5))) == pytest.approx(math.log(5), abs=1e-12)
    assert effective_k(np.zeros((5, 5))) == 5


def test_sizes_three_two_one_by_hand():
    # classes of sizes 3, 2, 1 of 6: eigenvalues 1/2, 1/3, 1/6
    A = _relation([0, 0, 0, 1, 1, 2])
    expected = -(0.5 * math.log(0.5) + (1 / 3) * math.log(1 / 3) + (1 / 6) * math.log(1 / 6))
    assert von_neumann_entropy(A) == pytest.approx(expected, abs=1e-12)
    assert effective_k(A) == 3
    h, labels = spectral_entropy_given_k_rule(A, random_state=0, return_labels=True)
    assert h == pytest.approx(expected, abs=1e-12)
    assert len(set(labels[:3])) == len(set(labels[3:5])) == 1 and len(set(labels.tolist())) == 3


def test_orthonormal_cosines_give_log_n():
    # a cosine Gram matrix of orthonormal vectors: every answer its own meaning
    assert von_neumann_entropy(np.eye(4)) == pytest.approx(math.log(4), abs=1e-12)


def test_path_graph_by_hand():
    # W = A + I for the path 0-1-2: eigenvalues 1 + sqrt(2), 1, 1 - sqrt(2) < 0 (clipped), over 3
    A = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=float)
    lam = np.array([1 + math.sqrt(2), 1.0])
    lam = lam / lam.sum()
    assert von_neumann_entropy(A) == pytest.approx(float(-(lam * np.log(lam)).sum()), abs=1e-12)


def test_density_matrix_has_unit_trace():
    rho = density_matrix(_relation([0, 1, 1]))
    assert np.trace(rho) == pytest.approx(1.0)
    assert rho[1, 2] == pytest.approx(1 / 3) and rho[0, 1] == 0.0


def test_isolated_text_is_its_own_meaning_in_the_k_rule():
    A = np.pad(np.kron(np.eye(2), np.ones((3, 3))) - np.eye(6), ((0, 1), (0, 1)))
    h, labels = spectral_entropy_given_k_rule(A, random_state=0, return_labels=True)
    assert len(set(labels.tolist())) == 3
    assert h == pytest.approx(empirical_entropy([0, 0, 0, 1, 1, 1, 2]))


# --------------------------------------------------------------------------- properties


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=1, max_size=5))
def test_equals_plug_in_entropy_on_any_partition(sizes):
    labels = block_labels(sizes)
    A = _relation(labels)
    assert von_neumann_entropy(A) == pytest.approx(empirical_entropy(labels), abs=1e-9)
    assert effective_k(A) == len(sizes)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 12), st.integers(0, 10_000))
def test_bounds_and_permutation_invariance(n, seed):
    rng = np.random.default_rng(seed)
    A = np.triu((rng.random((n, n)) < 0.4).astype(float), 1)
    A = A + A.T
    h = von_neumann_entropy(A)
    assert -1e-12 <= h <= math.log(n) + 1e-12
    perm = rng.permutation(n)
    assert von_neumann_entropy(A[np.ix_(perm, perm)]) == pytest.approx(h, abs=1e-9)
    assert effective_k(A[np.ix_(perm, perm)]) == effective_k(A)
    assert 1 <= effective_k(A) <= n


def test_diagonal_is_ignored():
    A = _relation([0, 0, 1])
    B = A.copy()
    np.fill_diagonal(B, 0.3)
    assert von_neumann_entropy(A) == von_neumann_entropy(B)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("fn", [von_neumann_entropy, effective_k, density_matrix])
@pytest.mark.parametrize("bad, match", [
    (np.ones((2, 3)), "square"),
    (np.zeros((0, 0)), "square"),
    (np.array([[0, 1], [0, 0]], dtype=float), "symmetric"),
    (np.array([[0, 2], [2, 0]], dtype=float), r"\[-1, 1\]"),
    (np.array([[0, np.nan], [np.nan, 0]]), "NaN"),
    (np.ones(3), "2-D"),
    ("abc", "numeric"),
])
def test_bad_similarity(fn, bad, match):
    with pytest.raises(ValueError, match=match):
        fn(bad)


@pytest.mark.parametrize("bad, match", [
    (np.ones((2, 3)), "square"),
    (np.array([[0, -0.5], [-0.5, 0]]), r"\[0, 1\]"),
    (np.array([[0, 1], [0, 0]], dtype=float), "symmetric"),
])
def test_bad_adjacency_for_the_k_rule(bad, match):
    with pytest.raises(ValueError, match=match):
        spectral_entropy_given_k_rule(bad)


def test_bad_flags_for_the_k_rule():
    A = _relation([0, 0, 1])
    with pytest.raises(ValueError, match="random_state"):
        spectral_entropy_given_k_rule(A, random_state="x")
    with pytest.raises(ValueError, match="return_labels"):
        spectral_entropy_given_k_rule(A, return_labels=1)
