"""Tests of semvar._streams: numpy's default streams computed for many seeds at once, compared with numpy itself.

Every number the module computes must be the one numpy's own generator
draws (``default_rng(seed)`` and the children of a seed sequence); where
Lemire's method would redraw, the module must say so, and the k-means that
uses it must then let numpy draw.  The comparisons run on random seeds,
entropies, spawn keys, pool sizes, problem sizes and restart counts.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar import _batched, _kmeans, _streams
from semvar._batched import _seeds
from semvar._kmeans import kmeans_many


def test_agrees_with_this_numpy():
    assert _streams.agrees()


@settings(max_examples=40, deadline=None)
@given(seeds=st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=6), count=st.integers(1, 40))
def test_outputs_are_pcg64s_raw_outputs(seeds, count):
    raw = _streams.outputs(_streams.seed_states(np.array(seeds)), count)
    assert raw.shape == (count, len(seeds))
    for b, s in enumerate(seeds):
        assert raw[:, b].tolist() == np.random.PCG64(s).random_raw(count).tolist()


@settings(max_examples=40, deadline=None)
@given(seeds=st.lists(st.integers(0, 2**31 - 2), min_size=1, max_size=5), n=st.integers(2, 400),
       k=st.integers(2, 10), n_init=st.integers(1, 12))
def test_kmeans_draws_are_numpys(seeds, n, k, n_init):
    """The seeding draws of every stream, an odd number of restarts included (a spare upper half carried over)."""
    k = min(k, n)
    first, unif, fallback, ok = _streams.kmeans_draws(np.array(seeds), n, k, n_init)
    for b, s in enumerate(seeds):
        f, u, fb = _streams.generator_draws(np.random.default_rng(s), n, k, n_init)
        assert ok[b]  # a redraw has probability below n / 2**32 per draw
        np.testing.assert_array_equal(first[b], f)
        np.testing.assert_array_equal(unif[b], u)
        np.testing.assert_array_equal(fallback[b], fb)


@settings(max_examples=40, deadline=None)
@given(entropy=st.integers(0, 2**200) | st.lists(st.integers(0, 2**70), min_size=1, max_size=6), spawn=st.lists(st.integers(0, 2**40), max_size=3),
       pool=st.integers(4, 8), index=st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=5))
def test_first_ints_of_children_are_numpys(entropy, spawn, pool, index):
    """Children of any seed sequence: long entropies (more words than the pool), lists of ints, spawn keys, pools."""
    seq = np.random.SeedSequence(entropy, spawn_key=tuple(spawn), pool_size=pool)
    vals, ok = _streams.first_ints(seq, np.array(index), 2**31 - 1)
    for j, i in enumerate(index):
        child = np.random.SeedSequence(entropy, spawn_key=tuple(spawn) + (i,), pool_size=pool)
        assert ok[j]  # numpy redraws below 2**32 mod (2**31 - 1) = 2: probability 2**-31
        assert int(vals[j]) == int(np.random.default_rng(child).integers(2**31 - 1))


def test_bounded_flags_exactly_the_draws_numpy_redraws():
    """Lemire: the low word of u * n below 2**32 mod n is redrawn by numpy; such a draw is flagged, no other."""
    n = 20
    threshold = 2**32 % n  # 16
    u = np.array([0, 1, 2**32 - 1, 214748365, 3435973837], dtype=np.uint64)
    vals, ok = _streams.bounded(u, n)
    low = [(int(x) * n) & 0xFFFFFFFF for x in u]
    assert ok.tolist() == [lo >= threshold for lo in low]
    assert not ok[0]  # u = 0: low word 0
    assert vals.tolist() == [(int(x) * n) >> 32 for x in u]


@pytest.mark.parametrize("n", [3, 20, 2**31 - 1, 3 * 2**30 + 1, 2**32 - 5])
def test_bounded_flags_exactly_the_streams_numpy_redraws(n):
    """ok is True exactly where numpy's integers(n) kept its first 32-bit draw, as its generator's state shows.

    Kept: one output used and its upper half waiting for the next 32-bit draw; a redraw takes that half.
    """
    seeds = np.arange(300)
    raw = _streams.outputs(_streams.seed_states(seeds), 1)[0]
    vals, ok = _streams.bounded(raw & np.uint64(0xFFFFFFFF), n)
    kept = []
    for b, s in enumerate(seeds.tolist()):
        g = np.random.default_rng(s)
        v = int(g.integers(n))
        one = np.random.PCG64(s)
        one.advance(1)
        state = g.bit_generator.state
        kept.append(state["has_uint32"] == 1 and state["state"]["state"] == one.state["state"]["state"])
        if kept[-1]:
            assert int(vals[b]) == v
    assert ok.tolist() == kept
    if n == 3 * 2**30 + 1:  # 2**32 mod n is about a third of 2**32: both cases among 300 streams
        assert 0 < sum(kept) < len(kept)


@pytest.mark.parametrize("seed", [2**32 + 5, 2**40, 2**63 + 1])
def test_seeds_the_arrays_cannot_take_go_to_numpy(seed):
    """Seeds of 2**32 or more are numpy's to draw from: the clusters of default_rng(seed), not of a truncation."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 12, 3))
    a, _ = kmeans_many(X, 3, [seed + i for i in range(40)])
    b, _ = kmeans_many(X, 3, [np.random.default_rng(seed + i) for i in range(40)])
    np.testing.assert_array_equal(a, b)
    assert _kmeans.arrays_pay(40, 3, 10)


def test_a_flagged_stream_is_drawn_by_numpy(monkeypatch):
    """Where the module flags a stream, kmeans_many's draws come from that stream's generator: the same labels."""
    rng = np.random.default_rng(4)
    X = np.round(rng.normal(size=(40, 12, 3)), 1)
    seeds = rng.integers(2**31 - 1, size=40).tolist()
    want, _ = kmeans_many(X, 3, [np.random.default_rng(s) for s in seeds])
    real = _streams.kmeans_draws

    def flag_some(*args):
        first, unif, fallback, ok = real(*args)
        ok = ok.copy()
        ok[::3] = False
        first[::3] = 0  # garbage where flagged: must be replaced by numpy's draws
        unif[::3] = 0.5
        return first, unif, fallback, ok

    monkeypatch.setattr(_kmeans, "kmeans_draws", flag_some)
    got, _ = kmeans_many(X, 3, seeds)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("agree", [True, False])
def test_kmeans_many_from_seeds_is_kmeans_many_from_generators(monkeypatch, agree):
    """Int seeds (the streams as arrays, or numpy's generators where the module disagrees with numpy) and
    generators give the same clusters."""
    monkeypatch.setattr(_kmeans, "agrees", lambda: agree)
    rng = np.random.default_rng(9)
    B = 120
    assert _kmeans.arrays_pay(B, 4, 10)
    X = rng.normal(size=(B, 15, 4))
    seeds = rng.integers(2**31 - 1, size=B).tolist()
    a, ia = kmeans_many(X, 4, seeds)
    b, ib = kmeans_many(X, 4, [np.random.default_rng(s) for s in seeds])
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(ia, ib)


def test_every_part_of_a_graph_draws_from_one_generator():
    """A graph of a seed sequence draws the seeds of its parts in turn from its one generator."""
    seq = np.random.SeedSequence(5)
    m = 2 * _batched.SEEDS_TOGETHER  # enough graphs that drew once for the array route
    drawing = {i: [i] for i in range(m)}
    drawing[7] = [7, ~1, ~2]  # graph 7 has three parts that draw
    index = np.arange(100, 100 + m)
    got = _seeds(drawing, seq, m, index)
    for i, keys in drawing.items():
        child = np.random.SeedSequence(5, spawn_key=(int(index[i]),))
        g = np.random.default_rng(child)
        assert [got[key] for key in keys] == [int(g.integers(2**31 - 1)) for _ in keys]
    assert list(got) == [key for keys in drawing.values() for key in keys]  # in the order of the graphs


@pytest.mark.parametrize("name, value", [("_MULT_A", 0x931E8877), ("_INIT_B", 0x8B51F9DC), ("_XSHIFT", 15)])
def test_the_check_against_numpy_catches_a_broken_constant(monkeypatch, name, value):
    """One hashing constant of the seeding changed: agrees() says no, and the k-means draws from numpy instead."""
    monkeypatch.setattr(_streams, name, value)
    _streams.agrees.cache_clear()
    try:
        assert not _streams.agrees()
        rng = np.random.default_rng(2)
        X = rng.normal(size=(120, 10, 3))
        seeds = rng.integers(2**31 - 1, size=120).tolist()
        a, _ = kmeans_many(X, 3, seeds)
        b, _ = kmeans_many(X, 3, [np.random.default_rng(s) for s in seeds])
        np.testing.assert_array_equal(a, b)
    finally:
        monkeypatch.undo()
        _streams.agrees.cache_clear()
    assert _streams.agrees()
