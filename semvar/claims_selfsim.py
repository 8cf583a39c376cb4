"""Claims of chapter 6 (LLM self-similarity, seed 002): registered with :func:`semvar.claims.claim`.

The printed example and the worked example are recomputed here.  The claims
about what the score measures are judged on the hobby-corpus study written by
``python -m semvar.sweep_selfsim`` (``data/selfsim_corpora.csv`` and
``data/selfsim_pairs.json``); the decision rule of each is stated in its note
and was fixed before the full study was run.
"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import numpy as np

from .claims import Outcome, claim

_DATA = Path(__file__).resolve().parent.parent / "data"
NOTEBOOK = "06_self_similarity"

#: the tutorial's example responses (two per prompt)
SEED_RESPONSES = {
    "Tell me about Shakespeare's plays.": [
        "Shakespeare's plays include 'Hamlet,' 'Macbeth,' and 'Othello.'",
        "Shakespeare wrote many famous plays such as 'Hamlet' and 'Macbeth.'",
    ],
    "What is the capital of France?": ["The capital of France is Paris.", "Paris is the capital of France."],
    "How does a computer work?": [
        "A computer processes data using a CPU and memory.",
        "Computers operate by processing data with a central processing unit.",
    ],
}


def seed_example_values(model=None) -> list[float]:
    """Self-similarity of the tutorial's three prompts (all-MiniLM-L6-v2 by default)."""
    from .similarity import embed, self_similarity

    texts = [t for rs in SEED_RESPONSES.values() for t in rs]
    E = embed(texts, model, progress=False)
    out, start = [], 0
    for rs in SEED_RESPONSES.values():
        out.append(self_similarity(E[start : start + len(rs)]))
        start += len(rs)
    return out


def _load_study():
    import pandas as pd

    table = pd.read_csv(_DATA / "selfsim_corpora.csv")
    with open(_DATA / "selfsim_pairs.json", encoding="utf-8") as fh:
        pairs = json.load(fh)
    return table, pairs


@claim(
    "selfsim.examples",
    source="seed 002, Implementation (expected output)",
    statement="all-MiniLM-L6-v2 self-similarity of the example responses: 0.8107 (Shakespeare prompt), 0.9894 (Paris prompt)",
    paper_value=[0.8107, 0.9894],
    tolerance="equal to 4 decimals",
    notebook=NOTEBOOK,
)
def _examples(quick: bool) -> Outcome:
    v = seed_example_values()
    ours = [round(x, 4) for x in v]
    ok = ours[:2] == [0.8107, 0.9894]
    return Outcome(ours, "replicated" if ok else "not_replicated",
                   f"both printed values reproduced to 4 decimals; the third prompt (not printed in the source) gives {ours[2]:.4f}"
                   if ok else f"ours {ours[:2]} differ from the printed values")


@claim(
    "selfsim.worked_example",
    source="seed 002, Understanding the Formula (worked example)",
    statement="for the 3x3 cosine matrix [[1,.8,.7],[.8,1,.6],[.7,.6,1]] the average self-similarity is (7.2-3)/6 = 0.7",
    paper_value=0.7,
    tolerance=1e-12,
    notebook=NOTEBOOK,
)
def _worked(quick: bool) -> Outcome:
    from .similarity import self_similarity

    S = np.array([[1.0, 0.8, 0.7], [0.8, 1.0, 0.6], [0.7, 0.6, 1.0]])
    v = self_similarity(np.linalg.cholesky(S))  # unit rows whose cosines are S
    out = Outcome(round(v, 12), "replicated" if abs(v - 0.7) <= 1e-12 else "not_replicated",
                  "value right; the text's reason is not: 6 counts ordered pairs, and the sum 4.2 counts each "
                  "unordered pair twice, so nothing is divided by 2 (see errata)")
    return out


@claim(
    "selfsim.scalability",
    source="seed 002, Advantages (Scalability)",
    statement="self-similarity can be computed efficiently, suitable for large-scale evaluations",
    paper_value="efficient at scale",
    tolerance="peak extra memory < 1% of an n x n float64 matrix",
    notebook=NOTEBOOK,
)
def _scalability(quick: bool) -> Outcome:
    from .similarity import self_similarity

    n, d = (50_000, 384) if quick else (200_000, 384)
    X = np.random.default_rng(0).standard_normal((n, d), dtype=np.float32) + 0.2
    tracemalloc.start()
    try:
        self_similarity(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    share = peak / (8.0 * n * n)
    return Outcome({"n": n, "d": d, "peak_share_of_nxn": float(f"{share:.2g}")},
                   "replicated" if share < 0.01 else "not_replicated",
                   "true of the score via the O(n d) identity (||sum u_i||^2 - n)/(n(n-1)); the tutorial's own "
                   "code builds the n x n cosine matrix (O(n^2) memory); embedding, not the score, dominates the cost")


@claim(
    "selfsim.consistency",
    source="seed 002, Expected Output and Summary",
    statement="higher self-similarity indicates more consistent (less semantically variable) responses",
    paper_value="higher score = more consistent",
    tolerance="replicated if <= 5% of corpus pairs whose true semantic entropies differ by >= 0.5 nats are "
              "ordered wrongly; partly if <= 25%; else not_replicated",
    notebook=NOTEBOOK,
)
def _consistency(quick: bool) -> Outcome:
    from scipy.stats import spearmanr

    from .sweep_selfsim import discordance

    t, _ = _load_study()
    d_ss = discordance(t["entropy"], t["self_similarity"], higher_means_more_variable=False)
    d_sp = discordance(t["entropy"], t["spectral_0.8"])
    rho = spearmanr(t["self_similarity"], t["entropy"]).statistic
    status = "replicated" if d_ss <= 0.05 else ("partly" if d_ss <= 0.25 else "not_replicated")
    ours = {"wrong_order_share": round(d_ss, 3), "spearman_with_entropy": round(float(rho), 3),
            "spectral_0.8_wrong_order_share": round(d_sp, 3), "corpora": int(len(t))}
    return Outcome(ours, status,
                   f"hobby corpora ({len(t)}, true entropy known): self-similarity orders {d_ss:.0%} of clearly "
                   f"different pairs wrongly (spectral entropy, same MiniLM cosines as judge at 0.8, K known: {d_sp:.0%})")


@claim(
    "selfsim.paraphrase",
    source="seed 002, Advantages (Robustness to Paraphrasing)",
    statement="self-similarity is robust to paraphrasing: lexically diverse but semantically equivalent responses score as similar",
    paper_value="paraphrases score above non-equivalent responses",
    tolerance="replicated if a one-hobby-changed pair beats a paraphrase pair with probability <= 5%; "
              "partly if <= 15%; else not_replicated",
    notebook=NOTEBOOK,
)
def _paraphrase(quick: bool) -> Outcome:
    _, p = _load_study()
    beat = p["p_one_changed_beats_paraphrase"]
    status = "replicated" if beat <= 0.05 else ("partly" if beat <= 0.15 else "not_replicated")
    ex = p["examples"]["anchor"]
    return Outcome({"p_one_changed_beats_paraphrase": beat, "anchors_broken": p["anchors_broken"]}, status,
                   f"MiniLM cosine: a sentence with one hobby changed beats a true paraphrase in {beat:.0%} of pair "
                   f"comparisons (e.g. {ex['cos_one_changed']:.2f} vs {ex['cos_paraphrase']:.2f})")


@claim(
    "selfsim.threshold",
    source="seed 002, Disadvantages (Threshold Determination)",
    statement="choosing a similarity threshold is hard: too low gives false positives, too high misses",
    paper_value="no clean threshold",
    tolerance="replicated if no cosine threshold tells paraphrases from different meanings with balanced accuracy >= 0.95",
    notebook=NOTEBOOK,
)
def _threshold(quick: bool) -> Outcome:
    _, p = _load_study()
    bal, t = p["best_balanced_accuracy"], p["best_threshold"]
    return Outcome({"best_threshold": t, "best_balanced_accuracy": bal},
                   "replicated" if bal < 0.95 else "not_replicated",
                   f"the caveat holds and is stronger: the best threshold ({t:.2f}) reaches balanced accuracy "
                   f"{bal:.2f} on hobby-text pairs; the cosine ranges of paraphrases and non-paraphrases overlap")
