"""semvar._validation: the argument checks every public function calls at its edge."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar import _validation as v
from semvar._validation import InvalidParameterError


def test_invalid_parameter_error_is_both_value_and_type_error():
    assert issubclass(InvalidParameterError, ValueError) and issubclass(InvalidParameterError, TypeError)
    for call in (lambda: v.check_bool(1, "flag"), lambda: v.check_option("x", "rule", ("a",)),
                 lambda: v.check_judge(object()), lambda: v.check_string(3, "text")):
        with pytest.raises(ValueError):
            call()
        with pytest.raises(TypeError):
            call()


def test_show_shortens_long_values():
    assert v.show("abc") == "'abc'"
    long = v.show("x" * 200)
    assert len(long) == 60 and long.endswith("...")
    assert len(v.show(list(range(100)), limit=20)) == 20


def test_check_bool():
    assert v.check_bool(np.bool_(True), "flag") is True
    assert v.check_bool(False, "flag") is False
    for bad in (1, 0, "yes", None, 1.0):
        with pytest.raises(InvalidParameterError, match="flag must be True or False"):
            v.check_bool(bad, "flag")


def test_check_option_needs_an_exact_string():
    assert v.check_option("b", "rule", iter(["a", "b"])) == "b"  # any iterable of options
    with pytest.raises(InvalidParameterError, match=r"rule must be one of \('a', 'b'\), got 'B'"):
        v.check_option("B", "rule", ("a", "b"))
    with pytest.raises(InvalidParameterError, match="got 1"):
        v.check_option(1, "rule", ("a", "b"))


def test_check_judge_needs_a_callable_pairs():
    class Judge:
        def pairs(self, texts, pairs):
            return np.zeros(len(pairs), dtype=bool)

    judge = Judge()
    assert v.check_judge(judge) is judge

    class NotCallable:
        pairs = 3

    for bad in (object(), NotCallable(), lambda texts, pairs: None):
        with pytest.raises(InvalidParameterError, match="judge must have a pairs"):
            v.check_judge(bad)
    with pytest.raises(InvalidParameterError, match="grader must have"):
        v.check_judge(object(), "grader")


def test_check_random_state():
    g = np.random.default_rng(1)
    assert v.check_random_state(g) is g
    assert v.check_random_state(5).integers(10**9) == np.random.default_rng(5).integers(10**9)
    assert v.check_random_state(np.int64(5)).integers(10**9) == np.random.default_rng(5).integers(10**9)
    seq = np.random.SeedSequence(7)
    assert v.check_random_state(seq).integers(10**9) == np.random.default_rng(np.random.SeedSequence(7)).integers(10**9)
    assert isinstance(v.check_random_state(None), np.random.Generator)
    with pytest.raises(ValueError, match="non-negative int, got -1"):
        v.check_random_state(-1)
    for bad in (True, 1.5, "0", np.random.RandomState(0)):
        with pytest.raises(ValueError, match="random_state must be None"):
            v.check_random_state(bad)


def test_check_int():
    assert v.check_int(3, "k") == 3 and type(v.check_int(np.int32(3), "k")) is int
    assert v.check_int(4.0, "k") == 4  # an integral float is accepted
    assert v.check_int(2, "k", low=2, high=2) == 2
    with pytest.raises(ValueError, match="k must be an integer, got 2.5"):
        v.check_int(2.5, "k")
    with pytest.raises(ValueError, match="k must be an integer, got True"):
        v.check_int(True, "k")
    with pytest.raises(ValueError, match="k must be >= 2, got 1"):
        v.check_int(1, "k", low=2)
    with pytest.raises(ValueError, match="k must be <= 5, got 6"):
        v.check_int(6, "k", high=5)
    with pytest.raises(ValueError, match="fits in 64 bits"):
        v.check_int(2**63, "k")
    with pytest.raises(ValueError, match="must be an integer"):
        v.check_int(float("nan"), "k")


def test_check_real_and_probability():
    assert v.check_real(np.float32(0.5), "x") == 0.5 and type(v.check_real(1, "x")) is float
    with pytest.raises(ValueError, match=r"x must lie in \(0.0, inf\], got 0.0"):
        v.check_real(0.0, "x", low=0.0, low_open=True)
    with pytest.raises(ValueError, match=r"x must lie in \[-inf, 1.0\), got 1.0"):
        v.check_real(1.0, "x", high=1.0, high_open=True)
    with pytest.raises(ValueError, match="x must be finite, got inf"):
        v.check_real(np.inf, "x")
    for bad in (True, "0.5", None, 1j):
        with pytest.raises(ValueError, match="x must be a real number"):
            v.check_real(bad, "x")
    assert v.check_probability(0.0, "p") == 0.0 and v.check_probability(1, "p") == 1.0
    with pytest.raises(ValueError, match=r"p must lie in \[0.0, 1.0\], got 1.5"):
        v.check_probability(1.5, "p")
    with pytest.raises(ValueError, match=r"p must lie in \(0.0, 1.0\]"):
        v.check_probability(0.0, "p", low_open=True)


@settings(max_examples=100, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False), st.floats(-10, 10), st.floats(0, 10))
def test_check_real_accepts_exactly_the_interval(x, low, width):
    high = low + width
    inside = low <= x <= high
    if inside:
        assert v.check_real(x, "x", low=low, high=high) == x
    else:
        with pytest.raises(ValueError, match="x must lie in"):
            v.check_real(x, "x", low=low, high=high)


def test_check_array():
    arr = v.check_array([[1, 2], [3, 4]], "X", ndim=2, min_rows=2, nonnegative=True)
    assert arr.dtype == float and arr.shape == (2, 2)
    assert v.check_array([1.0, 2.0], "y", dtype=np.int64).dtype == np.int64
    cases = [
        (([1 + 1j],), {}, "X must be real"),
        (([1.5],), {"dtype": np.int64}, "X must hold integers, got 1.5"),
        (([np.nan],), {"dtype": np.int64}, "X must hold integers"),
        ((["a"],), {}, "X must be convertible to a numeric array"),
        (([[1], [2, 3]],), {}, "X must be convertible to a numeric array"),
        (([1, 2],), {"ndim": 2}, r"X must be a 2-D array, got an array of shape \(2,\)"),
        (([[1]],), {"min_rows": 2}, "X must have at least 2 rows, got 1"),
        (([1, np.inf],), {}, "X contains NaN or infinite values"),
        (([1, -2],), {"nonnegative": True}, "X must be non-negative, found the value -2"),
    ]
    for args, kwargs, match in cases:
        with pytest.raises(ValueError, match=match):
            v.check_array(*args, "X", **kwargs)
    assert np.isnan(v.check_array([np.nan], "X", finite=False)[0])


def test_check_adjacency_dense_and_sparse():
    A = np.array([[0, 1, 0], [1, 0, 2], [0, 2, 0]])
    dense = v.check_adjacency(A)
    assert isinstance(dense, np.ndarray) and dense.dtype == float
    sparse = v.check_adjacency(sp.coo_matrix(A))
    assert isinstance(sparse, sp.csr_array) and sparse.dtype == float
    np.testing.assert_array_equal(sparse.toarray(), dense)
    assert v.check_adjacency(A + 1e-12 * np.triu(np.ones((3, 3)), 1)).shape == (3, 3)  # within atol
    for make in (np.asarray, sp.csr_array):
        with pytest.raises(ValueError, match="graph must be symmetric"):
            v.check_adjacency(make(np.triu(A).astype(float)), "graph")
        with pytest.raises(ValueError, match="must be a square matrix"):
            v.check_adjacency(make(np.ones((2, 3))))
        with pytest.raises(ValueError, match="non-negative weights"):
            v.check_adjacency(make(-A.astype(float)))
        with pytest.raises(ValueError, match="NaN or infinite"):
            v.check_adjacency(make(np.where(A > 0, np.nan, 0.0)))
        with pytest.raises(ValueError, match="overflows float64"):
            v.check_adjacency(make(np.full((3, 3), 1e308)))
    with pytest.raises(ValueError, match="must be real"):
        v.check_adjacency(sp.csr_array(A.astype(complex)))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.integers(0, 2**32 - 1), st.floats(0.0, 1.0), st.integers(1, 40))
def test_banded_sparse_symmetry_check_equals_the_dense_one(n, seed, density, band):
    rng = np.random.default_rng(seed)
    M = np.where(rng.random((n, n)) < density, rng.integers(1, 4, (n, n)), 0).astype(float)
    if rng.random() < 0.5:
        M = M + M.T  # symmetric half of the time
    expected = float(np.abs(M - M.T).max())
    assert v._sparse_asymmetry(sp.csr_array(M), band=band) == expected
    assert v._sparse_asymmetry(sp.csr_array(M)) == expected


def test_check_laplacian():
    for name in v.LAPLACIANS:
        assert v.check_laplacian(name) == name
    assert v.check_laplacian("regularized", tau=0.5) == "regularized"
    with pytest.raises(ValueError, match="laplacian must be one of"):
        v.check_laplacian("normalised")
    with pytest.raises(ValueError, match="tau applies only to laplacian='regularized'"):
        v.check_laplacian("normalized", tau=1.0)
    with pytest.raises(ValueError, match="observed applies only to laplacian='centered'"):
        v.check_laplacian("normalized", observed=np.ones((2, 2)))


def test_check_observed():
    A = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]], dtype=float)
    O = np.array([[0, 2, 1], [2, 0, 0], [1, 0, 0]], dtype=float)
    np.testing.assert_array_equal(v.check_observed(O, A), (O > 0).astype(float))
    mask = v.check_observed(sp.csr_array(O), A)
    assert sp.issparse(mask) and set(mask.data.tolist()) == {1.0}
    with pytest.raises(ValueError, match="edges on pairs that observed marks as unobserved"):
        v.check_observed(np.zeros((3, 3)), A)
    with pytest.raises(ValueError, match=r"observed must have the shape of adjacency \(3, 3\)"):
        v.check_observed(np.ones((2, 2)), A)


def test_check_labels():
    assert v.check_labels(["a", "b"]).tolist() == ["a", "b"]
    assert v.check_labels([0, 1, 1], n=3).shape == (3,)
    with pytest.raises(ValueError, match="z must be a 1-D array"):
        v.check_labels([[0, 1]], "z")
    with pytest.raises(ValueError, match="labels must not be empty"):
        v.check_labels([])
    with pytest.raises(ValueError, match="labels must have length 4, got 3"):
        v.check_labels([0, 1, 2], n=4)
    with pytest.raises(ValueError, match="labels contains NaN"):
        v.check_labels([0.0, np.nan])


def test_check_texts():
    assert v.check_texts(t for t in ("a", "b")) == ["a", "b"]  # any iterable, returned as a list
    assert v.check_texts(np.array(["x", "y"])) == ["x", "y"]
    assert v.check_texts([], allow_empty=True) == []
    with pytest.raises(ValueError, match="answers must be a sequence of strings, got a single string"):
        v.check_texts("abc", "answers")
    with pytest.raises(ValueError, match="texts must not be empty"):
        v.check_texts([])
    with pytest.raises(ValueError, match="texts must all be strings; item 2 is NoneType"):
        v.check_texts(["a", "b", None])


def test_check_string():
    assert v.check_string("", "text") == ""
    with pytest.raises(InvalidParameterError, match="text must be a string, got list"):
        v.check_string(["a"], "text")


def test_check_pairs():
    assert v.check_pairs([], 3).shape == (0, 2)
    out = v.check_pairs(np.array([[0, 2]], dtype=np.int32), 3)
    assert out.dtype == np.int64 and out.tolist() == [[0, 2]]
    with pytest.raises(ValueError, match=r"pairs must be an \(m, 2\) integer array, got shape \(3,\)"):
        v.check_pairs([0, 1, 2], 3)
    with pytest.raises(ValueError, match="pairs must hold integer indices, got dtype float64"):
        v.check_pairs([[0.0, 1.0]], 3)
    with pytest.raises(ValueError, match=r"pairs must index texts 0..2, found indices 0..3"):
        v.check_pairs([[0, 3]], 3)
    with pytest.raises(ValueError, match="found indices -1..1"):
        v.check_pairs([[-1, 1]], 3)


def test_split_verdicts():
    values, judged = v.split_verdicts([True, False, np.nan], 3)
    assert values[:2].tolist() == [1.0, 0.0] and judged.tolist() == [True, True, False]
    masked = np.ma.masked_array([True, False], mask=[False, True])
    values, judged = v.split_verdicts(masked, 2)
    assert values.dtype == float and judged.tolist() == [True, False]
    with pytest.raises(ValueError, match=r"one entry per pair \(2\), got shape \(3,\)"):
        v.split_verdicts([1, 0, 1], 2)


def test_float_dtype():
    assert v.float_dtype(np.zeros(2, dtype=np.float32)) is np.float32
    assert v.float_dtype(np.zeros(2)) is float and v.float_dtype([1.0]) is float


def test_check_option_indices():
    assert v.check_option_indices(np.array([2, 0]), "y", 2, 3).dtype == np.int64
    cases = [
        ([[0, 1]], "y must be a 1-D array of option indices"),
        ([0], r"y must have one label per row of probabilities \(2\), got 1"),
        ([True, False], "y must hold integer option indices 0..2, got dtype bool"),
        (["a", "b"], "got dtype <U1"),
        ([0.5, 1.0], "y must hold integer option indices 0..2"),
        ([0.0, np.nan], "y must hold integer option indices 0..2"),
        ([0, 3], "found 3 at position 1"),
        ([-1, 0], "found -1 at position 0"),
    ]
    for y, match in cases:
        with pytest.raises(ValueError, match=match):
            v.check_option_indices(y, "y", 2, 3)


def test_check_beta_params():
    assert v.check_beta_params(np.float64(0.5), 3) == (0.5, 3.0)
    with pytest.raises(ValueError, match=r"a must lie in \(0.0, inf\]"):
        v.check_beta_params(0, 1)
    with pytest.raises(ValueError, match="b must be finite"):
        v.check_beta_params(1, np.inf)


def test_every_public_name_exists():
    assert all(callable(getattr(v, name)) or name == "LAPLACIANS" for name in v.__all__)


# --------------------------------------------------------------------------- masks, label codes, verdicts
def test_check_unmasked():
    x = [1.0, 2.0]
    assert v.check_unmasked(x, "x") is x  # anything else passes as it is
    plain = v.check_unmasked(np.ma.MaskedArray([1.0, 2.0], mask=False), "x")
    assert type(plain) is np.ndarray and plain.tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match=r"^score is a masked array with 2 masked entries \(of 3\); this function "
                                         r"does not read a mask"):
        v.check_unmasked(np.ma.MaskedArray([1.0, 2.0, 3.0], mask=[1, 0, 1]), "score")


def test_drop_masked_keeps_the_rows_no_array_masks():
    a = np.ma.MaskedArray([1.0, 2.0, 3.0, 4.0], mask=[0, 1, 0, 0])
    b = [True, False, True, None]
    c = np.ma.MaskedArray([[1, 2], [3, 4], [5, 6], [7, 8]], mask=[[0, 0], [0, 0], [0, 0], [0, 1]])
    ka, kb, kc = v.drop_masked([a, b, c], ["a", "b", "c"])
    assert ka.tolist() == [1.0, 3.0] and kb == [True, True] and kc.tolist() == [[1, 2], [5, 6]]
    assert type(ka) is np.ndarray and type(kc) is np.ndarray
    same = v.drop_masked([[1, 2], np.arange(2)], ["a", "b"])  # nothing masked: the arrays as given
    assert same[0] == [1, 2] and same[1].tolist() == [0, 1]
    with pytest.raises(ValueError, match=r"a and b must have the same length to leave out the rows a masks"):
        v.drop_masked([a, [1, 2]], ["a", "b"])
    with pytest.raises(ValueError, match=r"x: every entry is masked"):
        v.drop_masked([np.ma.masked_all(2)], ["x"])
    with pytest.raises(ValueError, match=r"a and b: every row is masked in one of them"):
        v.drop_masked([np.ma.MaskedArray([1, 2], mask=[1, 0]), np.ma.MaskedArray([1, 2], mask=[0, 1])], ["a", "b"])


def test_check_label_codes():
    codes, uniques = v.check_label_codes(["b", "a", "b", "a\x00"])
    assert codes.tolist() == [2, 0, 2, 1] and uniques == ["a", "a\x00", "b"]  # sorted, as np.unique sorts
    codes, uniques = v.check_label_codes(np.array([3, 1, 3]))
    assert codes.dtype == np.int64 and codes.tolist() == [1, 0, 1] and uniques == [1, 3]
    assert v.check_label_codes([1, 2.0, 1.0])[0].tolist() == [0, 1, 0]  # numbers are one kind
    assert v.check_label_codes([frozenset("a"), frozenset("b")], "g")[0].tolist() in ([0, 1], [1, 0])
    assert v.check_label_codes(["x", "y"], n=2)[1] == ["x", "y"]
    cases = [
        ([1, "1"], r"^labels must hold labels of one kind, got int \(1 at position 0\) and str \('1' at position 1\)"),
        ([True, 2], r"labels must hold labels of one kind, got bool \(True at position 0\) and int"),
        (["a", None], r"^labels holds None at position 1: every item needs a label"),
        ([1.0, np.nan], r"^labels contains NaN \(at position 1\)"),
        ([0.0, np.nan], r"labels contains NaN"),
        ([[1], [2]], r"^labels must be a 1-D array, got shape \(2, 1\)"),
        ([], r"^labels must not be empty"),
        ("abc", r"^labels must be a sequence of labels, got a single string"),
        ([{"a": 1}], r"^labels must hold hashable values; item 0 is dict"),
        ([np.ma.masked, 1], r"^labels holds a masked element at position 0"),
    ]
    for labels, match in cases:
        with pytest.raises(ValueError, match=match):
            v.check_label_codes(labels)
    with pytest.raises(ValueError, match=r"^groups must have length 3, got 2"):
        v.check_label_codes([0, 1], "groups", n=3)
    with pytest.raises(ValueError, match=r"groups is a masked array"):
        v.check_label_codes(np.ma.MaskedArray([0, 1], mask=[0, 1]), "groups")


def test_check_verdicts_names_the_source():
    assert v.check_verdicts([True, False], 2, source="J.pairs").tolist() == [True, False]
    masked = np.ma.MaskedArray([True, False], mask=[0, 1])
    assert v.check_verdicts(masked, 2, source="J.pairs") is masked
    assert np.isnan(v.check_verdicts([1.0, np.nan], 2, source="J.pairs")[1])
    cases = [
        ((b for b in [True]), 1, r"^J\.pairs returned a generator; expected one boolean verdict per pair \(1\)"),
        (["TRUE", "FALSE"], 2, r"^J\.pairs returned strings \('TRUE', 'FALSE'\); expected one boolean verdict"),
        ([True], 2, r"^J\.pairs returned 1 verdict for 2 pairs; expected one boolean verdict per pair \(2\)"),
        ([[True], [False]], 2, r"^J\.pairs returned an array of shape \(2, 1\)"),
        ([0.5, 3], 2, r"^J\.pairs returned the value 3\.0 at position 1; expected one boolean verdict"),
        (None, 1, r"^J\.pairs returned None"),
        ({"a": 1}, 1, r"^J\.pairs returned a dict"),
    ]
    for got, m, match in cases:
        with pytest.raises(ValueError, match=match):
            v.check_verdicts(got, m, source="J.pairs")


def test_a_masked_adjacency_is_refused_not_read_as_false():
    from semvar._validation import check_adjacency
    from semvar.select_k import choose_k
    from semvar.spectral import spectral_clusters

    A = np.kron(np.eye(2), np.ones((3, 3))) - np.eye(6)
    masked = np.ma.array(A, mask=np.zeros_like(A, dtype=bool))
    assert np.array_equal(check_adjacency(masked), A)  # nothing masked: its data
    masked[0, 1] = masked[1, 0] = np.ma.masked
    for call in (lambda: check_adjacency(masked), lambda: choose_k(masked, "auto"),
                 lambda: spectral_clusters(masked, 2)):
        with pytest.raises(ValueError, match="masked array with 2 masked entries: a masked pair is an unjudged one"):
            call()
