"""Input validation shared by every public function of :mod:`semvar`.

Each helper checks one kind of argument and raises :class:`ValueError` with a
message that names the argument, shows the offending value and says what is
allowed.  Public functions call these at their edge and then work on clean
numpy arrays; private functions (``_name``) take checked input and do not check
again, so internal callers skip validation by calling the private function.

:class:`InvalidParameterError` is the one exception type of the checks whose
argument can be wrong in kind as well as in value (a flag that is not a bool,
an option outside its set, a judge without a ``pairs`` method).  It subclasses
both :class:`ValueError` and :class:`TypeError`, as scikit-learn's does, so a
caller may catch either.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import Any, TypeVar

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike

_T = TypeVar("_T")

#: what ``random_state`` accepts everywhere: None, a seed, a SeedSequence or a Generator
RandomStateLike = int | np.integer | np.random.SeedSequence | np.random.Generator | None

__all__ = [
    "InvalidParameterError",
    "check_bool",
    "check_option",
    "check_judge",
    "check_random_state",
    "check_array",
    "check_adjacency",
    "check_laplacian",
    "check_observed",
    "LAPLACIANS",
    "check_labels",
    "check_probability",
    "check_int",
    "check_real",
    "check_texts",
    "check_string",
    "check_pairs",
    "split_verdicts",
    "show",
    "float_dtype",
    "check_option_indices",
    "check_beta_params",
    "check_unmasked",
    "drop_masked",
    "check_label_codes",
    "check_verdicts",
]


def show(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class InvalidParameterError(ValueError, TypeError):
    """An argument of the wrong kind or outside its allowed set."""


def check_bool(value: object, name: str) -> bool:
    """Check that ``value`` is ``True`` or ``False`` (numpy booleans included).

    >>> check_bool(True, "progress")
    True
    >>> check_bool(1, "progress")
    Traceback (most recent call last):
    ...
    semvar._validation.InvalidParameterError: progress must be True or False, got 1
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise InvalidParameterError(f"{name} must be True or False, got {show(value)}")


def check_option(value: object, name: str, options: Iterable[str]) -> str:
    """Check that ``value`` is one of the strings in ``options``.

    >>> check_option("ncv", "method", ("ncv", "ecv"))
    'ncv'
    >>> check_option("NCV", "method", ("ncv", "ecv"))
    Traceback (most recent call last):
    ...
    semvar._validation.InvalidParameterError: method must be one of ('ncv', 'ecv'), got 'NCV'
    """
    options = tuple(options)
    if isinstance(value, str) and value in options:
        return value
    raise InvalidParameterError(f"{name} must be one of {options}, got {show(value)}")


def check_judge(judge: object, name: str = "judge") -> object:
    """Check that ``judge`` has a callable ``pairs(texts, pairs)`` method (see :mod:`semvar.judges`)."""
    if not callable(getattr(judge, "pairs", None)):
        raise InvalidParameterError(
            f"{name} must have a pairs(texts, pairs) method (see semvar.judges), got {type(judge).__name__}"
        )
    return judge


def check_random_state(random_state: RandomStateLike) -> np.random.Generator:
    """Turn ``None``, an int or a :class:`numpy.random.Generator` into a Generator.

    >>> check_random_state(0).integers(10) == check_random_state(0).integers(10)
    np.True_
    """
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, (numbers.Integral, np.integer)) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be a non-negative int, got {random_state}")
        return np.random.default_rng(int(random_state))
    if isinstance(random_state, np.random.SeedSequence):
        return np.random.default_rng(random_state)
    raise ValueError(
        "random_state must be None, a non-negative int or a numpy.random.Generator, "
        f"got {show(random_state)} of type {type(random_state).__name__}"
    )


def check_int(value: object, name: str, *, low: int | None = None, high: int | None = None) -> int:
    """Check that ``value`` is an integer in ``[low, high]`` (either end optional)."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name} must be an integer, got {show(value)}")
    value = int(value)
    if not -(2**63) <= value < 2**63:
        raise ValueError(f"{name} must be an integer that fits in 64 bits, got {show(value)}")
    if low is not None and value < low:
        raise ValueError(f"{name} must be >= {low}, got {value}")
    if high is not None and value > high:
        raise ValueError(f"{name} must be <= {high}, got {value}")
    return value


def check_real(
    value: object, name: str, *, low: float | None = None, high: float | None = None,
    low_open: bool = False, high_open: bool = False,
) -> float:
    """Check that ``value`` is a finite real number in the given interval."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise ValueError(f"{name} must be a real number, got {show(value)}")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    lo_bad = low is not None and (value <= low if low_open else value < low)
    hi_bad = high is not None and (value >= high if high_open else value > high)
    if lo_bad or hi_bad:
        left = "(" if low_open else "["
        right = ")" if high_open else "]"
        lo = "-inf" if low is None else low
        hi = "inf" if high is None else high
        raise ValueError(f"{name} must lie in {left}{lo}, {hi}{right}, got {value}")
    return value


def check_probability(value: object, name: str, *, low_open: bool = False, high_open: bool = False) -> float:
    """Check that ``value`` is a probability in [0, 1] (optionally open at either end)."""
    return check_real(value, name, low=0.0, high=1.0, low_open=low_open, high_open=high_open)


def check_array(
    x: ArrayLike,
    name: str,
    *,
    ndim: int | None = None,
    dtype: type | np.dtype = float,
    finite: bool = True,
    min_rows: int = 0,
    nonnegative: bool = False,
) -> np.ndarray:
    """Convert ``x`` to a numpy array and check its shape and values."""
    try:
        raw = np.asarray(x)
        if raw.dtype.kind == "c":
            raise ValueError(f"{name} must be real; got complex values (take .real or abs() first if that is meant)")
        if np.dtype(dtype).kind in "iu" and raw.dtype.kind == "f" and raw.size:
            ok = np.isfinite(raw)
            if not ok.all() or np.any(raw != np.round(raw)):
                bad = raw[~ok | (raw != np.round(raw))].ravel()[0]
                raise ValueError(f"{name} must hold integers, got {float(bad)!r}")
        arr = np.asarray(raw, dtype=dtype)
    except ValueError as exc:
        if str(exc).startswith(name + " must"):
            raise
        raise ValueError(f"{name} must be convertible to a numeric array: {exc}") from None
    except TypeError as exc:
        raise ValueError(f"{name} must be convertible to a numeric array: {exc}") from None
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array, got an array of shape {arr.shape}")
    if arr.ndim >= 1 and arr.shape[0] < min_rows:
        raise ValueError(f"{name} must have at least {min_rows} rows, got {arr.shape[0]}")
    if finite and np.issubdtype(arr.dtype, np.floating) and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    if nonnegative and arr.size and np.min(arr) < 0:
        raise ValueError(f"{name} must be non-negative, found the value {np.min(arr)}")
    return arr


SYMMETRY_BAND = 1 << 22  # stored entries compared at a time by the sparse symmetry check


def _sparse_asymmetry(mat, band: int | None = None) -> float:
    """Largest ``|A - A.T|`` of a square CSR matrix, compared one band of rows at a time.

    Rows ``r0:r1`` of ``A`` are compared with columns ``r0:r1`` of ``A``,
    transposed.  A band holds about ``band`` stored entries (default: the
    larger of ``SYMMETRY_BAND`` and an eighth of them all), so the check needs
    a fixed share of the matrix's memory rather than a whole transposed copy
    and a difference matrix; it reads the matrix once per band.
    """
    mat.sum_duplicates()  # canonical: sorted indices, no duplicates (in place, cheap if already so)
    n = mat.shape[0]
    if band is None:
        band = max(SYMMETRY_BAND, -(-mat.nnz // 8))
    indptr, indices, data = mat.indptr, mat.indices, mat.data
    worst = 0.0
    r0 = 0
    while r0 < n:
        r1 = min(max(int(np.searchsorted(indptr, indptr[r0] + band, side="right")) - 1, r0 + 1), n)
        lo, hi = int(indptr[r0]), int(indptr[r1])
        mirror = (mat.T if r0 == 0 and r1 == n else mat[:, r0:r1].T).tocsr()  # (A[:, r0:r1])^T
        mirror.sum_duplicates()
        if (
            mirror.nnz == hi - lo
            and np.array_equal(mirror.indptr, indptr[r0 : r1 + 1] - lo)
            and np.array_equal(mirror.indices, indices[lo:hi])
        ):
            if hi > lo:
                d = data[lo:hi] - mirror.data
                np.abs(d, out=d)
                worst = max(worst, float(d.max()))
        else:  # the structures differ: subtract the two bands
            rows = sp.csr_array((data[lo:hi], indices[lo:hi], indptr[r0 : r1 + 1] - lo), shape=(r1 - r0, n))
            diff = rows - mirror
            if diff.nnz:
                worst = max(worst, float(np.abs(diff.data).max()))
        r0 = r1
    return worst


def check_adjacency(adjacency: ArrayLike, name: str = "adjacency", *, atol: float = 1e-10) -> np.ndarray | sp.csr_array:
    """Check a weighted undirected graph given as a dense array or a scipy sparse matrix.

    Returns a float ``scipy.sparse.csr_array`` when the input was sparse and a
    float ndarray otherwise.  The matrix must be square, symmetric, finite and
    non-negative.  A numpy masked array with a masked entry is refused: a
    masked pair is an unjudged one, which the ``observed`` mask says.
    """
    if np.ma.isMaskedArray(adjacency):
        k = _masked_count(adjacency)
        if k:
            raise ValueError(
                f"{name} is a masked array with {k} masked {'entry' if k == 1 else 'entries'}: a masked pair is an "
                f"unjudged one, never a FALSE; pass {name}.filled(0) and observed=~{name}.mask (the mask of judged "
                "pairs), or give the masked array to semvar.pipeline.graph_entropy, which reads it so"
            )
        adjacency = np.ma.getdata(adjacency)
    if sp.issparse(adjacency):
        sparse: Any = adjacency  # scipy ships no type information, so issparse cannot narrow the type
        if sparse.dtype.kind == "c":
            raise ValueError(f"{name} must be real; got complex weights")
        if sparse.dtype.kind not in "biuf":
            raise ValueError(f"{name} must hold numbers, got dtype {sparse.dtype}")
        mat = sp.csr_array(sparse, dtype=float)
        if mat.ndim != 2 or mat.shape[0] != mat.shape[1]:
            raise ValueError(f"{name} must be a square matrix, got shape {mat.shape}")
        data = mat.data
        if data.size and not np.all(np.isfinite(data)):
            raise ValueError(f"{name} contains NaN or infinite weights")
        if data.size and data.min() < 0:
            raise ValueError(f"{name} must have non-negative weights, found {data.min()}")
        worst = _sparse_asymmetry(mat)
        if worst > atol:
            raise ValueError(f"{name} must be symmetric (an undirected graph); largest |A - A.T| is {worst:.3g}")
        _check_degrees(mat, name)
        return mat
    arr = check_array(adjacency, name, ndim=2)
    if arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {arr.shape}")
    if arr.size and arr.min() < 0:
        raise ValueError(f"{name} must have non-negative weights, found {arr.min()}")
    if arr.size and np.abs(arr - arr.T).max() > atol:
        raise ValueError(
            f"{name} must be symmetric (an undirected graph); largest |A - A.T| is {np.abs(arr - arr.T).max():.3g}"
        )
    _check_degrees(arr, name)
    return arr


def _check_degrees(mat, name: str) -> None:
    """Refuse weights so large that a degree (row sum) overflows to infinity."""
    if not (mat.nnz if sp.issparse(mat) else mat.size):
        return
    with np.errstate(over="ignore"):
        deg = np.asarray(mat.sum(axis=1)).ravel()
    if not np.all(np.isfinite(deg)):
        raise ValueError(
            f"{name} has weights so large that a node's degree (row sum) overflows float64 (largest weight "
            f"{float(mat.max()):.3g}); divide {name} by its largest weight first"
        )


LAPLACIANS = ("normalized", "unnormalized", "regularized", "centered")


def check_laplacian(laplacian: str, *, tau: float | None = None, observed: object = None) -> str:
    """Check the name of a spectral matrix and that ``tau`` / ``observed`` go with it."""
    if laplacian not in LAPLACIANS:
        raise ValueError(f"laplacian must be one of {LAPLACIANS}, got {show(laplacian)}")
    if tau is not None and laplacian != "regularized":
        raise ValueError(f"tau applies only to laplacian='regularized', got laplacian={laplacian!r}")
    if observed is not None and laplacian != "centered":
        raise ValueError(f"observed applies only to laplacian='centered', got laplacian={laplacian!r}")
    return laplacian


def check_observed(observed: ArrayLike | None, adjacency: np.ndarray | sp.sparray) -> np.ndarray | sp.csr_array | None:
    """Check an observed-pair mask against a checked ``adjacency``; return it as a 0/1 float matrix.

    The mask must pass :func:`check_adjacency`, have the adjacency's shape and
    cover every edge (an edge on an unobserved pair is a contradiction).  Any
    positive entry counts as observed.  Sparse input stays sparse.
    """
    # the ignore: callers test for None before this call; a None that gets here is refused by name
    O: Any = check_adjacency(observed, "observed")  # type: ignore[arg-type]
    if O.shape != adjacency.shape:
        raise ValueError(f"observed must have the shape of adjacency {adjacency.shape}, got {O.shape}")
    if sp.issparse(O):
        O = O.copy()
        O.data = (O.data > 0).astype(float)
        O.eliminate_zeros()
    else:
        O = (O > 0).astype(float)
    if sp.issparse(adjacency) or sp.issparse(O):
        inside = float(sp.csr_array(adjacency).multiply(sp.csr_array(O)).sum())
    else:
        inside = float((adjacency * O).sum())
    total = float(adjacency.sum())
    if total - inside > 1e-9 * max(1.0, total):
        raise ValueError("adjacency has edges on pairs that observed marks as unobserved")
    return O


def _check_label_shape(arr: np.ndarray, name: str, n: int | None) -> None:
    """Refuse labels that are not a non-empty 1-D array (of length ``n`` when given)."""
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} must have length {n}, got {arr.shape[0]}")


def check_labels(labels: ArrayLike, name: str = "labels", *, n: int | None = None) -> np.ndarray:
    """Check a 1-D array of cluster labels (any hashable values) and return it as an ndarray."""
    arr = np.asarray(labels)
    _check_label_shape(arr, name, n)
    if np.issubdtype(arr.dtype, np.floating) and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def check_texts(texts: Iterable[str], name: str = "texts", *, allow_empty: bool = False) -> list[str]:
    """Check a sequence of strings (not a single string) and return it as a list.

    It must not be empty unless ``allow_empty`` is true.

    >>> check_texts(("a", "b"))
    ['a', 'b']
    >>> check_texts(["a", 3])
    Traceback (most recent call last):
    ...
    ValueError: texts must all be strings; item 1 is int
    """
    if isinstance(texts, str):
        raise ValueError(f"{name} must be a sequence of strings, got a single string")
    texts = list(texts)
    if not texts and not allow_empty:
        raise ValueError(f"{name} must not be empty")
    bad = [i for i, t in enumerate(texts) if not isinstance(t, str)]
    if bad:
        raise ValueError(f"{name} must all be strings; item {bad[0]} is {type(texts[bad[0]]).__name__}")
    return texts


def check_string(value: object, name: str) -> str:
    """Check that ``value`` is a string (one text, not a sequence of them).

    >>> check_string("Paris", "text")
    'Paris'
    >>> check_string(3, "text")
    Traceback (most recent call last):
    ...
    semvar._validation.InvalidParameterError: text must be a string, got int
    """
    if isinstance(value, str):
        return value
    raise InvalidParameterError(f"{name} must be a string, got {type(value).__name__}")


def check_pairs(pairs: ArrayLike, n: int) -> np.ndarray:
    arr = np.asarray(pairs)
    if arr.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"pairs must be an (m, 2) integer array, got shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"pairs must hold integer indices, got dtype {arr.dtype}")
    if arr.min() < 0 or arr.max() >= n:
        raise ValueError(f"pairs must index texts 0..{n - 1}, found indices {arr.min()}..{arr.max()}")
    return arr.astype(np.int64)


def split_verdicts(verdicts: ArrayLike, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Verdicts as floats and a mask of the judged ones.

    A masked entry of a :class:`numpy.ma.MaskedArray`, or a NaN, is unjudged.
    """
    if np.ma.isMaskedArray(verdicts):
        judged = ~np.ma.getmaskarray(verdicts)
        v = np.ma.getdata(verdicts).astype(float)
    else:
        v = np.asarray(verdicts, dtype=float)
        judged = ~np.isnan(v)
    if v.ndim != 1 or v.shape[0] != m:
        raise ValueError(f"verdicts must be 1-D with one entry per pair ({m}), got shape {v.shape}")
    return v, judged


def float_dtype(x: object) -> type:
    """``numpy.float32`` for a float32 array, else ``float``: float32 input keeps its precision.

    Used where the arithmetic of a reference implementation on float32 data is float32.
    """
    return np.float32 if getattr(x, "dtype", None) == np.float32 else float


def check_option_indices(y: ArrayLike, name: str, n: int, n_options: int) -> np.ndarray:
    """Option indices ``0..n_options-1``, one per row: a 1-D integer array of length ``n``.

    Integer-valued floats are accepted; booleans, NaN and out-of-range indices are not.

    >>> check_option_indices([0, 2.0, 1], "y", 3, 3)
    array([0, 2, 1])
    """
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of option indices, got shape {arr.shape}")
    if arr.shape[0] != n:
        raise ValueError(f"{name} must have one label per row of probabilities ({n}), got {arr.shape[0]}")
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise ValueError(f"{name} must hold integer option indices 0..{n_options - 1}, got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.floating):
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            raise ValueError(f"{name} must hold integer option indices 0..{n_options - 1}")
    arr = arr.astype(np.int64)
    bad = (arr < 0) | (arr >= n_options)
    if bad.any():
        raise ValueError(
            f"{name} must hold option indices in 0..{n_options - 1}; found {int(arr[bad][0])} at position {int(np.argmax(bad))}"
        )
    return arr


def check_beta_params(a: object, b: object) -> tuple[float, float]:
    """Positive, finite parameters ``(a, b)`` of a Beta law.

    >>> check_beta_params(2, 5)
    (2.0, 5.0)
    """
    a = check_real(a, "a", low=0.0, low_open=True)
    b = check_real(b, "b", low=0.0, low_open=True)
    return a, b


# --------------------------------------------------------------------------- numpy masked arrays
def _masked_count(x: object) -> int:
    """Number of masked entries of ``x`` (0 for anything but a :class:`numpy.ma.MaskedArray`)."""
    return int(np.ma.getmaskarray(x).sum()) if np.ma.isMaskedArray(x) else 0


def check_unmasked(x: _T, name: str) -> _T | np.ndarray:
    """Refuse a numpy masked array with a masked entry; return its data when nothing is masked.

    ``np.asarray`` drops a mask without a word, so a function that does not
    read masks calls this first: a masked entry is then an error that names
    the argument, not a value silently used.  Anything that is not a masked
    array is returned as it is.

    >>> check_unmasked(np.ma.MaskedArray([1.0, 2.0], mask=False), "score")
    array([1., 2.])
    >>> check_unmasked(np.ma.MaskedArray([1.0, 2.0], mask=[0, 1]), "score")
    Traceback (most recent call last):
    ...
    ValueError: score is a masked array with 1 masked entry (of 2); this function does not read a mask: pass score.compressed() (with the same entries left out of any paired argument) or score.filled(value)
    """
    if not np.ma.isMaskedArray(x):
        return x
    k = _masked_count(x)
    if k:
        leave = (f"{name}.compressed() (with the same entries left out of any paired argument)" if np.ndim(x) <= 1
                 else f"the rows of {name} without a masked entry")
        raise ValueError(
            f"{name} is a masked array with {k} masked {'entry' if k == 1 else 'entries'} (of {np.size(x)}); this "
            f"function does not read a mask: pass {leave} or {name}.filled(value)"
        )
    return np.ma.getdata(x)


def drop_masked(arrays: list, names: list[str]) -> list:
    """Leave out of every array the rows that any of them masks: the complete cases of paired arrays.

    A row of an array with more than one axis is masked when any of its
    entries is.  Masked arrays come back as plain ndarrays; other arrays are
    indexed as they are (a list stays a list, so no value is converted).
    When nothing is masked the arrays come back unchanged (a masked array
    without a masked entry as its data).

    Parameters
    ----------
    arrays : list of array-like
        Paired arrays, one row per item (the same length where any is masked).
    names : list of str
        Their argument names, for the messages.

    Returns
    -------
    list
        The arrays without the masked rows.

    Raises
    ------
    ValueError
        If a masked array is paired with one of another length, or no row is left.

    Examples
    --------
    >>> a = np.ma.MaskedArray([0.1, 0.9, 0.4], mask=[0, 1, 0])
    >>> drop_masked([a, [0, 1, 1]], ["score", "positive"])
    [array([0.1, 0.4]), [0, 1]]
    """
    if not any(_masked_count(a) for a in arrays):
        return [np.ma.getdata(a) if np.ma.isMaskedArray(a) else a for a in arrays]
    lengths = {_length(a) for a in arrays}
    if len(lengths) != 1:
        masked = [nm for a, nm in zip(arrays, names) if _masked_count(a)]
        raise ValueError(
            f"{' and '.join(names)} must have the same length to leave out the rows {' and '.join(masked)} "
            f"{'masks' if len(masked) == 1 else 'mask'}, got lengths {sorted(lengths)}"
        )
    n = lengths.pop()
    keep = np.ones(n, dtype=bool)
    for a, nm in zip(arrays, names):
        if _masked_count(a):
            rows = np.ma.getmaskarray(a).reshape(n, -1).any(axis=1)
            if rows.all():
                raise ValueError(f"{nm}: every entry is masked, so nothing is left to compute with")
            keep &= ~rows
    if not keep.any():
        raise ValueError(f"{' and '.join(names)}: every row is masked in one of them, so nothing is left to compute with")
    out: list = []
    for a in arrays:
        if isinstance(a, np.ndarray):
            out.append(np.ma.getdata(a)[keep])
        else:
            out.append([item for item, k in zip(a, keep) if k])
    return out


def _length(a: object) -> int:
    """Rows of an array-like (0 for a scalar), without converting it."""
    if isinstance(a, np.ndarray):
        return a.shape[0] if a.ndim else 0
    return len(a) if hasattr(a, "__len__") else 0


# --------------------------------------------------------------------------- labels compared as values
def _label_kind(x: object) -> str:
    """The kind of one label: bool, number, str, bytes, or the name of its type."""
    if isinstance(x, (bool, np.bool_)):
        return "bool"
    if isinstance(x, (numbers.Number, np.number)):
        return "number"
    if isinstance(x, (str, bytes)):
        return type(x).__name__ if not isinstance(x, np.generic) else ("str" if isinstance(x, str) else "bytes")
    return type(x).__name__


def _kind_name(x: object) -> str:
    kind = _label_kind(x)
    return type(x).__name__ if kind == "number" else kind


def check_label_codes(labels: ArrayLike, name: str = "labels", *, n: int | None = None) -> tuple[np.ndarray, list]:
    """Labels as integer codes: compared as the values given, all of one kind, none missing.

    Each distinct label gets a code ``0..K-1`` in the order ``np.unique`` sorts
    them, so codes (and what is drawn per label) do not change for labels
    numpy reads correctly.  A list is never passed through numpy's
    fixed-width string dtype, which makes ``1`` and ``"1"`` one label and
    drops trailing NULs (``"a"`` and ``"a\\x00"``).

    Parameters
    ----------
    labels : array-like of shape (n,)
        Hashable values of one kind: numbers (ints and floats are one kind),
        strings, bytes, booleans, or other hashable objects of one type.
    name : str, default="labels"
        The argument's name, for the messages.
    n : int or None, default=None
        Required length.

    Returns
    -------
    codes : ndarray of int64, shape (n,)
    uniques : list
        The distinct labels, ``uniques[codes[i]] == labels[i]``.

    Raises
    ------
    ValueError
        For a masked array with a masked entry, a single string, an array
        that is not 1-D or is empty or of the wrong length, None, NaN or a
        masked element among the labels, labels of more than one kind, or
        unhashable labels.

    Examples
    --------
    >>> codes, uniques = check_label_codes(["b", "a", "b", "a\\x00"])
    >>> codes.tolist(), uniques
    ([2, 0, 2, 1], ['a', 'a\\x00', 'b'])
    >>> check_label_codes([1, "1"])
    Traceback (most recent call last):
    ...
    ValueError: labels must hold labels of one kind, got int (1 at position 0) and str ('1' at position 1); labels are compared as values of one kind (so that, say, 1 and '1' are neither merged nor split silently): convert them to one kind first
    """
    labels = check_unmasked(labels, name)
    if isinstance(labels, (str, bytes)):
        raise ValueError(f"{name} must be a sequence of labels, got a single string")
    if isinstance(labels, np.ndarray) and labels.dtype.kind in "biufcUSMm":
        arr = labels  # one dtype: numpy compares its entries as values of one kind
    else:
        try:
            arr = np.asarray(labels, dtype=object)  # every value as given: no conversion through numpy's str dtype
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} must be a 1-D sequence of labels: {exc}") from None
    _check_label_shape(arr, name, n)
    if arr.dtype != object:
        if arr.dtype.kind in "fc" and not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} contains NaN or infinite values (at position {int(np.argmin(np.isfinite(arr)))})")
        uniques, codes = np.unique(arr, return_inverse=True)
        return codes.reshape(-1).astype(np.int64), uniques.tolist()
    return _object_codes(arr.tolist(), name)


def _object_codes(items: list, name: str) -> tuple[np.ndarray, list]:
    """Codes of a list of Python labels (see :func:`check_label_codes`), by a dict: one kind, none missing."""
    first: dict[str, int] = {}
    for i, x in enumerate(items):
        if x is None:
            raise ValueError(f"{name} holds None at position {i}: every item needs a label")
        if x is np.ma.masked:
            raise ValueError(f"{name} holds a masked element at position {i}: every item needs a label")
        if isinstance(x, (numbers.Real, np.floating)) and not isinstance(x, (bool, np.bool_)) and x != x:
            raise ValueError(f"{name} contains NaN (at position {i}): every item needs a label")
        first.setdefault(_label_kind(x), i)
    if len(first) > 1:
        (_, i), (_, j) = sorted(first.items(), key=lambda kv: kv[1])[:2]
        a, b = items[i], items[j]
        raise ValueError(
            f"{name} must hold labels of one kind, got {_kind_name(a)} ({show(a)} at position {i}) and "
            f"{_kind_name(b)} ({show(b)} at position {j}); labels are compared as values of one kind (so that, "
            "say, 1 and '1' are neither merged nor split silently): convert them to one kind first"
        )
    if set(first) <= {"number", "bool"}:
        arr = np.asarray(items)
        if arr.dtype.kind in "biufc":  # plain numbers: numpy's order and codes, quickly
            values, codes = np.unique(arr, return_inverse=True)
            return codes.reshape(-1).astype(np.int64), values.tolist()
    index: dict = {}
    try:
        raw = [index.setdefault(x, len(index)) for x in items]
    except TypeError:
        bad = next(i for i, x in enumerate(items) if not _hashable(x))
        raise ValueError(f"{name} must hold hashable values; item {bad} is {type(items[bad]).__name__}") from None
    uniques = list(index)
    try:
        order = sorted(range(len(uniques)), key=lambda u: uniques[u])
    except TypeError:  # labels without an order (of one type): numbered by first appearance
        order = list(range(len(uniques)))
    rank = np.empty(len(uniques), dtype=np.int64)
    rank[order] = np.arange(len(uniques))
    return rank[np.asarray(raw, dtype=np.int64)], [uniques[u] for u in order]


def _hashable(x: object) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True


# --------------------------------------------------------------------------- what a judge returns
def check_verdicts(verdicts: object, m: int, *, source: str) -> np.ndarray:
    """Check what a judge returned for ``m`` pairs before any of it is read; errors name ``source``.

    Accepted: a 1-D array-like (or :class:`numpy.ma.MaskedArray`) of ``m``
    booleans, or numbers in [0, 1]; NaN or a masked entry is a pair left
    unjudged (as :func:`split_verdicts` reads them).

    Parameters
    ----------
    verdicts : object
        What ``judge.pairs(texts, pairs)`` returned.
    m : int
        Number of pairs asked.
    source : str
        Who returned it, e.g. ``"LLMJudge.pairs"``.

    Returns
    -------
    ndarray or numpy.ma.MaskedArray
        ``verdicts`` as an array (a masked array as it is).

    Raises
    ------
    ValueError
        For a generator, None, a mapping, strings, an array of another shape
        or length, or a value outside [0, 1].

    Examples
    --------
    >>> check_verdicts([True, False], 2, source="MyJudge.pairs").tolist()
    [True, False]
    >>> check_verdicts(["TRUE"], 1, source="MyJudge.pairs")
    Traceback (most recent call last):
    ...
    ValueError: MyJudge.pairs returned strings ('TRUE',); expected one boolean verdict per pair (1): True/False, 0/1, or NaN or a masked entry for a pair left unjudged
    """
    expected = f"expected one boolean verdict per pair ({m}): True/False, 0/1, or NaN or a masked entry for a pair left unjudged"
    if verdicts is None or isinstance(verdicts, (str, bytes, dict, set, frozenset)) or not (
        isinstance(verdicts, np.ndarray) or hasattr(verdicts, "__len__")
    ):
        what = "None" if verdicts is None else f"a {type(verdicts).__name__}"  # "a generator", "a map", "a dict", ...
        raise ValueError(f"{source} returned {what}; {expected}")
    try:
        arr = verdicts if np.ma.isMaskedArray(verdicts) else np.asarray(verdicts)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{source} returned {type(verdicts).__name__} that is not an array ({exc}); {expected}") from None
    if arr.dtype.kind in "USO" and any(isinstance(x, (str, bytes)) for x in np.ma.getdata(arr).ravel()[:m + 1]):
        shown = tuple(np.ma.getdata(arr).ravel()[:2].tolist())
        raise ValueError(f"{source} returned strings {shown!r}; {expected}")
    if arr.ndim != 1:
        raise ValueError(f"{source} returned an array of shape {arr.shape}; {expected}")
    if arr.shape[0] != m:
        count = arr.shape[0]
        raise ValueError(f"{source} returned {count} verdict{'' if count == 1 else 's'} for {m} pairs; {expected}")
    try:
        v = np.asarray(np.ma.getdata(arr), dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{source} returned values of type {arr.dtype}; {expected}") from None
    judged = ~np.ma.getmaskarray(arr) & ~np.isnan(v)
    bad = judged & ((v < 0) | (v > 1))
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{source} returned the value {float(v[i])!r} at position {i}; {expected}")
    return arr
