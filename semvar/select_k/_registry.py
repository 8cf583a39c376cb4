"""The registry of the rules for K: each rule once, with its defaults and what it needs.

A :class:`Rule` names a public function (``ncv``, ``icl``, ...) and the private
runner that does its work on a checked graph.  Its defaults are read from the
public function's signature (its keyword-only parameters), so they are
written once.  One decorator, :func:`rule`, registers a rule where it is
defined: on the runner (``@rule(ncv, random_state=True)``), or on a public
function that needs no runner of its own (``@rule(verdicts=True)``: the
runner then calls the function with its defaults).  Registering is listing:
:data:`RULES`, :data:`METHODS`, the messages, the registry-driven tests and
the pipeline's ``k=`` all read the registry.  :func:`run` is the one place that runs a rule by name with its
defaults: :func:`semvar.select_k.choose_k`, :func:`semvar.select_k.consensus`,
the sparse route and :func:`semvar.select_k.select_with_core` (the
pipeline's entry) all go through it.

Private to the subpackage; :data:`METHODS` is re-exported by the package.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from types import MappingProxyType

from ._common import KSelection, check_verdict_weights

__all__ = ["Rule", "RULES", "METHODS", "register", "rule", "run"]


@dataclass(frozen=True)
class Rule:
    """One rule for ``K`` and what it needs.

    Attributes
    ----------
    name : str
        The name :func:`semvar.select_k.choose_k` knows it by.
    function : callable
        The public function, ``function(adjacency, k_max, **options) -> KSelection``.
    runner : callable
        ``runner(A, k_max, rng, spectrum, observed=None, **defaults) -> KSelection`` on a checked
        dense adjacency without self-loops and ``1 <= k_max < n``; ``spectrum`` is None or the
        leading eigenpairs of the normalised matrix of the graph's core (rules that read one);
        ``observed`` None (every pair judged) or the dense 0/1 mask of the judged pairs.
    verdicts : bool
        The rule reads the entries as verdicts (weights in ``[0, 1]``).
    spectrum : {None, "eigenvalues", "eigenpairs"}
        With its defaults the rule reads the graph only through the leading eigenvalues
        (or eigenpairs) of ``D^{-1/2} A D^{-1/2}`` of its core: a spectrum computed once can be
        passed in (the pipeline shares it with the clustering).
    sparse : bool
        The rule has a route for large sparse graphs that never makes them dense.
    random_state : bool
        The rule draws random numbers (folds, k-means seeds); only such a rule's runner is given the generator.
    combines : bool
        The rule asks other rules (it cannot be one of :func:`semvar.select_k.consensus`'s votes).
    rank : int
        Its place in :data:`RULES` (and so in messages and tables): smaller first, then in the order
        registered; the package's rules take 0-7, a new rule the default 100 (after them).
    defaults : mapping
        The keyword-only defaults of ``function`` (``random_state`` and ``observed`` apart).
    """

    name: str
    function: Callable[..., KSelection]
    runner: Callable[..., KSelection]
    verdicts: bool = False
    spectrum: str | None = None
    sparse: bool = False
    random_state: bool = False
    combines: bool = False
    rank: int = 100
    defaults: MappingProxyType = field(init=False, repr=False)

    def __post_init__(self) -> None:
        params = inspect.signature(self.function).parameters.values()
        defaults = {p.name: p.default for p in params
                    if p.kind is p.KEYWORD_ONLY and p.name not in ("random_state", "observed")}
        object.__setattr__(self, "defaults", MappingProxyType(defaults))

    @property
    def asks(self) -> tuple[str, ...]:
        """The rules that run when this one runs with its defaults (:func:`consensus`: its ``methods``)."""
        return tuple(self.defaults.get("methods", (self.name,)))


#: Every rule by name, in the order they are registered (and listed in messages).
RULES: dict[str, Rule] = {}

#: Every rule's public function by name (:func:`semvar.select_k.choose_k`'s ``method``).
METHODS: dict[str, Callable[..., KSelection]] = {}


def register(*rules: Rule) -> None:
    """Add ``rules`` to :data:`RULES` and :data:`METHODS`, each once, in the order of their ranks."""
    for new in rules:
        if new.name in RULES:
            raise ValueError(f"a rule named {new.name!r} is registered already")
        RULES[new.name] = new
    ordered = sorted(RULES.values(), key=lambda r: r.rank)  # stable: equal ranks keep their order
    RULES.clear()
    METHODS.clear()
    for r in ordered:
        RULES[r.name] = r
        METHODS[r.name] = r.function


def rule(function: Callable[..., KSelection] | None = None, *, name: str | None = None, verdicts: bool = False,
         spectrum: str | None = None, sparse: bool = False, random_state: bool = False, combines: bool = False,
         rank: int = 100) -> Callable:
    """Register a rule for ``K``: decorate its runner (``@rule(public_function, ...)``) or its public function.

    Parameters
    ----------
    function : callable or None
        The public function, ``function(adjacency, k_max, *, observed=None, ..., random_state=None)``, when the
        decorated function is its runner (``runner(A, k_max, rng, spectrum, observed=None, **defaults)``);
        None when the decorated function is the public function itself, run with its defaults on the checked
        graph (``observed`` passed on, and ``random_state`` when ``random_state=True``).
    name : str or None
        The rule's name; None: the public function's ``__name__``.
    verdicts, spectrum, sparse, random_state, combines, rank
        As for the registry's record of a rule (``Rule`` in ``semvar.select_k._registry``).

    Returns
    -------
    callable
        The decorator; it returns the decorated function unchanged.
    """
    def decorate(f: Callable) -> Callable:
        public, runner = (function, f) if function is not None else (f, _plain_runner(f, random_state))
        register(Rule(name or public.__name__, public, runner, verdicts=verdicts, spectrum=spectrum, sparse=sparse,
                      random_state=random_state, combines=combines, rank=rank))
        return f

    return decorate


def _plain_runner(public: Callable[..., KSelection], seeded: bool) -> Callable[..., KSelection]:
    """The runner of a rule without one of its own: its public function, with its defaults."""

    def runner(A, k_max, rng, spectrum, observed=None, **defaults):
        options = {"random_state": rng} if seeded else {}
        return public(A, k_max, observed=observed, **defaults, **options)

    return runner


def run(A, name: str, k_max: int, rng, spectrum=None, observed=None) -> KSelection:
    """Run rule ``name`` with its defaults on a checked dense adjacency (no self-loops), ``1 <= k_max < n``.

    ``observed`` is None (every pair judged) or the dense 0/1 mask of the judged pairs.
    """
    rule = RULES[name]
    return rule.runner(A, k_max, rng if rule.random_state else None, spectrum, observed=observed, **rule.defaults)


def _voters() -> tuple[str, ...]:
    """The rules :func:`semvar.select_k.consensus` may ask."""
    return tuple(name for name, rule in RULES.items() if not rule.combines)


def _check_rule_weights(A, name: str) -> None:
    """Refuse weights above 1 where rule ``name``, or a rule it asks with its defaults, reads verdicts."""
    asks = RULES[name].asks
    via = None if asks == (name,) else name
    for other in asks:
        if RULES[other].verdicts:
            check_verdict_weights(A, other, via)
