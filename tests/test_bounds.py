"""Tests of semvar.bounds: Liu (2025) section 3 bounds as functions."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar import bounds as B
from semvar.entropy import empirical_entropy


def test_h_hand_values():
    assert B.h(1) == 1.0
    assert B.h(4) == pytest.approx(4 + math.log(4))


def test_lemma31_hand_case():
    # n = 10, K = 2, n_min = 5 -> default c2 = 2*2*5/10 = 2, h(2K/c2) = h(2) = 2 + log 2
    b = B.lemma31(10, 2, 5, 2)
    assert b.value == pytest.approx((2 + math.log(2)) * 2 / 10)
    assert b.probability == 1.0 and not b.holds  # c2 = 2 > 1 breaks the printed hypothesis


def test_miscluster_error_counts_entries():
    assert B.miscluster_error([0, 0, 1, 1, 2], [2, 2, 0, 0, 1]) == 0
    assert B.miscluster_error([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 1, 1]) == 2


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=8, max_size=60), st.data())
def test_lemma31_holds_for_any_relabelling_error(true, data):
    """Lemma 3.1 is deterministic: check it on arbitrary partitions and perturbations."""
    t = np.array(true)
    K = len(set(true))
    _, t = np.unique(t, return_inverse=True)
    flips = data.draw(st.lists(st.integers(0, len(t) - 1), max_size=len(t) // 2))
    e = t.copy()
    for i in flips:
        e[i] = (e[i] + 1) % K
    n_min = np.bincount(t).min()
    m = B.miscluster_error(t, e)
    gap = abs(empirical_entropy(t) - empirical_entropy(e))
    assert gap <= B.lemma31(len(t), K, n_min, m).value + 1e-12


def test_theorem33_printed_and_conditions():
    b = B.theorem33(300, 3, 100, 100, 0.5, 1.0)
    # hand: h(6) * 100 / (4 * 1 * 100^2 * 0.5 * 9)
    assert b.value == pytest.approx((6 + math.log(6)) * 100 / 180000)
    assert b.conditions["alpha_n >= log n (as printed)"] is False
    assert b.conditions["alpha_n >= log(n)/n"] is True
    assert b.probability == pytest.approx(1 - 1 / 300, abs=1e-6)


def test_corollary_dominates_theorem33():
    """Corollary 3.3.1 is Theorem 3.3 with n_max <= n, n_min >= n c2 / 2K: never smaller."""
    for n, K, nmin, nmax in [(300, 3, 100, 100), (300, 3, 60, 140), (1000, 4, 200, 400)]:
        c2 = min(1.0, 2 * K * nmin / n)
        assert B.corollary331(n, K, c2, 0.4).value >= B.theorem33(n, K, nmin, nmax, 0.4, c2).value


def test_theorem33_corrected_scales_like_inverse_lambda_squared():
    a = B.theorem33_corrected(3000, 3, 1000, 1000, 0.5, 0.8, 1.0).value
    b = B.theorem33_corrected(3000, 3, 1000, 1000, 0.5, 0.4, 1.0).value
    assert b == pytest.approx(4 * a)


def test_lemma_a7_a8_hand():
    assert B.lemma_a7(100, 2).value == pytest.approx(2 * math.sqrt(math.log(400) / 200))
    d = math.sqrt(2 * math.log(2000) / 500)
    assert B.lemma_a8(1000, 2, 0.5).value == pytest.approx(4 * (1 - d) * 0.5)


def test_theorem34_alpha_restored_is_larger():
    assert B.theorem34(1000, 2, 0.5, alpha=0.3).value > B.theorem34(1000, 2, 0.5).value
    assert B.theorem34(1000, 2, 0.5).probability == pytest.approx(0.997)


def test_lemma_a7_coverage_by_simulation():
    """Lemma A.7 claims probability >= 1 - 1/n: check on multinomial draws."""
    rng = np.random.default_rng(0)
    n, p = 200, np.array([0.5, 0.3, 0.2])
    bound = B.lemma_a7(n, 3).value
    dev = np.abs(rng.multinomial(n, p, size=2000) / n - p).sum(1)
    assert (dev > bound).mean() <= 1 / n


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: B.h(0.5), "x"),
        (lambda: B.lemma31(10, 3, 4, 0), "n_min"),
        (lambda: B.lemma31(10, 2, 5, 21), "m_error"),
        (lambda: B.lemma31(10, 2, 4, 0, c2=1.7), "c2"),
        (lambda: B.theorem33(10, 2, 4, 3, 0.5, 1.0), "n_max"),
        (lambda: B.theorem33(10, 2, 5, 5, 1.5, 1.0), "alpha_n"),
        (lambda: B.theorem33(10, 2, 5, 5, 0.5, 0.0), "c2"),
        (lambda: B.theorem33_corrected(10, 2, 5, 5, 0.5, 0.0, 1.0), "lam"),
        (lambda: B.theorem33_corrected(10, 2, 5, 5, 0.5, 0.5, -1.0), "c"),
        (lambda: B.corollary331(10, 2, 3.0, 0.5), "c2"),
        (lambda: B.corollary331(1, 1, 1.0, 0.5), "n"),
        (lambda: B.lemma_a8(100, 2, 0.6), "p_min"),
        (lambda: B.lemma_a8(10, 2, 0.5), "2 log"),
        (lambda: B.theorem34(10, 2, 0.5), "2 log"),
        (lambda: B.theorem34(1000, 2, 0.5, alpha=0), "alpha"),
        (lambda: B.theorem34_corrected(1000, 2, 0.5, 0.5, 2.0, 1.0), "lam"),
        (lambda: B.miscluster_error([0, 1], [0, 1, 1]), "length"),
        (lambda: B.lemma_a7(1, 1), "n"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_miscluster_error_compares_labels_as_values_of_one_kind():
    # "a" and "a\x00" are two clusters (numpy's str dtype made them one: 0 instead of 2)
    assert B.miscluster_error([0, 0, 1, 1], ["a", "a\x00", "b", "b"]) == 2
    with pytest.raises(ValueError, match=r"est_labels must hold labels of one kind"):
        B.miscluster_error([0, 0, 1, 1], [1, "1", 2, 2])
    with pytest.raises(ValueError, match=r"true_labels holds None at position 3"):
        B.miscluster_error([0, 0, 1, None], [0, 0, 1, 1])
    with pytest.raises(ValueError, match=r"est_labels is a masked array with 1 masked entry"):
        B.miscluster_error([0, 0, 1, 1], np.ma.MaskedArray([0, 0, 1, 1], mask=[0, 0, 0, 1]))
