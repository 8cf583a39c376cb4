"""Argument checks shared by the modules of :mod:`semvar.conformal`."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_array, check_option, check_option_indices, check_unmasked, float_dtype

#: tolerance on ``|sum(p) - 1|`` for a row of probabilities (float32 softmax output passes)
SUM_TOL = 1e-5
_QUANTILES = ("paper", "textbook")


def _check_probs(p: ArrayLike, name: str, *, n_options: int | None = None) -> np.ndarray:
    p = check_unmasked(p, name)
    arr = check_array(p, name, ndim=2, nonnegative=True, dtype=float_dtype(p))
    if arr.shape[0] == 0:
        raise ValueError(f"{name} must have at least one row, got shape {arr.shape}")
    if arr.shape[1] < 2:
        raise ValueError(f"{name} must have at least 2 options (columns), got shape {arr.shape}")
    if n_options is not None and arr.shape[1] != n_options:
        raise ValueError(f"{name} must have {n_options} columns like p_cal, got shape {arr.shape}")
    dev = np.abs(arr.sum(axis=1) - 1.0)
    if dev.max() > SUM_TOL:
        i = int(np.argmax(dev))
        raise ValueError(
            f"{name} rows must be probabilities summing to 1 (within {SUM_TOL:g}); "
            f"row {i} sums to {arr[i].sum():.6g}. Pass softmax(logits), not logits."
        )
    return arr


def _check_quantile(quantile: object) -> str:
    return check_option(quantile, "quantile", _QUANTILES)


def _check_labels(y: ArrayLike, name: str, n: int, n_options: int) -> np.ndarray:
    """Option indices, one per row (a masked entry refused: an item without its answer has no score)."""
    return check_option_indices(check_unmasked(y, name), name, n, n_options)


def _check_sets(sets: ArrayLike, name: str = "sets") -> np.ndarray:
    arr = np.asarray(check_unmasked(sets, name))
    if arr.ndim != 2 or arr.dtype != bool:
        raise ValueError(
            f"{name} must be a 2-D boolean membership array (n_test, n_options), "
            f"got dtype {arr.dtype} and shape {arr.shape}"
        )
    if arr.shape[0] == 0:
        raise ValueError(f"{name} must have at least one row")
    return arr
