"""How well an uncertainty score predicts errors: AUROC with DeLong's interval, AUARC, bootstrap intervals.

A chapter that compares uncertainty measures asks the same two questions of
each score ``u`` (higher = more uncertain) over a set of questions whose
answers are known to be right or wrong:

- **AUROC** -- does ``u`` rank the wrong answers above the right ones?
  :func:`auroc` and :func:`auroc_ci` (with the interval of DeLong, DeLong &
  Clarke-Pearson 1988; :func:`delong_bootstrap_ratio` checks its standard
  error against a bootstrap's); :func:`paired_auroc_difference` compares two scores
  on the same questions by a paired bootstrap.
- **AUARC** -- if we answer only the questions we are most certain of, how
  accurate are we?  :func:`auarc` is the area under the accuracy-rejection
  curve (Nadeem, Zucker & Hanczar 2009), the summary Lin, Trivedi & Sun (2024)
  report beside AUROC.

:func:`rate_ci` gives a proportion with Wilson's (1927) or the exact
Clopper-Pearson interval, and :func:`bootstrap_ci` a percentile bootstrap
interval of any statistic of paired arrays.

A question with a masked entry (:class:`numpy.ma.MaskedArray`) in any of the
score and label arrays of the AUROC and AUARC functions is left out of all of
them; :func:`bootstrap_ci`, whose statistic is arbitrary, refuses masked arrays.
"""

from __future__ import annotations

from collections.abc import Callable, Sized

import numpy as np
from numpy.typing import ArrayLike

from . import graph
from ._validation import (
    RandomStateLike,
    check_int,
    check_label_codes,
    check_option,
    check_random_state,
    check_real,
    check_unmasked,
    drop_masked,
    show,
)

__all__ = [
    "auroc", "auroc_ci", "delong_bootstrap_ratio", "mann_whitney_auc", "rate_ci", "auarc", "paired_auroc_difference",
    "bootstrap_ci",
]


# --------------------------------------------------------------------------- checks
def _check_score(score, name: str) -> np.ndarray:
    try:
        s = np.asarray(score, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a 1-D array of real numbers: {exc}") from None
    if s.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got shape {s.shape}")
    if not np.all(np.isfinite(s)):
        raise ValueError(f"{name} must be finite, found {s[~np.isfinite(s)][0]}")
    return s


def _check_binary(y, name: str, n: int) -> np.ndarray:
    arr = np.asarray(y)
    if arr.shape != (n,):
        raise ValueError(f"{name} must be 1-D with one entry per score ({n}), got shape {arr.shape}")
    if arr.dtype == bool:
        return arr
    if arr.dtype.kind not in "iuf" or not np.all(np.isin(arr, (0, 1))):
        raise ValueError(f"{name} must be boolean or 0/1, got {show(y)}")
    return arr.astype(bool)


def _check_level(level) -> float:
    return check_real(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)


# --------------------------------------------------------------------------- AUROC
def auroc(score: ArrayLike, positive: ArrayLike) -> float:
    """Area under the ROC curve of ``score`` for predicting ``positive`` (ties count one half).

    Equals the probability that a random positive scores above a random
    negative (the Mann-Whitney statistic divided by ``m n``).

    Parameters
    ----------
    score : array-like of shape (n,)
        Higher means "more likely positive" (for an uncertainty: more likely wrong).
    positive : array-like of bool, shape (n,)
        A question masked in ``score`` or ``positive`` is left out.

    Returns
    -------
    float in [0, 1]

    Raises
    ------
    ValueError
        As :func:`auroc_ci`.

    Examples
    --------
    >>> auroc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    0.75
    """
    return auroc_ci(score, positive)[0]


def auroc_ci(score: ArrayLike, positive: ArrayLike, *, level: float = 0.95) -> tuple[float, float, float]:
    """AUROC with the DeLong et al. (1988) confidence interval.

    Parameters
    ----------
    score : array-like of shape (n,)
        Higher means "more likely positive".
    positive : array-like of bool, shape (n,)
        The event to predict (e.g. the plurality answer is wrong).  A question
        masked (:class:`numpy.ma.MaskedArray`) in ``score`` or ``positive`` is
        left out of both.
    level : float in (0, 1), default=0.95

    Returns
    -------
    (auc, low, high) : tuple of float
        ``auc`` is the Mann-Whitney estimate; the interval is
        ``auc +- z * se`` clipped to [0, 1], with the variance
        ``var(V10)/m + var(V01)/n`` of DeLong, DeLong & Clarke-Pearson (1988),
        where ``V10_i`` is the share of negatives below positive ``i`` and
        ``V01_j`` the share of positives above negative ``j`` (ties one half).

    Raises
    ------
    ValueError
        Lengths differ, a score is not finite, or one class is empty or has
        a single member (the variance needs two of each), also after the
        masked questions are left out.

    Notes
    -----
    The structural components come from mid-ranks: with ``R_i`` the rank of
    positive ``i`` among all scores and ``r_i`` its rank among the positives,
    ``R_i - r_i`` counts the negatives below it (ties one half), so
    ``V10_i = (R_i - r_i)/n``; symmetrically for the negatives.  The AUROC is
    the mean of ``V10``.

    References
    ----------
    DeLong, DeLong & Clarke-Pearson (1988), Biometrics 44(3), 837-845.

    Examples
    --------
    >>> auc, lo, hi = auroc_ci([1, 2, 3, 4, 5, 6], [0, 0, 1, 0, 1, 1])
    >>> round(auc, 4), lo < auc < hi
    (0.8889, True)
    """
    from scipy.stats import norm, rankdata

    x, z = _check_two_classes(score, positive)
    level = check_real(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)
    m, n = x.size, z.size
    tz = rankdata(np.concatenate([x, z]))
    v10 = (tz[:m] - rankdata(x)) / n
    v01 = 1.0 - (tz[m:] - rankdata(z)) / m
    auc = float(v10.mean())
    se = float(np.sqrt(v10.var(ddof=1) / m + v01.var(ddof=1) / n))
    half = norm.ppf(0.5 + level / 2) * se
    return auc, max(0.0, auc - half), min(1.0, auc + half)


def _check_two_classes(score, positive) -> tuple[np.ndarray, np.ndarray]:
    """The finite scores of the positives and of the negatives (masked questions left out), two of each at least."""
    score, positive = drop_masked([score, positive], ["score", "positive"])
    try:
        s = np.asarray(score, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"score must be a 1-D array of real numbers: {exc}") from None
    y = np.asarray(positive)
    if s.ndim != 1 or y.shape != s.shape:
        raise ValueError(f"score and positive must be 1-D of the same length, got shapes {s.shape} and {y.shape}")
    if not np.all(np.isfinite(s)):
        raise ValueError("score must be finite")
    if y.dtype != bool:
        if not np.all(np.isin(y, (0, 1))):
            raise ValueError("positive must be boolean or 0/1")
        y = y.astype(bool)
    x, z = s[y], s[~y]
    if x.size < 2 or z.size < 2:
        raise ValueError(f"positive must hold at least two of each class, got {x.size} positives and {z.size} negatives")
    return x, z


def delong_bootstrap_ratio(score: ArrayLike, positive: ArrayLike, *, n_boot: int = 400,
                           random_state: RandomStateLike = 0) -> float:
    """DeLong's standard error of the AUROC divided by a stratified bootstrap's: does DeLong's interval hold here?

    :func:`auroc_ci`'s interval rests on DeLong's variance, an asymptotic
    formula; with few questions, many ties or a score near a perfect
    ranking it can be too narrow.  A ratio near 1 says the bootstrap agrees;
    a ratio well below 1 says DeLong's interval is too narrow to decide a
    near-tie.

    Parameters
    ----------
    score : array-like of shape (n,)
        Higher means "more likely positive".
    positive : array-like of bool, shape (n,)
        The event to predict; a question masked in either array is left out
        of both (as in :func:`auroc_ci`).
    n_boot : int >= 2, default=400
        Bootstrap resamples.
    random_state : None, int or numpy.random.Generator, default=0
        Seeds the resampling.

    Returns
    -------
    float >= 0, or inf
        ``se_DeLong / se_bootstrap``, where ``se_DeLong`` is the standard
        error that :func:`auroc_ci`'s 95 % interval implies,
        ``(high - low) / (2 z)`` with ``z`` the normal 0.975 quantile (the
        interval as it decides, clipped to [0, 1] where it reaches an end:
        there the ratio falls below 1), and ``se_bootstrap`` the standard
        deviation (``ddof=1``) of the AUROC
        over ``n_boot`` resamples that draw the positives and the negatives
        separately with replacement (each resample keeps both class sizes).
        When no resample moves the AUROC (``se_bootstrap = 0``, e.g. a
        perfect ranking), 1.0 if DeLong's error is 0 too, else ``inf``.

    Raises
    ------
    ValueError
        As :func:`auroc_ci` for ``score`` and ``positive``; ``n_boot`` not an
        int >= 2; a bad ``random_state``.

    Notes
    -----
    :func:`auroc_ci` is looked up when the function runs, so a wrong
    interval there shows in the ratio.  Each resample draws ``m`` positives,
    then ``n`` negatives, from one generator, and its AUROC is the
    Mann-Whitney statistic.  Resampling
    within the classes is the bootstrap that matches DeLong's variance,
    which also treats the class sizes as fixed.

    References
    ----------
    DeLong, DeLong & Clarke-Pearson (1988), Biometrics 44(3), 837-845.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(300) < 0.4
    >>> s = rng.normal(size=300) + y  # a score that ranks positives a little higher
    >>> round(delong_bootstrap_ratio(s, y), 2)  # the two errors agree
    0.98
    >>> delong_bootstrap_ratio([1, 2, 3, 4], [0, 0, 1, 1])  # a perfect ranking: both errors are 0
    1.0
    """
    from scipy.stats import norm

    x, z = _check_two_classes(score, positive)
    n_boot = check_int(n_boot, "n_boot", low=2)
    rng = check_random_state(random_state)
    _, low, high = auroc_ci(score, positive)
    se_delong = (high - low) / (2 * norm.ppf(0.975))
    boot = [_mann_whitney(rng.choice(x, x.size), rng.choice(z, z.size)) for _ in range(n_boot)]
    se_boot = float(np.std(boot, ddof=1))
    if se_boot == 0:
        return 1.0 if se_delong == 0 else float("inf")
    return float(se_delong / se_boot)


def mann_whitney_auc(pos: ArrayLike, neg: ArrayLike) -> float:
    """P(a random ``pos`` score exceeds a random ``neg`` score), ties counting one half.

    The AUROC of two samples of scores (the Mann-Whitney statistic divided by
    ``m n``), for when the scores come as two groups rather than one score
    array and its labels (:func:`auroc`); it needs one member of each group,
    not two, since no interval is computed.

    Parameters
    ----------
    pos, neg : array-like of shape (m,) and (n,)
        Finite scores of the positives and of the negatives; neither empty.
        A masked entry (:class:`numpy.ma.MaskedArray`) is left out of its group.

    Returns
    -------
    float in [0, 1]

    Raises
    ------
    ValueError
        A score array that is not 1-D, not finite, or empty (or wholly masked).

    Examples
    --------
    >>> mann_whitney_auc([0.35, 0.8], [0.1, 0.4])
    0.75
    >>> mann_whitney_auc([1.0], [1.0])
    0.5
    """
    (pos,), (neg,) = drop_masked([pos], ["pos"]), drop_masked([neg], ["neg"])
    x, z = _check_score(pos, "pos"), _check_score(neg, "neg")
    if x.size == 0 or z.size == 0:
        raise ValueError(f"pos and neg must both be non-empty, got {x.size} and {z.size} scores")
    return _mann_whitney(x, z)


def _mann_whitney(pos: np.ndarray, neg: np.ndarray) -> float:
    from scipy.stats import rankdata

    r = rankdata(np.concatenate([pos, neg]))
    return float((r[: pos.size].sum() - pos.size * (pos.size + 1) / 2) / (pos.size * neg.size))


def _auc_prep(x: np.ndarray, z: np.ndarray):
    """For each positive score ``x_i``: where the negatives ``z`` sorted ascending stop being below / equal to it."""
    order = np.argsort(z, kind="stable")
    zs = z[order]
    return order, np.searchsorted(zs, x, side="left"), np.searchsorted(zs, x, side="right")


def _weighted_auc(prep, c: np.ndarray, d: np.ndarray) -> float:
    """Mann-Whitney AUROC with positive ``i`` counted ``c_i`` times and negative ``j`` ``d_j`` times (ties one half)."""
    order, lo, hi = prep
    cum = np.concatenate([[0], np.cumsum(d[order])])
    wins = cum[lo] + 0.5 * (cum[hi] - cum[lo])
    return float(c @ wins) / (float(c.sum()) * float(d.sum()))


# --------------------------------------------------------------------------- proportions
def rate_ci(k: int, n: int, *, method: str = "wilson", level: float = 0.95) -> tuple[float, float, float]:
    """A proportion ``k/n`` with its binomial confidence interval (``scipy.stats.binomtest``).

    Parameters
    ----------
    k, n : int
        Successes and trials, ``0 <= k <= n``, ``n >= 1``.
    method : {"wilson", "exact"}, default="wilson"
        Wilson's (1927) score interval or the Clopper-Pearson ("exact") interval.
    level : float in (0, 1), default=0.95

    Returns
    -------
    (rate, low, high)

    Raises
    ------
    ValueError
        For ``n < 1``, ``k`` outside ``[0, n]``, an unknown ``method`` or a
        ``level`` outside (0, 1).

    Examples
    --------
    >>> [round(v, 4) for v in rate_ci(8, 10)]
    [0.8, 0.4902, 0.9433]
    """
    from scipy.stats import binomtest

    n = check_int(n, "n", low=1)
    k = check_int(k, "k", low=0, high=n)
    check_option(method, "method", ("wilson", "exact"))
    level = check_real(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)
    ci = binomtest(k, n).proportion_ci(confidence_level=level, method=method)
    return k / n, float(ci.low), float(ci.high)


# --------------------------------------------------------------------------- AUARC
def auarc(uncertainty: ArrayLike, correct: ArrayLike) -> float:
    """Area under the accuracy-rejection curve: the mean accuracy of the ``j`` most certain answers over ``j``.

    Parameters
    ----------
    uncertainty : array-like of shape (n,), n >= 1
        Higher = more uncertain.
    correct : array-like of bool or 0/1, shape (n,)
        Whether each answer is right.  An answer masked in ``uncertainty`` or
        ``correct`` is left out of both.

    Returns
    -------
    float in [0, 1]
        :math:`\\frac1n \\sum_{j=1}^{n} \\mathrm{acc}_j`, with
        :math:`\\mathrm{acc}_j` the accuracy of the ``j`` answers of lowest
        uncertainty (those kept when the ``n - j`` most uncertain are
        rejected), averaged over the orders of tied uncertainties.

    Raises
    ------
    ValueError
        If ``uncertainty`` is not 1-D, finite and non-empty (after the masked
        answers are left out), or ``correct`` is not boolean / 0-1 of the
        same length.

    Notes
    -----
    Sort the answers by uncertainty, ascending, with a stable sort; keep the
    first ``j``.  Where several answers share one uncertainty, which of them
    are kept at a cut inside their group is arbitrary, so the result is the
    average over every order of the tied answers.  That average is exact and
    cheap: if a cut keeps ``r`` of a tie group of size ``g`` holding ``c``
    correct answers, a uniformly random order keeps ``r c / g`` of them in
    expectation, and the accuracy at each cut is linear in that count.  So
    each answer's correctness is replaced by the mean correctness of its tie
    group before the cumulative sums are taken.  With all uncertainties
    equal the AUARC is the accuracy; with a perfect ranking of ``c`` correct
    answers it is :math:`(c + c\\sum_{j=c+1}^{n} 1/j)/n`; an uninformative
    score has expected AUARC equal to the accuracy.

    References
    ----------
    Nadeem, Zucker & Hanczar (2009), Accuracy-rejection curves (ARCs) for
    comparing classification methods with a reject option; Lin, Trivedi & Sun
    (2024), who report AUARC for EigV, Ecc, Deg, NumSet and LexSim.

    Examples
    --------
    The certain answers are right, the uncertain one wrong: accuracies 1, 1, 2/3.

    >>> round(auarc([0.1, 0.2, 0.9], [True, True, False]), 6)
    0.888889
    >>> auarc([0.5, 0.5], [1, 0])
    0.5
    """
    uncertainty, correct = drop_masked([uncertainty, correct], ["uncertainty", "correct"])
    u = _check_score(uncertainty, "uncertainty")
    if u.size == 0:
        raise ValueError("uncertainty must not be empty")
    c = _check_binary(correct, "correct", u.size).astype(float)
    order = np.argsort(u, kind="stable")
    us, cs = u[order], c[order]
    starts = np.flatnonzero(np.r_[True, us[1:] != us[:-1]])
    sizes = np.diff(np.r_[starts, us.size])
    means = np.add.reduceat(cs, starts) / sizes
    cum = np.cumsum(np.repeat(means, sizes))
    return float(np.mean(cum / np.arange(1, u.size + 1)))


# --------------------------------------------------------------------------- bootstrap
def _check_boot(n_boot, level, random_state):
    return check_int(n_boot, "n_boot", low=1), _check_level(level), check_random_state(random_state)


def _check_boot_memory(n_boot: int, rows: int, per_row: int = 8) -> None:
    """Refuse ``n_boot`` resamples whose arrays (``per_row`` bytes a row of each) cannot fit in memory."""
    what = f"n_boot = {n_boot:,} resamples" + (f" of {rows:,} rows" if rows else "")
    graph.check_memory(per_row * n_boot * max(rows, 1) + 8 * n_boot, what, "use fewer resamples")


def _resample_indices(n: int, n_boot: int, rng, strata: np.ndarray | None) -> np.ndarray:
    """``(n_boot, n)`` row indices drawn with replacement (within each stratum, given as codes ``0..G-1``)."""
    if strata is None:
        return rng.integers(0, n, size=(n_boot, n))
    idx = np.empty((n_boot, n), dtype=np.int64)
    inverse = strata
    for g in range(inverse.max() + 1):
        members = np.flatnonzero(inverse == g)
        idx[:, members] = members[rng.integers(0, members.size, size=(n_boot, members.size))]
    return idx


def bootstrap_ci(
    statistic: Callable[..., float],
    *arrays: ArrayLike,
    n_boot: int = 2000,
    level: float = 0.95,
    random_state: RandomStateLike = 0,
    strata: ArrayLike | None = None,
) -> tuple[float, float, float]:
    """A statistic of paired arrays and its percentile bootstrap interval (resampling rows jointly).

    Parameters
    ----------
    statistic : callable
        ``statistic(*arrays) -> float``, called on the original arrays and on
        each resample (the same rows of every array).
    *arrays : array-like, each of length n
        At least one; the first axis is resampled.  A masked array with a
        masked entry is refused (the statistic decides what a mask means:
        leave the masked rows out first).
    n_boot : int, default=2000
        Number of resamples.
    level : float in (0, 1), default=0.95
    random_state : None, int or numpy.random.Generator, default=0
    strata : array-like of shape (n,), optional
        Resample within each stratum (each keeps its size), e.g. the classes
        for an AUROC, so that every resample holds both.  Labels of one kind
        (see :func:`semvar._validation.check_label_codes`), none missing.

    Returns
    -------
    (estimate, low, high) : tuple of float
        ``statistic`` of the data and the ``(1-level)/2`` and ``(1+level)/2``
        quantiles of its bootstrap distribution (Efron's percentile interval).

    Raises
    ------
    ValueError
        If ``statistic`` is not callable, no array is given, an array is a
        masked array with a masked entry, the arrays' lengths differ or are
        0, ``strata`` has the wrong length, holds None or NaN or labels of
        more than one kind, ``n_boot``, ``level`` or ``random_state`` is
        invalid, or the ``(n_boot, n)`` resample indices would not fit in
        the memory available (:func:`semvar.graph.check_memory`); also if the
        statistic is not finite on the data or on a resample.

    Examples
    --------
    >>> est, lo, hi = bootstrap_ci(np.mean, np.arange(20.0), n_boot=500)
    >>> est, bool(lo < est < hi)
    (9.5, True)
    """
    if not callable(statistic):
        raise ValueError(f"statistic must be callable, got {show(statistic)}")
    if not arrays:
        raise ValueError("bootstrap_ci needs at least one array")
    arrs = [np.asarray(check_unmasked(a, f"arrays[{i}]")) for i, a in enumerate(arrays)]
    n = arrs[0].shape[0] if arrs[0].ndim else 0
    for i, a in enumerate(arrs):
        if a.ndim == 0 or a.shape[0] != n:
            raise ValueError(f"arrays must all have the same length {n}, array {i} has shape {a.shape}")
    if n == 0:
        raise ValueError("arrays must not be empty")
    n_boot, level, rng = _check_boot(n_boot, level, random_state)
    g = None
    if strata is not None:
        strata = check_unmasked(strata, "strata")
        shape = np.shape(strata) if isinstance(strata, np.ndarray) or not isinstance(strata, Sized) else (len(strata),)
        if shape != (n,):
            raise ValueError(f"strata must have shape ({n},), got {shape}")
        g, _ = check_label_codes(strata, "strata", n=n)
    _check_boot_memory(n_boot, n, 16 if g is not None else 8)
    est = _finite(statistic(*arrs), "on the data")
    idx = _resample_indices(n, n_boot, rng, g)
    boot = np.array([_finite(statistic(*(a[row] for a in arrs)), f"on resample {b}") for b, row in enumerate(idx)])
    lo, hi = np.quantile(boot, [(1 - level) / 2, (1 + level) / 2])
    return est, float(lo), float(hi)


def _finite(value, where: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"statistic must return a real number, got {show(value)} {where}") from None
    if not np.isfinite(v):
        raise ValueError(f"statistic returned {v} {where}")
    return v


def paired_auroc_difference(
    score_a: ArrayLike,
    score_b: ArrayLike,
    positive: ArrayLike,
    *,
    n_boot: int = 2000,
    level: float = 0.95,
    random_state: RandomStateLike = 0,
) -> tuple[float, float, float]:
    """``AUROC(score_a) - AUROC(score_b)`` on the same questions, with a paired bootstrap interval.

    Parameters
    ----------
    score_a, score_b : array-like of shape (n,)
        Two scores of the same ``n`` questions (higher = more likely positive).
    positive : array-like of bool, shape (n,)
        The event both predict; at least two of each class.  A question
        masked in any of the three arrays is left out of all three.
    n_boot : int, default=2000
    level : float in (0, 1), default=0.95
    random_state : None, int or numpy.random.Generator, default=0

    Returns
    -------
    (diff, low, high) : tuple of float
        The difference of the two Mann-Whitney AUROCs on the data and the
        percentile interval of the difference over ``n_boot`` resamples.

    Raises
    ------
    ValueError
        Scores not 1-D and finite, lengths that differ, ``positive`` not
        boolean / 0-1 or with fewer than two of a class, an invalid
        ``n_boot``, ``level`` or ``random_state``, or ``n_boot`` differences
        that would not fit in the memory available.

    Notes
    -----
    Each resample draws questions with replacement, the same questions for
    both scores (so their correlation is kept, as DeLong et al. 1988 keep it
    analytically), and draws positives and negatives separately so that each
    resample keeps the class counts (a stratified bootstrap; an unstratified
    one could draw a resample with no positive, whose AUROC is undefined).
    An interval that excludes 0 says the two scores rank the questions
    differently by more than resampling explains.  A resample is held as the number
    of times it draws each question, and its AUROC is the Mann-Whitney
    count with those multiplicities, from the negatives sorted once: O(n)
    per resample after one sort.

    Examples
    --------
    >>> y = [0, 0, 0, 1, 1, 1]
    >>> d, lo, hi = paired_auroc_difference([1, 2, 3, 4, 5, 6], [1, 5, 3, 4, 2, 6], y, n_boot=200)
    >>> round(d, 4), bool(lo <= d <= hi)
    (0.3333, True)
    """
    score_a, score_b, positive = drop_masked([score_a, score_b, positive], ["score_a", "score_b", "positive"])
    a = _check_score(score_a, "score_a")
    b = _check_score(score_b, "score_b")
    if b.shape != a.shape:
        raise ValueError(f"score_a and score_b must have the same length, got {a.size} and {b.size}")
    y = _check_binary(positive, "positive", a.size)
    m = int(y.sum())
    if m < 2 or a.size - m < 2:
        raise ValueError(f"positive must hold at least two of each class, got {m} positives and {a.size - m} negatives")
    n_boot, level, rng = _check_boot(n_boot, level, random_state)
    _check_boot_memory(n_boot, 0)
    pos, neg = np.flatnonzero(y), np.flatnonzero(~y)
    prep = [_auc_prep(s[pos], s[neg]) for s in (a, b)]
    ones_p, ones_n = np.ones(pos.size, dtype=np.int64), np.ones(neg.size, dtype=np.int64)
    diff = _weighted_auc(prep[0], ones_p, ones_n) - _weighted_auc(prep[1], ones_p, ones_n)
    boot = np.empty(n_boot)
    for r in range(n_boot):
        c = np.bincount(rng.integers(0, pos.size, size=pos.size), minlength=pos.size)
        d = np.bincount(rng.integers(0, neg.size, size=neg.size), minlength=neg.size)
        boot[r] = _weighted_auc(prep[0], c, d) - _weighted_auc(prep[1], c, d)
    lo, hi = np.quantile(boot, [(1 - level) / 2, (1 + level) / 2])
    return diff, float(lo), float(hi)
