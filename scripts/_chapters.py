"""What the notebook scripts share: finding the chapter notebooks and the command line."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path


def chapter_notebooks(source: str | Path) -> list[Path]:
    """The ``.ipynb`` files of folder ``source``, in name order.

    Raises
    ------
    ValueError
        If ``source`` is not a folder or holds no ``.ipynb`` file.
    """
    source = Path(source)
    if not source.is_dir():
        raise ValueError(f"source={str(source)!r} is not a folder; expected the folder of chapter notebooks")
    paths = sorted(source.glob("*.ipynb"))
    if not paths:
        raise ValueError(f"source={str(source)!r} holds no .ipynb files")
    return paths


def run_cli(doc: str, default_dest: str, work: Callable[[str, str], list[Path]],
            report: Callable[[list[Path], str], str], argv: list[str] | None = None) -> int:
    """Parse ``--source``/``--dest``, run ``work(source, dest)`` and print ``report(written, dest)``."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--source", default="notebooks", help="folder of executed chapters (default: notebooks)")
    parser.add_argument("--dest", default=default_dest, help=f"folder to write to (default: {default_dest})")
    args = parser.parse_args(argv)
    print(report(work(args.source, args.dest), args.dest))
    return 0
