"""Benchmark: choosing K with ``k="auto"`` on large sparse judged graphs.

The graphs are those of ``benchmarks/bench_spectral.py``: a three-block sparse
stochastic block model with mean degree about 50 (40 within the block, 10
across).  For each size, each in a fresh subprocess so that memory is measured
cleanly,

* ``spectral``: ``semvar.spectral.spectral_clusters(A, 3)`` (the spectral step
  alone, ``K`` given),
* ``auto``: ``semvar.pipeline.graph_entropy(A, "auto")`` (``K`` chosen by the
  judge-model ICL from the graph's ten leading eigenpairs, computed by
  Lanczos on the sparse graph, then the clusters), and
* ``auto-dense`` (only up to ``--dense-max``, 10^4 by default): the same with
  the sparse route switched off (``semvar.select_k.SPARSE.n`` set above
  ``n``), the way every large graph was handled before the sparse route:
  the graph of the texts with an edge made dense.

are run twice: the first call, traced, gives the tracemalloc peak and the
growth of the resident-set peak, the second, untraced, the seconds; with the
chosen ``K`` and the entropy.

Run from the repository root::

    .venv/bin/python benchmarks/bench_auto_sparse.py                  # 10^4, 10^5, 10^6
    .venv/bin/python benchmarks/bench_auto_sparse.py --sizes 10000,100000

The table is printed and written into ``data/benchmark_spectral.txt`` as its
section ``## k="auto" on sparse graphs`` (replacing an earlier one; the rest of
the file, written by ``bench_spectral.py``, is kept).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_spectral import _graph, _machine, _measure  # noqa: E402


def _measure_then_time(func):
    """Memory of a traced call (:func:`bench_spectral._measure`), then the seconds of a second, untraced one.

    tracemalloc slows every allocation, and the Python-level loops of the K rule (a k-means per
    candidate) allocate far more often than the spectral step does, so a traced time would weigh
    on the ratio; the seconds reported are those of the untraced call.
    """
    out, _, peak, rss = _measure(func)
    t0 = time.perf_counter()
    func()
    return out, time.perf_counter() - t0, peak, rss

SECTION = '## k="auto" on sparse graphs'


def _child(which: str, n: int, seed: int) -> None:
    import numpy as np

    import semvar.select_k as select_k
    from semvar.pipeline import graph_entropy
    from semvar.spectral import spectral_clusters

    A, _ = _graph(n, seed)
    if which == "spectral":
        labels, seconds, peak, rss = _measure_then_time(lambda: spectral_clusters(A, 3, random_state=seed))
        k, h = 3, float("nan")
    else:
        if which == "auto-dense":
            select_k.SPARSE.n = 10**12
        (h, labels, sel), seconds, peak, rss = _measure_then_time(
            lambda: graph_entropy(A, "auto", random_state=seed, return_labels=True, return_k=True))
        k = sel.k
    print(json.dumps(dict(which=which, n=n, edges=int(A.nnz // 2), seconds=seconds, peak_mb=peak, rss_mb=rss,
                          k=int(k), h=float(h), n_labels=int(np.unique(labels).size))))


def _run(which: str, n: int, seed: int, cap: float):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, __file__, "--child", which, str(n), str(seed)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=cap, env=env, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return None
    if out.returncode != 0:
        raise RuntimeError(f"{which} n={n} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _write(out: Path, lines: list) -> None:
    """Put the section into ``out``, replacing an earlier one and keeping everything else."""
    text = out.read_text() if out.exists() else ""
    head, sep, rest = text.partition("\n" + SECTION)
    if sep:  # drop the old section up to the next one (or the end)
        nxt = rest.find("\n## ")
        tail = "" if nxt < 0 else rest[nxt:]
        text = head + tail
    out.write_text(text.rstrip("\n") + "\n\n" + "\n".join(lines) + "\n")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", nargs=3, metavar=("WHICH", "N", "SEED"), help=argparse.SUPPRESS)
    ap.add_argument("--sizes", default="10000,100000,1000000", help="comma-separated graph sizes")
    ap.add_argument("--dense-max", type=int, default=10_000, help="largest n for the auto-dense run")
    ap.add_argument("--cap", type=float, default=600.0, help="seconds allowed to one run")
    ap.add_argument("--out", default=str(ROOT / "data" / "benchmark_spectral.txt"))
    args = ap.parse_args(argv)
    if args.child:
        which, n, seed = args.child
        _child(which, int(n), int(seed))
        return
    sizes = [int(x) for x in args.sizes.split(",")]
    lines = [
        SECTION,
        f"machine: {_machine()}; one BLAS thread per run; each run in a fresh process",
        f"started {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"load average (1, 5, 15 min): {tuple(round(x, 2) for x in os.getloadavg())}",
        "spectral: spectral_clusters(A, 3); auto: graph_entropy(A, 'auto') (sparse route); "
        "auto-dense: the same with the sparse route off (the core made dense, as before it existed)",
        "seconds: a second, untraced call; peak MB: tracemalloc peak of the first call; RSS MB: growth of the "
        "resident-set peak during it; ratio: seconds / seconds of spectral at the same n",
        "",
        f"{'method':<12}{'n':>10}{'edges':>12}{'seconds':>10}{'ratio':>8}{'peak MB':>10}{'RSS MB':>9}"
        f"{'K':>4}{'entropy':>10}{'load1':>7}",
    ]
    print("\n".join(lines), flush=True)
    for n in sizes:
        base = None
        for which in ("spectral", "auto", "auto-dense"):
            if which == "auto-dense" and n > args.dense_max:
                continue
            res = _run(which, n, 0, args.cap)
            load = os.getloadavg()[0]
            if res is None:
                lines.append(f"{which:<12}{n:>10}{'':>12}{'> cap':>10}  (stopped after {args.cap:.0f} s)")
            else:
                if which == "spectral":
                    base = res["seconds"]
                ratio = res["seconds"] / base if base else float("nan")
                h = "" if res["h"] != res["h"] else f"{res['h']:.4f}"
                lines.append(f"{which:<12}{n:>10}{res['edges']:>12}{res['seconds']:>10.2f}{ratio:>8.2f}"
                             f"{res['peak_mb']:>10.0f}{res['rss_mb']:>9.0f}{res['k']:>4}{h:>10}{load:>7.2f}")
            print(lines[-1], flush=True)
    _write(Path(args.out), lines)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
