"""Claims and findings of chapter 4's study of K in the regime of use (5-50 texts per prompt).

Semantic entropy is computed from a handful of answers per prompt.  Liu (2025,
section 2.4) proposes network cross-validation (Chen & Lei 2018) to choose the
number of meanings ``K``; chapter 4's study
(:mod:`semvar.experiments.select_k_small`) compares it with every other rule
of :mod:`semvar.select_k` on graphs of 5-300 texts.  The checks here draw a
fresh, smaller version of that study (the same cells, other seeds) and judge
the statements below on it; the full study's numbers are in chapter 4.

Regimes: the *informative* judges are those of Liu's Table 2 with
``p - q >= 0.5`` (GPT, Phi, Cohere, A21); the *weak* ones are LLaMA
(``p = 0.17``), Ministral (``q = 0.77``) and chapter 4's base block model
(``p, q = 0.3, 0.15``).  Quick mode uses fewer sizes and graphs; the rules
that decide each verdict are the same.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..experiments import select_k_small as study
from ..papers import PAPER_TABLE2
from . import Outcome, claim, shared
from ._outcome import decide

NOTEBOOK = "04_choosing_k"
SOURCE = "seed 000, section 2.4 (choosing K); this book's study, python -m semvar.experiments.select_k_small"
INFORMATIVE = tuple(name.lower() for name, (p, q) in PAPER_TABLE2.items() if p - q >= 0.5)
WEAK = ("llama", "ministral", "ch4_base")
SEED = 4141


@shared
def _fresh(quick: bool) -> pd.DataFrame:
    """A fresh, reduced run of the study: informative and weak judges, every partition."""
    ns = (10, 20) if quick else (5, 10, 20, 50)
    reps = {5: 10, 10: 10, 20: 10, 50: 6} if not quick else {10: 3, 20: 4}
    judges = ("gpt", "cohere", "llama") if quick else INFORMATIVE + WEAK
    return study.run_study(ns=ns, judges=judges, reps=reps, n_jobs=1, seed=SEED, progress=False)


def _table(df: pd.DataFrame, judges) -> pd.DataFrame:
    """K accuracy and mean entropy error of each rule by n, over ``judges`` and every partition."""
    return study.summarise(df[df.judge.isin(judges)], by=("n",))


@claim(
    "select_k.auto_near_best",
    source=SOURCE,
    statement="With 10-50 texts and an informative judge (Liu's Table 2, p - q >= 0.5), the default rule "
    "'auto' has the smallest mean entropy error |H_hat - H| of all rules, or is within 0.05 nats of it, "
    "at every number of texts.",
    paper_value="(the paper proposes NCV and reports no study of K at small n)",
    tolerance="auto's mean error <= best rule's + 0.05 nats at each n in 10, 20, 50 (quick: 10, 20)",
    notebook=NOTEBOOK,
    kind="finding",
)
def _auto_near_best(quick: bool) -> Outcome:
    tab = _table(_fresh(quick), INFORMATIVE)
    err = tab["error"]
    ns = [n for n in err.index if n >= 10]
    gaps = {int(n): round(float(err.loc[n, "auto"] - err.loc[n].min()), 3) for n in ns}
    best = {int(n): str(err.loc[n].idxmin()) for n in ns}
    value = {int(n): {"auto": round(float(err.loc[n, "auto"]), 3), "best": best[int(n)],
                      "best_error": round(float(err.loc[n].min()), 3)} for n in ns}
    ok = [g <= 0.05 for g in gaps.values()]
    return decide(value, all(ok), f"auto's excess mean error over the best rule, by n: {gaps} "
                  f"(informative judges {', '.join(INFORMATIVE)}; every partition)", partly=any(ok))


@claim(
    "select_k.accuracy_by_regime",
    source=SOURCE,
    statement="With an informative judge, 'auto' finds K more often than NCV (the rule Liu proposes) at every "
    "number of texts from 10 to 50, by at least 0.2 from 20 texts up.",
    paper_value="(no study of K at small n)",
    tolerance="P(K_hat = K): auto > NCV at each n in 10, 20, 50 (quick: 10, 20); auto - NCV >= 0.2 at n >= 20",
    notebook=NOTEBOOK,
    kind="finding",
)
def _accuracy_by_regime(quick: bool) -> Outcome:
    acc = _table(_fresh(quick), INFORMATIVE)["accuracy"]
    ns = [n for n in acc.index if n >= 10]
    # every rule of chapter 4's comparison tables (the study's rules, study.compared(), a new one included)
    value = {int(n): {r: round(float(acc.loc[n, r]), 3) for r in study.compared()} for n in ns}
    beats = all(acc.loc[n, "auto"] > acc.loc[n, "ncv"] for n in ns)
    high = all(acc.loc[n, "auto"] - acc.loc[n, "ncv"] >= 0.2 for n in ns if n >= 20)
    note = "; ".join(f"n={int(n)}: auto {acc.loc[n, 'auto']:.2f}, NCV {acc.loc[n, 'ncv']:.2f}" for n in ns)
    return decide(value, beats and high, note, partly=beats or high)


@claim(
    "select_k.weak_judges",
    source=SOURCE,
    statement="With the weak judges of Table 2 (LLaMA, Ministral) and chapter 4's base judge (0.30, 0.15), "
    "no rule finds K in more than half of the graphs of 20-50 texts that have more than one meaning.",
    paper_value="(no study of K at small n)",
    tolerance="max over rules of P(K_hat = K | K > 1) <= 0.5 at n = 20 and 50 (quick: 20)",
    notebook=NOTEBOOK,
    kind="finding",
)
def _weak_judges(quick: bool) -> Outcome:
    df = _fresh(quick)
    judges = [j for j in WEAK if j in set(df.judge)]
    sub = df[df.judge.isin(judges) & (df.k_true > 1) & (df.n >= 20)]
    acc = study.summarise(sub, by=("n",))["accuracy"]
    value: dict[int, dict[str, Any]] = {
        int(n): {"best_rule": str(acc.loc[n].idxmax()), "accuracy": round(float(acc.loc[n].max()), 3)} for n in acc.index}
    ok = all(v["accuracy"] <= 0.5 for v in value.values())
    return decide(value, ok,
                  f"judges {', '.join(judges)}; best rule's accuracy by n: "
                  + ", ".join(f"{n}: {v['best_rule']} {v['accuracy']:.2f}" for n, v in value.items()))


@claim(
    "liu2025.k_selection_small_n",
    source=SOURCE + "; the paper's proposal of network cross-validation, which it evaluates at no small n",
    statement="Where semantic entropy is used (20-50 texts per prompt, the informative judges of Liu's Table 2), "
    "network cross-validation finds K in fewer than half of the graphs at some n, while 'auto' finds it in at "
    "least 60% of the same graphs.",
    paper_value="(the paper proposes NCV and reports no study of K at small n; liu2025.k_selection checks its claim)",
    tolerance="with the informative judges (p - q >= 0.5): replicated if P(K_hat = K) of NCV is below 0.5 at some n "
    ">= 20 where auto's is >= 0.6; not_replicated if NCV reaches 0.8 at 20 and 50 texts; partly otherwise",
    notebook=NOTEBOOK,
    kind="finding",
)
def _k_selection_small_n(quick: bool) -> Outcome:
    acc = _table(_fresh(quick), INFORMATIVE)["accuracy"]
    value = {int(n): {"ncv": round(float(acc.loc[n, "ncv"]), 3), "auto": round(float(acc.loc[n, "auto"]), 3)}
             for n in acc.index}
    big = [n for n in acc.index if n >= 20]
    if any(acc.loc[n, "ncv"] < 0.5 and acc.loc[n, "auto"] >= 0.6 for n in big):
        status = "replicated"
    elif all(acc.loc[n, "ncv"] >= 0.8 for n in big):
        status = "not_replicated"
    else:
        status = "partly"
    note = ("P(K_hat = K) of NCV (and of 'auto' on the same graphs) by n: "
            + ", ".join(f"{n}: {v['ncv']:.2f} ({v['auto']:.2f})" for n, v in value.items())
            + "; NCV's held-out loss is flat above the true K on small graphs and decided by a few verdicts "
            "(chapter 4)")
    return Outcome(value, status, note)
