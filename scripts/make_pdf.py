"""Build the whole book as one PDF: the single-page HTML printed by headless Chromium.

Usage: python scripts/make_pdf.py [--out _build/pdf/semvar.pdf] [--skip-build] [--allow-warnings]

1. ``jupyter-book build . --builder singlehtml -W -n --keep-going --path-output _build/pdf``
   (its own doctrees, so it never disturbs the HTML build);
2. a print copy of the page, ``print.html`` beside it: a table of contents made
   from ``_toc.yml`` (parts, numbered chapters, titles as the build wrote them),
   a page break before each chapter, page numbers, the navigation left out,
   folded solutions and notes opened (the figure code stays folded);
3. Chromium (``--headless --print-to-pdf``, offline flags, a user profile of its
   own) prints it from a server on 127.0.0.1 after MathJax has typeset;
4. the PDF's pages, its outline entries and its images are counted from the
   file itself (a small reader of the PDF objects), and the chapters and figures
   from the printed page; all are printed.

Chromium is installed with apt-get when it is missing and the script runs as
root (as ``scripts/check_pages.sh`` does); otherwise the script says what to install.
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
SINGLE = BUILD / "_build" / "singlehtml"

PRINT_CSS = """
@page { size: A4; margin: 16mm 15mm 18mm 15mm;
        @bottom-center { content: counter(page); font-size: 9pt; color: #555; } }
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
  span[id^="document-"] + section { break-before: page; }
  span[id^="document-book/api/"] + section { break-before: auto; }
  h1, h2, h3, h4 { break-after: avoid; }
  img, figure, .cell_output img { max-width: 100% !important; break-inside: avoid; }
  .toggle-hidden { display: block !important; visibility: visible !important; opacity: 1 !important;
        height: auto !important; }
  pre { white-space: pre-wrap !important; word-break: break-word; }
  .semvar-pdf-toc ol { list-style: none; padding-left: 0; }
  .semvar-pdf-toc li { margin: 0.15em 0; }
  .semvar-pdf-toc .part { font-weight: 600; margin-top: 0.8em; }
  .semvar-pdf-toc ol ol { padding-left: 1.5em; }
}
"""

# run before printing: open folded solutions and notes (not the folded figure code)
PRINT_JS = """
<script>
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("details").forEach(d => {
    if (!d.classList.contains("hide")) d.open = true;
  });
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


def build_singlehtml(strict: bool = True) -> Path:
    """Run the single-page build; return the page it writes."""
    cmd = [str(ROOT / ".venv" / "bin" / "jupyter-book"), "build", ".", "--builder", "singlehtml",
           "--path-output", str(BUILD), "-n", "--keep-going"]
    if strict:
        cmd.insert(-2, "-W")
    subprocess.run(cmd, cwd=ROOT, check=True)
    return _root_page()


def _root_page() -> Path:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    page = SINGLE / (toc["root"] + ".html")
    if not page.is_file():
        raise SystemExit(f"{page} is missing: run without --skip-build")
    return page


def _titles(page_html: str) -> dict[str, tuple[str, str]]:
    """docname -> (section number or "", title) of each document in the single page."""
    out = {}
    for m in re.finditer(r'<span id="document-([^"]+)"></span>\s*<section[^>]*>\s*(?:<span id="[^"]*"></span>\s*)*'
                         r"<h[1-6][^>]*>(.*?)</h[1-6]>", page_html, flags=re.S):
        heading = re.sub(r'<a class="headerlink".*?</a>', "", m.group(2), flags=re.S)
        number = re.search(r'<span class="section-number">([^<]*)</span>', heading)
        text = re.sub(r"<[^>]+>", "", heading[number.end():] if number else heading)
        out[m.group(1)] = ((number.group(1).strip().rstrip(".") if number else ""), html.unescape(text).strip())
    return out


def _toc_html(titles: dict[str, tuple[str, str]]) -> str:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))

    def item(entry) -> str:
        doc = entry["file"]
        if doc not in titles:  # not in this build (the table of contents changed since): left out
            return ""
        number, title = titles[doc]
        label = f"{number}. {title}" if number else title
        sub = "".join(item(s) for s in entry.get("sections", []))
        sub = f"<ol>{sub}</ol>" if sub else ""
        return f'<li><a href="#document-{html.escape(doc)}">{html.escape(label)}</a>{sub}</li>'

    parts = "".join(
        f'<li class="part">{html.escape(part.get("caption", ""))}<ol>'
        + "".join(item(c) for c in part.get("chapters", [])) + "</ol></li>"
        for part in toc.get("parts", [])
    )
    return f'<nav class="semvar-pdf-toc"><h2>Contents</h2><ol>{parts}</ol></nav>'


def print_page(page: Path) -> tuple[Path, int, int, int]:
    """Write ``print.html`` at the root of the single-page build.

    Returns the path, the number of numbered chapters, of figures (images in
    cell outputs and ``<figure>`` elements) and of numbered figure captions.
    """
    # the page lives in book/, but the build wrote every link relative to the build's root:
    # the print copy goes there
    text = page.read_text(encoding="utf-8")
    titles = _titles(text)
    toc = _toc_html(titles)
    first_doc = re.search(r'<span id="document-', text)
    if first_doc is None:
        raise SystemExit(f"{page} holds no chapters: is it a single-page build?")
    text = text[: first_doc.start()] + toc + text[first_doc.start():]
    text = text.replace("</head>", f"<style>{PRINT_CSS}</style>{PRINT_JS}</head>", 1)
    out = SINGLE / "print.html"
    out.write_text(text, encoding="utf-8")
    chapters = sum(1 for number, _ in titles.values() if re.fullmatch(r"\d+", number))
    outputs_with_images = 0
    # a numbered figure wraps its cell's image: count it once, as the <figure>
    unwrapped = re.sub(r"<figure\b.*?</figure>", "", text, flags=re.S)
    for block in re.split(r'(?=<div class="cell_output)', unwrapped)[1:]:
        end = block.find('<div class="cell docutils')
        outputs_with_images += len(re.findall(r"<img\b", block[: end if end > 0 else len(block)]))
    figures = len(re.findall(r"<figure\b", text)) + outputs_with_images
    numbered = len(re.findall(r'<span class="caption-number">\s*Fig', text))
    return out, chapters, figures, numbered


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(BUILD / "semvar.pdf"), help="the PDF to write (default: _build/pdf/semvar.pdf)")
    parser.add_argument("--skip-build", action="store_true", help="print the single-page build already there")
    parser.add_argument("--allow-warnings", action="store_true", help="build without -W (warnings do not stop it)")
    args = parser.parse_args(argv)
    chromium = _chromium()
    page = _root_page() if args.skip_build else build_singlehtml(strict=not args.allow_warnings)
    printable, chapters, figures, numbered = print_page(page)
    out = Path(args.out).resolve()
    print_pdf(printable, out, chromium)
    pages, outline, images = count_pdf(out)
    counts = Counts(pages, outline, images, chapters, figures, numbered)
    print(f"wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out} ({out.stat().st_size / 1e6:.1f} MB): "
          f"{counts.pages} pages, {counts.chapters} numbered chapters, {counts.figures} figures "
          f"({counts.numbered_figures} with a numbered caption), {counts.pdf_images} images in the PDF, "
          f"{counts.outline_entries} outline entries")
    if counts.pages == 0 or counts.chapters == 0:
        print("the PDF has no pages or no chapters")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
