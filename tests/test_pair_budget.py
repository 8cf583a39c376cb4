"""The judge-budget law (semvar.pair_budget)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import semvar.graph
from semvar.pair_budget import budget_snr, pairs_needed


def test_budget_snr_reduces_to_kesten_stigum():
    # K equal blocks, s -> 0 (plain): n s (p - q)^2 / (K (p + (K - 1) q))
    n, s, p, q, K = 100_000, 1e-6, 0.8, 0.1, 4
    expected = n * s * (p - q) ** 2 / (K * (p + (K - 1) * q))
    assert budget_snr(n, s, p, q, [1] * K, centered=False) == pytest.approx(expected, rel=1e-5)


def test_centred_snr_by_hand():
    # two equal blocks: sum pi^2 = sum pi (1 - pi) = 1/2, the mean verdict rho = (0.9 + 0.1) / 2 = 0.5,
    # v_in = 0.9 * 0.1 + 0.4**2 = 0.25 = v_out, so SNR = n s (p - q)^2 pi_min^2 / v = 100 * 0.5 * 0.64 * 0.25 / 0.25
    assert budget_snr(100, 0.5, 0.9, 0.1, [1, 1]) == pytest.approx(32.0, rel=1e-12)
    # plain: v = (0.9 (1 - 0.45) + 0.1 (1 - 0.05)) / 2 = 0.295
    assert budget_snr(100, 0.5, 0.9, 0.1, [1, 1], centered=False) == pytest.approx(8.0 / 0.295, rel=1e-12)


def test_proportions_are_normalised():
    assert budget_snr(500, 0.2, 0.8, 0.2, [2, 3, 5]) == budget_snr(500, 0.2, 0.8, 0.2, [0.2, 0.3, 0.5])


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(50, 10_000),
    p=st.floats(0.3, 0.99),
    gap=st.floats(0.1, 0.29),
    snr=st.floats(0.5, 5.0),
    centered=st.booleans(),
)
def test_pairs_needed_inverts_budget_snr(n, p, gap, snr, centered):
    q = p - gap
    props = [0.2, 0.3, 0.5]
    m = pairs_needed(n, p, q, props, snr=snr, centered=centered)
    s = m / (n * (n - 1) / 2)
    if s < 1:
        assert budget_snr(n, s, p, q, props, centered=centered) == pytest.approx(snr, rel=1e-9)
        # more texts: more pairs in total but fewer per pair slot
        assert pairs_needed(2 * n, p, q, props, snr=snr, centered=centered) >= m
    else:
        assert budget_snr(n, 1.0, p, q, props, centered=centered) <= snr + 1e-9


def test_centred_budget_is_a_fixed_number_of_comparisons_per_text():
    # centred: s = snr v / (n (p - q)^2 pi_min^2), so the pairs s n (n - 1) / 2 grow like n - 1
    a, b = pairs_needed(10_000, 0.87, 0.07, [0.2, 0.3, 0.5]), pairs_needed(20_000, 0.87, 0.07, [0.2, 0.3, 0.5])
    assert b / a == pytest.approx(19_999 / 9_999, rel=1e-12)


def test_pairs_needed_is_capped_at_all_pairs():
    assert pairs_needed(5, 0.87, 0.07, [0.2, 0.3, 0.5], snr=1.0) == 10
    assert pairs_needed(30, 0.55, 0.45, [0.1, 0.9], snr=5.0, centered=False) == 30 * 29 / 2


def test_budget_snr_increases_with_s():
    vals = [budget_snr(1000, s, 0.99, 0.77, [0.2, 0.3, 0.5], centered=False) for s in (0.01, 0.1, 0.5, 1.0)]
    assert np.all(np.diff(vals) > 0)


def test_the_centred_law_does_not_depend_on_s():
    vals = {budget_snr(1000, s, 0.99, 0.77, [0.2, 0.3, 0.5]) / s for s in (0.01, 0.1, 0.5, 1.0)}
    assert max(vals) == pytest.approx(min(vals), rel=1e-12)


def test_graph_reexports_the_law():
    assert semvar.graph.budget_snr is budget_snr and semvar.graph.pairs_needed is pairs_needed


def test_numpy_bool_is_a_bool():
    assert budget_snr(100, 0.5, 0.9, 0.1, [1, 1], centered=np.True_) == budget_snr(100, 0.5, 0.9, 0.1, [1, 1])


@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda: budget_snr(100, 0.5, 0.1, 0.2, [1, 1]), "needs p > q"),
        (lambda: budget_snr(100, 0.5, 0.5, 0.5, [1, 1]), "needs p > q"),
        (lambda: budget_snr(100, 0.0, 0.9, 0.2, [1, 1]), "s must lie"),
        (lambda: budget_snr(100, 1.5, 0.9, 0.2, [1, 1]), "s must lie"),
        (lambda: budget_snr(1, 0.5, 0.9, 0.2, [1, 1]), "n must be"),
        (lambda: budget_snr(100, 0.5, 1.2, 0.2, [1, 1]), "p must"),
        (lambda: budget_snr(100, 0.5, 0.9, 0.2, [1]), "at least two positive"),
        (lambda: budget_snr(100, 0.5, 0.9, 0.2, [1, 0]), "at least two positive"),
        (lambda: budget_snr(100, 0.5, 0.9, 0.2, [1, 1], centered="yes"), "centered must be True or False"),
        (lambda: pairs_needed(100, 0.9, 0.2, [1, 1], snr=0), "snr must lie"),
        (lambda: pairs_needed(100, 0.9, 0.2, [1, 1], snr=math.inf), "snr must"),
        (lambda: pairs_needed(100, 0.9, 0.2, [1, 1], centered=1), "centered must be"),
    ],
)
def test_bad_input(call, msg):
    with pytest.raises(ValueError, match=msg):
        call()
