"""Published numbers the book compares with: one source of truth, each with its citation.

Every value below is printed in one of the source works (or, where said, in a
work they rely on).  The claims ledger (:mod:`semvar.claims`), the experiments
(:mod:`semvar.experiments`) and the chapters read them from here, so a number
is typed once and its origin is stated once.  :data:`SOURCES` maps each name to
its citation.

This module imports nothing from :mod:`semvar`: any module may import it.

Examples
--------
>>> PAPER_TABLE2["GPT"]
(0.87, 0.07)
>>> SOURCES["PAPER_TABLE2"]
'Liu (2025), arXiv 2502.00507, section 4, Table 2 (seed 000)'
>>> all(name in SOURCES for name in __all__ if name != "SOURCES")
True
"""

from __future__ import annotations

__all__ = [
    "PAPER_TABLE1",
    "PAPER_TABLE2",
    "PAPER_TABLE2_P_MINUS_Q",
    "LIU_PHASE_CHANGE",
    "SEED_RESPONSES",
    "SEED_PRINTED_SELF_SIMILARITY",
    "SEED_WORKED_COSINES",
    "SEED_WORKED_SELF_SIMILARITY",
    "LIN_SUBSAMPLE_ITEMS",
    "LIN_SUBSAMPLE_SHARE",
    "LIN_SUBSAMPLE_HALFWIDTH",
    "LIN_NAIVE_HALFWIDTH",
    "LIN_GEMMA2_9B_HALFWIDTH",
    "LIN_SPLIT_HALF_RANGE",
    "LIN_SUBJECT_SD_MAX",
    "GEMMA2_9B_MMLU_ACCURACY",
    "REVIEW_PANEL_A",
    "REVIEW_PANEL_B",
    "REVIEW_SAME_SETS_ACCURACY",
    "REVIEW_KENDALL_TAU_RANGE",
    "YE_QUANTILE_RANK",
    "YE_QWEN72B_QA",
    "YE_QA_BASE",
    "SOURCES",
]

_LIU = "Liu (2025), arXiv 2502.00507"
_SELFSIM = "LLM self-similarity tutorial (seed 002)"
_LIN = "Lin, Frei & de la Pena (2026), arXiv 2606.17426 (seed 001)"
_REVIEW = "review of Ye et al. (2024), 'Set size as uncertainty' (seed 003)"
_YE = "Ye et al. (2024), NeurIPS D&B, arXiv 2401.12794"

# --------------------------------------------------------------------- Liu (2025), seed 000

#: Table 1 — mean ``|E_bar - E_hat|`` over 10 iterations per language-model judge; the nine
#: columns are (ratio, n) ratio-major over ratios (0.2, 0.3, 0.5), (0.3, 0.3, 0.4),
#: (0.5, 0.5) and n = 30, 50, 70.
PAPER_TABLE1: dict[str, tuple[float, ...]] = {
    "LLAMA": (0.36, 0.49, 0.44, 0.34, 0.43, 0.46, 0.30, 0.27, 0.26),
    "MINISTRAL": (0.22, 0.27, 0.13, 0.25, 0.23, 0.21, 0.14, 0.22, 0.21),
    "COHERE": (0.04, 0.02, 0.06, 0.02, 0.03, 0.00, 0.00, 0.00, 0.00),
    "A21": (0.05, 0.00, 0.00, 0.00, 0.01, 0.00, 0.00, 0.00, 0.00),
    "PHI": (0.08, 0.07, 0.07, 0.03, 0.03, 0.00, 0.00, 0.00, 0.00),
    "GPT": (0.06, 0.02, 0.00, 0.01, 0.00, 0.00, 0.00, 0.00, 0.00),
}

#: Table 2 — (p, q) of each language-model judge on the hobby corpus.
PAPER_TABLE2: dict[str, tuple[float, float]] = {
    "LLAMA": (0.17, 0.00),
    "MINISTRAL": (0.99, 0.77),
    "COHERE": (0.61, 0.05),
    "A21": (0.96, 0.15),
    "PHI": (0.67, 0.01),
    "GPT": (0.87, 0.07),
}

#: Table 2's printed p - q column (rounded by the paper; Cohere's 0.55 is not 0.61 - 0.05).
PAPER_TABLE2_P_MINUS_Q: dict[str, float] = {
    "LLAMA": 0.17, "MINISTRAL": 0.22, "COHERE": 0.55, "A21": 0.81, "PHI": 0.67, "GPT": 0.80,
}

#: Figure 1 — the p - q at which the entropy error changes from large to small.
LIU_PHASE_CHANGE = 0.4

# --------------------------------------------------------------------- self-similarity, seed 002

#: The tutorial's example responses, two per prompt.
SEED_RESPONSES: dict[str, list[str]] = {
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

#: The tutorial's printed all-MiniLM-L6-v2 self-similarity of the first two prompts
#: (the third prompt's value is not printed).
SEED_PRINTED_SELF_SIMILARITY: tuple[float, float] = (0.8107, 0.9894)

#: The worked example's 3 x 3 cosine matrix ...
SEED_WORKED_COSINES: tuple[tuple[float, ...], ...] = ((1.0, 0.8, 0.7), (0.8, 1.0, 0.6), (0.7, 0.6, 1.0))
#: ... and its stated average self-similarity, (7.2 - 3) / 6.
SEED_WORKED_SELF_SIMILARITY = 0.7

# --------------------------------------------------------------------- Lin, Frei & de la Pena, seed 001

#: MMLU application — items evaluated in the subsample-vs-full example ...
LIN_SUBSAMPLE_ITEMS = 5000
#: ... their share of the 14,042 test items, in per cent ...
LIN_SUBSAMPLE_SHARE = 35.6
#: ... and the guaranteed half-width of the full score at 95 % (+-1.54 percentage points).
LIN_SUBSAMPLE_HALFWIDTH = 0.0154

#: Results, Gemma 2 9B — the naive i.i.d. half-width (0.75 %).
LIN_NAIVE_HALFWIDTH = 0.0075
#: Results, Gemma 2 9B — the exchangeable beta-proxy half-width of the subject-macro score (5.2 %).
LIN_GEMMA2_9B_HALFWIDTH = 0.052
#: Empirical diagnostics — range of within-domain split-half correlations over the six models.
LIN_SPLIT_HALF_RANGE: tuple[float, float] = (0.65, 0.94)
#: Empirical diagnostics — largest subject-level standard deviation of accuracy (16.89 %).
LIN_SUBJECT_SD_MAX = 0.1689

#: Gemma 2 9B's MMLU accuracy as published by its authors (about 0.71); seed 001 gives no
#: accuracy, and 0.71 is a level at which its 0.75 % is a Wald half-width on 14,042 items.
GEMMA2_9B_MMLU_ACCURACY = 0.71

# --------------------------------------------------------------------- the review of Ye et al., seed 003

#: Panel A (temperature) — the demonstration's default synthetic model (six options,
#: accuracy acc0, margin a, noise sigma) and alpha.
REVIEW_PANEL_A: dict[str, float] = {"acc0": 0.88, "margin": 4.0, "sigma": 1.0, "alpha": 0.1}
#: Panel B (score function) — equal accuracy (90 %), a sharp (margin 6) and a soft (margin 1) model.
REVIEW_PANEL_B: dict[str, float] = {"acc0": 0.9, "margin_sharp": 6.0, "margin_soft": 1.0, "sigma": 1.0}
#: Panel C (same sets, different accuracy) — the accuracies of model 1 and model 2.
REVIEW_SAME_SETS_ACCURACY: tuple[float, float] = (0.90, 0.05)
#: Panel B, close reading — Kendall tau between the LAC and APS set-size rankings of the
#: 16 base models on the released logits, smallest and largest over the five tasks.
REVIEW_KENDALL_TAU_RANGE: tuple[float, float] = (0.58, 0.88)

# --------------------------------------------------------------------- Ye et al. (2024)

#: The conformal threshold's rank ceil((n + 1)(1 - alpha)) with the paper's n = 4,997
#: calibration items and alpha = 0.1 (the review's Setup states the rule).
YE_QUANTILE_RANK = 4499
#: Qwen-72B on question answering (MMLU, 10k items), alpha = 0.1, mean of LAC and APS and of
#: the three prompts: accuracy, mean set size and coverage, in per cent / options / per cent.
YE_QWEN72B_QA: dict[str, float] = {"acc": 72.53, "ss": 2.45, "cov": 93.43}

#: The QA column of the paper's tables of the 16 pretrained base models (MMLU, 10k items, alpha = 0.1,
#: one-shot, mean of the three prompts): accuracy in per cent and mean set size (the mean of LAC and APS),
#: keyed by the release's model names (the paper prints e.g. "Llama-2-70B" for "Llama-2-70b-hf",
#: "DeepSeek-67B" for "deepseek-llm-67b-base", "Qwen-1.8B" for "Qwen-1_8B").
YE_QA_BASE: dict[str, tuple[float, float]] = {
    "Yi-34B": (71.24, 2.60),
    "Qwen-72B": (72.53, 2.45),
    "Qwen-14B": (64.25, 2.80),
    "Llama-2-70b-hf": (65.86, 2.62),
    "deepseek-llm-67b-base": (67.97, 2.65),
    "Yi-6B": (57.57, 3.20),
    "Mistral-7B-v0.1": (60.44, 2.80),
    "Llama-2-13b-hf": (52.52, 3.06),
    "Qwen-7B": (55.21, 3.26),
    "internlm-7b": (48.37, 3.49),
    "Llama-2-7b-hf": (45.60, 3.20),
    "deepseek-llm-7b-base": (45.65, 3.34),
    "Qwen-1_8B": (44.78, 3.20),
    "falcon-40b": (40.16, 3.25),
    "mpt-7b": (29.49, 3.53),
    "falcon-7b": (23.75, 3.90),
}

#: The citation of every value above, by name.
SOURCES: dict[str, str] = {
    "PAPER_TABLE1": f"{_LIU}, section 4, Table 1 (seed 000)",
    "PAPER_TABLE2": f"{_LIU}, section 4, Table 2 (seed 000)",
    "PAPER_TABLE2_P_MINUS_Q": f"{_LIU}, section 4, Table 2, column p - q (seed 000)",
    "LIU_PHASE_CHANGE": f"{_LIU}, section 4, Figure 1 and its discussion (seed 000)",
    "SEED_RESPONSES": f"{_SELFSIM}, Implementation (example responses)",
    "SEED_PRINTED_SELF_SIMILARITY": f"{_SELFSIM}, Implementation (expected output)",
    "SEED_WORKED_COSINES": f"{_SELFSIM}, Understanding the Formula (worked example)",
    "SEED_WORKED_SELF_SIMILARITY": f"{_SELFSIM}, Understanding the Formula (worked example)",
    "LIN_SUBSAMPLE_ITEMS": f"{_LIN}, Theorem 5.2 and the MMLU application",
    "LIN_SUBSAMPLE_SHARE": f"{_LIN}, Theorem 5.2 and the MMLU application",
    "LIN_SUBSAMPLE_HALFWIDTH": f"{_LIN}, Theorem 5.2 and the MMLU application",
    "LIN_NAIVE_HALFWIDTH": f"{_LIN}, results (Gemma 2 9B)",
    "LIN_GEMMA2_9B_HALFWIDTH": f"{_LIN}, results (Gemma 2 9B)",
    "LIN_SPLIT_HALF_RANGE": f"{_LIN}, empirical diagnostics",
    "LIN_SUBJECT_SD_MAX": f"{_LIN}, empirical diagnostics",
    "GEMMA2_9B_MMLU_ACCURACY": "Gemma Team (2024), arXiv 2408.00118, Gemma 2 9B on MMLU",
    "REVIEW_PANEL_A": f"{_REVIEW}, panel A (Temperature), the demonstration's defaults",
    "REVIEW_PANEL_B": f"{_REVIEW}, panel B (Score function)",
    "REVIEW_SAME_SETS_ACCURACY": f"{_REVIEW}, panel C (Same sets, different accuracy)",
    "REVIEW_KENDALL_TAU_RANGE": f"{_REVIEW}, panel B (close reading of the released logits)",
    "YE_QUANTILE_RANK": f"{_REVIEW}, Setup; {_YE}, section 3 and released code",
    "YE_QWEN72B_QA": f"{_YE}, table of base models (question answering)",
    "YE_QA_BASE": f"{_YE}, tables of base models (accuracy; set size), column QA; the same values in the "
    "README of the release (GitHub smartyfh/LLM-Uncertainty-Bench), section 4",
}
