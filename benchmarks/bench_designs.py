"""Benchmark: what a sampled or representatives design costs the judge command, before and after judging.

A design must cost what it asks.  For 12,000 and 40,000 distinct texts of three
meanings this measures, with the steps the command ``python -m semvar judge``
takes (its own functions), the time and the tracemalloc peak of

1. choosing the pairs of ``--pairs sample:S`` (:func:`semvar.graph.random_pairs`
   draws the pairs without listing all ``n(n-1)/2``);
2. the analysis after the last request, with a perfect judge's verdicts: the
   judged graph and its mask (sparse), the relation report, the count of unresolved texts, and the
   command's decision (refusal, naming a design that would do, or ``K`` and the
   entropy);
3. the size check of ``--pairs reps:2`` (``n (k_max + R)`` pairs).

Run from the repository root::

    .venv/bin/python benchmarks/bench_designs.py

The output is printed and written to ``data/bench_designs.txt``.
"""

from __future__ import annotations

import argparse
import platform
import time
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from semvar import cli
from semvar.graph import adjacency_from_verdicts
from semvar.relation import relation_report


def _measure(fn):
    """``(result, seconds, peak MB)`` of one call under tracemalloc."""
    tracemalloc.start()
    t = time.perf_counter()
    try:
        out = fn()
    finally:
        seconds = time.perf_counter() - t
        peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
    return out, seconds, peak


def _analyse(n: int, spec: str, pairs: np.ndarray, k_max: int = 10):
    """The command's analysis of a perfect judge's verdicts on ``pairs``: its decision, as text."""
    z = np.arange(n) % 3
    verdicts = z[pairs[:, 0]] == z[pairs[:, 1]]
    A, observed = adjacency_from_verdicts(n, pairs, verdicts, return_mask=True)
    relation_report(n, pairs, np.ma.array(verdicts))  # the command reports symmetry and transitivity too
    args = argparse.Namespace(k="auto", k_max=k_max, pairs=spec, seed=0, max_unresolved=0.05, laplacian=None)
    try:
        k, how, clusters = cli._partition(args, None, A, observed, n, "centered")
    except cli._Failure as exc:
        return f"refused (exit {exc.code}): " + exc.message.split(". No entropy")[0].split(";")[0]
    return f"K = {k}"


def main() -> None:
    lines = [f"# bench_designs: {datetime.now(UTC):%Y-%m-%d}, {platform.machine()}, Python {platform.python_version()}",
             "n, design, pairs drawn, choose s, choose MB, analyse s, analyse MB, decision"]
    for n, spec in ((12_000, "sample:0.0001"), (40_000, "sample:0.0001"), (40_000, "sample:0.001"),
                    (3_000, "sample:0.001")):
        pairs, t1, m1 = _measure(lambda n=n, spec=spec: cli._pair_design(spec, n, 0))
        decision, t2, m2 = _measure(lambda n=n, spec=spec, pairs=pairs: _analyse(n, spec, pairs))
        lines.append(f"{n:,}, {spec}, {pairs.shape[0]:,}, {t1:.3f}, {m1:.1f}, {t2:.3f}, {m2:.1f}, {decision}")
        print(lines[-1], flush=True)
    _, t, m = _measure(lambda: cli._check_design_size("reps:2", 40_000))
    lines.append(f"40,000, reps:2 size check (n (k_max + R) = {40_000 * 12:,} pairs), -, -, -, {t:.4f}, {m:.2f}, "
                 "accepted")
    print(lines[-1])
    out = Path(__file__).resolve().parents[1] / "data" / "bench_designs.txt"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
