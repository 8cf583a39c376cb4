"""Open every built page in headless Chromium as a reader would, at phone and desktop width.

For each HTML page of the built book and each width (390 px and 1,400 px) the
check reports

* horizontal overflow: the page is wider than the viewport (it scrolls sideways);
  an element that scrolls inside its own container (a wide table in a scroll
  box, a long equation) does not count, since the page itself stays put;
* console errors and uncaught JavaScript exceptions;
* requests to any host other than the local server (the book must work offline);
* squashed figures: every ``<img>`` must be shown at its natural width-to-height
  ratio (within 2 %); an inline size that fixes both width and height breaks this
  as soon as the column is narrower than the width;
* figure text too small to read: the smallest text of each figure, in CSS pixels
  as shown, must be at least 9 px at 390 px (``--min-text-px``).  It is
  estimated from the PNG: its resolution (the ``pHYs`` chunk matplotlib writes),
  the smallest font size in points that :mod:`semvar.plotting` records in it
  (``semvar:min_font_pt``; figures without it are taken to use the house
  style's 10 points) and the ratio of the shown width to the pixel width;
* clipped formulas: an inline or display formula wider than the box that holds
  it must scroll in that box, not be cut off; and a formula's box scrolls only
  when the typeset formula is wider than it (MathJax's hidden copy for screen
  readers, wider than the formula, must not give it a scroll bar);
* images without a text alternative (an ``alt`` that is empty or a file name).

Usage::

    bash scripts/check_pages.sh [_build/html]      # installs what it needs, then runs this
    python scripts/check_pages.py _build/html [--widths 390,1400] [--shots DIR]

It needs Debian's ``chromium`` and the Python package ``playwright`` (only its
driver: no browser is downloaded, the system Chromium is used); the shell wrapper
installs both.  Exit status 1 lists every failure.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import re
import shutil
import socketserver
import sys
import threading
from pathlib import Path

CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# the page's own width against the viewport, with one pixel of slack for rounding
OVERFLOW_JS = """() => {
  const doc = document.documentElement;
  const width = Math.max(doc.scrollWidth, document.body ? document.body.scrollWidth : 0);
  const culprits = [];
  if (width > window.innerWidth + 1) {
    for (const el of document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect();
      if (r.right > window.innerWidth + 1 && r.width > 0) {
        let scrolls = false;
        for (let p = el.parentElement; p; p = p.parentElement) {
          const s = getComputedStyle(p);
          if (['auto', 'scroll', 'hidden'].includes(s.overflowX) && p.clientWidth < p.scrollWidth + 1
              && p.getBoundingClientRect().right <= window.innerWidth + 1) { scrolls = true; break; }
        }
        if (!scrolls) culprits.push(el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ')[0] : '')
                                    + ' right=' + Math.round(r.right));
      }
      if (culprits.length >= 5) break;
    }
  }
  return {width: width, viewport: window.innerWidth, culprits: culprits};
}"""


# every picture of the page: its shown and natural size, its file, its alt text
FIGURES_JS = """() => {
  const out = [];
  for (const img of document.querySelectorAll('.bd-article img')) {
    const r = img.getBoundingClientRect();
    const style = getComputedStyle(img);
    let hidden = style.display === 'none' || style.visibility === 'hidden';
    for (let p = img.parentElement; p && !hidden; p = p.parentElement) {
      if (getComputedStyle(p).display === 'none') hidden = true;
    }
    out.push({src: img.currentSrc || img.src, alt: img.getAttribute('alt'), width: r.width, height: r.height,
              natural_width: img.naturalWidth, natural_height: img.naturalHeight, hidden: hidden,
              player: !!img.closest('.animation')});
  }
  return out;
}"""

# every typeset formula that is cut off: wider than the nearest box that does not
# show overflow, where that box does not scroll
MATH_JS = """() => {
  const clipped = [];
  for (const el of document.querySelectorAll('.bd-article mjx-container')) {
    if (el.parentElement && el.parentElement.closest('mjx-container')) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0) continue;
    for (let p = el; p; p = p.parentElement) {
      const s = getComputedStyle(p);
      if (s.overflowX === 'visible') continue;
      const box = p === el ? {left: r.left, right: r.left + p.clientWidth} : p.getBoundingClientRect();
      const inner = p === el ? p.scrollWidth : r.width;
      const wider = p === el ? p.scrollWidth > p.clientWidth + 1
                             : (r.right > box.right + 1 || r.left < box.left - 1);
      if (wider && !['auto', 'scroll'].includes(s.overflowX)) {
        clipped.push((el.textContent || '').slice(0, 60) + ' (' + Math.round(inner) + ' px in a box of '
                     + Math.round(p === el ? p.clientWidth : box.right - box.left) + ' px)');
      }
      if (wider) break;
    }
  }
  // a box that scrolls although the typeset formula fits in it: a needless scroll bar
  for (const box of document.querySelectorAll('.bd-article span.math, .bd-article div.math, '
                                             + '.bd-article mjx-container[display="true"]')) {
    const s = getComputedStyle(box);
    if (!['auto', 'scroll'].includes(s.overflowX) || box.scrollWidth <= box.clientWidth + 1) continue;
    const math = box.querySelector('mjx-math');
    const room = box.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
    if (math && math.getBoundingClientRect().width <= room + 1) {
      clipped.push('needless scroll bar: ' + (box.textContent || '').slice(0, 60) + ' (the box scrolls '
                   + (box.scrollWidth - box.clientWidth) + ' px beyond a formula that fits)');
    }
  }
  return clipped;
}"""

#: the smallest figure text, in CSS pixels, allowed on the narrowest page
MIN_TEXT_PX = 9.0
#: the house style's font size (semvar.plotting.use_style), for figures that do not record theirs
HOUSE_FONT_PT = 10.0
#: the narrowest page, where the figure text is measured
PHONE_PX = 390


def png_text_scale(path: Path) -> tuple[float, float] | None:
    """``(font_pt, dots_per_pixel)`` of a PNG: its smallest font size and its dpi.

    The text of ``font_pt`` points is ``font_pt / 72 * dpi`` pixels of the PNG.
    ``None`` for a file that is not a PNG with a recorded resolution.
    """
    from PIL import Image

    try:
        with Image.open(path) as im:
            info = dict(im.info)
            if im.format != "PNG" or "dpi" not in info:
                return None
    except (OSError, ValueError):
        return None
    font = float(info.get("semvar:min_font_pt", HOUSE_FONT_PT))
    return font, float(info["dpi"][0])


def figure_problems(figs: list[dict], root: Path, base: str, width: int,
                    min_text_px: float = MIN_TEXT_PX) -> list[str]:
    """The squashed figures, unreadable figure text and missing alt texts among ``figs`` (FIGURES_JS)."""
    from urllib.parse import unquote, urlparse

    problems = []
    for f in figs:
        if f["hidden"] or not f["natural_width"] or not f["natural_height"] or f["width"] < 1:
            continue
        name = unquote(urlparse(f["src"]).path).rsplit("/", 1)[-1] if not f["src"].startswith("data:") \
            else "a player frame"
        shown = f["width"] / f["height"]
        natural = f["natural_width"] / f["natural_height"]
        if abs(shown / natural - 1) > 0.02:
            problems.append(f"squashed figure {name}: shown {f['width']:.0f}x{f['height']:.0f} px, "
                            f"ratio {shown / natural:.2f} of its own")
        if not f["player"]:
            alt = (f["alt"] or "").strip()
            if not alt or re.fullmatch(r"[\w./-]+\.(png|jpe?g|svg|gif)", alt):
                problems.append(f"figure {name} has no text alternative (alt={alt!r})")
        if width <= PHONE_PX and f["src"].startswith(base):
            path = root / unquote(urlparse(f["src"]).path).lstrip("/")
            scale = png_text_scale(path)
            if scale is not None:
                font_pt, dpi = scale
                text_px = font_pt / 72 * dpi * f["width"] / f["natural_width"]
                if text_px < min_text_px - 0.05:
                    problems.append(f"figure text of {name} is {text_px:.1f} px (< {min_text_px:g} px): "
                                    f"{font_pt:g} pt at {dpi:.0f} dpi shown {f['width']:.0f} of "
                                    f"{f['natural_width']} px")
    return problems


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # pragma: no cover - silence the server
        pass


class _Server(socketserver.ThreadingTCPServer):
    def handle_error(self, request, client_address):
        # the browser leaves a page before all its images arrive: a dropped connection is no error
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


def serve(root: Path) -> tuple[socketserver.TCPServer, str]:
    """Serve ``root`` on 127.0.0.1 (a free port) in a background thread."""
    handler = functools.partial(_Quiet, directory=str(root))
    server = _Server(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def pages(root: Path) -> list[str]:
    """The book's pages (relative paths), leaving out Sphinx's own search and index pages."""
    skip = {"search.html", "genindex.html", "py-modindex.html"}
    found = []
    for path in sorted(root.rglob("*.html")):
        rel = path.relative_to(root).as_posix()
        if rel in skip or rel.startswith(("_static/", "_sources/", "_images/", "_modules/")):
            continue
        found.append(rel)
    return found


def check(root: Path, widths: list[int], shots: Path | None = None,
          min_text_px: float = MIN_TEXT_PX, only: str | None = None) -> list[str]:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("chromium is not installed: run scripts/check_pages.sh, which installs it")
    server, base = serve(root)
    failures: list[str] = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_FLAGS)
            for width in widths:
                context = browser.new_context(viewport={"width": width, "height": 900})
                for rel in pages(root):
                    if only and only not in rel:
                        continue
                    page = context.new_page()
                    problems: list[str] = []
                    page.on("console", lambda m, p=problems: p.append(f"console {m.type}: {m.text}")
                            if m.type == "error" else None)
                    page.on("pageerror", lambda e, p=problems: p.append(f"uncaught exception: {e}"))

                    def _route(route, p=problems):
                        url = route.request.url
                        if url.startswith(base) or url.startswith(("data:", "blob:", "about:")):
                            return route.continue_()
                        p.append(f"remote request: {url}")
                        return route.abort()

                    page.route("**/*", _route)
                    page.goto(f"{base}/{rel}", wait_until="load", timeout=120_000)
                    page.wait_for_timeout(300)  # MathJax typesets after load
                    page.evaluate("() => (window.MathJax && MathJax.startup && MathJax.startup.promise)"
                                  " ? MathJax.startup.promise.then(() => true) : true")
                    size = page.evaluate(OVERFLOW_JS)
                    if size["width"] > size["viewport"] + 1:
                        problems.append(f"page is {size['width']} px wide in a {size['viewport']} px viewport "
                                        f"({', '.join(size['culprits']) or 'no single element found'})")
                    problems.extend(figure_problems(page.evaluate(FIGURES_JS), root, base, width, min_text_px))
                    problems.extend(m if m.startswith("needless") else f"clipped formula: {m}"
                                    for m in page.evaluate(MATH_JS))
                    if shots is not None:
                        out = shots / f"{width}" / (rel.replace("/", "__") + ".png")
                        out.parent.mkdir(parents=True, exist_ok=True)
                        try:
                            page.screenshot(path=str(out), full_page=True, timeout=120_000)
                        except Exception as exc:  # a very tall page on a busy machine: report, go on
                            print(f"no screenshot of {rel} @ {width} px: {type(exc).__name__}")
                    failures.extend(f"{rel} @ {width} px: {p}" for p in problems)
                    page.close()
                context.close()
            browser.close()
    finally:
        server.shutdown()
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default="_build/html", help="the built HTML (default _build/html)")
    parser.add_argument("--widths", default="390,1400", help="viewport widths in px (default 390,1400)")
    parser.add_argument("--shots", type=Path, default=None, help="also save full-page screenshots here")
    parser.add_argument("--min-text-px", type=float, default=MIN_TEXT_PX,
                        help=f"smallest figure text at {PHONE_PX} px (default {MIN_TEXT_PX:g})")
    parser.add_argument("--only", default=None, help="check only the pages whose path contains this")
    args = parser.parse_args(argv)
    root = Path(args.root)
    if not (root / "index.html").exists():
        print(f"no built book at {root} (index.html missing): build it first")
        return 1
    widths = [int(w) for w in args.widths.split(",")]
    failures = check(root, widths, args.shots, args.min_text_px, args.only)
    n = len([p for p in pages(root) if not args.only or args.only in p])
    if failures:
        print(f"{len(failures)} problems on {n} pages at {widths} px:")
        print("\n".join(failures))
        return 1
    print(f"{n} pages at {' and '.join(map(str, widths))} px: no sideways scrolling, "
          "no console error, no remote request, no squashed figure, no figure text\n"
          f"below {args.min_text_px:g} px at {PHONE_PX} px, no clipped formula, every figure with a text alternative")
    return 0


if __name__ == "__main__":
    sys.exit(main())
