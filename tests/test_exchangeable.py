import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar import exchangeable as ex
from semvar.exchangeable.proxies import _proxy_ratio
from semvar.experiments.exchangeable_sim import simulate_exchangeable_means, simulate_hierarchical

# ---------------------------------------------------------------- oracle values


def test_subsample_halfwidth_matches_the_paper():
    # Lin, Frei & de la Pena (2026): 5,000 of MMLU's 14,042 items give +-1.54 pp at 95 %.
    assert round(ex.subsample_halfwidth(5000, 14042, 0.05), 5) == 0.01541


def test_subsample_halfwidth_by_hand():
    # n = 1, N = 2, R = 1: sum(a^2) = 1/2, t = sqrt(2 * (1/8) * log(2/delta)) = sqrt(log(2/delta)/4)
    assert ex.subsample_halfwidth(1, 2, 0.5) == pytest.approx(math.sqrt(math.log(4.0) / 4.0))
    assert ex.subsample_halfwidth(7, 7, 0.1) == 0.0
    assert ex.subsample_halfwidth(10, 100, 0.05, value_range=2.0) == pytest.approx(2 * ex.subsample_halfwidth(10, 100, 0.05))


def test_subsample_bound_is_the_contrast_bound():
    a = ex.subsample_contrast(30, 80)
    assert a.sum() == pytest.approx(0.0, abs=1e-12)
    assert (a**2).sum() == pytest.approx((80 - 30) / (30 * 80))
    s2 = ex.contrast_variance_proxy(a)
    assert ex.halfwidth(s2, 0.05) == pytest.approx(ex.subsample_halfwidth(30, 80, 0.05))


def test_subsample_size_inverts_the_halfwidth():
    for t in (0.01, 0.02, 0.005):
        n = ex.subsample_size(t, 14042, 0.05)
        assert ex.subsample_halfwidth(n, 14042, 0.05) <= t < ex.subsample_halfwidth(n - 1, 14042, 0.05)


def test_hoeffding_and_wald_by_hand():
    assert ex.hoeffding_halfwidth(100, 0.05) == pytest.approx(math.sqrt(math.log(40) / 200))
    assert ex.wald_halfwidth(0.5, 100, 0.05) == pytest.approx(1.959964 * 0.05, rel=1e-6)


def test_effective_variance_tail_and_halfwidth():
    assert ex.effective_variance([1.0, 1.0, 2.0], 0.5) == pytest.approx(6 / 4 + 0.5)
    t = ex.halfwidth(2.0, 0.05)
    assert ex.tail_bound(t, 2.0) == pytest.approx(0.05)
    assert ex.tail_bound(0.0, 1.0) == 1.0


def test_serfling_is_close_to_the_mixture_free_bound():
    s = ex.serfling_halfwidth(5000, 14042, 0.05)
    m = ex.subsample_halfwidth(5000, 14042, 0.05)
    assert m < s < m * 1.0001


# ---------------------------------------------------------------- sub-Gaussian proxies


def _mp_ratio(lam, a, b):
    mpmath.mp.dps = 40
    k = mpmath.log(mpmath.hyp1f1(a, a + b, lam)) - lam * mpmath.mpf(a) / (a + b)
    return float(2 * k / lam**2)


@pytest.mark.parametrize("lam", [-700.0, -35.0, -0.7, 0.3, 12.0, 650.0])
def test_beta_log_mgf_matches_mpmath(lam):
    a, b = 60.0, 25.0
    mu = a / (a + b)
    assert _proxy_ratio(lam, a, b, mu) == pytest.approx(_mp_ratio(lam, a, b), rel=1e-8)


@pytest.mark.parametrize("a,b", [(2.0, 5.0), (7.0, 3.0), (0.5, 3.0), (40.0, 12.0)])
def test_beta_proxy_is_the_supremum(a, b):
    proxy = ex.beta_subgaussian_proxy(a, b)
    # an independent brute-force supremum on a dense grid with mpmath
    lams = np.concatenate([-np.logspace(-1, 3, 300), np.logspace(-1, 3, 300)])
    brute = max(_mp_ratio(float(l), a, b) for l in lams)
    assert brute <= proxy * (1 + 1e-9)
    assert proxy == pytest.approx(brute, rel=1e-4)


def test_beta_proxy_tends_to_the_bernoulli_proxy():
    # Beta(p e, (1-p) e) -> Bernoulli(p) as e -> 0; Kearns-Saul's closed form is the limit
    for p in (0.3, 0.8):
        eps = 1e-5
        assert ex.beta_subgaussian_proxy(p * eps, (1 - p) * eps) == pytest.approx(
            ex.bernoulli_subgaussian_proxy(p), rel=1e-3
        )


def test_bernoulli_proxy_by_hand():
    p = 0.2
    assert ex.bernoulli_subgaussian_proxy(p) == pytest.approx(0.6 / (2 * math.log(4.0)))
    assert ex.bernoulli_subgaussian_proxy(0.0) == 0.0


@settings(max_examples=15, deadline=None)
@given(a=st.floats(0.2, 50.0), b=st.floats(0.2, 50.0))
def test_beta_proxy_properties(a, b):
    var = ex.beta_variance(a, b)
    proxy = ex.beta_subgaussian_proxy(a, b)
    assert proxy >= var * (1 - 1e-12)
    assert proxy <= ex.beta_proxy_upper_bound(a, b) * (1 + 1e-6)
    assert proxy <= ex.bernoulli_subgaussian_proxy(a / (a + b)) * (1 + 1e-6)
    if abs(a - b) > 0.05:
        assert proxy > var * (1 + 1e-6)


@settings(max_examples=10, deadline=None)
@given(a=st.floats(0.2, 60.0))
def test_beta_proxy_equals_variance_when_symmetric(a):
    assert ex.beta_subgaussian_proxy(a, a) == pytest.approx(ex.beta_variance(a, a), rel=1e-4)


# ---------------------------------------------------------------- beta-binomial


def test_moment_fit_by_hand():
    # y = .05, .5, .95: mean .5, s^2 = .2025, h = .01, rho = (.81 - .01)/.99
    fit = ex.fit_beta_binomial([5, 50, 95], [100, 100, 100], method="moments")
    assert fit.mean == pytest.approx(0.5)
    assert fit.rho == pytest.approx(0.8 / 0.99)
    assert fit.a == pytest.approx(0.5 * (0.99 / 0.8 - 1))


def test_fits_recover_simulated_parameters():
    rng = np.random.default_rng(3)
    n = np.full(400, 200)
    p = rng.beta(6.0, 3.0, size=400)
    k = rng.binomial(n, p)
    for method in ("moments", "mle"):
        fit = ex.fit_beta_binomial(k, n, method=method)
        assert fit.mean == pytest.approx(6 / 9, abs=0.02)
        assert fit.a + fit.b == pytest.approx(9.0, rel=0.2)


def test_mle_beats_moments_in_likelihood():
    k, n = [3, 10, 22, 15, 30], [40, 40, 50, 30, 45]
    mle = ex.fit_beta_binomial(k, n, method="mle")
    mom = ex.fit_beta_binomial(k, n, method="moments")
    assert mle.loglik >= mom.loglik - 1e-6


def test_no_overdispersion_gives_zero_mixture():
    k = [25, 25, 25, 25]
    fit = ex.fit_beta_binomial(k, [100] * 4, method="moments")
    assert fit.rho == 0.0 and math.isinf(fit.a) and fit.proxy() == 0.0


# ---------------------------------------------------------------- hierarchical model


def test_macro_halfwidth_by_hand():
    # S = 2, n = (50, 200), sigma2 = (0.01, 0.02): sigma2_eff = (1/16)(1/50 + 1/200) + (0.03)/4
    s2 = (1 / 50 + 1 / 200) / 16 + 0.03 / 4
    assert ex.macro_halfwidth([50, 200], [0.01, 0.02], 0.05) == pytest.approx(math.sqrt(2 * s2 * math.log(40)))
    assert ex.iid_macro_halfwidth([50, 200], 0.05) < ex.macro_halfwidth([50, 200], [0.01, 0.02], 0.05)


def test_hierarchical_halfwidth_covers_in_simulation():
    trials = np.array([100, 150, 200, 120, 300, 90] * 3)
    domains = np.array(["x"] * 9 + ["y"] * 9)
    params = {"x": (7.0, 3.0), "y": (4.0, 4.0)}
    truth = (0.7 * 9 + 0.5 * 9) / 18
    sim = simulate_hierarchical(trials, domains, params, 2000, random_state=0)
    macro = (sim["successes"] / trials).mean(axis=1)
    s2 = np.where(domains == "x", ex.beta_subgaussian_proxy(7, 3), ex.beta_subgaussian_proxy(4, 4))
    hw = ex.macro_halfwidth(trials, s2, 0.05)
    iid = ex.iid_macro_halfwidth(trials, 0.05)
    assert np.mean(np.abs(macro - truth) <= hw) >= 0.95
    assert np.mean(np.abs(macro - truth) <= iid) < 0.8


def test_split_half_separates_iid_from_heterogeneous():
    rng = np.random.default_rng(1)
    groups = np.repeat(np.arange(40), 100)
    iid = rng.binomial(1, 0.4, size=groups.size)
    het = rng.binomial(1, rng.beta(2, 3, size=40)[groups])
    r_iid = np.mean([ex.split_half_correlation(iid, groups, random_state=s) for s in range(5)])
    r_het = np.mean([ex.split_half_correlation(het, groups, random_state=s) for s in range(5)])
    assert abs(r_iid) < 0.3 and r_het > 0.8


def test_simulators_are_reproducible():
    m1, p1 = simulate_exchangeable_means(10, 2, 2, 5, random_state=4)
    m2, p2 = simulate_exchangeable_means(10, 2, 2, 5, random_state=4)
    assert np.array_equal(m1, m2) and np.array_equal(p1, p2)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "args,match",
    [
        ((5001, 5000, 0.05), "n must be <= N"),
        ((0, 5000, 0.05), "n must be >= 1"),
        ((10, 100, 0.0), r"delta must lie in \(0.0, 1.0\)"),
        ((10, 100, 1.0), r"delta must lie in \(0.0, 1.0\)"),
        ((10, 100, 0.05, -1.0), "value_range"),
        ((10.5, 100, 0.05), "n must be an integer"),
    ],
)
def test_subsample_halfwidth_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        ex.subsample_halfwidth(*args)


@pytest.mark.parametrize("a,b", [(0.0, 1.0), (1.0, -2.0), (float("nan"), 1.0), (float("inf"), 1.0)])
def test_beta_functions_refuse_bad_parameters(a, b):
    for fn in (ex.beta_subgaussian_proxy, ex.beta_variance, ex.beta_proxy_upper_bound):
        with pytest.raises(ValueError, match="must"):
            fn(a, b)


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


def test_gaussian_tightness_by_hand():
    # p ~ Beta(1, 1), one item: X is Bernoulli(1/2) marginally, Var = 1/4; sigma2_eff = 1/4 + 1/12 = 1/3
    from semvar.experiments.mmlu_bounds import gaussian_tightness

    g = gaussian_tightness(1, 1.0)
    assert g["Var(mean)"] == pytest.approx(0.25) and g["sigma2_eff"] == pytest.approx(1 / 3)
    assert g["ratio"] == pytest.approx(0.75) and g["mixture share"] == pytest.approx(0.25)
    # Var(mean) = sigma2_eff - Var(p)/n in the symmetric case
    g = gaussian_tightness(50, 3.0)
    assert g["Var(mean)"] == pytest.approx(g["sigma2_eff"] - ex.beta_variance(3, 3) / 50)


def test_public_names_resolve_and_core_does_not_import_experiments():
    import subprocess
    import sys

    assert all(hasattr(ex, name) for name in ex.__all__)
    code = "import sys, semvar.exchangeable; print(sorted(m for m in sys.modules if m.startswith('semvar.experiments')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
