"""Builders of a check's :class:`~semvar.claims.Outcome`, shared by the claims modules.

Private to :mod:`semvar.claims` (its name starts with ``_``, so it registers no
claims and is not imported as a chapter group).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ._registry import Outcome
from ._run import find_data, needs_data, without_machine_paths

__all__ = ["decide", "with_data", "without_machine_paths"]


def decide(our_value: Any, holds: bool, note: str = "", *, partly: bool = False) -> Outcome:
    """The outcome of a check whose status follows from its decision rule.

    Parameters
    ----------
    our_value : Any
        The value we measured (the record's ``our_value``).
    holds : bool
        Whether the claim holds under the rule stated in the claim's ``tolerance``.
    note : str, default=""
        The record's one-line note.
    partly : bool, default=False
        Whether part of the claim holds; read only when ``holds`` is false.

    Returns
    -------
    Outcome
        Status ``"replicated"`` when ``holds``, else ``"partly"`` when ``partly``,
        else ``"not_replicated"``.

    Examples
    --------
    >>> decide(0.7, 0.7 >= 0.5, "rho 0.70").status
    'replicated'
    >>> decide(0.3, 0.3 >= 0.5, partly=0.3 >= 0.2).status
    'partly'
    >>> decide(0.1, False).status
    'not_replicated'
    """
    return Outcome(our_value, "replicated" if holds else ("partly" if partly else "not_replicated"), note)


def with_data(load: Callable[[], Any], what: str) -> Callable:
    """Decorator for a check that needs data: run it on what ``load`` finds, else say what is needed.

    Parameters
    ----------
    load : callable
        Called with no arguments when the check runs, through
        :func:`~semvar.claims.find_data` (only a missing file or an unreachable
        origin counts as absence; any other exception makes an ``error`` row).
    what : str
        The data that would settle the claim, for :func:`~semvar.claims.needs_data`.

    Returns
    -------
    callable
        A decorator turning ``check(quick, data) -> Outcome`` into the
        ``check(quick) -> Outcome`` that :func:`~semvar.claims.claim` registers;
        it returns ``needs_data(what, why)`` without calling ``check`` when the
        data are absent.

    Examples
    --------
    >>> @with_data(lambda: open("/no/such/file"), "the file /no/such/file")
    ... def check(quick, data):
    ...     return decide(len(data.read()), True)
    >>> check(True).status
    'needs_data'
    """

    def wrap(check: Callable[[bool, Any], Outcome]) -> Callable[[bool], Outcome]:
        @functools.wraps(check)
        def run(quick: bool) -> Outcome:
            data, why = find_data(load)
            if data is None:
                return needs_data(what, why)
            return check(quick, data)

        return run

    return wrap
