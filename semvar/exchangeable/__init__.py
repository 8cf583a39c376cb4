"""Bounded-difference concentration for exchangeable sequences, and its use on benchmarks.

The objects of chapters 11-12 (Lin, Frei & de la Peña 2026), one module each:

- :mod:`~semvar.exchangeable.concentration` - the effective variance proxy of
  a bounded-difference function of an infinitely exchangeable sequence,
  ``sigma2_eff = sum(c**2) / 4 + sigma2_mix`` (their Theorem 4.2), its
  two-sided tail and the half-width it gives;
- :mod:`~semvar.exchangeable.contrasts` - zero-sum linear contrasts, whose
  mixture term vanishes (their Theorem 5.2), and the subsample-vs-full bound
  that follows;
- :mod:`~semvar.exchangeable.proxies` - sub-Gaussian variance proxies of
  bounded variables: the optimal proxy of a Beta law (Marchal & Arbel 2017),
  of a Bernoulli law (Kearns & Saul 1998), and simple upper bounds;
- :mod:`~semvar.exchangeable.betabinomial` - beta-binomial fits of subject
  accuracies;
- :mod:`~semvar.exchangeable.hierarchical` - the hierarchical,
  domain-stratified model of a benchmark, with the half-width of the
  subject-macro score under it, the item-average (micro) score's
  half-width, and split-half correlations;
- :mod:`~semvar.exchangeable.paired` - two models compared on the same items
  as a zero-sum contrast.

Simulators of exchangeable binary data live in
:mod:`semvar.experiments.exchangeable_sim` (simulation, never data).

All functions are pure: numpy in, numpy out.
"""

from .betabinomial import BetaBinomialFit, fit_beta_binomial
from .concentration import effective_variance, halfwidth, hoeffding_halfwidth, tail_bound, wald_halfwidth
from .contrasts import (
    contrast_variance_proxy,
    serfling_halfwidth,
    subsample_contrast,
    subsample_halfwidth,
    subsample_size,
)
from .hierarchical import (
    hierarchical_macro_halfwidth,
    iid_macro_halfwidth,
    macro_halfwidth,
    micro_halfwidth,
    split_half_correlation,
    split_half_correlations,
)
from .paired import paired_halfwidth
from .proxies import (
    bernoulli_subgaussian_proxy,
    beta_from_mean_sd,
    beta_proxy_upper_bound,
    beta_subgaussian_proxy,
    beta_variance,
)

__all__ = [
    "effective_variance",
    "tail_bound",
    "halfwidth",
    "hoeffding_halfwidth",
    "wald_halfwidth",
    "subsample_contrast",
    "contrast_variance_proxy",
    "subsample_halfwidth",
    "subsample_size",
    "serfling_halfwidth",
    "beta_variance",
    "beta_from_mean_sd",
    "beta_subgaussian_proxy",
    "beta_proxy_upper_bound",
    "bernoulli_subgaussian_proxy",
    "BetaBinomialFit",
    "fit_beta_binomial",
    "macro_halfwidth",
    "iid_macro_halfwidth",
    "hierarchical_macro_halfwidth",
    "split_half_correlation",
    "micro_halfwidth",
    "split_half_correlations",
    "paired_halfwidth",
]
