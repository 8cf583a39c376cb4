"""Tests of semvar.experiments.exchangeable_sim: the simulated exchangeable benchmarks of chapters 11-12.

The moments of the draws are compared with the beta-binomial formulas, written out here.
"""

from __future__ import annotations

import numpy as np
import pytest

from semvar.experiments.exchangeable_sim import simulate_exchangeable_means, simulate_hierarchical


def test_exchangeable_means_have_the_beta_binomial_moments():
    n, a, b, reps = 20, 2.0, 3.0, 40_000
    means, p = simulate_exchangeable_means(n, a, b, reps, random_state=0)
    assert means.shape == p.shape == (reps,)
    assert np.allclose(means * n, np.round(means * n)) and means.min() >= 0 and means.max() <= 1
    # E[mean] = a/(a+b); Var[mean] = ab(a+b+n) / (n (a+b)^2 (a+b+1))  (beta-binomial / n)
    mu = a / (a + b)
    var = a * b * (a + b + n) / (n * (a + b) ** 2 * (a + b + 1))
    assert means.mean() == pytest.approx(mu, abs=4 * np.sqrt(var / reps))
    assert means.var() == pytest.approx(var, rel=0.03)
    # the directing measure is Beta(a, b): mean a/(a+b), variance ab / ((a+b)^2 (a+b+1))
    assert p.mean() == pytest.approx(mu, abs=0.005)
    assert p.var() == pytest.approx(a * b / ((a + b) ** 2 * (a + b + 1)), rel=0.03)
    # given p, the mean is an average of n Bernoulli(p): its residual has variance E[p(1-p)]/n
    assert np.var(means - p) == pytest.approx(np.mean(p * (1 - p)) / n, rel=0.03)


def test_hierarchical_draws_split_each_subject_in_two_halves():
    trials = np.array([7, 10, 51, 2])
    domains = np.array(["x", "x", "y", "y"])
    sim = simulate_hierarchical(trials, domains, {"x": (8.0, 2.0), "y": (1.0, 9.0)}, 5000, random_state=1)
    assert sim["half_trials"].tolist() == [[3, 5, 25, 1], [4, 5, 26, 1]]
    for key in ("p", "successes", "half1", "half2"):
        assert sim[key].shape == (5000, 4), key
    assert np.array_equal(sim["successes"], sim["half1"] + sim["half2"])
    assert (sim["half1"] <= sim["half_trials"][0]).all() and (sim["half2"] <= sim["half_trials"][1]).all()
    # each subject draws its own accuracy from its domain's Beta: means 0.8, 0.8, 0.1, 0.1
    assert sim["p"].mean(axis=0) == pytest.approx([0.8, 0.8, 0.1, 0.1], abs=0.01)
    assert (sim["successes"] / trials).mean(axis=0) == pytest.approx([0.8, 0.8, 0.1, 0.1], abs=0.01)
    # subjects are independent given the domain parameters
    assert abs(np.corrcoef(sim["p"][:, 0], sim["p"][:, 1])[0, 1]) < 0.05


def test_the_simulators_refuse_bad_input():
    with pytest.raises(ValueError, match="one label per subject"):
        simulate_hierarchical([10, 10], ["a"], {"a": (1, 1)}, 3)
    with pytest.raises(ValueError, match=r"params lacks the domains \['b'\]"):
        simulate_hierarchical([10, 10], ["a", "b"], {"a": (1, 1)}, 3)
    with pytest.raises(ValueError):
        simulate_hierarchical([10], ["a"], {"a": (0.0, 1.0)}, 3)        # a Beta parameter must be positive
    with pytest.raises(ValueError, match="n"):
        simulate_exchangeable_means(0, 1.0, 1.0, 3)
