"""The judge-budget law: how many judged pairs a sampled design needs (chapter 6).

A design that asks the judge about a random share ``s`` of the ``n(n-1)/2``
pairs (:func:`semvar.graph.design_random`) judges a sparse stochastic block
model with edge probabilities ``s p`` and ``s q`` (Liu 2025, eqs. 3-4).  Its
smallest meaning separates from the noise when the graph's signal-to-noise
ratio exceeds one (:func:`budget_snr`); :func:`pairs_needed` inverts that
ratio into a number of judge calls, which grows like ``n``, not ``n^2``.
The sweeps of :mod:`semvar.experiments.budget` calibrate the margin above
one that accurate entropy needs.
"""

from __future__ import annotations

from numpy.typing import ArrayLike

from ._validation import check_array, check_bool, check_int, check_probability, check_real

__all__ = ["budget_snr", "pairs_needed"]


def _law_terms(p: float, q: float, proportions: ArrayLike, centered: bool):
    """Checked ``p``, ``q``, block shares ``pi`` and the within/across weights ``sum pi^2``, ``sum pi (1 - pi)``."""
    p = check_probability(p, "p")
    q = check_probability(q, "q")
    pi = check_array(proportions, "proportions", ndim=1)
    if pi.size < 2 or pi.min() <= 0:
        raise ValueError(f"proportions must hold at least two positive block shares, got {pi.tolist()}")
    pi = pi / pi.sum()
    if p <= q:
        raise ValueError(f"the law needs p > q (a judge better than chance), got p={p}, q={q}")
    check_bool(centered, "centered")
    w_in = pi * pi  # share of a node's partners that share its meaning, weighted by block share
    w_out = pi * (1 - pi)
    return p, q, pi, w_in.sum(), w_out.sum()


def _centred_variance(p: float, q: float, a_in: float, a_out: float) -> float:
    """Mean variance per judged pair of the centred matrix ``A - rho O`` (``rho`` the mean verdict)."""
    rho = a_in * p + a_out * q
    return a_in * (p * (1 - p) + (p - rho) ** 2) + a_out * (q * (1 - q) + (q - rho) ** 2)


def budget_snr(n: int, s: float, p: float, q: float, proportions: ArrayLike, *, centered: bool = True) -> float:
    """Signal-to-noise ratio of a randomly sampled judged graph (the judge-budget law).

    Parameters
    ----------
    n : int
        Number of (distinct) texts, at least 2.
    s : float in (0, 1]
        Share of the ``n(n-1)/2`` pairs that are judged.
    p, q : float
        Judge's TRUE rates for same / different meanings (``p > q``).
    proportions : array-like of shape (K,)
        Shares of the meaning classes (normalised to sum 1), ``K >= 2``.
    centered : bool, default=True
        Noise of the centred matrix ``A - rho O`` (True) or of the plain
        adjacency ``A`` (False).

    Returns
    -------
    float
        ``n s (p - q)^2 pi_min^2 / v``, where ``v = sum_k pi_k (pi_k v_in +
        (1 - pi_k) v_out)`` is the mean variance of a row's entries per
        judged pair.  Plain: ``v_in = p (1 - s p)``, ``v_out = q (1 - s q)``.
        Centred: ``v_in = p (1 - p) + (p - rho)^2``, ``v_out = q (1 - q) +
        (q - rho)^2``, ``rho`` the mean verdict.

    Raises
    ------
    ValueError
        For ``n < 2``, ``s`` outside ``(0, 1]``, ``p`` or ``q`` outside
        ``[0, 1]``, ``p <= q``, fewer than two positive ``proportions``, or a
        ``centered`` that is not a bool.

    Notes
    -----
    The smallest block's direction separates from the noise when its
    signal eigenvalue ``s (p - q) n pi_min`` exceeds the noise scale
    ``sqrt(n s v)``; squaring gives SNR > 1.  For ``K`` equal blocks and
    ``s -> 0`` (plain) this is the Kesten-Stigum threshold of the sparse
    stochastic block model, ``n s (p - q)^2 > K (p + (K - 1) q)``
    (Decelle et al. 2011; Abbe 2018).  Centring removes the variance that
    comes from *which* pairs were asked, which dominates when the judge
    says TRUE often (large ``q``).

    Examples
    --------
    Kesten-Stigum for three equal blocks, ``n s = 1000``:

    >>> round(budget_snr(10_000, 0.1, 0.87, 0.07, [1, 1, 1], centered=False), 1)
    228.6
    >>> round(1000 * 0.8**2 / (3 * (0.87 * (1 - 0.087) + 2 * 0.07 * (1 - 0.007))), 1)
    228.6
    """
    n = check_int(n, "n", low=2)
    s = check_real(s, "s", low=0.0, high=1.0, low_open=True)
    p, q, pi, a_in, a_out = _law_terms(p, q, proportions, centered)
    if centered:
        v = _centred_variance(p, q, a_in, a_out)
    else:
        v = a_in * (p * (1 - s * p)) + a_out * (q * (1 - s * q))
    return float(n * s * (p - q) ** 2 * pi.min() ** 2 / v)


def pairs_needed(
    n: int, p: float, q: float, proportions: ArrayLike, *, snr: float = 1.0, centered: bool = True
) -> float:
    """Number of judged pairs at which :func:`budget_snr` reaches ``snr`` (capped at all pairs).

    Solves ``budget_snr(n, s, ...) = snr`` for ``s`` and returns ``s n (n - 1) / 2``.
    The answer grows like ``n``, not ``n^2``: each text needs a fixed number
    of comparisons, ``snr * v / ((p - q)^2 pi_min^2)`` in total over its pairs.

    Parameters
    ----------
    n : int
        Number of (distinct) texts, at least 2.
    p, q : float
        Judge's TRUE rates for same / different meanings (``p > q``).
    proportions : array-like of shape (K,)
        Shares of the meaning classes (normalised to sum 1), ``K >= 2``.
    snr : float, default=1.0
        Target signal-to-noise ratio, positive.
    centered : bool, default=True
        As for :func:`budget_snr`.

    Returns
    -------
    float
        Judged pairs, at most ``n (n - 1) / 2``.

    Raises
    ------
    ValueError
        As for :func:`budget_snr`, or for ``snr <= 0``.

    Examples
    --------
    >>> round(pairs_needed(1000, 0.87, 0.07, [0.2, 0.3, 0.5], snr=1.0))
    4568
    >>> pairs_needed(5, 0.87, 0.07, [0.2, 0.3, 0.5], snr=1.0) == 10  # capped at all pairs
    True
    """
    n = check_int(n, "n", low=2)
    snr = check_real(snr, "snr", low=0.0, low_open=True)
    p, q, pi, a_in, a_out = _law_terms(p, q, proportions, centered)
    g = n * (p - q) ** 2 * pi.min() ** 2
    if centered:
        s = snr * _centred_variance(p, q, a_in, a_out) / g
    else:
        v1 = a_in * p + a_out * q
        v2 = a_in * p * p + a_out * q * q
        s = snr * v1 / (g + snr * v2)
    return float(min(s, 1.0) * n * (n - 1) / 2)

