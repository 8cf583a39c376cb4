"""Tests of semvar._kmeans: the numpy k-means with restarts and the pivoted single run.

The module is private (its callers check the input); its public door is
:func:`semvar.spectral.spectral_clusters` with ``kmeans="numpy"``, whose checks
are tested here too.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar._kmeans import indicators, kmeans, kmeans_pivoted
from semvar.spectral import canonical_labels, spectral_clusters, spectral_embedding


def _blobs(sizes, rng, *, spacing=100.0, noise=1.0, d=3):
    """Points around ``len(sizes)`` centres at least ``spacing`` apart; returns (X, true labels)."""
    k = len(sizes)
    centres = spacing * np.eye(max(k, d))[:k, :d] if k <= d else spacing * np.arange(k)[:, None] * np.ones((1, d))
    truth = np.repeat(np.arange(k), sizes)
    X = centres[truth] + rng.uniform(-noise, noise, size=(truth.size, d))
    order = rng.permutation(truth.size)
    return X[order], truth[order]


def _inertia(X, labels):
    """Sum of squared distances of the rows to their cluster's mean, computed row by row."""
    means = {g: X[labels == g].mean(0) for g in np.unique(labels)}
    return sum(float(((x - means[g]) ** 2).sum()) for x, g in zip(X, labels))


def _nearest_own_mean(X, labels, k, atol=1e-9):
    """Whether every row is at least as close to its own cluster's mean as to any other non-empty cluster's."""
    used = [g for g in range(k) if np.any(labels == g)]
    means = np.array([X[labels == g].mean(0) for g in used])
    d = ((X[:, None, :] - means[None, :, :]) ** 2).sum(2)
    own = d[np.arange(X.shape[0]), [used.index(g) for g in labels]]
    return bool(np.all(own <= d.min(1) + atol))


# --------------------------------------------------------------------------- kmeans: against scikit-learn
def test_numpy_kmeans_reaches_sklearns_optimum():
    """On well-separated random blobs both find the same partition (the optimum); inertia is consistent."""
    from sklearn.cluster import KMeans

    rng = np.random.default_rng(0)
    for trial in range(30):
        k = int(rng.integers(2, 6))
        centres = rng.normal(scale=25.0, size=(k, 3))
        X = np.concatenate([c + rng.normal(size=(int(rng.integers(2, 12)), 3)) for c in centres])
        labels, inertia = kmeans(X, k, rng)
        means = {g: X[labels == g].mean(0) for g in np.unique(labels)}
        assert inertia == pytest.approx(sum(((x - means[g]) ** 2).sum() for x, g in zip(X, labels)))
        km = KMeans(n_clusters=k, n_init=10, random_state=trial).fit(X)
        assert inertia == pytest.approx(km.inertia_, rel=1e-9)
        assert canonical_labels(labels).tolist() == canonical_labels(km.labels_).tolist()


@settings(max_examples=60, deadline=None)
@given(b=st.integers(1, 4), n=st.integers(1, 12), k=st.integers(1, 9), r=st.integers(0, 3), seed=st.integers(0, 2**32 - 1))
def test_indicators_mark_each_label_once(b, n, k, r, seed):
    """The indicators of the Lloyd steps: row (b, i) has a 1 at each of its labels, 0 elsewhere."""
    rng = np.random.default_rng(seed)
    if r == 0:  # one label a text (the pivoted run)
        labels = rng.integers(k, size=(b, n))
        expected = np.eye(k)[labels]
    else:  # r labels a text in disjoint ranges (the restarts side by side: restart j's slots j * k ...)
        labels = rng.integers(k, size=(b, n, r)) + k * np.arange(r)
        expected = np.eye(r * k)[labels].sum(2)
        k = r * k
    out = indicators(labels, k)
    assert out.shape == expected.shape and out.dtype == float
    assert np.array_equal(out, expected)


def test_kmeans_degenerate_input():
    X = np.zeros((5, 2))
    labels, inertia = kmeans(X, 3, np.random.default_rng(0))
    assert labels.shape == (5,) and inertia == 0.0
    labels, inertia = kmeans(np.arange(6.0)[:, None], 1, np.random.default_rng(0))
    assert labels.tolist() == [0] * 6 and inertia == pytest.approx(17.5)


# --------------------------------------------------------------------------- kmeans: properties
@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 60), d=st.integers(1, 4), k=st.integers(2, 7), seed=st.integers(0, 2**32 - 1),
       n_init=st.integers(2, 10))
def test_kmeans_labels_are_a_converged_partition(n, d, k, seed, n_init):
    """Any points: ``n`` labels in ``0..k-1``, the inertia they imply, each row nearest its own cluster's mean."""
    k = min(k, n)
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)), int(rng.integers(0, 3)))  # rounding makes repeated rows likely
    for restarts in (1, n_init):
        labels, inertia = kmeans(X, k, np.random.default_rng(seed), n_init=restarts)
        assert labels.dtype == np.int64 and labels.shape == (n,)
        assert labels.min() >= 0 and labels.max() < k
        assert inertia >= 0.0 and inertia == pytest.approx(_inertia(X, labels), rel=1e-9, abs=1e-9)
        assert _nearest_own_mean(X, labels, k)  # Lloyd's iteration ran to its fixed point


@settings(max_examples=40, deadline=None)
@given(sizes=st.lists(st.integers(1, 8), min_size=1, max_size=6), seed=st.integers(0, 2**32 - 1))
def test_kmeans_recovers_well_separated_blobs(sizes, seed):
    """Blobs of width 2 whose centres are 100 apart: the true partition, whatever the sizes (singletons too)."""
    rng = np.random.default_rng(seed)
    X, truth = _blobs(sizes, rng)
    labels, inertia = kmeans(X, len(sizes), rng)
    assert canonical_labels(labels).tolist() == canonical_labels(truth).tolist()
    assert inertia == pytest.approx(_inertia(X, truth), rel=1e-9, abs=1e-9)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(2, 30), k=st.integers(2, 5), seed=st.integers(0, 2**32 - 1))
def test_kmeans_is_deterministic_for_a_fixed_seed(n, k, seed):
    X = np.random.default_rng(seed).normal(size=(n, 2))
    k = min(k, n)
    a = kmeans(X, k, np.random.default_rng(seed))
    b = kmeans(X, k, np.random.default_rng(seed))
    assert np.array_equal(a[0], b[0]) and a[1] == b[1]


# --------------------------------------------------------------------------- kmeans_pivoted
def _near_orthogonal(sizes, rng, noise=0.02):
    """Rows near one of ``k`` orthogonal directions of different lengths, as in a spectral embedding."""
    k = len(sizes)
    truth = np.repeat(np.arange(k), sizes)
    scale = rng.uniform(0.5, 1.5, size=k)
    X = np.eye(k)[truth] * scale[truth][:, None] + rng.uniform(-noise, noise, size=(truth.size, k))
    order = rng.permutation(truth.size)
    return X[order], truth[order]


@settings(max_examples=40, deadline=None)
@given(sizes=st.lists(st.integers(1, 10), min_size=1, max_size=6), seed=st.integers(0, 2**32 - 1))
def test_kmeans_pivoted_recovers_near_orthogonal_clusters(sizes, seed):
    X, truth = _near_orthogonal(sizes, np.random.default_rng(seed))
    labels = kmeans_pivoted(X, len(sizes))
    assert labels.dtype == np.int64 and labels.shape == truth.shape
    assert canonical_labels(labels).tolist() == canonical_labels(truth).tolist()


def test_kmeans_pivoted_on_a_spectral_embedding_of_cliques():
    labels = np.repeat(np.arange(4), [5, 3, 6, 2])
    A = (labels[:, None] == labels[None, :]).astype(float) - np.eye(labels.size)
    A[0, 5] = A[5, 0] = 1.0  # one edge across: a connected graph, still four meanings
    U = spectral_embedding(A, 4)
    assert canonical_labels(kmeans_pivoted(U, 4)).tolist() == canonical_labels(labels).tolist()


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 30), k=st.integers(1, 5), seed=st.integers(0, 2**32 - 1))
def test_kmeans_pivoted_is_a_deterministic_converged_partition(n, k, seed):
    k = min(k, n)
    X = np.random.default_rng(seed).normal(size=(n, k))
    labels = kmeans_pivoted(X, k)
    assert np.array_equal(labels, kmeans_pivoted(X.copy(), k))  # no randomness
    assert labels.shape == (n,) and labels.min() >= 0 and labels.max() < k
    assert _nearest_own_mean(X, labels, k)


# --------------------------------------------------------------------------- the public door: spectral_clusters
def test_spectral_clusters_runs_this_kmeans_on_the_embedding():
    """``kmeans="numpy"``: one seed drawn from ``random_state``, then :func:`kmeans` on the first k columns."""
    rng = np.random.default_rng(8)
    truth = np.repeat(np.arange(3), [6, 5, 7])
    same = truth[:, None] == truth[None, :]
    A = np.triu((rng.random(same.shape) < np.where(same, 0.9, 0.1)).astype(float), 1)
    A = A + A.T
    U = spectral_embedding(A, 4)
    got = spectral_clusters(A, 3, random_state=21, kmeans="numpy", embedding=U)
    seed = int(np.random.default_rng(21).integers(2**31 - 1))
    expected = canonical_labels(kmeans(U[:, :3], 3, np.random.default_rng(seed))[0])
    assert got.tolist() == expected.tolist()
    assert got.tolist() == canonical_labels(truth).tolist()


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_init": 0}, "n_init"),
        ({"n_init": 2.5}, "n_init"),
        ({"k": 7}, "k must be <= 6"),
        ({"k": 0}, "k must be >= 1"),
        ({"random_state": "seed"}, "random_state"),
        ({"random_state": -3}, "random_state"),
        ({"kmeans": "lloyd"}, "kmeans must be one of"),
        ({"embedding": np.full((6, 2), np.inf)}, "embedding contains NaN or infinite"),
    ],
)
def test_bad_input_to_the_numpy_kmeans_raises(kwargs, match):
    A = np.kron(np.eye(2), np.ones((3, 3))) - np.eye(6)
    args = {"k": 2, "kmeans": "numpy", "random_state": 0} | kwargs
    k = args.pop("k")
    with pytest.raises(ValueError, match=match):
        spectral_clusters(A, k, **args)
