"""numpy's default random streams for many seeds at once: the draws of :func:`numpy.random.default_rng`, as arrays.

The k-means restarts of a judged graph draw from ``default_rng(seed)``, and
:func:`semvar.pipeline.graph_entropies` gives graph ``i`` the generator of
child ``i`` of one :class:`numpy.random.SeedSequence`.  Making ten thousand
generators and asking each for a few arrays costs tens of microseconds of
Python a graph, more than the graph's arithmetic.  This module computes the
same numbers for all graphs together, as array operations on the published
algorithms numpy runs:

- :class:`numpy.random.SeedSequence` (O'Neill's ``seed_seq_fe``: the entropy
  words mixed into a pool of 32-bit words by multiply-xorshift hashes, the
  state words drawn from the pool by a second hash);
- :class:`numpy.random.PCG64` (O'Neill 2014: a 128-bit linear congruential
  generator, each step output as the xor of its halves rotated by its top
  six bits; the state after ``j`` steps is ``a^j s + (a^{j-1} + ... + 1) c``,
  so a block of steps of every stream is one array expression);
- :meth:`numpy.random.Generator.random` (the top 53 bits of an output, scaled)
  and :meth:`numpy.random.Generator.integers` below ``2**32`` (Lemire's
  multiply-shift on 32-bit halves, the lower half of an output first).

Lemire's method redraws where the low word of ``u * n`` falls below
``2**32 mod n`` (probability below ``n / 2**32``); the streams where that
happens are reported (``ok`` False) and drawn again by numpy itself, so
every number equals numpy's.  :func:`agrees` checks the
whole module against numpy once per process on a few seeds; where it
disagrees (a numpy release that changed a stream), the callers use numpy's
generators, one a stream, and lose only speed.  ``tests/test_streams.py``
compares the two on many random seeds.

Private: used by :mod:`semvar._kmeans` and :mod:`semvar._batched`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["agrees", "seed_states", "child_states", "outputs", "words32", "bounded", "doubles", "kmeans_plan",
           "kmeans_draws", "generator_draws", "first_ints"]

_U32 = np.uint32
_U64 = np.uint64
_M32 = _U64(0xFFFFFFFF)
_M64 = (1 << 64) - 1
_M128 = (1 << 128) - 1

# SeedSequence's hashing constants (O'Neill's seed_seq_fe, as numpy uses them)
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715
_XSHIFT = 16

# PCG64's multiplier (the 128-bit default of the PCG family)
_PCG_MULT = (2549297995355413924 << 64) + 4865540595714422341


# --------------------------------------------------------------------------- SeedSequence
def _split(x: int) -> tuple[np.ndarray, np.ndarray]:
    """A 128-bit integer as its (high, low) 64-bit halves."""
    return np.array(x >> 64, dtype=_U64), np.array(x & _M64, dtype=_U64)


def _words(x: int) -> list[int]:
    """The 32-bit words of a non-negative integer, least significant first (0: one word)."""
    out = [x & 0xFFFFFFFF]
    x >>= 32
    while x:
        out.append(x & 0xFFFFFFFF)
        x >>= 32
    return out


def _entropy_words(entropy) -> list[int]:
    """The 32-bit words of a seed sequence's entropy: an int, or a sequence of ints one after another."""
    if isinstance(entropy, (int, np.integer)):
        return _words(int(entropy))
    return [w for x in entropy for w in _words(int(x))]


def _pool(entropy: np.ndarray, pool_size: int) -> np.ndarray:
    """The mixed pool (B, pool_size) of uint32 of each row of entropy words ``entropy`` (B, L)."""
    B, L = entropy.shape
    h = _INIT_A

    def hashmix(v: Any) -> Any:
        nonlocal h
        v = v ^ _U32(h)
        h = (h * _MULT_A) & 0xFFFFFFFF
        v = v * _U32(h)
        return v ^ (v >> _U32(_XSHIFT))

    def mix(x: Any, y: Any) -> Any:
        r = _U32(_MIX_L) * x - _U32(_MIX_R) * y
        return r ^ (r >> _U32(_XSHIFT))

    zero = np.zeros(B, dtype=_U32)
    pool = [hashmix(entropy[:, i] if i < L else zero) for i in range(pool_size)]
    for src in range(pool_size):
        for dst in range(pool_size):
            if src != dst:
                pool[dst] = mix(pool[dst], hashmix(pool[src]))
    for src in range(pool_size, L):
        for dst in range(pool_size):
            pool[dst] = mix(pool[dst], hashmix(entropy[:, src]))
    return np.stack(pool, axis=1)


def _state_words(pool: np.ndarray, n_words: int) -> np.ndarray:
    """``SeedSequence.generate_state(n_words, uint64)`` of each pool (B, pool_size): (B, n_words) uint64."""
    h = _INIT_B
    out = []
    for i in range(2 * n_words):
        v = pool[:, i % pool.shape[1]] ^ _U32(h)
        h = (h * _MULT_B) & 0xFFFFFFFF
        v = v * _U32(h)
        out.append(v ^ (v >> _U32(_XSHIFT)))
    w = np.stack(out, axis=1).astype(_U64)
    return w[:, 0::2] | (w[:, 1::2] << _U64(32))  # little-endian pairs


def _pcg_states(words: np.ndarray) -> tuple[np.ndarray, ...]:
    """PCG64 seeded by each row of four state words: the state and increment, each as (high, low) uint64."""
    seed_hi, seed_lo, seq_hi, seq_lo = (words[:, j].copy() for j in range(4))
    inc_hi = (seq_hi << _U64(1)) | (seq_lo >> _U64(63))
    inc_lo = (seq_lo << _U64(1)) | _U64(1)
    # state 0, one step (the state becomes the increment), the seed added, one more step
    a_hi, a_lo = _add128(inc_hi, inc_lo, seed_hi, seed_lo)
    s_hi, s_lo = _step(a_hi, a_lo, inc_hi, inc_lo)
    return s_hi, s_lo, inc_hi, inc_lo


def seed_states(seeds: np.ndarray) -> tuple[np.ndarray, ...]:
    """The PCG64 state of ``default_rng(seed)`` for each seed (non-negative, below ``2**32``)."""
    seeds = np.asarray(seeds, dtype=np.int64)
    return _pcg_states(_state_words(_pool(seeds.astype(_U32)[:, None], 4), 4))


def child_states(seq: np.random.SeedSequence, index: np.ndarray) -> tuple[np.ndarray, ...]:
    """The PCG64 state of ``default_rng(SeedSequence(seq.entropy, spawn_key=seq.spawn_key + (i,), ...))`` for each ``i``.

    ``index`` holds non-negative integers below ``2**32``.
    """
    run = _entropy_words(seq.entropy)
    spawn = [w for key in seq.spawn_key for w in _words(int(key))]
    if len(run) < seq.pool_size:  # a spawn key is always present here: numpy pads the run entropy
        run += [0] * (seq.pool_size - len(run))
    fixed = np.array(run + spawn, dtype=_U32)
    index = np.asarray(index, dtype=np.int64)
    entropy = np.concatenate([np.broadcast_to(fixed, (index.size, fixed.size)), index.astype(_U32)[:, None]], axis=1)
    return _pcg_states(_state_words(_pool(entropy, seq.pool_size), 4))


# --------------------------------------------------------------------------- PCG64 outputs
def _add128(ah, al, bh, bl):
    lo = al + bl
    return ah + bh + (lo < al).astype(_U64), lo


_MULT_HI, _MULT_LO = _split(_PCG_MULT)

#: Streams x steps computed in one array expression: few streams jump ahead many steps at once.
JUMP_ENTRIES = 8192


def _mul128(ah, al, bh, bl):
    """The product of 128-bit numbers (high, low halves in uint64 arrays) modulo ``2**128``.

    Array arithmetic in uint64 wraps modulo ``2**64`` (silently: only numpy scalars warn).
    """
    a0, a1 = al & _M32, al >> _U64(32)  # the low halves' full product from 32-bit pieces
    b0, b1 = bl & _M32, bl >> _U64(32)
    p00, p01, p10 = a0 * b0, a0 * b1, a1 * b0
    mid = (p00 >> _U64(32)) + (p01 & _M32) + (p10 & _M32)
    hi = a1 * b1 + (p01 >> _U64(32)) + (p10 >> _U64(32)) + (mid >> _U64(32)) + ah * bl + al * bh
    return hi, (mid << _U64(32)) | (p00 & _M32)


def _step(s_hi, s_lo, c_hi, c_lo):
    """One PCG64 step of every stream: ``s * a + c`` modulo ``2**128``."""
    return _add128(*_mul128(s_hi, s_lo, _MULT_HI, _MULT_LO), c_hi, c_lo)


@functools.lru_cache(maxsize=16)
def _jumps(J: int) -> tuple[np.ndarray, ...]:
    """``a^t`` and ``a^(t-1) + ... + a + 1`` modulo ``2**128`` for ``t = 1..J``: (high, low) columns (J, 1)."""
    a, g = [], []
    at, gt = 1, 0
    for _ in range(J):
        gt = (gt + at) & _M128
        at = (at * _PCG_MULT) & _M128
        a.append(at)
        g.append(gt)

    def column(v: list[int]) -> tuple[np.ndarray, np.ndarray]:
        return np.array([x >> 64 for x in v], dtype=_U64)[:, None], np.array([x & _M64 for x in v], dtype=_U64)[:, None]

    return (*column(a), *column(g))


def _xsl_rr(hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
    """PCG64's output of a state: the xor of its halves rotated right by its top six bits."""
    v = hi ^ lo
    rot = hi >> _U64(58)
    return (v >> rot) | (v << ((_U64(64) - rot) & _U64(63)))


def outputs(states: tuple[np.ndarray, ...], n: int) -> np.ndarray:
    """The first ``n`` 64-bit outputs of each PCG64 stream ``states`` (as from :func:`seed_states`), as rows (n, B).

    The state after ``t`` more steps is ``a^t s + (a^(t-1) + ... + 1) c``: blocks of ``J`` steps
    of every stream are one array expression (``J`` streams x steps up to :data:`JUMP_ENTRIES`),
    one step at a time where there are that many streams.
    """
    s_hi, s_lo, c_hi, c_lo = states
    B = s_hi.size
    out = np.empty((n, B), dtype=_U64)
    J = max(1, min(n, JUMP_ENTRIES // max(B, 1)))
    if J == 1:
        for j in range(n):
            s_hi, s_lo = _step(s_hi, s_lo, c_hi, c_lo)
            out[j] = _xsl_rr(s_hi, s_lo)
        return out
    a_hi, a_lo, g_hi, g_lo = _jumps(J)
    for j0 in range(0, n, J):
        t = min(J, n - j0)
        hi, lo = _add128(*_mul128(s_hi, s_lo, a_hi[:t], a_lo[:t]), *_mul128(c_hi, c_lo, g_hi[:t], g_lo[:t]))
        out[j0:j0 + t] = _xsl_rr(hi, lo)
        s_hi, s_lo = hi[t - 1], lo[t - 1]
    return out


def words32(raw: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """The 32-bit draws at half-positions ``pos`` of outputs ``raw`` (n, B): ``2 j`` is output ``j``'s lower half."""
    rows = raw[pos // 2]
    return np.where((pos % 2 == 1)[:, None], rows >> _U64(32), rows & _M32)


def bounded(u32: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Lemire's ``integers(n)`` (``n <= 2**32``) from 32-bit draws ``u32``: the values, and False where numpy redraws.

    numpy keeps the high word of ``u * n`` unless the low word falls below ``2**32 mod n``.
    """
    m = u32 * _U64(n)
    return (m >> _U64(32)).astype(np.int64), (m & _M32) >= _U64((1 << 32) % n)


def doubles(raw: np.ndarray) -> np.ndarray:
    """``random()`` from 64-bit outputs: the top 53 bits over ``2**53``."""
    return (raw >> _U64(11)).astype(float) * (1.0 / 9007199254740992.0)


# --------------------------------------------------------------------------- k-means++ draws
@functools.lru_cache(maxsize=64)
def kmeans_plan(k: int, n_init: int) -> tuple[int, np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """Where each draw of :func:`semvar._kmeans.kmeans_many`'s seeding falls in a fresh stream.

    The order is ``integers(n, size=n_init)``, then for each further centre
    ``random((n_init, trials))`` and ``integers(n, size=(n_init, trials))``.  A 32-bit draw takes
    the upper half of the last output if that half is still unused, else the lower half of a new
    output; a double takes a new output.  Returns the number of outputs, the positions of the first
    centres among the 32-bit halves (``2 j`` lower, ``2 j + 1`` upper half of output ``j``) and,
    per further centre, the outputs of its uniforms and the halves of its fallback rows.
    """
    trials = 2 + int(np.log(k))
    nxt = 0  # outputs used
    spare = -1  # the half-position of an unused upper half, or -1

    def u32(count):
        nonlocal nxt, spare
        pos = []
        for _ in range(count):
            if spare >= 0:
                pos.append(spare)
                spare = -1
            else:
                pos.append(2 * nxt)
                spare = 2 * nxt + 1
                nxt += 1
        return np.array(pos)

    def u64(count):
        nonlocal nxt
        pos = np.arange(nxt, nxt + count)
        nxt += count
        return pos

    first = u32(n_init)
    rest = []
    for _ in range(1, k):
        uni = u64(n_init * trials)
        rest.append((uni, u32(n_init * trials)))
    return nxt, first, rest


def kmeans_draws(seeds: Sequence[int] | np.ndarray, n: int, k: int, n_init: int):
    """The seeding draws of ``default_rng(seed)`` for each seed, as :func:`semvar._kmeans.kmeans_many` takes them.

    Returns ``first`` (B, n_init), ``unif`` and ``fallback`` (B, k - 1, n_init, trials) and ``ok``
    (B,): False where a 32-bit draw fell where numpy might reject it (those rows are to be drawn by
    numpy).
    """
    trials = 2 + int(np.log(k))
    seeds = np.asarray(seeds, dtype=np.int64)
    count, first_pos, rest = kmeans_plan(k, n_init)
    raw = outputs(seed_states(seeds), count)  # (count, B): draw-major, each draw's row contiguous
    first, good = bounded(words32(raw, first_pos), n)
    ok = good.all(0)
    B = seeds.size
    unif = np.empty((k - 1, n_init * trials, B))
    fallback = np.empty((k - 1, n_init * trials, B), dtype=np.int64)
    for c, (uni, pos) in enumerate(rest):
        unif[c] = doubles(raw[uni])
        fallback[c], good = bounded(words32(raw, pos), n)
        ok &= good.all(0)
    return (first.T.copy(), unif.transpose(2, 0, 1).reshape(B, k - 1, n_init, trials),
            fallback.transpose(2, 0, 1).reshape(B, k - 1, n_init, trials), ok)


def generator_draws(rng: np.random.Generator, n: int, k: int, n_init: int):
    """The same draws from one numpy generator, in the same order: ``(first, unif, fallback)`` of one stream."""
    trials = 2 + int(np.log(k))
    first = rng.integers(n, size=n_init)
    unif = np.empty((k - 1, n_init, trials))
    fallback = np.empty((k - 1, n_init, trials), dtype=np.int64)
    for c in range(1, k):
        unif[c - 1] = rng.random((n_init, trials))
        fallback[c - 1] = rng.integers(n, size=(n_init, trials))
    return first, unif, fallback


def first_ints(seq: np.random.SeedSequence, index: np.ndarray, high: int) -> tuple[np.ndarray, np.ndarray]:
    """``default_rng(child i of seq).integers(high)`` for each ``i`` of ``index``, and False where numpy might redraw."""
    raw = outputs(child_states(seq, index), 1)
    return bounded(raw[0] & _M32, high)


# --------------------------------------------------------------------------- the check against numpy
@functools.lru_cache(maxsize=1)
def agrees() -> bool:
    """Whether this module reproduces numpy's streams (checked once per process on a few seeds)."""
    try:
        seeds = np.array([0, 1, 12345, 2**31 - 2])
        for k, n in ((2, 3), (3, 20), (7, 300)):
            first, unif, fallback, ok = kmeans_draws(seeds, n, k, 10)
            for b, s in enumerate(seeds.tolist()):
                f, u, fb = generator_draws(np.random.default_rng(s), n, k, 10)
                if ok[b] and not (np.array_equal(f, first[b]) and np.array_equal(u, unif[b])
                                  and np.array_equal(fb, fallback[b])):
                    return False
        for seq in (np.random.SeedSequence(7), np.random.SeedSequence(2**100 + 3, spawn_key=(5,)),
                    np.random.SeedSequence(9, pool_size=8)):
            idx = np.array([0, 1, 1000])
            vals, ok = first_ints(seq, idx, 2**31 - 1)
            for j, i in enumerate(idx.tolist()):
                child = np.random.SeedSequence(seq.entropy, spawn_key=tuple(seq.spawn_key) + (i,),
                                               pool_size=seq.pool_size)
                if ok[j] and int(np.random.default_rng(child).integers(2**31 - 1)) != int(vals[j]):
                    return False
        return True
    except Exception:  # noqa: BLE001 - any failure of the emulation means: use numpy's generators
        return False
