"""The hierarchical, domain-stratified model of a benchmark: subject-macro half-widths and split-half correlation."""

from __future__ import annotations

from collections.abc import Sized
from typing import cast

import numpy as np
from numpy.typing import ArrayLike

from .. import graph
from .._validation import RandomStateLike, check_int, check_label_codes, check_option, drop_masked
from ._checks import _check_counts, _check_groups, _check_trials_mix
from .betabinomial import METHODS, PROXIES, fit_beta_binomial
from .concentration import halfwidth

__all__ = ["macro_halfwidth", "iid_macro_halfwidth", "hierarchical_macro_halfwidth", "split_half_correlation",
           "micro_halfwidth", "split_half_correlations"]


def macro_halfwidth(trials: ArrayLike, sigma2_mix: float | ArrayLike, delta: float) -> float:
    """Half-width of the subject-macro score ``(1/S) sum_s mean_s`` under the hierarchy.

    Items are conditionally independent given subject accuracies ``p_s``,
    and ``p_s - E p_s`` are independent with proxies ``sigma2_mix[s]``.

    ``sigma2_eff = (1/(4 S**2)) sum_s 1/n_s + (1/S**2) sum_s sigma2_mix[s]``:
    an item of subject ``s`` moves the score by ``c = 1/(S n_s)``, and the
    mixture term is ``(1/S) sum_s (p_s - E p_s)``.

    Parameters
    ----------
    trials : array-like of shape (S,)
        Items per subject.
    sigma2_mix : float or array-like of shape (S,)
        Sub-Gaussian proxy of each subject's accuracy (0 gives the
        i.i.d. half-width).
    delta : float in (0, 1)

    Raises
    ------
    ValueError
        Non-positive trials, negative proxies (either a masked array with a
        masked entry included: the half-width is of the subjects given),
        ``delta`` outside (0, 1).

    Examples
    --------
    >>> from semvar.exchangeable import hoeffding_halfwidth
    >>> round(macro_halfwidth([100, 100], 0.0, 0.05), 4) == round(hoeffding_halfwidth(200, 0.05), 4)
    True
    """
    n, s2 = _check_trials_mix(trials, sigma2_mix)
    S = len(n)
    sigma2_eff = float(np.sum(1.0 / n) / (4.0 * S**2) + np.sum(s2) / S**2)
    return halfwidth(sigma2_eff, delta)


def iid_macro_halfwidth(trials: ArrayLike, delta: float) -> float:
    """The naive half-width of the subject-macro score: :func:`macro_halfwidth` without the mixture term."""
    return macro_halfwidth(trials, 0.0, delta)


def hierarchical_macro_halfwidth(
    successes: ArrayLike, trials: ArrayLike, domains: ArrayLike, delta: float, *, method: str = "mle",
    proxy: str = "optimal",
) -> dict:
    """Fit one beta-binomial per domain and return the subject-macro half-width.

    Parameters
    ----------
    successes, trials : array-like of shape (S,)
        Correct answers and items per subject.  A subject masked
        (:class:`numpy.ma.MaskedArray`) in any of the three arrays is left out.
    domains : array-like of shape (S,)
        Domain label of each subject (subjects are exchangeable within a
        domain): labels of one kind, compared as given, none missing.
    delta : float in (0, 1)
    method : {"mle", "moments"}, default="mle"
    proxy : {"optimal", "variance", "bound", "bernoulli"}, default="optimal"
        Which proxy of the fitted Beta law to use as ``sigma2_mix``
        (``"optimal"``: Marchal-Arbel, the paper's choice).

    Returns
    -------
    dict
        ``halfwidth`` (hierarchical), ``iid_halfwidth``, ``macro`` (the
        score), ``fits`` (domain -> BetaBinomialFit), ``sigma2_mix`` (per subject).

    Raises
    ------
    ValueError
        Bad counts, ``domains`` of another length, holding None or NaN or
        labels of more than one kind (``1`` and ``"1"``), a domain with fewer
        than two subjects, an unknown ``method`` or ``proxy``.
    """
    successes, trials, domains = drop_masked([successes, trials, domains], ["successes", "trials", "domains"])
    k, n = _check_counts(successes, trials)
    check_option(method, "method", METHODS)
    check_option(proxy, "proxy", PROXIES)
    size = len(cast(Sized, domains)) if not isinstance(domains, np.ndarray) else (domains.shape[0] if domains.ndim else 0)
    if not hasattr(domains, "__len__") or size != k.shape[0]:
        raise ValueError(f"domains must have one label per subject, got {size if hasattr(domains, '__len__') else 0} "
                         f"labels for {k.shape[0]} subjects")
    codes, names = check_label_codes(domains, "domains", n=k.shape[0])
    fits = {}
    s2 = np.zeros(len(k))
    for c in sorted(range(len(names)), key=lambda c: str(names[c])):
        d, idx = names[c], codes == c
        if idx.sum() < 2:
            raise ValueError(f"domain {d!r} has fewer than two subjects; a beta-binomial fit needs at least two")
        fit = fit_beta_binomial(k[idx], n[idx], method=method)
        fits[d] = fit
        s2[idx] = fit.proxy(proxy)
    return {
        "halfwidth": macro_halfwidth(n, s2, delta),
        "iid_halfwidth": iid_macro_halfwidth(n, delta),
        "macro": float(np.mean(k / n)),
        "fits": fits,
        "sigma2_mix": s2,
    }


def split_half_correlation(correct: ArrayLike, groups: ArrayLike, *, random_state: RandomStateLike = None) -> float:
    """Correlation across groups of the accuracies of two random halves of each group.

    Each group's items are split uniformly at random into two halves (sizes
    ``floor(n/2)`` and the rest); the accuracies of the first halves are
    correlated (Pearson) with those of the second halves across groups.
    Near 0 when items are i.i.d. whatever their group; large when group
    accuracies differ (positive dependence within groups).

    Parameters
    ----------
    correct : array-like of shape (n_items,) of 0/1
    groups : array-like of shape (n_items,)
        Group (subject) of each item; at least three groups, each with at
        least two items.  Labels of one kind, compared as given, none
        missing.  An item masked (:class:`numpy.ma.MaskedArray`) in
        ``correct`` or ``groups`` is left out.
    random_state : None, int or Generator, default=None

    Returns
    -------
    float
        ``nan`` if either half's accuracies are constant across groups.

    Raises
    ------
    ValueError
        ``correct`` not 0/1, ``groups`` of another length, holding None or
        NaN or labels of more than one kind, fewer than three groups or a
        group with fewer than two items.
    """
    correct, groups = drop_masked([correct, groups], ["correct", "groups"])
    x, labels, inv, rng = _check_groups(correct, groups, random_state)
    h1 = np.empty(len(labels))
    h2 = np.empty(len(labels))
    for j in range(len(labels)):
        items = x[inv == j]
        if len(items) < 2:
            raise ValueError(f"group {labels[j]!r} has fewer than two items")
        perm = rng.permutation(len(items))
        half = len(items) // 2
        h1[j] = items[perm[:half]].mean()
        h2[j] = items[perm[half:]].mean()
    if np.std(h1) == 0 or np.std(h2) == 0:
        return float("nan")
    return float(np.corrcoef(h1, h2)[0, 1])


def micro_halfwidth(trials: ArrayLike, sigma2_mix: float | ArrayLike, delta: float) -> float:
    """Half-width of the item-average (micro) score ``(1/N) sum_i X_i`` under the hierarchy.

    Items are conditionally independent given subject accuracies ``p_s``, and
    ``p_s - E p_s`` are independent with proxies ``sigma2_mix[s]``.  Every
    item moves the score by ``c = 1/N`` (``N = sum_s n_s``), and the mixture
    term is ``sum_s (n_s/N) (p_s - E p_s)``, so

    ``sigma2_eff = 1/(4N) + sum_s (n_s/N)**2 sigma2_mix[s]``

    (Lin, Frei & de la Peña 2026, Theorem 4.2, with the subjects' mixture
    terms added as independent sub-Gaussian variables).  With
    ``sigma2_mix = 0`` it is Hoeffding's half-width on ``N`` items.

    Parameters
    ----------
    trials : array-like of shape (S,)
        Items per subject (positive).
    sigma2_mix : float or array-like of shape (S,)
        Sub-Gaussian proxy of each subject's accuracy (non-negative).
    delta : float in (0, 1)

    Returns
    -------
    float
        ``sqrt(2 sigma2_eff log(2/delta))``.

    Raises
    ------
    ValueError
        Non-positive trials, negative proxies, ``delta`` outside (0, 1).

    Examples
    --------
    >>> from semvar.exchangeable import hoeffding_halfwidth
    >>> micro_halfwidth([100, 300], 0.0, 0.05) == hoeffding_halfwidth(400, 0.05)
    True
    >>> round(micro_halfwidth([100, 300], [0.01, 0.01], 0.05), 4)   # sigma2_eff = 1/1600 + (1/16 + 9/16) 0.01
    0.2252
    """
    n, s2 = _check_trials_mix(trials, sigma2_mix)
    total = float(np.sum(n))
    sigma2_eff = 1.0 / (4.0 * total) + float(np.sum((n / total) ** 2 * s2))
    return halfwidth(sigma2_eff, delta)


def split_half_correlations(
    correct: ArrayLike, groups: ArrayLike, n_splits: int = 100, *, random_state: RandomStateLike = None
) -> np.ndarray:
    """Split-half correlations of group accuracies for ``n_splits`` independent random splits.

    The vectorised form of :func:`split_half_correlation`: in each split,
    every group's items are divided uniformly at random into two halves
    (sizes ``floor(n/2)`` and the rest), and the first halves' accuracies are
    correlated (Pearson) with the second halves' across groups.  Their mean
    is the usual summary.

    Parameters
    ----------
    correct : array-like of shape (n_items,) of 0/1
    groups : array-like of shape (n_items,)
        Group (subject) of each item; at least three groups, each with at
        least two items.  Labels of one kind, compared as given, none
        missing.  An item masked (:class:`numpy.ma.MaskedArray`) in
        ``correct`` or ``groups`` is left out.
    n_splits : int, default=100
    random_state : None, int or numpy.random.Generator, default=None

    Returns
    -------
    ndarray of shape (n_splits,)
        ``nan`` for a split in which either half's accuracies are constant
        across groups.

    Raises
    ------
    ValueError
        As :func:`split_half_correlation`, or ``n_splits < 1``, or splits
        whose draws would not fit in the memory available
        (:func:`semvar.graph.check_memory`).

    Notes
    -----
    Under independent items with one accuracy the halves are independent,
    and the correlation is near 0; with group accuracies that differ
    (positive dependence within groups, as under exchangeability within a
    group with a random directing measure) it approaches the reliability
    ``Var(p) / (Var(p) + E[p(1-p)] / (n/2))`` of a half's accuracy.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> groups = np.repeat(np.arange(30), 80)
    >>> het = rng.binomial(1, rng.beta(2, 2, size=30)[groups])
    >>> bool(split_half_correlations(het, groups, 20, random_state=1).mean() > 0.8)
    True
    """
    correct, groups = drop_masked([correct, groups], ["correct", "groups"])
    x, labels, inv, rng = _check_groups(correct, groups, random_state)
    n_splits = check_int(n_splits, "n_splits", low=1)
    largest = int(np.bincount(inv).max())
    # per split: the two halves' accuracies of every group, and a group's uniform draws, their order and its half
    graph.check_memory(n_splits * (16 * len(labels) + 24 * largest), f"n_splits = {n_splits:,} splits",
                       "use fewer splits")
    h1 = np.empty((n_splits, len(labels)))
    h2 = np.empty((n_splits, len(labels)))
    for j in range(len(labels)):
        items = x[inv == j]
        m = len(items)
        if m < 2:
            raise ValueError(f"group {labels[j]!r} has fewer than two items")
        half = m // 2
        first = np.argsort(rng.random((n_splits, m)), axis=1)[:, :half]
        s1 = items[first].sum(axis=1)
        h1[:, j] = s1 / half
        h2[:, j] = (items.sum() - s1) / (m - half)
    out = np.full(n_splits, np.nan)
    ok = (np.std(h1, axis=1) > 0) & (np.std(h2, axis=1) > 0)
    c1 = h1[ok] - h1[ok].mean(axis=1, keepdims=True)
    c2 = h2[ok] - h2[ok].mean(axis=1, keepdims=True)
    out[ok] = np.sum(c1 * c2, axis=1) / np.sqrt(np.sum(c1**2, axis=1) * np.sum(c2**2, axis=1))
    return out
