"""Claims of chapter 8 (the LLM self-similarity tutorial): registered with :func:`semvar.claims.claim`.

The printed example and the worked example (:mod:`semvar.papers`) are
recomputed here.  The claims about what the score measures are judged on the
hobby-corpus study of :mod:`semvar.experiments.selfsim`, run at check time
(the reduced grid in quick mode, the grid of the stored
``data/selfsim_corpora.csv`` otherwise); the claims about correctness on
multiple-choice answers built from MMLU questions (read offline through
:func:`semvar.data.load_mmlu`); the claim about embedding quality on the same
hobby study with an untrained copy of the embedding network.  The decision
rule of each is stated in its tolerance and was fixed before the full study
was run.
"""

from __future__ import annotations

import tracemalloc
from typing import Any

import numpy as np

from ..experiments.selfsim import corpus_grid, corpus_table, discordance, pair_summary
from ..papers import SEED_PRINTED_SELF_SIMILARITY, SEED_RESPONSES, SEED_WORKED_COSINES, SEED_WORKED_SELF_SIMILARITY
from . import Outcome, claim, find_data, needs_data, shared
from ._outcome import decide

NOTEBOOK = "08_self_similarity"


def seed_example_values(model: Any = None) -> list[float]:
    """Self-similarity of the tutorial's three prompts (all-MiniLM-L6-v2 by default)."""
    from ..similarity import embed, self_similarity

    texts = [t for rs in SEED_RESPONSES.values() for t in rs]
    E = embed(texts, model, progress=False)
    out, start = [], 0
    for rs in SEED_RESPONSES.values():
        out.append(self_similarity(E[start : start + len(rs)]))
        start += len(rs)
    return out


def _grid(quick: bool):
    return corpus_grid(seeds=(0,)) if quick else corpus_grid()


def _repeats_only(quick: bool, entropy, draws: int = 20) -> list[float]:
    """Wrong-order shares of a score that sees only exact repeats of a text: self-similarity of one random unit
    vector per distinct text (``draws`` seeds), on the corpora of :func:`_grid`, in the order of ``entropy``."""
    from ..experiments.selfsim import study_corpora
    from ..similarity import self_similarity

    corpora = [c for _, c in study_corpora(_grid(quick), 40, 2)]
    distinct = list(dict.fromkeys(t for c in corpora for t in c.texts))
    row = {t: i for i, t in enumerate(distinct)}
    rows = [[row[t] for t in c.texts] for c in corpora]
    out = []
    for seed in range(draws):
        V = np.random.default_rng(seed).standard_normal((len(distinct), 384))
        out.append(discordance(entropy, [self_similarity(V[r]) for r in rows], higher_means_more_variable=False))
    return out


@shared
def _minilm_judge():
    from ..judges import EmbeddingJudge

    return EmbeddingJudge(0.8)


@shared
def _study(quick: bool, encoder: str = "minilm"):
    """The hobby-corpus study (table of corpora, pair summary), run now with the named encoder."""
    judge = _minilm_judge() if encoder == "minilm" else _untrained_judge()
    table, corpora = corpus_table(judge, grid=_grid(quick), thresholds=(0.8,) if encoder == "minilm" else ())
    distinct = list(dict.fromkeys(t for _, c in corpora for t in c.texts))
    return table, pair_summary(distinct, judge.embeddings(distinct))


def _untrained_judge():
    """A judge whose embeddings come from all-MiniLM-L6-v2's network with freshly drawn weights (seeded)."""
    import copy

    import torch

    from ..judges import EmbeddingJudge
    from ..similarity import load_model

    model = copy.deepcopy(load_model(None))
    gen = torch.Generator().manual_seed(6)
    with torch.no_grad():
        for mod in model[0].auto_model.modules():
            if isinstance(mod, (torch.nn.Linear, torch.nn.Embedding)):
                mod.weight.copy_(torch.randn(mod.weight.shape, generator=gen) * 0.02)
                if getattr(mod, "bias", None) is not None:
                    mod.bias.zero_()
            elif isinstance(mod, torch.nn.LayerNorm):
                mod.weight.fill_(1.0)
                mod.bias.zero_()

    def encode(texts):
        return np.asarray(model.encode(list(texts), batch_size=64, show_progress_bar=False, convert_to_numpy=True))

    return EmbeddingJudge(0.8, encode=encode)


# --------------------------------------------------------------------------- answers built from MMLU questions

#: sentence frames of the multiple-choice study: one "response" per frame
FRAMES = ("The answer is {}.", "I believe the correct answer is {}.", "It is {}.", "My answer: {}.")


@shared
def _answer_study(quick: bool):
    """Self-similarity of three response sets per MMLU question: the right option in every frame, one wrong
    option in every frame, and a different option in each frame.  None when MMLU is not available offline."""
    from ..data import load_mmlu
    from ..similarity import embed, self_similarity

    mmlu, why = find_data(lambda: load_mmlu("test", online=False))
    if mmlu is None:
        return None, why
    rng = np.random.default_rng(6)
    short = mmlu[[all(0 < len(str(c)) <= 60 for c in ch) and len(set(map(str, ch))) == len(ch) for ch in mmlu.choices]]
    rows = short.iloc[rng.choice(len(short), 40 if quick else 120, replace=False)]
    sets: dict[str, list[list[str]]] = {"right": [], "wrong": [], "mixed": []}
    for ch, a in zip(rows.choices, rows.answer):
        ch, a = [str(c) for c in ch], int(a)
        w = int(rng.choice([k for k in range(len(ch)) if k != a]))
        perm = rng.permutation(len(ch))
        sets["right"].append([f.format(ch[a]) for f in FRAMES])
        sets["wrong"].append([f.format(ch[w]) for f in FRAMES])
        sets["mixed"].append([f.format(ch[perm[i % len(ch)]]) for i, f in enumerate(FRAMES)])
    texts = [t for groups in sets.values() for g in groups for t in g]
    E = embed(texts, progress=False, unique=True)
    k, m, scores = 0, len(FRAMES), {}
    for name, groups in sets.items():
        scores[name] = np.array([self_similarity(E[k + m * i : k + m * i + m]) for i in range(len(groups))])
        k += m * len(groups)
    return scores, None


MMLU_NEEDED = "the MMLU test split offline (semvar.data.load_mmlu: <data dir>/mmlu/test.parquet)"


# --------------------------------------------------------------------------- the claims

@claim(
    "selfsim.examples",
    source="seed 002, Implementation (expected output)",
    statement="all-MiniLM-L6-v2 self-similarity of the example responses: 0.8107 (Shakespeare prompt), 0.9894 (Paris prompt)",
    paper_value=list(SEED_PRINTED_SELF_SIMILARITY),
    tolerance="equal to 4 decimals",
    notebook=NOTEBOOK,
)
def _examples(quick: bool) -> Outcome:
    v = seed_example_values()
    ours = [round(x, 4) for x in v]
    ok = ours[:2] == list(SEED_PRINTED_SELF_SIMILARITY)
    return decide(ours, ok,
                  f"both printed values reproduced to 4 decimals; the third prompt (not printed in the source) gives {ours[2]:.4f}"
                  if ok else f"ours {ours[:2]} differ from the printed values")


@claim(
    "selfsim.worked_example",
    source="seed 002, Understanding the Formula (worked example)",
    statement="for the 3x3 cosine matrix [[1,.8,.7],[.8,1,.6],[.7,.6,1]] the average self-similarity is (7.2-3)/6 = 0.7",
    paper_value=SEED_WORKED_SELF_SIMILARITY,
    tolerance=1e-12,
    notebook=NOTEBOOK,
)
def _worked(quick: bool) -> Outcome:
    from ..similarity import self_similarity

    S = np.array(SEED_WORKED_COSINES)
    v = self_similarity(np.linalg.cholesky(S))  # unit rows whose cosines are S
    return decide(round(v, 12), abs(v - SEED_WORKED_SELF_SIMILARITY) <= 1e-12,
                  "value right; the text's reason is not: 6 counts ordered pairs, and the sum 4.2 counts each "
                  "unordered pair twice, so nothing is divided by 2 (see errata)")


@claim(
    "selfsim.scalability",
    source="this book, chapter 8 (the tutorial's Advantages list 'Scalability'; its code builds the n x n matrix)",
    statement="The score needs no n x n matrix: through (||sum u_i||^2 - n)/(n(n-1)) it takes O(n d) time and O(d) "
    "extra memory, so 200,000 responses need less than 1% of the memory of their cosine matrix.",
    paper_value="efficient at scale (no measurement given)",
    tolerance="peak extra memory < 1% of an n x n float64 matrix",
    notebook=NOTEBOOK,
    kind="finding",
)
def _scalability(quick: bool) -> Outcome:
    from ..similarity import self_similarity

    n, d = (50_000, 384) if quick else (200_000, 384)
    X = np.random.default_rng(0).standard_normal((n, d), dtype=np.float32) + 0.2
    tracemalloc.start()
    try:
        self_similarity(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    share = peak / (8.0 * n * n)
    return decide({"n": n, "d": d, "peak_share_of_nxn": float(f"{share:.2g}")},
                  share < 0.01,
                  "the tutorial's own code builds the n x n cosine matrix (O(n^2) memory); embedding, not the score, "
                  "dominates the cost")


@claim(
    "selfsim.consistency",
    source="seed 002, Explanation, Expected Output and Summary",
    statement="Higher self-similarity scores indicate greater consistency of the model's responses to the same prompt "
    "(the tutorial's 'reliability' is that consistency: it disclaims factual verification).",
    paper_value="higher score = more consistent responses",
    tolerance="on hobby corpora whose true semantic entropy is known: replicated if <= 5% of pairs of corpora whose "
    "entropies differ by >= 0.5 nats are ordered wrongly by the score; partly if <= 25%; else not_replicated; in "
    "both cases the score must also order fewer pairs wrongly than every one of 20 scores that see only exact "
    "repeats (one random unit vector per distinct text), else it shows no more than repeated strings: "
    "not_replicated",
    notebook=NOTEBOOK,
)
def _consistency(quick: bool) -> Outcome:
    from scipy.stats import spearmanr

    t, _ = _study(quick)
    d_ss = discordance(t["entropy"], t["self_similarity"], higher_means_more_variable=False)
    d_sp = discordance(t["entropy"], t["spectral_0.8"])
    rho = spearmanr(t["self_similarity"], t["entropy"]).statistic
    repeats = _repeats_only(quick, t["entropy"].to_numpy())
    beats = d_ss < min(repeats)
    ours = {"wrong_order_share": round(d_ss, 3), "spearman_with_entropy": round(float(rho), 3),
            "spectral_0.8_wrong_order_share": round(d_sp, 3), "corpora": int(len(t)),
            "repeats_only_smallest_share": round(min(repeats), 3)}
    note = (f"hobby corpora ({len(t)}, true entropy known): self-similarity orders {d_ss:.0%} of clearly different "
            f"pairs wrongly (a score that sees only exact repeats of a text: {min(repeats):.0%} at best in 20 draws; "
            f"spectral entropy, same MiniLM cosines as judge at 0.8, K known: {d_sp:.0%}); whether a "
            "consistent answer is also right is a different question (selfsim.wrong_answers_pass)")
    return decide(ours, beats and d_ss <= 0.05, note, partly=beats and d_ss <= 0.25)


@claim(
    "selfsim.wrong_answers_pass",
    source="seed 002, Disadvantages (Limited Factual Verification)",
    statement="Self-similarity does not verify factual accuracy: a response that is internally consistent but "
    "factually incorrect might still pass the evaluation.",
    paper_value="consistent wrong answers pass",
    tolerance="with the threshold that 90% of consistent right-answer sets pass, at least half of the consistent "
    "wrong-answer sets pass and at most half of the inconsistent sets (a different option in each response) do",
    notebook=NOTEBOOK,
)
def _wrong_answers_pass(quick: bool) -> Outcome:
    scores, why = _answer_study(quick)
    if scores is None:
        return needs_data(MMLU_NEEDED, why)
    t = float(np.quantile(scores["right"], 0.1))
    rate = {k: float((v >= t).mean()) for k, v in scores.items()}
    ok = rate["wrong"] >= 0.5 and rate["mixed"] <= 0.5
    value = {"threshold": round(t, 3), "pass_right": round(rate["right"], 3), "pass_wrong": round(rate["wrong"], 3),
             "pass_mixed": round(rate["mixed"], 3), "questions": int(len(scores["right"]))}
    return decide(value, ok,
                  f"{len(scores['right'])} MMLU questions, {len(FRAMES)} framed responses per set: consistent wrong "
                  f"answers pass as often as right ones ({rate['wrong']:.0%} vs {rate['right']:.0%}) while "
                  f"inconsistent sets mostly fail ({rate['mixed']:.0%} pass)")


@claim(
    "selfsim.embedding_quality",
    source="seed 002, Disadvantages (Dependence on Embedding Quality)",
    statement="The effectiveness of self-similarity depends on the quality of the sentence embeddings: poorly trained "
    "embeddings can lead to inaccurate similarity assessments.",
    paper_value="worse embeddings, worse similarity assessments",
    tolerance="on the hobby pairs, the probability that a paraphrase pair outscores a pair of different meanings "
    "(AUC) falls by at least 0.1 when all-MiniLM-L6-v2's trained weights are replaced by untrained ones",
    notebook=NOTEBOOK,
)
def _embedding_quality(quick: bool) -> Outcome:
    t_good, p_good = _study(True)
    t_bad, p_bad = _study(True, "untrained")
    a_good, a_bad = p_good["auc_paraphrase_vs_different"], p_bad["auc_paraphrase_vs_different"]
    d_good = discordance(t_good["entropy"], t_good["self_similarity"], higher_means_more_variable=False)
    d_bad = discordance(t_bad["entropy"], t_bad["self_similarity"], higher_means_more_variable=False)
    value = {"auc_trained": a_good, "auc_untrained": a_bad, "wrong_order_share_trained": round(d_good, 3),
             "wrong_order_share_untrained": round(d_bad, 3),
             "score_range_untrained": [round(float(t_bad.self_similarity.min()), 3), round(float(t_bad.self_similarity.max()), 3)]}
    ok = a_good - a_bad >= 0.1
    return decide(value, ok,
                  f"reduced hobby study ({len(t_good)} corpora) in both modes: paraphrase-vs-different AUC {a_good:.2f} "
                  f"trained vs {a_bad:.2f} untrained; untrained scores crowd into "
                  f"{value['score_range_untrained'][0]}-{value['score_range_untrained'][1]}; corpus pairs ordered wrongly by "
                  f"entropy: {d_bad:.0%} untrained vs {d_good:.0%} trained")


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
    _, p = _study(quick)
    beat = p["p_one_changed_beats_paraphrase"]
    ex = p["examples"]["anchor"]
    return decide({"p_one_changed_beats_paraphrase": beat, "anchors_broken": p["anchors_broken"]}, beat <= 0.05,
                  f"MiniLM cosine on {p['texts']} hobby texts: a sentence with one hobby changed beats a true paraphrase "
                  f"in {beat:.0%} of pair comparisons (e.g. {ex['cos_one_changed']:.2f} vs {ex['cos_paraphrase']:.2f})",
                  partly=beat <= 0.15)


@claim(
    "selfsim.threshold",
    source="seed 002, Disadvantages (Threshold Determination)",
    statement="choosing a similarity threshold is hard: too low gives false positives, too high misses",
    paper_value="no clean threshold",
    tolerance="on the hobby pairs (paraphrases vs different meanings): replicated if the cosine carries signal (the "
    "best threshold's balanced accuracy >= 0.6, so there is a trade-off to set) and no threshold reaches balanced "
    "accuracy 0.95; not_replicated if one does (a clean threshold exists) or if none reaches 0.6 (no signal: the "
    "difficulty is then not the threshold)",
    notebook=NOTEBOOK,
)
def _threshold(quick: bool) -> Outcome:
    _, p = _study(quick)
    bal, t = p["best_balanced_accuracy"], p["best_threshold"]
    value = {"best_threshold": t, "best_balanced_accuracy": bal}
    if bal < 0.6:
        return Outcome(value, "not_replicated", f"the cosine carries no usable signal (best balanced accuracy {bal:.2f} "
                       f"on {p['texts']} hobby texts), so there is no trade-off between false positives and misses")
    return decide(value, bal < 0.95,
                  f"the caveat holds and is stronger: the best threshold ({t:.2f}) reaches balanced accuracy "
                  f"{bal:.2f} on {p['texts']} hobby texts; the cosine ranges of paraphrases and non-paraphrases overlap")


@claim(
    "selfsim.computational_intensity",
    source="seed 002, Disadvantages (Computational Intensity)",
    statement="Generating and comparing sentence embeddings, especially with large transformer models, can be "
    "computationally expensive.",
    paper_value="the embeddings are the expensive part",
    tolerance="on the tutorial's six example responses and all-MiniLM-L6-v2: the floating-point operations torch "
    "counts (torch.utils.flop_counter, matrix products and attention) while semvar.similarity.embed runs are at least "
    "1,000 times the n d additions of the self-similarity score on the embeddings, else not_replicated. What this "
    "can show: that the embeddings come from a pass of the network and how large that pass is against the score; "
    "for any transformer run on these texts the ratio is large, so the record measures the cost rather than tests "
    "an open question (restated: it first counted weights x tokens, which no run of the code could change)",
    notebook=NOTEBOOK,
)
def _computational_intensity(quick: bool) -> Outcome:
    from torch.utils.flop_counter import FlopCounterMode

    from .. import similarity

    texts = [t for rs in SEED_RESPONSES.values() for t in rs]
    model = similarity.load_model(None)
    tokens = int(sum(len(ids) for ids in model.tokenizer(texts)["input_ids"]))
    with FlopCounterMode(display=False) as counter:
        E = np.asarray(similarity.embed(texts, progress=False))
    embed_ops = float(counter.get_total_flops())
    score_ops = float(E.shape[0] * E.shape[1])
    ratio = embed_ops / score_ops
    value = {"tokens": tokens, "embedding_flops": float(f"{embed_ops:.3g}"),
             "score_additions": int(score_ops), "ratio": float(f"{ratio:.3g}")}
    return decide(value, ratio >= 1000,
                  f"{len(texts)} responses, {tokens} word pieces: torch counts {embed_ops:.2g} floating-point "
                  f"operations while they are embedded, against {score_ops:.0f} additions for the score "
                  f"({ratio:.2g} times); the network, not the "
                  "similarity, is the cost (selfsim.scalability shows the score itself needs no n x n matrix)")
