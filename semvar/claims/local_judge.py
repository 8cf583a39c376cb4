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

import numpy as np
import pandas as pd

from .. import evaluation
from ..experiments.human_judges import newcombe_interval
from ..experiments.local_judge import RESULT_FILE, load_calls, rates, soft_auroc
from . import Outcome, claim, find_data, needs_data
from ._outcome import decide

NOTEBOOK = "07_llm_judge"
#: the p - q of Table 2's weakest judge (Llama)
WEAKEST = 0.13


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
        "to TRUE or FALSE), SmolLM2-135M-Instruct and Gemma 3 270M separate same from different meanings less "
        "than the weakest judge of Table 2 (Llama, p - q = 0.13): on 420 human-labelled SAS answer pairs and on "
        "400 OpenQA-eval answers, |p - q| is below 0.13 for the constrained and for the soft verdict"
    ),
    paper_value="Table 2: p - q from 0.13 (Llama) to 0.80 (GPT-3.5) for the paper's six judges",
    tolerance=(
        f"one order of each pair (a, b); replicated if, for both models, both sets and both verdicts, the Newcombe "
        f"95 % interval of p - q lies inside (-{WEAKEST}, {WEAKEST}); partly if every point estimate does; else "
        "not_replicated"
    ),
    notebook=NOTEBOOK,
    kind="finding",
)
def _small_models_pq(quick: bool) -> Outcome:
    df = _calls()
    df = df[df.order == "ab"]  # the two orders of a pair are not independent items
    value, widest, points = {}, [], []
    for verdict in ("constrained", "soft"):
        for r in _table2_rates(df, verdict).itertuples(index=False):
            k1, n1 = round(r.p * r.n_same), r.n_same
            k2, n2 = round(r.q * r.n_diff), r.n_diff
            d, lo, hi = newcombe_interval(int(k1), int(n1), int(k2), int(n2))
            value[f"{r.model} {r.set} {verdict}"] = {"p": round(r.p, 3), "q": round(r.q, 3),
                                                     "p_minus_q": round(d, 3), "ci": [round(lo, 3), round(hi, 3)],
                                                     "pairs": int(n1 + n2)}
            widest.append(max(abs(lo), abs(hi)))
            points.append(abs(d))
    models = {k.split()[0] for k in value}
    sets = {k.split()[1] for k in value}
    if models != {"smollm2", "gemma3-270m"} or sets != {"sas", "openqa"}:
        raise ValueError(f"{RESULT_FILE} lacks a model or a set: {sorted(models)}, {sorted(sets)}")
    return decide(value, max(widest) < WEAKEST, f"largest |p - q| {max(points):.3f}, largest interval end "
                  f"{max(widest):.3f} over {len(value)} (model, set, verdict) cells, against Llama's {WEAKEST} in "
                  "Table 2", partly=max(points) < WEAKEST)


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
        "SAS, the paper's prompt, one order of each pair: replicated if the lower end of the DeLong 95 % interval of "
        "the AUROC of pi exceeds 0.5 for both models; partly if for one; else not_replicated. The decision is a "
        "near-tie for Gemma (lower end within 0.01 of 0.5), so the interval is checked first: DeLong's standard "
        "error must lie within a factor 1.25 of a stratified bootstrap's (400 resamples, seed 0) for each model, "
        "else not_replicated (an interval too narrow would decide the tie)"
    ),
    notebook=NOTEBOOK,
    kind="finding",
)
def _soft_ranks(quick: bool) -> Outcome:
    calls = _calls()
    a = soft_auroc(calls[calls.order == "ab"])  # one order of each pair
    a = a[(a.set == "sas") & (a.prompt == "liu2025")]
    value = {r.model: {"auroc": round(r.auroc, 3), "ci": [round(r.low, 3), round(r.high, 3)], "n": int(r.n)}
             for r in a.itertuples(index=False)}
    above = [m for m, v in value.items() if v["ci"][0] > 0.5]
    note = "; ".join(f"{m}: AUROC {v['auroc']:.3f} [{v['ci'][0]:.3f}, {v['ci'][1]:.3f}]" for m, v in value.items())
    d = calls[(calls.order == "ab") & (calls.set == "sas") & (calls.prompt == "liu2025") & (calls.label >= 0)
              & calls.pi.notna()]
    for model, g in d.groupby("model", sort=True):
        ratio = evaluation.delong_bootstrap_ratio(g.pi.to_numpy(float), g.label.to_numpy().astype(bool))
        value[model]["se_delong_over_bootstrap"] = round(ratio, 3)
        if not 0.8 <= ratio <= 1.25:
            return decide(value, False, f"{note}; {model}: DeLong's standard error is {ratio:.2f} times a "
                          "bootstrap's, so its interval cannot decide the near-tie", partly=False)
    return decide(value, len(above) == len(value) == 2, note, partly=bool(above))


@claim(
    "localjudge.order_carries_the_pair",
    source="this book, chapter 7, 'A judge on your laptop' (the judge's own violations; seed 000, section 2.1)",
    statement=(
        "SmolLM2's soft verdict depends on the pair, not only on the prompt: pi(b, a) is closer to pi(a, b) than "
        "the pi of another pair is (mean |pi(a, b) - pi(b, a)| below the 1st percentile of the same mean with the "
        "second order's values shuffled across pairs). Its constrained verdicts, FALSE on nearly every pair in "
        "both orders, are symmetric for free and say nothing about symmetry"
    ),
    paper_value="Liu (2025) asks both orders (Algorithm 1) because a judge need not be symmetric",
    tolerance="SAS, the paper's prompt, the 420 pairs asked in both orders, 1,000 shuffles (seed 0): replicated if "
    "the observed mean gap is below the 1st percentile of the shuffled ones; partly if below their median; else "
    "not_replicated",
    notebook=NOTEBOOK,
    kind="finding",
)
def _order_carries_the_pair(quick: bool) -> Outcome:
    d = _calls()
    d = d[(d.set == "sas") & (d.prompt == "liu2025")]
    wide = d.pivot_table(index=["model", "item"], columns="order", values="pi", aggfunc="first").dropna()
    if wide.empty:
        raise ValueError(f"{RESULT_FILE} holds no SAS pairs asked in both orders")
    model = wide.index.get_level_values("model")[0]
    ab, ba = wide["ab"].to_numpy(float), wide["ba"].to_numpy(float)
    observed = float(np.abs(ab - ba).mean())
    rng = np.random.default_rng(0)
    shuffled = np.array([np.abs(ab - rng.permutation(ba)).mean() for _ in range(200 if quick else 1000)])
    low, mid = float(np.quantile(shuffled, 0.01)), float(np.median(shuffled))
    value = {"model": model, "pairs": int(len(ab)), "mean_gap": round(observed, 4),
             "shuffled_p01": round(low, 4), "shuffled_median": round(mid, 4)}
    return decide(value, observed < low, f"mean |pi(a,b) - pi(b,a)| {observed:.4f} against {mid:.4f} (1st "
                  f"percentile {low:.4f}) when the second order's pi is shuffled across pairs",
                  partly=observed < mid)


@claim(
    "localjudge.repeatable_cpu",
    source="this book, chapter 7, 'A judge on your laptop' (beside seed 000, section 1, on temperature 0)",
    statement=(
        "On CPU inference (llama.cpp, two cores), a temperature-0 call of SmolLM2-135M-Instruct or Gemma 3 270M "
        "gives the same answer on fresh servers with one or two threads and batch sizes from 64 to 512: the same "
        "constrained word and the same first-token probabilities to six digits. The output compared is one "
        "token's, not a long generation, and says nothing of GPU inference"
    ),
    paper_value="Liu (2025): outputs can differ between runs at temperature 0 (GPU rounding)",
    tolerance="30 SAS pairs a model, six runs each (five fresh servers and the main run's call): replicated if no "
    "pair's output differs between runs; partly if at most one pair's does; else not_replicated",
    notebook=NOTEBOOK,
    kind="finding",
)
def _repeatable_cpu(quick: bool) -> Outcome:
    df = _calls()
    rep = df[df.set == "repeat"]
    main = df[(df.set == "sas") & (df.prompt == "liu2025") & (df.order == "ab") & df.item.isin(rep.item)]
    runs = pd.concat([rep, main.assign(setting="main")])
    text = runs.constrained.map("{:g}".format) + "|" + runs.pi.map("{:.6f}".format)
    per = runs.assign(text=text).groupby(["model", "item"]).agg(runs=("setting", "nunique"),
                                                                distinct=("text", "nunique"))
    if per.runs.min() < 2:
        raise ValueError(f"{RESULT_FILE}: every repeated pair needs at least two runs")
    varying = int((per.distinct > 1).sum())
    value = {"pairs": int(len(per)), "pairs_with_differing_runs": varying, "min_runs": int(per.runs.min()),
             "distinct_outputs": int(runs.assign(text=text).text.nunique())}
    return decide(value, varying == 0, f"{varying} of {len(per)} pairs gave differing outputs over "
                  f"{int(per.runs.min())} or more runs", partly=varying <= 1)


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
