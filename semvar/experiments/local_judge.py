"""Study: small open language models as the judge, on this machine, measured as Liu's Table 2 measures judges.

For each registry model of :mod:`semvar.llm.local` (llama.cpp's server on
127.0.0.1, temperature 0), every call asks for a constrained answer (the
llama.cpp grammar ``TRUE | FALSE``) and the first token's log-probabilities
together, so each call gives two verdicts: the **constrained** one (the word
the grammar let the model write) and the **soft** one
(``pi = P(TRUE) / (P(TRUE) + P(FALSE))`` before the grammar, thresholded at
0.5; ``pi`` is kept).  The items (:func:`items`):

* ``sas``: :data:`SAS_PER_CELL` pairs of each of labels 2 (same meaning) and
  0 (different) from each of the three SAS data sets (NQ-open, SQuAD,
  GermanQuAD), drawn with seed :data:`SEED`: 420 pairs;
* ``openqa``: :data:`OPENQA_PER_CLASS` answers the annotators accept and as
  many they reject, from OpenQA-eval, each against its gold answers (joined
  with " / "): 400 items;
* ``samples``: the first :data:`SAMPLE_QUESTIONS` questions of chapter 10
  (LLaMA-13B's TriviaQA answers), the first :data:`SAMPLE_ANSWERS` distinct
  answers of each, every unordered pair: for transitivity and for the
  pipeline end to end.

What each model is asked is its plan (:data:`PLANS`; a call takes about a
second on two cores): the default model both orders of every ``sas`` pair
(symmetry) with the paper's prompt, the ``sas`` pairs with a shorter prompt
(:data:`SHORT_PROMPT`), ``openqa`` and ``samples``; the other model ``sas``
and ``openqa`` with the paper's prompt.  A **repeatability** block asks the
first :data:`REPEAT_ITEMS` ``sas`` pairs again on fresh servers with other
thread counts and batch sizes (:data:`REPEAT_SETTINGS`), without the cache.

Every call goes through :class:`semvar.llm.LLMJudge` with a cache in the
cache folder, so an interrupted run resumes.  Writes
``data/local_judge.csv.gz`` (one row per call: ``model, set, item, group,
label, order, prompt, setting, text_a, text_b, constrained, pi``) and
``data/local_judge_meta.json`` (models, settings, llama-cpp-python's version,
calls per second).  Run ``python -m semvar.experiments.local_judge`` (about
45 minutes for both models on two cores; ``--models smollm2`` for one,
``--quick`` for a smoke run) after ``make llm-install``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..data import cache_dir, load_openqa_eval, load_sas, load_uq_nlg, result_path
from ..graph import all_pairs, collapse_duplicates
from ..llm import LLMJudge
from ..llm.answers import score_of_answer
from ..llm.local import MODELS, LocalServer

__all__ = ["RESULT_FILE", "META_FILE", "SEED", "SAS_PER_CELL", "OPENQA_PER_CLASS", "SAMPLE_QUESTIONS",
           "SAMPLE_ANSWERS", "REPEAT_ITEMS", "REPEAT_SETTINGS", "SHORT_PROMPT", "PLANS", "COLUMNS", "items", "run_model",
           "load_calls", "rates", "soft_auroc", "symmetry", "transitivity", "repeatability", "repeat_rows", "External", "samples_pipeline", "main"]

RESULT_FILE = "local_judge.csv.gz"
META_FILE = "local_judge_meta.json"
SEED = 3434
SAS_PER_CELL = 70
OPENQA_PER_CLASS = 200
SAMPLE_QUESTIONS = 12
SAMPLE_ANSWERS = 8
REPEAT_ITEMS = 30
#: (threads, batch) of the repeat runs; the main run uses 2 threads and batch 512
REPEAT_SETTINGS = ((2, 512), (1, 512), (2, 64), (1, 64), (2, 128))
#: a shorter prompt than the paper's, to see what the wording is worth to a small model
SHORT_PROMPT = ("Do TEXT A and TEXT B mean the same thing? Answer TRUE or FALSE.\n\n"
                "TEXT A:\n{text_A}\n\nTEXT B:\n{text_B}\n\nAnswer:")
#: per model, the (set, prompt, orders) asked: the default model everything, the other the two Table 2 sets
PLANS: dict[str, tuple[tuple[str, str, tuple[str, ...]], ...]] = {
    "smollm2": (("sas", "liu2025", ("ab", "ba")), ("sas", "short", ("ab",)), ("openqa", "liu2025", ("ab",)),
                ("samples", "liu2025", ("ab",))),
    "other": (("sas", "liu2025", ("ab",)), ("openqa", "liu2025", ("ab",))),
}
COLUMNS = ["model", "set", "item", "group", "label", "order", "prompt", "setting", "text_a", "text_b",
           "constrained", "pi"]


def load_calls(path: str | os.PathLike | None = None) -> pd.DataFrame:
    """The stored calls (default: the project's ``data/`` file), with every text read as written.

    pandas would read an answer such as "None" or "NA" as a missing value; only the two number columns
    may be missing here.
    """
    path = result_path(RESULT_FILE) if path is None else path
    df = pd.read_csv(path, keep_default_na=False, na_values={"constrained": [""], "pi": [""]},
                     dtype={"text_a": str, "text_b": str, "group": str})
    missing = set(COLUMNS) - set(df.columns)
    if missing:
        raise ValueError(f"{path} lacks the columns {sorted(missing)}")
    return df


def items(*, quick: bool = False, seed: int = SEED) -> dict[str, pd.DataFrame]:
    """The items of each set: ``item, group, label, text_a, text_b`` (see the module docstring)."""
    rng = np.random.default_rng(seed)
    per_cell = 5 if quick else SAS_PER_CELL
    sas = load_sas()
    picked = []
    for (ds, _lab), g in sas[sas.label.isin([0, 2])].groupby(["dataset", "label"], sort=True):
        take = rng.choice(len(g), size=min(per_cell, len(g)), replace=False)
        picked.append(g.iloc[np.sort(take)].assign(group=ds))
    s = pd.concat(picked)
    sas_items = pd.DataFrame({"item": s.index.astype(int), "group": s.group, "label": (s.label == 2).astype(int),
                              "text_a": s.answer1.astype(str), "text_b": s.answer2.astype(str)})
    oq = load_openqa_eval()
    oq = oq[oq.human.notna()]
    per_class = 5 if quick else OPENQA_PER_CLASS
    parts = []
    for lab in (True, False):
        g = oq[oq.human.astype(bool) == lab]
        parts.append(g.iloc[np.sort(rng.choice(len(g), size=min(per_class, len(g)), replace=False))])
    o = pd.concat(parts)
    gold = o.gold.map(lambda g: " / ".join(g) if isinstance(g, (list, tuple, np.ndarray)) else str(g))
    oq_items = pd.DataFrame({"item": o.id.astype(int), "group": "openqa", "label": o.human.astype(bool).astype(int),
                             "text_a": o.answer.astype(str), "text_b": gold.astype(str)})
    frame = load_uq_nlg(progress=False)
    rows = []
    for q, answers in enumerate(frame["answers"].iloc[: 3 if quick else SAMPLE_QUESTIONS]):
        distinct = collapse_duplicates(list(answers))[0][: 4 if quick else SAMPLE_ANSWERS]
        for i, j in all_pairs(len(distinct)):
            rows.append((q * 1000 + i * 32 + j, f"q{q}", -1, distinct[i], distinct[j]))
    smp = pd.DataFrame(rows, columns=["item", "group", "label", "text_a", "text_b"])
    return {"sas": sas_items.reset_index(drop=True), "openqa": oq_items.reset_index(drop=True), "samples": smp}


def _ask(server: LocalServer | External, texts_a, texts_b, prompt: str, cache: Path | None):
    """Constrained verdicts (1, 0 or NaN), soft probabilities and the requests made, for the ordered pairs
    ``(texts_a[k], texts_b[k])``; two identical strings are TRUE without a call."""
    texts = list(dict.fromkeys(list(texts_a) + list(texts_b)))
    index = {t: i for i, t in enumerate(texts)}
    P = np.array([[index[a], index[b]] for a, b in zip(texts_a, texts_b)], dtype=np.int64).reshape(-1, 2)
    judge = LLMJudge(server.base_url, server.model, api_key="", prompt=prompt, cache_path=cache, temperature=0.0,
                     max_tokens=4, constrain="grammar", soft=True, concurrency=1, timeout=120.0, max_retries=2,
                     progress=True)
    try:
        raw = judge.answers(texts, P)
    finally:
        judge.close()
    same = P[:, 0] == P[:, 1]
    word = np.array([1.0 if s else _word(a) for s, a in zip(same, raw)])
    found = [None if a is None else score_of_answer(a) for a in raw]
    pi = np.array([1.0 if s else (np.nan if v is None else v) for s, v in zip(same, found)])
    return word, pi, judge.stats.requests


def _word(answer) -> float:
    """The constrained word of a soft answer's text: 1 (TRUE), 0 (FALSE), NaN (none)."""
    if answer is None or score_of_answer(answer) is None:
        return np.nan
    t = str(json.loads(answer).get("text", "")).strip().upper()
    return 1.0 if t.startswith("TRUE") else 0.0 if t.startswith("FALSE") else np.nan


class External:
    """A server someone else started (vLLM or llama.cpp on a GPU machine): its base URL and model name."""

    def __init__(self, base_url: str, model: str):
        self.base_url, self.model = base_url, model

    def __enter__(self) -> External:
        return self

    def __exit__(self, *exc) -> None:
        return None


def run_model(model: str, sets: dict[str, pd.DataFrame], *, quick: bool = False,
              base_url: str | None = None) -> tuple[list[tuple], dict]:
    """Every call of one model: the rows of :data:`COLUMNS` and the model's run facts.

    ``base_url``: the model is served there already (any OpenAI-compatible server that takes llama.cpp's
    ``grammar`` field and ``logprobs``); it gets the default model's plan, and its repeat block asks the
    same server again without the cache instead of starting fresh servers.
    """
    if base_url is None:
        facts: dict[str, Any] = {"model": model, "description": MODELS[model].description,
                                 "licence": MODELS[model].licence}
    else:
        facts = {"model": model, "base_url": base_url}
    rows = []
    cache = Path(cache_dir()) / f"local_judge_{model.replace('/', '_')}.sqlite"
    plan = PLANS.get(model, PLANS["other"]) if base_url is None else PLANS["smollm2"]
    with (LocalServer(model, threads=2, batch=512) if base_url is None else External(base_url, model)) as server:
        t0, calls = time.monotonic(), 0
        for name, prompt, orders in plan:
            df = sets[name]
            for order in orders:
                a, b = (df.text_a, df.text_b) if order == "ab" else (df.text_b, df.text_a)
                template = SHORT_PROMPT if prompt == "short" else prompt
                c, pi, n = _ask(server, a, b, template, cache)
                calls += n
                rows += [(model, name, int(r.item), r.group, int(r.label), order, prompt, "t2b512", r.text_a, r.text_b,
                          c[k], pi[k]) for k, r in enumerate(df.itertuples(index=False))]
        facts["calls_per_second"] = calls / max(time.monotonic() - t0, 1e-9) if calls else None
        facts["calls"] = calls
        if base_url is not None:  # the same server asked again, twice, without the cache
            rep = sets["sas"].iloc[: 5 if quick else REPEAT_ITEMS]
            for again in range(2):
                c, pi, _ = _ask(server, rep.text_a, rep.text_b, "liu2025", None)
                rows += [(model, "repeat", int(r.item), r.group, int(r.label), "ab", "liu2025", f"again{again}",
                          r.text_a, r.text_b, c[k], pi[k]) for k, r in enumerate(rep.itertuples(index=False))]
    if base_url is None:
        rows += repeat_rows(model, sets, REPEAT_SETTINGS, quick=quick)
    return rows, facts


def repeat_rows(model: str, sets: dict[str, pd.DataFrame], settings: Sequence[tuple[int, int]], *,
                quick: bool = False) -> list[tuple]:
    """The repeatability block: the first ``sas`` pairs on a fresh server per (threads, batch), no cache."""
    rep = sets["sas"].iloc[: 5 if quick else REPEAT_ITEMS]
    rows = []
    for threads, batch in settings:  # does the same call give the same answer on another start and setting?
        with LocalServer(model, threads=threads, batch=batch) as server:
            c, pi, _ = _ask(server, rep.text_a, rep.text_b, "liu2025", None)
        rows += [(model, "repeat", int(r.item), r.group, int(r.label), "ab", "liu2025", f"t{threads}b{batch}",
                  r.text_a, r.text_b, c[k], pi[k]) for k, r in enumerate(rep.itertuples(index=False))]
    return rows


def rates(df: pd.DataFrame, verdict: str = "constrained") -> pd.DataFrame:
    """p and q with Wilson 95 % intervals per model, set, prompt (and order pooled), on labelled rows.

    ``verdict``: "constrained" (the word) or "soft" (``pi >= 0.5``).  Rows without a verdict are left out
    and counted (``unjudged``).
    """
    from .human_judges import judge_rates

    d = df[(df.label >= 0) & (df.set != "repeat")].copy()
    d["v"] = d.constrained if verdict == "constrained" else np.where(d.pi.isna(), np.nan, (d.pi >= 0.5) * 1.0)
    out = []
    for key, g in d.groupby(["model", "set", "prompt"], sort=True):
        ok = g.v.notna()
        r = judge_rates(g.v[ok].astype(bool).to_numpy(), g.label[ok].astype(bool).to_numpy())
        out.append({"model": key[0], "set": key[1], "prompt": key[2], "verdict": verdict, "p": r["p"],
                    "p_low": r["p_ci"][0], "p_high": r["p_ci"][1], "q": r["q"], "q_low": r["q_ci"][0],
                    "q_high": r["q_ci"][1], "p_minus_q": r["p_minus_q"], "n_same": r["n_same"],
                    "n_diff": r["n_diff"], "unjudged": int((~ok).sum())})
    return pd.DataFrame(out)


def soft_auroc(df: pd.DataFrame) -> pd.DataFrame:
    """How well ``pi`` ranks same-meaning pairs above the others, threshold-free: AUROC with DeLong's 95 %
    interval per model, set and prompt (both orders pooled), on labelled rows with a ``pi``."""
    from ..evaluation import auroc_ci

    d = df[(df.label >= 0) & (df.set != "repeat") & df.pi.notna()]
    out = []
    for (model, name, prompt), g in d.groupby(["model", "set", "prompt"], sort=True):
        auc, low, high = auroc_ci(g.pi.to_numpy(float), g.label.to_numpy().astype(bool))
        out.append({"model": model, "set": name, "prompt": prompt, "auroc": auc, "low": low, "high": high,
                    "n": len(g)})
    return pd.DataFrame(out)


def symmetry(df: pd.DataFrame) -> pd.DataFrame:
    """Per model, set and prompt: the share of pairs whose constrained verdict differs between the two orders,
    and the mean ``|pi(a, b) - pi(b, a)|``."""
    d = df[df.set.isin(["sas", "openqa"])]
    wide = d.pivot_table(index=["model", "set", "prompt", "item"], columns="order", values=["constrained", "pi"],
                         aggfunc="first")
    both = wide.dropna()
    g = both.groupby(level=["model", "set", "prompt"])
    return pd.DataFrame({
        "pairs": g.size(),
        "verdict_differs": g.apply(lambda x: float((x[("constrained", "ab")] != x[("constrained", "ba")]).mean())),
        "mean_abs_pi_gap": g.apply(lambda x: float((x[("pi", "ab")] - x[("pi", "ba")]).abs().mean())),
    }).reset_index()


def transitivity(df: pd.DataFrame, verdict: str = "constrained") -> pd.DataFrame:
    """Per model: transitivity violations of the verdicts on the ``samples`` questions (paths ``i - j - k`` with
    both pairs TRUE and ``i - k`` FALSE, among paths with both pairs TRUE), unordered pairs read symmetrically."""
    from ..relation import count_violations

    d = df[df.set == "samples"]
    out = []
    for model, g in d.groupby("model", sort=True):
        paths = violations = 0
        for _, q in g.groupby("group"):
            texts = list(dict.fromkeys(list(q.text_a) + list(q.text_b)))
            ix = {t: i for i, t in enumerate(texts)}
            R = np.eye(len(texts), dtype=bool)
            v = q.constrained if verdict == "constrained" else (q.pi >= 0.5)
            for a, b, x in zip(q.text_a, q.text_b, v):
                R[ix[a], ix[b]] = R[ix[b], ix[a]] = bool(x == 1) if verdict == "constrained" else bool(x)
            c = count_violations(R)
            paths += c.paths
            violations += c.transitivity
        out.append({"model": model, "verdict": verdict, "paths": paths, "violations": violations,
                    "share": violations / paths if paths else np.nan})
    return pd.DataFrame(out)


def repeatability(df: pd.DataFrame) -> pd.DataFrame:
    """Per model: over the repeat items, whether fresh servers with other thread counts and batch sizes gave the
    same constrained word and the same ``pi`` (to the six digits stored) as the first repeat setting."""
    d = df[df.set == "repeat"]
    out = []
    for model, g in d.groupby("model", sort=True):
        w = g.pivot_table(index="item", columns="setting", values=["constrained", "pi"], aggfunc="first")
        present = list(dict.fromkeys(g.setting))  # in the order they were run; the first is the base
        base, others = present[0], present[1:]
        for other in others:
            out.append({"model": model, "setting": other, "items": len(w),
                        "same_word": float((w[("constrained", base)] == w[("constrained", other)]).mean()),
                        "max_abs_pi_gap": float((w[("pi", base)] - w[("pi", other)]).abs().max())})
        main_run = df[(df.model == model) & (df.set == "sas") & (df.prompt == "liu2025") & (df.order == "ab")]
        m = main_run.set_index("item").pi.reindex(w.index)
        out.append({"model": model, "setting": "main run (cached)", "items": int(m.notna().sum()),
                    "same_word": float((main_run.set_index("item").constrained.reindex(w.index)
                                        == w[("constrained", base)]).mean()),
                    "max_abs_pi_gap": float((m - w[("pi", base)]).abs().max())})
    return pd.DataFrame(out)


def samples_pipeline(df: pd.DataFrame) -> pd.DataFrame:
    """The method end to end on the ``samples`` questions: per model and question, K (``k="auto"``) and the
    entropy of the distinct answers judged by the model's constrained verdicts, beside the same with chapter
    10's judges (exact match, MiniLM cosine at 0.9) on the same answers."""
    from ..pipeline import graph_entropy
    from .regime import COSINES_FILE, judge_matrices

    d = df[df.set == "samples"]
    frame = load_uq_nlg(progress=False)
    with np.load(result_path(COSINES_FILE)) as z:
        cos = z["cosines_x10000"].astype(float) / 10_000
    out = []
    for (model, group), g in d.groupby(["model", "group"], sort=True):
        q = int(group[1:])
        answers = list(frame["answers"].iloc[q])
        distinct, _, first = collapse_duplicates(answers, return_first=True)
        texts = list(dict.fromkeys(list(g.text_a) + list(g.text_b)))
        idx = [distinct.index(t) for t in texts]
        pos = {t: i for i, t in enumerate(texts)}
        A = np.zeros((len(texts), len(texts)))
        for a, b, v in zip(g.text_a, g.text_b, g.constrained):
            A[pos[a], pos[b]] = A[pos[b], pos[a]] = float(v == 1)
        row = {"model": model, "question": q, "n": len(texts)}
        sub = np.asarray(first)[idx]
        mats = judge_matrices(texts, cos[q][np.ix_(sub, sub)])
        for name, M in (("local", A), ("exact", mats["exact"][0]), ("minilm90", mats["minilm90"][0])):
            h, sel = graph_entropy(np.asarray(M, dtype=float), "auto", k_max=len(texts) - 1, random_state=0,
                                   return_k=True)
            row[f"k_{name}"], row[f"h_{name}"] = sel.k, h
        out.append(row)
    return pd.DataFrame(out)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m semvar.experiments.local_judge", description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    ap.add_argument("--quick", action="store_true", help="a few items of each set (a smoke run)")
    ap.add_argument("--out", type=Path, default=None, help=f"output file (default: the project's data/{RESULT_FILE})")
    ap.add_argument("--base-url", default=None,
                    help="judge with a server that is already running (vLLM or llama.cpp on a GPU machine) instead "
                    "of starting a registry model; --model-name names its model")
    ap.add_argument("--model-name", default=None, help="the model's name on --base-url")
    ap.add_argument("--repeat-only", action="store_true",
                    help="add the repeat settings the output file lacks to it, nothing else")
    args = ap.parse_args(argv)
    out = args.out if args.out is not None else result_path(RESULT_FILE)
    sets = items(quick=args.quick)
    if args.repeat_only:
        old = load_calls(out)
        rows = []
        for model in args.models:
            have = set(old[(old.model == model) & (old.set == "repeat")].setting)
            todo = [(t, b) for t, b in REPEAT_SETTINGS if f"t{t}b{b}" not in have]
            rows += repeat_rows(model, sets, todo, quick=args.quick)
        pd.concat([old, pd.DataFrame(rows, columns=COLUMNS)], ignore_index=True).to_csv(
            out, index=False, float_format="%.6g")
        print(f"added {len(rows)} repeat rows to {out}")
        return 0
    rows = []
    meta: dict[str, Any] = {"models": {}, "seed": SEED, "machine": f"{platform.machine()}, {os.cpu_count()} CPUs"}
    try:
        import llama_cpp

        meta["llama_cpp_python"] = llama_cpp.__version__
    except ImportError:
        pass
    if (args.base_url is None) != (args.model_name is None):
        ap.error("--base-url and --model-name go together")
    targets = [(args.model_name, args.base_url)] if args.base_url else [(m, None) for m in args.models]
    for model, base_url in targets:
        r, facts = run_model(model, sets, quick=args.quick, base_url=base_url)
        rows += r
        meta["models"][model] = facts
        df = pd.DataFrame(rows, columns=COLUMNS)  # written after each model: a later failure keeps the earlier
        df.to_csv(out, index=False, float_format="%.6g")
        Path(out).with_name(META_FILE if args.out is None else Path(out).name.split(".")[0] + "_meta.json").write_text(
            json.dumps(meta, indent=2) + "\n")
    print(f"wrote {len(rows)} rows to {out}")
    df = pd.DataFrame(rows, columns=COLUMNS)
    with pd.option_context("display.width", 200):
        for v in ("constrained", "soft"):
            print(rates(df, v).round(3).to_string())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
