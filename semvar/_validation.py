"""Input validation shared by every public function of :mod:`semvar`.

Each helper checks one kind of argument and raises :class:`ValueError` with a
message that names the argument, shows the offending value and says what is
allowed.  Public functions call these at their edge and then work on clean
numpy arrays.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

__all__ = [
    "check_random_state",
    "check_array",
    "check_adjacency",
    "check_labels",
    "check_probability",
    "check_int",
    "check_real",
    "check_texts",
]


def _show(value, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_random_state(random_state) -> np.random.Generator:
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
        f"got {_show(random_state)} of type {type(random_state).__name__}"
    )


def check_int(value, name: str, *, low=None, high=None) -> int:
    """Check that ``value`` is an integer in ``[low, high]`` (either end optional)."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name} must be an integer, got {_show(value)}")
    value = int(value)
    if low is not None and value < low:
        raise ValueError(f"{name} must be >= {low}, got {value}")
    if high is not None and value > high:
        raise ValueError(f"{name} must be <= {high}, got {value}")
    return value


def check_real(value, name: str, *, low=None, high=None, low_open=False, high_open=False) -> float:
    """Check that ``value`` is a finite real number in the given interval."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise ValueError(f"{name} must be a real number, got {_show(value)}")
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


def check_probability(value, name: str, *, open_low=False, open_high=False) -> float:
    """Check that ``value`` is a probability in [0, 1] (optionally open at either end)."""
    return check_real(value, name, low=0.0, high=1.0, low_open=open_low, high_open=open_high)


def check_array(
    x,
    name: str,
    *,
    ndim: int | None = None,
    dtype=float,
    finite: bool = True,
    min_rows: int = 0,
    nonnegative: bool = False,
) -> np.ndarray:
    """Convert ``x`` to a numpy array and check its shape and values."""
    try:
        arr = np.asarray(x, dtype=dtype)
    except (TypeError, ValueError) as exc:
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


def _sparse_asymmetry(mat) -> float:
    """Largest ``|A - A.T|`` of a CSR matrix, with one transposed copy and no difference matrix."""
    mat.sum_duplicates()  # canonical: sorted indices, no duplicates (in place, cheap if already so)
    tr = mat.T.tocsr()
    tr.sum_duplicates()
    if np.array_equal(mat.indptr, tr.indptr) and np.array_equal(mat.indices, tr.indices):
        return float(np.abs(mat.data - tr.data).max()) if mat.nnz else 0.0
    diff = mat - tr  # structures differ: fall back to the general (more memory-hungry) route
    return float(np.abs(diff.data).max()) if diff.nnz else 0.0


def check_adjacency(adjacency, name: str = "adjacency", *, atol: float = 1e-10):
    """Check a weighted undirected graph given as a dense array or a scipy sparse matrix.

    Returns a float ``scipy.sparse.csr_array`` when the input was sparse and a
    float ndarray otherwise.  The matrix must be square, symmetric, finite and
    non-negative.
    """
    if sp.issparse(adjacency):
        mat = sp.csr_array(adjacency, dtype=float)
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
    return arr


def check_labels(labels, name: str = "labels", *, n: int | None = None) -> np.ndarray:
    """Check a 1-D array of cluster labels (any hashable values) and return it as an ndarray."""
    arr = np.asarray(labels)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} must have length {n}, got {arr.shape[0]}")
    if np.issubdtype(arr.dtype, np.floating) and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def check_texts(texts, name: str = "texts") -> list[str]:
    """Check a non-empty sequence of strings (not a single string) and return it as a list."""
    if isinstance(texts, str):
        raise ValueError(f"{name} must be a sequence of strings, got a single string")
    texts = list(texts)
    if not texts:
        raise ValueError(f"{name} must not be empty")
    bad = [i for i, t in enumerate(texts) if not isinstance(t, str)]
    if bad:
        raise ValueError(f"{name} must all be strings; item {bad[0]} is {type(texts[bad[0]]).__name__}")
    return texts
