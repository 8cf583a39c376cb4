"""Tests of semvar.select_k._registry: each rule registered once, its defaults read from its signature, one dispatch."""

import inspect
from pathlib import Path

import numpy as np
import pytest

from semvar.graph import sample_sbm
from semvar.pipeline import graph_entropy
from semvar.select_k import METHODS, KSelection, choose_k, consensus, select_with_core
from semvar.select_k._registry import RULES, Rule, _check_rule_weights, register, run


def _graph():
    return sample_sbm([8, 10, 12], 0.85, 0.08, random_state=5).toarray()


def test_every_rule_is_registered_once_in_the_order_of_its_rank():
    assert list(RULES) == list(METHODS) and len(RULES) >= 8  # the package's own rules at least
    ranks = [rule.rank for rule in RULES.values()]
    assert ranks == sorted(ranks)
    for name, rule in RULES.items():
        assert METHODS[name] is rule.function and rule.name == name and callable(rule.runner), name
        assert rule.spectrum in (None, "eigenvalues", "eigenpairs") and set(rule.asks) <= set(RULES), name
    with pytest.raises(ValueError, match="registered already"):
        register(RULES[next(iter(RULES))])


def test_the_public_and_documented_rules_are_the_registered_ones():
    """Every registered rule is a name of semvar.select_k, in its notes and on its API page; nothing else is."""
    from semvar import select_k

    notes = select_k.__doc__
    api = (Path(__file__).resolve().parents[2] / "book" / "api" / "spectral.md").read_text(encoding="utf-8")
    autosummary = api[api.index(".. currentmodule:: semvar.select_k"):api.index(".. automodule:: semvar.select_k")]
    listed = {line.strip() for line in autosummary.splitlines()[1:] if line.startswith("   ") and line.strip()}
    for name, rule in RULES.items():
        assert getattr(select_k, name) is rule.function and name in select_k.__all__, name
        assert f":func:`{name}`" in notes, f"{name} is not in semvar.select_k's notes"
        assert name in listed, f"{name} has no line in book/api/spectral.md's autosummary"
    rule_like = {n for n in select_k.__all__ if callable(getattr(select_k, n)) and n not in RULES
                 and list(inspect.signature(getattr(select_k, n)).parameters)[:2] == ["adjacency", "k_max"]}
    assert rule_like == set(), f"public functions shaped like a rule but not registered: {rule_like}"
    # the notes' bullet list of rules names registered rules only
    bullets = {line[len("- :func:`"):].split("`")[0] for line in notes.splitlines() if line.startswith("- :func:`")}
    assert bullets and bullets <= set(RULES)


def test_defaults_are_the_public_signatures():
    for name, rule in RULES.items():
        params = inspect.signature(rule.function).parameters.values()
        expected = {p.name: p.default for p in params
                    if p.kind is p.KEYWORD_ONLY and p.name not in ("random_state", "observed")}
        assert dict(rule.defaults) == expected, name
        assert "observed" in inspect.signature(rule.function).parameters, name  # every rule reads a mask
    assert dict(RULES["ecv"].defaults) == {"holdout": 0.1, "repeats": 3, "loss": "l2"}
    assert RULES["consensus"].asks == ("eigengap", "icl", "ncv") and RULES["icl"].asks == ("icl",)


def test_a_rule_gets_the_defaults_of_its_function():
    seen = {}

    def public(adjacency, k_max, *, alpha=0.25, random_state=None):
        """A stand-in rule."""

    def runner(A, k_max, rng, spectrum, *, alpha, observed=None):
        seen["alpha"] = alpha
        return KSelection(1, np.arange(1, k_max + 1), np.zeros(k_max), "stand-in")

    rule = Rule("stand-in", public, runner)
    assert dict(rule.defaults) == {"alpha": 0.25}
    RULES["stand-in"] = rule
    try:
        assert run(_graph(), "stand-in", 3, None).k == 1 and seen == {"alpha": 0.25}
    finally:
        del RULES["stand-in"]


def test_run_by_name_is_the_public_rule_with_its_defaults():
    A = _graph()
    for name, rule in RULES.items():
        by_name = run(A, name, 5, np.random.default_rng(3))
        options = {"random_state": 3} if rule.random_state else {}
        direct = rule.function(A, 5, **options)
        assert by_name.k == direct.k and by_name.method == direct.method, name
        np.testing.assert_array_equal(by_name.losses, direct.losses)


def test_every_caller_dispatches_through_the_registry(monkeypatch):
    """A rule replaced in the registry is what choose_k, consensus, select_with_core and the pipeline run."""
    A = _graph()
    assert choose_k(A, "eigengap", 6) == 3

    def runner(A, k_max, rng, spectrum, **defaults):
        return KSelection(5, np.arange(1, k_max + 1), np.zeros(k_max), "eigengap")

    fake = Rule("eigengap", RULES["eigengap"].function, runner, spectrum="eigenvalues", sparse=True)
    monkeypatch.setitem(RULES, "eigengap", fake)
    assert choose_k(A, "eigengap", 6) == 5
    assert consensus(A, 6, methods=("eigengap",), random_state=0).k == 5
    assert select_with_core(A, "eigengap", 6).selection.k == 5
    h, sel = graph_entropy(A, "eigengap", random_state=0, return_k=True)
    assert sel.k == 5 and h > np.log(3)


def test_weights_are_checked_for_the_rules_that_read_verdicts():
    A = _graph() * 2.0
    _check_rule_weights(A, "eigengap")  # any weights
    with pytest.raises(ValueError, match="rule 'icl' reads the adjacency's entries as verdicts"):
        _check_rule_weights(A, "icl")
    with pytest.raises(ValueError, match="rule 'consensus' asks 'icl', which reads"):
        _check_rule_weights(A, "consensus")


def test_one_decorated_function_is_a_new_rule_everywhere(monkeypatch):
    """A rule added with the decorator alone: listed, run by name, asked by consensus, chosen by the pipeline."""
    from semvar import select_k

    monkeypatch.setattr(select_k._registry, "RULES", dict(RULES))  # the package's registry, restored afterwards
    monkeypatch.setattr(select_k._registry, "METHODS", dict(METHODS))
    registry, methods = select_k._registry.RULES, select_k._registry.METHODS
    for module in (select_k, select_k.choose, select_k.combine):  # every module that holds the two dicts
        for attr, value in list(vars(module).items()):
            if value is RULES:
                monkeypatch.setattr(module, attr, registry)
            elif value is METHODS:
                monkeypatch.setattr(module, attr, methods)
    import semvar.pipeline as pipeline

    monkeypatch.setattr(pipeline, "METHODS", methods)

    @select_k.rule()
    def two_always(adjacency, k_max, *, observed=None):
        """A stand-in rule: two meanings, whatever the graph."""
        return KSelection(2, np.arange(1, k_max + 1), np.zeros(k_max), "two_always")

    assert list(registry) == [*RULES, "two_always"]  # after the package's rules (default rank)
    assert methods["two_always"] is two_always and registry["two_always"].defaults == {}
    A = sample_sbm([8, 10, 12], 0.85, 0.08, random_state=5).toarray()
    assert choose_k(A, "two_always", 6) == 2
    assert consensus(A, 6, methods=("two_always",), random_state=0).k == 2
    h, sel = graph_entropy(A, "two_always", random_state=0, return_k=True)
    assert sel.k == 2 and 0 < h <= np.log(2)
