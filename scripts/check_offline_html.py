"""Fail if a built HTML page loads a script, stylesheet or font from another host.

Usage: python scripts/check_offline_html.py _build/html
"""

import re
import sys
from pathlib import Path

ATTR = re.compile(r"""<(script|link|img|iframe)\b[^>]*?\b(src|href)\s*=\s*["']([^"']+)["']""", re.I)


def main(root: str) -> int:
    bad = []
    pages = list(Path(root).rglob("*.html"))
    for page in pages:
        for tag, attr, url in ATTR.findall(page.read_text(encoding="utf-8", errors="replace")):
            if tag.lower() == "link" and "stylesheet" not in url and not url.endswith((".css", ".js")):
                continue  # ordinary navigation links
            if re.match(r"^(https?:)?//", url):
                bad.append(f"{page}: <{tag} {attr}={url}>")
    if not pages:
        print(f"no HTML pages under {root}")
        return 1
    if bad:
        print("pages load remote assets:\n" + "\n".join(bad[:50]))
        return 1
    print(f"{len(pages)} pages, no remote scripts, stylesheets or images")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "_build/html"))
