"""Benchmark: the peak memory and time of ``python -m semvar replicate``.

Two measurements, each written to ``data/bench_replicate.txt`` (the file keeps
one section per mode, so the two can be run apart):

``--mode run`` (the default)
    The command itself, in a fresh process, under GNU time (``/usr/bin/time
    -v``): its maximum resident set size and wall time.  ``--args`` passes the
    command's own flags (``--quick``, ``--full``); ``--quiet --json`` is always
    added and the records are thrown away.
``--mode records``
    Every check alone, each in a child process forked from one parent that has
    imported the package: the child's peak resident set size above what it
    inherited, and its time.  This finds which check holds the memory (a
    whole run's peak is the largest of these plus what the run keeps between
    checks).  Shared studies (``claims.shared``) are recomputed in each child,
    so the times add up to more than one run's.

Run from the repository root (GNU time: ``apt-get install time``)::

    .venv/bin/python benchmarks/bench_replicate.py --mode run
    .venv/bin/python benchmarks/bench_replicate.py --mode run --args --full
    .venv/bin/python benchmarks/bench_replicate.py --mode records

Memory is the machine's business, so it is measured here and never asserted in
a test.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "data" / "bench_replicate.txt"
GIB = 1024**3


def gnu_time(argv: list[str]) -> tuple[float, float, int]:
    """``(peak GiB, wall seconds, exit status)`` of ``argv`` run under ``/usr/bin/time -v``."""
    time_bin = shutil.which("time", path="/usr/bin:/bin") or "/usr/bin/time"
    if not os.path.exists(time_bin):
        raise SystemExit("GNU time not found: apt-get install time")
    done = subprocess.run([time_bin, "-v", *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, check=False, cwd=ROOT)
    peak_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr).group(1))
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", done.stderr).group(1)
    seconds = sum(float(x) * 60**i for i, x in enumerate(reversed(wall.split(":"))))
    return peak_kb * 1024 / GIB, seconds, done.returncode


def _one(cid: str, quick: bool, queue) -> None:
    """Child: run one check and report (id, status, inherited GiB, peak GiB, seconds)."""
    from semvar import claims
    from semvar.claims import _run

    start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with open(f"/proc/{os.getpid()}/status") as fh:
        rss = int(re.search(r"VmRSS:\s+(\d+)", fh.read()).group(1))
    t = time.perf_counter()
    _, status, _ = _run._checked(claims.registry()[cid], quick)
    seconds = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    queue.put((cid, status, rss * 1024 / GIB, max(peak, start) * 1024 / GIB, seconds))


def per_record(quick: bool, ids: list[str] | None) -> list[tuple]:
    """Each check in its own forked child: ``[(id, status, inherited GiB, peak GiB, seconds), ...]``."""
    from semvar import claims

    ctx = mp.get_context("fork")
    rows = []
    todo = [c for c in claims.registry() if not ids or any(c.startswith(i) for i in ids)]
    for i, cid in enumerate(todo, 1):
        queue = ctx.Queue()
        proc = ctx.Process(target=_one, args=(cid, quick, queue))
        proc.start()
        row = queue.get()
        proc.join()
        rows.append(row)
        print(f"[{i}/{len(todo)}] {cid}: peak {row[3]:.2f} GiB ({row[3] - row[2]:+.2f} over the "
              f"{row[2]:.2f} inherited), {row[4]:.1f} s, {row[1]}", file=sys.stderr, flush=True)
    return rows


def _replace_section(title: str, body: str) -> None:
    """Write ``body`` under ``## title`` in the output file, keeping the other sections."""
    text = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
    sections = re.split(r"(?m)^(?=## )", text)
    head = sections[0] if sections[0].strip() and not sections[0].startswith("## ") else (
        "# bench_replicate: peak memory and time of `python -m semvar replicate` "
        "(benchmarks/bench_replicate.py)\n\n")
    rest = [s for s in sections if s.startswith("## ") and not s.startswith(f"## {title}\n")]
    rest.append(f"## {title}\n{body.rstrip()}\n\n")
    rest.sort(key=lambda s: s.split("\n", 1)[0])
    OUT.write_text(head + "".join(rest), encoding="utf-8")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("run", "records"), default="run")
    parser.add_argument("--args", nargs=argparse.REMAINDER, default=[],
                        help="flags for `semvar replicate` (mode run; e.g. --quick, --full)")
    parser.add_argument("--quick", action="store_true", help="mode records: the quick checks")
    parser.add_argument("--only", nargs="*", help="mode records: only ids starting with these")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    stamp = f"{datetime.now(UTC):%Y-%m-%d}, {platform.machine()}, Python {platform.python_version()}, " \
            f"{os.cpu_count()} CPUs"
    if args.mode == "run":
        cmd = [sys.executable, "-m", "semvar", "replicate", *args.args, "--quiet", "--json"]
        peak, wall, code = gnu_time(cmd)
        label = " ".join(["replicate", *args.args]) or "replicate"
        body = (f"{stamp}; GNU time -v\ncommand, max RSS GiB, wall s, exit\n"
                f"python -m semvar {label}, {peak:.2f}, {wall:.0f}, {code}")
        title = f"run: python -m semvar {label}"
    else:
        rows = per_record(args.quick, args.only)
        rows.sort(key=lambda r: -(r[3] - r[2]))
        lines = [f"{stamp}; each check in a forked child; {'quick' if args.quick else 'full'} checks",
                 "id, status, peak RSS GiB, over inherited GiB, seconds"]
        lines += [f"{r[0]}, {r[1]}, {r[3]:.2f}, {r[3] - r[2]:.2f}, {r[4]:.1f}" for r in rows]
        body = "\n".join(lines)
        title = f"records: every check alone ({'quick' if args.quick else 'full'})"
        if args.only:
            title += f", only {' '.join(args.only)}"
    print(body)
    if not args.no_write:
        _replace_section(title, body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
