"""The consistency bounds of Liu (2025), section 3, as functions of their inputs.

Each function returns a :class:`Bound`: the value of the right-hand side, the
probability with which the source says it holds, and the hypotheses of the
statement, each checked (``True``/``False``) and reported.  Inputs outside the
domain where the formula means anything (negative sizes, ``c2`` larger than
``2 K n_min / n`` allows, ...) raise ``ValueError`` naming the condition.

Two kinds of function:

- the statements **as printed** in the paper (:func:`lemma31`,
  :func:`theorem33`, :func:`corollary331`, :func:`lemma_a7`,
  :func:`lemma_a8`, :func:`theorem34`);
- **corrected** versions where the printed proof does not support the printed
  statement (:func:`theorem33_corrected`, :func:`theorem34_corrected`); see the
  errata page and chapter 5 for the reasons.

Notation: ``h(x) = x + log x``; ``n_min``/``n_max`` the smallest / largest true
cluster sizes; ``c2`` a constant with ``2 K n_min / n >= c2``; ``alpha_n`` the
largest edge probability (``B = alpha_n B0`` with ``max B0 = 1``); ``lam`` the
smallest absolute eigenvalue of ``B0`` (for within-block ``p`` and
between-block ``q``, ``lam = 1 - q/p``); ``p_min`` the smallest class
probability of the generator.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import linear_sum_assignment

from ._validation import check_int, check_label_codes, check_real

__all__ = [
    "Bound",
    "h",
    "miscluster_error",
    "lemma31",
    "theorem33",
    "theorem33_corrected",
    "corollary331",
    "lemma_a7",
    "lemma_a8",
    "theorem34",
    "theorem34_corrected",
]


@dataclass
class Bound:
    """Value of a bound, the probability with which it is claimed to hold, and its hypotheses.

    Attributes
    ----------
    value : float
        The right-hand side.
    probability : float
        The probability the statement attaches to it (``1.0`` for deterministic
        statements; ``max(0, 1 - 1/n)`` etc. otherwise).
    conditions : dict of str -> bool
        Each hypothesis of the statement and whether the inputs satisfy it.
    name : str
    """

    value: float
    probability: float
    conditions: dict = field(default_factory=dict)
    name: str = ""

    @property
    def holds(self) -> bool:
        """True when every hypothesis of the statement is met."""
        return all(self.conditions.values())

    def __float__(self) -> float:
        return float(self.value)


def h(x: float) -> float:
    """``h(x) = x + log x`` (Liu 2025, Lemma 3.1), for ``x >= 1``.

    >>> round(h(1.0), 6)
    1.0
    >>> round(h(math.e), 6) == round(math.e + 1, 6)
    True
    """
    x = check_real(x, "x", low=1.0)
    return x + math.log(x)


def miscluster_error(true_labels: ArrayLike, est_labels: ArrayLike) -> int:
    """The paper's ``M_error`` after the best matching of cluster labels.

    ``M_error = sum_i sum_j 1(g_ij != g_ij^true)`` counts entries of the
    ``n x K`` membership matrices, so each misclustered *node* counts twice
    (Liu 2025, Definition A.1).  Labels are matched by the Hungarian algorithm
    (the paper leaves label switching implicit).

    Parameters
    ----------
    true_labels, est_labels : array-like of shape (n,)
        Labels of one kind each, compared as the values given (see
        :func:`semvar._validation.check_label_codes`).

    Returns
    -------
    int
        Twice the number of misclustered nodes.

    Raises
    ------
    ValueError
        If the two have different lengths, are empty or not 1-D, hold None
        or NaN or labels of more than one kind (``1`` and ``"1"``), or are
        masked arrays with a masked entry (every node needs both labels).

    Examples
    --------
    >>> miscluster_error([0, 0, 1, 1], [1, 1, 0, 0])
    0
    >>> miscluster_error([0, 0, 1, 1], [0, 0, 0, 1])
    2
    """
    ti, _ = check_label_codes(true_labels, "true_labels")
    ei, _ = check_label_codes(est_labels, "est_labels", n=ti.size)
    m = max(ti.max(), ei.max()) + 1
    C = np.zeros((m, m), dtype=np.int64)
    np.add.at(C, (ti, ei), 1)
    r, c = linear_sum_assignment(-C)
    return int(2 * (ti.size - C[r, c].sum()))


# ---------------------------------------------------------------------------- checks
def _sizes(n: object, K: object, n_min: object, n_max: object = None) -> tuple[int, int, int, int | None]:
    n = check_int(n, "n", low=2)
    K = check_int(K, "K", low=1)
    if K > n:
        raise ValueError(f"K must be <= n = {n}, got {K}")
    n_min = check_int(n_min, "n_min", low=1)
    if K * n_min > n:
        raise ValueError(f"K * n_min must be <= n (the smallest of K clusters), got {K} * {n_min} > {n}")
    if n_max is not None:
        n_max = check_int(n_max, "n_max", low=n_min)
        if K * n_max < n:
            raise ValueError(f"K * n_max must be >= n (the largest of K clusters), got {K} * {n_max} < {n}")
        if n_max + (K - 1) * n_min > n:
            raise ValueError(f"n_max + (K - 1) * n_min must be <= n, got {n_max + (K - 1) * n_min} > {n}")
    return n, K, n_min, n_max


def _c2(c2: object, n: int, K: int, n_min: int) -> float:
    c2 = check_real(c2, "c2", low=0.0, low_open=True)
    limit = 2 * K * n_min / n
    if c2 > limit * (1 + 1e-12):
        raise ValueError(f"c2 must satisfy 2 K n_min / n >= c2, i.e. c2 <= {limit:.6g}, got {c2}")
    return c2


# ---------------------------------------------------------------------------- section 3.1
def lemma31(n: int, K: int, n_min: int, m_error: int, c2: float | None = None) -> Bound:
    """Lemma 3.1: ``|E_hat - E_bar| <= h(2K / c2) M_error / n`` (deterministic).

    Parameters
    ----------
    n, K, n_min : int
        Number of texts, of true clusters, smallest true cluster size.
    m_error : int
        ``M_error`` as in :func:`miscluster_error`, ``0 <= m_error <= 2 n``.
    c2 : float, optional
        Any ``0 < c2 <= 2 K n_min / n``; defaults to that largest value
        (which gives the smallest bound).

    Returns
    -------
    Bound
        ``probability = 1``; conditions ``"0 < c2 <= 1"`` (the printed
        hypothesis says ``c2 < 1``; the proof needs only ``c2 <= 2 K n_min / n``).

    Raises
    ------
    ValueError
        If the sizes are inconsistent, ``m_error`` is outside ``[0, 2n]`` or
        ``c2`` violates ``2 K n_min / n >= c2``.

    Notes
    -----
    The proof bounds ``|p_hat log(p_hat/p_bar)| <= |p_hat - p_bar| / p_bar``
    term by term (true, via ``log x <= x - 1`` on both sides of 1) and
    ``sum_j |n_hat_j - n_j| <= M_error`` (Lemma A.3).

    Examples
    --------
    >>> b = lemma31(100, 2, 50, 4)
    >>> round(b.value, 6) == round(h(2.0) * 4 / 100, 6)
    True
    """
    n, K, n_min, _ = _sizes(n, K, n_min)
    m_error = check_int(m_error, "m_error", low=0, high=2 * n)
    c2 = 2 * K * n_min / n if c2 is None else _c2(c2, n, K, n_min)
    value = h(2 * K / c2) * m_error / n
    return Bound(value, 1.0, {"0 < c2 <= 1 (as printed)": c2 <= 1.0}, "Lemma 3.1")


def theorem33(n: int, K: int, n_min: int, n_max: int, alpha_n: float, c2: float) -> Bound:
    """Theorem 3.3 as printed: ``h(2K/c2) n_max / (4 c2^2 n_min^2 alpha_n K^2)`` w.p. ``>= 1 - 1/n``.

    Parameters
    ----------
    n, K, n_min, n_max : int
    alpha_n : float
        Largest edge probability, in ``(0, 1]``.
    c2 : float
        ``0 < c2 <= 2 K n_min / n``.

    Returns
    -------
    Bound
        Conditions reported: ``"0 < c2 <= 1"``, ``"alpha_n >= log n (as printed)"``
        (never true for ``n >= 3``) and ``"alpha_n >= log(n)/n"`` (the
        condition of Lei & Rinaldo's Corollary 3.2 the proof invokes).

    Raises
    ------
    ValueError
        For inconsistent sizes, ``alpha_n`` outside ``(0, 1]`` or ``c2`` too large.

    Notes
    -----
    The printed bound does not depend on the eigenvalue gap ``lam``: the proof
    chooses Lei & Rinaldo's *absolute* constant ``c`` as a function of
    ``K``, ``lam`` and ``c2`` and thereby cancels ``lam``.  The statement is
    false (chapter 5 gives a counterexample); use :func:`theorem33_corrected`.

    Examples
    --------
    >>> b = theorem33(300, 3, 100, 100, 0.5, 1.0)
    >>> round(b.value, 6), b.probability, b.holds
    (0.004329, 0.996667, False)
    """
    n, K, n_min, checked_max = _sizes(n, K, n_min, n_max)
    assert checked_max is not None  # n_max is required here; _sizes returns it checked
    n_max = checked_max
    alpha_n = check_real(alpha_n, "alpha_n", low=0.0, high=1.0, low_open=True)
    c2 = _c2(c2, n, K, n_min)
    value = h(2 * K / c2) * n_max / (4 * c2**2 * n_min**2 * alpha_n * K**2)
    cond = {
        "0 < c2 <= 1": c2 <= 1.0,
        "alpha_n >= log n (as printed)": alpha_n >= math.log(n),
        "alpha_n >= log(n)/n": alpha_n >= math.log(n) / n,
    }
    return Bound(value, round(1 - 1 / n, 6), cond, "Theorem 3.3 (as printed)")


def theorem33_corrected(
    n: int, K: int, n_min: int, n_max: int, alpha_n: float, lam: float, c: float, *, c2: float | None = None,
    epsilon: float = 0.0,
) -> Bound:
    """What the proof of Theorem 3.3 supports, with Lei & Rinaldo's constant ``c`` kept.

    ``|E_bar - E_hat| <= h(2K/c2) * 2 * (2 + eps) K n_max / (c n_min^2 lam^2 alpha_n)``
    with probability at least ``1 - 1/n``, provided
    ``(2 + eps) K n / (n_min^2 lam^2 alpha_n) < c`` and ``alpha_n >= log(n)/n``.

    Parameters
    ----------
    n, K, n_min, n_max : int
    alpha_n : float in (0, 1]
    lam : float in (0, 1]
        Smallest absolute eigenvalue of ``B0 = B / alpha_n``.
    c : float > 0
        The absolute constant of Lei & Rinaldo (2015, Corollary 3.2), which
        that paper proves to exist but does not evaluate.
    c2 : float, optional
        Defaults to ``2 K n_min / n``.
    epsilon : float, default=0.0
        k-means approximation factor (``1 + eps``), ``>= 0``.

    Returns
    -------
    Bound

    Raises
    ------
    ValueError
        For out-of-domain inputs.

    Notes
    -----
    The factor 2 converts misclustered nodes (Lei & Rinaldo) into the paper's
    ``M_error``, which counts two matrix entries per misclustered node.

    Examples
    --------
    >>> b = theorem33_corrected(3000, 3, 1000, 1000, 0.5, 0.8, 1.0)
    >>> b.holds
    True
    """
    n, K, n_min, checked_max = _sizes(n, K, n_min, n_max)
    assert checked_max is not None  # n_max is required here; _sizes returns it checked
    n_max = checked_max
    alpha_n = check_real(alpha_n, "alpha_n", low=0.0, high=1.0, low_open=True)
    lam = check_real(lam, "lam", low=0.0, high=1.0, low_open=True)
    c = check_real(c, "c", low=0.0, low_open=True)
    epsilon = check_real(epsilon, "epsilon", low=0.0)
    c2 = 2 * K * n_min / n if c2 is None else _c2(c2, n, K, n_min)
    lhs = (2 + epsilon) * K * n / (n_min**2 * lam**2 * alpha_n)
    frac = (2 + epsilon) * K * n_max / (c * n_min**2 * lam**2 * alpha_n)
    value = h(2 * K / c2) * 2 * frac
    cond = {
        "(2+eps) K n / (n_min^2 lam^2 alpha_n) < c": lhs < c,
        "alpha_n >= log(n)/n": alpha_n >= math.log(n) / n,
    }
    return Bound(value, round(1 - 1 / n, 6), cond, "Theorem 3.3 (corrected)")


def corollary331(n: int, K: int, c2: float, alpha: float) -> Bound:
    """Corollary 3.3.1 as printed: ``h(2K/c2) / (c2^4 alpha n)`` w.p. ``>= 1 - 1/n``.

    Parameters
    ----------
    n, K : int
    c2 : float in (0, 2]
        A constant with ``2 K n_min / n >= c2`` (checked by the caller; here only
        ``c2 <= 1`` as printed is reported).
    alpha : float in (0, 1]
        The edge probability ``p`` (constant in ``n``).

    Returns
    -------
    Bound

    Raises
    ------
    ValueError
        For ``n < 2``, ``K < 1``, ``c2`` outside ``(0, 2]`` or ``alpha`` outside ``(0, 1]``.

    Notes
    -----
    Follows from :func:`theorem33` with ``n_max <= n`` and
    ``n_min >= n c2 / (2K)`` (the algebra is right; the premise is not).

    Examples
    --------
    >>> round(corollary331(100, 2, 1.0, 0.5).value, 6) == round(h(4.0) / 50, 6)
    True
    """
    n = check_int(n, "n", low=2)
    K = check_int(K, "K", low=1, high=n)
    c2 = check_real(c2, "c2", low=0.0, high=2.0, low_open=True)
    alpha = check_real(alpha, "alpha", low=0.0, high=1.0, low_open=True)
    value = h(2 * K / c2) / (c2**4 * alpha * n)
    return Bound(value, round(1 - 1 / n, 6), {"0 < c2 <= 1": c2 <= 1.0}, "Corollary 3.3.1 (as printed)")


# ---------------------------------------------------------------------------- section 3.2
def lemma_a7(n: int, K: int) -> Bound:
    """Lemma A.7: ``sum_j |p_j - n_j/n| <= K sqrt(log(2Kn) / (2n))`` w.p. ``>= 1 - 1/n``.

    Hoeffding for each ``n_j ~ Binomial(n, p_j)`` and a union bound over ``j``.

    Examples
    --------
    >>> round(lemma_a7(100, 2).value, 6) == round(2 * math.sqrt(math.log(400) / 200), 6)
    True
    """
    n = check_int(n, "n", low=2)
    K = check_int(K, "K", low=1)
    return Bound(K * math.sqrt(math.log(2 * K * n) / (2 * n)), round(1 - 1 / n, 6), {}, "Lemma A.7")


def _generator(n: object, K: object, p_min: object) -> tuple[int, int, float]:
    n = check_int(n, "n", low=2)
    K = check_int(K, "K", low=1)
    p_min = check_real(p_min, "p_min", low=0.0, high=1.0 / K, low_open=True)
    return n, K, p_min


def lemma_a8(n: int, K: int, p_min: float) -> Bound:
    """Lemma A.8: ``n_min >= (1 - delta) n p_min`` w.p. ``>= 1 - 1/n``, ``delta = sqrt(2 log(nK) / (n p_min))``.

    Returns the paper's ``c2 = 2 K (1 - delta) p_min`` as ``value``.

    Raises
    ------
    ValueError
        If ``p_min`` is outside ``(0, 1/K]`` or ``n p_min <= 2 log(nK)``
        (then ``delta >= 1`` and the lemma says nothing).

    Notes
    -----
    The printed Chernoff step reads ``P(n_j <= (1-delta) n p_j) <= exp(-n p_j / 2)``;
    the multiplicative Chernoff bound is ``exp(-delta^2 n p_j / 2)``, which
    is what the printed choice of ``delta`` actually solves.

    Examples
    --------
    >>> b = lemma_a8(1000, 2, 0.5)
    >>> round(b.value, 4)
    1.6513
    """
    n, K, p_min = _generator(n, K, p_min)
    delta2 = 2 * math.log(n * K) / (n * p_min)
    if delta2 >= 1:
        raise ValueError(
            f"Lemma A.8 needs n p_min > 2 log(nK) (so that delta < 1); got n p_min = {n * p_min:.4g} "
            f"<= 2 log(nK) = {2 * math.log(n * K):.4g}"
        )
    m = 1 - math.sqrt(delta2)
    c2 = 2 * K * m * p_min
    return Bound(c2, round(1 - 1 / n, 6), {"0 < c2 <= 1": c2 <= 1.0}, "Lemma A.8")


def theorem34(n: int, K: int, p_min: float, *, alpha: float | None = None) -> Bound:
    """Theorem 3.4 as printed (eq. 10), w.p. ``>= 1 - 3/n``.

    ``h(1/p_min) K sqrt(log(2Kn)/(2n)) + h(1/(m p_min)) / (16 K^4 m^4 p_min^4 n)``,
    ``m = 1 - sqrt(2 log(nK) / (n p_min))``.

    Parameters
    ----------
    n, K : int
    p_min : float in (0, 1/K]
    alpha : float in (0, 1], optional
        The printed formula has no ``alpha`` (it was dropped between Corollary
        3.3.1 and the proof of Theorem 3.4); pass it to restore the factor
        ``1/alpha`` on the second term.

    Returns
    -------
    Bound
        ``probability = max(0, 1 - 3/n)``; conditions ``"0 < c2 <= 1"`` for the
        implied ``c2 = 2 K m p_min`` (required by Corollary 3.3.1 as printed).

    Raises
    ------
    ValueError
        If ``p_min`` is outside ``(0, 1/K]`` or ``n p_min <= 2 log(nK)``.

    Examples
    --------
    >>> b = theorem34(1000, 2, 0.5)
    >>> round(b.value, 4)
    0.3473
    """
    n, K, p_min = _generator(n, K, p_min)
    c2 = lemma_a8(n, K, p_min)
    m = c2.value / (2 * K * p_min)
    first = h(1 / p_min) * K * math.sqrt(math.log(2 * K * n) / (2 * n))
    second = h(1 / (m * p_min)) / (16 * K**4 * m**4 * p_min**4 * n)
    if alpha is not None:
        second /= check_real(alpha, "alpha", low=0.0, high=1.0, low_open=True)
    return Bound(first + second, max(0.0, round(1 - 3 / n, 6)), dict(c2.conditions), "Theorem 3.4 (as printed)")


def theorem34_corrected(
    n: int, K: int, p_min: float, alpha: float, lam: float, c: float, *, epsilon: float = 0.0
) -> Bound:
    """Theorem 3.4 with the corrected Theorem 3.3 (:func:`theorem33_corrected`) as its third step.

    ``h(1/p_min) K sqrt(log(2Kn)/(2n))`` (Lemmas A.6-A.7, valid) plus the
    corrected spectral term evaluated at the Lemma A.8 lower bound
    ``n_min >= m n p_min`` and ``n_max <= n``; probability ``>= 1 - 3/n``.

    Examples
    --------
    >>> b = theorem34_corrected(5000, 2, 0.5, 0.5, 0.8, 1.0)
    >>> b.holds
    True
    """
    n, K, p_min = _generator(n, K, p_min)
    c2b = lemma_a8(n, K, p_min)
    m = c2b.value / (2 * K * p_min)
    n_min_lb = m * n * p_min
    alpha = check_real(alpha, "alpha", low=0.0, high=1.0, low_open=True)
    lam = check_real(lam, "lam", low=0.0, high=1.0, low_open=True)
    c = check_real(c, "c", low=0.0, low_open=True)
    epsilon = check_real(epsilon, "epsilon", low=0.0)
    first = h(1 / p_min) * K * math.sqrt(math.log(2 * K * n) / (2 * n))
    frac = (2 + epsilon) * K * n / (c * n_min_lb**2 * lam**2 * alpha)
    second = h(1 / (m * p_min)) * 2 * frac
    lhs = (2 + epsilon) * K * n / (n_min_lb**2 * lam**2 * alpha)
    cond = {
        "(2+eps) K n / (n_min^2 lam^2 alpha) < c": lhs < c,
        "alpha >= log(n)/n": alpha >= math.log(n) / n,
    }
    return Bound(first + second, max(0.0, round(1 - 3 / n, 6)), cond, "Theorem 3.4 (corrected)")
