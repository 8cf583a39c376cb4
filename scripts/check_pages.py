"""Open every built page in headless Chromium as a reader would, at phone and desktop width.

For each HTML page of the built book and each width (390 px and 1,400 px) the
check reports

* horizontal overflow: the page is wider than the viewport (it scrolls sideways);
  an element that scrolls inside its own container (a wide table in a scroll
  box, a long equation) does not count, since the page itself stays put;
* console errors and uncaught JavaScript exceptions;
* requests to any host other than the local server (the book must work offline).

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


def check(root: Path, widths: list[int], shots: Path | None = None) -> list[str]:
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
                    size = page.evaluate(OVERFLOW_JS)
                    if size["width"] > size["viewport"] + 1:
                        problems.append(f"page is {size['width']} px wide in a {size['viewport']} px viewport "
                                        f"({', '.join(size['culprits']) or 'no single element found'})")
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
    args = parser.parse_args(argv)
    root = Path(args.root)
    if not (root / "index.html").exists():
        print(f"no built book at {root} (index.html missing): build it first")
        return 1
    widths = [int(w) for w in args.widths.split(",")]
    failures = check(root, widths, args.shots)
    n = len(pages(root))
    if failures:
        print(f"{len(failures)} problems on {n} pages at {widths} px:")
        print("\n".join(failures))
        return 1
    print(f"{n} pages at {' and '.join(map(str, widths))} px: no sideways scrolling, "
          "no console error, no remote request")
    return 0


if __name__ == "__main__":
    sys.exit(main())
