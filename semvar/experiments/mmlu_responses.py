"""Item-level MMLU correctness from answerers that run on a CPU (controls for chapter 12).

Chapter 12 analyses real models' answers (:func:`semvar.data.load_helm_mmlu`).
Beside them it uses simple answerers that need no GPU and no network as
controls: one that is independent by construction, and rules that know
nothing yet show subject structure:

``minilm_cosine``
    all-MiniLM-L6-v2 zero-shot: embed the question and each of the four
    options, answer with the option whose embedding has the largest cosine
    similarity with the question's.
``tfidf_cosine``
    the same rule with TF-IDF vectors (fitted, without labels, on the
    questions and options of the test split) instead of neural embeddings:
    a lexical-overlap answerer.
``longest_option``
    the test-wise heuristic "pick the longest answer" (character count).
``random_guess``
    a uniform random guess: the i.i.d. Bernoulli(1/4) control, with no
    subject structure by construction.

Ties (equal scores) are broken uniformly at random with a fixed seed.  The
result is a long table ``model, item_id, choice, correct`` written to
``data/mmlu_responses.csv.gz``, where ``item_id`` is the row index in the
test split as :func:`semvar.data.load_mmlu` returns it.

Run ``python -m semvar.experiments.mmlu_responses`` (several minutes on two cores:
about 70,000 distinct strings are embedded once each; finished chunks of
embeddings are cached in ``--cache`` so an interrupted run resumes).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..data import MMLU_RESPONSES_FILE, load_mmlu, result_path

__all__ = ["MODELS", "answer_by_similarity", "longest_option", "main", "run_sweep"]

MODELS = ("minilm_cosine", "tfidf_cosine", "longest_option", "random_guess")
SEED = 20260


def _argmax_random_ties(scores: np.ndarray, rng: np.random.Generator, atol: float = 1e-9) -> np.ndarray:
    """Row-wise argmax of ``scores`` (n, k), ties broken uniformly at random."""
    best = scores.max(axis=1, keepdims=True)
    tied = scores >= best - atol
    noise = rng.random(scores.shape)
    return np.argmax(np.where(tied, noise, -1.0), axis=1)


def answer_by_similarity(q: np.ndarray, options: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Index of the option whose vector is closest (cosine) to the question's.

    Parameters
    ----------
    q : ndarray (n, d)
        Question vectors.
    options : ndarray (n, k, d)
        Option vectors.
    rng : numpy Generator
        For breaking ties.

    Returns
    -------
    ndarray (n,) of int
    """
    qn = q / np.maximum(np.linalg.norm(q, axis=-1, keepdims=True), 1e-12)
    on = options / np.maximum(np.linalg.norm(options, axis=-1, keepdims=True), 1e-12)
    scores = np.einsum("nd,nkd->nk", qn, on)
    return _argmax_random_ties(np.round(scores, 6), rng)


def longest_option(choices: Sequence[Sequence[str]], rng: np.random.Generator) -> np.ndarray:
    """Index of the longest option (characters), ties broken at random."""
    lengths = np.array([[len(c) for c in row] for row in choices], dtype=float)
    return _argmax_random_ties(lengths, rng)


def _embed_cached(texts: list[str], cache: Path | None, chunk: int = 4096, progress: bool = True) -> np.ndarray:
    from ..similarity import embed

    parts = []
    n_chunks = (len(texts) + chunk - 1) // chunk
    for j in range(n_chunks):
        f = None if cache is None else cache / f"chunk_{j:04d}_{chunk}.npy"
        if f is not None and f.is_file():
            parts.append(np.load(f))
            continue
        if progress:
            print(f"embedding chunk {j + 1}/{n_chunks}", flush=True)
        e = embed(texts[j * chunk : (j + 1) * chunk], progress=progress).astype(np.float32)
        if f is not None:
            np.save(f, e)
        parts.append(e)
    return np.concatenate(parts, axis=0)


def run_sweep(mmlu: pd.DataFrame, *, models: Sequence[str] = MODELS, cache: Path | None = None,
              progress: bool = True) -> pd.DataFrame:
    """Answer every item of ``mmlu`` with each model; return the long table.

    Returns
    -------
    pandas.DataFrame
        Columns ``model``, ``item_id``, ``choice`` (0-3), ``correct`` (0/1).
    """
    unknown = sorted(set(models) - set(MODELS))
    if unknown:
        raise ValueError(f"models must be among {list(MODELS)}, got unknown {unknown}")
    n = len(mmlu)
    questions = mmlu["question"].astype(str).tolist()
    choices = [[str(c) for c in row] for row in mmlu["choices"]]
    k = len(choices[0])
    answer = mmlu["answer"].to_numpy()
    picks: dict[str, np.ndarray] = {}
    if "minilm_cosine" in models:
        distinct = sorted(set(questions) | {c for row in choices for c in row})
        index = {t: i for i, t in enumerate(distinct)}
        if cache is not None:
            cache.mkdir(parents=True, exist_ok=True)
        emb = _embed_cached(distinct, cache, progress=progress)
        q = emb[[index[t] for t in questions]]
        o = emb[[[index[c] for c in row] for row in choices]]
        picks["minilm_cosine"] = answer_by_similarity(q, o, np.random.default_rng(SEED))
    if "tfidf_cosine" in models:
        from sklearn.feature_extraction.text import TfidfVectorizer

        vec = TfidfVectorizer(sublinear_tf=True)
        vec.fit(questions + [c for row in choices for c in row])
        qv = vec.transform(questions)
        ov = vec.transform([c for row in choices for c in row])
        # rows are L2-normalised, so the dot product is the cosine
        scores = np.zeros((n, k))
        for j in range(k):
            scores[:, j] = np.asarray(qv.multiply(ov[np.arange(n) * k + j]).sum(axis=1)).ravel()
        picks["tfidf_cosine"] = _argmax_random_ties(np.round(scores, 9), np.random.default_rng(SEED + 1))
    if "longest_option" in models:
        picks["longest_option"] = longest_option(choices, np.random.default_rng(SEED + 2))
    if "random_guess" in models:
        picks["random_guess"] = np.random.default_rng(SEED + 3).integers(0, k, size=n)
    frames = [
        pd.DataFrame({"model": m, "item_id": np.arange(n), "choice": picks[m].astype(int), "correct": (picks[m] == answer).astype(int)})
        for m in models
    ]
    return pd.concat(frames, ignore_index=True)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m semvar.experiments.mmlu_responses", description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=None, help=f"output file (default: the project's data/{MMLU_RESPONSES_FILE})")
    p.add_argument("--cache", type=Path, default=Path("/tmp/semvar_mmlu_embeddings"))
    p.add_argument("--models", nargs="+", default=list(MODELS))
    p.add_argument("--data-dir", type=Path, default=None)
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    mmlu = load_mmlu("test", data_dir=args.data_dir)
    table = run_sweep(mmlu, models=args.models, cache=args.cache, progress=not args.no_progress)
    out = args.out if args.out is not None else result_path(MMLU_RESPONSES_FILE)
    out.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(out, index=False, compression={"method": "gzip", "mtime": 0})
    acc = table.groupby("model")["correct"].mean().round(4).to_dict()
    print(f"wrote {out} ({len(table)} rows); accuracy: {acc}")


if __name__ == "__main__":
    main()
