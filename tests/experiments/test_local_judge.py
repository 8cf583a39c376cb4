"""Tests of semvar.experiments.local_judge: the summaries of the stored calls (no server needed).

The calls themselves need llama.cpp's server (``make llm-install``); their path through
:class:`semvar.llm.LLMJudge` and :class:`semvar.llm.local.LocalServer` is tested in ``tests/llm``.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from semvar.experiments import local_judge as LJ
from semvar.llm.answers import soft_answer


def _frame():
    rows = []
    # model m: sas pairs, both orders; TRUE on 3 of 4 same pairs and 1 of 4 different ones
    for item, (label, ab, ba, pi_ab, pi_ba) in enumerate([(1, 1, 1, .9, .8), (1, 1, 0, .7, .4), (1, 1, 1, .6, .6),
                                                          (1, 0, 0, .3, .2), (0, 1, 1, .6, .7), (0, 0, 0, .1, .2),
                                                          (0, 0, 0, .2, .1), (0, 0, 0, .3, .3)]):
        for order, c, pi in (("ab", ab, pi_ab), ("ba", ba, pi_ba)):
            rows.append(("m", "sas", item, "NQ-open", label, order, "liu2025", "t2b512", "a", "b", c, pi))
    # a question of three answers judged a~b, b~c, a!~c: one violated path of the two TRUE paths through b
    for (a, b, c) in [("x", "y", 1), ("y", "z", 1), ("x", "z", 0)]:
        rows.append(("m", "samples", 0, "q0", -1, "ab", "liu2025", "t2b512", a, b, c, 0.9 if c else 0.1))
    for setting in ("t2b512", "t1b512"):
        rows.append(("m", "repeat", 0, "NQ-open", 1, "ab", "liu2025", setting, "a", "b", 1.0, 0.9))
    return pd.DataFrame(rows, columns=LJ.COLUMNS)


def test_rates_are_read_on_labelled_rows_for_each_kind_of_verdict():
    df = _frame()
    r = LJ.rates(df).set_index(["model", "set", "prompt"]).loc[("m", "sas", "liu2025")]
    assert (r.n_same, r.n_diff) == (8, 8) and r.p == pytest.approx(5 / 8) and r.q == pytest.approx(2 / 8)
    s = LJ.rates(df, "soft").set_index(["model", "set", "prompt"]).loc[("m", "sas", "liu2025")]
    assert s.p == pytest.approx(5 / 8) and s.q == pytest.approx(2 / 8)
    assert set(LJ.rates(df).set) == {"sas"}  # the unlabelled samples and the repeat block are not rates


def test_symmetry_transitivity_and_repeatability():
    df = _frame()
    sym = LJ.symmetry(df).iloc[0]
    assert sym.pairs == 8 and sym.verdict_differs == pytest.approx(1 / 8)
    assert sym.mean_abs_pi_gap == pytest.approx(np.mean([.1, .3, 0, .1, .1, .1, .1, 0]))
    t = LJ.transitivity(df).iloc[0]
    assert (t.paths, t.violations) == (2, 2)  # x-y-z and z-y-x, with x !~ z
    rep = LJ.repeatability(df).set_index("setting").loc["t1b512"]
    assert rep.same_word == 1.0 and rep.max_abs_pi_gap == 0.0


def test_soft_auroc_ranks_pi():
    a = LJ.soft_auroc(_frame()).iloc[0]
    assert 0.5 < a.auroc <= 1.0 and a.n == 16


def test_the_constrained_word_is_read_from_a_soft_answer():
    assert LJ._word(soft_answer(0.3, "FALSE")) == 0.0 and LJ._word(soft_answer(0.7, " TRUE")) == 1.0
    assert np.isnan(LJ._word(soft_answer(0.7, "To be"))) and np.isnan(LJ._word(None))
    assert np.isnan(LJ._word(json.dumps({"text": "TRUE"})))  # not a soft answer


def test_the_stored_calls_when_present():
    from semvar.data import result_path

    path = result_path(LJ.RESULT_FILE)
    if not path.is_file():
        pytest.skip(f"data/{LJ.RESULT_FILE} is not stored")
    df = LJ.load_calls(path)
    assert list(df.columns) == LJ.COLUMNS
    r = LJ.rates(df)
    sas = r[(r.set == "sas") & (r.prompt == "liu2025")]
    assert (sas.n_same + sas.n_diff >= 400).all() and set(sas.model) == {"smollm2", "gemma3-270m"}
    assert ((r.p >= r.p_low) & (r.p <= r.p_high) & (r.q >= r.q_low) & (r.q <= r.q_high)).all()
