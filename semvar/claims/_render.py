"""What the ledger shows: the plain-text scorecard, the JSON records, and the HTML cards with their CSS.

Private to :mod:`semvar.claims`, which re-exports every public name.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict
from os import PathLike
from pathlib import Path
from typing import Any

from .._validation import check_option
from ._registry import KINDS, STATUSES, Record

#: The four source works, in the book's order: (key, authors (year), title).  The tutorial
#: and the review name no author; they are described by what they are.
WORKS = (
    ("000", "Liu (2025), A statistically consistent measure of semantic variability using language models"),
    ("002", "LLM self-similarity tutorial (no author named), Measuring LLM response vs response for the same prompt"),
    ("001", "Lin, Frei & de la Peña (2026), Bounded difference concentration for infinitely exchangeable sequences"),
    ("003", "Ye et al. (2024), Benchmarking LLMs via uncertainty quantification, with the review Set size as uncertainty"),
)
_PREFIX_WORK = {"liu2025": "000", "budget": "000", "selfsim": "002", "lin2026": "001", "ye2024": "003", "ye_review": "003"}


# --------------------------------------------------------------------------- the text table and the JSON records

def counts(records: Iterable[Record]) -> dict[str, dict[str, int]]:
    """Number of records per kind and status: ``{"claim": {"replicated": 12, ...}, "finding": {...}}``.

    >>> r = [Record("a", "", "", 1, 1, None, "replicated", "", ""),
    ...      Record("b", "", "", 1, 1, None, "replicated", "", "", kind="finding")]
    >>> counts(r)["claim"]["replicated"], counts(r)["finding"]["replicated"]
    (1, 1)
    """
    out = {k: {s: 0 for s in STATUSES} for k in KINDS}
    for r in records:
        out[r.kind][r.status] += 1
    return out


def _count_line(c: dict[str, int]) -> str:
    return ", ".join(f"{n} {s}" for s, n in c.items() if n) or "none"


def _fmt(v, width=None) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4g}"
    s = str(v)
    if width and len(s) > width:
        s = s[: width - 1] + "…"
    return s


def format_table(records: Sequence[Record], *, width: int = 40) -> str:
    """A plain-text scorecard: the source works' claims, then the book's own findings, each with counts.

    Only claims count as replications; findings are results of this book
    that the source works do not state.
    """
    head = ("id", "status", "paper", "ours", "note")
    rows = {k: [(r.id, r.status, _fmt(compact(r.paper_value), 24), _fmt(compact(r.our_value), 24), _fmt(r.note, width))
                for r in records if r.kind == k] for k in KINDS}
    every = rows["claim"] + rows["finding"]
    widths = [max(len(h), *(len(row[i]) for row in every)) if every else len(h) for i, h in enumerate(head)]
    c = counts(records)
    titles = {
        "claim": f"CLAIMS OF THE SOURCE WORKS ({sum(c['claim'].values())}): {_count_line(c['claim'])}",
        "finding": (f"FINDINGS OF THIS BOOK ({sum(c['finding'].values())}, not counted as replications): "
                    f"{_count_line(c['finding'])}"),
    }
    out = []
    for k in KINDS:
        if not rows[k]:
            continue
        out += [titles[k], "  ".join(h.ljust(w) for h, w in zip(head, widths)), "  ".join("-" * w for w in widths)]
        out += ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)) for row in rows[k]]
        out.append("")
    n_claims = sum(c["claim"].values())
    out.append(f"{c['claim']['replicated']} of {n_claims} claims replicated; "
               f"{sum(c['finding'].values())} findings reported apart" if records else "no claims")
    return "\n".join(out)


def to_json(records: Iterable[Record], *, indent: int = 2) -> str:
    """The records as a JSON list of objects with the ledger's fields (``kind`` included)."""
    return json.dumps([asdict(r) for r in records], indent=indent, ensure_ascii=False)


def load_records(path: str | PathLike) -> list[Record]:
    """Read records written by ``python -m semvar replicate --out FILE``."""
    with open(path, encoding="utf-8") as fh:
        rows = json.load(fh)
    return [Record(**row) for row in rows]


# --------------------------------------------------------------------------- display

def compact(value: Any, width: int = 90) -> str:
    """A short human-readable rendering of a record value (dicts as ``key: value; ...``).

    >>> compact({"acc": 72.531, "ss": 2.45})
    'acc: 72.53; ss: 2.45'
    >>> compact(None)
    '-'
    """
    if value is None:
        return "-"
    if isinstance(value, bool):
        text = "yes" if value else "no"
    elif isinstance(value, float):
        text = f"{value:.4g}"
    elif isinstance(value, dict):
        text = "; ".join(f"{k}: {compact(v, width)}" for k, v in value.items())
    elif isinstance(value, (list, tuple)):
        text = "[" + ", ".join(compact(v, width) for v in value) + "]"
    else:
        text = str(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def format_value(value: Any) -> list[str]:
    """A record value as display lines: one line per top-level key of a dict, nothing cut off.

    >>> format_value({"normalized": {"LLAMA": 0.11, "GPT": 0.0}, "n": 30})
    ['normalized: LLAMA 0.11, GPT 0', 'n: 30']
    >>> format_value([0.8107, 0.9894])
    ['0.8107, 0.9894']
    """
    def inner(v) -> str:
        if isinstance(v, dict):
            return ", ".join(f"{k} {inner(x)}" for k, x in v.items())
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(inner(x) for x in v) + "]"
        return compact(v, width=10_000)

    if isinstance(value, dict):
        return [f"{k}: {inner(v)}" for k, v in value.items()] or ["-"]
    if isinstance(value, (list, tuple)):
        return [", ".join(inner(v) for v in value)] or ["-"]
    return [inner(value)]


def source_work(record: Record) -> str:
    """Key (``"000"``..``"003"``) of the source work a record belongs to (see :data:`WORKS`).

    Read from the seed number in ``record.source`` ("seed 000, ..."), else from the id's prefix.
    """
    m = re.search(r"seed (\d{3})", record.source)
    if m:
        return m.group(1)
    return _PREFIX_WORK.get(record.id.split(".")[0], "other")


def chapter_titles(root: str | PathLike | None = None) -> dict[str, str]:
    """Title of every chapter, read from the first heading of ``notebooks/<name>.md``."""
    root = Path(root) if root is not None else Path(__file__).resolve().parents[2] / "notebooks"
    titles = {}
    for md in sorted(root.glob("*.md")):
        for line in md.read_text(encoding="utf-8").splitlines():
            if line.startswith("# "):
                titles[md.stem] = line[2:].strip()
                break
    return titles


def scorecard_frame(records: Iterable[Record], *, compact_values: bool = False) -> Any:
    """The scorecard as a :class:`pandas.DataFrame` (one row per record, with its ``kind``).

    With ``compact_values`` the paper's and our values are rendered as short
    strings (see :func:`compact`) for display.
    """
    import pandas as pd

    cols = ["id", "kind", "status", "paper_value", "our_value", "tolerance", "note", "notebook", "source", "statement"]
    frame = pd.DataFrame([{c: getattr(r, c) for c in cols} for r in records], columns=cols)
    if compact_values:
        for c in ("paper_value", "our_value", "tolerance"):
            frame[c] = frame[c].map(compact)
    return frame


#: Badge colours (background, text) per status: readable without colour, since the badge names the status.
BADGE = {
    "replicated": ("#d8f0d8", "#1d5c1d"),
    "not_replicated": ("#f8d7d0", "#8a2b16"),
    "partly": ("#fcefc7", "#6b5200"),
    "needs_data": ("#e3e8f4", "#2b3f6b"),
    "error": ("#f4b6b6", "#7a0000"),
}

#: The verdict as the book's prose says it.
VERDICT_WORDS = {
    "replicated": "replicated",
    "not_replicated": "not replicated",
    "partly": "partly replicated",
    "needs_data": "needs data",
    "error": "error",
}

# colours: inherited, so that the cards read on the light box the theme puts notebook HTML output in
# (in its dark mode too); borders and muted text by opacity
_CSS = """<style>
.sv-scorecard{padding:0 1em}
.sv-card{border:1px solid rgba(128,128,128,.45);border-radius:6px;padding:.6em .8em;margin:.6em 0;overflow-wrap:anywhere;word-break:break-word;max-width:100%;box-sizing:border-box}
.sv-card p{margin:.25em 0}
.sv-head{display:flex;flex-wrap:wrap;gap:.3em .8em;align-items:baseline}
.sv-id{font-family:monospace;font-weight:600}
.sv-badge{border-radius:4px;padding:0 .45em;font-size:.85em;font-weight:600;white-space:nowrap}
.sv-vals{display:grid;grid-template-columns:minmax(4.5em,max-content) 1fr;gap:.15em .6em;margin:.3em 0}
.sv-vals dt{font-weight:600;color:inherit}
.sv-vals dd{margin:0;min-width:0}
.sv-card details summary{cursor:pointer;color:inherit;opacity:.8}
.sv-src{color:inherit;opacity:.75;font-size:.9em}
.sv-scorecard h3,.sv-scorecard h4{color:inherit}
.sv-scorecard h3{font-size:1.3em;margin-top:1.2em}
.sv-scorecard h4{font-size:1em}
@media (max-width:600px){.sv-scorecard{padding:0 .3em}.sv-vals{grid-template-columns:1fr}.sv-vals dd{margin:0 0 .3em .8em}}
</style>"""

# an absolute path of the machine that ran the checks (POSIX or Windows)
_MACHINE_PATH = re.compile(r"(?<![\w.$<>/-])(?:/(?:[\w.+-]+/)*[\w.+-]+|[A-Za-z]:\\(?:[\w.+-]+\\)*[\w.+-]*)")


def public_text(text: str) -> str:
    """``text`` with the paths of the machine that ran a check replaced by the data-directory rule.

    A check that looked for data names the folders it searched; on the page a
    folder reads as ``<data dir>/<last part>`` (the data-directory rule of
    :mod:`semvar.data`), and a list of the same folder is said once.

    >>> public_text("not found in /srv/a/data/liu2025, /home/b/data/liu2025")
    'not found in <data dir>/liu2025'
    >>> public_text("the ratio 1/2 and D - E stay")
    'the ratio 1/2 and D - E stay'
    """
    def repl(m):
        part = m.group(0).replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
        return f"<data dir>/{part}"

    out = _MACHINE_PATH.sub(lambda m: repl(m) if m.group(0).count("/") + m.group(0).count("\\") > 1 else m.group(0),
                            text or "")
    # "<data dir>/x, <data dir>/x" -> "<data dir>/x"
    return re.sub(r"(<data dir>/[\w.+-]+)(?:, \1)+", r"\1", out)


def one_line(record: Record, width: int = 100) -> str:
    """The reason for a record's verdict in one line: its ``reason`` if it has one, else its note.

    A longer text is cut to ``width`` characters with ``" …"``: at the last clause boundary
    (``"; "``) when that keeps at least 60 % of the room, else at a word.  The card holds
    the whole note.

    >>> one_line(Record("a", "", "", 1, 1, None, "partly", "", "holds in 8 of 12"))
    'holds in 8 of 12'
    >>> one_line(Record("a", "", "", 1, 1, None, "partly", "", "sd 0.04 of 30; range 1.3-1.5; n 30"), width=33)
    'sd 0.04 of 30; range 1.3-1.5 …'
    >>> one_line(Record("a", "", "", 1, 1, None, "partly", "", "true 1.03; greedy finds 8-11 clusters"), width=26)
    'true 1.03; greedy finds …'
    >>> len(one_line(Record("a", "", "", 1, 1, None, "partly", "", "word " * 80), width=50)) <= 50
    True
    """
    text = " ".join(public_text(getattr(record, "reason", "") or record.note or "-").split())
    if len(text) <= width:
        return text
    room = width - len(" …")
    head = text[: room + 1].rsplit(" ", 1)[0]
    clause = head.rfind("; ")
    if clause >= 0.6 * room:
        head = head[:clause]
    return head.rstrip(",;:") + " …"


def work_name(key: str) -> str:
    """Authors (year) and title of the source work ``key`` (see :data:`WORKS`)."""
    return dict(WORKS).get(key, "Other")


def work_short(key: str) -> str:
    """Authors and year of the source work ``key``, as :data:`WORKS` opens its name.

    The name up to its first parenthesis closed (the year, or a note where the work names no
    author): a list of authors holds commas of its own.

    >>> work_short("000"), work_short("001")
    ('Liu (2025)', 'Lin, Frei & de la Peña (2026)')
    """
    if key not in dict(WORKS):
        return "Other"
    name = work_name(key)
    head = re.match(r"[^()]*\([^()]*\)", name)
    return head.group(0) if head else name.split(", ")[0]


def _citation_words(text: str) -> list[str]:
    """The words of a citation without its punctuation: ``Lin, Frei (2026)`` and ``Lin, Frei 2026`` agree."""
    return re.sub(r"[(),]", " ", text).split()


def _cited_work(match: re.Match) -> str:
    short = work_short(match.group(1))
    aside = match.group(2)
    if aside is None or _citation_words(aside) == _citation_words(short):
        return short  # "seed 001 (Lin, Frei & de la Peña 2026)" names the authors once
    return f"{short} ({aside})"


def display_source(record: Record) -> str:
    """``record.source`` with the seed numbers replaced by the works' authors and year.

    A parenthesis right after the seed number that only restates the authors and year is left out.

    >>> r = Record("x", "seed 001 (Lin, Frei & de la Peña 2026), results", "", 1, 1, None, "partly", "", "")
    >>> display_source(r)
    'Lin, Frei & de la Peña (2026), results'
    """
    return re.sub(r"seed (\d{3})(?: \(([^()]*)\))?", _cited_work, record.source)


def card_anchor(record_id: str) -> str:
    """HTML id of a record's card on the scorecard page: ``claim-liu2025-figure1``."""
    return "claim-" + record_id.replace(".", "-")


def section_anchor(record_id: str) -> str:
    """HTML id of the chapter section that decides a record: ``decides-liu2025-figure1``.

    The book's ``{verdict}`` and ``{claim}`` roles (``book/_ext/ledger.py``) put it
    on the section of the record's chapter where the record is first named.
    """
    return "decides-" + record_id.replace(".", "-")


def _badge(status: str) -> str:
    bg, fg = BADGE.get(status, ("#eee", "#000"))
    word = VERDICT_WORDS.get(status, status.replace("_", " "))
    return f'<span class="sv-badge sv-{html.escape(status)}" style="background:{bg};color:{fg}">{html.escape(word)}</span>'


def _text(text: str) -> str:
    """Escaped text in which ``$...$`` is inline math for MathJax (``\\(...\\)``)."""
    parts = re.split(r"(?<!\\)\$(.+?)(?<!\\)\$", public_text(text))
    return "".join(html.escape(p) if i % 2 == 0 else rf"\({html.escape(p)}\)" for i, p in enumerate(parts))


def _lines(value) -> str:
    # long identifiers may break after an underscore
    return "<br>".join(html.escape(public_text(s)).replace("_", "_<wbr>") for s in format_value(value))


def record_html(record: Record, titles: dict[str, str] | None = None) -> str:
    """One record as an HTML card: id, verdict badge, statement, the paper's value and ours,
    a link to the chapter section that decides it, and the note in an expandable block."""
    titles = titles or {}
    nb = record.notebook
    chapter = (f'<a href="{html.escape(nb)}.html#{section_anchor(record.id)}">{html.escape(titles.get(nb, nb))}</a>'
               if nb else "-")
    tol = "" if record.tolerance in (None, "") else f"<dt>decided by</dt><dd>{_lines(record.tolerance)}</dd>"
    return (
        f'<div class="sv-card mathjax_process" id="{html.escape(card_anchor(record.id))}">'
        f'<div class="sv-head"><span class="sv-id">{html.escape(record.id)}</span>{_badge(record.status)}'
        f'<span class="sv-src">{_text(display_source(record))}</span></div>'
        f"<p>{_text(record.statement)}</p>"
        f'<dl class="sv-vals"><dt>paper</dt><dd>{_lines(record.paper_value)}</dd>'
        f"<dt>ours</dt><dd>{_lines(record.our_value)}</dd>{tol}"
        f"<dt>chapter</dt><dd>{chapter}</dd></dl>"
        f"<details><summary>note</summary><p>{_text(record.note or '-')}</p></details></div>"
    )


def scorecard_html(records: Iterable[Record], *, kind: str = "claim", titles: dict[str, str] | None = None) -> str:
    """The records of one ``kind`` as HTML cards grouped by source work, then by chapter.

    Cards wrap at any width (no wide table); each shows the status as a
    named badge, so the page reads the same without colour.
    """
    check_option(kind, "kind", KINDS)
    titles = chapter_titles() if titles is None else titles
    chosen = [r for r in records if r.kind == kind]
    order = [w for w, _ in WORKS] + ["other"]
    names = dict(WORKS) | {"other": "Other"}
    parts = [_CSS, '<div class="sv-scorecard">']
    for work in order:
        group = [r for r in chosen if source_work(r) == work]
        if not group:
            continue
        c = {s: sum(r.status == s for r in group) for s in STATUSES}
        tally = _count_line(c).replace("_", " ")
        parts.append(f'<h3 class="sv-work">{html.escape(names[work])}</h3><p>{len(group)} records: {html.escape(tally)}</p>')
        for nb in sorted({r.notebook for r in group}):
            parts.append(f'<h4 class="sv-chapter">Chapter: {html.escape(titles.get(nb, nb) or "-")}</h4>')
            parts += [record_html(r, titles) for r in sorted(group, key=lambda r: r.id) if r.notebook == nb]
    parts.append("</div>")
    return "\n".join(parts)
