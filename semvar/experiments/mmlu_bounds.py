"""The bounds of Lin, Frei & de la Peña (2026) put to work: coverage, tightness, MMLU (chapters 11-12).

Calculations that the chapters and the claims ledger share:

- :func:`mixture_coverage` (SIMULATION): how often the i.i.d. Hoeffding and the
  effective-variance half-widths cover the mean of an exchangeable sequence;
- :func:`gaussian_tightness`: the exact ratio ``Var(mean) / sigma2_eff`` in the
  symmetric Beta case (Theorem 4.2 is tight at the Gaussian level);
- :func:`subsample_exceedance`: how often a random subset's mean misses the full
  mean by the subsample-vs-full bound (Theorem 5.2) or more;
- :func:`subject_counts`: successes and trials per MMLU subject, from an item-level
  response table;
- :func:`seed_simulation_parameters`: the hierarchical model set from the seed's
  printed figures (:mod:`semvar.papers`), for simulations that stand in for the
  six models' responses;
- :func:`gaussian_level_check` (SIMULATION): the simulated quantile of an
  exchangeable mean against the Gaussian one of ``sigma2_eff`` and of each of
  its terms alone.

On real models' answers (e.g. :func:`semvar.data.load_helm_mmlu`):

- :func:`accuracy_table`: accuracy with i.i.d. and exchangeable half-widths;
- :func:`split_half_table`, :func:`subject_spread_table`: the dependence
  diagnostics;
- :func:`subsample_table` and :func:`exact_subsample_deviation`: the
  subsample-vs-full bound on real answer vectors, simulated and exact;
- :func:`paired_table`: every pair of models as a zero-sum contrast;
- :func:`subject_split_coverage`: whether i.i.d. and exchangeable half-widths
  of the subject-macro score predict the score on other subjects;
- :func:`redux_effect` and :func:`redux_responses`: how MMLU-Redux's flagged
  questions move accuracies and ranks;
- :func:`lin2026_responses`: the six models' lm-evaluation-harness files,
  where a data directory has them (:data:`LIN_FOLDER`).

The bounds themselves are in :mod:`semvar.exchangeable`; the simulators in
:mod:`semvar.experiments.exchangeable_sim`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats

from .. import exchangeable as ex
from .._validation import RandomStateLike, check_array, check_int, check_real
from ..data import (
    MMLU_ROWS,
    DataNotFoundError,
    candidate_dirs,
    load_lm_eval_samples,
    mmlu_subject_offsets,
    mmlu_subjects,
)
from ..papers import GEMMA2_9B_MMLU_ACCURACY, LIN_GEMMA2_9B_HALFWIDTH
from .exchangeable_sim import simulate_exchangeable_means

__all__ = [
    "mixture_coverage",
    "gaussian_tightness",
    "subsample_exceedance",
    "subject_counts",
    "seed_simulation_parameters",
    "gaussian_level_check",
    "accuracy_table",
    "split_half_table",
    "subject_spread_table",
    "exact_subsample_deviation",
    "subsample_table",
    "paired_table",
    "subject_split_coverage",
    "redux_effect",
    "redux_responses",
    "LIN_MODEL_KEYS",
    "LIN_FOLDER",
    "lin2026_responses",
    "mmlu_subjects_sorted",
]


def _check_delta(delta) -> float:
    return check_real(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)


def mixture_coverage(n_items: int, a: float, b: float, n_reps: int, delta: float = 0.05,
                     random_state: RandomStateLike = 0) -> dict:
    """SIMULATION: coverage of E[mean] by the i.i.d. Hoeffding and the sigma_eff half-widths.

    Items are Bernoulli(p) given p ~ Beta(a, b); the estimand is E[mean] = a/(a+b).

    Parameters
    ----------
    n_items : int
        Items per replicate.
    a, b : float
        The Beta mixing law.
    n_reps : int
        Replicates.
    delta : float, default=0.05
        One minus the nominal coverage.
    random_state : None, int or numpy.random.Generator, default=0

    Returns
    -------
    dict
        ``iid`` and ``eff``: the share of replicates whose ``|mean - a/(a+b)|`` is below the
        Hoeffding half-width ``sqrt(log(2/delta) / (2 n))`` and below the half-width of
        ``sigma2_eff = 1/(4 n) + sigma2_mix`` (Lin, Frei & de la Peña 2026, Theorem 4.2, with the
        Marchal-Arbel proxy of Beta(a, b)); ``hw_iid`` and ``hw_eff``: the two half-widths.

    Examples
    --------
    >>> cov = mixture_coverage(200, 6.0, 4.0, 2000, random_state=1)
    >>> cov["eff"] >= 0.95 > cov["iid"]
    True
    """
    n_items = check_int(n_items, "n_items", low=1)
    delta = _check_delta(delta)
    means, _ = simulate_exchangeable_means(n_items, a, b, n_reps, random_state=random_state)
    dev = np.abs(means - a / (a + b))
    hw_iid = ex.hoeffding_halfwidth(n_items, delta)
    hw_eff = ex.halfwidth(ex.effective_variance(np.full(n_items, 1.0 / n_items), ex.beta_subgaussian_proxy(a, b)), delta)
    return {"iid": float(np.mean(dev < hw_iid)), "eff": float(np.mean(dev < hw_eff)), "hw_iid": hw_iid, "hw_eff": hw_eff}


def gaussian_tightness(n_items: int, a: float) -> dict:
    """Exact ``Var(mean) / sigma2_eff`` for the mean of ``n`` binary items with ``p ~ Beta(a, a)``.

    ``Var(mean) = E[p(1-p)]/n + Var(p)`` and ``sigma2_eff = 1/(4n) + sigma2_opt`` with the
    computed optimal (Marchal-Arbel) proxy, which equals ``Var(p)`` in the symmetric case, so
    ``Var(mean) = sigma2_eff - Var(p)/n`` (Lin, Frei & de la Peña 2026, Theorem 4.2).

    Parameters
    ----------
    n_items : int
        Number of items ``n``.
    a : float
        Both parameters of the symmetric Beta law.

    Returns
    -------
    dict
        ``Var(mean)``, ``sigma2_eff``, their ``ratio`` and the mixture term's share of
        ``sigma2_eff`` (``mixture share``).

    Examples
    --------
    >>> g = gaussian_tightness(1, 1.0)   # one Bernoulli(1/2) item: 1/4 against 1/4 + 1/12
    >>> round(g["ratio"], 12)
    0.75
    """
    n_items = check_int(n_items, "n_items", low=1)
    check_real(a, "a", low=0.0, low_open=True)
    var_p = ex.beta_variance(a, a)
    e_pq = a * a / ((2.0 * a) * (2.0 * a + 1.0))
    var_mean = e_pq / n_items + var_p
    s2_mix = ex.beta_subgaussian_proxy(a, a)
    s2_eff = ex.effective_variance(np.full(n_items, 1.0 / n_items), s2_mix)
    return {"Var(mean)": var_mean, "sigma2_eff": s2_eff, "ratio": var_mean / s2_eff, "mixture share": s2_mix / s2_eff}


def subsample_exceedance(correct: ArrayLike, n: int, n_reps: int, delta: float = 0.05,
                         random_state: RandomStateLike = 0) -> dict:
    """Fraction of random n-subsets whose mean misses the full mean by the bound or more.

    Parameters
    ----------
    correct : array-like of shape (N,)
        Item-level scores in [0, 1] (e.g. 0/1 correctness), the full benchmark.
    n : int
        Subset size, ``1 <= n <= N``.
    n_reps : int
        Random subsets drawn (without replacement).
    delta : float, default=0.05
    random_state : None, int or numpy.random.Generator, default=0

    Returns
    -------
    dict
        ``exceed``: share of subsets with ``|mean_n - mean_N| >=`` the half-width
        ``sqrt((N - n) log(2/delta) / (2 n N))`` (Lin, Frei & de la Peña 2026, Theorem 5.2);
        ``q95`` (the ``1 - delta`` quantile) and ``max`` of the deviations; ``bound``.

    Examples
    --------
    >>> x = (np.arange(1000) % 3 == 0).astype(float)
    >>> subsample_exceedance(x, 200, 100, random_state=1)["exceed"]
    0.0
    """
    x = check_array(correct, "correct", ndim=1, min_rows=1)
    n = check_int(n, "n", low=1, high=len(x))
    n_reps = check_int(n_reps, "n_reps", low=1)
    delta = _check_delta(delta)
    rng = np.random.default_rng(random_state)
    full = x.mean()
    devs = np.array([abs(x[rng.choice(len(x), n, replace=False)].mean() - full) for _ in range(n_reps)])
    hw = ex.subsample_halfwidth(n, len(x), delta)
    return {"exceed": float(np.mean(devs >= hw)), "q95": float(np.quantile(devs, 1 - delta)), "max": float(devs.max()), "bound": hw}


def subject_counts(responses: pd.DataFrame,
                   mmlu_meta: pd.DataFrame) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], np.ndarray]:
    """Per model: successes and trials per subject, in the order of ``mmlu_meta``.

    Parameters
    ----------
    responses : pandas.DataFrame
        Item-level table with columns ``model``, ``item_id`` (row of the MMLU test split,
        as :func:`semvar.data.load_mmlu` returns it) and ``correct`` (0/1), e.g.
        :func:`semvar.data.load_mmlu_responses`.
    mmlu_meta : pandas.DataFrame
        One row per subject with columns ``subject`` and ``n_test_items``
        (:func:`semvar.data.mmlu_subjects`), in the order wanted.

    Returns
    -------
    counts : dict
        Model -> (successes, trials), two int arrays aligned with ``mmlu_meta``.
    subject_of_item : ndarray of object
        The subject of each of the test split's items.
    """
    missing = {"model", "item_id", "correct"} - set(responses.columns)
    if missing:
        raise ValueError(f"responses must have columns model, item_id, correct; missing {sorted(missing)}")
    offsets = mmlu_subject_offsets()
    subj_of_item = np.empty(MMLU_ROWS["test"], dtype=object)
    for s, o in offsets.items():
        n_s = int(mmlu_meta.set_index("subject").loc[s, "n_test_items"])
        subj_of_item[o : o + n_s] = s
    out = {}
    for model, g in responses.groupby("model"):
        by = g.assign(subject=subj_of_item[g["item_id"].to_numpy()]).groupby("subject")["correct"].agg(["sum", "count"])
        by = by.reindex(mmlu_meta["subject"])
        out[model] = (by["sum"].to_numpy(int), by["count"].to_numpy(int))
    return out, subj_of_item


def seed_simulation_parameters(mean: float = GEMMA2_9B_MMLU_ACCURACY, halfwidth: float = LIN_GEMMA2_9B_HALFWIDTH,
                               delta: float = 0.05) -> dict:
    """SIMULATION parameters set from the seed's figures for Gemma 2 9B.

    Mean accuracy ``mean`` (0.71 makes the seed's 0.75 % a Wald half-width on 14,042
    items) and the subject standard deviation that makes the hierarchical half-width of
    the subject-macro score equal ``halfwidth`` (the seed's 5.2 %) under one Beta law for
    all of MMLU's 57 subjects.

    Parameters
    ----------
    mean : float, default=:data:`semvar.papers.GEMMA2_9B_MMLU_ACCURACY`
    halfwidth : float, default=:data:`semvar.papers.LIN_GEMMA2_9B_HALFWIDTH`
    delta : float, default=0.05

    Returns
    -------
    dict
        ``mean``, ``sd`` (subject standard deviation) and the Beta parameters ``a``, ``b``.

    Examples
    --------
    >>> par = seed_simulation_parameters()
    >>> 0.05 < par["sd"] < 0.1689     # inside the seed's reported spread
    True
    """
    from scipy import optimize

    mean = check_real(mean, "mean", low=0.0, high=1.0, low_open=True, high_open=True)
    halfwidth = check_real(halfwidth, "halfwidth", low=0.0, low_open=True)
    delta = _check_delta(delta)
    n = mmlu_subjects()["n_test_items"].to_numpy()

    def hw(sd):
        a, b = ex.beta_from_mean_sd(mean, sd)
        return ex.macro_halfwidth(n, ex.beta_subgaussian_proxy(a, b), delta)

    sd = optimize.brentq(lambda s: hw(s) - halfwidth, 0.01, 0.3, xtol=1e-8)
    a, b = ex.beta_from_mean_sd(mean, sd)
    return {"mean": mean, "sd": float(sd), "a": a, "b": b}


# --------------------------------------------------------------------------- real models' answers (chapter 12)

_Z95 = 1.959963984540054  # the standard normal 0.975 quantile


def _domain_of_subject(meta) -> np.ndarray:
    return meta["category"].to_numpy()


def _wide(responses: pd.DataFrame) -> pd.DataFrame:
    """Items x models 0/1 table over the items every model answered (rows sorted by item id)."""
    missing = {"model", "item_id", "correct"} - set(responses.columns)
    if missing:
        raise ValueError(f"responses must have columns model, item_id, correct; missing {sorted(missing)}")
    wide = responses.pivot(index="item_id", columns="model", values="correct").sort_index()
    wide.columns.name = None
    return wide.dropna().astype(int)


def _check_meta(meta) -> pd.DataFrame:
    need = {"subject", "n_test_items", "category"}
    if not need <= set(meta.columns):
        raise ValueError(f"mmlu_meta must have the columns {sorted(need)} (semvar.data.mmlu_subjects())")
    return meta


def accuracy_table(responses: pd.DataFrame, mmlu_meta: pd.DataFrame, delta: float = 0.05, *,
                   method: str = "mle") -> pd.DataFrame:
    """Per model: accuracy with its i.i.d. and exchangeable (sigma_eff) half-widths.

    Parameters
    ----------
    responses : pandas.DataFrame
        Long table ``model, item_id, correct`` (e.g. :func:`semvar.data.load_helm_mmlu`).
    mmlu_meta : pandas.DataFrame
        One row per subject (``subject``, ``n_test_items``, ``category``), in
        alphabetical subject order (:func:`semvar.data.mmlu_subjects` sorted).
    delta : float, default=0.05
    method : {"mle", "moments"}, default="mle"
        The beta-binomial fit of each domain's subject accuracies.

    Returns
    -------
    pandas.DataFrame
        Indexed by model: ``items``; ``accuracy`` (item average) with ``wald``
        (``z sqrt(p(1-p)/N)``), ``hoeffding`` (``sqrt(log(2/delta)/(2N))``) and
        ``exchangeable`` (:func:`semvar.exchangeable.micro_halfwidth` with the
        fitted Marchal-Arbel proxies) half-widths; ``macro`` (subject average)
        with ``iid_macro`` and ``exchangeable_macro``
        (:func:`semvar.exchangeable.hierarchical_macro_halfwidth`).  One Beta
        law per domain (Lin, Frei & de la Peña 2026, the domain-aware
        hierarchy).
    """
    meta = _check_meta(mmlu_meta)
    delta = _check_delta(delta)
    counts, _ = subject_counts(responses, meta)
    dom = _domain_of_subject(meta)
    rows = []
    for model, (k, n) in counts.items():
        if np.any(n == 0):
            raise ValueError(f"model {model!r} answered no item of some subject; the hierarchy needs every subject")
        h = ex.hierarchical_macro_halfwidth(k, n, dom, delta, method=method)
        total, acc = int(n.sum()), float(k.sum() / n.sum())
        rows.append({
            "model": model, "items": total, "accuracy": acc,
            "wald": ex.wald_halfwidth(acc, total, delta), "hoeffding": ex.hoeffding_halfwidth(total, delta),
            "exchangeable": ex.micro_halfwidth(n, h["sigma2_mix"], delta),
            "macro": h["macro"], "iid_macro": h["iid_halfwidth"], "exchangeable_macro": h["halfwidth"],
        })
    return pd.DataFrame(rows).set_index("model").sort_values("accuracy", ascending=False, kind="stable")


def split_half_table(responses: pd.DataFrame, mmlu_meta: pd.DataFrame, n_splits: int = 100, *,
                     random_state: RandomStateLike = 0) -> pd.DataFrame:
    """Within-domain split-half correlations of subject accuracies, per model and domain.

    For each model and domain: the mean over ``n_splits`` random splits of
    :func:`semvar.exchangeable.split_half_correlations` across the domain's
    subjects (the same random splits for every model).

    Returns
    -------
    pandas.DataFrame
        Models x domains.
    """
    meta = _check_meta(mmlu_meta)
    n_splits = check_int(n_splits, "n_splits", low=1)
    wide = _wide(responses)
    subj_of_item = _subject_of_item(meta)[wide.index.to_numpy()]
    dom_of_item = meta.set_index("subject")["category"].reindex(subj_of_item).to_numpy()
    out = {}
    for d in sorted(set(dom_of_item)):
        idx = dom_of_item == d
        out[d] = {m: float(np.nanmean(ex.split_half_correlations(wide[m].to_numpy()[idx], subj_of_item[idx], n_splits,
                                                                  random_state=random_state)))
                  for m in wide.columns}
    return pd.DataFrame(out)


def subject_spread_table(responses: pd.DataFrame, mmlu_meta: pd.DataFrame) -> pd.DataFrame:
    """Per model: how much subject accuracies spread beyond binomial noise.

    Returns
    -------
    pandas.DataFrame
        Indexed by model: ``subject_sd`` (standard deviation of the 57
        subject accuracies, ddof 1), ``binomial_sd`` (the spread that
        binomial noise alone gives at the pooled accuracy,
        ``sqrt(mean_s p(1-p)/n_s)``), their ``ratio``, the chi-square test of
        one accuracy for all subjects (``homogeneity_p``), and the ``lowest``
        and ``highest`` subject accuracies.
    """
    meta = _check_meta(mmlu_meta)
    counts, _ = subject_counts(responses, meta)
    rows = []
    for model, (k, n) in counts.items():
        y = k / n
        p = k.sum() / n.sum()
        binom = float(np.sqrt(np.mean(p * (1 - p) / n)))
        sd = float(np.std(y, ddof=1))
        degenerate = binom == 0  # every answer right (or every one wrong): no spread and no test
        rows.append({"model": model, "subject_sd": sd, "binomial_sd": binom,
                     "ratio": float("nan") if degenerate else sd / binom,
                     "homogeneity_p": float("nan") if degenerate else float(stats.chi2_contingency(np.c_[k, n - k])[1]),
                     "lowest": float(y.min()), "highest": float(y.max())})
    return pd.DataFrame(rows).set_index("model")


def exact_subsample_deviation(successes: int, N: int, n: int, *, t: float | None = None, q: float = 0.95) -> dict:
    """The exact law of ``|mean_n - mean_N|`` for a uniformly random n-subset of a fixed 0/1 population.

    With ``k`` ones among ``N`` items, the number of ones in the subset is
    hypergeometric, so the deviation's law is known exactly; no simulation.

    Parameters
    ----------
    successes : int
        ``k``, the number of ones (correct answers) in the population.
    N, n : int
        Population and subset sizes, ``1 <= n <= N``.
    t : float, optional
        A threshold whose exceedance probability ``P(|dev| >= t)`` is wanted.
    q : float, default=0.95
        The quantile wanted.

    Returns
    -------
    dict
        ``quantile`` (the smallest deviation ``d`` with ``P(|dev| <= d) >= q``),
        ``sd`` (the deviation's standard deviation), and ``exceedance``
        (``P(|dev| >= t)``, when ``t`` is given).

    Examples
    --------
    >>> r = exact_subsample_deviation(7021, 14042, 5000, t=ex.subsample_halfwidth(5000, 14042, 0.05))
    >>> round(100 * r["quantile"], 2), r["exceedance"] < 0.01
    (1.12, True)
    """
    N = check_int(N, "N", low=1)
    n = check_int(n, "n", low=1, high=N)
    k = check_int(successes, "successes", low=0, high=N)
    q = check_real(q, "q", low=0.0, high=1.0, low_open=True, high_open=True)
    K = np.arange(max(0, n - (N - k)), min(n, k) + 1)
    pmf = stats.hypergeom.pmf(K, N, k, n)
    # |K/n - k/N| from integers, so that equal deviations compare equal on every CPU
    num = np.abs(K * N - k * n)
    order = np.argsort(num, kind="stable")
    cdf = np.cumsum(pmf[order])
    j = min(int(np.searchsorted(cdf, q * cdf[-1])), len(order) - 1)
    out = {"quantile": float(num[order][j] / (n * N)),
           "sd": float(np.sqrt(np.sum(pmf * (num / (n * N)) ** 2) / np.sum(pmf)))}
    if t is not None:
        t = check_real(t, "t", low=0.0)
        out["exceedance"] = float(np.sum(pmf[num >= t * n * N]))
    return out


def subsample_table(responses: pd.DataFrame, n: int = 5000, n_reps: int = 2000, delta: float = 0.05, *,
                    random_state: RandomStateLike = 0) -> pd.DataFrame:
    """Per model: random n-subsets of its real answer vector against the subsample-vs-full bound.

    Returns
    -------
    pandas.DataFrame
        Indexed by model: ``N`` (items answered), ``accuracy``, ``bound``
        (:func:`semvar.exchangeable.subsample_halfwidth` at ``n`` of ``N``),
        the simulated ``q95`` and ``max`` deviation and ``exceed`` share over
        ``n_reps`` subsets (:func:`subsample_exceedance`), and the exact
        ``exact_q95`` and ``exact_exceed`` (:func:`exact_subsample_deviation`).
    """
    wide = _wide(responses)
    rows = []
    for m in wide.columns:
        x = wide[m].to_numpy()
        sim = subsample_exceedance(x, n, n_reps, delta, random_state=random_state)
        exact = exact_subsample_deviation(int(x.sum()), len(x), n, t=sim["bound"], q=1 - delta)
        rows.append({"model": m, "N": len(x), "accuracy": float(x.mean()), "bound": sim["bound"], "q95": sim["q95"],
                     "max": sim["max"], "exceed": sim["exceed"], "exact_q95": exact["quantile"],
                     "exact_exceed": exact["exceedance"]})
    return pd.DataFrame(rows).set_index("model")


def paired_table(responses: pd.DataFrame, delta: float = 0.05) -> pd.DataFrame:
    """Every pair of models compared on the items both answered, as a zero-sum contrast.

    Returns
    -------
    pandas.DataFrame
        One row per pair (``a``, ``b``, with ``a`` the more accurate):
        ``acc_a``, ``acc_b``, ``difference``, ``discordant`` (items exactly
        one of them got right), ``paired`` (:func:`semvar.exchangeable.paired_halfwidth`),
        ``unpaired`` (the Wald half-width of a difference of two independent
        proportions, which ignores that the items are shared) and
        ``resolved`` (``difference >= paired``).
    """
    delta = _check_delta(delta)
    wide = _wide(responses)
    order = wide.mean().sort_values(ascending=False, kind="stable").index.tolist()
    N = len(wide)
    z = float(stats.norm.ppf(1 - delta / 2))
    rows = []
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            xa, xb = wide[a].to_numpy(), wide[b].to_numpy()
            pa, pb = xa.mean(), xb.mean()
            hw = ex.paired_halfwidth(xa, xb, delta)
            rows.append({"a": a, "b": b, "acc_a": pa, "acc_b": pb, "difference": pa - pb,
                         "discordant": int(np.sum(xa != xb)), "paired": hw,
                         "unpaired": z * float(np.sqrt(pa * (1 - pa) / N + pb * (1 - pb) / N)),
                         "resolved": bool(pa - pb >= hw)})
    return pd.DataFrame(rows)


def subject_split_coverage(responses: pd.DataFrame, mmlu_meta: pd.DataFrame, n_splits: int = 100, delta: float = 0.05,
                           *, random_state: RandomStateLike = 0) -> pd.DataFrame:
    """Do i.i.d. and exchangeable half-widths of the subject-macro score predict other subjects?

    The subject-macro score estimates a model's ability over a population of
    subjects.  Split the subjects of each domain at random into two halves
    of equal size (one subject left out where a domain has an odd number),
    compute each half's macro score and half-width, and ask whether
    ``|macro_A - macro_B| < sqrt(h_A**2 + h_B**2)``: the two halves are
    independent draws of subjects from the same domain laws, so a valid
    half-width for each makes that a valid half-width for their difference
    (sub-Gaussian proxies of independent terms add).  The exchangeable
    half-width uses beta-binomial moment fits on each half's own subjects.

    Returns
    -------
    pandas.DataFrame
        Indexed by model: ``iid`` and ``exchangeable``, the share of splits
        in which each covers; ``mean_gap`` (mean ``|macro_A - macro_B|``),
        ``mean_iid`` and ``mean_exchangeable`` (mean combined half-widths).
    """
    meta = _check_meta(mmlu_meta)
    n_splits = check_int(n_splits, "n_splits", low=1)
    delta = _check_delta(delta)
    rng = np.random.default_rng(random_state)
    counts, _ = subject_counts(responses, meta)
    dom = _domain_of_subject(meta)
    splits = []
    for _ in range(n_splits):
        first: list[int] = []
        second: list[int] = []
        for d in sorted(set(dom)):
            idx = rng.permutation(np.flatnonzero(dom == d))
            idx = idx[len(idx) % 2:]
            first.extend(idx[: len(idx) // 2])
            second.extend(idx[len(idx) // 2:])
        splits.append((np.array(first), np.array(second)))
    rows = []
    for model, (k, n) in counts.items():
        gap, hw_iid, hw_ex = [], [], []
        for half_a, half_b in splits:
            hs = [ex.hierarchical_macro_halfwidth(k[s], n[s], dom[s], delta, method="moments") for s in (half_a, half_b)]
            gap.append(abs(hs[0]["macro"] - hs[1]["macro"]))
            hw_iid.append(float(np.hypot(hs[0]["iid_halfwidth"], hs[1]["iid_halfwidth"])))
            hw_ex.append(float(np.hypot(hs[0]["halfwidth"], hs[1]["halfwidth"])))
        gaps, iid, exch = np.array(gap), np.array(hw_iid), np.array(hw_ex)
        rows.append({"model": model, "iid": float(np.mean(gaps < iid)), "exchangeable": float(np.mean(gaps < exch)),
                     "mean_gap": float(gaps.mean()), "mean_iid": float(iid.mean()), "mean_exchangeable": float(exch.mean())})
    return pd.DataFrame(rows).set_index("model")


def redux_effect(responses: pd.DataFrame, redux: pd.DataFrame, delta: float = 0.05) -> pd.DataFrame:
    """How the questions that MMLU-Redux's experts flagged move each model's accuracy and rank.

    Parameters
    ----------
    responses : pandas.DataFrame
        Long table ``model, item_id, correct`` (e.g. :func:`semvar.data.load_helm_mmlu`).
    redux : pandas.DataFrame
        :func:`semvar.data.load_mmlu_redux`; its questions with an ``item_id``
        are used, ``flagged`` where ``error_type != "ok"``.
    delta : float, default=0.05

    Returns
    -------
    pandas.DataFrame
        Indexed by model: ``items`` (annotated questions the model answered),
        ``accuracy`` (on all of them, MMLU's key), ``accuracy_ok`` (on the
        unflagged ones), ``shift`` (the difference), ``accuracy_flagged``,
        ``wald`` (the Wald half-width of ``accuracy``), ``rank`` and
        ``rank_ok`` (1 = best).
    """
    delta = _check_delta(delta)
    if not {"item_id", "error_type"} <= set(redux.columns):
        raise ValueError("redux must be the frame of semvar.data.load_mmlu_redux (columns item_id, error_type)")
    annotated = redux.dropna(subset=["item_id"])
    flag = pd.Series((annotated["error_type"] != "ok").to_numpy(), index=annotated["item_id"].astype(int).to_numpy())
    wide = _wide(responses)
    common = wide.index.intersection(flag.index)
    wide, flag = wide.loc[common], flag.loc[common].to_numpy()
    acc, ok, bad = wide.mean(), wide[~flag].mean(), wide[flag].mean()
    out = pd.DataFrame({"items": len(common), "accuracy": acc, "accuracy_ok": ok, "shift": ok - acc,
                        "accuracy_flagged": bad,
                        "wald": [ex.wald_halfwidth(float(p), len(common), delta) for p in acc]})
    out["rank"] = out["accuracy"].rank(ascending=False, method="min").astype(int)
    out["rank_ok"] = out["accuracy_ok"].rank(ascending=False, method="min").astype(int)
    out.attrs["flagged"] = int(flag.sum())
    return out.sort_values("accuracy", ascending=False, kind="stable")


def redux_responses(redux: pd.DataFrame) -> pd.DataFrame:
    """The MMLU-Redux models' answers as a long response table, scored against MMLU's key.

    Parameters
    ----------
    redux : pandas.DataFrame
        :func:`semvar.data.load_mmlu_redux`.

    Returns
    -------
    pandas.DataFrame
        ``model, item_id, correct`` for the questions matched to an MMLU test
        row (``correct``: the stripped answer equals ``groundtruth``; any
        other answer is wrong).
    """
    models = redux.attrs.get("models")
    if not models or not {"item_id", "groundtruth"} <= set(redux.columns):
        raise ValueError("redux must be the frame of semvar.data.load_mmlu_redux (columns item_id, groundtruth, attrs models)")
    matched = redux.dropna(subset=["item_id"])
    ids = matched["item_id"].astype(int).to_numpy()
    return pd.concat([pd.DataFrame({"model": m, "item_id": ids,
                                    "correct": (matched[m] == matched["groundtruth"]).to_numpy().astype(int)})
                      for m in models], ignore_index=True)


def gaussian_level_check(n_items: int, a: float, b: float, n_reps: int = 200_000, delta: float = 0.05, *,
                         random_state: RandomStateLike = 0) -> dict:
    """SIMULATION: is ``sigma2_eff`` the variance at the Gaussian level, and is each of its terms needed?

    Draws the mean of ``n_items`` binary items exchangeable through
    ``p ~ Beta(a, b)`` and compares the simulated ``1 - delta`` quantile of
    ``|mean - a/(a+b)|`` with ``z_{1-delta/2}`` times the standard deviation
    implied by ``sigma2_eff = 1/(4n) + sigma2_mix`` (Marchal-Arbel proxy),
    and by each term alone.

    Returns
    -------
    dict
        ``quantile`` (simulated), ``gaussian_eff``, ``gaussian_sampling_only``,
        ``gaussian_mixture_only`` and the ratio of each to ``quantile``
        (``ratio_eff``, ``ratio_sampling_only``, ``ratio_mixture_only``),
        and ``mixture_share`` of ``sigma2_eff``.
    """
    n_items = check_int(n_items, "n_items", low=1)
    delta = _check_delta(delta)
    means, _ = simulate_exchangeable_means(n_items, a, b, n_reps, random_state=random_state)
    q = float(np.quantile(np.abs(means - a / (a + b)), 1 - delta))
    z = float(stats.norm.ppf(1 - delta / 2))
    s_samp, s_mix = 1.0 / (4.0 * n_items), ex.beta_subgaussian_proxy(a, b)
    s_eff = ex.effective_variance(np.full(n_items, 1.0 / n_items), s_mix)
    g = {"eff": z * np.sqrt(s_eff), "sampling_only": z * np.sqrt(s_samp), "mixture_only": z * np.sqrt(s_mix)}
    out = {"quantile": q, "mixture_share": s_mix / s_eff}
    for k, v in g.items():
        out[f"gaussian_{k}"] = float(v)
        out[f"ratio_{k}"] = float(v / q)
    return out


# --------------------------------------------------------------------------- the six models of Lin et al.

LIN_MODEL_KEYS = {
    "gemma-2-2b": "Gemma 2 2B",
    "gemma-2-9b": "Gemma 2 9B",
    "gemma-3-4b": "Gemma 3 4B",
    "qwen3-0.6b": "Qwen3 0.6B",
    "qwen3-1.7b": "Qwen3 1.7B",
    "qwen3-8b": "Qwen3 8B",
}
"""Folder-name key -> model, for the six models of Lin, Frei & de la Peña (2026)."""

LIN_FOLDER = "lin2026"
"""Subfolder of a data directory that holds their lm-evaluation-harness ``--log_samples`` output."""


def lin2026_responses(data_dir: str | os.PathLike | None = None) -> dict:
    """Item-level MMLU responses of the six models of Lin, Frei & de la Peña (2026), where present.

    The expected layout is what ``lm_eval --tasks mmlu --log_samples
    --output_path <data dir>/lin2026`` writes: one folder per model, named
    after it (e.g. ``google__gemma-2-9b``; any name containing one of
    :data:`LIN_MODEL_KEYS` as a whole word, such as ``gemma-2-9b-it`` or
    ``Qwen__Qwen3-8B``, case-insensitive), holding
    ``samples_mmlu_<subject>_<time>.jsonl`` files, read with
    :func:`semvar.data.load_lm_eval_samples`.  The first data directory
    (:func:`semvar.data.candidate_dirs`) with a ``lin2026/`` folder is used;
    other folders in it are ignored.

    Parameters
    ----------
    data_dir : path-like, optional

    Returns
    -------
    dict
        Key of :data:`LIN_MODEL_KEYS` -> response table (``model, item_id,
        correct``), for every one of the six models whose folder is present.

    Raises
    ------
    DataNotFoundError
        No data directory has a ``lin2026/`` folder with a folder of one of
        the six models.
    ValueError
        Two folders for one model, a model whose files do not cover all 57
        subjects (the statistics need every subject), or what
        :func:`semvar.data.load_lm_eval_samples` refuses.
    """
    roots = [d / LIN_FOLDER for d in candidate_dirs(data_dir) if (d / LIN_FOLDER).is_dir()]
    found: dict[str, Path] = {}
    if roots:
        root = roots[0]
        for folder in sorted(p for p in root.iterdir() if p.is_dir()):
            name = folder.name.lower()
            for k in LIN_MODEL_KEYS:
                if re.search(rf"(^|[^a-z0-9.]){re.escape(k)}($|[^a-z0-9.])", name):
                    if k in found:
                        raise ValueError(f"{root}: two folders for {LIN_MODEL_KEYS[k]}: {found[k].name} and {folder.name}")
                    found[k] = folder
    if not found:
        looked = ", ".join(str(d / LIN_FOLDER) for d in candidate_dirs(data_dir)) or "(no data directory)"
        raise DataNotFoundError(
            f"no lm-evaluation-harness --log_samples output of the six models (folders named like "
            f"{', '.join(LIN_MODEL_KEYS)}) in {looked}; run e.g. `lm_eval --model hf --model_args "
            "pretrained=google/gemma-2-9b --tasks mmlu --log_samples --output_path <data dir>/lin2026`"
        )
    subject_of_item = _subject_of_item(mmlu_subjects_sorted())
    n_all = len(set(subject_of_item))
    out = {}
    for k, folder in found.items():
        r = load_lm_eval_samples(folder, model=k)
        n_subjects = len(set(subject_of_item[r["item_id"].to_numpy()]))
        if n_subjects != n_all:
            raise ValueError(f"{folder}: the samples cover {n_subjects} of MMLU's {n_all} subjects; all are needed")
        out[k] = r
    return out


def mmlu_subjects_sorted() -> pd.DataFrame:
    """:func:`semvar.data.mmlu_subjects` in alphabetical subject order (the order of item ids)."""
    return mmlu_subjects().sort_values("subject").reset_index(drop=True)


def _subject_of_item(meta) -> np.ndarray:
    out = np.empty(MMLU_ROWS["test"], dtype=object)
    sizes = meta.set_index("subject")["n_test_items"]
    for s, o in mmlu_subject_offsets().items():
        out[o: o + int(sizes[s])] = s
    return out
