"""Benchmark: loading the HELM answers and the MMLU-Redux annotations, parsed and from the cache.

Each measurement runs in a fresh subprocess (so imports and file-system caches
are comparable) with ``SEMVAR_CACHE_DIR`` pointing at a temporary folder:

* ``parse``: an empty cache; the 57 HELM files (or the MMLU-Redux file) are
  verified, read, matched to MMLU's test split (itself read from its parquet
  file) and written to the cache;
* ``cached``: the same call again; the source files are still verified
  (sha256), the table is read from the cache;
* ``verify only``: the sha256 of the source files alone.

Run from the repository root (needs the files in a data directory)::

    .venv/bin/python benchmarks/bench_helm.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile

_CODE = r"""
import json, sys, time
from semvar.data import helm, load_helm_mmlu, load_mmlu_redux, find_data_dir
from semvar.data._paths import _sha256
what = sys.argv[1]
t0 = time.perf_counter()
if what == "verify":
    folder = find_data_dir("mmlu_redux", list(helm.HELM_SHA256))
    for rel in helm.HELM_SHA256:
        _sha256(folder / rel)
elif what == "helm":
    load_helm_mmlu()
else:
    load_mmlu_redux()
print(json.dumps(time.perf_counter() - t0))
"""


def _time(what: str, cache: str) -> float:
    env = {"SEMVAR_CACHE_DIR": cache, "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", _CODE, what], capture_output=True, text=True, check=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    rows = []
    for what, label in (("helm", "load_helm_mmlu"), ("redux", "load_mmlu_redux")):
        with tempfile.TemporaryDirectory() as cache:
            parse = _time(what, cache)
            cached = min(_time(what, cache) for _ in range(3))
        rows.append((label, parse, cached))
    with tempfile.TemporaryDirectory() as cache:
        verify = min(_time("verify", cache) for _ in range(3))
    print(f"{'loader':<18}{'parse (s)':>12}{'cached (s)':>12}")
    for label, parse, cached in rows:
        print(f"{label:<18}{parse:>12.2f}{cached:>12.2f}")
    print(f"sha256 of the 58 source files alone: {verify:.2f} s")


if __name__ == "__main__":
    main()
