"""Tests of semvar.data._ye_key: the QA answer key of Ye et al. (2024) rebuilt from public files, and its other orders."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from semvar.data._ye_key import N_ITEMS, YE_QA_KEY_RULE, _hand_out, rebuild_qa_key, refill_qa_key


def _mmlu():
    """10,002 MMLU rows: row r asks q<r> with options a<r>..d<r>, keyed r % 4; rows 1 and 2 repeat q0 and q1."""
    n = N_ITEMS + 2
    q = [f"q{r}" for r in range(n)]
    choices = [[f"{c}{r}" for c in "abcd"] for r in range(n)]
    q[N_ITEMS], q[N_ITEMS + 1] = "q0", "q1"
    choices[N_ITEMS] = ["x", "y", "a0", "z"]        # q0 again, its correct option a0 now at C
    choices[N_ITEMS + 1] = ["b1", "p", "q", "r"]    # q1 again, b1 at A
    answer = np.arange(n) % 4
    answer[N_ITEMS], answer[N_ITEMS + 1] = 2, 0
    return pd.DataFrame({"question": q, "subject": [f"s{r % 2}" for r in range(n)], "choices": choices,
                         "answer": answer})


def _records(mmlu):
    recs = [{"id": i, "question": f"q{i}", "answer": mmlu.at[i, "choices"][mmlu.at[i, "answer"]]} for i in range(N_ITEMS)]
    recs[7]["answer"] = None                       # a missing answer is the option text 'None'
    mmlu.at[7, "choices"] = ["None", "b7", "c7", "d7"]
    mmlu.at[7, "answer"] = 0
    return recs


def test_the_rule_on_rows_that_repeat_a_question():
    mmlu = _mmlu()
    key = rebuild_qa_key(_records(mmlu), mmlu, source="t.json")
    assert key.attrs["rule"] == YE_QA_KEY_RULE and key.attrs["source"] == "t.json"
    assert key.attrs["ambiguous_ids"] == [0, 1] and key.attrs["null_answer_ids"] == [7]
    assert key.loc[0, "candidates"] == "AC" and key.loc[1, "candidates"] == "AB"
    assert key.loc[0, "candidate_rows"] == (0, N_ITEMS) and key.loc[0, "mmlu_test_row"] == 0   # the first free row
    assert key.loc[7, "answer"] == "A" and key.loc[5, "answer"] == "B" and key.loc[5, "subject"] == "s1"
    assert key.attrs["n_shared_question"] == 2 and key.attrs["n_several_rows"] == 2
    assert key.attrs["row_label"] == {0: 0, 1: 1, N_ITEMS: 2, N_ITEMS + 1: 0}
    other = refill_qa_key(key, row="last")
    assert other.loc[0, "answer"] == "C" and other.loc[0, "mmlu_test_row"] == N_ITEMS
    assert (other["answer"] != key["answer"]).sum() == 2 and "the last free row" in other.attrs["rule"]
    pd.testing.assert_frame_equal(refill_qa_key(key), key.assign())


def test_errors_name_the_ids():
    mmlu = _mmlu()
    recs = _records(mmlu)
    recs[3] = {"id": 3, "question": "never asked", "answer": "a3"}
    with pytest.raises(ValueError, match=r"1 questions occur nowhere in MMLU's test split .*ids \[3\]"):
        rebuild_qa_key(recs, mmlu)
    recs[3] = {"id": 3, "question": "q3", "answer": "not an option"}
    with pytest.raises(ValueError, match=r"for 1 ids the answer text is the correct option of no MMLU row.*ids \[3\]"):
        rebuild_qa_key(recs, mmlu)
    with pytest.raises(ValueError, match="field id must hold the integers"):
        rebuild_qa_key([{**r, "id": 0} for r in recs], mmlu)


def test_hand_out_serves_in_the_order_asked():
    admissible = [[5], [1, 2], [1, 2], [3, 4]]
    assert _hand_out(admissible, "id", "first") == [5, 1, 2, 3]
    assert _hand_out(admissible, "reverse", "first") == [5, 2, 1, 3]
    assert _hand_out(admissible, "id", "last") == [5, 2, 1, 4]
    with pytest.raises(ValueError, match="order must be one of"):
        refill_qa_key(pd.DataFrame(), order="random")
