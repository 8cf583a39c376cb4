"""semvar.entropy: the plug-in entropy of a partition (Liu 2025, eq. 5)."""

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar.entropy import empirical_entropy, entropy_from_counts

#: cluster sizes: up to 12 clusters, zeros allowed (an empty cluster contributes nothing)
COUNTS = st.lists(st.integers(0, 1000), min_size=1, max_size=12).filter(lambda c: sum(c) > 0)


def test_paris_london_entropy_is_log2():
    assert empirical_entropy(["Paris", "Paris", "London", "London"]) == pytest.approx(np.log(2))


@given(st.lists(st.integers(0, 6), min_size=1, max_size=60), st.permutations(range(7)))
def test_entropy_invariant_to_relabelling_and_bounded(labels, perm):
    h = empirical_entropy(labels)
    relabelled = [perm[x] for x in labels]
    assert h == pytest.approx(empirical_entropy(relabelled))
    assert h == pytest.approx(empirical_entropy(labels[::-1]))
    k = len(set(labels))
    assert -1e-12 <= h <= np.log(k) + 1e-12


@pytest.mark.parametrize("bad", [[], [[1, 2]]])
def test_entropy_bad_labels(bad):
    with pytest.raises(ValueError, match="labels"):
        empirical_entropy(bad)


def test_entropy_from_counts_bad():
    with pytest.raises(ValueError):
        entropy_from_counts([0, 0])
    with pytest.raises(ValueError):
        entropy_from_counts([1, -1])


def test_hand_computed_values():
    # sizes 1, 1, 2 of n = 4: -(2 * 1/4 log 1/4 + 1/2 log 1/2) = 1.5 log 2
    assert empirical_entropy(["a", "b", "c", "c"]) == pytest.approx(1.5 * np.log(2), abs=1e-15)
    # K equal clusters: log K exactly (up to rounding)
    for k in (1, 2, 3, 7, 50):
        assert entropy_from_counts([5] * k) == pytest.approx(np.log(k), abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(COUNTS)
def test_entropy_from_counts_agrees_with_scipy(counts):
    assert entropy_from_counts(counts) == pytest.approx(scipy.stats.entropy(counts), rel=1e-12, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(COUNTS, st.randoms(use_true_random=False))
def test_entropy_from_counts_is_permutation_invariant_and_bounded(counts, rnd):
    h = entropy_from_counts(counts)
    shuffled = list(counts)
    rnd.shuffle(shuffled)
    assert entropy_from_counts(shuffled) == pytest.approx(h, rel=1e-12, abs=1e-15)
    k = sum(c > 0 for c in counts)  # the non-empty clusters
    assert 0.0 <= h <= np.log(k) + 1e-12
    if k == 1:
        assert h == 0.0
    assert np.copysign(1.0, h) == 1.0  # never -0.0


@settings(max_examples=100, deadline=None)
@given(COUNTS, st.integers(1, 10**6))
def test_entropy_depends_on_the_proportions_only(counts, factor):
    assert entropy_from_counts([factor * c for c in counts]) == pytest.approx(entropy_from_counts(counts), rel=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["Paris", "London", "Rome", "Oslo"]), min_size=1, max_size=40))
def test_empirical_entropy_is_the_entropy_of_the_label_counts(labels):
    counts = [labels.count(x) for x in sorted(set(labels))]
    assert empirical_entropy(labels) == pytest.approx(scipy.stats.entropy(counts), rel=1e-12, abs=1e-12)


def test_counts_near_the_float_maximum_do_not_overflow():
    assert entropy_from_counts([1e308, 1e308, 1e308]) == pytest.approx(np.log(3))
    assert entropy_from_counts([np.finfo(float).max, 0.0]) == 0.0


@pytest.mark.parametrize(
    "bad, match",
    [
        ([], "non-empty 1-D"),
        ([[1, 2], [3, 4]], "non-empty 1-D"),
        ([1.0, np.nan], "finite and non-negative"),
        ([1.0, np.inf], "finite and non-negative"),
        ([2, -1], "finite and non-negative"),
        ([0, 0, 0], "must not all be zero"),
    ],
)
def test_entropy_from_counts_names_the_fault(bad, match):
    with pytest.raises(ValueError, match=match):
        entropy_from_counts(bad)


def test_empirical_entropy_refuses_nan_labels():
    with pytest.raises(ValueError, match="labels contains NaN"):
        empirical_entropy([0.0, np.nan])


# --------------------------------------------------------------------------- masks, and labels of one kind
def test_masked_labels_are_left_out():
    # the three masked texts have no label: the entropy is that of the four labelled ones (was log 3 - ...)
    lab = np.ma.MaskedArray([0, 0, 1, 1, 2, 2, 2], mask=[0, 0, 0, 0, 1, 1, 1])
    assert empirical_entropy(lab) == pytest.approx(np.log(2))
    assert empirical_entropy(np.ma.MaskedArray(["a", "b", "b"], mask=False)) == pytest.approx(
        empirical_entropy(["a", "b", "b"]))
    with pytest.raises(ValueError, match="labels: every entry is masked"):
        empirical_entropy(np.ma.masked_all(3, dtype=int))


def test_masked_counts_are_refused():
    with pytest.raises(ValueError, match=r"counts is a masked array with 1 masked entry"):
        entropy_from_counts(np.ma.MaskedArray([2, 2, 5], mask=[0, 0, 1]))
    assert entropy_from_counts(np.ma.MaskedArray([2, 2], mask=False)) == pytest.approx(np.log(2))


@pytest.mark.parametrize("labels", [[1, "1"], ["1", 1, 1], [b"a", "a"], [True, 1, 0], [(0,), 0]])
def test_labels_of_mixed_kinds_are_refused(labels):
    # numpy's str dtype made 1 and "1" one label; True and 1 are one value in Python too, not one kind
    with pytest.raises(ValueError, match=r"labels must hold labels of one kind, got \w+ \(.* at position \d+\) and "
                                         r"\w+ \(.* at position \d+\)"):
        empirical_entropy(labels)


def test_labels_are_compared_as_the_values_given():
    # numpy's fixed-width str dtype drops trailing NULs: "a" and "a\x00" were one label
    assert empirical_entropy(["a", "a\x00"]) == pytest.approx(np.log(2))
    assert empirical_entropy(np.array(["a", "a\x00"], dtype=object)) == pytest.approx(np.log(2))
    assert empirical_entropy([1, 1.0, 2]) == pytest.approx(empirical_entropy([1, 1, 2]))  # numbers: one kind


@pytest.mark.parametrize("labels", [[None, "a"], ["a", "b", None], [1.0, None], [None]])
def test_missing_labels_are_refused(labels):
    with pytest.raises(ValueError, match=r"labels holds None at position \d+: every item needs a label"):
        empirical_entropy(labels)


@pytest.mark.parametrize("labels", [[1.0, float("nan")], np.array([1.0, np.nan], dtype=object)])
def test_nan_labels_are_refused_in_lists_too(labels):
    with pytest.raises(ValueError, match="labels contains NaN"):
        empirical_entropy(labels)
