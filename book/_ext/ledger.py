"""The book states every verdict and ledger number from one file: ``data/scorecard.json``.

Roles (MyST: ``{verdict}`liu2025.figure1```):

``{verdict}`ID```
    the record's verdict in words ("not replicated", "partly replicated", ...),
    as a badge that links to the record's card on the scorecard page.
``{claim}`ID```
    the record's identifier and its verdict badge, linking to the card.
``{ledger}`ID``` or ``{ledger}`ID:PATH``` or ``{ledger}`ID:PATH|FORMAT```
    a value of the record, linking to the card: ``our_value`` by default;
    ``PATH`` is a record field (``our_value``, ``paper_value``, ``tolerance``,
    ``note``, ``statement``, ``status``) followed by ``.key``, ``[index]`` or
    ``["key with a dot"]`` steps, or starts directly with a key of ``our_value``
    (``liu2025.table1:unnormalized.LLAMA``); ``FORMAT`` is a Python format
    specification for a number (``.2f``, ``.1%``), or ``range`` / ``range:.2f``
    for the smallest and largest number anywhere in the value.

The first ``{verdict}`` or ``{claim}`` role naming a record in the record's
own chapter (its ``notebook`` field) marks the section it stands in as the
section that decides the record: the section gets the HTML id
``decides-<id>`` (:func:`semvar.claims.section_anchor`), which the record's
card and the scorecard table link to.  A record whose chapter never names it
with either role is reported when the book is built (a warning, so ``-W``
fails the build).

Directives:

``{ledger-table}`` (option ``:kind: claim`` or ``finding``)
    one row per record: claim, source work, verdict, one-line reason, and the
    chapter section that decides it.  With ``:caption:`` (and ``:name:``) the
    table is numbered, and ``{numref}`` can refer to it.
``{ledger-edition}``
    the book's version (``CITATION.cff``), the commit it was built from and the
    build date.
``{ledger-cite}``
    how to cite the book, from ``CITATION.cff`` (text and BibTeX).

A role naming an unknown record or a missing field is an error of the build.
Pages that use the roles depend on ``data/scorecard.json``: when it changes,
Sphinx reads them again, so the pages follow the stored ledger.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import subprocess
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective, SphinxRole

logger = logging.getLogger(__name__)

FIELDS = ("our_value", "paper_value", "tolerance", "note", "statement", "status", "source", "kind", "notebook")
_STEP = re.compile(r"\.?([^.\[\]'\"]+)|\[(-?\d+)\]|\[(['\"])(.*?)\3\]")


# ----------------------------------------------------------------------------- the ledger


def _claims():
    from semvar import claims

    return claims


def ledger_path(env) -> Path:
    return Path(env.srcdir) / env.config.ledger_file


def records(env) -> dict[str, dict]:
    """The stored records by id (read once per build, or again when the file changed)."""
    path = ledger_path(env)
    stamp = path.stat().st_mtime_ns
    cache = getattr(env.app, "_ledger_cache", None)
    if cache is None or cache[0] != stamp:
        rows = json.loads(path.read_text(encoding="utf-8"))
        env.app._ledger_cache = (stamp, {r["id"]: r for r in rows})
    return env.app._ledger_cache[1]


def lookup(record: dict, path: str):
    """The value at ``path`` (``field.key[0]``) in ``record``; ``KeyError`` naming what is missing."""
    steps = [m.group(1) if m.group(1) is not None else int(m.group(2)) if m.group(2) is not None else m.group(4)
             for m in _STEP.finditer(path)]
    if "".join(m.group(0) for m in _STEP.finditer(path)).lstrip(".") != path.lstrip("."):
        raise KeyError(f"cannot read the path {path!r}")
    if not steps or steps[0] not in FIELDS:
        steps = ["our_value", *steps]
    value = record
    for i, step in enumerate(steps):
        try:
            value = value[step]
        except (KeyError, IndexError, TypeError):
            done = ".".join(str(s) for s in steps[:i]) or "the record"
            keys = sorted(value) if isinstance(value, dict) else type(value).__name__
            raise KeyError(f"{done} has no {step!r} (it has {keys})") from None
    return value


def _numbers(value):
    if isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _numbers(v)]
    return []


def _check_tie(value, fmt: str) -> None:
    """Refuse a fixed-point format that cuts a stored number exactly at a 5 (the digit would hinge on rounding)."""
    from decimal import ROUND_HALF_DOWN, ROUND_HALF_UP, Decimal

    m = re.fullmatch(r"[^.]*\.(\d+)([f%])", fmt)
    if not m or isinstance(value, bool) or not isinstance(value, (int, float)):
        return
    d = Decimal(repr(float(value))) * (100 if m.group(2) == "%" else 1)
    q = Decimal(1).scaleb(-int(m.group(1)))
    if d.quantize(q, ROUND_HALF_UP) != d.quantize(q, ROUND_HALF_DOWN):
        raise ValueError(f"{value!r} ends in a 5 exactly where {fmt!r} cuts it: print it as stored")


def render_value(value, fmt: str = "") -> str:
    if fmt.startswith("range"):
        # the smallest and largest number anywhere in the value: "range" or "range:.2f"
        nums = _numbers(value)
        if not nums:
            raise ValueError("the value holds no number")
        spec = fmt[len("range"):].lstrip(":")
        lo, hi = min(nums), max(nums)
        _check_tie(lo, spec)
        _check_tie(hi, spec)
        return f"{format(lo, spec)}–{format(hi, spec)}" if lo != hi else format(lo, spec)
    if fmt:
        for v in value if isinstance(value, (list, tuple)) else [value]:
            _check_tie(v, fmt)
        if isinstance(value, (list, tuple)):
            return "–".join(format(v, fmt) for v in value)
        return format(value, fmt)
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(isinstance(v, (int, float)) for v in value):
        return f"{value[0]}–{value[1]}"
    return _claims().compact(value, width=10_000)


# ----------------------------------------------------------------------------- roles


def _link(env, rid: str, children, *, title: str, marks: bool) -> nodes.reference:
    ref = nodes.reference("", "", *children, internal=True, refuri="#", reftitle=title)
    ref["ledger_card"] = rid
    ref["ledger_marks"] = marks
    return ref


class _LedgerRole(SphinxRole):
    marks = False

    def record(self, rid):
        env = self.env
        env.note_dependency(str(ledger_path(env)))
        recs = records(env)
        if rid not in recs:
            close = [k for k in recs if k.split(".")[0] == rid.split(".")[0]]
            raise KeyError(f"no record {rid!r} in {env.config.ledger_file}" + (f" (same prefix: {close})" if close else ""))
        return recs[rid]

    def fail(self, why):
        logger.warning(f"{{{self.name}}}`{self.text}`: {why}", location=self.get_location(), type="ledger")
        node = nodes.problematic(self.rawtext, self.rawtext)
        return [node], []


def _badge(status: str) -> tuple[nodes.inline, str]:
    """The verdict badge of a status, and its verdict in words."""
    word = _claims().VERDICT_WORDS.get(status, status)
    return nodes.inline(word, word, classes=["sv-verdict", f"sv-{status}"]), word


class VerdictRole(_LedgerRole):
    """``{verdict}`ID```: the record's verdict badge; :class:`ClaimRole` puts the id before it."""

    marks = True
    with_id = False

    def run(self):
        rid = self.text.strip()
        try:
            rec = self.record(rid)
        except KeyError as exc:
            return self.fail(exc.args[0])
        badge, word = _badge(rec["status"])
        children = [nodes.literal(rid, rid, classes=["sv-claim-id"]), nodes.Text(" "), badge] if self.with_id else [badge]
        return [_link(self.env, rid, children, title=f"{rid}: {word} (scorecard)", marks=True)], []


class ClaimRole(VerdictRole):
    """``{claim}`ID```: the record's identifier and its verdict badge."""

    with_id = True


class LedgerRole(_LedgerRole):
    def run(self):
        text = self.text.strip()
        spec, _, fmt = text.partition("|")
        rid, _, path = spec.partition(":")
        rid, path, fmt = rid.strip(), path.strip() or "our_value", fmt.strip()
        try:
            rec = self.record(rid)
            value = lookup(rec, path)
            shown = render_value(value, fmt)
        except KeyError as exc:
            return self.fail(exc.args[0])
        except (ValueError, TypeError) as exc:
            return self.fail(f"format {fmt!r} does not apply to {value!r}: {exc}")
        shown = _claims().public_text(shown)
        inner = nodes.inline(shown, shown, classes=["sv-ledger"])
        return [_link(self.env, rid, [inner], title=f"{rid}: {path} (scorecard)", marks=False)], []


# ----------------------------------------------------------------------------- sections that decide


def _mark_sections(app, doctree):
    """After reading a page: the first role naming a record of this chapter marks its section."""
    env = app.env
    docname = env.docname
    if docname == app.config.ledger_page:
        # the cards write the records' formulas ($...$) as MathJax in HTML output, which Sphinx does
        # not see: load MathJax on the scorecard page
        env.get_domain("math").data.setdefault("has_equations", {})[docname] = True
    decided = env.ledger_sections if hasattr(env, "ledger_sections") else {}
    env.ledger_sections = decided
    recs = records(env)
    claims = _claims()
    for ref in doctree.findall(nodes.reference):
        rid = ref.get("ledger_card")
        if not rid or not ref.get("ledger_marks") or rid not in recs:
            continue
        if docname != f"notebooks/{recs[rid]['notebook']}" or (rid in decided and decided[rid][0] == docname):
            continue
        section = ref.parent
        while section is not None and not isinstance(section, nodes.section):
            section = section.parent
        if section is None:
            continue
        anchor = claims.section_anchor(rid)
        section["ids"].append(anchor)
        title = section[0].astext() if section.children and isinstance(section[0], nodes.title) else ""
        decided[rid] = (docname, section["ids"][0], title, anchor)


def _purge(app, env, docname):
    if hasattr(env, "ledger_sections"):
        for rid in [k for k, v in env.ledger_sections.items() if v[0] == docname]:
            del env.ledger_sections[rid]
    if hasattr(env, "ledger_fresh_docs"):
        env.ledger_fresh_docs.discard(docname)


def _merge(app, env, docnames, other):
    if hasattr(other, "ledger_sections"):
        if not hasattr(env, "ledger_sections"):
            env.ledger_sections = {}
        env.ledger_sections.update({k: v for k, v in other.ledger_sections.items() if v[0] in docnames})
    if hasattr(other, "ledger_fresh_docs"):
        if not hasattr(env, "ledger_fresh_docs"):
            env.ledger_fresh_docs = set()
        env.ledger_fresh_docs |= other.ledger_fresh_docs & set(docnames)


def _check_sections(app, env):
    """Every record whose chapter is in the book is named there with {verdict} or {claim}."""
    decided = getattr(env, "ledger_sections", {})
    for rid, rec in sorted(records(env).items()):
        doc = f"notebooks/{rec['notebook']}"
        if rec["notebook"] and doc in env.all_docs and rid not in decided:
            logger.warning(f"record {rid}: its chapter {doc} never names it with {{verdict}} or {{claim}}, so "
                           "no section links to its card and its card links to no section",
                           location=doc, type="ledger")


# ----------------------------------------------------------------------------- links and the table


class ledger_table(nodes.General, nodes.Element):
    pass


def _uri(app, fromdoc, todoc, anchor):
    if fromdoc == todoc:
        return "#" + anchor
    return app.builder.get_relative_uri(fromdoc, todoc) + "#" + anchor


def _section_label(env, entry):
    docname, first_id, title, _anchor = entry
    nums = env.toc_secnumbers.get(docname, {}).get("#" + first_id) or env.toc_secnumbers.get(docname, {}).get("")
    prefix = ".".join(str(n) for n in nums) + " " if nums else ""
    return prefix + title


def _table(app, fromdoc, kind):
    """One row per record of ``kind``: claim, verdict, reason, deciding section; a heading row per source work."""
    env = app.env
    claims = _claims()
    decided = getattr(env, "ledger_sections", {})
    order = {w: i for i, (w, _) in enumerate(claims.WORKS)}
    recs = [claims.Record(**r) for r in records(env).values() if r.get("kind", "claim") == kind]
    recs.sort(key=lambda r: (order.get(claims.source_work(r), 99), r.notebook, r.id))
    heads = ["claim", "verdict", "why, in one line", "decided in"]
    table = nodes.table(classes=["sv-ledger-table"])
    group = nodes.tgroup(cols=len(heads))
    table += group
    for width in (20, 12, 44, 24):
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    row = nodes.row()
    for h in heads:
        row += nodes.entry("", nodes.paragraph(h, h))
    head += row
    group += head
    body = nodes.tbody()
    current = None
    for r in recs:
        work = claims.source_work(r)
        if work != current:
            current = work
            name = claims.work_name(work)
            n = sum(claims.source_work(x) == work for x in recs)
            text = f"{name} ({n} {'claims' if kind == 'claim' else 'findings'})"
            cell = nodes.entry("", nodes.paragraph(text, text), morecols=len(heads) - 1, classes=["sv-group"])
            body += nodes.row("", cell, classes=["sv-group"])
        row = nodes.row()
        card = nodes.reference("", "", nodes.literal(r.id, r.id), internal=True,
                               refuri=_uri(app, fromdoc, app.config.ledger_page, claims.card_anchor(r.id)))
        badge, _ = _badge(r.status)
        reason = claims.one_line(r)
        if r.id in decided:
            entry = decided[r.id]
            label = _section_label(env, entry)
            where = nodes.reference("", label, internal=True, refuri=_uri(app, fromdoc, entry[0], entry[3]))
        else:
            where = nodes.Text("-")
        for cell in (card, badge, nodes.Text(reason), where):
            row += nodes.entry("", nodes.paragraph("", "", cell))
        body += row
    group += body
    return table


def _resolve(app, doctree, fromdoc):
    for ref in list(doctree.findall(nodes.reference)):
        rid = ref.get("ledger_card")
        if rid:
            ref["refuri"] = _uri(app, fromdoc, app.config.ledger_page, _claims().card_anchor(rid))
    for node in list(doctree.findall(ledger_table)):
        table = _table(app, fromdoc, node["kind"])
        if isinstance(node.parent, nodes.table):  # numbered: the directive made the table
            node.replace_self(table.children)
        else:
            node.replace_self(table)


class LedgerTable(SphinxDirective):
    """The ledger's records as a table; with ``:caption:`` (and ``:name:``) a numbered one."""

    option_spec = {"kind": lambda a: directives.choice(a, ("claim", "finding")),
                   "caption": directives.unchanged, "name": directives.unchanged}

    def run(self):
        self.env.note_dependency(str(ledger_path(self.env)))
        placeholder = ledger_table(kind=self.options.get("kind", "claim"))
        caption = self.options.get("caption")
        if not caption:
            return [placeholder]
        # the table exists when the document is read, so Sphinx numbers it and {numref} finds
        # it; its rows are filled in when the links can be resolved (_resolve)
        table = nodes.table(classes=["sv-ledger-table"])
        title_nodes, messages = self.state.inline_text(caption, self.lineno)
        table += nodes.title(caption, "", *title_nodes)
        self.add_name(table)
        table += placeholder
        return [table, *messages]


# ----------------------------------------------------------------------------- edition and citation


def _citation(env) -> dict:
    import yaml

    path = Path(env.srcdir) / env.config.ledger_citation
    env.note_dependency(str(path))
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _commit(srcdir) -> str:
    sha = os.environ.get("GITHUB_SHA", "")
    dirty = False
    try:
        if not sha:
            sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=srcdir, capture_output=True, text=True,
                                 check=True, timeout=10).stdout.strip()
        dirty = bool(subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=srcdir,
                                    capture_output=True, text=True, check=True, timeout=10).stdout.strip())
    except (OSError, subprocess.SubprocessError):
        pass
    if not sha:
        return "unknown (not built from a git checkout)"
    return sha[:12] + (" with uncommitted changes" if dirty else "")


def _build_date() -> str:
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    when = (_dt.datetime.fromtimestamp(int(epoch), _dt.UTC) if epoch and epoch.isdigit()
            else _dt.datetime.now(_dt.UTC))
    return when.strftime("%Y-%m-%d")


def _fresh(env):
    if not hasattr(env, "ledger_fresh_docs"):
        env.ledger_fresh_docs = set()
    env.ledger_fresh_docs.add(env.docname)


class LedgerEdition(SphinxDirective):
    def run(self):
        _fresh(self.env)
        cff = _citation(self.env)
        recs = records(self.env)
        self.env.note_dependency(str(ledger_path(self.env)))
        items = [
            ("version", str(cff.get("version", "unknown"))),
            ("commit", _commit(self.env.srcdir)),
            ("built", _build_date() + " (UTC)"),
            ("ledger", f"{len(recs)} records in {self.env.config.ledger_file}"),
        ]
        fl = nodes.field_list(classes=["sv-edition"])
        for name, value in items:
            fl += nodes.field("", nodes.field_name(name, name), nodes.field_body("", nodes.paragraph(value, value)))
        return [fl]


def _authors(cff) -> list[str]:
    out = []
    for a in cff.get("authors", []):
        if "name" in a:
            out.append(a["name"])
        else:
            out.append(" ".join(x for x in (a.get("given-names"), a.get("family-names")) if x))
    return out


class LedgerCite(SphinxDirective):
    def run(self):
        _fresh(self.env)
        cff = _citation(self.env)
        authors = _authors(cff)
        year = str(cff.get("date-released", ""))[:4]
        version = str(cff.get("version", ""))
        url = str(cff.get("url") or cff.get("repository-code") or "")
        text = f"{' and '.join(authors)} ({year}). {cff['title']}. Version {version}."
        if url:
            text += f" {url}"
        para = nodes.paragraph(text, text)
        key = "semvar" + year
        fields = [("title", cff["title"]), ("author", " and ".join("{" + a + "}" for a in authors)),
                  ("year", year), ("version", version)]
        if url:
            fields.append(("url", url))
        bib = "@software{" + key + ",\n" + ",\n".join(f"  {k} = {{{v}}}" for k, v in fields) + "\n}"
        block = nodes.literal_block(bib, bib, language="bibtex")
        note = str(cff.get("message", ""))
        out = [para, block]
        if note:
            out.insert(0, nodes.paragraph(note, note))
        return out


def _outdated(app, env, added, changed, removed):
    # the edition (commit, date) is read again at every build
    return sorted(getattr(env, "ledger_fresh_docs", set()) - set(removed))


# ----------------------------------------------------------------------------- setup


def _static(app):
    static = str(Path(__file__).parent / "static")
    if static not in app.config.html_static_path:
        app.config.html_static_path.append(static)


def setup(app):
    app.add_config_value("ledger_file", "data/scorecard.json", "env")
    app.add_config_value("ledger_page", "notebooks/scorecard", "env")
    app.add_config_value("ledger_citation", "CITATION.cff", "env")
    app.add_role("verdict", VerdictRole())
    app.add_role("claim", ClaimRole())
    app.add_role("ledger", LedgerRole())
    app.add_node(ledger_table)
    app.add_directive("ledger-table", LedgerTable)
    app.add_directive("ledger-edition", LedgerEdition)
    app.add_directive("ledger-cite", LedgerCite)
    app.connect("builder-inited", _static)
    app.connect("doctree-read", _mark_sections)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-get-outdated", _outdated)
    app.connect("env-check-consistency", _check_sections)
    app.connect("doctree-resolved", _resolve)
    app.add_css_file("ledger.css")
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True, "env_version": 1}
