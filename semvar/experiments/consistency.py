"""Simulated entropy errors beside the bounds of Liu (2025), section 3 (chapter 5 data).

Three studies, each a long table in ``data/``:

``consistency_fixed.csv`` (section 3.1, fixed partition)
    ``K = 3`` blocks of shares ``(0.5, 0.3, 0.2)``, ``n`` in 60 ... 1920, judge ``(p, q)`` in
    ``(0.5, 0.1)``, ``(0.3, 0.2)`` and ``(0.3, 0.28)``; per graph the
    misclustering ``M_error`` and ``|E_bar - E_hat|`` with ``K`` known
    (normalised spectral clustering).
``consistency_generator.csv`` (section 3.2)
    class probabilities ``(0.5, 0.3, 0.2)``, ``n`` as above, the same judges;
    per draw ``|E - E_bar|``, ``|E_bar - E_hat|`` and ``|E - E_hat|``.
``consistency_growing_k.csv`` (section 3.3)
    ``K = ceil(n^beta)`` equiprobable classes, ``beta`` in 0.25, 0.4, 0.5, 0.6,
    ``n`` in 100 ... 1600, judge ``(0.5, 0.1)``; the same three errors.

Run ``python -m semvar.experiments.consistency`` (a few minutes on one busy core;
``--reps`` to change the size); the tables go to :func:`semvar.data.result_path`.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits
from tqdm.auto import tqdm

from ..bounds import miscluster_error
from ..data import result_path
from ..entropy import empirical_entropy, entropy_from_counts
from ..graph import block_labels, sample_sbm
from ..spectral import spectral_clusters

__all__ = ["CONSISTENCY_JUDGES", "NS", "FILES", "run_fixed", "run_generator", "run_growing_k", "main"]

#: simulated judges (p, q): well separated, weak, and nearly blind (lambda = 1/15)
CONSISTENCY_JUDGES = ((0.5, 0.1), (0.3, 0.2), (0.3, 0.28))
NS = (60, 120, 240, 480, 960, 1920)
PROBS = (0.5, 0.3, 0.2)
BETAS = (0.25, 0.4, 0.5, 0.6)
NS_GROW = (100, 200, 400, 800, 1600)
SEED = 5005
FILES = ("consistency_fixed.csv", "consistency_generator.csv", "consistency_growing_k.csv")


def _one(labels, p, q, K, rng):
    """Judge graph for ``labels``, spectral clusters with K known; return (E_bar, E_hat, M_error)."""
    order = np.argsort(labels, kind="stable")
    sizes = np.bincount(labels, minlength=K)
    sizes = sizes[sizes > 0]
    A = sample_sbm(sizes, p, q, random_state=rng)
    true_sorted = block_labels(sizes)
    est = spectral_clusters(A, K, random_state=rng)
    return empirical_entropy(true_sorted), empirical_entropy(est), miscluster_error(true_sorted, est), order


def run_fixed(reps: int = 20, *, progress: bool = True, seed: int = SEED) -> pd.DataFrame:
    rows = []
    rng = np.random.default_rng(seed)
    for (p, q) in CONSISTENCY_JUDGES:
        for n in tqdm(NS, disable=not progress, desc=f"fixed p={p} q={q}"):
            labels = np.repeat(np.arange(3), [round(n * x) for x in PROBS])
            for rep in range(reps):
                e_bar, e_hat, m, _ = _one(labels, p, q, 3, rng)
                rows.append((p, q, n, rep, m, e_bar, e_hat, abs(e_bar - e_hat)))
    return pd.DataFrame(rows, columns=["p", "q", "n", "rep", "m_error", "e_bar", "e_hat", "err_bar_hat"])


def run_generator(reps: int = 20, *, progress: bool = True, seed: int = SEED + 1) -> pd.DataFrame:
    rows = []
    rng = np.random.default_rng(seed)
    probs = np.array(PROBS)
    e_true = entropy_from_counts(probs)
    for (p, q) in CONSISTENCY_JUDGES:
        for n in tqdm(NS, disable=not progress, desc=f"generator p={p} q={q}"):
            for rep in range(reps):
                labels = rng.choice(len(probs), size=n, p=probs)
                e_bar, e_hat, m, _ = _one(labels, p, q, len(probs), rng)
                rows.append((p, q, n, rep, m, e_true, e_bar, e_hat))
    df = pd.DataFrame(rows, columns=["p", "q", "n", "rep", "m_error", "e_true", "e_bar", "e_hat"])
    return _errors(df)


def run_growing_k(reps: int = 10, *, progress: bool = True, seed: int = SEED + 2) -> pd.DataFrame:
    rows = []
    rng = np.random.default_rng(seed)
    p, q = 0.5, 0.1
    for beta in BETAS:
        for n in tqdm(NS_GROW, disable=not progress, desc=f"growing K beta={beta}"):
            K = math.ceil(n**beta)
            for rep in range(reps):
                labels = rng.integers(0, K, size=n)
                k_used = int(np.unique(labels).size)
                e_bar, e_hat, m, _ = _one(labels, p, q, k_used, rng)
                rows.append((beta, n, K, rep, m, math.log(K), e_bar, e_hat))
    df = pd.DataFrame(rows, columns=["beta", "n", "K", "rep", "m_error", "e_true", "e_bar", "e_hat"])
    return _errors(df)


def _errors(df):
    df["err_true_bar"] = (df.e_true - df.e_bar).abs()
    df["err_bar_hat"] = (df.e_bar - df.e_hat).abs()
    df["err_true_hat"] = (df.e_true - df.e_hat).abs()
    return df


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m semvar.experiments.consistency", description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--out-dir", type=Path, default=None, help="output folder (default: the project's data/)")
    args = ap.parse_args(argv)
    with threadpool_limits(limits=1):
        for name, fn, reps in zip(FILES, (run_fixed, run_generator, run_growing_k),
                                  (args.reps, args.reps, max(1, args.reps // 2))):
            path = args.out_dir / name if args.out_dir is not None else result_path(name)
            df = fn(reps)
            df.to_csv(path, index=False, float_format="%.6g")
            print(f"wrote {len(df)} rows to {path}")


if __name__ == "__main__":
    main()
