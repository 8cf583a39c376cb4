"""Fail if a built HTML page loads a script, stylesheet or font from another host,
or shows an absolute path of the machine that built it (``/home/...``, ``C:\\...``).

Usage: python scripts/check_offline_html.py _build/html
"""

import re
import sys
from pathlib import Path

#: an absolute path of a build machine: a home, scratch or work folder (POSIX), or a drive's user, system
#: or work folder (Windows; not TeX such as \\(f:\\mathbb R\\)); not part of a URL or of a longer path
MACHINE_PATH = re.compile(r"(?<![\w.:/~-])(?:/(?:home|root|work|tmp|Users|mnt|var/folders|private/var)/[\w.+-]+"
                          r"|[A-Z]:(?:\\|\\\\)(?:Users|Windows|Program|ProgramData|Temp|tmp|work|data)\b)")
ATTR = re.compile(r"""<(script|link|img|iframe)\b[^>]*?\b(src|href)\s*=\s*["']([^"']+)["']""", re.I)


def main(root: str) -> int:
    bad = []
    paths = []
    pages = list(Path(root).rglob("*.html"))
    for page in pages:
        text = page.read_text(encoding="utf-8", errors="replace")
        for m in MACHINE_PATH.finditer(text):
            paths.append(f"{page}: ...{text[max(0, m.start() - 40):m.end() + 20]!r}...")
        for tag, attr, url in ATTR.findall(text):
            if tag.lower() == "link" and "stylesheet" not in url and not url.endswith((".css", ".js")):
                continue  # ordinary navigation links
            if re.match(r"^(https?:)?//", url):
                bad.append(f"{page}: <{tag} {attr}={url}>")
    if not pages:
        print(f"no HTML pages under {root}")
        return 1
    if bad:
        print("pages load remote assets:\n" + "\n".join(bad[:50]))
    if paths:
        print("pages show absolute paths of the build machine:\n" + "\n".join(paths[:50]))
    if bad or paths:
        return 1
    print(f"{len(pages)} pages, no remote scripts, stylesheets or images, no machine paths")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "_build/html"))
