"""Sweep: error of semantic spectral entropy against the number of judge calls.

For each simulated judge in :data:`BUDGET_JUDGES` (the ``(p, q)`` of Liu 2025,
Table 2, for GPT-3.5, Cohere and Ministral), each number of texts in
:data:`SIZES` (meaning classes in proportions :data:`PROPORTIONS`) and each
budget of comparisons per text in :data:`PER_TEXT`, ask an
:class:`semvar.judges.SBMJudge` about a random fraction ``s`` of the pairs
(:func:`semvar.graph.design_random`), cluster the judged graph with each
spectral method in :data:`METHODS`, and record the calls, ``|E_bar - E_hat|``
and the adjusted Rand index.  The greedy representative design
(:func:`semvar.graph.design_greedy`, random order) is run on the same
settings.  A second study freezes one judge's verdicts on every pair and
re-runs the greedy design in many orders: whatever changes is due to the
order alone.

Run ``python -m semvar.experiments.budget`` (about 10 minutes on two busy cores);
it writes ``data/budget_sweep.csv`` and ``data/budget_greedy_order.csv``
(:func:`semvar.data.result_path`).
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import cast

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.metrics import adjusted_rand_score
from threadpoolctl import threadpool_limits
from tqdm.auto import tqdm

from .._validation import check_array, check_int, check_random_state
from ..data import result_path
from ..entropy import empirical_entropy
from ..graph import block_labels, design_greedy, design_random
from ..judges import SBMJudge
from ..papers import PAPER_TABLE2
from ..spectral import spectral_clusters

__all__ = [
    "BUDGET_JUDGES",
    "SWEEP_FILE",
    "GREEDY_ORDER_FILE",
    "PROPORTIONS",
    "SIZES",
    "PER_TEXT",
    "METHODS",
    "FrozenJudge",
    "sizes_for",
    "run_random",
    "run_greedy",
    "greedy_order_study",
    "main",
]

#: the judges of the budget study: three of Liu (2025), Table 2, one strong, one medium, one weak
BUDGET_JUDGES = {"gpt": PAPER_TABLE2["GPT"], "cohere": PAPER_TABLE2["COHERE"], "ministral": PAPER_TABLE2["MINISTRAL"]}
PROPORTIONS = (0.2, 0.3, 0.5)
SIZES = (200, 500, 1000, 2000, 5000)
PER_TEXT = (1, 2, 4, 8, 16, 32, 64, 128, 256)
METHODS = ("normalized", "regularized", "centered")
SWEEP_FILE = "budget_sweep.csv"
GREEDY_ORDER_FILE = "budget_greedy_order.csv"


def sizes_for(n: int, proportions: Sequence[float] = PROPORTIONS) -> list[int]:
    """Block sizes ``round(pi_k n)`` with the remainder in the last block.

    >>> sizes_for(1000)
    [200, 300, 500]
    """
    n = check_int(n, "n", low=1)
    pi = check_array(proportions, "proportions", ndim=1)
    if pi.min() <= 0:
        raise ValueError(f"proportions must be positive, got {pi.tolist()}")
    pi = pi / pi.sum()
    out = [int(round(x * n)) for x in pi[:-1]]
    out.append(n - sum(out))
    if min(out) < 1:
        raise ValueError(f"n={n} is too small for proportions {pi.tolist()}")
    return out


class FrozenJudge:
    """A judge whose verdict on every pair is fixed in advance (a symmetric 0/1 matrix).

    Asking twice gives the same answer, so two runs of a design differ only
    in *which* pairs they ask, never in the judge's luck.

    Examples
    --------
    >>> j = FrozenJudge([[1, 1, 0], [1, 1, 0], [0, 0, 1]])
    >>> j.pairs(["a", "b", "c"], [[0, 1], [1, 2]]).tolist()
    [True, False]
    """

    def __init__(self, verdicts: ArrayLike) -> None:
        V = check_array(verdicts, "verdicts", ndim=2)
        if V.shape[0] != V.shape[1] or not np.array_equal(V, V.T):
            raise ValueError(f"verdicts must be a symmetric square matrix, got shape {V.shape}")
        self._V = V.astype(bool)

    def pairs(self, texts: Sequence[str], pairs: np.ndarray) -> np.ndarray:
        P = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        if len(texts) != self._V.shape[0]:
            raise ValueError(f"this judge knows {self._V.shape[0]} texts but was given {len(texts)}")
        return self._V[P[:, 0], P[:, 1]]


def _texts(n):
    return [f"text {i}" for i in range(n)]


def run_random(n: int, p: float, q: float, s: int, seed: int, *, methods: Sequence[str] = METHODS,
               proportions: Sequence[float] = PROPORTIONS) -> list[dict]:
    """One random design: judge a fraction ``s`` of pairs, cluster with each method.

    Returns one row per method: calls, fraction, entropy error, ARI.
    """
    labels = block_labels(sizes_for(n, proportions))
    truth = empirical_entropy(labels)
    rng = check_random_state(seed)
    judge = SBMJudge(labels, p, q, random_state=rng)
    r = design_random(judge, _texts(n), s, random_state=rng)
    rows = []
    for method in methods:
        kw = {"observed": r.observed} if method == "centered" else {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # isolated nodes under "normalized"
            est = r.expand(spectral_clusters(r.adjacency, len(proportions), laplacian=method, random_state=seed, **kw))
        rows.append(
            dict(
                design="random",
                method=method,
                calls=r.calls,
                fraction=r.fraction,
                err=abs(empirical_entropy(est) - truth),
                ari=adjusted_rand_score(labels, est),
            )
        )
    return rows


def run_greedy(n: int, p: float, q: float, seed: int, *, proportions: Sequence[float] = PROPORTIONS) -> dict:
    """One greedy design in a random order; its clusters are its answer."""
    labels = block_labels(sizes_for(n, proportions))
    rng = check_random_state(seed)
    judge = SBMJudge(labels, p, q, random_state=rng)
    r = design_greedy(judge, _texts(n), random_state=rng)
    labels_hat = cast(np.ndarray, r.labels)  # an adaptive design labels every text
    return dict(
        design="greedy",
        method="greedy",
        calls=r.calls,
        fraction=r.fraction,
        err=abs(empirical_entropy(labels_hat) - empirical_entropy(labels)),
        ari=adjusted_rand_score(labels, labels_hat),
        n_clusters=int(labels_hat.max() + 1),
    )


def greedy_order_study(n: int, p: float, q: float, n_orders: int, *, seed: int = 0,
                       proportions: Sequence[float] = PROPORTIONS) -> pd.DataFrame:
    """Freeze one noisy judge's verdicts on all pairs; run the greedy design in ``n_orders`` orders.

    Returns one row per order: the greedy entropy, its error, the number of
    clusters, the calls and the ARI with the truth.
    """
    n = check_int(n, "n", low=2)
    n_orders = check_int(n_orders, "n_orders", low=1)
    labels = block_labels(sizes_for(n, proportions))
    rng = check_random_state(seed)
    same = labels[:, None] == labels[None, :]
    upper = np.triu(rng.random((n, n)) < np.where(same, p, q), 1)
    V = upper | upper.T
    np.fill_diagonal(V, True)
    judge = FrozenJudge(V)
    truth = empirical_entropy(labels)
    rows = []
    for o in range(n_orders):
        r = design_greedy(judge, _texts(n), random_state=rng, collapse=False)
        found = cast(np.ndarray, r.labels)  # an adaptive design labels every text
        h = empirical_entropy(found)
        rows.append(
            dict(order=o, entropy=h, err=abs(h - truth), n_clusters=int(found.max() + 1), calls=r.calls,
                 ari=adjusted_rand_score(labels, found))
        )
    return pd.DataFrame(rows)


def _settings(sizes, per_text, quick):
    for n in sizes:
        fractions = sorted({min(1.0, 2.0 * m / (n - 1)) for m in per_text} | ({1.0} if n <= 1000 else set()))
        seeds = range(2 if quick else (5 if n <= 1000 else 3))
        for s in fractions:
            for seed in seeds:
                yield n, s, seed


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m semvar.experiments.budget", description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="output folder (default: the project's data/)")
    ap.add_argument("--quick", action="store_true", help="two seeds, n <= 1000 (a smoke run)")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    with threadpool_limits(1):  # one BLAS thread: many small problems, shared cores
        _run(args)


def _run(args) -> None:
    sizes = [n for n in SIZES if n <= 1000] if args.quick else list(SIZES)
    todo = [(name, n, s, seed) for name in BUDGET_JUDGES for (n, s, seed) in _settings(sizes, PER_TEXT, args.quick)]
    if not args.no_progress:
        todo = tqdm(todo, desc="budget sweep")
    rows = []
    for name, n, s, seed in todo:
        p, q = BUDGET_JUDGES[name]
        for row in run_random(n, p, q, s, seed):
            rows.append(dict(judge=name, p=p, q=q, n=n, s=s, seed=seed, **row))
    for name, (p, q) in BUDGET_JUDGES.items():
        for n in sizes:
            for seed in range(5):
                rows.append(dict(judge=name, p=p, q=q, n=n, s=np.nan, seed=seed, **run_greedy(n, p, q, seed)))
    out = Path(args.out) if args.out else result_path(SWEEP_FILE).parent
    out.mkdir(parents=True, exist_ok=True)
    df = pd.DataFrame(rows)
    for col in ("s", "fraction", "err", "ari"):
        df[col] = df[col].round(6)
    df.to_csv(out / SWEEP_FILE, index=False)
    studies = []
    for name, (p, q) in BUDGET_JUDGES.items():
        st = greedy_order_study(1000, p, q, 30 if not args.quick else 5, seed=11)
        st.insert(0, "judge", name)
        studies.append(st)
    go = pd.concat(studies, ignore_index=True)
    for col in ("entropy", "err", "ari"):
        go[col] = go[col].round(6)
    go.to_csv(out / GREEDY_ORDER_FILE, index=False)
    print(f"wrote {out / SWEEP_FILE} ({len(df)} rows) and {out / GREEDY_ORDER_FILE} ({len(go)} rows)")


if __name__ == "__main__":  # pragma: no cover
    main()
