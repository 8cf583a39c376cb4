"""Tests of the argument checks of semvar.exchangeable and of its public names.

The shared checks live in semvar/exchangeable/_checks.py; each public function calls them at its edge.
"""

from __future__ import annotations

import pytest

from semvar import exchangeable as ex
from semvar.experiments.exchangeable_sim import simulate_exchangeable_means, simulate_hierarchical


def test_other_bad_inputs():
    with pytest.raises(ValueError, match="delta"):
        ex.halfwidth(1.0, 1.5)
    with pytest.raises(ValueError, match="sigma2_eff"):
        ex.tail_bound(1.0, 0.0)
    with pytest.raises(ValueError, match="non-negative"):
        ex.effective_variance([-1.0])
    with pytest.raises(ValueError, match="sum to zero"):
        ex.contrast_variance_proxy([1.0, 1.0])
    with pytest.raises(ValueError, match="n must be <= N"):
        ex.subsample_contrast(3, 2)
    with pytest.raises(ValueError, match="n must be <= N"):
        ex.serfling_halfwidth(3, 2, 0.05)
    with pytest.raises(ValueError, match="t must lie"):
        ex.subsample_size(0.0, 100, 0.05)
    with pytest.raises(ValueError, match="p must lie"):
        ex.bernoulli_subgaussian_proxy(1.2)
    with pytest.raises(ValueError, match="p must lie"):
        ex.wald_halfwidth(-0.1, 10)
    with pytest.raises(ValueError, match="sd must satisfy"):
        ex.beta_from_mean_sd(0.5, 0.6)
    with pytest.raises(ValueError, match="n must be >= 1"):
        ex.hoeffding_halfwidth(0, 0.05)
    with pytest.raises(ValueError, match="successes must be integers"):
        ex.fit_beta_binomial([5, 120], [100, 100])
    with pytest.raises(ValueError, match="method must be"):
        ex.fit_beta_binomial([5, 20], [100, 100], method="bayes")
    with pytest.raises(ValueError, match="at least 2 rows"):
        ex.fit_beta_binomial([5], [100])
    with pytest.raises(ValueError, match="fewer than two subjects"):
        ex.hierarchical_macro_halfwidth([5, 6, 7], [10, 10, 10], ["a", "a", "b"], 0.05)
    with pytest.raises(ValueError, match="trials must be positive"):
        ex.macro_halfwidth([0, 10], 0.0, 0.05)
    with pytest.raises(ValueError, match="only 0 and 1"):
        ex.split_half_correlation([0, 2, 1, 0], [0, 0, 1, 1])
    with pytest.raises(ValueError, match="at least three groups"):
        ex.split_half_correlation([0, 1, 1, 0], [0, 0, 1, 1])
    with pytest.raises(ValueError, match="params lacks"):
        simulate_hierarchical([10, 10], ["a", "b"], {"a": (1, 1)}, 3)
    with pytest.raises(ValueError, match="n_reps"):
        simulate_exchangeable_means(10, 1, 1, 0)
    with pytest.raises(ValueError, match="kind must be"):
        ex.fit_beta_binomial([5, 20], [100, 100]).proxy("other")


def test_public_names_resolve_and_core_does_not_import_experiments():
    import subprocess
    import sys

    assert all(hasattr(ex, name) for name in ex.__all__)
    code = "import sys, semvar.exchangeable; print(sorted(m for m in sys.modules if m.startswith('semvar.experiments')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_option_arguments_are_checked_at_the_edge():
    k, n, domains = [5, 6, 7, 8], [10, 10, 10, 10], ["a", "a", "b", "b"]
    with pytest.raises(ValueError, match=r"method must be one of \('mle', 'moments'\), got 'bayes'"):
        ex.hierarchical_macro_halfwidth(k, n, domains, 0.05, method="bayes")
    with pytest.raises(ValueError, match=r"proxy must be one of \('optimal', 'variance', 'bound', 'bernoulli'\)"):
        ex.hierarchical_macro_halfwidth(k, n, domains, 0.05, proxy="mean")
    # a fit without over-dispersion used to answer 0.0 to any kind; an unknown kind is refused whatever the fit
    flat = ex.fit_beta_binomial([25, 25, 25, 25], [100] * 4, method="moments")
    assert flat.rho == 0.0
    with pytest.raises(TypeError, match="kind must be one of"):
        flat.proxy("other")
