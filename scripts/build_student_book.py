"""Build the student edition of the book: the same sources, no solution on any page or in any notebook.

Usage: python scripts/build_student_book.py [--out _build/student]

The configuration is ``_config.yml`` with ``book/_config_student.yml`` laid over
it (mappings merged key by key, every other value replaced), written to
``<out>/_config.yml``; the book is then built as ``jupyter-book build . -W -n
--keep-going`` builds the normal edition, into ``<out>/html``.  The setting
that matters is sphinx-exercise's ``hide_solutions``; ``book/_ext/course_kit.py``
acts on it for gated solutions and for the notebooks offered for download.
Check the result with ``python scripts/check_student_html.py <out>/html``.
"""

from __future__ import annotations

import argparse
import copy
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
OVERLAY = ROOT / "book" / "_config_student.yml"


def merge(base: dict, overlay: dict) -> dict:
    """``base`` with ``overlay`` laid over it: mappings merged key by key, other values replaced.

    >>> merge({"a": {"x": 1, "y": 2}, "b": [1]}, {"a": {"y": 3}, "b": [2]})
    {'a': {'x': 1, 'y': 3}, 'b': [2]}
    """
    out = copy.deepcopy(base)
    for key, value in overlay.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def student_config(root: Path = ROOT, overlay: Path = OVERLAY) -> dict:
    """The student edition's configuration (``_config.yml`` of ``root`` with ``overlay`` laid over it).

    Jupyter Book resolves ``sphinx.local_extensions`` folders relative to the
    configuration file, so they are made absolute here: the merged file lives
    in the build folder.
    """
    config = merge(yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8")),
                   yaml.safe_load(overlay.read_text(encoding="utf-8")))
    local = config.get("sphinx", {}).get("local_extensions") or {}
    for name, folder in local.items():
        local[name] = str((root / folder).resolve())
    return config


def build(out: Path, builder: str = "html", strict: bool = True, outdir: Path | None = None) -> int:
    """Build the student edition with ``builder`` into ``outdir`` (default ``<out>/<builder>``).

    ``builder`` is "html" (``make book-student``), "singlehtml" (the student PDF of
    ``make pdf``) or "latex"; ``strict`` turns warnings into errors (``-W``).
    Returns 0 when the build succeeded.
    """
    from jupyter_book.sphinx import build_sphinx

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    path_config = out / "_config.yml"
    path_config.write_text(yaml.safe_dump(student_config(), sort_keys=False, allow_unicode=True), encoding="utf-8")
    result = build_sphinx(
        ROOT, Path(outdir) if outdir else out / builder, noconfig=True, path_config=str(path_config),
        confoverrides={"external_toc_path": (ROOT / "_toc.yml").as_posix(), "nitpicky": True,
                       "latex_individualpages": False},
        builder=builder, warningiserror=strict, keep_going=True,
    )
    return 1 if isinstance(result, Exception) else int(result)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(ROOT / "_build" / "student"), help="build folder (default: _build/student)")
    parser.add_argument("--builder", default="html", choices=("html", "singlehtml", "latex"),
                        help="Sphinx builder (default: html, into <out>/html)")
    args = parser.parse_args(argv)
    return build(Path(args.out), builder=args.builder)


if __name__ == "__main__":
    sys.exit(main())
