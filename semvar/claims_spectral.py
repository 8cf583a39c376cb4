"""Claims of chapters 1-3 (Liu 2025, sections 2 and 4): Tables 1-2 and Figure 1.

The paper's judges are six language models behind web APIs, which cannot be
reached offline.  Table 1 is therefore checked with simulated judges that have
the paper's own Table 2 ``(p, q)``, under the clustering conventions the paper
describes; Figure 1's phase change is checked against the stochastic block
model; Table 2 itself needs the models and is reported with our runnable
judges' estimates for comparison.  The decision rules are in each check and
were fixed before the full runs.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .claims import Outcome, claim

_DATA = Path(__file__).resolve().parent.parent / "data"
NOTEBOOK = "03_spectral_entropy"

STRONG = ("COHERE", "A21", "PHI", "GPT")
WEAK = ("LLAMA", "MINISTRAL")


def _table1_means(conventions, iterations: int) -> dict:
    """Per convention and judge: mean |E_bar - E_hat| over the 9 cells (weak judges) or over the
    K = 3 cells with n = 50, 70 (strong judges, where the paper still reports errors)."""
    from .sweep_table1 import PAPER_TABLE2, RATIOS, table1_errors

    out = {}
    for judge in WEAK + STRONG:
        p, q = PAPER_TABLE2[judge]
        if judge in WEAK:
            df = table1_errors(p, q, conventions=conventions, iterations=iterations, random_state=1)
        else:
            df = table1_errors(p, q, conventions=conventions, ratios=RATIOS[:2], sizes=(50, 70), iterations=iterations, random_state=1)
        for conv, g in df.groupby("convention"):
            out.setdefault(conv, {})[judge] = float(g.groupby(["ratio", "n"], sort=False)["error"].mean().mean())
    return out


def _paper_means() -> dict:
    from .sweep_table1 import PAPER_TABLE1

    # cells are ordered (ratio, n) ratio-major; K = 3 cells with n = 50, 70 are positions 1, 2, 4, 5
    return {j: float(np.mean(v)) if j in WEAK else float(np.mean([v[i] for i in (1, 2, 4, 5)])) for j, v in PAPER_TABLE1.items()}


@claim(
    "liu2025.table1",
    source="seed 000, section 4, Table 1",
    statement=(
        "Mean |E_bar - E_hat| over 10 iterations for six language-model judges, ratios (0.2,0.3,0.5), "
        "(0.3,0.3,0.4), (0.5,0.5) and n = 30, 50, 70 is as printed (value per judge: mean over the 9 cells for "
        "Llama and Ministral, over the K = 3 cells with n = 50, 70 for the four strong judges); checked against the "
        "paper's own model of its judges (independent verdicts at Table 2's (p, q), eqs. 3-4), since the language "
        "models cannot be queried offline"
    ),
    paper_value={"LLAMA": 0.372, "MINISTRAL": 0.209, "COHERE": 0.028, "A21": 0.003, "PHI": 0.043, "GPT": 0.005},
    tolerance=(
        "weak judges (Llama, Ministral; mean of 9 cells) within 0.1 under one convention; strong judges (mean of the "
        "K=3 cells with n=50,70) at least half the paper's mean"
    ),
    notebook=NOTEBOOK,
)
def _table1(quick: bool) -> Outcome:
    iters = 2 if quick else 10
    ours = _table1_means(("normalized", "unnormalized"), iters)
    paper = _paper_means()
    strong_paper = float(np.mean([paper[j] for j in STRONG]))
    strong_ours = {c: float(np.mean([ours[c][j] for j in STRONG])) for c in ours}
    strong_ok = any(v >= strong_paper / 2 for v in strong_ours.values())
    weak_ok = any(all(abs(ours[c][j] - paper[j]) <= 0.1 for j in WEAK) for c in ours)
    value = {c: {j: round(v, 3) for j, v in d.items()} for c, d in ours.items()}
    note = (
        f"SBM judges at Table 2's (p, q). Strong judges, K=3 cells with n=50,70: mean error {strong_ours['normalized']:.3f} "
        f"(normalised) / {strong_ours['unnormalized']:.3f} (L = D - E) vs the paper's {strong_paper:.3f}. Weak judges: "
        f"Llama {ours['normalized']['LLAMA']:.2f} / {ours['unnormalized']['LLAMA']:.2f} vs {paper['LLAMA']:.2f}, Ministral "
        f"{ours['normalized']['MINISTRAL']:.2f} / {ours['unnormalized']['MINISTRAL']:.2f} vs {paper['MINISTRAL']:.2f}. "
        "Independent edge noise is too weak for the strong judges; a single random-start k-means reproduces their "
        "K=3-only errors (chapter 3)."
    )
    status = "replicated" if (strong_ok and weak_ok) else ("partly" if (strong_ok or weak_ok) else "not_replicated")
    return Outcome(value, status, note)


@claim(
    "liu2025.table2",
    source="seed 000, section 4, Table 2",
    statement="Estimated (p, q) of six language-model judges on the hobby corpus (e.g. GPT-3.5 p = 0.87, q = 0.07)",
    paper_value={
        "LLAMA": [0.17, 0.0], "MINISTRAL": [0.99, 0.77], "COHERE": [0.61, 0.05],
        "A21": [0.96, 0.15], "PHI": [0.67, 0.01], "GPT": [0.87, 0.07],
    },
    tolerance=None,
    notebook="02_judge_random_graph",
)
def _table2(quick: bool) -> Outcome:
    from .corpus import make_corpus
    from .graph import all_pairs
    from .judges import EmbeddingJudge, OracleJudge, estimate_pq

    c = make_corpus(60 if quick else 180, [1] * 6, m=2, random_state=12)
    P = all_pairs(c.n)
    judge = EmbeddingJudge(0.7)
    cos = judge.cosine(c.texts, P)
    value = {"oracle": [round(x, 3) for x in estimate_pq(OracleJudge(c.labels).pairs(c.texts, P), c.labels, P)]}
    for t in (0.7, 0.8):
        value[f"MiniLM cos>={t}"] = [round(x, 3) for x in estimate_pq(cos >= t, c.labels, P)]
    note = (
        "The six judges are web-API language models (Phi-3.5, GPT-3.5-turbo, Jamba 1.5 Mini, Command-R, "
        "Ministral-3B, Llama), not reachable offline; settling the claim needs their verdicts on the hobby pairs "
        "(an OpenAI-compatible endpoint). Our value: (p, q) of the judges we can run, on a six-meaning hobby corpus (M = 2)."
    )
    return Outcome(value, "needs_data", note)


def _crossing(df, conv: str, q: float, n: int, level: float = 0.1) -> float:
    """Smallest p - q on the grid from which the mean error stays <= level."""
    g = df[(df.convention == conv) & (np.isclose(df.q, q)) & (df.n == n)].sort_values("p_minus_q")
    ok = g.mean_error.to_numpy() <= level
    d = g.p_minus_q.to_numpy()
    for i in range(len(d)):
        if ok[i:].all():
            return float(d[i])
    return float("nan")


@claim(
    "liu2025.figure1",
    source="seed 000, section 4, Figure 1",
    statement=(
        "Plotting p - q against |E_bar - E_hat| shows a phase change at p - q = 0.4: large errors below, small above; "
        "the change is not predicted by the theory"
    ),
    paper_value=0.4,
    tolerance="a sharp SBM transition whose location stays within 0.1 of 0.4 for n = 30..70 and q = 0..0.3",
    notebook=NOTEBOOK,
)
def _figure1(quick: bool) -> Outcome:
    import pandas as pd

    from .sweep_table1 import phase_errors

    path = _DATA / "liu2025_phase.csv"
    if not path.exists():
        return Outcome(None, "error", f"{path.name} missing: run python -m semvar.sweep_table1")
    df = pd.read_csv(path)
    # reproduce one stored cell exactly (same seeds) so the file is checked, not trusted
    cell = phase_errors(0.05, [0.3], sizes=(30,), iterations=20, conventions=("unnormalized",), random_state=2)
    stored = df[(df.convention == "unnormalized") & np.isclose(df.q, 0.05) & (df.n == 30) & np.isclose(df.p_minus_q, 0.3)]
    if not np.isclose(stored.mean_error.iloc[0], round(cell.mean_error.iloc[0], 5), atol=1e-5):
        return Outcome(None, "error", "data/liu2025_phase.csv does not reproduce; rerun the sweep")
    cross = {
        f"{conv}, q={q}, n={n}": _crossing(df, conv, q, n)
        for conv in ("unnormalized", "normalized")
        for q in (0.0, 0.05, 0.3)
        for n in (30, 70)
    }
    vals = np.array([v for v in cross.values()], dtype=float)
    sharp = np.isfinite(vals).all()
    near = bool(np.all(np.abs(vals - 0.4) <= 0.1)) if sharp else False
    status = "replicated" if near else ("partly" if sharp else "not_replicated")
    flat = float(df[(df.convention == "normalized") & np.isclose(df.q, 0.3)].mean_error.max())
    note = (
        "The SBM does predict a transition (signal (p-q) n_min against noise sqrt(n max(p,q))), but its location "
        f"moves with n, q and the Laplacian: error <= 0.1 from p-q = {np.nanmin(vals):.2f} to {np.nanmax(vals):.2f} "
        f"(with the normalised matrix at q = 0.3 the largest mean error on the whole grid is {flat:.3f}, so there is "
        "no transition to locate there: entropy error is a weak measure of clustering failure); "
        "the paper's six judges sit at p-q 0.17, 0.22 | 0.55, 0.66, 0.80, 0.81, so any threshold in (0.22, 0.55) fits them."
    )
    return Outcome(cross, status, note)
