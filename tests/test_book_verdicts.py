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
        if not line.strip() or line.startswith("#"):
            if para:
                out.append((start, " ".join(para)))
                para = []
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
    page.write_text("---\nkernelspec: x\n---\n# T\n\nOne `a.b`\ntwo.\n\n```{code-cell} ipython3\nreplicated = 1\n```\n\nEnd.\n")
    assert prose(page) == [(6, "One `a.b` two."), (13, "End.")]


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
