"""Accuracy of the K-selection methods on stochastic block models (chapter 4 data).

For each setting, draw ``reps`` SBM graphs and record the ``K`` chosen by
NCV (L2 and deviance loss), ECV, the eigengap (plain, and ignoring the
trivial first gap) and the Bethe-Hessian.  One
factor is varied at a time around a base design (``K = 3`` balanced blocks,
``n = 300``, ``p = 0.3``, ``q = 0.15``):

- ``n`` in 60, 120, 300, 600;
- ``K`` in 2, 3, 4, 6 (``n = 300``, equal blocks);
- ``gap = p - q`` in 0.05, 0.10, 0.15, 0.25 (``q = 0.15``);
- ``pi_min`` (share of the smallest block, the others equal) in 1/3, 0.2, 0.1, 0.05.

Writes a long table ``factor, level, rep, method, k_true, k_hat`` to
``data/select_k_sweep.csv``.  Run ``python -m semvar.experiments.select_k``
(about ten minutes on one busy core; ``--reps`` to change the size).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits
from tqdm.auto import tqdm

from ..data import result_path
from ..graph import sample_sbm
from ..select_k import bethe_hessian, ecv, eigengap, ncv

__all__ = ["BASE", "RESULT_FILE", "settings", "run_sweep", "main"]

RESULT_FILE = "select_k_sweep.csv"
BASE: dict[str, Any] = {"n": 300, "K": 3, "p": 0.30, "q": 0.15, "pi_min": None}
K_MAX = 8
SEED = 4004


def _sizes(n, K, pi_min):
    if pi_min is None:
        base = np.full(K, n // K)
        base[: n - base.sum()] += 1
        return base
    small = int(round(pi_min * n))
    rest = n - small
    others = np.full(K - 1, rest // (K - 1))
    others[: rest - others.sum()] += 1
    return np.concatenate([[small], others])


def settings() -> list[tuple[str, object, dict]]:
    """The list of (factor, level, design) triples of the sweep."""
    out: list[tuple[str, object, dict]] = []
    for n in (60, 120, 300, 600):
        out.append(("n", n, dict(BASE, n=n)))
    for K in (2, 3, 4, 6):
        out.append(("K", K, dict(BASE, K=K)))
    for gap in (0.05, 0.10, 0.15, 0.25):
        out.append(("gap", gap, dict(BASE, p=BASE["q"] + gap)))
    for pm in (1 / 3, 0.2, 0.1, 0.05):
        out.append(("pi_min", round(pm, 4), dict(BASE, pi_min=pm)))
    return out


def _methods(A, rng):
    r = ncv(A, K_MAX, random_state=rng)
    deg = np.asarray(A.sum(1)).ravel()
    out = {
        "ncv_l2": r.k,
        "ncv_deviance": int(np.argmin(r.details["deviance"])) + 1,
        "ecv": ecv(A, K_MAX, random_state=rng).k,
        "bethe_hessian": bethe_hessian(A, K_MAX).k,
    }
    # eigengap refuses isolated nodes; drop them (they are uninformative)
    keep = deg > 0
    B = A[keep][:, keep] if not keep.all() else A
    out["eigengap"] = eigengap(B, K_MAX).k
    out["eigengap_skip1"] = eigengap(B, K_MAX, skip_first=True).k
    return out


def run_sweep(reps: int = 20, *, progress: bool = True, seed: int = SEED) -> pd.DataFrame:
    """Run the sweep and return the long table."""
    rows = []
    grid = settings()
    ss = np.random.SeedSequence(seed)
    children = ss.spawn(len(grid))
    with threadpool_limits(limits=1):
        for (factor, level, d), child in tqdm(list(zip(grid, children)), disable=not progress, desc="settings"):
            rng = np.random.default_rng(child)
            sizes = _sizes(d["n"], d["K"], d["pi_min"])
            for rep in range(reps):
                A = sample_sbm(sizes, d["p"], d["q"], random_state=rng).toarray()
                for method, k_hat in _methods(A, rng).items():
                    rows.append((factor, level, rep, method, d["K"], k_hat))
    return pd.DataFrame(rows, columns=["factor", "level", "rep", "method", "k_true", "k_hat"])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m semvar.experiments.select_k", description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--out", type=Path, default=None, help=f"output file (default: the project's data/{RESULT_FILE})")
    args = ap.parse_args(argv)
    out = args.out if args.out is not None else result_path(RESULT_FILE)
    df = run_sweep(args.reps)
    df.to_csv(out, index=False)
    print(f"wrote {len(df)} rows to {out}")


if __name__ == "__main__":
    main()
