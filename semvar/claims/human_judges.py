"""Records of the judges-against-humans study (chapter 7): registered with :func:`semvar.claims.claim`.

The data are three public sets of human labels (see the data README):
``sas`` (answer pairs labelled same / partly / different meaning),
``openqa_eval`` (answers judged correct or not by three annotators and by
GPT-4, text-davinci-003 and BEM) and ``evouna`` (five systems' answers with
human correctness labels).  Every rate is recomputed here at run time from
the loaded labels; the MiniLM cosines, which need the sentence-embedding
model, are read from the study that ``python -m semvar.experiments.human_judges``
writes to ``data/human_judges_*`` (checked against the loaded texts by a
digest).  When the labels are in no data directory (nor the cache) a record
says ``needs_data``.

``openqa_eval`` and ``evouna`` judge **one answer against gold answers**, not
two samples against each other: a judge's ``p`` and ``q`` there are its
sensitivity and one minus its specificity on answer-gold edges, a proxy for
the ``p`` and ``q`` of Liu's Table 2, which are read on pairs of texts of
known meaning.  ``sas`` is the pair task itself.

Each decision rule is stated in the record's ``tolerance`` and was fixed
before the study was run.
"""

from __future__ import annotations

from typing import cast

import numpy as np

from ..experiments.human_judges import (
    ANSWERERS,
    LLM_JUDGES,
    annotator_ceiling,
    judge_rates,
    length_group,
    load_study,
    rate_homogeneity,
    sas_rates,
    sbm_prediction,
    text_digest,
    verdicts_from_scores,
)
from . import Outcome, claim, shared
from ._outcome import decide, with_data

NOTEBOOK = "07_llm_judge"
_OPENQA = ("the openqa_eval labels (openqa_eval/NQ301_{human,gpt-4,text-davinci-003,BEM}.tsv, MIT, from "
           "ehsk/OpenQA-eval; see the data README)")
_SAS = ("the SAS answer-pair labels (sas/{NQ-open,SQuAD,GermanQuAD}_SAS.csv, from e184633/semantic-answer-similarity; "
        "see the data README)")
_EVOUNA = "the EVOUNA labels (evouna/NQ.json and TQ.json, Apache-2.0, from wangcunxiang/QA-Eval; see the data README)"
_TASK = "an answer judged against gold answers, not two samples against each other"
_LLMS = ("GPT-4", "text-davinci-003")


def _quietly(loader: str):
    """A shared, silent call of ``semvar.data.<loader>()``: the loader's repair report is the chapter's to show.

    The loader is looked up when called, so a replaced one (as the mutation tests make) is the one used.
    """
    def load():
        import warnings

        from .. import data

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return getattr(data, loader)()

    load.__name__ = load.__qualname__ = f"_{loader}"
    return shared(load)


_openqa = _quietly("load_openqa_eval")
_sas = _quietly("load_sas")
_evouna = _quietly("load_evouna")


def _llm_rates(oq, name: str) -> dict:
    """p, q and the length homogeneity of one released judge against the human majority (unparsed verdicts left out)."""
    col = {v: k for k, v in LLM_JUDGES.items()}[name]
    raw = oq[col if col != "bem" else "bem_verdict"]
    ok = raw.notna().to_numpy()
    v = raw[ok].astype(bool).to_numpy()
    human = oq["human"].astype(bool).to_numpy()[ok]
    r = judge_rates(v, human)
    r["homogeneity"] = rate_homogeneity(v, human, length_group(oq["answer"].astype(str).to_numpy()[ok]))
    r["unparsed"] = int((~ok).sum())
    return r


def _round(r: dict, keys=("p", "q", "p_minus_q")) -> dict:
    out = {}
    for k in keys:
        out[k] = round(r[k], 3)
        if f"{k}_ci" in r:
            out[f"{k}_ci95"] = [round(x, 3) for x in r[f"{k}_ci"]]
    return out


def _stored_scores(part: str, texts: list[str]):
    """The stored per-item scores of one part of the study, checked against the loaded texts."""
    study = load_study()
    meta = study["result"]["meta"][part]
    if meta["digest"] != text_digest(texts):
        raise ValueError(f"the stored study's {part} texts differ from the loaded data; regenerate it with "
                         "python -m semvar.experiments.human_judges")
    s = study["scores"]
    return s[s["part"] == part].reset_index(drop=True)


def _datasets(d, names=None):
    """``(name, rows, labels)`` of each SAS data set in ``d`` (all, in the frame's order, unless ``names``)."""
    for name in names if names is not None else d["dataset"].drop_duplicates().tolist():
        sel = (d["dataset"] == name).to_numpy()
        yield name, sel, d["label"].to_numpy()[sel].astype(int)


def _sas_verdicts(sas):
    keep = sas["answer1"].notna() & sas["answer2"].notna() & sas["label"].notna()
    d = sas.loc[keep]
    scores = _stored_scores("sas", d["answer1"].astype(str).tolist() + d["answer2"].astype(str).tolist())
    if not np.array_equal(scores["row"].to_numpy(), d.index.to_numpy()):
        raise ValueError("the stored SAS scores are not aligned with the loaded rows")
    return d, verdicts_from_scores(scores, correctness=False)


# --------------------------------------------------------------------------- Liu's judge model on real LLM judges

@claim(
    "liu2025.real_llm_judge_sbm",
    source="seed 000, section 2 (eqs. 3-4: the judge as a stochastic block model) and section 4, Table 2",
    statement="A language-model judge behaves as a stochastic block model with p > q: one rate p of TRUE for "
    "equivalent pairs, above one rate q for the others.  Checked on the released verdicts of GPT-4 and "
    f"text-davinci-003 on openqa_eval against the human majority ({_TASK}; p = sensitivity, q = 1 - specificity).",
    paper_value="p > q, one (p, q) per judge",
    tolerance="replicated if, for both judges, the Newcombe 95 % interval of p - q lies above 0 and neither p nor q "
    "differs across answer lengths (1-3, 4-9, 10+ words; chi-square test of homogeneity, p-value >= 0.01 for p and "
    "for q); partly if p > q holds for both but a rate differs by length; else not_replicated",
    notebook=NOTEBOOK,
)
@with_data(_openqa, _OPENQA)
def _real_llm_judge_sbm(quick: bool, oq) -> Outcome:
    rates = {name: _llm_rates(oq, name) for name in _LLMS}
    above = all(r["p_minus_q_ci"][0] > 0 for r in rates.values())
    homogeneous = all(min(r["homogeneity"]["p_pvalue"], r["homogeneity"]["q_pvalue"]) >= 0.01 for r in rates.values())
    ours = {n: {**_round(r), "length_pvalue_p": float(f"{r['homogeneity']['p_pvalue']:.2g}"),
                "length_pvalue_q": float(f"{r['homogeneity']['q_pvalue']:.2g}"), "unparsed": r["unparsed"]}
            for n, r in rates.items()}
    g = rates["GPT-4"]
    d = rates["text-davinci-003"]["homogeneity"]["q_by_group"]
    lengths = ", ".join(f"{k} words {d[k]['rate']:.2f}" for k in ("1-3", "4-9", "10+") if k in d)
    note = (f"GPT-4 p = {g['p']:.3f}, q = {g['q']:.3f} (p - q {g['p_minus_q_ci'][0]:.2f}-{g['p_minus_q_ci'][1]:.2f}); "
            f"text-davinci-003's q by answer length: {lengths}; {_TASK}")
    return decide(ours, above and homogeneous, note, partly=above)


@claim(
    "humanjudges.llm_judges_phase",
    source="chapter 7 (the book's own study); the phase change of Liu (2025), seed 000, section 4, Figure 1, and "
    "the SBM error of chapter 3",
    statement="GPT-4 and text-davinci-003, read as Liu's judges through their sensitivity and specificity on "
    "openqa_eval, lie above Liu's change point (p - q > 0.4), where the stochastic block model predicts a small "
    "entropy error at the settings of Table 1.",
    paper_value="p - q > 0.4; SBM error < 0.05",
    tolerance="replicated if, for both judges, the lower end of the Newcombe 95 % interval of p - q exceeds 0.4 and "
    "the SBM's mean |E_bar - E_hat| over Table 1's nine cells (10 graphs per cell, 3 in the quick run) is below 0.05 "
    "and below a quarter of the error of a blind judge (p = q = the judge's q) at the same settings, with both "
    "Laplacians (an error is small only against what no signal gives); partly if only the first holds; else "
    "not_replicated",
    notebook=NOTEBOOK,
    kind="finding",
)
@with_data(_openqa, _OPENQA)
def _llm_judges_phase(quick: bool, oq) -> Outcome:
    ours, above, small = {}, True, True
    for name in _LLMS:
        r = _llm_rates(oq, name)
        pred = sbm_prediction(r["p"], r["q"], iterations=3 if quick else 10)
        blind = sbm_prediction(r["q"], r["q"], iterations=3 if quick else 10)
        err = {c: round(v["all"], 4) for c, v in pred["table1_error"].items()}
        err0 = {c: round(v["all"], 4) for c, v in blind["table1_error"].items()}
        ours[name] = {**_round(r), "sbm_table1_error": err, "blind_judge_error": err0}
        above &= r["p_minus_q_ci"][0] > 0.4
        small &= max(err.values()) < 0.05 and all(err[c] < err0[c] / 4 for c in err)
    g = ours["GPT-4"]
    note = (f"GPT-4 p - q = {g['p_minus_q']:.2f} ({g['p_minus_q_ci95'][0]:.2f}-{g['p_minus_q_ci95'][1]:.2f}), "
            f"SBM error {g['sbm_table1_error']['normalized']:.3f} (D^-1/2 E D^-1/2) and "
            f"{g['sbm_table1_error']['unnormalized']:.3f} (D - E), a blind judge "
            f"{g['blind_judge_error']['normalized']:.3f} and {g['blind_judge_error']['unnormalized']:.3f}; "
            "independent errors assumed, which real judges "
            "do not have; " + _TASK)
    return decide(ours, above and small, note, partly=above)


@claim(
    "humanjudges.human_ceiling",
    source="chapter 7 (the book's own study); human labels of openqa_eval (Kamalloo et al. 2023)",
    statement="Read as judges of each other, the two annotators of openqa_eval separate correct from incorrect "
    "answers better than GPT-4 separates the answers their majority calls correct: annotator 1 against annotator 2 "
    "(either as the reference) has a larger p - q than GPT-4 against the human majority.",
    paper_value="annotators' p - q > GPT-4's",
    tolerance="replicated if both directions' p - q exceed GPT-4's and their Newcombe 95 % intervals lie above "
    "GPT-4's interval; partly if both point estimates exceed GPT-4's; else not_replicated; control first: the "
    "human majority GPT-4 is read against must be the majority of the annotators' labels on every answer (else "
    "GPT-4 is scored against labels that are not the annotators': not_replicated)",
    notebook=NOTEBOOK,
    kind="finding",
)
@with_data(_openqa, _OPENQA)
def _human_ceiling(quick: bool, oq) -> Outcome:
    g = _llm_rates(oq, "GPT-4")
    rows = [r for r in annotator_ceiling(oq[["annotator1", "annotator2", "annotator3"]])
            if r["kind"] == "pairwise" and {r["reference"], r["judge"]} == {"annotator1", "annotator2"}]
    if len(rows) != 2:
        raise ValueError("annotators 1 and 2 must share labelled items in both classes")
    votes = oq[["annotator1", "annotator2", "annotator3"]].astype("boolean")
    majority = (2 * votes.sum(axis=1, skipna=True) > votes.notna().sum(axis=1)).to_numpy()
    off = int((majority != oq["human"].astype(bool).to_numpy()).sum())
    points = off == 0 and all(r["p_minus_q"] > g["p_minus_q"] for r in rows)
    apart = all(r["p_minus_q_ci"][0] > g["p_minus_q_ci"][1] for r in rows)
    ours = {"GPT-4 vs majority": _round(g)}
    for r in rows:
        ours[f"{r['judge']} vs {r['reference']}"] = {**_round(r), "items": r["items"], "agreement": round(r["agreement"], 3)}
    a = rows[0]
    note = (f"annotator 2 against annotator 1: p = {a['p']:.3f}, q = {a['q']:.3f}, agreement {a['agreement']:.3f} on "
            f"{a['items']:,} answers; GPT-4 against the majority p - q = {g['p_minus_q']:.3f}; the majority is decided "
            "by a third annotator where the two disagree" + (f"; {off} answers' human label is not the "
                                                              "annotators' majority" if off else ""))
    return decide(ours, points and apart, note, partly=points)


# --------------------------------------------------------------------------- MiniLM on human-labelled answer pairs

@claim(
    "humanjudges.minilm_sas_separates",
    source="chapter 7 (the book's own study); the judge model of Liu (2025), seed 000, eqs. 3-4; SAS labels "
    "(Risch et al. 2021)",
    statement="On answer pairs that people labelled same or different meaning (SAS), the MiniLM cosine judge at "
    "threshold 0.7 says TRUE more often to same-meaning pairs than to different ones (p - q > 0) in each of the "
    "three data sets, the German one included.",
    paper_value="p - q > 0 in NQ-open, SQuAD and GermanQuAD",
    tolerance="replicated if the lower end of the Newcombe 95 % interval of p - q exceeds 0 in all three data sets; "
    "partly if in one or two; else not_replicated",
    notebook=NOTEBOOK,
    kind="finding",
)
@with_data(_sas, _SAS)
def _minilm_sas_separates(quick: bool, sas) -> Outcome:
    d, verdicts = _sas_verdicts(sas)
    v = verdicts["MiniLM cos>=0.7"]
    ours, ok = {}, []
    for name, sel, lab in _datasets(d):
        r = sas_rates(v[sel], lab)
        ours[name] = {**_round(r), "partly": round(r["partly"], 3)}
        ok.append(r["p_minus_q_ci"][0] > 0)
    n = ours["NQ-open"]
    note = (f"NQ-open p = {n['p']:.3f}, q = {n['q']:.3f}; GermanQuAD p - q = {ours['GermanQuAD']['p_minus_q']:.3f} "
            "(an English embedding model on German); label 1 (partly) reported apart")
    return decide(ours, all(ok), note, partly=any(ok))


@claim(
    "humanjudges.minilm_sas_phase",
    source="chapter 7 (the book's own study); the phase change of Liu (2025), seed 000, section 4, Figure 1",
    statement="On the English SAS answer pairs (NQ-open, SQuAD), MiniLM at its best cosine threshold among 0.6, 0.7, "
    "0.8 and 0.9 reaches Liu's change point: p - q > 0.4.",
    paper_value="p - q > 0.4",
    tolerance="replicated if, in both English data sets, the best threshold's Newcombe 95 % interval of p - q lies "
    "above 0.4; partly if only its point estimate exceeds 0.4 in both; else not_replicated",
    notebook=NOTEBOOK,
    kind="finding",
)
@with_data(_sas, _SAS)
def _minilm_sas_phase(quick: bool, sas) -> Outcome:
    d, verdicts = _sas_verdicts(sas)
    ours, lower, point = {}, [], []
    for name, sel, lab in _datasets(d, ("NQ-open", "SQuAD")):
        best = None
        for j, v in verdicts.items():
            if j.startswith("MiniLM"):
                r = sas_rates(v[sel], lab)
                if best is None or r["p_minus_q"] > best[1]["p_minus_q"] + 1e-12:
                    best = (j, r)
        j, r = cast("tuple[str, dict]", best)  # the verdicts hold MiniLM judges
        ours[name] = {"judge": j, **_round(r)}
        lower.append(r["p_minus_q_ci"][0] > 0.4)
        point.append(r["p_minus_q"] > 0.4)
    note = "; ".join(f"{k}: {v['judge']} p - q = {v['p_minus_q']:.3f} ({v['p_minus_q_ci95'][0]:.3f}-"
                     f"{v['p_minus_q_ci95'][1]:.3f})" for k, v in ours.items())
    return decide(ours, all(lower), note, partly=all(point))


@claim(
    "humanjudges.partly_between",
    source="chapter 7 (the book's own study); the two-class judge model of Liu (2025), seed 000, eqs. 3-4, and its "
    "section 6 (texts that partly agree)",
    statement="Answer pairs that people call 'partly the same' (SAS label 1) get a TRUE rate between q and p from "
    "MiniLM at every threshold 0.6-0.9 in every SAS data set: a graded relation that a two-class model of the judge "
    "has no place for.",
    paper_value="q < rate(partly) < p",
    tolerance="replicated if q < rate on label 1 < p (point estimates) for all 12 (threshold, data set) cells; "
    "partly if for at least 9; else not_replicated",
    notebook=NOTEBOOK,
    kind="finding",
)
@with_data(_sas, _SAS)
def _partly_between(quick: bool, sas) -> Outcome:
    d, verdicts = _sas_verdicts(sas)
    ours, hits, cells = {}, 0, 0
    for name, sel, lab in _datasets(d):
        for j, v in verdicts.items():
            if not j.startswith("MiniLM"):
                continue
            r = sas_rates(v[sel], lab)
            inside = r["q"] < r["partly"] < r["p"]
            hits += inside
            cells += 1
            ours[f"{name}, {j}"] = [round(r["q"], 3), round(r["partly"], 3), round(r["p"], 3)]
    note = f"q < partly < p in {hits} of {cells} cells (values listed as [q, partly, p])"
    return decide(ours, hits == cells, note, partly=hits >= 0.75 * cells)


# --------------------------------------------------------------------------- correctness judges on EVOUNA

@claim(
    "humanjudges.evouna_answerer_dependence",
    source="chapter 7 (the book's own study); the one-(p, q) judge of Liu (2025), seed 000, eqs. 3-4; EVOUNA labels "
    "(Wang et al. 2023)",
    statement="As correctness judges on EVOUNA, MiniLM (cosine >= 0.7) and word overlap have no single p: the "
    "share of human-accepted answers they accept differs between answering systems (short extractive answers "
    f"against long chat answers), on both NQ and TriviaQA ({_TASK}).",
    paper_value="one p per judge (the SBM)",
    tolerance="replicated (the dependence is found) if, for both judges and both data sets, the highest and the "
    "lowest p among the five systems have disjoint Wilson 95 % intervals; partly if in some of the four cases; "
    "else not_replicated; control first: pooled over the systems, each judge's p and q (Wilson 95 % intervals) "
    "must lie apart with p > q on each data set, else it is no correctness judge and has no p to compare: "
    "not_replicated",
    notebook=NOTEBOOK,
    kind="finding",
)
@with_data(_evouna, _EVOUNA)
def _evouna_answerer_dependence(quick: bool, ev) -> Outcome:
    study = load_study()
    s = study["scores"]
    s = s[s["part"] == "evouna"].reset_index(drop=True)
    rows = s["row"].to_numpy()
    answers = [str(ev.at[r, f"answer_{a}"]) for r, a in zip(rows, s["answerer"])]
    if study["result"]["meta"]["evouna"]["digest"] != text_digest(answers):
        raise ValueError("the stored EVOUNA scores differ from the loaded answers; regenerate the study")
    human = np.array([bool(ev.at[r, f"label_{a}"]) for r, a in zip(rows, s["answerer"])])
    dataset = ev["dataset"].to_numpy()[ev.index.get_indexer(rows)]
    verdicts = verdicts_from_scores(s, correctness=True)
    ours, found, judges = {}, [], True
    for j in ("MiniLM cos>=0.7", "word overlap (Jaccard>=0.5)"):
        for name in ("NQ", "TQ"):
            pooled = judge_rates(verdicts[j][dataset == name], human[dataset == name])
            judges &= pooled["p_ci"][0] > pooled["q_ci"][1]
            ps = {}
            for a in ANSWERERS:
                sel = (dataset == name) & (s["answerer"].to_numpy() == a)
                ps[a] = judge_rates(verdicts[j][sel], human[sel])
            hi = max(ps, key=lambda a: (ps[a]["p"], a))
            lo = min(ps, key=lambda a: (ps[a]["p"], a))
            found.append(ps[lo]["p_ci"][1] < ps[hi]["p_ci"][0])
            ours[f"{name}, {j}"] = {a: round(r["p"], 3) for a, r in ps.items()}
    k = ours["NQ, MiniLM cos>=0.7"]
    note = (f"MiniLM 0.7 on NQ: p from {min(k.values()):.2f} to {max(k.values()):.2f} across the five systems; "
            f"dependence found in {sum(found)} of 4 cases" + ("" if judges else "; a judge does not separate "
                                                                  "human-accepted from rejected answers (p <= q)"))
    return decide(ours, judges and all(found), note, partly=judges and any(found))
