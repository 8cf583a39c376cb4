"""Tests of semvar.evaluation: AUROC and DeLong's interval, Wilson intervals, AUARC, paired bootstrap."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from semvar import evaluation as ev
from semvar.experiments import realtext as rt


@st.composite
def scored(draw, min_each=2, max_n=14, levels=5):
    n = draw(st.integers(max(1, 2 * min_each), max_n))
    y = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    if sum(y) < min_each or n - sum(y) < min_each:
        y = [True] * min_each + [False] * min_each + y[2 * min_each :]
    s = draw(st.lists(st.integers(0, levels), min_size=len(y), max_size=len(y)))
    return np.array(s, dtype=float), np.array(y)


def _mann_whitney(s, y) -> float:
    """Count positive-negative pairs by hand: 1 if the positive scores higher, 1/2 for a tie."""
    pos, neg = s[y], s[~y]
    wins = sum((a > b) + 0.5 * (a == b) for a in pos for b in neg)
    return wins / (pos.size * neg.size)


def _delong_brute(s, y, level=0.95):
    """DeLong et al. (1988) from the pairwise kernel psi(x, z) directly (no ranks)."""
    x, z = s[y], s[~y]
    psi = (x[:, None] > z[None, :]) + 0.5 * (x[:, None] == z[None, :])
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    auc = psi.mean()
    se = math.sqrt(v10.var(ddof=1) / x.size + v01.var(ddof=1) / z.size)
    h = norm.ppf(0.5 + level / 2) * se
    return auc, max(0.0, auc - h), min(1.0, auc + h)


# --------------------------------------------------------------------------- AUROC
def test_the_functions_are_the_ones_realtext_exports():
    assert rt.auroc is ev.auroc and rt.auroc_ci is ev.auroc_ci and rt.rate_ci is ev.rate_ci


def test_auroc_by_hand():
    assert ev.auroc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]) == 0.75  # pairs: 0.35 > 0.1, 0.8 > both
    assert ev.auroc([1, 2, 3, 4], [0, 0, 1, 1]) == 1.0
    assert ev.auroc([4, 3, 2, 1], [0, 0, 1, 1]) == 0.0
    assert ev.auroc([1, 1, 1, 1], [0, 1, 0, 1]) == 0.5


@settings(max_examples=150, deadline=None)
@given(scored())
def test_auroc_and_delong_match_the_brute_force_counts(data):
    s, y = data
    assert ev.auroc(s, y) == pytest.approx(_mann_whitney(s, y), abs=1e-12)
    got = ev.auroc_ci(s, y, level=0.9)
    want = _delong_brute(s, y, level=0.9)
    assert got == pytest.approx(want, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(scored())
def test_auroc_complement_and_flip(data):
    s, y = data
    assert ev.auroc(-s, y) == pytest.approx(1 - ev.auroc(s, y), abs=1e-12)
    assert ev.auroc(s, ~y) == pytest.approx(1 - ev.auroc(s, y), abs=1e-12)


def test_rate_ci_wilson_by_formula():
    k, n, z = 8, 10, norm.ppf(0.975)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    rate, lo, hi = ev.rate_ci(k, n)
    assert rate == 0.8 and lo == pytest.approx(centre - half, abs=1e-12) and hi == pytest.approx(centre + half, abs=1e-12)
    r, lo, hi = ev.rate_ci(0, 5, method="exact")
    assert r == 0.0 and lo == 0.0 and hi == pytest.approx(1 - 0.025 ** (1 / 5), abs=1e-12)  # Clopper-Pearson at k = 0


# --------------------------------------------------------------------------- AUARC
def test_auarc_by_hand():
    assert ev.auarc([0.1, 0.2, 0.9], [True, True, False]) == pytest.approx((1 + 1 + 2 / 3) / 3, abs=1e-15)
    assert ev.auarc([0.9, 0.2, 0.1], [True, True, False]) == pytest.approx((0 + 1 / 2 + 2 / 3) / 3, abs=1e-15)
    assert ev.auarc([3.0], [1]) == 1.0 and ev.auarc([3.0], [0]) == 0.0


@pytest.mark.parametrize("n, c", [(5, 2), (10, 7), (8, 8), (6, 0)])
def test_auarc_perfect_ranking(n, c):
    u = np.arange(n, dtype=float)
    correct = np.arange(n) < c  # the c least uncertain are the right ones
    expected = (c + c * sum(1 / j for j in range(c + 1, n + 1))) / n
    assert ev.auarc(u, correct) == pytest.approx(expected, abs=1e-12)


def test_auarc_of_tied_and_random_uncertainty_is_the_accuracy():
    correct = np.array([1, 0, 0, 1, 1, 0, 1, 1])
    assert ev.auarc(np.zeros(8), correct) == pytest.approx(correct.mean(), abs=1e-15)
    rng = np.random.default_rng(0)
    y = rng.random(400) < 0.3
    vals = [ev.auarc(rng.random(400), y) for _ in range(200)]
    assert abs(np.mean(vals) - y.mean()) < 0.01  # uninformative score: expected AUARC = accuracy


@settings(max_examples=80, deadline=None)
@given(scored(min_each=0, max_n=7, levels=2))
def test_auarc_averages_over_the_orders_of_ties(data):
    u, c = data
    n = u.size
    total, count = 0.0, 0
    for perm in itertools.permutations(range(n)):  # every order; keep those sorted by uncertainty
        p = np.array(perm)
        if np.all(np.diff(u[p]) >= 0):
            cs = c[p].astype(float)
            total += np.mean(np.cumsum(cs) / np.arange(1, n + 1))
            count += 1
    assert ev.auarc(u, c) == pytest.approx(total / count, abs=1e-12)
    rng = np.random.default_rng(n)
    q = rng.permutation(n)
    assert ev.auarc(u[q], c[q]) == pytest.approx(ev.auarc(u, c), abs=1e-12)  # input order does not matter


# --------------------------------------------------------------------------- bootstrap
@settings(max_examples=100, deadline=None)
@given(scored(), st.randoms(use_true_random=False))
def test_a_resample_auroc_is_the_auroc_of_the_repeated_rows(data, rnd):
    # the bootstrap counts each question by its multiplicity; materialising the resample must agree
    s, y = data
    x, z = s[y], s[~y]
    c = np.array([rnd.randint(0, 3) for _ in x])
    d = np.array([rnd.randint(0, 3) for _ in z])
    c[0] += 1
    d[0] += 1
    got = ev._weighted_auc(ev._auc_prep(x, z), c, d)
    assert got == pytest.approx(_mann_whitney(np.r_[np.repeat(x, c), np.repeat(z, d)],
                                              np.r_[np.ones(c.sum(), bool), np.zeros(d.sum(), bool)]), abs=1e-12)


def test_paired_auroc_difference():
    rng = np.random.default_rng(2)
    y = rng.random(300) < 0.4
    a = y + rng.normal(scale=0.5, size=300)  # informative
    b = rng.normal(size=300)  # not
    d, lo, hi = ev.paired_auroc_difference(a, b, y, n_boot=500, random_state=1)
    assert d == pytest.approx(ev.auroc(a, y) - ev.auroc(b, y), abs=1e-12)
    assert 0 < lo < d < hi
    assert ev.paired_auroc_difference(a, b, y, n_boot=500, random_state=1) == (d, lo, hi)  # seeded
    d2, lo2, hi2 = ev.paired_auroc_difference(b, a, y, n_boot=500, random_state=1)
    assert (d2, lo2, hi2) == pytest.approx((-d, -hi, -lo), abs=1e-12)  # antisymmetric, same resamples
    assert ev.paired_auroc_difference(a, a, y, n_boot=100) == (0.0, 0.0, 0.0)


def test_paired_difference_interval_covers_zero_for_exchangeable_scores():
    # two scores with the same law: the 90% interval should hold 0 in about 90% of data sets
    rng = np.random.default_rng(7)
    hits = 0
    for _ in range(60):
        y = rng.random(120) < 0.5
        a, b = y + rng.normal(size=120), y + rng.normal(size=120)
        _, lo, hi = ev.paired_auroc_difference(a, b, y, n_boot=300, level=0.9, random_state=rng)
        hits += lo <= 0 <= hi
    assert 45 <= hits <= 60


def test_delong_bootstrap_ratio():
    rng = np.random.default_rng(3)
    y = rng.random(400) < 0.4
    s = y + rng.normal(size=400)  # continuous scores, 400 questions: DeLong's error is the bootstrap's
    r = ev.delong_bootstrap_ratio(s, y)
    assert 0.85 < r < 1.15
    assert ev.delong_bootstrap_ratio(s, y) == r and ev.delong_bootstrap_ratio(s, y, random_state=1) != r  # seeded
    # by hand: DeLong's error from the interval, the bootstrap's from 400 resamples within the classes
    _, low, high = ev.auroc_ci(s, y)
    g = np.random.default_rng(0)
    boot = [ev.mann_whitney_auc(g.choice(s[y], y.sum()), g.choice(s[~y], (~y).sum())) for _ in range(400)]
    assert r == pytest.approx((high - low) / (2 * norm.ppf(0.975)) / np.std(boot, ddof=1), rel=1e-12)
    assert ev.delong_bootstrap_ratio([1, 2, 3, 4], [0, 0, 1, 1]) == 1.0  # perfect ranking: both errors 0
    m = np.ma.MaskedArray(np.r_[s, 9.0], mask=np.r_[np.zeros(400), 1])
    assert ev.delong_bootstrap_ratio(m, np.r_[y, False]) == r  # a masked question is left out


def test_delong_bootstrap_ratio_reads_the_interval_of_auroc_ci(monkeypatch):
    """A DeLong interval too narrow (or too wide) shows in the ratio: auroc_ci is looked up when it runs."""
    rng = np.random.default_rng(4)
    y = rng.random(200) < 0.5
    s = y + rng.normal(size=200)
    r = ev.delong_bootstrap_ratio(s, y)
    orig = ev.auroc_ci

    def narrower(*a, **k):
        auc, low, high = orig(*a, **k)
        return auc, auc - (auc - low) / 2, auc + (high - auc) / 2

    monkeypatch.setattr(ev, "auroc_ci", narrower)
    assert ev.delong_bootstrap_ratio(s, y) == pytest.approx(r / 2, rel=1e-12)
    monkeypatch.setattr(ev, "auroc_ci", lambda *a, **k: (1.0, 0.9, 1.0))
    assert ev.delong_bootstrap_ratio([1, 2, 3, 4], [0, 0, 1, 1]) == float("inf")  # no resample moves it


def test_bootstrap_ci():
    x = np.arange(20.0)
    est, lo, hi = ev.bootstrap_ci(np.mean, x, n_boot=400, random_state=0)
    assert est == 9.5 and lo < est < hi
    assert ev.bootstrap_ci(np.mean, np.full(5, 3.0), n_boot=50) == (3.0, 3.0, 3.0)
    # stratified: every resample keeps two positives, so the share of positives never moves
    y = np.array([1, 1, 0, 0, 0, 0])
    assert ev.bootstrap_ci(np.mean, y, n_boot=50, strata=y) == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    # paired rows: the statistic sees the same rows of both arrays
    assert ev.bootstrap_ci(lambda u, v: float(np.all(u == v)), x, x.copy(), n_boot=50) == (1.0, 1.0, 1.0)


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda: ev.auroc([1, 2], [0, 1, 1]), "same length"),
        (lambda: ev.auroc([1, 2, np.nan, 4], [0, 0, 1, 1]), "finite"),
        (lambda: ev.auroc([1, 2, 3, 4], [0, 0, 1, 2]), "0/1"),
        (lambda: ev.auroc([1, 2, 3], [0, 0, 1]), "two of each"),
        (lambda: ev.auroc([1j, 2, 3, 4], [0, 0, 1, 1]), "real numbers"),
        (lambda: ev.auroc_ci([1, 2, 3, 4], [0, 0, 1, 1], level=1.0), "level"),
        (lambda: ev.rate_ci(3, 2), "k must be <="),
        (lambda: ev.rate_ci(1, 0), "n must be >="),
        (lambda: ev.rate_ci(1, 2, method="wald"), "method"),
        (lambda: ev.rate_ci(1.5, 2), "integer"),
        (lambda: ev.auarc([], []), "empty"),
        (lambda: ev.auarc([[0.1, 0.2]], [[1, 0]]), "1-D"),
        (lambda: ev.auarc([0.1, np.inf], [1, 0]), "finite"),
        (lambda: ev.auarc([0.1, 0.2], [1, 0, 1]), "one entry per score"),
        (lambda: ev.auarc([0.1, 0.2], [1, 2]), "boolean or 0/1"),
        (lambda: ev.auarc([0.1, 0.2], ["a", "b"]), "boolean or 0/1"),
        (lambda: ev.auarc(["x", "y"], [1, 0]), "real numbers"),
        (lambda: ev.paired_auroc_difference([1, 2, 3, 4], [1, 2, 3], [0, 0, 1, 1]), "same length"),
        (lambda: ev.paired_auroc_difference([1, 2, 3, 4], [1, 2, 3, 4], [0, 1, 1, 1]), "two of each"),
        (lambda: ev.paired_auroc_difference([1, 2, 3, 4], [1, 2, 3, np.nan], [0, 0, 1, 1]), "finite"),
        (lambda: ev.paired_auroc_difference([1, 2, 3, 4], [1, 2, 3, 4], [0, 0, 1, 1], n_boot=0), "n_boot"),
        (lambda: ev.paired_auroc_difference([1, 2, 3, 4], [1, 2, 3, 4], [0, 0, 1, 1], level=0), "level"),
        (lambda: ev.paired_auroc_difference([1, 2, 3, 4], [1, 2, 3, 4], [0, 0, 1, 1], random_state="x"), "random_state"),
        (lambda: ev.delong_bootstrap_ratio([1, 2, 3, 4], [0, 1, 1, 1]), "two of each"),
        (lambda: ev.delong_bootstrap_ratio([1, 2, np.inf, 4], [0, 0, 1, 1]), "finite"),
        (lambda: ev.delong_bootstrap_ratio([1, 2, 3, 4], [0, 0, 1, 1], n_boot=1), "n_boot"),
        (lambda: ev.delong_bootstrap_ratio([1, 2, 3, 4], [0, 0, 1, 1], random_state=-1), "random_state"),
        (lambda: ev.bootstrap_ci("mean", [1, 2]), "callable"),
        (lambda: ev.bootstrap_ci(np.mean), "at least one array"),
        (lambda: ev.bootstrap_ci(np.mean, [1, 2], [1, 2, 3]), "same length"),
        (lambda: ev.bootstrap_ci(np.mean, []), "empty"),
        (lambda: ev.bootstrap_ci(np.mean, [1, 2], strata=[0]), "strata"),
        (lambda: ev.bootstrap_ci(lambda x: "a", [1, 2]), "real number"),
        (lambda: ev.bootstrap_ci(lambda x: np.nan, [1, 2]), "returned nan"),
        (lambda: ev.bootstrap_ci(np.mean, [1, 2], n_boot=1.5), "n_boot"),
    ],
)
def test_bad_input(call, msg):
    with pytest.raises(ValueError, match=msg):
        call()


def test_public_names_resolve_and_core_does_not_import_experiments():
    import subprocess
    import sys

    assert all(hasattr(ev, name) for name in ev.__all__)
    code = "import sys, semvar.evaluation; print(sorted(m for m in sys.modules if m.startswith(('semvar.experiments', 'semvar.claims'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# --------------------------------------------------------------------------- masked arrays, strata, memory
def test_a_masked_entry_leaves_its_question_out():
    # the masked score would rank a negative first: 0.667 when read, 1.0 on the four unmasked questions
    s = np.ma.MaskedArray([0.1, 0.2, 0.9, 0.8, 5.0], mask=[0, 0, 0, 0, 1])
    y = np.array([0, 0, 1, 1, 0])
    keep = ~np.ma.getmaskarray(s)
    assert ev.auroc(s, y) == 1.0 == ev.auroc(s.compressed(), y[keep])
    assert ev.auroc_ci(s, y) == ev.auroc_ci(s.compressed(), y[keep])
    # a masked label leaves its question out too
    ym = np.ma.MaskedArray([0, 0, 1, 1, 1], mask=[0, 0, 0, 0, 1])
    assert ev.auroc([0.1, 0.2, 0.9, 0.8, 0.0], ym) == 1.0
    u = np.ma.MaskedArray([0.1, 0.2, 0.9, 0.3], mask=[0, 0, 0, 1])
    assert ev.auarc(u, [1, 1, 0, 0]) == ev.auarc([0.1, 0.2, 0.9], [1, 1, 0])
    assert ev.mann_whitney_auc(np.ma.MaskedArray([0.9, -7.0], mask=[0, 1]), [0.1, 0.2]) == 1.0
    b = np.ma.MaskedArray([1, 5, 3, 4, 2, 6, 0], mask=[0, 0, 0, 0, 0, 0, 1])
    got = ev.paired_auroc_difference([1, 2, 3, 4, 5, 6, 9], b, [0, 0, 0, 1, 1, 1, 0], n_boot=50)
    assert got == ev.paired_auroc_difference([1, 2, 3, 4, 5, 6], [1, 5, 3, 4, 2, 6], [0, 0, 0, 1, 1, 1], n_boot=50)


def test_bootstrap_ci_refuses_masked_arrays_and_strata():
    x = np.ma.MaskedArray(np.arange(6.0), mask=[0, 0, 0, 0, 0, 1])
    with pytest.raises(ValueError, match=r"arrays\[0\] is a masked array with 1 masked entry"):
        ev.bootstrap_ci(np.mean, x, n_boot=10)
    with pytest.raises(ValueError, match=r"strata is a masked array"):
        ev.bootstrap_ci(np.mean, np.arange(6.0), n_boot=10, strata=np.ma.MaskedArray([0, 0, 0, 1, 1, 1], mask=x.mask))
    # nothing masked: read as the plain array
    assert ev.bootstrap_ci(np.mean, np.ma.MaskedArray(np.arange(6.0), mask=False), n_boot=10) == ev.bootstrap_ci(
        np.mean, np.arange(6.0), n_boot=10)


@pytest.mark.parametrize(
    "strata, msg",
    [
        ([None, "a", "a", "b", "b", "b"], r"strata holds None at position 0"),
        ([0, 0, 1, 1, float("nan"), 1], r"strata contains NaN"),
        ([1, "1", 1, "1", 1, "1"], r"strata must hold labels of one kind"),
    ],
)
def test_bootstrap_ci_strata_must_be_labels_of_one_kind(strata, msg):
    with pytest.raises(ValueError, match=msg):
        ev.bootstrap_ci(np.mean, np.arange(6.0), n_boot=10, strata=strata)


def test_bootstrap_ci_strata_by_value_give_the_same_resamples():
    x = np.arange(8.0)
    by_int = ev.bootstrap_ci(np.mean, x, n_boot=200, strata=[1, 0, 1, 0, 1, 0, 0, 0])
    assert ev.bootstrap_ci(np.mean, x, n_boot=200, strata=["b", "a", "b", "a", "b", "a", "a", "a"]) == by_int
    assert ev.bootstrap_ci(np.mean, x, n_boot=200, strata=np.array([1, 0, 1, 0, 1, 0, 0, 0.0])) == by_int


def test_resampling_that_cannot_fit_is_refused_before_allocating(monkeypatch):
    from semvar import graph

    monkeypatch.setattr(graph, "available_memory", lambda: 4 * 2**30)
    with pytest.raises(ValueError, match=r"n_boot = 1,000,000,000,000 resamples of 20 rows need about "
                                         r"[\d,.]+ GiB of memory.*4\.0 GiB"):
        ev.bootstrap_ci(np.mean, np.arange(20.0), n_boot=1e12)
    with pytest.raises(ValueError, match=r"n_boot = 1,000,000,000,000 resamples need about [\d,.]+ GiB"):
        ev.paired_auroc_difference([1, 2, 3, 4], [1, 2, 4, 3], [0, 0, 1, 1], n_boot=10**12)
    monkeypatch.setattr(graph, "available_memory", lambda: None)  # unknown: a fixed cap
    with pytest.raises(ValueError, match=r"more than the [\d,.]+ GiB allowed when the memory available cannot be read"):
        ev.bootstrap_ci(np.mean, np.arange(20.0), n_boot=1e12)
