"""Turn the book's MyST markdown into plain Jupyter Markdown, for the hand-out notebooks.

The chapters are written in MyST: exercise fences, ``{cite}``, ``{doc}``, ``{ref}``,
``{numref}``, ``{eq}`` and the ledger's ``{claim}`` / ``{verdict}`` roles.  Opened
in plain Jupyter (JupyterLab, Notebook 7, VS Code) those show as code blocks and
literal roles.  :func:`plain_markdown` rewrites one markdown cell so that it reads
as the book does:

* an ``{exercise}`` becomes a heading ``#### Exercise 3.1: title`` and its text;
  a gated solution (``{solution-start}`` ... ``{solution-end}``) or a
  ``{solution}`` becomes ``#### Solution to Exercise 3.1`` (the student hand-out
  has none left: ``scripts/make_student.py`` removes them first);
* admonitions (``{admonition}``, ``{important}``, ``{note}``, ...) become block
  quotes headed by their title; ``{figure}`` an image with its numbered caption;
  ``{table}`` its numbered caption and the table; the scorecard's
  ``{ledger-table}`` a Markdown table and ``{ledger-edition}`` / ``{ledger-cite}``
  their text; any other directive a block quote headed by its name;
* ``{cite}`` becomes "[Liu, 2025]" (author and year, as the book prints it), linked
  to the paper (arXiv or DOI) when the bibliography knows it, else to the book's
  bibliography page;
* ``{doc}`` becomes the page's title, ``{ref}`` the section's title, ``{numref}``
  "Fig. 3.1" / "Table 3.1" / "Exercise 3.1" and ``{eq}`` "(6.1)", linked to the
  notebook or page (hand-outs lie in a folder beside ``notebooks/``, such as
  ``student/``, so chapters link to their sibling hand-outs and book pages to
  ``../book/<page>.md``);
* ``{claim}`` becomes the record's id and its verdict ("`liu2025.table1` not
  replicated"), ``{verdict}`` the verdict, ``{ledger}`` the value, with the words
  and values of ``book/_ext/ledger.py`` (which renders them in the book), linked to
  the scorecard notebook;
* labels ``(name)=`` become HTML anchors, an equation's ``$$ (label)`` a ``\\tag``
  with its number, and ``{math}`` roles inline math.

Numbers (chapters, figures, tables, equations, exercises) are counted the way the
book counts them: chapters across the numbered parts of ``_toc.yml``, the rest in
document order within each chapter.  :func:`myst_left` finds what MyST syntax a
text still holds (the test of the hand-outs uses it).
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]

# a directive's opening fence: ``:::{name} args`` or ```` ```{name} args ````
_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>:{3,}|`{3,})\{(?P<name>[A-Za-z][\w:.-]*)\}(?P<args>.*)$")
_PLAIN_FENCE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,}|:{3,})(?P<info>[^`]*)$")
_OPTION = re.compile(r"^[ \t]*:(?P<key>[\w-]+):(?P<value>.*)$")
_LABEL = re.compile(r"^\((?P<label>[^()\s]+)\)=\s*$")
_HEADING = re.compile(r"^(?P<hashes>#{1,6})\s+(?P<text>.+?)\s*#*\s*$")
_EQ_CLOSE = re.compile(r"^(?P<body>.*?)\$\$\s*\((?P<label>[^()\s]+)\)\s*$")
# a role and its content, or an inline code span (whose text is left alone)
_INLINE = re.compile(r"\{(?P<role>[A-Za-z][\w:+-]*)\}(?P<ticks>`+)(?P<text>.+?)(?P=ticks)|(?P<code>(?P<cticks>`+).+?(?P=cticks))",
                     re.S)
_TITLED = re.compile(r"^(?P<title>.*?)\s*<(?P<target>[^<>]+)>$", re.S)

_ADMONITIONS = {"admonition", "note", "important", "tip", "hint", "warning", "caution", "attention",
                "danger", "error", "seealso", "dropdown", "topic", "sidebar", "epigraph", "margin"}
_FIGURES = {"figure", "glue:figure"}
_TABLES = {"table", "list-table", "csv-table", "ledger-table"}
_EXERCISES = {"exercise", "exercise-start"}
_KIND_WORD = {"figure": "Fig.", "table": "Table", "exercise": "Exercise", "equation": "Eq."}


# ----------------------------------------------------------------------------- the book's index


@dataclass(frozen=True)
class Target:
    """What a label names: its page, its kind, the text a ``{ref}`` shows, its number."""

    doc: str
    kind: str  # "section", "figure", "table", "exercise", "equation", "page"
    text: str
    number: str = ""


@dataclass
class Book:
    """What the roles need to know about the whole book.

    Attributes
    ----------
    chapters : dict
        docname -> chapter number (the numbered parts of ``_toc.yml``, counted across parts).
    titles : dict
        docname -> the page's title (its first heading).
    labels : dict
        label -> :class:`Target`.
    citations : dict
        bibliography key -> (text such as "Liu, 2025", link or "").
    records : dict
        ledger id -> stored record (``data/scorecard.json``).
    substitutions : dict
        ``parse.myst_substitutions`` of ``_config.yml`` (such as ``repo_url``), which
        ``{{ ... }}`` expressions in the text read.
    """

    chapters: dict = field(default_factory=dict)
    titles: dict = field(default_factory=dict)
    labels: dict = field(default_factory=dict)
    citations: dict = field(default_factory=dict)
    records: dict = field(default_factory=dict)
    substitutions: dict = field(default_factory=dict)
    root: Path = ROOT
    ledger_page: str = "notebooks/scorecard"

    def link(self, doc: str, fromdoc: str, anchor: str = "") -> str:
        """The relative link from a hand-out of ``fromdoc`` to ``doc`` (``#anchor`` appended)."""
        hash_ = f"#{anchor}" if anchor else ""
        if doc == fromdoc:
            return hash_ or "#"
        folder, _, name = doc.rpartition("/")
        if folder == "notebooks":
            return f"{name}.ipynb{hash_}"
        return f"../{doc}.md{hash_}"


def _strip_inline_markup(text: str) -> str:
    text = re.sub(r"\{[A-Za-z][\w:+-]*\}`([^`]*)`", r"\1", text)
    return re.sub(r"[*_]{1,2}([^*_]+)[*_]{1,2}", r"\1", text).strip()


def _markdown_outputs(cell) -> str:
    """The Markdown a code cell's outputs carry (``semvar.tables.show_table`` writes its
    numbered table as a MyST ``{table}`` there)."""
    return "\n".join(o.get("data", {}).get("text/markdown", "")
                     for o in cell.get("outputs", []) if o.get("output_type") != "stream")


def _doc_cells(path: Path) -> list[tuple[str, str, dict]]:
    """(cell type, source, metadata) of a page: the cells of a notebook, or one markdown cell.
    A code cell whose outputs hold Markdown (a numbered table) is followed by that Markdown
    as a cell of type ``"output"``."""
    if path.suffix == ".ipynb":
        nb = nbformat.read(path, as_version=4)
        cells = []
        for c in nb.cells:
            cells.append((c.cell_type, c.source, dict(c.get("metadata", {}))))
            shown = _markdown_outputs(c) if c.cell_type == "code" else ""
            if shown.strip():
                cells.append(("output", shown, {}))
        return cells
    text = path.read_text(encoding="utf-8")
    if text.startswith("---\n"):  # front matter
        end = text.find("\n---\n", 4)
        text = text[end + 5:] if end > 0 else text
    return [("markdown", text, {})]


def _toc_docs(toc: dict) -> tuple[list[str], dict[str, int]]:
    """All docnames of ``_toc.yml`` in order, and the chapter numbers of the numbered parts."""
    docs, numbers, counter = [toc["root"]], {}, 0

    def walk(entries, numbered, depth):
        nonlocal counter
        for entry in entries:
            doc = entry.get("file")
            if doc:
                docs.append(doc)
                if numbered and depth == 0:
                    counter += 1
                    numbers[doc] = counter
            walk(entry.get("sections", []), numbered, depth + 1)

    for part in toc.get("parts", []):
        walk(part.get("chapters", []), bool(part.get("numbered")), 0)
    walk(toc.get("chapters", []), False, 0)
    return docs, numbers


def _index_page(book: Book, doc: str, path: Path) -> None:
    chapter = book.chapters.get(doc)
    counts = {"figure": 0, "table": 0, "exercise": 0, "equation": 0}

    def number(kind: str) -> str:
        counts[kind] += 1
        return f"{chapter}.{counts[kind]}" if chapter else str(counts[kind])

    pending: list[str] = []
    for cell_type, source, metadata in _doc_cells(path):
        if cell_type == "code":
            fig = (metadata.get("mystnb") or {}).get("figure")
            if isinstance(fig, dict):
                n = number("figure")
                if fig.get("name"):
                    book.labels[fig["name"]] = Target(doc, "figure", _strip_inline_markup(str(fig.get("caption", ""))), n)
            continue
        if cell_type not in ("markdown", "output"):
            continue
        lines = source.split("\n")
        i = 0
        while i < len(lines):
            line = lines[i]
            label = _LABEL.match(line.strip())
            heading = _HEADING.match(line)
            opened = _OPEN.match(line)
            if label:
                pending.append(label.group("label"))
            elif heading:
                text = _strip_inline_markup(heading.group("text"))
                if doc not in book.titles:
                    book.titles[doc] = text
                for name in pending:
                    book.labels[name] = Target(doc, "section", text)
                pending = []
            elif line.strip().startswith("$$"):
                end = i if line.strip() != "$$" and _EQ_CLOSE.match(line.strip()[2:]) else None
                j = i + 1
                while end is None and j < len(lines):
                    if "$$" in lines[j]:
                        end = j
                    j += 1
                close = _EQ_CLOSE.match(lines[end if end is not None else i].strip())
                if end is not None and close and (end > i or line.strip().count("$$") >= 2):
                    book.labels[close.group("label")] = Target(doc, "equation", "", number("equation"))
                i = (end if end is not None else i) + 1
                continue
            elif opened:
                name = opened.group("name")
                options, body_start = _options(lines, i + 1)
                kind = ("figure" if name in _FIGURES else "table" if name in _TABLES
                        else "exercise" if name in _EXERCISES else "equation" if name == "math" else None)
                if kind and not (kind == "exercise" and "nonumber" in options):
                    n = number(kind)
                    name_opt = options.get("label") or options.get("name")
                    if name_opt:
                        caption = opened.group("args").strip() or options.get("caption", "")
                        book.labels[name_opt] = Target(doc, kind, _strip_inline_markup(caption), n)
            elif line.strip():
                for name in pending:  # a label on a paragraph: a place to link to, no title
                    book.labels[name] = Target(doc, "anchor", "")
                pending = []
            i += 1


def _options(lines: list[str], start: int) -> tuple[dict[str, str], int]:
    """The ``:key: value`` option lines of a directive that start at ``lines[start]``."""
    options: dict[str, str] = {}
    i = start
    while i < len(lines):
        m = _OPTION.match(lines[i])
        if not m:
            break
        options[m.group("key")] = m.group("value").strip()
        i += 1
    return options, i


def _latex_text(text: str) -> str:
    from pybtex.richtext import Text

    return str(Text.from_latex(text)) if ("{" in text or "\\" in text) else text


def _citations(path: Path) -> dict[str, tuple[str, str]]:
    from pybtex.database import parse_file

    out = {}
    for key, entry in parse_file(str(path), bib_format="bibtex").entries.items():
        people = entry.persons.get("author") or entry.persons.get("editor") or []
        lasts = [_latex_text(" ".join(p.prelast_names + p.last_names)) for p in people]
        who = (lasts[0] if len(lasts) == 1 else f"{lasts[0]} and {lasts[1]}" if len(lasts) == 2
               else f"{lasts[0]} et al." if lasts else _latex_text(entry.fields.get("title", key)))
        year = entry.fields.get("year", "n.d.")
        fields = {k.lower(): v for k, v in entry.fields.items()}
        arxiv = fields.get("eprint") if fields.get("archiveprefix", "").lower() == "arxiv" else None
        if arxiv is None:
            m = re.search(r"arXiv:\s*(\d{4}\.\d{4,5})", fields.get("note", "") + " " + fields.get("journal", ""))
            arxiv = m.group(1) if m else None
        url = (f"https://doi.org/{fields['doi']}" if fields.get("doi") else fields.get("url")
               or (f"https://arxiv.org/abs/{arxiv}" if arxiv else ""))
        out[key] = (f"{who}, {year}", url)
    return out


@lru_cache(maxsize=4)
def load_book(root: str | Path = ROOT) -> Book:
    """Index the book under ``root``: chapter numbers, titles, labels, citations, ledger records."""
    root = Path(root)
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    docs, numbers = _toc_docs(toc)
    book = Book(chapters=numbers, root=root)
    for doc in docs:
        path = root / (doc + ".ipynb") if (root / (doc + ".ipynb")).is_file() else root / (doc + ".md")
        if path.is_file():
            _index_page(book, doc, path)
            book.labels.setdefault(doc, Target(doc, "page", book.titles.get(doc, doc)))
    for bib in sorted((root / "book").glob("*.bib")):
        book.citations.update(_citations(bib))
    config = root / "_config.yml"
    if config.is_file():
        parse = (yaml.safe_load(config.read_text(encoding="utf-8")) or {}).get("parse") or {}
        book.substitutions = dict(parse.get("myst_substitutions") or {})
    ledger = root / "data" / "scorecard.json"
    if ledger.is_file():
        book.records = {r["id"]: r for r in json.loads(ledger.read_text(encoding="utf-8"))}
    return book


@lru_cache(maxsize=1)
def _ledger_module():
    """``book/_ext/ledger.py``, which renders the ledger's roles in the book (the same words here)."""
    name = "_semvar_handout_ledger"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "book" / "_ext" / "ledger.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def _verdict_words() -> dict[str, str]:
    from semvar.claims import VERDICT_WORDS

    return VERDICT_WORDS


# ----------------------------------------------------------------------------- roles


def _md_link(text: str, url: str) -> str:
    return f"[{text}]({url})" if url else text


class _Roles:
    def __init__(self, book: Book, doc: str):
        self.book, self.doc = book, doc

    def __call__(self, role: str, text: str) -> str:
        base = role.split(":")[0]
        handler = getattr(self, "_" + base.replace("-", "_"), None)
        if handler is None:
            return self._other(role, text)
        return handler(role, text)

    def _target(self, text: str) -> tuple[str | None, str]:
        m = _TITLED.match(text)
        return (m.group("title"), m.group("target").strip()) if m else (None, text.strip())

    def _resolve(self, label: str) -> Target:
        book = self.book
        if label in book.labels:
            return book.labels[label]
        raise KeyError(f"{self.doc}: no page or label {label!r} in the book")

    def _cite(self, role: str, text: str) -> str:
        parts = []
        for key in (k.strip() for k in text.split(",")):
            if key not in self.book.citations:
                raise KeyError(f"{self.doc}: no bibliography entry {key!r}")
            label, url = self.book.citations[key]
            if role.endswith(":t"):
                who, _, year = label.rpartition(", ")
                label = f"{who} ({year})"
            parts.append(_md_link(label, url or self.book.link("book/bibliography", self.doc)))
        return "; ".join(parts) if role.endswith(":t") else "[" + "; ".join(parts) + "]"

    def _doc(self, role: str, text: str) -> str:
        title, target = self._target(text)
        if target.startswith("/"):
            doc = target.lstrip("/")
        else:
            doc = f"{self.doc.rpartition('/')[0]}/{target}".lstrip("/")
        doc = re.sub(r"\.(md|ipynb)$", "", doc)
        if doc not in self.book.titles:
            raise KeyError(f"{self.doc}: no page {target!r} in the book")
        return _md_link(title or self.book.titles[doc], self.book.link(doc, self.doc))

    def _ref(self, role: str, text: str) -> str:
        title, label = self._target(text)
        t = self._resolve(label)
        shown = title or (t.text if t.kind != "equation" else f"({t.number})")
        anchor = "" if t.kind in ("page",) else label
        return _md_link(shown, self.book.link(t.doc, self.doc, anchor))

    def _numref(self, role: str, text: str) -> str:
        title, label = self._target(text)
        t = self._resolve(label)
        if not t.number:
            return self._ref("ref", text)
        shown = (title.replace("%s", t.number).replace("{number}", t.number).replace("{name}", t.text)
                 if title else f"{_KIND_WORD.get(t.kind, t.kind)} {t.number}")
        return _md_link(shown, self.book.link(t.doc, self.doc, label))

    def _eq(self, role: str, text: str) -> str:
        t = self._resolve(text.strip())
        return _md_link(f"({t.number})", self.book.link(t.doc, self.doc, text.strip()))

    def _record(self, rid: str) -> dict:
        if rid not in self.book.records:
            raise KeyError(f"{self.doc}: no record {rid!r} in data/scorecard.json")
        return self.book.records[rid]

    def _scorecard_link(self, rid: str) -> str:
        from semvar.claims import card_anchor

        return self.book.link(self.book.ledger_page, self.doc, card_anchor(rid))

    def _verdict(self, role: str, text: str) -> str:
        rid = text.strip()
        word = _verdict_words().get(self._record(rid)["status"], self._record(rid)["status"])
        return _md_link(f"**{word}**", self._scorecard_link(rid))

    def _claim(self, role: str, text: str) -> str:
        rid = text.strip()
        word = _verdict_words().get(self._record(rid)["status"], self._record(rid)["status"])
        return f"`{rid}` " + _md_link(f"**{word}**", self._scorecard_link(rid))

    def _ledger(self, role: str, text: str) -> str:
        ledger = _ledger_module()
        spec, _, fmt = text.strip().partition("|")
        rid, _, path = spec.partition(":")
        rid, path, fmt = rid.strip(), path.strip() or "our_value", fmt.strip()
        shown = ledger.render_value(ledger.lookup(self._record(rid), path), fmt)
        from semvar.claims import public_text

        return _md_link(public_text(shown), self._scorecard_link(rid))

    def _math(self, role: str, text: str) -> str:
        return f"${text}$"

    def _sub(self, role: str, text: str) -> str:
        return f"<sub>{text}</sub>"

    def _sup(self, role: str, text: str) -> str:
        return f"<sup>{text}</sup>"

    def _abbr(self, role: str, text: str) -> str:
        m = re.match(r"(.*?)\s*\((.*)\)$", text)
        return m.group(1) if m else text

    def _other(self, role: str, text: str) -> str:
        # {glue}, {download}, {term}, ...: the text the role wraps, as code when it names something
        title, target = self._target(text)
        return title if title else f"`{target}`"


_SUBSTITUTION = re.compile(r"\{\{(?P<expr>[^{}]+)\}\}")


def _substitute(text: str, values: dict) -> str:
    """``{{ expr }}`` rendered as MyST does (a Jinja2 expression over the book's
    ``myst_substitutions``); an unknown name raises ``KeyError``."""
    if "{{" not in text:
        return text
    import jinja2

    env = jinja2.Environment(undefined=jinja2.StrictUndefined)

    def repl(m: re.Match) -> str:
        try:
            return env.from_string(m.group(0)).render(**values)
        except jinja2.UndefinedError as exc:
            raise KeyError(f"substitution {m.group(0)!r}: {exc}") from None

    return _SUBSTITUTION.sub(repl, text)


def _inline(text: str, roles: _Roles) -> str:
    text = _substitute(text, roles.book.substitutions)

    def repl(m: re.Match) -> str:
        if m.group("code"):
            return m.group("code")
        return roles(m.group("role"), m.group("text"))

    return _INLINE.sub(repl, text)


# ----------------------------------------------------------------------------- blocks


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line.strip() else ">" for line in text.split("\n"))


def _ledger_table(book: Book, doc: str, kind: str) -> str:
    from semvar import claims

    order = {w: i for i, (w, _) in enumerate(claims.WORKS)}
    recs = [claims.Record(**r) for r in book.records.values() if r.get("kind", "claim") == kind]
    recs.sort(key=lambda r: (order.get(claims.source_work(r), 99), r.notebook, r.id))
    rows = ["| claim | verdict | why, in one line |", "|---|---|---|"]
    current = None
    for r in recs:
        work = claims.source_work(r)
        if work != current:
            current = work
            n = sum(claims.source_work(x) == work for x in recs)
            rows.append(f"| **{claims.work_name(work)}** ({n} {'claims' if kind == 'claim' else 'findings'}) | | |")
        word = claims.VERDICT_WORDS.get(r.status, r.status)
        reason = claims.one_line(r, width=150).replace("|", "\\|").replace("\n", " ")
        rows.append(f'| <a id="{claims.card_anchor(r.id)}"></a>`{r.id}` | **{word}** | {reason} |')
    return "\n".join(rows)


def _ledger_edition(book: Book) -> str:
    cff = yaml.safe_load((book.root / "CITATION.cff").read_text(encoding="utf-8"))
    return f"**Edition:** version {cff.get('version', 'unknown')} (`CITATION.cff`); the ledger is `data/scorecard.json`."


def _ledger_cite(book: Book) -> str:
    ledger = _ledger_module()
    cff = yaml.safe_load((book.root / "CITATION.cff").read_text(encoding="utf-8"))
    authors = ledger._authors(cff)
    year = str(cff.get("date-released", ""))[:4]
    return f"{' and '.join(authors)} ({year}). {cff['title']}. Version {cff.get('version', '')}."


class _Converter:
    def __init__(self, book: Book, doc: str):
        self.book, self.doc, self.roles = book, doc, _Roles(book, doc)

    def exercise_number(self, label: str) -> str:
        t = self.book.labels.get(label.strip())
        return f"Exercise {t.number}" if t and t.kind == "exercise" else "the exercise"

    def block(self, name: str, args: str, options: dict, body: str) -> str:
        body = self.convert(body).strip()
        args = _inline(args.strip(), self.roles)
        if name in _EXERCISES:
            t = self.book.labels.get(options.get("label", ""))
            head = f"Exercise {t.number}" if t and t.kind == "exercise" else "Exercise"
            head = f"{head}: {args}" if args else head
            return f"#### {head}\n\n{body}".strip()
        if name in ("solution", "solution-start"):
            return f"#### Solution to {self.exercise_number(args)}\n\n{body}".strip()
        if name == "solution-end":
            return ""
        if name in _FIGURES:
            t = self.book.labels.get(options.get("name", ""))
            caption = (f"*Fig. {t.number}: {body}*" if t else f"*{body}*") if body else ""
            anchor = f'<a id="{options["name"]}"></a>\n' if options.get("name") else ""
            image = f"![{body or args}]({args})" if name == "figure" else ""
            return f"{anchor}{image}\n\n{caption}".strip()
        if name in _TABLES:
            t = self.book.labels.get(options.get("name", ""))
            head = f"**Table {t.number}.** {args}" if t else (f"**{args}**" if args else "")
            anchor = f'<a id="{options["name"]}"></a>\n' if options.get("name") else ""
            return f"{anchor}{head}\n\n{body}".strip()
        if name == "math":
            t = self.book.labels.get(options.get("label", ""))
            tag = f" \\tag{{{t.number}}}" if t else ""
            return f"$$\n{body}{tag}\n$$"
        if name in ("code", "code-block", "sourcecode"):
            return f"```{args}\n{body}\n```"
        if name == "ledger-table":
            table = _ledger_table(self.book, self.doc, options.get("kind", "claim"))
            t = self.book.labels.get(options.get("name", ""))
            if t is None or not options.get("caption"):
                return table
            anchor = f'<a id="{options["name"]}"></a>'
            return f"{anchor}**Table {t.number}.** {options['caption']}\n\n{table}"
        if name == "ledger-edition":
            return _ledger_edition(self.book)
        if name == "ledger-cite":
            return _ledger_cite(self.book)
        if name in _ADMONITIONS:
            title = args if name in ("admonition", "dropdown", "topic", "sidebar") and args else name.capitalize()
            return _quote(f"**{title}**\n\n{body}".strip())
        title = f"{name}: {args}" if args else name
        return _quote(f"**{title}**\n\n{body}".strip())

    def convert(self, source: str) -> str:
        lines = source.split("\n")
        out: list[str] = []
        prose: list[str] = []

        def flush():
            if prose:
                out.append(_inline("\n".join(prose), self.roles))
                prose.clear()

        i = 0
        while i < len(lines):
            line = lines[i]
            opened = _OPEN.match(line)
            plain = _PLAIN_FENCE.match(line) if opened is None else None
            if opened or (plain and plain.group("fence")[0] != ":"):
                flush()
                fence = (opened or plain).group("fence")
                j = i + 1
                while j < len(lines) and not _closes(lines[j], fence):
                    j += 1
                if opened:
                    options, body_start = _options(lines, i + 1)
                    body = "\n".join(lines[body_start:j])
                    out.append(self.block(opened.group("name"), opened.group("args"), options, body))
                else:  # fenced code: left as it is
                    out.append("\n".join(lines[i:j + 1]))
                i = j + 1
                continue
            if plain:  # a colon fence without a directive name: its text
                flush()
                j = i + 1
                while j < len(lines) and not _closes(lines[j], plain.group("fence")):
                    j += 1
                out.append(self.convert("\n".join(lines[i + 1:j])))
                i = j + 1
                continue
            label = _LABEL.match(line.strip())
            if label:
                flush()
                out.append(f'<a id="{label.group("label")}"></a>')
                i += 1
                continue
            if line.strip().startswith("$$"):
                flush()
                j = i
                if line.strip() == "$$" or not _EQ_CLOSE.match(line.strip()[2:]) and line.strip().count("$$") < 2:
                    j = i + 1
                    while j < len(lines) and "$$" not in lines[j]:
                        j += 1
                block = lines[i:j + 1]
                close = _EQ_CLOSE.match(block[-1].strip()) if block else None
                if close and (j > i or line.strip().count("$$") >= 2):
                    t = self.book.labels.get(close.group("label"))
                    tag = f" \\tag{{{t.number}}}" if t else ""
                    before = close.group("body")
                    block[-1] = (before + tag + "\n$$") if before.strip() else (tag.strip() + "\n$$")
                    out.append(f'<a id="{close.group("label")}"></a>\n\n' + "\n".join(block))
                else:
                    out.append("\n".join(block))
                i = j + 1
                continue
            if line.lstrip().startswith("% "):  # a MyST comment
                i += 1
                continue
            prose.append(line)
            i += 1
        flush()
        text = "\n\n".join(part.strip("\n") for part in out if part.strip())
        return re.sub(r"\n{3,}", "\n\n", text)


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return len(stripped) >= len(fence) and set(stripped) == {fence[0]}


def plain_markdown(source: str, doc: str, book: Book | None = None) -> str:
    """Rewrite one MyST markdown cell of page ``doc`` as plain Jupyter Markdown.

    Parameters
    ----------
    source : str
        The cell's source.
    doc : str
        The page it belongs to, as ``_toc.yml`` names it (``notebooks/03_spectral_entropy``).
    book : Book, optional
        The book's index (:func:`load_book` of the repository by default).

    Returns
    -------
    str
        The cell in plain Markdown (module docstring says what becomes what).

    Raises
    ------
    KeyError
        If a role names a page, label, bibliography entry or ledger record the book lacks.

    Examples
    --------
    >>> plain_markdown("See {numref}`fig-ch03-table1`.", "notebooks/03_spectral_entropy")
    'See [Fig. 3.1](#fig-ch03-table1).'
    """
    return _Converter(book or load_book(), doc).convert(source)


def plain_notebook(nb: nbformat.NotebookNode, doc: str, book: Book | None = None) -> nbformat.NotebookNode:
    """``nb`` (changed in place and returned) with every markdown cell in plain Jupyter Markdown.

    A cell left empty (a ``{solution-end}`` alone) is dropped.
    """
    book = book or load_book()
    conv = _Converter(book, doc)
    cells = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = conv.convert(cell.source)
            if not cell.source.strip():
                continue
        cells.append(cell)
    nb.cells = cells
    return nb


# ----------------------------------------------------------------------------- what MyST is left


_LEFT = [
    ("role", re.compile(r"\{[A-Za-z][\w:+-]*\}`")),
    ("directive", re.compile(r"^[ \t]*(?:`{3,}|:{3,}|~{3,})\s*\{[A-Za-z][\w:.-]*\}", re.M)),
    ("colon fence", re.compile(r"^[ \t]*:{3,}", re.M)),
    ("label", re.compile(r"^\([^()\s]+\)=\s*$", re.M)),
    ("equation label", re.compile(r"\$\$\s*\([^()\s]+\)\s*$", re.M)),
    ("directive option", re.compile(r"^[ \t]*:(?:label|class|name|kind|nonumber|tags):", re.M)),
    ("substitution", re.compile(r"\{\{[^}]+\}\}")),
]


def _without_code(text: str) -> str:
    """``text`` with fenced code blocks (not directives) and inline code spans blanked."""
    lines, out, fence = text.split("\n"), [], None
    for line in lines:
        if fence is None:
            m = _PLAIN_FENCE.match(line)
            if m and m.group("fence")[0] != ":" and not _OPEN.match(line):
                fence = m.group("fence")
                out.append("")
                continue
            out.append(line)
        else:
            if _closes(line, fence):
                fence = None
            out.append("")
    kept = "\n".join(out)
    # a role is {name} followed by a code span: keep the braces' part visible to the search
    return re.sub(r"(?<!\})(`+)(?!`).+?\1", "", kept, flags=re.S)


def myst_left(text: str) -> list[str]:
    """The MyST roles, directives and labels that ``text`` still holds, outside code.

    >>> myst_left("A {cite}`x` and\\n```{exercise}\\nDo it.\\n```")
    ['role: {cite}`', 'directive: ```{exercise}']
    >>> myst_left("Plain, with `{cite}` in code and\\n```python\\nx = '{doc}`y`'\\n```")
    []
    """
    found = []
    scan = _without_code(text)
    for kind, pattern in _LEFT:
        for m in pattern.finditer(scan):
            found.append(f"{kind}: {m.group(0).strip()}")
    return found
