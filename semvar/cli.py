"""Command line: ``python -m semvar COMMAND``.

``replicate``  run the claims ledger and print the scorecard (``--quick``, ``--json``, ``--out``)
"""

from __future__ import annotations

import argparse
import sys

__all__ = ["main", "build_parser"]


def _cmd_replicate(args) -> int:
    from . import claims

    records = claims.run(args.only or None, quick=args.quick, progress=not args.json and sys.stderr.isatty())
    text = claims.to_json(records) if args.json else claims.format_table(records)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(claims.to_json(records) + "\n")
    print(text)
    return 1 if any(r.status == "error" for r in records) else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m semvar", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    rep = sub.add_parser("replicate", help="run every claim check and print the scorecard")
    rep.add_argument("--quick", action="store_true", help="reduced run (fewer repetitions)")
    rep.add_argument("--json", action="store_true", help="print a JSON list of records instead of a table")
    rep.add_argument("--out", metavar="FILE", help="also write the JSON records to FILE")
    rep.add_argument("--only", nargs="*", metavar="ID", help="run only claims whose id starts with ID")
    rep.set_defaults(func=_cmd_replicate)

    # further sub-commands register themselves here
    for register in _EXTRA_COMMANDS:
        register(sub)
    return parser


_EXTRA_COMMANDS: list = []


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return args.func(args)
