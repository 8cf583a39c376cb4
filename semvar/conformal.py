"""Split conformal prediction sets for multiple-choice answers, and set size.

Ye et al. (2024) rank language models by the mean size of their conformal
prediction sets.  This module builds those sets exactly as the paper's
released code builds them, together with the textbook variant, the summary
statistics (set size, coverage, accuracy), the synthetic six-option model of
the set-size review, and a cross-check against MAPIE.

The construction
----------------
Given calibration probabilities ``p_cal`` (n, K) with true options ``y_cal``
and a nonconformity score ``s(x, y)``, the threshold is an order statistic of
the n calibration scores:

* ``quantile="textbook"``: the ``k``-th smallest score with
  ``k = ceil((n + 1)(1 - alpha))`` (Vovk et al. 2005; Angelopoulos & Bates
  2023), which gives ``P(Y in C(X)) >= 1 - alpha`` under exchangeability;
* ``quantile="paper"``: ``np.quantile(scores, k / n, method="higher")``, the
  released code's rule.  Its virtual index is ``(k/n)(n - 1) = k - k/n``,
  which for ``0 < k < n`` is not an integer and rounds up to ``k``
  (0-based), i.e. the ``(k + 1)``-th smallest score: one rank above the
  textbook threshold (for ``k = n`` both are the largest score).

Scores and sets:

* LAC (Sadinle, Lei & Wasserman 2019): score ``1 - p_y``; the test set keeps
  every option with ``p >= 1 - qhat``.
* APS (Romano, Sesia & Candes 2020, without randomisation): options sorted by
  decreasing probability; the score is the cumulative probability down to and
  including the true option; at test time options are added in that order
  while the cumulative sum stays ``<= qhat``.

In both, an empty set is replaced by the single top option (``np.argmax``).
"""

from __future__ import annotations

import math

import numpy as np

from ._validation import check_array, check_int, check_probability, check_random_state, check_real

__all__ = [
    "softmax",
    "quantile_rank",
    "min_calibration_size",
    "conformal_threshold",
    "lac_scores",
    "aps_scores",
    "lac_sets",
    "aps_sets",
    "set_size",
    "coverage",
    "accuracy",
    "inclusion_probabilities",
    "synthetic_logits",
    "same_sets_models",
    "temperature_sweep",
    "sharp_soft_pair",
    "mapie_sets",
    "ye_split",
    "ye_protocol",
    "YE_DROPPED_IDS",
]

#: tolerance on ``|sum(p) - 1|`` for a row of probabilities (float32 softmax output passes)
SUM_TOL = 1e-5
#: item ids the released code drops before splitting (used as in-context demonstrations)
YE_DROPPED_IDS = (1, 3, 5, 7, 9)
_QUANTILES = ("paper", "textbook")


# --------------------------------------------------------------------------- validation


def _float_dtype(x):
    # float32 input stays float32, as in the released code, whose arithmetic on the float32 logits is float32
    return np.float32 if getattr(x, "dtype", None) == np.float32 else float


def _check_probs(p, name: str, *, n_options: int | None = None) -> np.ndarray:
    arr = check_array(p, name, ndim=2, nonnegative=True, dtype=_float_dtype(p))
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


def _check_y(y, name: str, n: int, n_options: int) -> np.ndarray:
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


def _check_quantile(quantile) -> str:
    if quantile not in _QUANTILES:
        raise ValueError(f"quantile must be one of {_QUANTILES}, got {quantile!r}")
    return quantile


def _check_sets(sets, name: str = "sets") -> np.ndarray:
    arr = np.asarray(sets)
    if arr.ndim != 2 or arr.dtype != bool:
        raise ValueError(f"{name} must be a 2-D boolean membership array (n_test, n_options), got dtype {arr.dtype} and shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} must have at least one row")
    return arr


# --------------------------------------------------------------------------- probabilities


def softmax(logits, temperature: float = 1.0) -> np.ndarray:
    """Row-wise softmax of ``logits / temperature`` (float32 logits in float32, anything else in float64).

    Parameters
    ----------
    logits : array-like of shape (n, K)
    temperature : float > 0

    Returns
    -------
    ndarray of shape (n, K), rows summing to 1.

    Raises
    ------
    ValueError
        For a non-2-D or non-finite array, or a temperature that is not positive.

    Notes
    -----
    ``exp(z - max z) / sum exp(z - max z)``, the form of the released code.
    Dividing by ``T`` is monotone, so ``argmax`` does not depend on ``T``.
    The released logits are float32 and the released code computes in their
    precision; so does this function, because the rounding of a cumulative
    sum near 1 (``0.99999994`` or ``1.0000001``) decides whether an APS set
    holds its last option when the threshold is itself such a sum.

    Examples
    --------
    >>> softmax([[0.0, np.log(3.0)]]).round(3)
    array([[0.25, 0.75]])
    >>> softmax([[0.0, np.log(3.0)]], temperature=2.0).round(3)
    array([[0.366, 0.634]])
    """
    dtype = _float_dtype(logits)
    z = check_array(logits, "logits", ndim=2, dtype=dtype)
    t = check_real(temperature, "temperature", low=0.0, low_open=True)
    z = z / dtype(t) if t != 1.0 else z
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


# --------------------------------------------------------------------------- the threshold


def _k(n: int, alpha: float) -> int:
    # the released code's float expression, kept verbatim so both rules share k
    return int(np.ceil((n + 1) * (1 - alpha)))


def min_calibration_size(alpha: float) -> int:
    """Smallest n with ``ceil((n+1)(1-alpha)) <= n``: fewer calibration points give no finite threshold.

    >>> min_calibration_size(0.1), min_calibration_size(0.05)
    (9, 19)
    """
    alpha = check_probability(alpha, "alpha", open_low=True, open_high=True)
    n = max(1, int(math.floor((1 - alpha) / alpha)) - 2)
    while _k(n, alpha) > n:
        n += 1
    return n


def quantile_rank(n: int, alpha: float, *, quantile: str = "paper") -> int:
    """The 1-based rank, among n sorted calibration scores, of the threshold.

    Parameters
    ----------
    n : int
        Calibration size.
    alpha : float in (0, 1)
    quantile : {"paper", "textbook"}

    Returns
    -------
    int
        ``k = ceil((n+1)(1-alpha))`` for ``"textbook"``; the rank that
        ``np.quantile(., k/n, method="higher")`` returns for ``"paper"``
        (``k + 1`` when ``k < n``).

    Raises
    ------
    ValueError
        For ``alpha`` outside (0, 1), ``n < 1``, or ``k > n`` (see
        :func:`conformal_threshold`).

    Examples
    --------
    The paper's split, 9,995 items halved: n = 4,997 calibration items.

    >>> quantile_rank(4997, 0.1, quantile="textbook"), quantile_rank(4997, 0.1)
    (4499, 4500)
    """
    n = check_int(n, "n", low=1)
    alpha = check_probability(alpha, "alpha", open_low=True, open_high=True)
    _check_quantile(quantile)
    k = _k(n, alpha)
    _check_size(n, alpha, k)
    if quantile == "textbook":
        return k
    level = np.ceil((n + 1) * (1 - alpha)) / n
    # what numpy does for method="higher": index ceil(level * (n - 1)), 0-based
    scores = np.arange(n, dtype=float)
    return int(np.quantile(scores, level, method="higher")) + 1


def _check_size(n: int, alpha: float, k: int) -> None:
    if k > n:
        raise ValueError(
            f"the calibration set (n={n}) is too small for alpha={alpha}: ceil((n+1)(1-alpha)) = {k} > n, so the "
            f"released code's quantile level {k}/{n} = {k / n:.4g} exceeds 1 (np.quantile would fail) and the "
            f"textbook threshold is +infinity (every set is all options). Use at least "
            f"{min_calibration_size(alpha)} calibration items or a larger alpha."
        )


def conformal_threshold(scores, alpha: float, *, quantile: str = "paper") -> float:
    """The split-conformal threshold ``qhat`` from calibration scores.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Nonconformity scores of the calibration items (larger = less conforming).
    alpha : float in (0, 1)
        Target miscoverage.
    quantile : {"paper", "textbook"}
        ``"paper"``: ``np.quantile(scores, ceil((n+1)(1-alpha))/n, method="higher")``
        as in the released code of Ye et al. (2024); ``"textbook"``: the
        ``ceil((n+1)(1-alpha))``-th smallest score.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        Non-finite scores, ``alpha`` outside (0, 1), an unknown ``quantile``,
        or a calibration set too small for ``alpha``.

    Notes
    -----
    With exchangeable calibration and test scores, ``P(s_test <= qhat) >=
    k/(n+1) >= 1 - alpha`` for the k-th smallest (Vovk et al. 2005); the
    paper's rank ``k+1`` gives ``>= (k+1)/(n+1)``, slightly more conservative.

    Examples
    --------
    >>> s = np.arange(1, 21) / 20          # 0.05, 0.10, ..., 1.00
    >>> conformal_threshold(s, 0.2, quantile="textbook"), conformal_threshold(s, 0.2)
    (np.float64(0.85), np.float64(0.9))
    """
    s = check_array(scores, "scores", ndim=1, dtype=_float_dtype(scores))
    if s.size == 0:
        raise ValueError("scores must not be empty")
    alpha = check_probability(alpha, "alpha", open_low=True, open_high=True)
    _check_quantile(quantile)
    n = s.size
    k = _k(n, alpha)
    _check_size(n, alpha, k)
    if quantile == "paper":
        q_level = np.ceil((n + 1) * (1 - alpha)) / n
        return np.quantile(s, q_level, method="higher")
    return np.sort(s)[k - 1]


# --------------------------------------------------------------------------- scores


def lac_scores(p, y) -> np.ndarray:
    """LAC nonconformity scores ``1 - p[i, y_i]``.

    >>> lac_scores([[0.5, 0.4, 0.1]], [1])
    array([0.6])
    """
    p = _check_probs(p, "p")
    y = _check_y(y, "y", p.shape[0], p.shape[1])
    return 1 - p[np.arange(p.shape[0]), y]


def _descending(p: np.ndarray):
    order = np.argsort(p, axis=1)[:, ::-1]  # descending, as argsort(...)[::-1] per row
    cums = np.take_along_axis(p, order, axis=1).cumsum(axis=1)
    return order, cums


def aps_scores(p, y) -> np.ndarray:
    """APS nonconformity scores: cumulative probability down to and including the true option.

    Options are sorted by decreasing probability (``argsort`` reversed, as in
    the released code); no randomisation.

    >>> aps_scores([[0.5, 0.4, 0.1], [0.5, 0.4, 0.1]], [0, 2]).round(3)
    array([0.5, 1. ])
    """
    p = _check_probs(p, "p")
    y = _check_y(y, "y", p.shape[0], p.shape[1])
    order, cums = _descending(p)
    pos = np.argsort(order, axis=1)  # position of each option in the descending order
    return cums[np.arange(p.shape[0]), pos[np.arange(p.shape[0]), y]]


# --------------------------------------------------------------------------- sets


def _prepare(p_cal, y_cal, p_test, alpha, quantile):
    p_cal = _check_probs(p_cal, "p_cal")
    y_cal = _check_y(y_cal, "y_cal", p_cal.shape[0], p_cal.shape[1])
    p_test = _check_probs(p_test, "p_test", n_options=p_cal.shape[1])
    alpha = check_probability(alpha, "alpha", open_low=True, open_high=True)
    _check_quantile(quantile)
    _check_size(p_cal.shape[0], alpha, _k(p_cal.shape[0], alpha))
    return p_cal, y_cal, p_test, alpha


def _fill_empty(sets: np.ndarray, p_test: np.ndarray) -> np.ndarray:
    empty = ~sets.any(axis=1)
    if empty.any():
        rows = np.flatnonzero(empty)
        sets[rows, np.argmax(p_test[rows], axis=1)] = True
    return sets


def lac_sets(p_cal, y_cal, p_test, alpha: float, *, quantile: str = "paper") -> np.ndarray:
    """LAC prediction sets, built as in the released code of Ye et al. (2024).

    Parameters
    ----------
    p_cal : array-like of shape (n_cal, K)
        Calibration probabilities (rows sum to 1).
    y_cal : array-like of shape (n_cal,)
        True options of the calibration items, integers in ``0..K-1``.
    p_test : array-like of shape (n_test, K)
        Test probabilities.
    alpha : float in (0, 1)
        Target miscoverage (the paper uses 0.1).
    quantile : {"paper", "textbook"}
        Threshold rule, see :func:`conformal_threshold`.

    Returns
    -------
    ndarray of bool, shape (n_test, K)
        ``sets[i, j]`` is True when option j is in the set of test item i.

    Raises
    ------
    ValueError
        Rows that are not probabilities (negative, NaN, not summing to 1),
        labels out of range, ``alpha`` outside (0, 1), an unknown
        ``quantile``, or a calibration set too small for ``alpha``.

    Notes
    -----
    Score ``1 - p_y``; ``qhat`` from :func:`conformal_threshold`; the set is
    ``{j : p_j >= 1 - qhat}`` (the comparison the released code makes), and an
    empty set becomes ``{argmax p}``.  Sadinle, Lei & Wasserman (2019).

    References
    ----------
    Ye et al. (2024), Benchmarking LLMs via Uncertainty Quantification, section 3.

    Examples
    --------
    >>> p_cal = np.array([[0.7, 0.2, 0.1]] * 9 + [[0.2, 0.7, 0.1]])
    >>> y_cal = np.zeros(10, dtype=int)
    >>> lac_sets(p_cal, y_cal, [[0.6, 0.3, 0.1]], 0.2, quantile="textbook")
    array([[ True, False, False]])
    >>> lac_sets(p_cal, y_cal, [[0.6, 0.3, 0.1]], 0.2)   # one rank higher: qhat = 0.8
    array([[ True,  True, False]])
    """
    p_cal, y_cal, p_test, alpha = _prepare(p_cal, y_cal, p_test, alpha, quantile)
    scores = 1 - p_cal[np.arange(p_cal.shape[0]), y_cal]
    qhat = conformal_threshold(scores, alpha, quantile=quantile)
    sets = p_test >= 1 - qhat
    return _fill_empty(sets, p_test)


def aps_sets(p_cal, y_cal, p_test, alpha: float, *, quantile: str = "paper") -> np.ndarray:
    """APS prediction sets, built as in the released code of Ye et al. (2024).

    Parameters and errors as in :func:`lac_sets`.

    Returns
    -------
    ndarray of bool, shape (n_test, K)

    Notes
    -----
    Score: with options sorted by decreasing probability, the cumulative sum
    down to and including the true option.  Test set: the top options in that
    order while the cumulative sum stays ``<= qhat``; an empty set becomes the
    top option.  Since cumulative sums only grow, the set is exactly
    ``{y : s(x, y) <= qhat}`` (plus the top option when that is empty), so the
    coverage guarantee holds.  Romano, Sesia & Candes (2020) instead keep the
    option that crosses the threshold, with randomisation; MAPIE follows them.

    Examples
    --------
    >>> p_cal = np.array([[0.5, 0.3, 0.2]] * 10)
    >>> y_cal = np.array([0] * 6 + [1] * 3 + [2])        # scores 0.5 x6, 0.8 x3, 1.0
    >>> aps_sets(p_cal, y_cal, [[0.45, 0.3, 0.25], [0.9, 0.06, 0.04]], 0.3, quantile="textbook")  # qhat = 0.8
    array([[ True,  True, False],
           [ True, False, False]])
    """
    p_cal, y_cal, p_test, alpha = _prepare(p_cal, y_cal, p_test, alpha, quantile)
    order, cums = _descending(p_cal)
    pos = np.argsort(order, axis=1)
    rows = np.arange(p_cal.shape[0])
    scores = cums[rows, pos[rows, y_cal]]
    qhat = conformal_threshold(scores, alpha, quantile=quantile)
    order_t, cums_t = _descending(p_test)
    keep_sorted = np.logical_and.accumulate(cums_t <= qhat, axis=1)  # the while loop: stop at the first excess
    sets = np.zeros(p_test.shape, dtype=bool)
    np.put_along_axis(sets, order_t, keep_sorted, axis=1)
    empty = ~keep_sorted[:, 0]
    sets[np.flatnonzero(empty), order_t[empty, 0]] = True
    return sets


# --------------------------------------------------------------------------- summaries


def set_size(sets) -> float:
    """Mean set size ``SS = mean_i |C(X_i)|`` (Ye et al. 2024, eq. 6).

    >>> set_size(np.array([[True, True, False], [True, False, False]]))
    1.5
    """
    return float(_check_sets(sets).sum(axis=1).mean())


def coverage(sets, y) -> float:
    """Share of test items whose true option is in their set.

    >>> coverage(np.array([[True, True, False], [True, False, False]]), [1, 2])
    0.5
    """
    s = _check_sets(sets)
    y = _check_y(y, "y", s.shape[0], s.shape[1])
    return float(s[np.arange(s.shape[0]), y].mean())


def accuracy(scores, y) -> float:
    """Share of items whose top-scoring option (``np.argmax``, first on ties) is the true one.

    ``scores`` may be logits or probabilities: the argmax is the same.

    >>> accuracy([[2.0, 1.0], [0.0, 3.0], [1.0, 1.0]], [0, 0, 0])
    0.6666666666666666
    """
    z = check_array(scores, "scores", ndim=2)
    y = _check_y(y, "y", z.shape[0], z.shape[1])
    return float((np.argmax(z, axis=1) == y).mean())


def inclusion_probabilities(sets) -> np.ndarray:
    """Empirical ``P(y in C(X))`` for each option y: the column means of ``sets``.

    Their sum is the mean set size, ``E|C(X)| = sum_y P(y in C(X))`` (linearity
    of expectation applied to ``|C| = sum_y 1{y in C}``).

    >>> s = np.array([[True, True, False], [True, False, False]])
    >>> inclusion_probabilities(s), float(inclusion_probabilities(s).sum()) == set_size(s)
    (array([1. , 0.5, 0. ]), True)
    """
    return _check_sets(sets).mean(axis=0)


# --------------------------------------------------------------------------- the review's synthetic models


def synthetic_logits(n: int, *, acc0: float, margin: float, sigma: float, n_options: int = 6,
                     construction: str = "additive", random_state=None):
    """The set-size review's synthetic multiple-choice model.

    For each question a correct option ``y`` is drawn uniformly; the model
    *chooses* ``y`` with probability ``acc0`` and otherwise a uniformly random
    wrong option.  Logits:

    * ``construction="additive"``: ``z_j = sigma * eps_j + margin * 1{j = chosen}``,
      ``eps_j`` iid standard normal (panel A);
    * ``construction="beat_best"``: ``z_j = sigma * eps_j`` for the other options
      and ``z_chosen = max_{j != chosen} z_j + margin``, so the chosen option beats
      the best other by exactly ``margin`` and is always the argmax (panel B):
      accuracy is then ``acc0`` up to sampling noise, whatever ``margin`` and
      ``sigma``.

    Under ``"additive"`` the chosen option is the argmax only with high
    probability (when ``margin >> sigma``), so accuracy is close to, not
    equal to, ``acc0``.

    Parameters
    ----------
    n : int >= 1
    acc0 : float in [0, 1]
    margin : float >= 0
    sigma : float >= 0
    n_options : int >= 2
    construction : {"additive", "beat_best"}
    random_state : None, int or numpy Generator

    Returns
    -------
    logits : ndarray (n, n_options)
    y : ndarray (n,) of int, the correct options

    Raises
    ------
    ValueError
        For parameters outside the ranges above.

    Examples
    --------
    >>> z, y = synthetic_logits(5000, acc0=0.9, margin=3.0, sigma=1.0, construction="beat_best", random_state=0)
    >>> round(accuracy(z, y), 2)
    0.9
    """
    n = check_int(n, "n", low=1)
    acc0 = check_probability(acc0, "acc0")
    margin = check_real(margin, "margin", low=0.0)
    sigma = check_real(sigma, "sigma", low=0.0)
    k = check_int(n_options, "n_options", low=2)
    if construction not in ("additive", "beat_best"):
        raise ValueError(f"construction must be 'additive' or 'beat_best', got {construction!r}")
    rng = check_random_state(random_state)
    y = rng.integers(k, size=n)
    right = rng.random(n) < acc0
    chosen = np.where(right, y, (y + rng.integers(1, k, size=n)) % k)
    z = sigma * rng.standard_normal((n, k))
    rows = np.arange(n)
    if construction == "additive":
        z[rows, chosen] += margin
    else:
        others = z.copy()
        others[rows, chosen] = -np.inf
        z[rows, chosen] = others.max(axis=1) + margin
    return z, y


def same_sets_models(n: int, *, p_medium: float = 0.85, n_options: int = 6, random_state=None):
    """Panel C of the review: two models whose LAC sets coincide while accuracy is 90% vs 5%.

    A share ``p_medium`` of questions is *medium*: both models put
    probabilities 0.5, 0.4, 0.1 on three distinct options and 0 elsewhere;
    model 1 puts the 0.5 on the correct option and 0.4 on a wrong one, model 2
    the reverse (0.4 on the correct option, 0.5 on that same wrong one).  The
    other questions are *hard*: probabilities 0.4, 0.3, 0.3 with the correct
    option in a uniformly random one of the three slots, identical under both
    models.  The options used are drawn at random per question.

    Parameters
    ----------
    n : int >= 1
    p_medium : float in [0, 1]
    n_options : int >= 3
    random_state : None, int or numpy Generator

    Returns
    -------
    p1, p2 : ndarray (n, n_options)
        The two models' probabilities.
    y : ndarray (n,) of int
        Correct options.
    medium : ndarray (n,) of bool

    Examples
    --------
    >>> p1, p2, y, medium = same_sets_models(20000, random_state=0)
    >>> round(accuracy(p1, y), 2), round(accuracy(p2, y), 2)
    (0.9, 0.05)
    """
    n = check_int(n, "n", low=1)
    p_medium = check_probability(p_medium, "p_medium")
    k = check_int(n_options, "n_options", low=3)
    rng = check_random_state(random_state)
    slots = np.argsort(rng.random((n, k)), axis=1)[:, :3]  # three distinct options per question
    medium = rng.random(n) < p_medium
    rows = np.arange(n)
    p1 = np.zeros((n, k))
    p2 = np.zeros((n, k))
    # medium: slot 0 = correct option
    for p, (a, b) in ((p1, (0.5, 0.4)), (p2, (0.4, 0.5))):
        p[rows[medium], slots[medium, 0]] = a
        p[rows[medium], slots[medium, 1]] = b
        p[rows[medium], slots[medium, 2]] = 0.1
        p[rows[~medium], slots[~medium, 0]] = 0.4
        p[rows[~medium], slots[~medium, 1]] = 0.3
        p[rows[~medium], slots[~medium, 2]] = 0.3
    y = np.where(medium, slots[:, 0], slots[rows, rng.integers(3, size=n)])
    return p1, p2, y, medium


def _split_eval(p, y, n_cal, alpha, quantile):
    cal, test = slice(0, n_cal), slice(n_cal, None)
    lac = lac_sets(p[cal], y[cal], p[test], alpha, quantile=quantile)
    aps = aps_sets(p[cal], y[cal], p[test], alpha, quantile=quantile)
    return {
        "accuracy": accuracy(p[test], y[test]),
        "lac_ss": set_size(lac), "aps_ss": set_size(aps),
        "lac_cov": coverage(lac, y[test]), "aps_cov": coverage(aps, y[test]),
    }


def temperature_sweep(temperatures, *, acc0: float = 0.88, margin: float = 4.0, sigma: float = 1.0, alpha: float = 0.1,
                      n_cal: int = 2000, n_test: int = 6000, quantile: str = "paper", random_state=None) -> dict:
    """Panel A of the review: one draw of the additive synthetic model, softmax at each temperature.

    The same logits (same questions, same answers) are divided by each T; the
    first ``n_cal`` questions calibrate, the other ``n_test`` are evaluated.

    Returns
    -------
    dict of ndarrays, one entry per temperature: ``accuracy``, ``lac_ss``,
    ``aps_ss``, ``lac_cov``, ``aps_cov``; and ``temperature``.

    Examples
    --------
    >>> r = temperature_sweep([0.5, 2.0], n_cal=500, n_test=1000, random_state=0)
    >>> bool(r["accuracy"][0] == r["accuracy"][1]), bool(r["aps_ss"][0] > r["aps_ss"][1])
    (True, True)
    """
    ts = check_array(temperatures, "temperatures", ndim=1)
    if ts.size == 0 or ts.min() <= 0:
        raise ValueError(f"temperatures must be a non-empty list of positive numbers, got {ts}")
    n_cal = check_int(n_cal, "n_cal", low=1)
    n_test = check_int(n_test, "n_test", low=1)
    z, y = synthetic_logits(n_cal + n_test, acc0=acc0, margin=margin, sigma=sigma, random_state=random_state)
    rows = [_split_eval(softmax(z, t), y, n_cal, alpha, quantile) for t in ts]
    out = {k: np.array([r[k] for r in rows]) for k in rows[0]}
    out["temperature"] = ts
    return out


def sharp_soft_pair(*, acc0: float = 0.9, margin_sharp: float = 6.0, margin_soft: float = 1.0, sigma: float = 1.0,
                    alpha: float = 0.15, n_cal: int = 2000, n_test: int = 6000, quantile: str = "paper",
                    shared: bool = True, random_state=None) -> dict:
    """Panel B of the review: a sharp and a soft model with the same answers on every question.

    Both models are :func:`synthetic_logits` with ``construction="beat_best"``.
    With ``shared=True`` they come from the same random draw (same questions,
    same chosen options, same noise) and only the margin differs, so they give
    the same answer on every question and are wrong on the same questions.
    With ``shared=False`` each model has its own draw: the same accuracy in
    expectation, wrong on different questions.

    Returns
    -------
    dict
        ``sharp`` and ``soft``: the summaries (``accuracy``, ``lac_ss``,
        ``aps_ss``, ``lac_cov``, ``aps_cov``) of each model.

    Examples
    --------
    >>> r = sharp_soft_pair(random_state=0)
    >>> r["sharp"]["accuracy"] == r["soft"]["accuracy"], r["sharp"]["lac_ss"], r["soft"]["lac_ss"]
    (True, 1.0, 1.0)
    >>> bool(r["sharp"]["aps_ss"] > r["soft"]["aps_ss"])
    True
    """
    n_cal = check_int(n_cal, "n_cal", low=1)
    n_test = check_int(n_test, "n_test", low=1)
    rng = check_random_state(random_state)
    seed = rng.integers(2**63)
    out = {}
    for name, a in (("sharp", margin_sharp), ("soft", margin_soft)):
        draw = seed if shared else rng.integers(2**63)
        z, y = synthetic_logits(n_cal + n_test, acc0=acc0, margin=a, sigma=sigma, construction="beat_best", random_state=draw)
        out[name] = _split_eval(softmax(z), y, n_cal, alpha, quantile)
    return out


# --------------------------------------------------------------------------- MAPIE cross-check


class _FixedProbabilities:
    """A prefit 'classifier' whose features are its own predicted probabilities (for MAPIE)."""

    _estimator_type = "classifier"

    def __init__(self, n_options: int):
        self.n_options = n_options
        self.classes_ = np.arange(n_options)
        self.n_features_in_ = n_options

    def fit(self, X, y):  # pragma: no cover - never called (prefit)
        return self

    def predict_proba(self, X):
        return np.asarray(X, dtype=float)

    def predict(self, X):
        return np.argmax(np.asarray(X), axis=1)

    def get_params(self, deep=True):
        return {"n_options": self.n_options}

    def set_params(self, **params):
        for key, value in params.items():
            setattr(self, key, value)
        return self

    def __sklearn_is_fitted__(self):
        return True

    def __sklearn_tags__(self):
        from sklearn.utils import ClassifierTags, Tags, TargetTags

        return Tags(estimator_type="classifier", target_tags=TargetTags(required=True), classifier_tags=ClassifierTags())


def mapie_sets(p_cal, y_cal, p_test, alpha: float, *, score: str = "lac", include_last_label=True, random_state=0) -> np.ndarray:
    """The same inputs through MAPIE's :class:`SplitConformalClassifier` (prefit), for comparison.

    Parameters
    ----------
    p_cal, y_cal, p_test, alpha : as in :func:`lac_sets`
    score : {"lac", "aps"}
    include_last_label : bool or "randomized"
        MAPIE's APS option (ignored for LAC).
    random_state : int
        MAPIE's APS calibration scores are always randomised (``U * p_y`` is
        subtracted); this seeds that draw.

    Returns
    -------
    ndarray of bool, shape (n_test, K)

    Notes
    -----
    The differences from the released code, each checked in the tests:
    MAPIE's threshold is the textbook ``ceil((n+1)(1-alpha))``-th smallest
    score (``method="lower"``); LAC compares with a tolerance of 1e-8 and
    leaves empty sets empty; APS calibration scores are randomised, and with
    ``include_last_label=True`` the option whose cumulative sum first crosses
    the threshold is kept (the released code drops it).
    """
    from mapie.classification import SplitConformalClassifier

    p_cal, y_cal, p_test, alpha = _prepare(p_cal, y_cal, p_test, alpha, "textbook")
    if score not in ("lac", "aps"):
        raise ValueError(f"score must be 'lac' or 'aps', got {score!r}")
    clf = SplitConformalClassifier(
        estimator=_FixedProbabilities(p_cal.shape[1]), confidence_level=1 - alpha,
        conformity_score=score, prefit=True, random_state=random_state,
    )
    clf.conformalize(p_cal, y_cal)
    params = {"include_last_label": include_last_label} if score == "aps" else None
    _, sets = clf.predict_set(p_test, conformity_score_params=params)
    return np.asarray(sets[:, :, 0], dtype=bool)


# --------------------------------------------------------------------------- the paper's protocol


def ye_split(n_items: int = 10000, *, cal_ratio: float = 0.5, random_state: int = 42):
    """Calibration and test item ids of the released protocol.

    Drops ids 1, 3, 5, 7, 9 (the demonstrations), then
    ``train_test_split(ids, train_size=cal_ratio, random_state=42)``; the
    shuffle depends only on the number of items, so splitting ids splits
    logits and answer records identically.

    >>> cal, test = ye_split()
    >>> len(cal), len(test)
    (4997, 4998)
    """
    from sklearn.model_selection import train_test_split

    n_items = check_int(n_items, "n_items", low=12)
    ids = np.array([i for i in range(n_items) if i not in YE_DROPPED_IDS])
    cal, test = train_test_split(ids, train_size=cal_ratio, random_state=random_state)
    return np.asarray(cal), np.asarray(test)


def ye_protocol(logits, answers, *, alpha: float = 0.1, quantile: str = "paper") -> dict:
    """Accuracy, set size and coverage of one model on one task, as the released code computes them.

    Parameters
    ----------
    logits : dict ``prompt -> ndarray (n_items, K)`` or a single array
        Row i is item id i (the layout of :func:`semvar.data.load_ye_logits`).
    answers : array-like of shape (n_items,)
        Correct option index of item id i.
    alpha : float
    quantile : {"paper", "textbook"}

    Returns
    -------
    dict
        ``acc`` (percent), ``lac_ss``, ``aps_ss``, ``ss`` (their mean),
        ``lac_cov``, ``aps_cov``, ``cov`` (percent, mean of the two), each the
        mean over prompts, plus ``per_prompt`` with the same keys per prompt.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(200, 6)); y = z.argmax(axis=1)
    >>> ye_protocol({"base": z}, y)["acc"]
    100.0
    """
    if not isinstance(logits, dict):
        logits = {"": logits}
    per = {}
    for prompt, z in logits.items():
        z = check_array(z, f"logits[{prompt!r}]", ndim=2, dtype=_float_dtype(z))  # float32 stays float32
        y = _check_y(answers, "answers", z.shape[0], z.shape[1])
        cal, test = ye_split(z.shape[0])
        p = softmax(z)
        lac = lac_sets(p[cal], y[cal], p[test], alpha, quantile=quantile)
        aps = aps_sets(p[cal], y[cal], p[test], alpha, quantile=quantile)
        per[prompt] = {
            "acc": 100 * accuracy(z[test], y[test]),
            "lac_ss": set_size(lac), "aps_ss": set_size(aps),
            "lac_cov": 100 * coverage(lac, y[test]), "aps_cov": 100 * coverage(aps, y[test]),
        }
    keys = ["acc", "lac_ss", "aps_ss", "lac_cov", "aps_cov"]
    out = {k: float(np.mean([v[k] for v in per.values()])) for k in keys}
    out["ss"] = (out["lac_ss"] + out["aps_ss"]) / 2
    out["cov"] = (out["lac_cov"] + out["aps_cov"]) / 2
    out["per_prompt"] = per
    return out
