"""Claims of chapters 9-10 (conformal set size): Ye et al. (2024) and the set-size review."""

from __future__ import annotations

import numpy as np

from .claims import Outcome, claim
from . import conformal as cf

PANEL_A = dict(acc0=0.88, margin=4.0, sigma=1.0, alpha=0.1)
PANEL_B = dict(acc0=0.9, margin_sharp=6.0, margin_soft=1.0, sigma=1.0)
YE_DATASET = "the answer keys of the Hugging Face dataset ErikYip/LLM-Uncertainty-Bench (ye2024/{task}.json)"


@claim(
    "ye_review.temperature",
    source="seed 003, panel A (Temperature)",
    statement="Dividing the logits by a temperature T changes no answer, while the APS set size moves by more than "
    "one option across the temperature range and the LAC set size moves less (alpha = 0.1).",
    paper_value={"answers_changed": 0, "aps_range": "> 1", "lac_range": "< aps_range"},
    tolerance="exact (answers); APS range > 1 and LAC range < APS range in every draw",
    notebook="09_set_size",
)
def _temperature(quick: bool) -> Outcome:
    temps = np.geomspace(0.25, 4, 5 if quick else 9)
    seeds = range(1 if quick else 5)
    aps, lac, changed = [], [], 0
    for s in seeds:
        r = cf.temperature_sweep(temps, random_state=s, **PANEL_A)
        changed += int(np.ptp(r["accuracy"]) > 0)
        aps.append(float(np.ptp(r["aps_ss"])))
        lac.append(float(np.ptp(r["lac_ss"])))
        z, _ = cf.synthetic_logits(8000, acc0=PANEL_A["acc0"], margin=PANEL_A["margin"], sigma=PANEL_A["sigma"], random_state=s)
        base = np.argmax(z, axis=1)
        changed += sum(int((np.argmax(cf.softmax(z, t), axis=1) != base).sum()) for t in temps)
    ok = changed == 0 and min(aps) > 1 and all(a > b for a, b in zip(aps, lac))
    our = {"answers_changed": changed, "aps_range": round(min(aps), 3), "lac_range": round(max(lac), 3)}
    note = (f"T in [0.25, 4], acc0={PANEL_A['acc0']}, a={PANEL_A['margin']}, sigma={PANEL_A['sigma']}; "
            f"{len(aps)} draw(s): smallest APS range {min(aps):.2f}, largest LAC range {max(lac):.2f} options")
    return Outcome(our, "replicated" if ok else "not_replicated", note)


@claim(
    "ye_review.score_ranking",
    source="seed 003, panel B (Score function)",
    statement="Two models with the same accuracy (90%) and the same answer on every question, sharp (margin 6) and soft "
    "(margin 1): at alpha = 0.15 LAC gives both singleton sets (a tie) while APS gives the sharp model larger sets; at "
    "alpha = 0.10 the LAC ranking changes from one resample to the next.",
    paper_value={"lac_tie_at_0.15": True, "aps_sharp_larger_at_0.15": True, "lac_ranking_flips_at_0.10": True},
    tolerance="ties and the APS order in every resample; a flip = both orders occur among resamples, set sizes "
    "compared at the two decimals the paper prints",
    notebook="09_set_size",
)
def _score_ranking(quick: bool) -> Outcome:
    reps = 10 if quick else 40
    tie = aps_larger = True
    for s in range(reps):
        r = cf.sharp_soft_pair(alpha=0.15, random_state=s, **PANEL_B)
        tie &= r["sharp"]["lac_ss"] == r["soft"]["lac_ss"] == 1.0
        aps_larger &= r["sharp"]["aps_ss"] > r["soft"]["aps_ss"]

    def lac_diffs(shared: bool) -> np.ndarray:
        out = []
        for s in range(reps):
            r = cf.sharp_soft_pair(alpha=0.10, shared=shared, random_state=1000 + s, **PANEL_B)
            out.append(round(r["sharp"]["lac_ss"], 2) - round(r["soft"]["lac_ss"], 2))
        return np.round(out, 2)

    def flips(d: np.ndarray) -> bool:
        return bool((d > 0).any() and (d < 0).any())

    same, indep = lac_diffs(True), lac_diffs(False)
    our = {"lac_tie_at_0.15": bool(tie), "aps_sharp_larger_at_0.15": bool(aps_larger),
           "lac_ranking_flips_at_0.10": flips(same), "flips_when_wrong_on_different_questions": flips(indep)}
    note = (f"{reps} resamples at alpha=0.10, LAC sizes to 2 decimals: with the review's construction (same answers, "
            f"so wrong on the same questions) sharp>soft in {(same > 0).sum()}, sharp<soft in {(same < 0).sum()}, "
            f"tie in {(same == 0).sum()} (the thresholds move together and the sets nearly coincide); with an "
            f"independent draw per model sharp>soft {(indep > 0).sum()}, sharp<soft {(indep < 0).sum()}, "
            f"tie {(indep == 0).sum()}")
    if tie and aps_larger and flips(same):
        status = "replicated"
    elif tie and aps_larger and flips(indep):
        status = "partly"
    else:
        status = "not_replicated"
    return Outcome(our, status, note)


@claim(
    "ye_review.same_sets",
    source="seed 003, panel C (Same sets, different accuracy)",
    statement="Two models (85% medium questions at (0.5, 0.4, 0.1), 15% hard at (0.4, 0.3, 0.3)) have identical LAC "
    "sets on every question at alpha = 0.1 while their accuracies are 90% and 5%.",
    paper_value={"identical_sets": True, "accuracy_1": 0.90, "accuracy_2": 0.05},
    tolerance="sets identical in every draw; accuracies within 0.02",
    notebook="09_set_size",
)
def _same_sets(quick: bool) -> Outcome:
    identical = True
    acc1, acc2 = [], []
    for s in range(2 if quick else 20):
        p1, p2, y, _ = cf.same_sets_models(8000, random_state=s)
        s1 = cf.lac_sets(p1[:2000], y[:2000], p1[2000:], 0.1)
        s2 = cf.lac_sets(p2[:2000], y[:2000], p2[2000:], 0.1)
        identical &= bool(np.array_equal(s1, s2))
        acc1.append(cf.accuracy(p1[2000:], y[2000:]))
        acc2.append(cf.accuracy(p2[2000:], y[2000:]))
    a1, a2 = float(np.mean(acc1)), float(np.mean(acc2))
    p1, p2, y, _ = cf.same_sets_models(8000, random_state=0)
    aps1 = cf.set_size(cf.aps_sets(p1[:2000], y[:2000], p1[2000:], 0.1))
    aps2 = cf.set_size(cf.aps_sets(p2[:2000], y[:2000], p2[2000:], 0.1))
    ok = identical and abs(a1 - 0.90) <= 0.02 and abs(a2 - 0.05) <= 0.02
    our = {"identical_sets": identical, "accuracy_1": round(a1, 4), "accuracy_2": round(a2, 4)}
    return Outcome(our, "replicated" if ok else "not_replicated",
                   f"{len(acc1)} draws of 2,000 calibration + 6,000 test questions; LAC set size and coverage equal "
                   f"too. LAC only: APS separates the pair (set size {aps1:.2f} vs {aps2:.2f})")


@claim(
    "ye2024.quantile_rank",
    source="seed 003, Setup (qhat is the ceil((n+1)(1-alpha))-th smallest score); Ye et al. (2024) section 3 and released code",
    statement="The conformal threshold is the ceil((n+1)(1-alpha))-th smallest calibration score; with the paper's "
    "split (n = 4,997 calibration items, alpha = 0.1) that is rank 4,499.",
    paper_value=4499,
    tolerance=0,
    notebook="09_set_size",
)
def _quantile_rank(quick: bool) -> Outcome:
    cal, _ = cf.ye_split()
    n = len(cal)
    paper = cf.quantile_rank(n, 0.1, quantile="paper")
    textbook = cf.quantile_rank(n, 0.1, quantile="textbook")
    status = "replicated" if paper == textbook == 4499 else "not_replicated"
    return Outcome(paper, status,
                   f"the released code's np.quantile(scores, {textbook}/{n}, method='higher') returns rank {paper}, "
                   f"one above the textbook rank {textbook}: valid but conservative by one order statistic")


def _ye_inputs(task: str):
    from .data import DataNotFoundError, load_ye_answers, load_ye_logits

    try:
        logits = load_ye_logits(task)
    except DataNotFoundError:
        return None, "the released logits (ye2024/*.npz)"
    try:
        keys = load_ye_answers(task, online=False)
    except DataNotFoundError:
        return None, YE_DATASET.format(task=task)
    return (logits, keys["label"].to_numpy()), None


def _model_results(logits, labels, model):
    from .data import YE_PROMPTS

    return cf.ye_protocol({p: logits[f"{model}__{p}"] for p in YE_PROMPTS}, labels, alpha=0.1)


@claim(
    "ye2024.qwen72b_qa",
    source="Ye et al. (2024), Table (base models, QA); data README (ye2024)",
    statement="Qwen-72B on question answering (MMLU, 10k): accuracy 72.53, mean set size 2.45, coverage 93.43 "
    "(alpha = 0.1; mean of LAC and APS and of the three prompts).",
    paper_value={"acc": 72.53, "ss": 2.45, "cov": 93.43},
    tolerance={"acc": 0.01, "ss": 0.01, "cov": 0.01},
    notebook="10_released_logits",
)
def _qwen72b(quick: bool) -> Outcome:
    inputs, missing = _ye_inputs("qa")
    if inputs is None:
        return Outcome(None, "needs_data", f"needs {missing}; the released logits alone give no accuracy or coverage")
    r = _model_results(*inputs, "Qwen-72B")
    our = {"acc": round(r["acc"], 2), "ss": round(r["ss"], 2), "cov": round(r["cov"], 2)}
    ok = abs(r["acc"] - 72.53) <= 0.01 and abs(r["ss"] - 2.45) <= 0.01 and abs(r["cov"] - 93.43) <= 0.01
    return Outcome(our, "replicated" if ok else "not_replicated", "the released protocol run on the released logits")


@claim(
    "ye_review.kendall_tau",
    source="seed 003, panel B (close reading of the released logits)",
    statement="On the released logits of the 16 base models the LAC and APS set-size rankings agree with Kendall tau "
    "between 0.58 and 0.88 across the five tasks.",
    paper_value=[0.58, 0.88],
    tolerance=0.01,
    notebook="10_released_logits",
)
def _kendall(quick: bool) -> Outcome:
    from scipy.stats import kendalltau

    from .data import YE_MODELS, YE_TASKS

    taus = {}
    for task in YE_TASKS:
        inputs, missing = _ye_inputs(task)
        if inputs is None:
            return Outcome(None, "needs_data", f"needs {missing} for all five tasks")
        lac, aps = [], []
        for m in YE_MODELS:
            r = _model_results(*inputs, m)
            lac.append(r["lac_ss"])
            aps.append(r["aps_ss"])
        taus[task] = round(float(kendalltau(lac, aps).statistic), 3)
    lo, hi = min(taus.values()), max(taus.values())
    ok = abs(lo - 0.58) <= 0.01 and abs(hi - 0.88) <= 0.01
    return Outcome(taus, "replicated" if ok else "not_replicated", f"range {lo:.2f}-{hi:.2f} over tasks")
