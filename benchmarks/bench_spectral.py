"""Benchmark: spectral clustering of sparse judged graphs, 10^4 to 10^6 texts.

For each size ``n`` a three-block sparse stochastic block model with mean
degree about 50 (40 within the block, 10 across) is drawn with
:func:`semvar.graph.sample_sbm`; then, each in a fresh subprocess so that
memory is measured cleanly,

* ``semvar.spectral.spectral_clusters(A, 3)`` (the default, normalised
  spectrum; sparse eigensolver on a matrix-free operator),
* ``semvar.pipeline.graph_entropy(A, 3)`` (the same clusters and the entropy
  of their sizes: the public graph-level entry, which checks the input once),
  and
* ``sklearn.cluster.SpectralClustering(affinity="precomputed")`` with its
  default solver, under a wall-clock cap,

are timed.  Peak extra memory is measured twice: the tracemalloc peak during
the call (numpy and scipy allocations) and, on Linux, the peak of the resident
set during the call (the high-water mark is reset just before it).  The input
check alone is timed and measured too.  A second part prints accuracy-per-call
curves: mean ``|E_bar - E_hat|`` of each pair design against the judge calls
it made.

Run from the repository root::

    .venv/bin/python benchmarks/bench_spectral.py            # about 8 minutes
    .venv/bin/python benchmarks/bench_spectral.py --small    # a smoke run

The output is printed and written to ``data/benchmark_spectral.txt``.  With
``--before FILE`` (an earlier output of this script) it ends with a table of
the peak memory then and now.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIZES = (10_000, 100_000, 300_000, 1_000_000)
WITHIN, ACROSS = 40.0, 10.0


def _graph(n: int, seed: int):
    from semvar.graph import sample_sbm

    sizes = [n // 3, n // 3, n - 2 * (n // 3)]
    p = WITHIN / (n / 3)
    q = ACROSS / (2 * n / 3)
    return sample_sbm(sizes, p, q, random_state=seed), sizes


def _status_mb(field: str) -> float:
    """A memory figure of this process from /proc/self/status (Linux), in MiB."""
    text = Path("/proc/self/status").read_text()
    return int(re.search(rf"{field}:\s+(\d+) kB", text).group(1)) / 1024


def _reset_rss_peak() -> bool:
    """Reset this process's resident-set high-water mark (Linux); False where that is not possible."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        _status_mb("VmHWM")
    except (OSError, AttributeError):
        return False
    return True


def _measure(func):
    """Run ``func()``; return its result, seconds, tracemalloc peak (MiB) and resident-set peak growth (MiB)."""
    import tracemalloc

    can_reset = _reset_rss_peak()
    rss0 = _status_mb("VmRSS") if can_reset else float("nan")
    tracemalloc.start()
    t0 = time.perf_counter()
    out = func()
    seconds = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    rss_peak = _status_mb("VmHWM") - rss0 if can_reset else float("nan")
    return out, seconds, peak, rss_peak


def _child(which: str, n: int, seed: int) -> None:
    """Run one clustering in this (fresh) process and print one JSON line."""
    import numpy as np
    from sklearn.metrics import adjusted_rand_score

    from semvar.graph import block_labels

    A, sizes = _graph(n, seed)
    truth = block_labels(sizes)
    if which == "semvar":
        from semvar.spectral import spectral_clusters

        labels, seconds, peak, rss_peak = _measure(lambda: spectral_clusters(A, 3, random_state=seed))
    elif which == "pipeline":
        from semvar.pipeline import graph_entropy

        (_, labels), seconds, peak, rss_peak = _measure(
            lambda: graph_entropy(A, 3, random_state=seed, return_labels=True)
        )
    else:
        from sklearn.cluster import SpectralClustering

        model = SpectralClustering(n_clusters=3, affinity="precomputed", random_state=seed)
        labels, seconds, peak, rss_peak = _measure(lambda: model.fit_predict(A))
    check_s = check_mb = float("nan")
    if which != "sklearn":
        # how much of the peak is the input check (the symmetry test) rather than the solver
        from semvar._validation import check_adjacency

        _, check_s, check_mb, _ = _measure(lambda: check_adjacency(A))
    print(json.dumps(dict(
        which=which, n=n, edges=int(A.nnz // 2), mean_degree=float(A.nnz / n), seconds=seconds,
        peak_mb=peak, rss_peak_mb=rss_peak, check_s=check_s, check_mb=check_mb,
        ari=float(adjusted_rand_score(truth, np.asarray(labels))),
    )))


def _run_child(which: str, n: int, seed: int, cap: float):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, __file__, "--child", which, str(n), str(seed)]
    t0 = time.perf_counter()
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=cap, env=env, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - t0
    if out.returncode != 0:
        raise RuntimeError(f"{which} n={n} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1]), time.perf_counter() - t0


def _machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kb / 2**20:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} logical CPUs ({cpu}){mem}, Python {platform.python_version()}"


def _curves(lines, small: bool) -> None:
    import numpy as np
    from threadpoolctl import threadpool_limits

    from semvar.experiments.budget import BUDGET_JUDGES, run_greedy, run_random

    n = 1000 if small else 2000
    per_text = (2, 8, 32, 128) if small else (2, 4, 8, 16, 32, 64, 128)
    seeds = range(2 if small else 3)
    lines.append(f"\n## Accuracy per call: n = {n}, meanings 20/30/50 %, mean over {len(seeds)} seeds")
    lines.append(f"{'judge':<10}{'design':<22}{'calls/text':>11}{'calls':>10}{'mean |dE|':>11}{'mean ARI':>10}")
    with threadpool_limits(1):
        for name, (p, q) in BUDGET_JUDGES.items():
            for m in per_text:
                s = min(1.0, 2 * m / (n - 1))
                rows = [r for seed in seeds for r in run_random(n, p, q, s, seed, methods=("normalized", "centered"))]
                for method in ("normalized", "centered"):
                    sel = [r for r in rows if r["method"] == method]
                    calls = np.mean([r["calls"] for r in sel])
                    lines.append(f"{name:<10}{'random/' + method:<22}{calls / n:>11.1f}{calls:>10.0f}"
                                 f"{np.mean([r['err'] for r in sel]):>11.4f}{np.mean([r['ari'] for r in sel]):>10.3f}")
            g = [run_greedy(n, p, q, seed) for seed in seeds]
            calls = np.mean([r["calls"] for r in g])
            lines.append(f"{name:<10}{'greedy':<22}{calls / n:>11.1f}{calls:>10.0f}"
                         f"{np.mean([r['err'] for r in g]):>11.4f}{np.mean([r['ari'] for r in g]):>10.3f}")
            print("\n".join(lines[-(2 * len(per_text) + 1):]), flush=True)


def _rows(text: str) -> dict:
    """Rows of the size table of an earlier output: {(method, n): {column: value}} (numeric cells only)."""
    lines = text.splitlines()
    head = next((i for i, line in enumerate(lines) if line.startswith("method ")), None)
    if head is None:
        return {}
    names = re.split(r"\s{2,}", lines[head].strip())
    rows = {}
    for line in lines[head + 1 :]:
        cells = line.split()
        if not cells or cells[0].startswith("#"):
            break
        if len(cells) != len(names):
            continue  # a capped or skipped run
        try:
            rows[(cells[0], int(cells[1]))] = {k: float(v) for k, v in zip(names[2:], cells[2:])}
        except ValueError:
            continue
    return rows


def _compare(lines: list, before_file: str) -> None:
    """Append a table of peak memory, an earlier output of this script against this run."""
    text = Path(before_file).read_text()
    before = _rows(text)
    now = _rows("\n".join(lines))
    started = next((line for line in text.splitlines() if line.startswith("started")), "started ?")
    cols = ("peak MB", "check MB", "RSS peak MB", "check s")
    lines.append(f"\n## spectral_clusters before and now (before: {Path(before_file).name}, {started})")
    lines.append("columns as in the table above; '-' where the earlier output lacks the column")
    lines.append(f"{'':>10}" + "".join(f"{c:>22}" for c in cols))
    lines.append(f"{'n':>10}" + f"{'before':>12}{'now':>10}" * len(cols))
    for (method, n), row in sorted(now.items(), key=lambda item: item[0][1]):
        if method != "semvar" or ("semvar", n) not in before:
            continue
        old = before[("semvar", n)]
        cells = ""
        for c in cols:
            fmt = ".2f" if c == "check s" else ".0f"
            a, b = old.get(c), row.get(c)
            cells += f"{'-' if a is None else format(a, fmt):>12}{'-' if b is None else format(b, fmt):>10}"
        lines.append(f"{n:>10}" + cells)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", nargs=3, metavar=("WHICH", "N", "SEED"), help=argparse.SUPPRESS)
    ap.add_argument("--small", action="store_true", help="n = 10^4 and 10^5 only, short curves")
    ap.add_argument("--sklearn-cap", type=float, default=180.0, help="seconds allowed to scikit-learn per size")
    ap.add_argument("--out", default=str(ROOT / "data" / "benchmark_spectral.txt"))
    ap.add_argument("--before", metavar="FILE", help="an earlier output of this script: end with a table of peak memory then and now")
    ap.add_argument("--methods", default="semvar,pipeline,sklearn", help="comma-separated subset of semvar,pipeline,sklearn")
    ap.add_argument("--no-curves", action="store_true", help="skip the accuracy-per-call part")
    args = ap.parse_args(argv)
    if args.child:
        which, n, seed = args.child
        _child(which, int(n), int(seed))
        return
    import numpy
    import scipy
    import sklearn

    sizes = SIZES[:2] if args.small else SIZES
    lines = [
        "# Benchmark: spectral_clusters on sparse SBMs (3 blocks, mean degree ~50: 40 within, 10 across)",
        f"machine: {_machine()}",
        f"numpy {numpy.__version__}, scipy {scipy.__version__}, scikit-learn {sklearn.__version__}; "
        "one BLAS thread per run; each run in a fresh process",
        f"load average at start (1, 5, 15 min): {tuple(round(x, 2) for x in os.getloadavg())}",
        f"started {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
        "",
        "peak MB: tracemalloc peak during the call; RSS peak MB: peak growth of the resident set during "
        "the call (its high-water mark reset just before; nan where that is not possible); "
        "check s / check MB: time and tracemalloc peak of the input check (check_adjacency) alone",
        "semvar: spectral_clusters(A, 3); pipeline: graph_entropy(A, 3); "
        "sklearn: SpectralClustering(affinity='precomputed')",
        "",
        f"{'method':<16}{'n':>10}{'edges':>12}{'seconds':>10}{'peak MB':>10}{'RSS peak MB':>13}"
        f"{'check s':>10}{'check MB':>10}{'ARI':>8}{'load1':>7}",
    ]
    print("\n".join(lines), flush=True)
    methods = [m for m in ("semvar", "pipeline", "sklearn") if m in args.methods.split(",")]
    if not methods:
        ap.error(f"--methods must name some of semvar, pipeline, sklearn, got {args.methods!r}")
    sk_gave_up = False
    for n in sizes:
        for which in methods:
            if which == "sklearn" and sk_gave_up:
                lines.append(f"{which:<16}{n:>10}{'':>12}{'skipped (smaller size hit the cap)':>44}")
                print(lines[-1], flush=True)
                continue
            cap = args.sklearn_cap if which == "sklearn" else 600.0
            res, wall = _run_child(which, n, 0, cap)
            load = os.getloadavg()[0]
            if res is None:
                # the cap covers drawing the graph too; report the whole wall time
                lines.append(f"{which:<16}{n:>10}{'':>12}{'> cap':>10}{'':>43}{'':>8}{load:>7.2f}"
                             f"  (stopped after {wall:.0f} s of a {cap:.0f} s cap, graph drawing included)")
                sk_gave_up = which == "sklearn"
            else:
                chk_s = "" if res["check_s"] != res["check_s"] else f"{res['check_s']:.2f}"
                chk_mb = "" if res["check_mb"] != res["check_mb"] else f"{res['check_mb']:.0f}"
                lines.append(f"{which:<16}{n:>10}{res['edges']:>12}{res['seconds']:>10.2f}{res['peak_mb']:>10.0f}"
                             f"{res['rss_peak_mb']:>13.0f}{chk_s:>10}{chk_mb:>10}{res['ari']:>8.4f}{load:>7.2f}")
            print(lines[-1], flush=True)
    if not args.no_curves:
        _curves(lines, args.small)
    if args.before:
        _compare(lines, args.before)
        print("\n".join(lines[lines.index(next(x for x in lines if x.startswith("\n## spectral_clusters before and now"))):]))
    lines.append(f"\nload average at end (1, 5, 15 min): {tuple(round(x, 2) for x in os.getloadavg())}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
