"""The ledger's records and the registry of checks: :class:`Outcome`, :class:`Record`, :class:`Claim`, :func:`claim`.

Private to :mod:`semvar.claims`, which re-exports every public name; a module
whose name starts with ``_`` registers no claims and is not imported as a
chapter group.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .._validation import check_option

STATUSES = ("replicated", "not_replicated", "partly", "needs_data", "error")
KINDS = ("claim", "finding")

CLAIM_MODULES = [
    "semvar.claims.spectral",      # chapters 1-3: Liu (2025) tables 1-2, figure 1, proposition 2.1
    "semvar.claims.consistency",   # chapters 4-5: choosing K, the consistency results
    "semvar.claims.select_k",      # chapter 4: choosing K where semantic entropy is used (5-50 texts)
    "semvar.claims.selfsim",       # chapter 8: self-similarity
    "semvar.claims.exchangeable",  # chapters 11-12: Lin, Frei & de la Pena
    "semvar.claims.conformal",     # chapters 13-14: Ye et al. and the review
    "semvar.claims.budget",        # chapter 6: judge budget
    "semvar.claims.realtext",      # chapter 9: real LLM answers (MMLU-Pro)
]


@dataclass
class Outcome:
    """What a check found: our value, the status it earns, and a one-line note.

    Examples
    --------
    >>> Outcome(0.5, "partly", "holds for two judges of three").status
    'partly'
    >>> Outcome(1, "fine")
    Traceback (most recent call last):
    ...
    ValueError: status must be one of ('replicated', 'not_replicated', 'partly', 'needs_data', 'error'), got 'fine'
    """

    our_value: Any
    status: str
    note: str = ""

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}")


@dataclass
class Record:
    """One row of the scorecard (the fields of the design's ledger)."""

    id: str
    source: str
    statement: str
    paper_value: Any
    our_value: Any
    tolerance: Any
    status: str
    notebook: str
    note: str
    seconds: float = field(default=0.0, compare=False)
    kind: str = "claim"


@dataclass
class Claim:
    """A registered claim: the fields of its record that do not depend on a run, and its check."""

    id: str
    source: str
    statement: str
    paper_value: Any
    tolerance: Any
    notebook: str
    check: Callable[[bool], Outcome]
    kind: str = "claim"


_REGISTRY: dict[str, Claim] = {}


def claim(id: str, *, source: str, statement: str, paper_value: Any, tolerance: Any = None, notebook: str = "",
          kind: str = "claim") -> Callable[[Callable[[bool], Outcome]], Callable[[bool], Outcome]]:
    """Decorator registering ``check(quick) -> Outcome`` as the check of claim ``id``.

    Parameters
    ----------
    id : str
        The record's identifier (``"liu2025.table1"``); registering another
        function under an id already taken raises ``ValueError``.
    source : str
        The seed file and its section, table or figure.
    statement : str
        The claim, as the source work makes it.
    paper_value : Any
        The source work's value (from :mod:`semvar.papers`).
    tolerance : Any, default=None
        The decision rule, stated before the full run.
    notebook : str, default=""
        The chapter that decides the claim (``"05_consistency"``).
    kind : {"claim", "finding"}, default="claim"
        ``"claim"``: a statement of a source work; ``"finding"``: a result of
        this book (reported apart and never counted as a replication).

    Returns
    -------
    callable
        The decorator; it returns the check unchanged.
    """
    check_option(kind, "kind", KINDS)

    def wrap(fn: Callable[[bool], Outcome]) -> Callable[[bool], Outcome]:
        if id in _REGISTRY and _REGISTRY[id].check.__qualname__ != fn.__qualname__:
            raise ValueError(f"claim id {id!r} is registered twice")
        _REGISTRY[id] = Claim(id, source, statement, paper_value, tolerance, notebook, fn, kind)
        return fn

    return wrap


def _modules() -> list[str]:
    package = sys.modules[__package__]
    found = [f"{__package__}.{m.name}" for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_")]
    return list(CLAIM_MODULES) + sorted(m for m in found if m not in CLAIM_MODULES)


def registry() -> dict[str, Claim]:
    """All registered claims by id, importing every claims module of :mod:`semvar.claims` first."""
    for mod in _modules():
        importlib.import_module(mod)
    return dict(sorted(_REGISTRY.items()))


def compare(our: float, paper: float, tolerance: float, *, note: str = "") -> Outcome:
    """Outcome ``replicated`` when ``|our - paper| <= tolerance``, else ``not_replicated``.

    Examples
    --------
    >>> compare(1.05, 1.0, 0.1).status, compare(1.0, 2.0, 0.5).status
    ('replicated', 'not_replicated')
    """
    ok = abs(float(our) - float(paper)) <= float(tolerance)
    return Outcome(our, "replicated" if ok else "not_replicated", note)
