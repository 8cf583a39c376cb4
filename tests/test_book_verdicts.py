"""The book states verdicts and ledger numbers only through the roles of ``book/_ext/ledger.py``.

* every ``{verdict}``, ``{claim}`` and ``{ledger}`` role names a record of
  ``data/scorecard.json`` (and, for ``{ledger}``, a field the record has);
* no sentence of a page puts a verdict word ("replicated", "partly", "needs
  data", "fully", "supported", ...) next to a claim's identifier or name
  ("Table 1", "Theorem 3.3", ``liu2025.table1``) outside the roles: such a
  verdict is typed by hand and can contradict the ledger;
* every record is named with ``{verdict}`` or ``{claim}`` in its own chapter,
  so the section that decides it links to its card and its card back to it;
* the roles follow the file: a small Sphinx build with a changed ledger shows
  the changed verdict, and an unknown record fails the build.
"""

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LEDGER = ROOT / "data" / "scorecard.json"
RECORDS = {r["id"]: r for r in json.loads(LEDGER.read_text(encoding="utf-8"))}
PAGES = sorted((ROOT / "book").glob("*.md")) + sorted((ROOT / "notebooks").glob("*.md"))

ROLE = re.compile(r"\{(verdict|claim|ledger)\}`([^`]+)`")
VERDICT_WORD = re.compile(r"\b(not[ _]replicated|replicated|partly|needs[ _]data|fully|supported|unsupported)\b", re.I)
NAME = re.compile(r"\b(Table|Figure|Theorem|Corollary|Lemma|Proposition)s? (?:[A-Z]\.)?\d+(?:\.\d+)*\b|\bpanel [ABC]\b",
                  re.I)
BARE_ID = re.compile(r"`([a-z0-9_]+\.[a-z0-9_]+)`")
#: a line that starts an item of a list: each item is a paragraph of its own
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")


def _ext():
    spec = importlib.util.spec_from_file_location("ledger_ext", ROOT / "book" / "_ext" / "ledger.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def prose(path: Path) -> list[tuple[int, str]]:
    """(first line number, paragraph) of the page's prose: front matter, code cells and fences removed."""
    lines = path.read_text(encoding="utf-8").split("\n")
    out, para, start, fence, i = [], [], 0, None, 0
    if lines and lines[0] == "---":
        i = lines.index("---", 1) + 1
    for n in range(i, len(lines)):
        line = lines[n]
        m = re.match(r"^\s*(`{3,}|~{3,})", line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line.strip()[len(m.group(1)):]:
                fence = None
            continue
        if m:
            fence = m.group(1)
            if para:
                out.append((start, " ".join(para)))
                para = []
            continue
        if not line.strip() or line.startswith("#") or LIST_ITEM.match(line):
            if para:
                out.append((start, " ".join(para)))
                para = []
            if not line.strip() or line.startswith("#"):
                continue
        if not para:
            start = n + 1
        para.append(line.strip())
    if para:
        out.append((start, " ".join(para)))
    return out


def sentences(text: str) -> list[str]:
    return re.split(r"(?<=[.;!?])\s+(?=[A-Z*({\[`\"$])", text)


def test_prose_reader_skips_code_and_front_matter(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("---\nkernelspec: x\n---\n# T\n\nOne `a.b`\ntwo.\n\n```{code-cell} ipython3\nreplicated = 1\n```\n\nEnd.\n"
                    "- item one\n  goes on\n- item two, $p - q$\n10. **Item ten.** Text.\n")
    assert prose(page) == [(6, "One `a.b` two."), (13, "End."), (14, "- item one goes on"), (16, "- item two, $p - q$"),
                           (17, "10. **Item ten.** Text.")]


def test_every_role_names_a_record_and_a_field():
    ext = _ext()
    bad, seen = [], 0
    for page in PAGES:
        for n, para in prose(page):
            for kind, text in ROLE.findall(para):
                seen += 1
                spec, _, fmt = text.partition("|")
                rid, _, path = spec.partition(":")
                rid = rid.strip()
                if rid not in RECORDS:
                    bad.append(f"{page.relative_to(ROOT)}:{n}: {{{kind}}}`{text}`: no record {rid!r}")
                elif kind == "ledger":
                    try:
                        ext.render_value(ext.lookup(RECORDS[rid], path.strip() or "our_value"), fmt.strip())
                    except (KeyError, ValueError, TypeError) as exc:
                        bad.append(f"{page.relative_to(ROOT)}:{n}: {{ledger}}`{text}`: {exc}")
                elif path or fmt:
                    bad.append(f"{page.relative_to(ROOT)}:{n}: {{{kind}}}`{text}` takes a record id only")
    assert seen > 60, f"only {seen} roles found: is the page reader broken?"
    assert not bad, "roles that name nothing in data/scorecard.json:\n" + "\n".join(bad)


def hand_verdicts(page: Path) -> list[str]:
    """Sentences of ``page`` with a verdict word next to a claim's id or name, outside the roles."""
    label = page.relative_to(ROOT) if page.is_relative_to(ROOT) else page.name
    found = []
    for n, para in prose(page):
        for sent in sentences(para):
            plain = ROLE.sub(" ", sent)
            ids = [i for i in BARE_ID.findall(plain) if i in RECORDS]
            names = [m.group(0) for m in NAME.finditer(plain)]
            words = VERDICT_WORD.findall(plain)
            if words and (ids or names):
                found.append(f"{label}:{n}: {words} next to {ids + names}: {sent[:160]}")
    return found


def test_the_hand_verdict_detector_finds_the_old_contradictions(tmp_path):
    page = tmp_path / "ch.md"
    page.write_text("So Figure 1's claim is **partly** supported: a sharp change exists.\n\n"
                    "The intro said the identical-sets mechanism reproduces fully (`ye_review.same_sets`).\n\n"
                    "Figure 1 is {verdict}`liu2025.figure1`, and Table 1 too: {verdict}`liu2025.table1`.\n\n"
                    "The claim is replicated ({claim}`liu2025.table1`) says Table 2.\n")
    found = hand_verdicts(page)
    assert len(found) == 3, found
    assert "partly" in found[0] and "fully" in found[1] and "replicated" in found[2]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_states_a_verdict_by_hand(page):
    found = hand_verdicts(page)
    assert not found, ("state verdicts with {verdict}`ID` or {claim}`ID` (book/_ext/ledger.py), "
                       "not by hand:\n" + "\n".join(found))


# ----------------------------------------------------------------------------- comparative words


#: words that compare a record's result with a claim or a bar, and the verdicts they imply: "does not lose" and
#: "survives" say the claim holds, "holds only in part" that it is partly replicated ("What survives", "survives
#: only in part", "*Survives:* no" and "does not survive" say something else).  "Near the paper's" (None) is a
#: claim about numbers: the sentence must show them from the ledger ({ledger} role) or give the verdict.
COMPARATIVE = [
    (re.compile(r"\bdo(?:es)? not lose\b|\bno worse\b|\bat least as (?:well|good)\b|\bon a par\b", re.I),
     {"replicated"}),
    (re.compile(r"\b(?:near|close to) (?:the paper's|the published)\b", re.I), None),
    (re.compile(r"(?<!not )(?<!what )\bsurvives?\b(?! only)(?! in part)(?!:?\*?:? (?:no|not)\b)", re.I),
     {"replicated"}),
    (re.compile(r"\b(?:holds?|survives?) only in part\b|\bin part\b", re.I), {"partly"}),
]
REF = re.compile(r"\{(?:verdict|claim|ledger)\}`\s*([^`|:\s]+)[^`]*`|`([a-z0-9_]+\.[a-z0-9_]+)`")


def _refs(text: str, pos: int = 0) -> list[tuple[int, int, str]]:
    """(start, end, id) of every record named by a role or a bare id in ``text`` from ``pos``."""
    return [(m.start(), m.end(), m.group(1) or m.group(2)) for m in REF.finditer(text, pos)
            if (m.group(1) or m.group(2)) in RECORDS]


def _next_to(sentence: str, pos: int) -> set[str]:
    """The records named next to ``pos``: the first run of roles or ids after it, else the last one before it."""
    after = _refs(sentence, pos)
    if after:
        run, end = [after[0][2]], after[0][1]
        for start, stop, rid in after[1:]:
            if re.sub(r"[\s,;()]|\band\b", "", sentence[end:start]):
                break
            run.append(rid)
            end = stop
        return set(run)
    before = _refs(sentence[:pos])
    return {before[-1][2]} if before else set()


def _named(sentence: str) -> set[str]:
    """Records whose source names what the sentence names ("Theorem 3.3", "panel B")."""
    names = {m.group(0).lower() for m in NAME.finditer(ROLE.sub(" ", sentence))}
    return {rid for rid, rec in RECORDS.items()
            for name in names if re.search(r"\b" + re.escape(name) + r"\b", rec["source"], re.I)}


def _scorecard_records(page: Path) -> dict[int, set[str]]:
    """Line number -> the records of its section's "On the scorecard:" line."""
    out, current = {}, set()
    for n, line in enumerate(page.read_text(encoding="utf-8").split("\n"), 1):
        if line.startswith("#"):
            current = set()
        if line.startswith("**On the scorecard:**"):
            current = {rid for _, _, rid in _refs(line)}
        out[n] = current
    return out


def contradicting_comparisons(page: Path) -> list[str]:
    """Sentences whose comparative words imply a verdict that the record they are next to does not have.

    The record is the one named by a role or id next to the words in the sentence; else one whose source the
    sentence names; else one the paragraph names; else (for the words that imply a verdict) the single record
    of the section's "On the scorecard" line.  Records that wait for data are not judged.
    """
    label = page.relative_to(ROOT) if page.is_relative_to(ROOT) else page.name
    section = _scorecard_records(page)
    found = []
    for n, para in prose(page):
        for sent in sentences(para):
            for pattern, implied in COMPARATIVE:
                for m in pattern.finditer(sent):
                    near = _next_to(sent, m.start()) or _named(sent) or {r for _, _, r in _refs(para)}
                    if implied is None:
                        if near and not re.search(r"\{(?:ledger|verdict)\}`", sent):
                            found.append(f"{label}:{n}: {m.group(0)!r} with no number or verdict from the ledger "
                                         f"(records near: {', '.join(sorted(near))}): {sent[:160]}")
                        continue
                    if not near and len(section.get(n, ())) == 1:
                        near = section[n]
                    bad = sorted(f"{rid} is {RECORDS[rid]['status']}" for rid in near
                                 if RECORDS[rid]["status"] not in implied | {"needs_data"})
                    if bad:
                        found.append(f"{label}:{n}: {m.group(0)!r} next to {', '.join(bad)}: {sent[:160]}")
    return found


def test_the_comparison_detector_finds_the_old_contradictions(tmp_path):
    """The four sentences that contradicted the ledger (spelled as they stood), each caught; their
    rewritten forms pass."""
    rows = {r: dict(RECORDS.get(r, {"source": ""}), id=r) for r in
            ("liu2025.theorem33", "liu2025.theorem34", "regime.spectral_vs_graph_measures",
             "humanjudges.llm_judges_phase", "ye_review.score_ranking", "liu2025.figure1")}
    statuses = {"liu2025.theorem33": "partly", "liu2025.theorem34": "not_replicated",
                "regime.spectral_vs_graph_measures": "partly", "humanjudges.llm_judges_phase": "replicated",
                "ye_review.score_ranking": "partly", "liu2025.figure1": "partly"}
    page = tmp_path / "ch.md"
    page.write_text(
        "- Several of its bounds hold only in part: they fail for a small gap ({claim}`liu2025.theorem33`, "
        "{claim}`liu2025.theorem34`).\n\n"
        "## Peers\n\n**On the scorecard:** {claim}`regime.spectral_vs_graph_measures`.\n\n"
        "It is level with semantic entropy.  The book's measure does not lose to its peers in its own regime.\n\n"
        "## Judges\n\n- Read as $(p, q)$ all three sit near the paper's GPT-3.5 and Jamba ($p - q$ of 0.80 "
        "and 0.81), above the change point of its Figure 1.\n\n- They lie near the paper's 0.80 "
        "({ledger}`humanjudges.llm_judges_phase:GPT-4.p_minus_q_ci95|range:.2f`).\n\n"
        "**The flip** (review, panel B).  A flip happens, but between near-ties.  *Survives* as a flip between "
        "near-ties.  Evidence: {claim}`ye_review.score_ranking`.\n\n"
        "**Fine.** *What survives:* the rate.  *Survives:* no.  It does not survive "
        "({claim}`liu2025.theorem34`).\n", encoding="utf-8")
    saved = {r: RECORDS.get(r) for r in rows}
    try:
        for rid, row in rows.items():
            RECORDS[rid] = dict(row, status=statuses[rid])
        found = contradicting_comparisons(page)
    finally:
        for rid, row in saved.items():
            if row is None:
                RECORDS.pop(rid, None)
            else:
                RECORDS[rid] = row
    assert len(found) == 4, "\n".join(found)
    assert "'hold only in part' next to liu2025.theorem34 is not_replicated" in found[0]
    assert "'does not lose' next to regime.spectral_vs_graph_measures is partly" in found[1]
    assert "near the paper's" in found[2] and "with no number or verdict from the ledger" in found[2]
    assert "'Survives' next to ye_review.score_ranking is partly" in found[3]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_comparison_contradicts_the_ledger(page):
    found = contradicting_comparisons(page)
    assert not found, ("comparative words imply a verdict the ledger does not give; say it with {verdict}`ID` "
                       "and words that agree with it:\n" + "\n".join(found))


# ----------------------------------------------------------------------------- errata items by number

ERRATA = ROOT / "book" / "errata.md"
ERRATA_ITEM = re.compile(r"^(\d+)\. \*\*(.+?)\*\*(?:\s*\(([^)]*)\))?", re.M | re.S)
CITATION = re.compile(r"errata items? (\d+(?:(?:, | and )\d+)*)")
SECTION_NUMBER = re.compile(r"\b(?:[A-Z]\.\d+(?:\.\d+)*|\d+(?:\.\d+)+)\b")


def errata_items(text: str) -> dict[int, str]:
    """Number -> heading (and the location in brackets after it) of every numbered item of the errata page."""
    return {int(m.group(1)): " ".join(filter(None, (m.group(2), m.group(3))))
            for m in ERRATA_ITEM.finditer(text)}


def _section_numbers(text: str) -> set[str]:
    """"3.3", "A.8", ... in ``text``, with the parents of each ("3.3.1" gives "3.3" too)."""
    out = set()
    for num in SECTION_NUMBER.findall(text):
        parts = num.split(".")
        out |= {".".join(parts[:k]) for k in range(2, len(parts) + 1)}
    return out


def test_every_errata_item_is_numbered_once_in_page_order():
    text = ERRATA.read_text(encoding="utf-8")
    numbers = [int(m.group(1)) for m in ERRATA_ITEM.finditer(text)]
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) >= 30, numbers
    unnumbered = [para[:80] for _, para in prose(ERRATA) if para.startswith("**")]
    assert not unnumbered, f"errata items without a number (the scorecard cites items by number): {unnumbered}"


def test_errata_citations_of_the_ledger_point_at_the_right_item():
    """Every "errata item N" in a record names an item about the same theorem, lemma or section: the item's
    heading shares a number ("3.3", "A.8") with the record's source or the sentence that cites it."""
    items = errata_items(ERRATA.read_text(encoding="utf-8"))
    seen, bad = 0, []
    for rid, rec in sorted(RECORDS.items()):
        for field in ("note", "tolerance", "statement"):
            text = str(rec.get(field) or "")
            for m in CITATION.finditer(text):
                context = text[max(0, m.start() - 300):m.start()]
                context = re.split(r"(?<=[.;])\s+(?=[A-Z])", context)[-1]
                wanted = _section_numbers(rec["source"]) | _section_numbers(context)
                for num in map(int, re.findall(r"\d+", m.group(1))):
                    seen += 1
                    if num not in items:
                        bad.append(f"{rid} ({field}): errata item {num} does not exist")
                    elif not wanted & _section_numbers(items[num]):
                        bad.append(f"{rid} ({field}): errata item {num} is {items[num]!r}, about none of "
                                   f"{sorted(wanted)}")
    assert seen >= 5, f"only {seen} citations found: is the reader broken?"
    assert not bad, "\n".join(bad)


def test_every_record_is_named_in_its_chapter():
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    missing = []
    for rid, rec in sorted(RECORDS.items()):
        nb = rec["notebook"]
        if not nb or f"notebooks/{nb}" not in toc:
            continue
        text = (ROOT / "notebooks" / f"{nb}.md").read_text(encoding="utf-8")
        if f"{{verdict}}`{rid}`" not in text and f"{{claim}}`{rid}`" not in text:
            missing.append(f"{rid} (chapter {nb})")
    assert not missing, ("records whose chapter never names them with {verdict} or {claim} "
                         "(no section links to their card):\n" + "\n".join(missing))


# ----------------------------------------------------------------------------- the roles follow the file


def _mini_book(tmp_path, ledger_rows, body):
    src = tmp_path / "src"
    (src / "data").mkdir(parents=True)
    (src / "notebooks").mkdir()
    (src / "data" / "scorecard.json").write_text(json.dumps(ledger_rows), encoding="utf-8")
    (src / "CITATION.cff").write_text((ROOT / "CITATION.cff").read_text(encoding="utf-8"), encoding="utf-8")
    (src / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT / 'book' / '_ext')!r})\n"
        "extensions = ['myst_parser', 'ledger']\nhtml_theme = 'basic'\n", encoding="utf-8")
    (src / "index.md").write_text("# Book\n\n```{toctree}\nnotebooks/ch\nnotebooks/scorecard\n```\n", encoding="utf-8")
    (src / "notebooks" / "ch.md").write_text("# Chapter\n\n## The deciding section\n\n" + body + "\n", encoding="utf-8")
    (src / "notebooks" / "scorecard.md").write_text("# Scorecard\n\n```{ledger-table}\n:kind: claim\n```\n",
                                                    encoding="utf-8")
    return src


def _build(src, out):
    """Build the small book in a fresh process (Sphinx registers its extensions once per process)."""
    done = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-E", "-b", "html", str(src), str(out)],
                          capture_output=True, text=True, check=False, timeout=300)
    return done.stderr


def test_a_changed_ledger_changes_the_pages(tmp_path):
    pytest.importorskip("myst_parser")
    row = dict(RECORDS["liu2025.figure1"], notebook="ch", our_value={"a": 0.25, "b": 0.6})
    src = _mini_book(tmp_path, [row], "Figure 1 is {verdict}`liu2025.figure1`; it lies in "
                                      "{ledger}`liu2025.figure1:our_value|range:.2f`.")
    pages = {}
    for status in ("partly", "not_replicated"):
        row["status"] = status
        (src / "data" / "scorecard.json").write_text(json.dumps([row]), encoding="utf-8")
        warnings = _build(src, tmp_path / status)
        assert "WARNING" not in warnings, warnings
        pages[status] = (tmp_path / status / "notebooks" / "ch.html").read_text(encoding="utf-8")
        table = (tmp_path / status / "notebooks" / "scorecard.html").read_text(encoding="utf-8")
        assert 'href="ch.html#decides-liu2025-figure1"' in table      # the table links to the section
        assert 'id="decides-liu2025-figure1"' in pages[status]        # which carries the anchor
    assert ">partly replicated<" in pages["partly"] and ">not replicated<" not in pages["partly"]
    assert ">not replicated<" in pages["not_replicated"]
    assert "0.25–0.60" in pages["partly"]
    assert 'href="scorecard.html#claim-liu2025-figure1"' in pages["partly"]


def test_a_captioned_ledger_table_is_numbered_and_referable(tmp_path):
    pytest.importorskip("myst_parser")
    row = dict(RECORDS["liu2025.figure1"], notebook="ch")
    src = _mini_book(tmp_path, [row], "Figure 1 is {verdict}`liu2025.figure1`; all claims: "
                                      "{numref}`tbl-claims`.")
    (src / "conf.py").write_text((src / "conf.py").read_text(encoding="utf-8") + "numfig = True\n",
                                 encoding="utf-8")
    (src / "notebooks" / "scorecard.md").write_text(
        "# Scorecard\n\n```{ledger-table}\n:kind: claim\n:caption: The claims.\n"
        ":name: tbl-claims\n```\n", encoding="utf-8")
    warnings = _build(src, tmp_path / "out")
    assert "WARNING" not in warnings, warnings
    table = (tmp_path / "out" / "notebooks" / "scorecard.html").read_text(encoding="utf-8")
    chapter = (tmp_path / "out" / "notebooks" / "ch.html").read_text(encoding="utf-8")
    assert 'id="tbl-claims"' in table and "The claims." in table
    assert 'href="ch.html#decides-liu2025-figure1"' in table          # the rows are filled in
    assert 'scorecard.html#tbl-claims' in chapter and "Table 1" in chapter


def test_an_unknown_record_or_field_fails_the_build(tmp_path):
    pytest.importorskip("myst_parser")
    row = dict(RECORDS["liu2025.figure1"], notebook="ch")
    src = _mini_book(tmp_path, [row], "{verdict}`liu2025.figure1` {verdict}`liu2025.nope` "
                                      "{ledger}`liu2025.figure1:our_value.nokey`")
    warnings = _build(src, tmp_path / "out")
    assert "no record 'liu2025.nope'" in warnings
    assert "has no 'nokey'" in warnings


def test_a_record_its_chapter_never_names_is_reported(tmp_path):
    pytest.importorskip("myst_parser")
    row = dict(RECORDS["liu2025.figure1"], notebook="ch")
    src = _mini_book(tmp_path, [row], "Figure 1 without its verdict.")
    warnings = _build(src, tmp_path / "out")
    assert "record liu2025.figure1: its chapter notebooks/ch never names it" in warnings


def test_ledger_formats_never_hinge_on_rounding():
    ext = _ext()
    assert ext.render_value(0.2426, ".0%") == "24%" and ext.render_value({"a": 0.2, "b": [0.65]}, "range:.2f") == "0.20–0.65"
    for value, fmt in ((0.365, ".2f"), (0.125, ".0%"), ([0.1, 0.25], "range:.1f")):
        with pytest.raises(ValueError, match="ends in a 5"):
            ext.render_value(value, fmt)
    assert ext.render_value(0.365) == "0.365"                       # as stored
