"""Sweep: K accuracy and entropy error of every pair design against its judge calls, at small n.

Where semantic entropy is used a prompt has 10 to 50 answers, and each judge
call is a request to a language model.  For the cells of the small-sample
study of chapter 4 (:mod:`semvar.experiments.select_k_small`: its judges
:data:`~semvar.experiments.select_k_small.JUDGES` and partitions
:data:`~semvar.experiments.select_k_small.PARTITIONS`) at ``n`` in
:data:`NS`, the script runs every design of :data:`DESIGNS` on a simulated
judge (:class:`semvar.judges.SBMJudge`: a TRUE verdict with probability ``p``
within a meaning and ``q`` across, a fresh coin for every call) and records
the calls, the share of the ``n(n-1)/2`` pairs, the number of meanings found
and the entropy error ``|H_hat - H|``.

Designs (name, estimator):

- ``all_pairs``, ``auto``: every pair, K by :func:`semvar.select_k.auto` and
  Algorithm 1's clusters (the package default, as in chapter 4);
- ``all_pairs``, ``icl``: every pair, the partition of ``auto`` refined by
  :func:`semvar.graph.refine_partition` (what the estimator alone is worth);
- ``random``, ``icl``: each pair with probability ``s`` in :data:`SHARES`,
  the partition by :func:`~semvar.graph.refine_partition` from the connected
  components of the TRUE verdicts;
- ``greedy``, ``greedy``: :func:`semvar.graph.design_greedy` (Kuhn et al.
  2023), its clusters;
- ``representatives``, ``icl``: :func:`semvar.graph.design_representatives`
  with ``extra = r`` in :data:`EXTRAS` random extra pairs per text,
  representative ``first`` (and ``random`` for r = 2), refined; and
  ``r = 0`` without refinement (greedy, largest cluster first).

Graphs per cell: :data:`REPS`.  Cell ``i`` uses child ``i`` of
``numpy.random.SeedSequence(seed)``, each graph and design its own child of
that, so the file depends neither on the number of workers nor on the order
the cells finish.  Writes ``data/pair_designs.csv.gz`` (one row per cell, graph
and design: ``n, judge, p, q, partition, k_true, h_true, rep, design,
estimator, extra, representative, s, calls, share, k_hat, h_hat, err``).
Run ``python -m semvar.experiments.pair_designs`` (about 12 minutes on two
busy cores; ``--resume`` keeps the cells already in the file, ``--quick`` for a
smoke run).

Real samples (``--real``, :func:`real_study`): the 500 TriviaQA questions of
the regime chapter (:mod:`semvar.experiments.regime`: LLaMA-13B's 20 sampled
answers per question, the MiniLM cosine judges at 0.8 and 0.9 and the
ROUGE-L judge, whose verdicts are fixed, so asking a pair twice gives the same
answer).  There is no true partition, so the reference is every pair with
``k="auto"`` (the package default): each design's entropy error is
``|H_design - H_all_pairs|`` and its K accuracy the share of questions where it
finds the same number of meanings.  Exact duplicates are judged once (the
share counts the calls against the 190 pairs of 20 answers).  Writes
``data/pair_designs_real.csv.gz`` (``question, judge, design, estimator, extra,
calls, share, k_ref, k_hat, h_ref, h_hat, err``), about a minute.
"""

from __future__ import annotations

import argparse
import os
import warnings
from collections.abc import Collection, Iterator, Mapping, Sequence
from pathlib import Path
from typing import cast

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from ..data import load_uq_nlg, result_path
from ..entropy import empirical_entropy
from ..graph import (
    block_labels,
    design_all_pairs,
    design_greedy,
    design_random,
    design_representatives,
    refine_partition,
)
from ..judges import SBMJudge
from ..pipeline import graph_entropy
from ._cells import run_cells
from .budget import FrozenJudge
from .regime import COSINES_FILE, judge_matrices
from .select_k_small import JUDGES, PARTITIONS, cell_sizes

__all__ = ["RESULT_FILE", "REAL_FILE", "REAL_JUDGES", "REAL_DESIGNS", "real_verdicts", "real_study", "NS", "SWEEP_JUDGES", "REPS", "SHARES", "PER_TEXT", "DESIGNS", "SEED", "COLUMNS",
           "run_design", "run_cell", "run_study", "frontier", "main"]

RESULT_FILE = "pair_designs.csv.gz"
REAL_FILE = "pair_designs_real.csv.gz"
#: the regime chapter's judges the real-sample study uses
REAL_JUDGES = ("minilm80", "minilm90", "rouge")
#: (design, estimator, parameters) of the real-sample study (the reference, all pairs with auto, is run anyway)
REAL_DESIGNS: tuple[tuple[str, str, dict], ...] = (
    ("all_pairs", "icl", {}),
    *(("random", "icl", {"s": s}) for s in (1 / 3, 0.5)),
    ("greedy", "greedy", {}),
    *(("representatives", "icl", {"extra": r}) for r in (0, 1, 2, 3, 4)),
)
NS = (10, 20, 29, 50)
REPS = {10: 20, 20: 20, 29: 20, 50: 10}
SHARES = (1 / 3, 0.5)
PER_TEXT = (0, 1, 2, 3, 4, 6)
K_MAX = 10
SEED = 2727

#: the judges of the sweep (of :data:`~semvar.experiments.select_k_small.JUDGES`): Liu's Table 2 GPT-, Cohere-
#: and Ministral-like judges, as in the judge-budget sweep
SWEEP_JUDGES = ("gpt", "cohere", "ministral")
#: (design, estimator, parameters) of every run
DESIGNS: tuple[tuple[str, str, dict], ...] = (
    ("all_pairs", "auto", {}),
    ("all_pairs", "icl", {}),
    ("all_pairs", "known", {}),
    *(("random", est, {"s": s}) for s in SHARES for est in ("icl", "known")),
    ("greedy", "greedy", {}),
    ("representatives", "greedy", {"extra": 0, "refine": False}),
    *(("representatives", est, {"extra": r}) for r in PER_TEXT for est in ("icl", "known")),
    *(("representatives", "icl", {"extra": r, "extras": "random"}) for r in (1, 2, 4)),
    ("representatives", "icl", {"extra": 2, "representative": "random"}),
)

COLUMNS = ["n", "judge", "p", "q", "partition", "k_true", "h_true", "rep", "design", "estimator", "extra",
           "extras", "representative", "s", "calls", "share", "k_hat", "h_hat", "err"]


def _auto_labels(A, n: int, seed) -> np.ndarray:
    """Algorithm 1 with K by ``auto`` (a text with no TRUE verdict is a meaning of its own)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _, labels = graph_entropy(A, "auto", k_max=min(K_MAX, n - 1), random_state=seed, return_labels=True)
    return labels


def run_design(design: str, estimator: str, params: dict, labels: np.ndarray, p: float, q: float,
               seed_seq: np.random.SeedSequence) -> tuple[int, np.ndarray]:
    """Judge calls and estimated labels of one design on one simulated judge."""
    n = labels.shape[0]
    texts = [f"text {i}" for i in range(n)]
    rng = np.random.default_rng(seed_seq)
    judge = SBMJudge(labels, p, q, random_state=rng)
    rates = (p, q) if estimator == "known" else None
    if design == "all_pairs":
        r = design_all_pairs(judge, texts, collapse=False)
        est = _auto_labels(r.adjacency, n, rng)
        if estimator != "auto":
            verdicts = np.asarray(r.adjacency[r.pairs[:, 0], r.pairs[:, 1]]).ravel()
            est = refine_partition(n, r.pairs, verdicts, est, rates=rates)
        return r.calls, est
    if design == "random":
        r = design_random(judge, texts, params["s"], collapse=False, random_state=rng)
        verdicts = np.asarray(r.adjacency[r.pairs[:, 0], r.pairs[:, 1]]).ravel() if r.calls else np.zeros(0)
        return r.calls, refine_partition(n, r.pairs, verdicts, rates=rates)
    if design == "greedy":
        r = design_greedy(judge, texts, random_state=rng, collapse=False)
        return r.calls, cast(np.ndarray, r.labels)  # an adaptive design labels every text
    if design == "representatives":
        r = design_representatives(judge, texts, random_state=rng, collapse=False, rates=rates, **params)
        return r.calls, cast(np.ndarray, r.labels)  # an adaptive design labels every text
    raise ValueError(f"unknown design {design!r}")


def run_cell(n: int, judge: str, partition: str, reps: int, seed_seq: np.random.SeedSequence) -> list[tuple]:
    """Rows of one cell: ``reps`` graphs, every design of :data:`DESIGNS`."""
    p, q = JUDGES[judge]
    sizes = cast(np.ndarray, cell_sizes(n, PARTITIONS[partition]))  # the grid's cells have enough texts
    truth = block_labels(sizes)
    h_true = empirical_entropy(truth)
    rows = []
    for rep, rep_seq in enumerate(seed_seq.spawn(reps)):
        for (design, estimator, params), seq in zip(DESIGNS, rep_seq.spawn(len(DESIGNS))):
            calls, est = run_design(design, estimator, params, truth, p, q, seq)
            h_hat = empirical_entropy(est)
            rows.append((n, judge, p, q, partition, len(sizes), h_true, rep, design, estimator,
                         params.get("extra", np.nan),
                         params.get("extras", "uncertain" if design == "representatives" else ""),
                         params.get("representative", "first" if design == "representatives"
                                                                 else ""),
                         params.get("s", np.nan), calls, calls / (n * (n - 1) / 2), int(est.max()) + 1, h_hat,
                         abs(h_hat - h_true)))
    return rows


def _cells(ns, judges, partitions):
    return [(n, j, part) for n in ns for j in judges for part in partitions
            if cell_sizes(n, PARTITIONS[part]) is not None]


def run_study(*, ns: Sequence[int] = NS, judges: Sequence[str] | None = None,
              partitions: Sequence[str] | None = None, reps: Mapping[int, int] | None = None, n_jobs: int = 1,
              seed: int = SEED, skip: Collection[tuple] = (), progress: bool = True) -> pd.DataFrame:
    """Every cell's rows (the finished cells are kept on Ctrl-C); ``skip`` lists ``(n, judge, partition)`` to leave out."""
    judges = list(SWEEP_JUDGES) if judges is None else list(judges)
    partitions = list(PARTITIONS) if partitions is None else list(partitions)
    reps = dict(REPS if reps is None else reps)
    grid = _cells(NS, list(JUDGES), list(PARTITIONS))  # seeds follow the full grid, whatever is run
    children = dict(zip(grid, np.random.SeedSequence(seed).spawn(len(grid))))
    skip = set(skip)
    tasks = [(n, j, part, reps[n], children[(n, j, part)]) for (n, j, part) in _cells(ns, judges, partitions)
             if (n, j, part) not in skip]
    rows = run_cells(tasks, run_cell, n_jobs=n_jobs, progress=progress)
    df = pd.DataFrame(rows, columns=COLUMNS)
    return df.sort_values(["n", "judge", "partition", "rep"], kind="stable").reset_index(drop=True)


def frontier(df: pd.DataFrame, by: Sequence[str] = ("n",)) -> pd.DataFrame:
    """Mean share of pairs asked, K accuracy and mean entropy error of each design, grouped by ``by``."""
    d = df.assign(correct=lambda x: x.k_hat == x.k_true,
                  variant=lambda x: x.design + "/" + x.estimator + x.extra.map(lambda r: "" if np.isnan(r) else f"/r={r:g}")
                  + x.s.map(lambda s: "" if np.isnan(s) else f"/s={s:.2f}")
                  + x.extras.fillna("").map(lambda v: "/random extras" if v == "random" else "")
                  + x.representative.fillna("").map(lambda v: "/random rep" if v == "random" else ""))
    g = d.groupby(list(by) + ["variant"], sort=True)
    return pd.DataFrame({"calls": g.calls.mean(), "share": g.share.mean(), "k_accuracy": g.correct.mean(),
                         "error": g.err.mean()})


def _real_design(design, estimator, params, judge, texts, seed):
    rng = np.random.default_rng(seed)
    if design == "all_pairs":
        r = design_all_pairs(judge, texts)
    elif design == "random":
        r = design_random(judge, texts, params["s"], random_state=rng)
    elif design == "greedy":
        r = design_greedy(judge, texts, random_state=rng)
        return r.calls, r.labels
    else:
        r = design_representatives(judge, texts, random_state=rng, **params)
        return r.calls, r.labels
    m = r.n_unique
    if estimator == "auto":
        lab = np.zeros(m, dtype=np.int64) if m == 1 else _auto_labels(r.adjacency, m, rng)
    elif r.calls == 0:
        lab = np.arange(m)
    else:
        verdicts = np.asarray(r.adjacency[r.pairs[:, 0], r.pairs[:, 1]]).ravel()
        start = _auto_labels(r.adjacency, m, rng) if design == "all_pairs" and m > 1 else None
        lab = refine_partition(m, r.pairs, verdicts, start)
    return r.calls, r.expand(lab)


def real_verdicts(judges: Sequence[str], *, data_dir: str | os.PathLike | None = None, questions: int | None = None,
                  progress: bool = True) -> Iterator:
    """The regime chapter's real samples and fixed verdicts, one question at a time.

    A generator: first the number of questions, then ``(q, texts, {judge: V})`` for each question, ``V`` the
    boolean verdict matrix of that judge with a TRUE diagonal (:func:`semvar.experiments.regime.judge_matrices`
    on the stored MiniLM cosines).  ``questions`` limits it to the first questions (a smoke run).
    """
    frame = load_uq_nlg(data_dir, progress=progress)
    stored = np.load(result_path(COSINES_FILE))
    if not np.array_equal(stored["ids"].astype(str), frame["id"].to_numpy().astype(str)):
        raise ValueError(f"{COSINES_FILE} does not hold the questions of the data set in the same order")
    cos = stored["cosines_x10000"] / 10000.0
    if questions is not None:
        frame, cos = frame.iloc[:questions], cos[:questions]
    yield len(frame)
    for q, answers in enumerate(tqdm(frame["answers"], disable=not progress, desc="questions")):
        texts = list(answers)
        mats = judge_matrices(texts, cos[q])
        verdicts = {}
        for name in judges:
            V = mats[name][0].astype(bool)
            np.fill_diagonal(V, True)
            verdicts[name] = V
        yield q, texts, verdicts


def real_study(*, judges: Sequence[str] = REAL_JUDGES, seed: int = SEED, progress: bool = True,
               data_dir: str | os.PathLike | None = None,
               questions: int | None = None) -> pd.DataFrame:
    """Every design of :data:`REAL_DESIGNS` on the regime chapter's real samples (see the module docstring).

    ``questions`` limits the study to the first questions (a smoke run).
    """
    frames = real_verdicts(judges, data_dir=data_dir, questions=questions, progress=progress)
    n_questions = next(frames)
    seqs = np.random.default_rng(seed).integers(0, 2**31, size=(n_questions, len(judges), len(REAL_DESIGNS) + 1))
    rows = []
    for q, texts, verdicts in frames:
        n = len(texts)
        for a, name in enumerate(judges):
            judge = FrozenJudge(verdicts[name])
            calls, ref = _real_design("all_pairs", "auto", {}, judge, texts, seqs[q, a, 0])
            h_ref, k_ref = empirical_entropy(ref), int(np.unique(ref).size)
            rows.append((q, name, "all_pairs", "auto", np.nan, calls, calls / (n * (n - 1) / 2), k_ref, k_ref, h_ref,
                         h_ref, 0.0))
            for d, (design, estimator, params) in enumerate(REAL_DESIGNS):
                calls, lab = _real_design(design, estimator, params, judge, texts, seqs[q, a, d + 1])
                h = empirical_entropy(lab)
                rows.append((q, name, design, estimator, params.get("extra", params.get("s", np.nan)), calls,
                             calls / (n * (n - 1) / 2), k_ref, int(np.unique(lab).size), h_ref, h, abs(h - h_ref)))
    return pd.DataFrame(rows, columns=["question", "judge", "design", "estimator", "extra", "calls", "share", "k_ref",
                                       "k_hat", "h_ref", "h_hat", "err"])


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m semvar.experiments.pair_designs", description=__doc__.splitlines()[0])
    ap.add_argument("--n-jobs", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--quick", action="store_true", help="two graphs per cell, GPT-like judge only (a smoke run)")
    ap.add_argument("--resume", action="store_true", help="keep the cells already in the output file")
    ap.add_argument("--real", action="store_true", help=f"the real-sample study only (writes data/{REAL_FILE})")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--out", type=Path, default=None, help=f"output file (default: the project's data/{RESULT_FILE})")
    args = ap.parse_args(argv)
    if args.real:
        out = args.out if args.out is not None else result_path(REAL_FILE)
        df = real_study(seed=args.seed)
        df.to_csv(out, index=False, float_format="%.6g")
        print(f"wrote {len(df)} rows to {out}")
        g = df.assign(same_k=df.k_hat == df.k_ref).groupby(["judge", "design", "estimator", "extra"], dropna=False)
        with pd.option_context("display.width", 200, "display.max_rows", 200):
            print(pd.DataFrame({"share": g.share.mean(), "k_agreement": g.same_k.mean(), "error": g.err.mean()}).round(3))
        return
    out = args.out if args.out is not None else result_path(RESULT_FILE)
    old = pd.read_csv(out) if args.resume and Path(out).exists() else pd.DataFrame(columns=COLUMNS)
    skip = set(map(tuple, old[["n", "judge", "partition"]].drop_duplicates().itertuples(index=False)))
    if args.quick:
        df = run_study(judges=["gpt"], reps={n: 2 for n in NS}, n_jobs=args.n_jobs, seed=args.seed, skip=skip)
    else:
        df = run_study(n_jobs=args.n_jobs, seed=args.seed, skip=skip)
    df = pd.concat([old, df], ignore_index=True) if len(old) else df
    df = df.sort_values(["n", "judge", "partition", "rep"], kind="stable").reset_index(drop=True)
    df.to_csv(out, index=False, float_format="%.6g")
    print(f"wrote {len(df)} rows to {out}")
    with pd.option_context("display.width", 200, "display.max_rows", 200):
        print(frontier(df[df.judge == "gpt"]).round(3))


if __name__ == "__main__":
    main()
