"""Sweep: what a sampled pair design can identify, beside the representatives design, at 50-300 texts.

A sampled design (``--pairs sample:S``) judges each pair with probability
``s``.  With a perfect judge a text of a meaning of ``m`` texts gets no TRUE
verdict, and is *unresolved*, with probability ``(1 - s)^(m - 1)``; the
rules for ``K`` leave such texts out (:mod:`semvar.select_k`, "Partly judged
graphs").  For ``n`` in :data:`NS`, the judges of :data:`SWEEP_JUDGES`
(a perfect one and Liu's Table 2 GPT-like one), the partitions of chapter 4
(:data:`~semvar.experiments.select_k_small.PARTITIONS`, of which
:data:`SWEEP_PARTITIONS`) and :data:`REPS` graphs a cell, the script runs

- ``sample``: each pair with probability ``s`` in :data:`SHARES`; ``K`` and the
  entropy of the resolved texts by :func:`semvar.pipeline.graph_entropy`
  (``k="auto"`` with the mask of judged pairs);
- ``reps``: :func:`semvar.graph.design_representatives` with ``R`` in
  :data:`EXTRAS` checking pairs per text, its own partition;

and records the calls, their share of the ``n(n-1)/2`` pairs, the share of
unresolved texts (and its prediction ``sum_k (n_k / n)(1 - s)^(n_k - 1)`` for
a perfect judge), ``K`` found, the entropy found and its error.  Cell ``i``
uses child ``i`` of ``numpy.random.SeedSequence(seed)``.  Writes
``data/sampled_designs.csv.gz``; run ``python -m semvar.experiments.sampled_designs``
(about 3 minutes on two cores; ``--quick`` for a smoke run).

Real samples (``--real``, :func:`real_study`): the 500 TriviaQA questions of
the regime chapter (LLaMA-13B's 20 sampled answers a question, the fixed
verdicts of the MiniLM cosine judges at 0.8 and 0.9 and of the ROUGE-L judge;
:func:`semvar.experiments.pair_designs.real_verdicts`).  There is no true
partition: the reference is every pair with ``k="auto"``.  As the judge
command does, identical answers are judged once; ``sample`` draws each pair of
distinct answers with probability ``s`` in :data:`REAL_SHARES` (three draws a
question, judge and share) and ``reps`` runs ``R`` in :data:`EXTRAS`.  The
unresolved share counts distinct answers (what ``--max-unresolved`` reads);
the entropy is over the resolved answers, copies included.  Writes
``data/sampled_designs_real.csv.gz`` (``question, judge, design, param, draw,
calls, share, unresolved, k_ref, k_hat, h_ref, h_hat, err``), about two minutes.
"""

from __future__ import annotations

import argparse
import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import cast

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from ..data import result_path
from ..entropy import empirical_entropy
from ..graph import adjacency_from_verdicts, block_labels, collapse_duplicates, design_representatives, random_pairs
from ..judges import SBMJudge
from ..pipeline import UnresolvedError, graph_entropy
from ._cells import run_cells
from .budget import FrozenJudge
from .pair_designs import _real_design, real_verdicts
from .select_k_small import JUDGES, PARTITIONS, cell_sizes

__all__ = ["RESULT_FILE", "NS", "SHARES", "EXTRAS", "REPS", "SWEEP_JUDGES", "SWEEP_PARTITIONS", "SEED", "COLUMNS",
           "MAX_UNRESOLVED", "cell_sizes_of", "sampled_design", "REAL_FILE", "REAL_JUDGES", "REAL_SHARES", "REAL_DRAWS", "predicted_unresolved", "run_cell",
           "run_study", "frontier", "real_study", "real_frontier", "main"]

RESULT_FILE = "sampled_designs.csv.gz"
NS = (50, 100, 300)
SHARES = (0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5)
EXTRAS = (0, 2)
REPS = 10
K_MAX = 10
SEED = 3131
#: the share of unresolved texts above which the judge command reports no entropy (its --max-unresolved default)
MAX_UNRESOLVED = 0.05
#: judge name -> (p, q): a perfect judge and Liu's Table 2 GPT-like one
SWEEP_JUDGES: dict[str, tuple[float, float]] = {"perfect": (1.0, 0.0), "gpt": JUDGES["gpt"]}
#: the real-sample study: its file, judges, shares and draws of a sampled design per question, judge and share
REAL_FILE = "sampled_designs_real.csv.gz"
REAL_JUDGES = ("minilm80", "minilm90", "rouge")
REAL_SHARES = (0.1, 0.2, 0.3, 0.5, 0.7)
REAL_DRAWS = 3
SWEEP_PARTITIONS = ("one", "uniform3", "skewed", "dominant", "uniform5")
COLUMNS = ["n", "judge", "p", "q", "partition", "k_true", "h_true", "rep", "design", "param", "calls", "share",
           "unresolved", "predicted", "k_hat", "h_hat", "err"]


def predicted_unresolved(sizes: ArrayLike, s: float) -> float:
    """The expected share of unresolved texts under a perfect judge: ``sum_k (n_k / n) (1 - s)^(n_k - 1)``."""
    w = np.asarray(sizes, dtype=float)
    return float((w / w.sum() * (1.0 - s) ** (w - 1.0)).sum())


def cell_sizes_of(n: int, partition: str) -> tuple[np.ndarray, np.ndarray]:
    """The meaning sizes of one of chapter 4's partitions at ``n`` texts, and each text's meaning."""
    sizes = cast(np.ndarray, cell_sizes(n, PARTITIONS[partition]))  # the study's cells have enough texts
    return sizes, block_labels(sizes)


def sampled_design(truth: np.ndarray, p: float, q: float, s: float,
                   rng: np.random.Generator) -> tuple[int, float, int, float]:
    """One sampled design on a simulated judge of ``truth``: calls, unresolved share, K and the entropy of the
    resolved texts (NaN and K = 0 when no text is resolved)."""
    n = truth.size
    pairs = random_pairs(n, s, random_state=rng)
    u = rng.random(pairs.shape[0])
    verdicts = np.where(truth[pairs[:, 0]] == truth[pairs[:, 1]], u < p, u < q)
    A, O = adjacency_from_verdicts(n, pairs, verdicts, return_mask=True)
    if pairs.shape[0] == 0:
        return 0, 1.0, 0, np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            h, sel = graph_entropy(A, "auto", k_max=min(K_MAX, n - 1), observed=O, max_unresolved=1.0,
                                   random_state=rng, return_k=True)
        except UnresolvedError:  # every text unresolved
            return pairs.shape[0], 1.0, 0, np.nan
    return pairs.shape[0], sel.n_unresolved / n, sel.k, h


def run_cell(n: int, judge: str, partition: str, reps: int, seed_seq: np.random.SeedSequence) -> list[tuple]:
    """Rows of one cell: ``reps`` graphs, every share of :data:`SHARES` and every ``R`` of :data:`EXTRAS`."""
    p, q = SWEEP_JUDGES[judge]
    sizes, truth = cell_sizes_of(n, partition)
    h_true = empirical_entropy(truth)
    texts = [f"text {i}" for i in range(n)]
    pairs_all = n * (n - 1) / 2
    rows = []
    for rep, rep_seq in enumerate(seed_seq.spawn(reps)):
        seqs = rep_seq.spawn(len(SHARES) + len(EXTRAS))
        for s, seq in zip(SHARES, seqs):
            calls, unres, k_hat, h = sampled_design(truth, p, q, s, np.random.default_rng(seq))
            pred = predicted_unresolved(sizes, s) if judge == "perfect" else np.nan
            rows.append((n, judge, p, q, partition, len(sizes), h_true, rep, "sample", s, calls, calls / pairs_all,
                         unres, pred, k_hat, h, abs(h - h_true)))
        for r, seq in zip(EXTRAS, seqs[len(SHARES):]):
            rng = np.random.default_rng(seq)
            d = design_representatives(SBMJudge(truth, p, q, random_state=rng), texts, extra=r, collapse=False,
                                       random_state=rng)
            labels = cast(np.ndarray, d.labels)  # an adaptive design labels every text
            h = empirical_entropy(labels)
            rows.append((n, judge, p, q, partition, len(sizes), h_true, rep, "reps", r, d.calls, d.calls / pairs_all,
                         float(np.mean(np.asarray(labels) < 0)), 0.0, int(np.max(labels)) + 1, h, abs(h - h_true)))
    return rows


def run_study(*, ns: Sequence[int] = NS, judges: Sequence[str] = tuple(SWEEP_JUDGES),
              partitions: Sequence[str] = SWEEP_PARTITIONS, reps: int = REPS, n_jobs: int = 1, seed: int = SEED,
              progress: bool = True) -> pd.DataFrame:
    """Every cell's rows (the finished cells are kept on Ctrl-C)."""
    grid = [(n, j, part) for n in NS for j in SWEEP_JUDGES for part in SWEEP_PARTITIONS]
    children = dict(zip(grid, np.random.SeedSequence(seed).spawn(len(grid))))  # seeds follow the full grid
    tasks = [(n, j, part, reps, children[(n, j, part)]) for n in ns for j in judges for part in partitions]
    rows = run_cells(tasks, run_cell, n_jobs=n_jobs, progress=progress, cost=lambda t: t[0])
    df = pd.DataFrame(rows, columns=COLUMNS)
    return df.sort_values(["n", "judge", "partition", "rep", "design", "param"], kind="stable").reset_index(drop=True)


def frontier(df: pd.DataFrame, by: Sequence[str] = ("n", "judge")) -> pd.DataFrame:
    """Per design and parameter: mean share of pairs, share of unresolved texts (and its prediction), how often
    the command would answer (unresolved share at most :data:`MAX_UNRESOLVED`), K right and the mean entropy error
    among the answered graphs."""
    d = df.assign(answered=df.unresolved <= MAX_UNRESOLVED, right=df.k_hat == df.k_true)
    g = d.groupby(list(by) + ["design", "param"], sort=True)
    answered = d[d.answered].groupby(list(by) + ["design", "param"], sort=True)
    return pd.DataFrame({"share": g.share.mean(), "unresolved": g.unresolved.mean(), "predicted": g.predicted.mean(),
                         "answered": g.answered.mean(), "k_right": answered.right.mean(), "error": answered.err.mean()})


def _real_sampled(V: np.ndarray, texts: list[str], s: float, rng: np.random.Generator):
    """One sampled design on one question's fixed verdicts, identical answers judged once, as the judge command
    does: calls, unresolved share of the distinct answers, K and the entropy of the resolved answers."""
    distinct, inverse, first = collapse_duplicates(texts, return_first=True)
    m = len(distinct)
    if m == 1:
        return 0, 0.0, 1, 0.0
    pairs = random_pairs(m, s, random_state=rng)
    if pairs.shape[0] == 0:
        return 0, 1.0, 0, np.nan
    A, O = adjacency_from_verdicts(m, pairs, V[first[pairs[:, 0]], first[pairs[:, 1]]], return_mask=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            _, lab, sel = graph_entropy(A, "auto", k_max=min(K_MAX, m - 1), observed=O, max_unresolved=1.0,
                                        random_state=rng, return_labels=True, return_k=True)
        except UnresolvedError:  # every text unresolved
            return pairs.shape[0], 1.0, 0, np.nan
    full = np.asarray(lab)[inverse]
    return pairs.shape[0], sel.n_unresolved / m, sel.k, empirical_entropy(full[full >= 0])


def real_study(*, judges: Sequence[str] = REAL_JUDGES, shares: Sequence[float] = REAL_SHARES,
               draws: int = REAL_DRAWS, extras: Sequence[int] = EXTRAS, seed: int = SEED, progress: bool = True,
               data_dir: str | os.PathLike | None = None, questions: int | None = None) -> pd.DataFrame:
    """``sample`` and ``reps`` designs on the regime chapter's real samples (see the module docstring).

    ``questions`` limits the study to the first questions (a smoke run).  With fewer ``shares``,
    ``draws`` or ``extras`` than the defaults, the designs run are a subset of the full study's,
    with other seeds.
    """
    frames = real_verdicts(judges, data_dir=data_dir, questions=questions, progress=progress)
    n_questions = next(frames)
    cells = len(shares) * draws + len(extras) + 1
    seqs = np.random.default_rng(seed).integers(0, 2**31, size=(n_questions, len(judges), cells))
    rows = []
    for q, texts, verdicts in frames:
        pairs_all = len(texts) * (len(texts) - 1) / 2
        for a, name in enumerate(judges):
            judge = FrozenJudge(verdicts[name])
            _, ref = _real_design("all_pairs", "auto", {}, judge, texts, seqs[q, a, 0])
            h_ref, k_ref = empirical_entropy(ref), int(np.unique(ref).size)
            cell = 1
            for s in shares:
                for draw in range(draws):
                    calls, unres, k_hat, h = _real_sampled(verdicts[name], texts, s,
                                                           np.random.default_rng(seqs[q, a, cell]))
                    cell += 1
                    rows.append((q, name, "sample", s, draw, calls, calls / pairs_all, unres, k_ref, k_hat, h_ref,
                                 h, abs(h - h_ref)))
            for r in extras:
                calls, lab = _real_design("representatives", "icl", {"extra": r}, judge, texts, seqs[q, a, cell])
                cell += 1
                h = empirical_entropy(lab)
                unres = float(np.mean(np.asarray(lab) < 0))  # the design labels every answer; counted, not assumed
                rows.append((q, name, "reps", r, 0, calls, calls / pairs_all, unres, k_ref, int(np.unique(lab).size),
                             h_ref, h, abs(h - h_ref)))
    return pd.DataFrame(rows, columns=["question", "judge", "design", "param", "draw", "calls", "share", "unresolved",
                                       "k_ref", "k_hat", "h_ref", "h_hat", "err"])


def real_frontier(df: pd.DataFrame, by: Sequence[str] = ("judge",)) -> pd.DataFrame:
    """:func:`frontier` for the real-sample study: K right means the reference's K (every pair, ``auto``)."""
    return frontier(df.assign(k_true=df.k_ref, predicted=np.nan), by=by)


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m semvar.experiments.sampled_designs",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--n-jobs", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--quick", action="store_true", help="two graphs a cell at 50 texts (a smoke run)")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--out", type=Path, default=None, help=f"output file (default: the project's data/{RESULT_FILE})")
    ap.add_argument("--real", action="store_true", help=f"the real-sample study only (writes data/{REAL_FILE})")
    args = ap.parse_args(argv)
    if args.real:
        out = args.out if args.out is not None else result_path(REAL_FILE)
        df = real_study(seed=args.seed, questions=20 if args.quick else None)
        df.to_csv(out, index=False, float_format="%.6g")
        print(f"wrote {len(df)} rows to {out}")
        with pd.option_context("display.width", 200, "display.max_rows", 300):
            print(real_frontier(df).round(3))
        return
    out = args.out if args.out is not None else result_path(RESULT_FILE)
    if args.quick:
        df = run_study(ns=(50,), reps=2, n_jobs=args.n_jobs, seed=args.seed)
    else:
        df = run_study(n_jobs=args.n_jobs, seed=args.seed)
    df.to_csv(out, index=False, float_format="%.6g")
    print(f"wrote {len(df)} rows to {out}")
    with pd.option_context("display.width", 200, "display.max_rows", 300):
        print(frontier(df).round(3))


if __name__ == "__main__":
    main()
