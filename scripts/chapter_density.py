"""How dense each chapter reads: asserts on the page, code-cell length, tables, paragraphs.

For every ``notebooks/NN_*.md`` (the MyST sources), one row:

- ``asserts``: ``assert`` lines in visible code cells (the reader sees them);
- ``median`` / ``max``: non-blank lines of the visible code cells;
- ``over25``: visible code cells longer than 25 lines;
- ``tables``: result tables shown with ``semvar.tables.show_table`` (numbered, captioned);
- ``printed``: tables still printed as text (``.to_string(`` in a code cell);
- ``para``: median words of a prose paragraph (Markdown cells, outside fences and math).

A code cell is hidden when it carries one of the tags in ``HIDDEN`` (its source is
removed from the page or folded away); nbval runs hidden cells like any other.

Run ``python scripts/chapter_density.py`` (``--json`` for machine-readable output).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
from pathlib import Path

import jupytext

ROOT = Path(__file__).resolve().parents[1]
HIDDEN = {"remove-cell", "remove-input", "hide-input", "hide-cell"}
_ASSERT = re.compile(r"^\s*assert\b")


def _visible_code(nb) -> list[list[str]]:
    cells = []
    for cell in nb.cells:
        if cell.cell_type != "code" or HIDDEN & set(cell.metadata.get("tags", [])):
            continue
        cells.append([ln for ln in cell.source.splitlines() if ln.strip()])
    return cells


def _paragraph_words(nb) -> list[int]:
    words = []
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        text = re.sub(r"(`{3,}|:{3,}).*?\1", " ", cell.source, flags=re.S)  # fences
        text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)
        for block in re.split(r"\n\s*\n", text):
            lines = [ln for ln in block.splitlines() if ln.strip()]
            if not lines or lines[0].lstrip().startswith(("#", "(", "|", "-", "*", "1.", ":")):
                continue
            words.append(len(" ".join(lines).split()))
    return words


def density(path: Path) -> dict:
    """The density figures of one chapter source ``path`` (a MyST ``.md``)."""
    nb = jupytext.read(path)
    visible = _visible_code(nb)
    sizes = [len(c) for c in visible] or [0]
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    paras = _paragraph_words(nb) or [0]
    return {
        "chapter": path.stem,
        "asserts": sum(1 for c in visible for ln in c if _ASSERT.match(ln)),
        "median": statistics.median(sizes),
        "max": max(sizes),
        "over25": sum(s > 25 for s in sizes),
        "tables": len(re.findall(r"\bshow_table\(", code)),
        "printed": code.count(".to_string("),
        "para": statistics.median(paras),
    }


def chapters(root: Path = ROOT) -> list[Path]:
    """The chapter sources, in order."""
    return sorted((root / "notebooks").glob("[0-9][0-9]_*.md"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("names", nargs="*", help="chapter stems or numbers (default: all)")
    args = parser.parse_args(argv)
    paths = [p for p in chapters() if not args.names
             or any(p.stem == n or p.stem.startswith(f"{n}_") for n in args.names)]
    rows = [density(p) for p in paths]
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    cols = ["asserts", "median", "max", "over25", "tables", "printed", "para"]
    print(f"{'chapter':32}" + "".join(f"{c:>9}" for c in cols))
    for r in rows:
        print(f"{r['chapter']:32}" + "".join(f"{r[c]:>9g}" for c in cols))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
