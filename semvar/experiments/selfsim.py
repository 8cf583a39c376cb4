"""Self-similarity against semantic spectral entropy on the hobby corpus (chapter 8).

Two studies, both with all-MiniLM-L6-v2 embeddings of the hobby corpus
(:mod:`semvar.corpus`), where the meaning of every text is known:

1. **Corpora of rising entropy.**  For a grid of meaning distributions
   (``K`` meanings, uniform, geometric or one-dominant proportions, several
   seeds) one corpus of ``n`` texts each: its true semantic entropy, the
   collision probability of its meanings, its self-similarity
   (:func:`semvar.similarity.self_similarity`) and its semantic spectral
   entropy (:func:`semvar.pipeline.semantic_spectral_entropy`) with the MiniLM
   judge (:class:`semvar.judges.EmbeddingJudge`) at several thresholds.
2. **Pairs.**  Every pair of distinct texts met in study 1, grouped by how
   many hobbies the two texts share (``m`` = a paraphrase, ``m - 1`` = one
   hobby changed, ...): cosine distributions, how often a one-hobby-changed
   pair beats a paraphrase, what each threshold does, and the pairs that
   break the ordering most.

Each distinct text is embedded once.  Regenerate the stored results with::

    python -m semvar.experiments.selfsim      # writes data/selfsim_corpora.csv, data/selfsim_pairs.json

(a few minutes on two busy cores: embedding dominates).
"""

from __future__ import annotations

import argparse
import json
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_int, check_option
from ..corpus import Corpus, make_corpus, parse_meaning
from ..data import result_path
from ..entropy import empirical_entropy
from ..evaluation import mann_whitney_auc
from ..pipeline import semantic_spectral_entropy
from ..similarity import self_similarity

if TYPE_CHECKING:  # pandas is imported where a table is made
    import pandas as pd

__all__ = [
    "SHAPES",
    "THRESHOLDS",
    "CORPORA_FILE",
    "PAIRS_FILE",
    "proportions_for",
    "corpus_grid",
    "collision_probability",
    "corpus_table",
    "pair_table",
    "pair_summary",
    "discordance",
    "run",
    "main",
]

SHAPES = ("uniform", "geometric", "dominant")
THRESHOLDS = (0.6, 0.7, 0.8, 0.9)
CORPORA_FILE = "selfsim_corpora.csv"
PAIRS_FILE = "selfsim_pairs.json"


def proportions_for(shape: str, k: int) -> np.ndarray:
    """Meaning proportions of a named ``shape`` with ``k`` meanings.

    ``uniform``: all ``1/k``; ``geometric``: proportional to ``0.8^j``;
    ``dominant``: one meaning holds 0.6 and the others share 0.4 equally.

    >>> proportions_for("dominant", 3).tolist()
    [0.6, 0.2, 0.2]
    """
    k = check_int(k, "k", low=1)
    check_option(shape, "shape", SHAPES)
    if k == 1:
        return np.ones(1)
    if shape == "uniform":
        return np.full(k, 1.0 / k)
    if shape == "geometric":
        w = 0.8 ** np.arange(k)
        return w / w.sum()
    return np.concatenate([[0.6], np.full(k - 1, 0.4 / (k - 1))])


def corpus_grid(ks: Sequence[int] = (1, 2, 3, 4, 6, 8, 10), shapes: Sequence[str] = SHAPES,
                seeds: Sequence[int] = (0, 1, 2)) -> list[dict]:
    """The list of corpus settings ``{"shape", "k", "seed"}`` (one ``k = 1`` row per seed)."""
    grid = []
    for k in ks:
        for shape in (shapes[:1] if k == 1 else shapes):
            for seed in seeds:
                grid.append({"shape": "single" if k == 1 else shape, "k": int(k), "seed": int(seed)})
    return grid


def collision_probability(labels: ArrayLike) -> float:
    """Chance that two distinct texts drawn without replacement share a meaning.

    :math:`C = \\sum_k n_k(n_k-1) / (n(n-1))`, the unbiased estimate of
    :math:`\\sum_k \\pi_k^2` (``-log C`` is the Renyi entropy of order 2).

    >>> collision_probability([0, 0, 1, 1])
    0.3333333333333333
    """
    lab = np.asarray(labels)
    n = lab.size
    if lab.ndim != 1 or n < 2:
        raise ValueError(f"labels must be 1-D with at least 2 entries, got shape {lab.shape}")
    _, counts = np.unique(lab, return_counts=True)
    return float((counts * (counts - 1)).sum() / (n * (n - 1)))


def study_corpora(grid: list[dict], n: int, m: int) -> Iterator[tuple[dict, Corpus]]:
    """The study's corpora, one per cell of ``grid``, each seeded from its cell.

    Parameters
    ----------
    grid : list of dict
        Cells with keys ``"k"``, ``"shape"`` and ``"seed"``.
    n : int
        Texts per corpus.
    m : int
        Phrasings per meaning (passed to :func:`semvar.corpus.make_corpus`).

    Yields
    ------
    (dict, Corpus)
        The cell and its corpus.
    """
    for g in grid:
        base = 1000 * g["k"] + 100 * SHAPES.index(g["shape"]) if g["shape"] in SHAPES else 1000
        corpus = make_corpus(n, proportions_for("uniform" if g["shape"] == "single" else g["shape"], g["k"]),
                             m=m, random_state=base + g["seed"])
        yield g, corpus


def corpus_table(judge: Any, *, grid: list[dict] | None = None, n: int = 40, m: int = 2,
                 thresholds: Sequence[float] = THRESHOLDS, progress: bool = False) -> tuple[pd.DataFrame, list]:
    """Study 1: one row per corpus (pandas DataFrame).

    Parameters
    ----------
    judge : semvar.judges.EmbeddingJudge
        Supplies (and caches) the embeddings; its :meth:`~semvar.judges.EmbeddingJudge.with_threshold`
        copies judge at each of ``thresholds``.
    grid : list of dict, optional
        Corpus settings (default :func:`corpus_grid`).
    n, m : int
        Texts per corpus and hobbies per text.
    thresholds : sequence of float
        Cosine thresholds of the judge for the spectral entropy.  The spectral
        method is given the true number of meanings ``k = K`` (choosing it from
        the graph is the subject of another chapter); self-similarity needs no ``K``.

    Returns
    -------
    table : DataFrame
        Columns ``shape, k, seed, n, distinct, entropy, collision,
        self_similarity, spectral_<t>`` (one per threshold).
    corpora : list
        The corpora (for the pair study).
    """
    import pandas as pd

    grid = corpus_grid() if grid is None else grid
    n = check_int(n, "n", low=2)
    corpora = list(study_corpora(grid, n, m))
    distinct = list(dict.fromkeys(t for _, c in corpora for t in c.texts))
    judge.embeddings(distinct)  # each distinct text embedded once, up front
    rows = []
    iterator = corpora
    if progress:
        from tqdm.auto import tqdm

        iterator = tqdm(corpora, desc="corpora")
    for g, c in iterator:
        U = judge.embeddings(c.texts)
        row = dict(shape=g["shape"], k=g["k"], seed=g["seed"], n=c.n, distinct=len(set(c.texts)),
                   entropy=empirical_entropy(c.labels), collision=collision_probability(c.labels),
                   self_similarity=self_similarity(U))
        for t in thresholds:
            with warnings.catch_warnings():
                # at high thresholds some texts have no TRUE verdict at all; the spectral
                # code warns and treats them as it documents (zero rows); expected here
                warnings.filterwarnings("ignore", message=r".*node\(s\) have no edges", category=RuntimeWarning)
                row[f"spectral_{t:g}"] = semantic_spectral_entropy(
                    c.texts, judge.with_threshold(t), g["k"], random_state=g["seed"])
        rows.append(row)
    return pd.DataFrame(rows), corpora


#: pairs whose cosines :func:`pair_table` computes at a time (two blocks of 2^15 x 384 floats: about 200 MB)
_PAIR_BLOCK = 2**15


def pair_table(texts: Sequence[str], embeddings: ArrayLike,
               m: int = 2) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every unordered pair of distinct ``texts``: indices, shared hobbies, cosine.

    Returns
    -------
    i, j : ndarray of int
    shared : ndarray of int
        Hobbies the two texts have in common (``m`` means the same meaning).
    cosine : ndarray of float
    """
    texts = list(texts)
    U = np.asarray(embeddings, dtype=float)
    if U.shape[0] != len(texts):
        raise ValueError(f"embeddings has {U.shape[0]} rows for {len(texts)} texts")
    U = U / np.linalg.norm(U, axis=1, keepdims=True)
    hobbies = sorted({h for t in texts for h in parse_meaning(t)})
    H = np.array([[h in parse_meaning(t) for h in hobbies] for t in texts], dtype=float)
    if not np.all(H.sum(axis=1) == m):
        raise ValueError(f"every text must assert exactly m={m} hobbies")
    i, j = np.triu_indices(len(texts), k=1)
    shared = np.rint((H @ H.T)[i, j]).astype(int)
    # row by row products in blocks of pairs: U[i] and U[j] for all pairs at once would hold two
    # (pairs x d) arrays, about 7 GB for the full corpus study
    cosine = np.empty(i.size)
    for s in range(0, i.size, _PAIR_BLOCK):
        b = slice(s, s + _PAIR_BLOCK)
        cosine[b] = np.einsum("ij,ij->i", U[i[b]], U[j[b]])
    return i, j, shared, cosine


def pair_summary(texts: Sequence[str], embeddings: ArrayLike, *, m: int = 2,
                 thresholds: ArrayLike | None = None) -> dict:
    """Study 2: cosine distributions by shared hobbies, separability, thresholds, breaking pairs."""
    texts = list(texts)
    i, j, shared, cos = pair_table(texts, embeddings, m)
    para, one, none_ = cos[shared == m], cos[shared == m - 1], cos[shared < m - 1]
    different = cos[shared < m]
    thresholds = np.round(np.arange(0.30, 1.0001, 0.01), 2) if thresholds is None else np.asarray(thresholds)
    tpr = np.array([(para >= t).mean() for t in thresholds])
    fpr = np.array([(different >= t).mean() for t in thresholds])
    fpr_one = np.array([(one >= t).mean() for t in thresholds])
    bal = 0.5 * (tpr + 1 - fpr)
    best = int(np.argmax(bal))
    bins = np.round(np.arange(0.0, 1.0001, 0.02), 2)
    hist = {name: np.histogram(x, bins=bins)[0].tolist() for name, x in
            (("paraphrase", para), ("one_changed", one), ("none_shared", none_))}

    # anchors: a text with a one-hobby-changed neighbour closer than one of its paraphrases
    n = len(texts)
    best_one = np.full(n, -np.inf)
    worst_para = np.full(n, np.inf)
    for first, _second in ((i, j), (j, i)):
        sel = shared == m - 1
        np.maximum.at(best_one, first[sel], cos[sel])
        sel = shared == m
        np.minimum.at(worst_para, first[sel], cos[sel])
    has_both = np.isfinite(best_one) & np.isfinite(worst_para)
    broken = has_both & (best_one > worst_para)
    # the most striking anchor: largest gap (one-changed neighbour minus weakest paraphrase)
    gap = np.where(has_both, best_one - worst_para, -np.inf)
    a = int(np.argmax(gap))
    sel_one = (shared == m - 1) & ((i == a) | (j == a))
    sel_para = (shared == m) & ((i == a) | (j == a))
    k_one = np.flatnonzero(sel_one)[np.argmax(cos[sel_one])]
    k_para = np.flatnonzero(sel_para)[np.argmin(cos[sel_para])]
    other = lambda k: int(j[k] if i[k] == a else i[k])  # noqa: E731
    k_hi = int(np.flatnonzero(shared < m)[np.argmax(different)])
    k_lo = int(np.flatnonzero(shared == m)[np.argmin(para)])
    q = [0.0, 0.05, 0.25, 0.5, 0.75, 0.95, 1.0]
    return {
        "texts": n,
        "pairs": {"paraphrase": int(para.size), "one_changed": int(one.size), "none_shared": int(none_.size)},
        "quantiles": {"q": q, **{name: np.quantile(x, q).round(4).tolist() for name, x in
                                 (("paraphrase", para), ("one_changed", one), ("none_shared", none_))}},
        "mean": {"paraphrase": round(float(para.mean()), 4), "one_changed": round(float(one.mean()), 4),
                 "none_shared": round(float(none_.mean()), 4), "different": round(float(different.mean()), 4)},
        "auc_paraphrase_vs_one_changed": round(mann_whitney_auc(para, one), 4),
        "auc_paraphrase_vs_different": round(mann_whitney_auc(para, different), 4),
        "p_one_changed_beats_paraphrase": round(1 - mann_whitney_auc(para, one), 4),
        "share_one_changed_above_median_paraphrase": round(float((one > np.median(para)).mean()), 4),
        "anchors_broken": round(float(broken.sum() / has_both.sum()), 4),
        "thresholds": {"t": thresholds.round(2).tolist(), "tpr": tpr.round(4).tolist(),
                       "fpr": fpr.round(4).tolist(), "fpr_one_changed": fpr_one.round(4).tolist(),
                       "balanced_accuracy": bal.round(4).tolist()},
        "best_threshold": float(thresholds[best]),
        "best_balanced_accuracy": round(float(bal[best]), 4),
        "histogram": {"bins": bins.tolist(), **hist},
        "examples": {
            "anchor": {"text": texts[a], "one_changed": texts[other(k_one)], "cos_one_changed": round(float(cos[k_one]), 4),
                       "paraphrase": texts[other(k_para)], "cos_paraphrase": round(float(cos[k_para]), 4)},
            "closest_different": {"a": texts[i[k_hi]], "b": texts[j[k_hi]], "shared": int(shared[k_hi]),
                                  "cosine": round(float(cos[k_hi]), 4)},
            "farthest_paraphrase": {"a": texts[i[k_lo]], "b": texts[j[k_lo]], "cosine": round(float(cos[k_lo]), 4)},
        },
    }


def discordance(entropy: ArrayLike, score: ArrayLike, *, min_gap: float = 0.5,
                higher_means_more_variable: bool = True) -> float:
    """Share of corpus pairs, among those whose true entropies differ by at least ``min_gap`` nats,
    that ``score`` orders the wrong way.

    >>> discordance([0.0, 1.0, 2.0], [0.9, 0.8, 0.85], higher_means_more_variable=False)
    0.3333333333333333
    """
    h = np.asarray(entropy, dtype=float)
    s = np.asarray(score, dtype=float)
    if h.shape != s.shape or h.ndim != 1:
        raise ValueError(f"entropy and score must be 1-D of equal length, got {h.shape} and {s.shape}")
    s = s if higher_means_more_variable else -s
    a, b = np.triu_indices(h.size, k=1)
    keep = np.abs(h[a] - h[b]) >= min_gap
    if not keep.any():
        raise ValueError(f"no pair of corpora differs in entropy by min_gap={min_gap}")
    wrong = np.sign(h[a] - h[b])[keep] * np.sign(s[a] - s[b])[keep] <= 0
    return float(wrong.mean())


def run(*, quick: bool = False, progress: bool = True, judge: Any = None) -> tuple[pd.DataFrame, dict]:
    """Both studies; ``quick`` uses one seed and fewer ``K`` (for tests and quick checks)."""
    from ..judges import EmbeddingJudge

    judge = EmbeddingJudge(0.8) if judge is None else judge
    grid = corpus_grid(ks=(1, 2, 4, 8), seeds=(0,)) if quick else corpus_grid()
    table, corpora = corpus_table(judge, grid=grid, progress=progress)
    distinct = list(dict.fromkeys(t for _, c in corpora for t in c.texts))
    pairs = pair_summary(distinct, judge.embeddings(distinct))
    return table, pairs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m semvar.experiments.selfsim", description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help="output folder (default: the project's data/)")
    parser.add_argument("--quick", action="store_true", help="a reduced grid")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    table, pairs = run(quick=args.quick, progress=not args.no_progress)
    out = Path(args.out) if args.out else result_path(CORPORA_FILE).parent
    out.mkdir(parents=True, exist_ok=True)
    table.round(6).to_csv(out / CORPORA_FILE, index=False)
    with open(out / PAIRS_FILE, "w", encoding="utf-8") as fh:
        json.dump(pairs, fh, indent=1)
        fh.write("\n")
    print(f"wrote {out / CORPORA_FILE} ({len(table)} corpora) and {out / PAIRS_FILE} ({pairs['texts']} texts)")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
