"""Records of chapter 7's judges on a laptop and of ContextSL's LLM judges: registered with :func:`semvar.claims.claim`.

The local judges' calls were made once, against llama.cpp's server on two CPU
cores (``python -m semvar.experiments.local_judge``, which needs the server
and the registry models), and are stored in ``data/local_judge.csv.gz``: the
records recompute every rate, interval and count from those calls, so they
run without a server.  ContextSL's judge scores and human labels are read
through :func:`semvar.data.load_contextsl` and the rates recomputed by
:func:`semvar.experiments.contextsl_judges.run` (``needs_data`` without the
file).  Each decision rule is stated in the record's ``tolerance``.
"""

from __future__ import annotations

import pandas as pd

from ..experiments.human_judges import newcombe_interval
from ..experiments.local_judge import RESULT_FILE, load_calls, rates, soft_auroc, symmetry
from . import Outcome, claim, find_data, needs_data
from ._outcome import decide

NOTEBOOK = "07_llm_judge"
#: the largest p - q (upper end of its Newcombe interval) called "far from Table 2's judges"
FAR = 0.3


def _calls() -> pd.DataFrame:
    return load_calls()


def _table2_rates(df: pd.DataFrame, verdict: str) -> pd.DataFrame:
    r = rates(df, verdict)
    return r[r.prompt == "liu2025"]


@claim(
    "localjudge.small_models_pq",
    source="this book, chapter 7, 'A judge on your laptop' (Table 2's protocol for open models)",
    statement=(
        "Run on two CPU cores as Liu's judge (llama.cpp, temperature 0, the paper's prompt, the answer constrained "
        "to TRUE or FALSE), SmolLM2-135M-Instruct and Gemma 3 270M separate same from different meanings far less "
        "than Table 2's judges: on at least 400 human-labelled SAS answer pairs and on 400 OpenQA-eval answers "
        "their p - q is below 0.3, for the constrained and for the soft verdict, against GPT-3.5's 0.80 "
        "(Table 2) and GPT-4's 0.70 on OpenQA-eval"
    ),
    paper_value="Table 2: p - q from 0.13 (Llama) to 0.80 (GPT-3.5) for the paper's six judges",
    tolerance=(
        f"replicated if, for both models, both sets and both verdicts, the upper end of the Newcombe 95 % interval "
        f"of p - q is below {FAR}; partly if every point estimate is; else not_replicated"
    ),
    notebook=NOTEBOOK,
    kind="finding",
)
def _small_models_pq(quick: bool) -> Outcome:
    df = _calls()
    value, upper, points = {}, [], []
    for verdict in ("constrained", "soft"):
        for r in _table2_rates(df, verdict).itertuples(index=False):
            k1, n1 = round(r.p * r.n_same), r.n_same
            k2, n2 = round(r.q * r.n_diff), r.n_diff
            d, lo, hi = newcombe_interval(int(k1), int(n1), int(k2), int(n2))
            value[f"{r.model} {r.set} {verdict}"] = {"p": round(r.p, 3), "q": round(r.q, 3),
                                                     "p_minus_q": round(d, 3), "ci": [round(lo, 3), round(hi, 3)],
                                                     "pairs": int(n1 + n2)}
            upper.append(hi)
            points.append(d)
    models = {k.split()[0] for k in value}
    sets = {k.split()[1] for k in value}
    if models != {"smollm2", "gemma3-270m"} or sets != {"sas", "openqa"}:
        raise ValueError(f"{RESULT_FILE} lacks a model or a set: {sorted(models)}, {sorted(sets)}")
    return decide(value, max(upper) < FAR, f"largest p - q {max(points):.3f}, largest upper end {max(upper):.3f} "
                  f"over {len(value)} (model, set, verdict) cells", partly=max(points) < FAR)


@claim(
    "localjudge.soft_ranks",
    source="this book, chapter 7, 'A judge on your laptop' (soft verdicts)",
    statement=(
        "The soft verdict of a small local model, pi = P(TRUE) / (P(TRUE) + P(FALSE)) from the first token's "
        "log-probabilities, ranks same-meaning SAS pairs above different-meaning ones better than chance, though "
        "no threshold gives it Table 2's p - q"
    ),
    paper_value="not stated (Table 2 reads the words TRUE and FALSE)",
    tolerance=(
        "SAS, the paper's prompt, both orders pooled: replicated if the lower end of the DeLong 95 % interval of "
        "the AUROC of pi exceeds 0.5 for both models; partly if for one; else not_replicated"
    ),
    notebook=NOTEBOOK,
    kind="finding",
)
def _soft_ranks(quick: bool) -> Outcome:
    a = soft_auroc(_calls())
    a = a[(a.set == "sas") & (a.prompt == "liu2025")]
    value = {r.model: {"auroc": round(r.auroc, 3), "ci": [round(r.low, 3), round(r.high, 3)], "n": int(r.n)}
             for r in a.itertuples(index=False)}
    above = [m for m, v in value.items() if v["ci"][0] > 0.5]
    note = "; ".join(f"{m}: AUROC {v['auroc']:.3f} [{v['ci'][0]:.3f}, {v['ci'][1]:.3f}]" for m, v in value.items())
    return decide(value, len(above) == len(value) == 2, note, partly=bool(above))


@claim(
    "localjudge.symmetric",
    source="this book, chapter 7, 'A judge on your laptop' (the judge's own violations, seed 000 section 2.1)",
    statement=(
        "A small local judge at temperature 0 with a constrained answer is nearly symmetric: asked about (a, b) and "
        "about (b, a), it gives different verdicts on at most 5 % of the SAS pairs"
    ),
    paper_value="Liu (2025) asks both orders (Algorithm 1) because a judge need not be symmetric",
    tolerance="replicated if the share is at most 0.05 (SmolLM2, the paper's prompt, all SAS pairs); "
    "partly if at most 0.15; else not_replicated",
    notebook=NOTEBOOK,
    kind="finding",
)
def _symmetric(quick: bool) -> Outcome:
    s = symmetry(_calls())
    s = s[(s.set == "sas") & (s.prompt == "liu2025")]
    if s.empty:
        raise ValueError(f"{RESULT_FILE} holds no SAS pairs asked in both orders")
    r = s.iloc[0]
    value = {"model": r.model, "pairs": int(r.pairs), "verdict_differs": round(float(r.verdict_differs), 4),
             "mean_abs_pi_gap": round(float(r.mean_abs_pi_gap), 4)}
    return decide(value, r.verdict_differs <= 0.05, f"{r.verdict_differs:.1%} of {int(r.pairs)} pairs change verdict "
                  f"with the order; mean |pi(a,b) - pi(b,a)| {r.mean_abs_pi_gap:.3f}", partly=r.verdict_differs <= 0.15)


@claim(
    "contextsl.llm_judges_pq",
    source="this book, chapter 7; data: Lin, Trivedi & Sun (2024), ContextSL human evaluation (MIT)",
    statement=(
        "Two of Table 2's judge families, a Llama-2 and a GPT-3.5 judge, scoring 699 answers of Llama-2-13B, "
        "Gemma-7B and Mistral-7B against the reference answer, have p - q of about 0.8 against human labels "
        "(a score of 0.5 counted as 'same' for Llama-2 and 'different' for GPT-3.5, as the data's own code "
        "thresholds them), near GPT-3.5's 0.80 in Table 2"
    ),
    paper_value="Table 2: GPT-3.5 p - q = 0.80, Llama p - q = 0.13",
    tolerance="replicated if the lower end of the Newcombe 95 % interval of p - q is at least 0.7 for both judges "
    "under their headline tie rule; partly if for one; else not_replicated",
    notebook=NOTEBOOK,
    kind="finding",
)
def _contextsl(quick: bool) -> Outcome:
    from ..experiments import contextsl_judges

    study, why = find_data(lambda: contextsl_judges.run(progress=False))
    if study is None:
        return needs_data("ContextSL's human evaluation (contextsl/human_eval_new_final.xlsx; see the data README)",
                          why)
    value, low = {}, []
    for name in ("llama2", "gpt35"):
        j = study["llm"][name]
        rule = j["headline"]
        r = j["rules"][rule]["pooled"]
        lo, hi = r["p_minus_q_ci"]
        value[name] = {"rule": rule, "p": round(r["p"], 3), "q": round(r["q"], 3),
                       "p_minus_q": round(r["p_minus_q"], 3), "ci": [round(lo, 3), round(hi, 3)]}
        low.append(lo)
    ok = [x >= 0.7 for x in low]
    return decide(value, all(ok), "; ".join(f"{k}: p - q {v['p_minus_q']:.3f} [{v['ci'][0]:.3f}, {v['ci'][1]:.3f}] "
                                          f"({v['rule']})" for k, v in value.items()), partly=any(ok))
