"""Sweep: Liu (2025) Table 1 and Figure 1 under simulated judges.

Replicates the paper's simulation protocol (section 4): for each judge, each
cluster ratio in :data:`RATIOS` and each size in :data:`SIZES`, draw a hobby
corpus, judge every pair, cluster spectrally into ``K`` groups and record
``|E_bar - E_hat|``; Table 1 is the mean over 10 iterations.

The paper's judges are six language models reached over the network; here each
is replaced by a simulated judge with the paper's own Table 2 ``(p, q)``:

* ``sbm``: independent coin flips (:class:`semvar.judges.SBMJudge`, eqs. 3-4);
* ``hard``: text-dependent errors (:class:`semvar.judges.HardTextJudge`), a
  share ``h`` of texts the judge cannot match, with the easy-pair ``p`` set so
  that the overall same-meaning TRUE rate is still the paper's ``p``;
* ``overlap``: meaning-dependent errors (:class:`semvar.judges.BlockJudge` with
  :func:`overlap_block_matrix`), all false TRUEs on meanings that share a hobby,
  at the paper's overall ``q``.

Five clustering conventions are compared: ``normalized`` (top-K eigenvectors
of D^-1/2 E D^-1/2, the paper's appendix), ``unnormalized`` (bottom-K of
L = D - E, the paper's main text and Algorithm 1), ``sklearn``
(:class:`sklearn.cluster.SpectralClustering` with a precomputed affinity, the
implementation the paper cites), and ``normalized-1random`` /
``unnormalized-1random``: the same embeddings followed by a *single* k-means
run started from K random rows (an approximate k-means that can stop in a
local optimum), where the first three use 10 k-means++ restarts.

A second sweep traces the mean error against ``p - q`` on a grid (Figure 1).

Run ``python -m semvar.experiments.table1`` (a few minutes on one core);
it writes ``data/liu2025_table1.csv`` and ``data/liu2025_phase.csv``
(:func:`semvar.data.result_path`).  The paper's tables are in :mod:`semvar.papers`.
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .._validation import check_option
from ..corpus import make_corpus, realised_sizes
from ..data import result_path
from ..entropy import empirical_entropy
from ..graph import block_labels, judge_graph
from ..judges import BlockJudge, HardTextJudge, SBMJudge
from ..papers import PAPER_TABLE2
from ..spectral import spectral_clusters

__all__ = [
    "RATIOS",
    "SIZES",
    "TABLE2_JUDGES",
    "TABLE1_FILE",
    "PHASE_FILE",
    "CONVENTIONS",
    "cluster",
    "overlap_block_matrix",
    "table1_errors",
    "phase_errors",
    "main",
]

RATIOS: tuple[tuple[float, ...], ...] = ((0.2, 0.3, 0.5), (0.3, 0.3, 0.4), (0.5, 0.5))
SIZES: tuple[int, ...] = (30, 50, 70)
#: the six language-model judges of Liu (2025), Table 2, in the paper's order
TABLE2_JUDGES: tuple[str, ...] = tuple(PAPER_TABLE2)
TABLE1_FILE = "liu2025_table1.csv"
PHASE_FILE = "liu2025_phase.csv"

CONVENTIONS = ("normalized", "unnormalized", "sklearn", "normalized-1random", "unnormalized-1random")


def cluster(adjacency: ArrayLike, k: int, convention: str, random_state: int) -> np.ndarray:
    """Spectral clusters under one of :data:`CONVENTIONS` (warnings about disconnected graphs silenced)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if convention == "sklearn":
            from sklearn.cluster import SpectralClustering

            A = adjacency.toarray() if hasattr(adjacency, "toarray") else np.asarray(adjacency)
            sc = SpectralClustering(k, affinity="precomputed", random_state=random_state)
            return sc.fit_predict(A)
        if convention.endswith("-1random"):
            # one k-means run from k uniformly random rows: a (1+eps)-approximate k-means that can stall
            from sklearn.cluster import KMeans

            from ..spectral import spectral_embedding

            U = spectral_embedding(adjacency, k, laplacian=convention.split("-")[0])
            return KMeans(k, init="random", n_init=1, random_state=random_state).fit_predict(U)
        check_option(convention, "convention", CONVENTIONS)  # the others were handled above
        return spectral_clusters(adjacency, k, laplacian=convention, random_state=random_state)


def overlap_block_matrix(corpus: Any, p: float, q: float) -> np.ndarray:
    """Block matrix of a judge that confuses only meanings sharing a hobby, at overall rate ``q``.

    ``B[a, a] = p``; for ``a != b``, ``B[a, b] = c`` when meanings ``a`` and ``b`` share
    at least one hobby and ``q0`` otherwise.  All false TRUEs go to overlapping
    meanings as far as possible: with ``f`` the share of different-meaning text
    pairs whose meanings overlap, ``c = q / f`` and ``q0 = 0`` when ``q <= f``;
    otherwise ``c = 1`` and ``q0 = (q - f) / (1 - f)``.  The expected rate of TRUE
    among different-meaning pairs is then ``q``, as in the paper's Table 2.
    """
    sizes = corpus.sizes.astype(float)
    K = sizes.size
    share = np.array([[len(corpus.meanings[a] & corpus.meanings[b]) > 0 for b in range(K)] for a in range(K)])
    np.fill_diagonal(share, False)
    cross = np.outer(sizes, sizes)
    np.fill_diagonal(cross, 0)
    f = cross[share].sum() / cross.sum() if cross.sum() else 0.0
    if f == 0:
        c, q0 = 0.0, q
    elif q <= f:
        c, q0 = q / f, 0.0
    else:
        c, q0 = 1.0, (q - f) / (1 - f)
    B = np.where(share, c, q0)
    np.fill_diagonal(B, p)
    return B


def _make_judge(model: str, corpus, p: float, q: float, h: float, rng):
    labels = corpus.labels
    if model == "sbm":
        return SBMJudge(labels, p, q, random_state=rng)
    if model == "hard":
        return HardTextJudge(labels, HardTextJudge.p_for(p, q, h), q, hard_fraction=h, random_state=rng)
    if model == "overlap":
        return BlockJudge(labels, overlap_block_matrix(corpus, p, q), random_state=rng)
    raise ValueError(f"model must be 'sbm', 'hard' or 'overlap', got {model!r}")


def table1_errors(
    p: float,
    q: float,
    *,
    model: str = "sbm",
    hard_fraction: float = 0.0,
    conventions: Sequence[str] = ("normalized",),
    ratios: Sequence[Sequence[float]] = RATIOS,
    sizes: Sequence[int] = SIZES,
    iterations: int = 10,
    random_state: int = 0,
    m: int = 2,
) -> pd.DataFrame:
    """Per-iteration ``|E_bar - E_hat|`` for one judge on the Table 1 grid.

    Every iteration draws a fresh hobby corpus (``m`` hobbies per text) and a
    fresh judge; all conventions cluster the same judged graph.

    Returns
    -------
    DataFrame with columns ratio, n, iteration, convention, error.
    """
    rows = []
    for r_i, ratio in enumerate(ratios):
        for n in sizes:
            for it in range(iterations):
                rng = np.random.default_rng([random_state, r_i, n, it])
                c = make_corpus(n, ratio, m=m, random_state=rng)
                A = judge_graph(_make_judge(model, c, p, q, hard_fraction, rng), c.texts)
                truth = empirical_entropy(c.labels)
                seed = int(rng.integers(2**31 - 1))
                for conv in conventions:
                    lab = cluster(A, len(ratio), conv, seed)
                    rows.append((str(ratio), n, it, conv, abs(empirical_entropy(lab) - truth)))
    return pd.DataFrame(rows, columns=["ratio", "n", "iteration", "convention", "error"])


def phase_errors(
    q: float,
    diffs: Sequence[float] | np.ndarray,
    *,
    ratio: Sequence[float] = (0.2, 0.3, 0.5),
    sizes: Sequence[int] = SIZES,
    iterations: int = 20,
    conventions: Sequence[str] = ("normalized",),
    random_state: int = 0,
) -> pd.DataFrame:
    """Mean ``|E_bar - E_hat|`` of an SBM judge against ``p - q`` (Figure 1), for fixed ``q``.

    Returns
    -------
    DataFrame with columns q, p_minus_q, n, convention, mean_error, se.
    """
    from ..graph import sample_sbm

    rows = []
    for n in sizes:
        s = realised_sizes(n, ratio)
        truth = empirical_entropy(block_labels(s))
        for d in diffs:
            p = q + float(d)
            if p > 1 + 1e-12:
                continue
            p = min(p, 1.0)
            errs: dict[str, list] = {c: [] for c in conventions}
            for it in range(iterations):
                rng = np.random.default_rng([random_state, n, int(round(1000 * d)), int(round(1000 * q)), it])
                A = sample_sbm(s, p, q, random_state=rng)
                seed = int(rng.integers(2**31 - 1))
                for conv in conventions:
                    errs[conv].append(abs(empirical_entropy(cluster(A, len(ratio), conv, seed)) - truth))
            for conv in conventions:
                e = np.asarray(errs[conv])
                rows.append((q, round(float(d), 4), n, conv, e.mean(), e.std(ddof=1) / np.sqrt(e.size)))
    return pd.DataFrame(rows, columns=["q", "p_minus_q", "n", "convention", "mean_error", "se"])


def _summarise(df: pd.DataFrame, first: int = 10) -> pd.DataFrame:
    keys = [c for c in df.columns if c not in ("iteration", "error")]
    g = df.groupby(keys, sort=False)["error"]
    out = g.agg(mean_error="mean", sd="std", iterations="count").reset_index()
    out["mean_first10"] = df[df["iteration"] < first].groupby(keys, sort=False)["error"].mean().to_numpy()
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m semvar.experiments.table1", description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="output folder (default: the project's data/)")
    ap.add_argument("--iterations", type=int, default=30, help="iterations per cell for the SBM judges")
    ap.add_argument("--hard-iterations", type=int, default=20, help="iterations per cell for the hard-text judges")
    ap.add_argument("--phase-iterations", type=int, default=20)
    ap.add_argument("--progress", action="store_true")
    args = ap.parse_args(argv)
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    out = Path(args.out) if args.out else result_path(TABLE1_FILE).parent
    out.mkdir(parents=True, exist_ok=True)
    frames = []
    jobs: list[tuple[str, float, tuple[str, ...], int]] = [("sbm", 0.0, CONVENTIONS, args.iterations)]
    jobs += [("hard", h, ("normalized",), args.hard_iterations) for h in (0.03, 0.06, 0.1, 0.15, 0.2)]
    jobs += [("overlap", 0.0, ("normalized", "unnormalized"), args.hard_iterations)]
    todo = [(j, *job) for job in jobs for j in TABLE2_JUDGES]
    if args.progress:
        from tqdm.auto import tqdm

        todo = tqdm(todo, desc="table 1")
    for judge, model, h, convs, iters in todo:
        p, q = PAPER_TABLE2[judge]
        try:
            HardTextJudge.p_for(p, q, h)
        except ValueError:
            continue  # this hard fraction cannot reach the judge's p
        df = table1_errors(p, q, model=model, hard_fraction=h, conventions=convs, iterations=iters, random_state=1)
        df.insert(0, "hard_fraction", h)
        df.insert(0, "model", model)
        df.insert(0, "judge", judge)
        frames.append(df)
    table = _summarise(pd.concat(frames, ignore_index=True))
    table.round(5).to_csv(out / TABLE1_FILE, index=False)
    diffs = np.round(np.arange(0.05, 1.0001, 0.05), 4)
    phase = pd.concat(
        [
            phase_errors(q, diffs, iterations=args.phase_iterations, conventions=("normalized", "unnormalized", "normalized-1random"), random_state=2)
            for q in (0.0, 0.05, 0.3)
        ],
        ignore_index=True,
    )
    phase.round(5).to_csv(out / PHASE_FILE, index=False)
    print(f"wrote {out / TABLE1_FILE} ({len(table)} rows) and {out / PHASE_FILE} ({len(phase)} rows)")


if __name__ == "__main__":  # pragma: no cover
    main()
