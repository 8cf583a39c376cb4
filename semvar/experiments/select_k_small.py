"""Choosing K where semantic entropy is used: 5 to 300 texts per prompt (chapter 4 data).

Semantic entropy is computed from a handful of answers per prompt (5-20 is
typical), with judges as good or as poor as the language models of Liu's
Table 2.  For every cell of

- ``n`` in 5, 10, 20, 50, 100, 300 texts;
- the judge: the six ``(p, q)`` of Table 2 (:data:`semvar.papers.PAPER_TABLE2`)
  and chapter 4's two block models (``p, q`` = 0.3, 0.15, the base of the
  :mod:`~semvar.experiments.select_k` sweep, and 0.5, 0.1, its worked example);
- the partition of the texts into meanings (:data:`PARTITIONS`): every
  answer the same (``K = 1``), three equal meanings, five equal meanings,
  skewed (0.5, 0.3, 0.2), a majority (0.75, 0.25) and one dominant answer
  with three rare ones (0.7, 0.1, 0.1, 0.1);

the script draws judged graphs (a stochastic block model with the judge's
``p`` within and ``q`` between meanings), lets every rule of
:mod:`semvar.select_k` choose ``K`` (``k_max = 10``, lowered to ``n - 1``)
and clusters the graph with that ``K`` (Algorithm 1; a text with no TRUE
verdict is a meaning of its own).  It records ``K_hat`` and the entropy
error ``|H_hat - H|``, ``H`` the entropy of the true partition.

Rules (``rules()``): every rule registered in :mod:`semvar.select_k`
(:data:`semvar.select_k.METHODS`, in its order), each followed by the study's
variants of it (:data:`VARIANTS`): ``icl_sbm`` (the ICL of the full block
model), ``eigengap_skip1``, ``eigengap_bulk`` (threshold at the noise bulk) and
``ncv_small`` (three splits and the one-standard-error rule).  A registered
rule runs with its defaults (and the cell's generator if it draws), except
``ncv`` (at most three folds, so that graphs of 5 texts have a training part;
Chen & Lei's one split, the first of ``ncv_small``'s three) and ``consensus``
(the median of the ``eigengap``, ``icl`` and ``ncv`` answers on the same
graph); a rule that refuses a graph (``ValueError``: ``ecv`` has no pair to
hold out on 3 or 4 texts) has no answer there.  A newly registered rule is
in the study with nothing to list (:data:`NOT_RUN` would name one that cannot
run, with the reason); ``tests/experiments/test_select_k_small.py`` fails,
naming :data:`REGENERATE`, until the stored file holds it.

Graphs per cell: :data:`REPS` (30 for ``n <= 20``, 20 for 50, 10 for 100, 4
for 300), 48 cells per ``n``: 5,952 graphs in all.  Writes ``data/select_k_small.csv`` with one row
per (cell, graph, rule): ``n, judge, p, q, partition, k_true, h_true, rep,
rule, k_hat, h_hat, err``.  Run ``python -m semvar.experiments.select_k_small``
(about ten minutes on two cores, 13 minutes measured on a shared machine; ``--n-jobs``, ``--scale`` to change the number
of graphs, ``--quick`` for a smoke run).
"""

from __future__ import annotations

import argparse
import copy
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import cast

import numpy as np
import pandas as pd

from ..corpus import realised_sizes
from ..data import result_path
from ..entropy import empirical_entropy
from ..graph import block_labels, sample_sbm
from ..papers import PAPER_TABLE2
from ..pipeline import graph_entropy
from ..select_k import RULES as REGISTERED
from ..select_k import KSelection, eigengap, icl, ncv
from ._cells import run_cells

__all__ = [
    "RESULT_FILE", "REGENERATE", "NS", "JUDGES", "PARTITIONS", "VARIANTS", "NOT_RUN", "STORED_ORDER",
    "BESIDE_THE_TABLES", "REPS", "K_MAX", "SEED", "rules", "row_order", "compared", "missing_rules",
    "cell_sizes", "cells", "run_cell", "run_study", "summarise", "main",
]

RESULT_FILE = "select_k_small.csv"
#: the command that regenerates the stored study (about ten minutes on two cores)
REGENERATE = "python -m semvar.experiments.select_k_small"
NS = (5, 10, 20, 50, 100, 300)
#: judge name -> (p, q): Liu's Table 2 and chapter 4's two block models
JUDGES: dict[str, tuple[float, float]] = {
    **{name.lower(): pq for name, pq in PAPER_TABLE2.items()},
    "ch4_base": (0.30, 0.15),
    "ch4_example": (0.50, 0.10),
}
#: partition name -> proportions of the meanings
PARTITIONS: dict[str, tuple[float, ...]] = {
    "one": (1.0,),
    "uniform3": (1.0, 1.0, 1.0),
    "uniform5": (1.0, 1.0, 1.0, 1.0, 1.0),
    "skewed": (0.5, 0.3, 0.2),
    "majority": (0.75, 0.25),
    "dominant": (0.7, 0.1, 0.1, 0.1),
}


def _small_ncv(A: np.ndarray, k_max: int) -> tuple[int, int]:
    """NCV's folds and ``k_max`` on a small graph: at most three folds, K below the training part's size."""
    n = A.shape[0]
    folds = min(3, n // 2)
    return folds, min(k_max, n - -(-n // folds))


def _ncv(A: np.ndarray, k_max: int, rng) -> KSelection:
    # Chen & Lei's one split is the first of ncv_small's three: run on a copy of the generator, it draws that same
    # split and leaves the generator to ncv_small (a change of the public rule reaches the study)
    folds, k = _small_ncv(A, k_max)
    return ncv(A, k, folds=folds, random_state=copy.deepcopy(rng))


def _ncv_small(A: np.ndarray, k_max: int, rng) -> KSelection:
    folds, k = _small_ncv(A, k_max)
    return ncv(A, k, folds=folds, repeats=3, se_rule=True, random_state=rng)


#: variant -> (the registered rule it varies, how the study runs it: ``run(A, k_max, rng)``)
VARIANTS: dict[str, tuple[str, Callable[[np.ndarray, int, np.random.Generator], KSelection]]] = {
    "icl_sbm": ("icl", lambda A, k_max, rng: icl(A, k_max, model="sbm")),
    "eigengap_skip1": ("eigengap", lambda A, k_max, rng: eigengap(A, k_max, skip_first=k_max >= 2)),
    "eigengap_bulk": ("eigengap", lambda A, k_max, rng: eigengap(A, k_max, threshold="bulk")),
    "ncv_small": ("ncv", _ncv_small),
}
#: registered rules the study runs other than with their defaults (see the module notes): how it runs them
_OWN_RUNS = {"ncv": _ncv}
#: registered rules the study cannot run, with the reason (none: every registered rule is in it)
NOT_RUN: dict[str, str] = {}
#: The order in which the rows of the stored study were computed.  Each graph's clusterings draw from one
#: generator in this order, so it is part of the stored result; a rule registered later is computed after
#: these (in registry order), which leaves every stored row as it was.
STORED_ORDER = ("auto", "icl", "bic", "icl_sbm", "eigengap", "eigengap_skip1", "eigengap_bulk",
                "bethe_hessian", "ncv", "ncv_small", "ecv", "consensus")
#: the study's rules that chapter 4's two wide tables of accuracy and error (and the record
#: ``select_k.accuracy_by_regime``) leave out, with the reason; every other rule, a newly registered
#: one included, is in them, and the tables that name the best rule range over every rule
BESIDE_THE_TABLES: dict[str, str] = {
    "bic": "the ICL's large-sample approximation: the tables show the exact ICL",
    "icl_sbm": "a variant of the ICL that the chapter's text discusses but does not rank",
    "eigengap_skip1": "a variant of the eigengap shown in the worked example only",
    "eigengap_bulk": "a variant of the eigengap that the chapter's text discusses but does not rank",
}


def rules() -> tuple[str, ...]:
    """The study's rules: every registered rule (registry order, :data:`NOT_RUN` apart), each followed by its variants.

    >>> rules()[:3]
    ('auto', 'icl', 'icl_sbm')
    """
    return tuple(r for name in REGISTERED if name not in NOT_RUN
                 for r in (name, *(v for v, (base, _) in VARIANTS.items() if base == name)))


def row_order() -> tuple[str, ...]:
    """The order in which a graph's rules are computed (and its rows written): :data:`STORED_ORDER`, then the rest."""
    study = rules()
    return tuple(r for r in STORED_ORDER if r in study) + tuple(r for r in study if r not in STORED_ORDER)


def compared() -> tuple[str, ...]:
    """The rules of chapter 4's comparison tables: :func:`rules` but those :data:`BESIDE_THE_TABLES`.

    >>> compared()[:4]
    ('auto', 'icl', 'eigengap', 'ncv')
    """
    return tuple(r for r in rules() if r not in BESIDE_THE_TABLES)


def missing_rules(df: pd.DataFrame) -> list[str]:
    """The study's rules (:func:`rules`) with no answer at all in ``df`` (a table of :data:`COLUMNS`)."""
    if not isinstance(df, pd.DataFrame) or not {"rule", "k_hat"} <= set(df.columns):
        raise ValueError("df must be a table of the study, with columns 'rule' and 'k_hat'")
    answered = set(df.loc[df["k_hat"].notna(), "rule"])
    return [r for r in rules() if r not in answered]


#: graphs per cell, by n
REPS = {5: 30, 10: 30, 20: 30, 50: 20, 100: 10, 300: 4}
K_MAX = 10
SEED = 1414


def cell_sizes(n: int, proportions: Sequence[float]) -> np.ndarray | None:
    """Meaning sizes of ``n`` texts in ``proportions`` (largest remainders, each meaning at least one text).

    None when there are fewer texts than meanings.

    >>> cell_sizes(20, (0.7, 0.1, 0.1, 0.1)).tolist()
    [14, 2, 2, 2]
    >>> cell_sizes(5, (0.7, 0.1, 0.1, 0.1)).tolist()
    [2, 1, 1, 1]
    """
    K = len(proportions)
    if n < K:
        return None
    try:
        return realised_sizes(n, proportions)
    except ValueError:  # a rare meaning would get no text: give each one text, the rest by largest remainders
        w = np.asarray(proportions, dtype=float) / sum(proportions)
        exact = (n - K) * w
        rest = np.floor(exact).astype(np.int64)
        order = np.lexsort((np.arange(K), -(exact - rest)))
        rest[order[: n - K - int(rest.sum())]] += 1
        return rest + 1


def cells(ns: Sequence[int] = NS, judges: Sequence[str] | None = None,
          partitions: Sequence[str] | None = None) -> list[tuple[int, str, str]]:
    """The list of ``(n, judge, partition)`` cells (cells with fewer texts than meanings left out)."""
    judges = list(JUDGES) if judges is None else list(judges)
    partitions = list(PARTITIONS) if partitions is None else list(partitions)
    return [(n, j, part) for n in ns for j in judges for part in partitions
            if cell_sizes(n, PARTITIONS[part]) is not None]


def _selections(A: np.ndarray, k_max: int, rng) -> dict[str, int | None]:
    """Every rule's ``K`` on one graph, in :func:`row_order` (None where the rule refuses the graph)."""
    out: dict[str, int | None] = {}
    for name in row_order():
        if name in VARIANTS or name in _OWN_RUNS:
            run = VARIANTS[name][1] if name in VARIANTS else _OWN_RUNS[name]
            out[name] = run(A, k_max, rng).k
        elif name == "consensus":  # the median of its rules' answers on this graph, not a second run of them
            votes = sorted(cast(int, out[r]) for r in REGISTERED[name].asks)
            out[name] = votes[(len(votes) - 1) // 2]
        else:
            rule = REGISTERED[name]
            try:
                out[name] = rule.function(A, k_max, **({"random_state": rng} if rule.random_state else {})).k
            except ValueError:  # e.g. ecv on 3 or 4 texts: too few pairs to hold any out
                out[name] = None
    return out


def _entropy_with_k(A: np.ndarray, k: int, n_single: int, rng, cache: dict) -> float:
    """Entropy of Algorithm 1's clusters when ``k`` meanings are chosen and ``n_single`` texts are isolated."""
    if k not in cache:
        keep = A.sum(1) > 0
        labels = np.empty(A.shape[0], dtype=np.int64)
        kc = k - n_single
        labels[~keep] = kc + np.arange(n_single)
        if keep.any():
            core = A[np.ix_(keep, keep)]
            labels[keep] = 0 if kc <= 1 else graph_entropy(core, kc, random_state=rng, return_labels=True)[1]
        cache[k] = empirical_entropy(labels)
    return cache[k]


def run_cell(n: int, judge: str, partition: str, reps: int, seed_seq: np.random.SeedSequence) -> list[tuple]:
    """Rows of one cell: ``reps`` graphs, every rule."""
    p, q = JUDGES[judge]
    sizes = cast(np.ndarray, cell_sizes(n, PARTITIONS[partition]))  # the grid's cells have enough texts
    truth = block_labels(sizes)
    h_true = empirical_entropy(truth)
    rng = np.random.default_rng(seed_seq)
    k_max = min(K_MAX, n - 1)
    rows = []
    for rep in range(reps):
        A = sample_sbm(sizes, p, q, random_state=rng).toarray()
        answers = _selections(A, k_max, rng)
        n_single = int(np.count_nonzero(A.sum(1) == 0))
        cache: dict = {}
        for rule, k_hat in answers.items():
            if k_hat is None:
                rows.append((n, judge, p, q, partition, len(sizes), h_true, rep, rule, np.nan, np.nan, np.nan))
                continue
            h_hat = _entropy_with_k(A, k_hat, n_single, rng, cache)
            rows.append((n, judge, p, q, partition, len(sizes), h_true, rep, rule, k_hat, h_hat, abs(h_hat - h_true)))
    return rows


COLUMNS = ["n", "judge", "p", "q", "partition", "k_true", "h_true", "rep", "rule", "k_hat", "h_hat", "err"]


def run_study(*, ns: Sequence[int] = NS, judges: Sequence[str] | None = None, partitions: Sequence[str] | None = None,
              reps: Mapping[int, int] | None = None, scale: float = 1.0, n_jobs: int = 2, seed: int = SEED,
              progress: bool = True) -> pd.DataFrame:
    """Run every cell and return the long table (rows of finished cells are kept on Ctrl-C).

    ``judges`` and ``partitions`` (names, default all) restrict the grid;
    ``reps`` maps ``n`` to graphs per cell (default :data:`REPS`), multiplied
    by ``scale`` (at least one graph).  Cell ``i`` of :func:`cells` uses child
    ``i`` of ``numpy.random.SeedSequence(seed)``, so the result does not depend
    on ``n_jobs``.
    """
    reps = dict(REPS if reps is None else reps)
    grid = cells(ns, judges, partitions)
    children = np.random.SeedSequence(seed).spawn(len(grid))
    tasks = [(n, j, part, max(1, int(round(reps[n] * scale))), child) for (n, j, part), child in zip(grid, children)]
    # the slow cells (large n) first, so the workers finish together
    rows = run_cells(tasks, run_cell, n_jobs=n_jobs, progress=progress, cost=lambda t: t[0] ** 2 * t[3])
    return pd.DataFrame(rows, columns=COLUMNS)


def summarise(df: pd.DataFrame, by: Sequence[str] = ("n",)) -> pd.DataFrame:
    """K accuracy and mean entropy error of each rule, grouped by ``by`` (columns: ``(measure, rule)``)."""
    d = df.dropna(subset=["k_hat"]).assign(correct=lambda x: x.k_hat == x.k_true)
    g = d.groupby(list(by) + ["rule"])
    out = pd.DataFrame({"accuracy": g.correct.mean(), "error": g.err.mean()}).unstack("rule")
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m semvar.experiments.select_k_small", description=__doc__.splitlines()[0])
    ap.add_argument("--n-jobs", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply the graphs per cell (default 1)")
    ap.add_argument("--quick", action="store_true", help="one graph per cell, n <= 20 (a smoke run)")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--out", type=Path, default=None, help=f"output file (default: the project's data/{RESULT_FILE})")
    args = ap.parse_args(argv)
    out = args.out if args.out is not None else result_path(RESULT_FILE)
    if args.quick:
        df = run_study(ns=(5, 10, 20), reps={5: 1, 10: 1, 20: 1}, n_jobs=args.n_jobs, seed=args.seed)
    else:
        df = run_study(scale=args.scale, n_jobs=args.n_jobs, seed=args.seed)
    df.to_csv(out, index=False, float_format="%.6g")
    print(f"wrote {len(df)} rows to {out}")
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        print(summarise(df).round(3))


if __name__ == "__main__":
    main()
