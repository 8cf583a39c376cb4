"""Build the book as two PDFs, a student and an instructor edition: the single-page HTML printed by headless Chromium.

Usage: python scripts/make_pdf.py [--edition both|student|instructor] [--skip-build] [--allow-warnings]

For each edition (``_build/pdf/semvar-student.pdf`` without solutions,
``_build/pdf/semvar-instructor.pdf`` with them):

1. a single-page build, ``jupyter-book build . --builder singlehtml -W -n
   --keep-going`` into ``_build/pdf/instructor``; the student edition's with the
   configuration of ``make book-student`` (``scripts/build_student_book.py``:
   sphinx-exercise's ``hide_solutions``) into ``_build/pdf/student``.  Each has its
   own doctrees, so neither disturbs the HTML build;
2. a print copy of the page, ``print.html`` beside it: a title page (title,
   edition, authors and version from ``CITATION.cff``, build date), a table of
   contents made from ``_toc.yml`` (parts, numbered chapters), a page break before
   each chapter, page numbers; left out: the navigation, the API reference (it is
   the docstrings: ``help(semvar...)`` or the online book) and the folded code of
   figures, with its "Show code cell source" button; the scorecard's cards (the
   detail behind each verdict) moved to an appendix at the end; folded solutions
   (instructor edition) and notes opened;
3. Chromium (``--headless --print-to-pdf``, offline flags, a user profile of its
   own) prints it from a server on 127.0.0.1 after MathJax has typeset; the page
   on which each entry of the contents starts is read from the PDF's named
   destinations (``pypdf``), written into the contents, and the page printed again
   until the numbers hold (a second print almost always suffices);
4. the PDF is read back: its pages, outline entries and images (a small reader
   of the PDF objects), and in its text the solutions ("Solution to Exercise") and
   any "Show code cell" button left; the student PDF must hold no solution.

Chromium is installed with apt-get when it is missing and the script runs as
root (as ``scripts/check_pages.sh`` does); otherwise the script says what to install.
The LaTeX route (``jupyter-book build . --builder pdflatex``, configured in
``_config.yml``'s ``latex`` section) needs a TeX installation of several GB.
"""

from __future__ import annotations

import argparse
import functools
import html
import http.server
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import zlib
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "_build" / "pdf"
EDITIONS = ("student", "instructor")
# documents left out of the PDF: the API reference (docstrings; help() or the online book)
LEFT_OUT = ("book/api",)
# sections moved to an appendix at the end: (element id, the appendix's title)
APPENDICES = (("the-cards", "The scorecard's cards"),)

PRINT_CSS = """
@page { size: A4; margin: 16mm 15mm 18mm 15mm;
        @bottom-center { content: counter(page); font-size: 9pt; color: #555; } }
@page :first { @bottom-center { content: none; } }
@media print {
  html { font-size: 10.5pt; }
  .bd-header, .bd-sidebar-primary, .bd-sidebar-secondary, .header-article, .prev-next-area,
  .bd-footer, .bd-footer-content, .bd-footer-article, #pst-back-to-top, .headerlink, .copybtn,
  .toggle-button, .skip-link, #pst-primary-sidebar-checkbox, #pst-secondary-sidebar-checkbox { display: none !important; }
  /* one column as wide as the paper: no flex item may grow to its widest table or code line */
  .bd-container, .bd-container__inner, .bd-main, .bd-content, .bd-article-container, .bd-article,
  .bd-page-width { display: block !important; min-width: 0 !important; max-width: 100% !important;
        width: 100% !important; margin-left: 0 !important; margin-right: 0 !important; }
  .bd-article { padding: 0 !important; }
  table { max-width: 100%; table-layout: auto; word-break: break-word; }
  .cell_output, .output, div.highlight, .pst-scrollable-table-container { max-width: 100%; overflow: hidden !important; }
  span[id^="document-"] + section, .semvar-appendix { break-before: page; }
  h1, h2, h3, h4 { break-after: avoid; }
  /* a chapter's last box (an exercise) may end at the foot of a page: its bottom margin alone
     would then fill a page of its own before the next chapter */
  section > :last-child, section:last-child { margin-bottom: 0 !important; }
  img, figure, .cell_output img { max-width: 100% !important; break-inside: avoid; }
  /* myst-nb writes each figure's width and height inline: keep the width within the column and the
     shape, and the height within a page, or a figure that cannot fit leaves a blank page before it */
  img { height: auto !important; max-height: 21cm !important; object-fit: contain; }
  .toggle-hidden { display: block !important; visibility: visible !important; opacity: 1 !important;
        height: auto !important; }
  pre { white-space: pre-wrap !important; word-break: break-word; }
  .semvar-title-page { break-after: page; text-align: center; padding-top: 30%; }
  .semvar-title-page h1 { font-size: 2.2em; margin-bottom: 0.6em; }
  .semvar-title-page .edition { font-size: 1.4em; margin-bottom: 2.5em; }
  .semvar-title-page p { margin: 0.3em 0; }
  .semvar-pdf-toc { break-after: page; }
  .semvar-pdf-toc ol { list-style: none; padding-left: 0; }
  .semvar-pdf-toc li { margin: 0.15em 0; }
  .semvar-pdf-toc .part { font-weight: 600; margin-top: 0.8em; }
  .semvar-pdf-toc ol ol { padding-left: 1.5em; font-weight: 400; }
  .semvar-pdf-toc .entry { display: flex; align-items: baseline; }
  .semvar-pdf-toc .entry a { flex: 0 1 auto; }
  .semvar-pdf-toc .entry .leader { flex: 1 1 auto; border-bottom: 1px dotted #999; margin: 0 0.4em; }
  .semvar-pdf-toc .entry .page { flex: 0 0 auto; min-width: 2.2em; text-align: right; }
  .semvar-pdf-toc .note { font-size: 0.9em; color: #444; margin-top: 1.5em; }
}
"""

# run before printing: open folded solutions and notes
PRINT_JS = """
<script>
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("details").forEach(d => { d.open = true; });
});
window.addEventListener("load", () => {
  document.querySelectorAll(".toggle-hidden").forEach(e => e.classList.remove("toggle-hidden"));
});
</script>
"""


@dataclass
class Counts:
    pages: int
    outline_entries: int
    pdf_images: int
    chapters: int
    figures: int
    numbered_figures: int
    solutions: int = 0
    show_code_buttons: int = 0
    blank_pages: tuple = ()


@dataclass
class Meta:
    """What the title page says."""

    title: str
    edition: str
    authors: str
    version: str
    date: str


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    if os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
        subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], check=True, env=env, stdout=subprocess.DEVNULL)
        path = shutil.which("chromium")
        if path:
            return path
    raise SystemExit("chromium is not installed (Debian/Ubuntu: sudo apt-get install chromium)")


def _single_dir(edition: str) -> Path:
    return BUILD / edition / "_build" / "singlehtml"


def build_singlehtml(edition: str = "instructor", strict: bool = True) -> Path:
    """Run the single-page build of one edition; return the page it writes."""
    if edition == "student":
        sys.path.insert(0, str(ROOT / "scripts"))
        from build_student_book import build

        if build(BUILD / edition, builder="singlehtml", strict=strict, outdir=_single_dir(edition)):
            raise SystemExit("the student edition's single-page build failed")
        return _root_page(edition)
    cmd = [str(ROOT / ".venv" / "bin" / "jupyter-book"), "build", ".", "--builder", "singlehtml",
           "--path-output", str(BUILD / edition), "-n", "--keep-going"]
    if strict:
        cmd.insert(-2, "-W")
    subprocess.run(cmd, cwd=ROOT, check=True)
    return _root_page(edition)


def _root_page(edition: str = "instructor") -> Path:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    page = _single_dir(edition) / (toc["root"] + ".html")
    if not page.is_file():
        raise SystemExit(f"{page} is missing: run without --skip-build")
    return page


_DOC = re.compile(r'<span id="document-([^"]+)"></span>\s*<section([^>]*)>\s*(?:<span id="[^"]*"></span>\s*)*'
                  r"<h[1-6][^>]*>(.*?)</h[1-6]>", flags=re.S)


def _titles(page_html: str) -> dict[str, tuple[str, str]]:
    """docname -> (section number or "", title) of each document in the single page."""
    out = {}
    for m in _DOC.finditer(page_html):
        heading = re.sub(r'<a class="headerlink".*?</a>', "", m.group(3), flags=re.S)
        number = re.search(r'<span class="section-number">([^<]*)</span>', heading)
        text = re.sub(r"<[^>]+>", "", heading[number.end():] if number else heading)
        out[m.group(1)] = ((number.group(1).strip().rstrip(".") if number else ""), html.unescape(text).strip())
    return out


def _anchor(doc: str) -> str:
    return "pdf-" + re.sub(r"[^A-Za-z0-9_-]", "-", doc)


def _anchors(page_html: str) -> dict[str, str]:
    """docname -> the id that :func:`mark_documents` gives the start of the document."""
    return {m.group(1): _anchor(m.group(1)) for m in _DOC.finditer(page_html)}


def mark_documents(text: str) -> str:
    """Put an element of a new, unique id (:func:`_anchor`) at the start of each document's section.

    The contents link to these: a section's own id may be used by another element
    of the single page (a heading of the same title elsewhere), and the document's
    marker lies before the page break, at the foot of the page before.
    """
    def repl(m: re.Match) -> str:
        return f'{m.group(0)}<span id="{_anchor(m.group(1))}"></span>'

    return re.sub(r'<span id="document-([^"]+)"></span>\s*<section[^>]*>', repl, text)


def _element_end(text: str, start: int, tag: str) -> int:
    """Index just after the element ``<tag ...>`` that opens at ``start`` closes (nested ones counted)."""
    depth = 0
    for m in re.compile(rf"<(/?){tag}\b[^>]*>").finditer(text, start):
        depth += -1 if m.group(1) else 1
        if depth == 0:
            return m.end()
    return len(text)


def cut_document(text: str, doc: str) -> str:
    """``text`` without document ``doc`` of a single-page build (its marker and its section, subpages included)."""
    marker = f'<span id="document-{doc}"></span>'
    start = text.find(marker)
    if start < 0:
        return text
    section = text.find("<section", start)
    return text[:start] + text[_element_end(text, section, "section"):]


def cut_element(text: str, element_id: str) -> tuple[str, str]:
    """``text`` without the element of id ``element_id``, and the element; ``(text, "")`` if there is none."""
    m = re.search(rf'<(\w+)\b[^>]*\bid="{re.escape(element_id)}"[^>]*>', text)
    if m is None:
        return text, ""
    end = _element_end(text, m.start(), m.group(1))
    return text[:m.start()] + text[end:], text[m.start():end]


def drop_hidden_code(text: str) -> tuple[str, int]:
    """Remove the folded code of figures ("Show code cell source") and unfold folded outputs.

    myst-nb folds a ``hide-input`` cell's code, a ``hide-output`` cell's output and a
    ``hide-cell`` cell in a ``<details class="hide ...">`` with a button; on paper the
    code is left out and an output shown.  Returns the page and the number of buttons removed.
    """
    n = 0
    out, pos = [], 0
    for m in re.finditer(r'<details class="([^"]*\bhide\b[^"]*)">', text):
        if m.start() < pos:
            continue
        end = _element_end(text, m.start(), "details")
        block = text[m.start():end]
        n += 1
        out.append(text[pos:m.start()])
        if "below-input" in m.group(1):  # a folded output: shown without its button
            inner = re.sub(r"<summary\b.*?</summary>", "", block[m.end() - m.start():-len("</details>")], count=1,
                           flags=re.S)
            out.append(f'<div class="{m.group(1).replace("hide", "shown")}">{inner}</div>')
        pos = end
    out.append(text[pos:])
    return "".join(out), n


def title_page(meta: Meta) -> str:
    return (f'<section class="semvar-title-page"><h1>{html.escape(meta.title)}</h1>'
            f'<p class="edition">{html.escape(meta.edition.capitalize())} edition</p>'
            f"<p>{html.escape(meta.authors)}</p><p>Version {html.escape(meta.version)}</p>"
            f"<p>Printed {html.escape(meta.date)}</p></section>")


def _meta(edition: str) -> Meta:
    import datetime as dt

    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    authors = ", ".join(a.get("name") or " ".join(filter(None, (a.get("given-names"), a.get("family-names"))))
                        for a in cff.get("authors", []))
    return Meta(config.get("title") or cff.get("title", "semvar"), edition, authors or str(config.get("author", "")),
                str(cff.get("version", "unknown")), dt.date.today().isoformat())


def _toc_html(titles: dict[str, tuple[str, str]], anchors: dict[str, str] | None = None,
              pages: dict[str, int] | None = None, appendices: list[tuple[str, str]] = ()) -> str:
    """The contents: parts and chapters of ``_toc.yml`` that the page holds, with their page numbers when known."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    anchors, pages = anchors or {}, pages or {}

    def line(anchor: str, label: str) -> str:
        page = pages.get(anchor, "")
        return (f'<span class="entry"><a href="#{html.escape(anchor)}">{html.escape(label)}</a>'
                f'<span class="leader"></span><span class="page">{page}</span></span>')

    def item(entry) -> str:
        doc = entry["file"]
        if doc not in titles:  # not in this build, or left out of the PDF
            return ""
        number, title = titles[doc]
        label = f"{number}. {title}" if number else title
        sub = "".join(item(s) for s in entry.get("sections", []))
        sub = f"<ol>{sub}</ol>" if sub else ""
        return f"<li>{line(anchors.get(doc, 'document-' + doc), label)}{sub}</li>"

    parts = []
    for part in toc.get("parts", []):
        items = "".join(item(c) for c in part.get("chapters", []))
        if items:
            parts.append(f'<li class="part">{html.escape(part.get("caption", ""))}<ol>{items}</ol></li>')
    if appendices:
        items = "".join(f"<li>{line(anchor, title)}</li>" for anchor, title in appendices)
        parts.append(f'<li class="part">Appendix<ol>{items}</ol></li>')
    note = ('<p class="note">The API reference is left out of the printed book: it is the docstrings '
            "of the package (<code>help(semvar.spectral)</code>, ...) and the online book.</p>")
    return f'<nav class="semvar-pdf-toc"><h2>Contents</h2><ol>{"".join(parts)}</ol>{note}</nav>'


@dataclass
class PrintCopy:
    path: Path
    titles: dict
    anchors: dict
    appendices: list
    chapters: int
    figures: int
    numbered_figures: int
    buttons_removed: int


def print_page(page: Path, meta: Meta, pages: dict[str, int] | None = None) -> PrintCopy:
    """Write ``print.html`` at the root of the single-page build (module docstring, step 2).

    ``pages`` maps the contents' anchors to page numbers (empty on the first print).
    """
    # the page lives in book/, but the build wrote every link relative to the build's root:
    # the print copy goes there
    text = page.read_text(encoding="utf-8")
    for doc in list(_titles(text)):
        if doc.startswith(LEFT_OUT):
            text = cut_document(text, doc)
    text, removed = drop_hidden_code(text)
    titles, anchors = _titles(text), _anchors(text)
    text = mark_documents(text)
    moved, appendices = [], []
    for element_id, title in APPENDICES:
        text, fragment = cut_element(text, element_id)
        if fragment:
            anchor = f"appendix-{element_id}"
            moved.append(f'<section class="semvar-appendix" id="{anchor}"><h1>Appendix: {html.escape(title)}</h1>'
                         f"{fragment}</section>")
            appendices.append((anchor, title))
    first_doc = re.search(r'<span id="document-', text)
    if first_doc is None:
        raise SystemExit(f"{page} holds no chapters: is it a single-page build?")
    last = list(re.finditer(r'<span id="document-[^"]+"></span>\s*<section', text))[-1]
    end = _element_end(text, text.find("<section", last.start()), "section")
    text = text[:end] + "".join(moved) + text[end:]
    # the title page and the contents open the book, before the root page's own text; the
    # page's frame (header, sidebars, the theme's print-only lists, footer) is left out
    front = title_page(meta) + _toc_html(titles, anchors, pages, appendices)
    text = _article_only(text, front)
    text = text.replace("</head>", f"<style>{PRINT_CSS}</style>{PRINT_JS}</head>", 1)
    out = _build_root(page) / "print.html"
    out.write_text(text, encoding="utf-8")
    chapters = sum(1 for number, _ in titles.values() if re.fullmatch(r"\d+", number))
    outputs_with_images = 0
    # a numbered figure wraps its cell's image: count it once, as the <figure>
    unwrapped = re.sub(r"<figure\b.*?</figure>", "", text, flags=re.S)
    for block in re.split(r'(?=<div class="cell_output)', unwrapped)[1:]:
        stop = block.find('<div class="cell docutils')
        outputs_with_images += len(re.findall(r"<img\b", block[: stop if stop > 0 else len(block)]))
    figures = len(re.findall(r"<figure\b", text)) + outputs_with_images
    numbered = len(re.findall(r'<span class="caption-number">\s*Fig', text))
    return PrintCopy(out, titles, anchors, appendices, chapters, figures, numbered, removed)


def _article_only(text: str, front: str) -> str:
    """The page with its body reduced to ``front`` and the text of the book (``<article>``, else ``<main>``)."""
    body = re.search(r"<body\b[^>]*>", text)
    head = text[: body.end()] if body else "<html><head></head><body>"
    for tag in ("article", "main"):
        m = re.search(rf"<{tag}\b[^>]*>", text)
        if m:
            inner = text[m.end(): _element_end(text, m.start(), tag) - len(f"</{tag}>")]
            break
    else:
        inner = text[body.end():] if body else text
    return f'{head}<main class="semvar-print"><article class="bd-article">{front}{inner}</article></main></body></html>'


def _build_root(page: Path) -> Path:
    """The folder of the single-page build that holds ``page`` (the one with ``_static``)."""
    for folder in page.parents:
        if (folder / "_static").is_dir() or folder.name == "singlehtml":
            return folder
    return page.parent


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def print_pdf(page: Path, out: Path, chromium: str, budget_ms: int = 120_000) -> None:
    """Serve the build on 127.0.0.1 and let headless Chromium print ``page`` to ``out``."""
    handler = functools.partial(_Quiet, directory=str(page.parent))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        with tempfile.TemporaryDirectory() as profile:
            cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                   "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
                   "--no-pdf-header-footer", "--generate-pdf-document-outline",
                   f"--virtual-time-budget={budget_ms}", f"--print-to-pdf={out}",
                   f"http://127.0.0.1:{server.server_port}/{page.name}"]
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=1800)
    finally:
        server.shutdown()
    if not out.is_file() or out.stat().st_size == 0:
        raise SystemExit(f"Chromium wrote no PDF to {out}")


def _objects(data: bytes):
    """Every ``N 0 obj ... endobj`` body of a PDF, and the objects packed in its object streams."""
    bodies = [m.group(1) for m in re.finditer(rb"\d+\s+\d+\s+obj(.*?)endobj", data, flags=re.S)]
    for body in list(bodies):
        if re.search(rb"/Type\s*/ObjStm", body):
            stream = re.search(rb"stream\r?\n(.*)endstream", body, flags=re.S)
            if stream and re.search(rb"/FlateDecode", body):
                try:
                    bodies.append(zlib.decompress(stream.group(1)))
                except zlib.error:
                    pass
    return bodies


def count_pdf(path: Path) -> tuple[int, int, int]:
    """``(pages, outline entries, images)`` of a PDF file, read from its objects.

    Pages are the objects of ``/Type /Page``, checked against the ``/Count`` of the
    page tree's root; outline entries are the objects with a ``/Title`` and a
    ``/Parent``; images are the image XObjects.
    """
    data = Path(path).read_bytes()
    if not data.startswith(b"%PDF-"):
        raise ValueError(f"path={str(path)!r} is not a PDF file")
    bodies = _objects(data)
    text = b"\n".join(bodies)
    pages = len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", text))
    roots = [int(m.group(1)) for b in bodies if re.search(rb"/Type\s*/Pages", b) and not re.search(rb"/Parent", b)
             for m in [re.search(rb"/Count\s+(\d+)", b)] if m]
    if roots and roots[0] != pages:
        raise ValueError(f"{path}: {pages} page objects but the page tree counts {roots[0]}")
    outline = sum(1 for b in bodies if re.search(rb"/Title\s*[(<]", b) and re.search(rb"/Parent\s+\d+", b))
    images = len(re.findall(rb"/Subtype\s*/Image", text))
    return pages, outline, images


def destination_pages(path: Path) -> dict[str, int]:
    """Named destination -> page number (1 for the first page) of a PDF that Chromium printed.

    Chromium names a destination after the id of each element that a link of the
    page points to, so the contents' links give the page on which each entry starts.
    """
    from pypdf import PdfReader

    reader = PdfReader(str(path))
    return {name.lstrip("/"): reader.get_destination_page_number(dest) + 1
            for name, dest in reader.named_destinations.items()}


_SOLUTION = re.compile(r"Solution\s+to\s*Exercise", re.IGNORECASE)
# a folded cell's button prints both of its labels; only "Hide" is never prose
_BUTTON = re.compile(r"Hide\s+code\s+cell\s+(source|output|content)", re.IGNORECASE)


def text_counts(path: Path) -> tuple[int, int]:
    """``(solutions, folded-cell buttons)`` found in the text of a PDF.

    A button is counted by its "Hide code cell ..." label: the book's prose may
    mention "Show code cell source" (the button of the web pages), never the other.
    """
    from pypdf import PdfReader

    text = "\n".join(page.extract_text() or "" for page in PdfReader(str(path)).pages)
    return len(_SOLUTION.findall(text)), len(_BUTTON.findall(text))


def blank_pages(path: Path) -> list[int]:
    """The pages (1 for the first) that print nothing but their number: no image, at most one word."""
    from pypdf import PdfReader

    return [k + 1 for k, page in enumerate(PdfReader(str(path)).pages)
            if not page.images and len((page.extract_text() or "").split()) <= 1]


def print_with_page_numbers(page: Path, out: Path, chromium: str, meta: Meta, rounds: int = 3) -> PrintCopy:
    """Print ``page`` until the page numbers written into its contents are the pages the entries start on."""
    pages: dict[str, int] = {}
    for _ in range(rounds):
        copy = print_page(page, meta, pages)
        print_pdf(copy.path, out, chromium)
        found = destination_pages(out)
        wanted = [a for a in list(copy.anchors.values()) + [a for a, _ in copy.appendices]]
        now = {a: found[a] for a in wanted if a in found}
        if pages and now == pages:
            return copy
        pages = now
    raise SystemExit(f"{out}: the page numbers of the contents did not settle in {rounds} prints")


def make_edition(edition: str, chromium: str, skip_build: bool, strict: bool) -> tuple[Path, Counts]:
    page = _root_page(edition) if skip_build else build_singlehtml(edition, strict)
    out = BUILD / f"semvar-{edition}.pdf"
    copy = print_with_page_numbers(page, out, chromium, _meta(edition))
    pages, outline, images = count_pdf(out)
    solutions, buttons = text_counts(out)
    return out, Counts(pages, outline, images, copy.chapters, copy.figures, copy.numbered_figures, solutions, buttons,
                       tuple(blank_pages(out)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edition", default="both", choices=("both", *EDITIONS),
                        help="which PDF to make (default: both)")
    parser.add_argument("--skip-build", action="store_true", help="print the single-page builds already there")
    parser.add_argument("--allow-warnings", action="store_true", help="build without -W (warnings do not stop it)")
    args = parser.parse_args(argv)
    chromium = _chromium()
    failed = False
    for edition in EDITIONS if args.edition == "both" else (args.edition,):
        out, c = make_edition(edition, chromium, args.skip_build, not args.allow_warnings)
        print(f"wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out} ({out.stat().st_size / 1e6:.1f} MB): "
              f"{c.pages} pages, {c.chapters} numbered chapters, {c.figures} figures "
              f"({c.numbered_figures} with a numbered caption), {c.pdf_images} images in the PDF, "
              f"{c.outline_entries} outline entries; {c.solutions} solutions, "
              f"{c.show_code_buttons} 'Show code cell' buttons in its text, {len(c.blank_pages)} blank pages")
        if c.pages == 0 or c.chapters == 0:
            print(f"  the {edition} PDF has no pages or no chapters")
            failed = True
        if c.show_code_buttons:
            print(f"  the {edition} PDF prints a 'Show code cell' button")
            failed = True
        if c.blank_pages:
            print(f"  the {edition} PDF has blank pages: {list(c.blank_pages)}")
            failed = True
        if edition == "student" and c.solutions:
            print("  the student PDF holds solutions")
            failed = True
        if edition == "instructor" and not c.solutions:
            print("  the instructor PDF holds no solution")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
