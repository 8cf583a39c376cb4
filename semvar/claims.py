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
``needs_data``      cannot be checked offline; the note names the data that would settle it
``error``           the check itself failed (a bug to fix, shown rather than hidden)

The claims live in the modules listed in :data:`CLAIM_MODULES`, one per
chapter group; importing them registers their claims.
"""

from __future__ import annotations

import importlib
import json
import math
import time
import traceback
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

__all__ = ["Outcome", "Record", "Claim", "claim", "registry", "run", "format_table", "to_json", "load_records", "scorecard_frame", "compact", "STATUSES", "compare"]

STATUSES = ("replicated", "not_replicated", "partly", "needs_data", "error")

CLAIM_MODULES = [
    "semvar.claims_spectral",      # chapters 1-3: Liu (2025) tables 1-2, figure 1
    "semvar.claims_consistency",   # chapters 4-5: choosing K, the bounds
    "semvar.claims_selfsim",       # chapter 6: self-similarity
    "semvar.claims_exchangeable",  # chapters 7-8: Lin, Frei & de la Pena
    "semvar.claims_conformal",     # chapters 9-10: Ye et al. and the review
    "semvar.claims_budget",        # chapter 11: judge budget
]


@dataclass
class Outcome:
    """What a check found: our value, the status it earns, and a one-line note."""

    our_value: Any
    status: str
    note: str = ""

    def __post_init__(self):
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


@dataclass
class Claim:
    id: str
    source: str
    statement: str
    paper_value: Any
    tolerance: Any
    notebook: str
    check: Callable[[bool], Outcome]


_REGISTRY: dict[str, Claim] = {}


def claim(id: str, *, source: str, statement: str, paper_value, tolerance=None, notebook: str = ""):
    """Decorator registering ``check(quick) -> Outcome`` as the check of claim ``id``."""

    def wrap(fn):
        if id in _REGISTRY and _REGISTRY[id].check.__qualname__ != fn.__qualname__:
            raise ValueError(f"claim id {id!r} is registered twice")
        _REGISTRY[id] = Claim(id, source, statement, paper_value, tolerance, notebook, fn)
        return fn

    return wrap


def registry() -> dict[str, Claim]:
    """All registered claims, importing every module of :data:`CLAIM_MODULES`."""
    for mod in CLAIM_MODULES:
        importlib.import_module(mod)
    return dict(sorted(_REGISTRY.items()))


def compare(our: float, paper: float, tolerance: float, *, note: str = "") -> Outcome:
    """Outcome ``replicated`` when ``|our - paper| <= tolerance``, else ``not_replicated``."""
    ok = abs(float(our) - float(paper)) <= float(tolerance)
    return Outcome(our, "replicated" if ok else "not_replicated", note)


def _jsonable(value):
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if hasattr(value, "item") and callable(value.item):
        try:
            return _jsonable(value.item())
        except (ValueError, TypeError):
            pass
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


def run(ids=None, *, quick: bool = False, progress: bool = False) -> list[Record]:
    """Run the checks (all, or those whose id starts with one of ``ids``) and return the records."""
    claims = registry()
    selected = [c for c in claims.values() if not ids or any(c.id.startswith(i) for i in ids)]
    if ids and not selected:
        raise ValueError(f"no claim id starts with any of {list(ids)}; known ids: {list(claims)}")
    records = []
    iterator = selected
    if progress:
        from tqdm.auto import tqdm

        iterator = tqdm(selected, desc="claims", unit="claim")
    for c in iterator:
        t0 = time.perf_counter()
        try:
            out = c.check(quick)
            if not isinstance(out, Outcome):
                raise TypeError(f"check of {c.id} returned {type(out).__name__}, not Outcome")
            our, status, note = out.our_value, out.status, out.note
        except Exception as exc:  # noqa: BLE001 - reported, not hidden
            tb = traceback.extract_tb(exc.__traceback__)[-1]
            our, status = None, "error"
            note = f"{type(exc).__name__}: {exc} (at {tb.filename.rsplit('/', 1)[-1]}:{tb.lineno})"
        records.append(
            Record(c.id, c.source, c.statement, _jsonable(c.paper_value), _jsonable(our),
                   _jsonable(c.tolerance), status, c.notebook, note, round(time.perf_counter() - t0, 2))
        )
    return records


def _fmt(v, width=None) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4g}"
    s = str(v)
    if width and len(s) > width:
        s = s[: width - 1] + "…"
    return s


def format_table(records: list[Record], *, width: int = 40) -> str:
    """A plain-text scorecard: id, status, paper value, our value, note."""
    head = ("id", "status", "paper", "ours", "note")
    rows = [(r.id, r.status, _fmt(r.paper_value, 24), _fmt(r.our_value, 24), _fmt(r.note, width)) for r in records]
    widths = [max(len(h), *(len(row[i]) for row in rows)) if rows else len(h) for i, h in enumerate(head)]
    line = "  ".join(h.ljust(w) for h, w in zip(head, widths))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in rows]
    counts = {s: sum(r.status == s for r in records) for s in STATUSES}
    out.append("")
    out.append(", ".join(f"{n} {s}" for s, n in counts.items() if n) or "no claims")
    return "\n".join(out)


def to_json(records: list[Record], *, indent: int = 2) -> str:
    """The records as a JSON list of objects with the ledger's fields."""
    return json.dumps([asdict(r) for r in records], indent=indent, ensure_ascii=False)


def load_records(path) -> list[Record]:
    """Read records written by ``python -m semvar replicate --out FILE``."""
    with open(path, encoding="utf-8") as fh:
        rows = json.load(fh)
    return [Record(**row) for row in rows]


def compact(value, width: int = 90) -> str:
    """A short human-readable rendering of a record value (dicts as ``key: value; ...``).

    >>> compact({"acc": 72.531, "ss": 2.45})
    'acc: 72.53; ss: 2.45'
    >>> compact(None)
    '-'
    """
    if value is None:
        return "-"
    if isinstance(value, float):
        text = f"{value:.4g}"
    elif isinstance(value, dict):
        text = "; ".join(f"{k}: {compact(v, width)}" for k, v in value.items())
    elif isinstance(value, (list, tuple)):
        text = "[" + ", ".join(compact(v, width) for v in value) + "]"
    else:
        text = str(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def scorecard_frame(records, *, compact_values: bool = False):
    """The scorecard as a :class:`pandas.DataFrame` (one row per claim).

    With ``compact_values`` the paper's and our values are rendered as short
    strings (see :func:`compact`) for display.
    """
    import pandas as pd

    cols = ["id", "status", "paper_value", "our_value", "tolerance", "note", "notebook", "source", "statement"]
    frame = pd.DataFrame([{c: getattr(r, c) for c in cols} for r in records], columns=cols)
    if compact_values:
        for c in ("paper_value", "our_value", "tolerance"):
            frame[c] = frame[c].map(compact)
    return frame
