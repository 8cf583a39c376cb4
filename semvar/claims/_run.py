"""Running the checks (:func:`run`, :func:`shared`) and looking for the data that settles a claim.

Private to :mod:`semvar.claims`, which re-exports every public name.
"""

from __future__ import annotations

import functools
import math
import re
import time
import traceback
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar, cast

from .._validation import check_bool
from ._registry import Outcome, Record, registry

_F = TypeVar("_F", bound=Callable[..., Any])

# --------------------------------------------------------------------------- data that settles a claim

#: Exceptions that mean "the data is not here" (anything else is a bug and becomes an ``error`` row).
ABSENT = (FileNotFoundError, ConnectionError, TimeoutError)


def find_data(load: Callable[[], Any], *, absent: tuple[type[BaseException], ...] = ABSENT) -> tuple[Any, str | None]:
    """Look for the data a check needs: ``(data, None)`` when ``load()`` finds it, else ``(None, why)``.

    ``load`` is any loader of :mod:`semvar.data` (or a function around one)
    called with no arguments; it follows the data-directory rule, so a test or
    a reader supplies the data by putting files in ``$SEMVAR_DATA_DIR``.  Only
    the exceptions in ``absent`` (a missing file, an unreachable origin;
    :class:`semvar.data.DataNotFoundError` is a :class:`FileNotFoundError`)
    count as absence: a loader that finds damaged data raises, and the check
    becomes an ``error`` row.

    Examples
    --------
    >>> find_data(lambda: [1, 2])
    ([1, 2], None)
    >>> data, why = find_data(lambda: open("/no/such/file"))
    >>> data is None and "No such file" in why
    True
    """
    try:
        return load(), None
    except absent as exc:  # the data is not there: that is the needs_data case
        return None, f"{type(exc).__name__}: {exc}".split("\n")[0]


def data_file(subdir: str, *files: str) -> Path:
    """The folder ``<data dir>/subdir`` holding every one of ``files`` (data-directory rule).

    Raises :class:`semvar.data.DataNotFoundError` naming every place searched.
    A loader for a check's own input files, for use with :func:`find_data`.
    """
    from ..data import DataNotFoundError, candidate_dirs, find_data_dir

    folder = find_data_dir(subdir, files)
    if folder is None:
        looked = ", ".join(str(d / subdir) for d in candidate_dirs()) or "(no data directory)"
        raise DataNotFoundError(f"{', '.join(files)} not found in {looked}")
    return folder


_ABSOLUTE = re.compile(r"(?<![\w<>.:/])/(?:[\w.\-]+/)*[\w.\-]+")


def without_machine_paths(text: str) -> str:
    """``text`` with every data directory written ``<data dir>`` and any other absolute path cut to its last part.

    The ledger's notes are printed in the book, so they name files relative to the data directory
    (``<data dir>/liu2025/x.csv``), never the machine's folders; repeated places collapse to one.

    Examples
    --------
    >>> without_machine_paths("x.csv not found in /a/b/data/liu2025, /c/liu2025")  # doctest: +SKIP
    'x.csv not found in <data dir>/liu2025'
    >>> without_machine_paths("see /tmp/cache/file.json")
    'see file.json'
    """
    from ..data import candidate_dirs

    for d in sorted((str(p) for p in candidate_dirs()), key=len, reverse=True):
        text = text.replace(d.rstrip("/"), "<data dir>")
    text = _ABSOLUTE.sub(lambda m: m.group(0).rstrip("/").rsplit("/", 1)[-1], text)
    # "<data dir>/a, <data dir>/a, <data dir>/a" -> "<data dir>/a"
    return re.sub(r"(<data dir>/[\w.\-/]+)(?:, \1)+", r"\1", text)


def needs_data(what: str, why: str | None = None, *, our_value: Any = None, note: str = "") -> Outcome:
    """The outcome of a check whose data was looked for and not found.

    ``what`` names the data that would settle the claim and where to put it;
    ``why`` is the reason :func:`find_data` gave; ``note`` adds what was
    computed without it.

    Examples
    --------
    >>> needs_data("the file x.csv", note="half computed").note
    'half computed; needs the file x.csv'
    """
    text = f"needs {what}"
    if why:
        text += f" (looked: {without_machine_paths(why)})"
    if note:
        text = f"{note}; {text}"
    return Outcome(our_value, "needs_data", text)


# --------------------------------------------------------------------------- running

_SHARED: list = []


def shared(fn: _F) -> _F:
    """Cache ``fn`` (e.g. a study several checks read) for the length of one :func:`run`.

    :func:`run` empties every such cache when it starts, so a run never sees
    results computed with other code (the mutation tests replace core functions
    between runs).
    """
    cached = functools.lru_cache(maxsize=None)(fn)
    _SHARED.append(cached)
    return cast(_F, cached)  # lru_cache's wrapper is typed apart from the function it wraps


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


def _checked(c, quick: bool) -> tuple[Any, str, str]:
    """``(our_value, status, note)`` of one check; a check that raises gives an ``error`` row naming the exception."""
    from threadpoolctl import threadpool_limits

    try:
        with threadpool_limits(limits=1):
            out = c.check(quick)
        if not isinstance(out, Outcome):
            raise TypeError(f"check of {c.id} returned {type(out).__name__}, not Outcome")
        return out.our_value, out.status, out.note
    except Exception as exc:  # noqa: BLE001 - reported, not hidden
        tb = traceback.extract_tb(exc.__traceback__)[-1]
        return None, "error", f"{type(exc).__name__}: {exc} (at {tb.filename.rsplit('/', 1)[-1]}:{tb.lineno})"


def _expected_seconds(ids: list[str], quick: bool) -> dict[str, float] | None:
    """Each check's time in the stored full run (``data/scorecard.json``), for an ETA; None when unknown.

    Only the full checks have stored times, and only when every one of ``ids`` has one (a new or renamed
    claim falls back to counting claims).
    """
    if quick:
        return None
    import json

    from ..data import result_path

    try:
        rows = json.loads(result_path("scorecard.json").read_text(encoding="utf-8"))
        stored = {r["id"]: float(r["seconds"]) for r in rows}
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not all(i in stored for i in ids):
        return None
    return {i: max(stored[i], 0.01) for i in ids}


class _Progress:
    """The bar of :func:`run` on standard error: one step per claim, the running claim's id, and an ETA
    from the stored run's time of each check (or from the count of claims when those are not known)."""

    def __init__(self, ids: list[str], quick: bool):
        from tqdm.auto import tqdm

        self.weights = _expected_seconds(ids, quick)
        self.total, self.done = len(ids), 0
        total = sum(self.weights.values()) if self.weights else len(ids)
        self.bar = tqdm(total=total, desc="claims", unit="claim" if self.weights is None else "s",
                        bar_format="{desc} {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}]",
                        dynamic_ncols=True, leave=True, mininterval=0.5)

    def start(self, cid: str) -> None:
        self.bar.set_description_str(f"claims {self.done}/{self.total}, running {cid}", refresh=True)

    def finish(self, cid: str) -> None:
        self.done += 1
        self.bar.set_description_str(f"claims {self.done}/{self.total}, ran {cid}", refresh=False)
        self.bar.update(self.weights[cid] if self.weights else 1)

    def close(self) -> None:
        self.bar.set_description_str(f"claims {self.done}/{self.total}", refresh=False)
        self.bar.close()


def run(ids: Iterable[str] | None = None, *, quick: bool = False, progress: bool = False) -> list[Record]:
    """Run the checks (all, or those whose id starts with one of ``ids``) and return the records.

    Parameters
    ----------
    ids : iterable of str, optional
        Id prefixes; ``None`` (or empty) runs every registered claim.
    quick : bool, default=False
        The reduced run (fewer repetitions).
    progress : bool, default=False
        Show a progress bar on standard error: a step per claim, the id of the
        claim running, and an estimated time left (from each check's time in
        the stored full run, ``data/scorecard.json``, when the full checks run).

    Returns
    -------
    list of Record
        One record per claim run, in id order; a check that raises gives a
        record with status ``"error"``.

    Raises
    ------
    ValueError
        When no claim id starts with any of ``ids``.

    Notes
    -----
    Each check runs with one BLAS/OpenMP thread (``threadpoolctl``): the checks
    are many small problems, for which thread start-up costs more than it
    gains, and results then do not depend on the number of cores.
    """
    quick, progress = check_bool(quick, "quick"), check_bool(progress, "progress")
    ids = list(ids) if ids is not None else None
    claims = registry()
    for cached in _SHARED:
        cached.cache_clear()
    selected = [c for c in claims.values() if not ids or any(c.id.startswith(i) for i in ids)]
    if ids and not selected:
        raise ValueError(f"no claim id starts with any of {list(ids)}; known ids: {list(claims)}")
    bar = _Progress([c.id for c in selected], quick) if progress else None
    records = []
    try:
        for c in selected:
            if bar:
                bar.start(c.id)
            t0 = time.perf_counter()
            our, status, note = _checked(c, quick)
            records.append(
                Record(c.id, c.source, c.statement, _jsonable(c.paper_value), _jsonable(our),
                       _jsonable(c.tolerance), status, c.notebook, note, round(time.perf_counter() - t0, 2), c.kind)
            )
            if bar:
                bar.finish(c.id)
    finally:
        if bar:
            bar.close()
    return records
