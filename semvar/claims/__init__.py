"""The claims ledger: every checkable claim of the source works, and our verdict on it.

A claim is registered with :func:`claim` around a *check*: a function of one
argument ``quick`` (bool) that computes our value and returns an
:class:`Outcome`.  :func:`run` runs the checks and returns one
:class:`Record` per claim; a check that raises becomes a record with status
``"error"`` and the exception in its note, never a missing row.

Statuses
--------
``replicated``      our value agrees with the paper's within the tolerance
``not_replicated``  our value contradicts the paper's; the note says why
``partly``          part of the claim holds
``needs_data``      the data that would settle it was looked for and not found; the note names it
``error``           the check itself failed (a bug to fix, shown rather than hidden)

Kinds
-----
``claim``    a statement of one of the source works (only these count as replications)
``finding``  a result of this book that the source works do not state (reported apart)

A check that needs data it cannot generate looks for it with :func:`find_data`
and evaluates it when it is there; only when it is absent does the check
return :func:`needs_data`.  The status is thus computed, never declared.

The claims live in the submodules of this package (:data:`CLAIM_MODULES` lists
the chapter groups in reading order; any other submodule is found and
imported too); importing them registers their claims.

The package's own code is in three private modules, whose public names are
re-exported here: ``_registry`` (the records, the registry, the decorator),
``_run`` (the runner, the data lookup) and ``_render`` (the text table, the
JSON records, the HTML cards).

Imports run one way: the claims import the core modules of :mod:`semvar`,
:mod:`semvar.papers` (the published values) and :mod:`semvar.experiments`;
nothing outside this package imports it except the command line
(``python -m semvar replicate``), the tests and the book's scorecard page.
"""

from __future__ import annotations

from ._registry import _REGISTRY as _REGISTRY  # re-exported: the registry itself (id -> Claim)
from ._registry import CLAIM_MODULES, KINDS, STATUSES, Claim, Outcome, Record, claim, compare, registry
from ._render import BADGE as BADGE
from ._render import (
    VERDICT_WORDS,
    WORKS,
    card_anchor,
    chapter_titles,
    compact,
    counts,
    display_source,
    format_table,
    format_value,
    load_records,
    one_line,
    public_text,
    record_html,
    scorecard_frame,
    scorecard_html,
    section_anchor,
    source_work,
    to_json,
    work_name,
    work_short,
)
from ._run import ABSENT as ABSENT
from ._run import _jsonable as _jsonable  # re-exported: how a record's values become JSON
from ._run import data_file, find_data, needs_data, run, shared

__all__ = [
    "Outcome", "Record", "Claim", "claim", "registry", "run", "format_table", "to_json", "load_records",
    "scorecard_frame", "compact", "format_value", "counts", "source_work", "scorecard_html", "chapter_titles",
    "find_data", "data_file", "needs_data", "shared", "STATUSES", "KINDS", "WORKS", "compare", "CLAIM_MODULES",
    "record_html", "public_text", "one_line", "work_name", "work_short", "display_source", "card_anchor",
    "section_anchor", "VERDICT_WORDS",
]
