"""Tests of the Ye et al. (2024) QA answer key rebuilt from public files, of ``semvar.conformal.ye_table``
and of the range of values an open key allows (``semvar.conformal.protocol.key_range``).

Golden values come from the paper (``semvar.papers``: Qwen-72B 72.53 / 2.45 / 93.43, Yi-34B 71.24 / 2.60,
the QA column of the base-model tables) and from brute force (every key enumerated), never from the code
under test.
"""

from __future__ import annotations

import itertools
import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import semvar.conformal as cf
from semvar import data
from semvar.conformal.protocol import key_range
from semvar.data._ye_key import rebuild_qa_key as _rebuild_qa_key
from semvar.papers import YE_QA_BASE, YE_QWEN72B_QA

N = 10000


# --------------------------------------------------------------------------- a synthetic MMLU and its 10k records


def _mmlu(n_rows=N + 10):
    """Rows with distinct questions q0, q1, ... (choices a/b/c/d + row), keyed answer row % 4."""
    return pd.DataFrame({
        "question": [f"q{r}" for r in range(n_rows)],
        "subject": ["s" + str(r % 3) for r in range(n_rows)],
        "choices": [[f"{c}{r}" for c in "abcd"] for r in range(n_rows)],
        "answer": np.arange(n_rows) % 4,
    })


def _records(mmlu, rows):
    q, c, a = mmlu["question"].tolist(), mmlu["choices"].tolist(), mmlu["answer"].tolist()
    return [{"id": i, "question": q[r], "answer": c[r][a[r]]} for i, r in enumerate(rows)]


def test_rebuild_plain_rows_take_mmlu_letters():
    mmlu = _mmlu()
    rows = np.random.default_rng(0).permutation(len(mmlu))[:N]
    key = _rebuild_qa_key(_records(mmlu, rows), mmlu)
    assert key["id"].tolist() == list(range(N)) and key.index.tolist()[:3] == [0, 1, 2]
    np.testing.assert_array_equal(key["mmlu_test_row"], rows)
    np.testing.assert_array_equal(key["label"], rows % 4)
    assert key["answer"].tolist()[:4] == ["ABCD"[r % 4] for r in rows[:4]]
    assert key["subject"].tolist()[:4] == [f"s{r % 3}" for r in rows[:4]]
    assert key.attrs["n_ambiguous"] == 0 and not key["ambiguous"].any() and (key["candidates"].str.len() == 1).all()


def _with_duplicates():
    """Rows 0 and 1 ask the same question with the options in another order (correct text 'x' at A, then at C);
    row 2 repeats row 3's question with the same letter; row 4 has its correct text twice; row 5's correct
    option is the text 'None'."""
    mmlu = _mmlu()
    mmlu.at[0, "question"] = mmlu.at[1, "question"] = "dup"
    mmlu.at[0, "choices"], mmlu.at[0, "answer"] = ["x", "y", "z", "w"], 0
    mmlu.at[1, "choices"], mmlu.at[1, "answer"] = ["y", "w", "x", "v"], 2
    mmlu.at[2, "question"] = mmlu.at[3, "question"] = "same"
    mmlu.at[2, "choices"], mmlu.at[2, "answer"] = ["p", "k", "r", "s"], 1
    mmlu.at[3, "choices"], mmlu.at[3, "answer"] = ["r", "k", "s", "p"], 1
    mmlu.at[4, "choices"], mmlu.at[4, "answer"] = ["t", "u", "t", "o"], 2
    mmlu.at[5, "choices"], mmlu.at[5, "answer"] = ["1", "2", "3", "None"], 3
    return mmlu


def test_rebuild_rule_for_repeated_questions_and_the_missing_answer():
    mmlu = _with_duplicates()
    rows = list(range(6, N + 6))
    recs = _records(mmlu, rows)
    # ids 10 and 20 carry the repeated question (both MMLU rows are in the sample), id 30 the same-letter one,
    # id 40 the row with its correct text twice, id 50 the 'None' answer written as a missing value
    recs[10].update(question="dup", answer="x")
    recs[20].update(question="dup", answer="x")
    recs[30].update(question="same", answer="k")
    recs[40].update(question=mmlu.at[4, "question"], answer="t")
    recs[50].update(question=mmlu.at[5, "question"], answer=float("nan"))
    key = _rebuild_qa_key(recs, mmlu)
    assert key.attrs["ambiguous_ids"] == [10, 20] and key.attrs["n_ambiguous"] == 2
    assert key.loc[10, "candidates"] == key.loc[20, "candidates"] == "AC"
    # rows handed out in id order, each id taking the first free row: id 10 -> row 0 (A), id 20 -> row 1 (C)
    assert (key.loc[10, "mmlu_test_row"], key.loc[10, "answer"]) == (0, "A")
    assert (key.loc[20, "mmlu_test_row"], key.loc[20, "answer"]) == (1, "C")
    assert key.loc[30, "answer"] == "B" and not key.loc[30, "ambiguous"] and key.loc[30, "mmlu_test_row"] == 2
    assert key.loc[40, "answer"] == "C" and not key.loc[40, "ambiguous"]  # MMLU's own key, not the first 't'
    assert key.loc[50, "answer"] == "D" and key.attrs["null_answer_ids"] == [50]
    assert key.attrs["n_shared_question"] == 3 and key.attrs["n_several_rows"] == 3


@settings(max_examples=3, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_rebuild_does_not_depend_on_record_order(seed):
    import random

    mmlu = _with_duplicates()
    recs = _records(mmlu, list(range(6, N + 6)))
    recs[10].update(question="dup", answer="x")
    recs[20].update(question="dup", answer="x")
    shuffled = recs[:]
    random.Random(seed).shuffle(shuffled)
    pd.testing.assert_frame_equal(_rebuild_qa_key(recs, mmlu), _rebuild_qa_key(shuffled, mmlu))


def test_rebuild_bad_input_raises_and_returns_nothing():
    mmlu = _mmlu()
    recs = _records(mmlu, range(N))
    with pytest.raises(ValueError, match="expected 10,000 records, found 9,999"):
        _rebuild_qa_key(recs[:-1], mmlu)
    with pytest.raises(ValueError, match=r"lack the fields \['answer'\]"):
        _rebuild_qa_key([{k: v for k, v in r.items() if k != "answer"} for r in recs], mmlu)
    dup = [dict(r) for r in recs]
    dup[5]["id"] = 4
    with pytest.raises(ValueError, match="integers 0-9999, each once"):
        _rebuild_qa_key(dup, mmlu)
    other = [dict(r) for r in recs]
    other[7]["question"] = "not in MMLU"
    with pytest.raises(ValueError, match=r"1 questions occur nowhere in MMLU.*ids \[7\]"):
        _rebuild_qa_key(other, mmlu)
    wrong = [dict(r) for r in recs]
    wrong[8]["answer"] = "a wrong option"
    with pytest.raises(ValueError, match=r"answer text is the correct option of no MMLU row.*ids \[8\]"):
        _rebuild_qa_key(wrong, mmlu)
    missing = [dict(r) for r in recs]
    missing[9]["answer"] = None  # a missing answer is read as the text 'None', which row 9 does not hold
    with pytest.raises(ValueError, match=r"ids \[9\]"):
        _rebuild_qa_key(missing, mmlu)
    with pytest.raises(ValueError, match="JSON list of records"):
        _rebuild_qa_key({"id": 0}, mmlu)


def test_answer_file_from_another_commit_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("SEMVAR_DATA_DIR_ONLY", "1")
    monkeypatch.delenv("SEMVAR_DATA_DIR", raising=False)
    monkeypatch.setenv("SEMVAR_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "ye2024").mkdir()
    (tmp_path / "ye2024" / "mmlu_10k_answers.json").write_text(json.dumps([{"id": 0, "question": "q", "answer": "a"}]))
    with pytest.raises(ValueError, match="damaged or not the expected file"):
        data.load_ye_answers("qa", data_dir=tmp_path, online=False)
    with pytest.raises(data.DataNotFoundError, match="mmlu_10k_answers.json"):
        data.load_ye_answers("qa", data_dir=tmp_path / "nowhere", online=False)
    with pytest.raises(ValueError, match="online must be"):
        data.load_ye_answers("qa", online="yes")


# --------------------------------------------------------------------------- the real key and the paper's table


def _real_key():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", data.AnswerKeyWarning)
        return data.load_ye_answers("qa", online=False)


def test_real_key_rebuilt_from_the_public_files(require_data):
    require_data("ye2024", ["mmlu_10k_answers.json"])
    require_data("mmlu", ["test.parquet"])
    with pytest.warns(data.AnswerKeyWarning, match="24 ids"):
        key = data.load_ye_answers("qa", online=False)
    assert len(key) == N and key["id"].tolist() == list(range(N))
    assert set(key["answer"]) == set("ABCD") and key["mmlu_test_row"].is_unique
    assert key.attrs["n_ambiguous"] == 24 and key.attrs["null_answer_ids"] == [5842]
    assert key.loc[5842, "answer"] == "D"  # the option whose text is 'None'
    assert (key["candidates"].str.len() == 2).sum() == 24
    mmlu = data.load_mmlu("test", online=False)
    rows = key["mmlu_test_row"].to_numpy()
    np.testing.assert_array_equal(key["label"], mmlu["answer"].to_numpy()[rows])
    np.testing.assert_array_equal(key["subject"], mmlu["subject"].to_numpy()[rows])
    assert all(row in key.at[i, "candidate_rows"] for i, row in enumerate(rows))


@pytest.mark.parametrize("order, row, changed", [("id", "first", 0), ("id", "last", 24), ("reverse", "first", 18),
                                                 ("reverse", "last", 6)])
def test_refilled_keys_are_model_free_keys_of_their_own(require_data, order, row, changed):
    """Nine pairs of open ids share two rows (the order of service swaps them); six ids have two rows of their own."""
    require_data("ye2024", ["mmlu_10k_answers.json"])
    require_data("mmlu", ["test.parquet"])
    with pytest.warns(data.AnswerKeyWarning):
        key = data.load_ye_answers("qa", online=False)
    other = data.refill_qa_key(key, order=order, row=row)
    assert other["mmlu_test_row"].is_unique and (other["label"] != key["label"]).sum() == changed
    assert (other["label"] != key["label"]).sum() == (other["answer"] != key["answer"]).sum()
    moved = other["label"] != key["label"]
    assert key.loc[moved, "ambiguous"].all()  # only open ids change, and only to a letter they allow
    assert all(a in c for a, c in zip(other["answer"], other["candidates"]))
    mmlu = data.load_mmlu("test", online=False)
    rows = other["mmlu_test_row"].to_numpy()
    np.testing.assert_array_equal(other["label"], mmlu["answer"].to_numpy()[rows])
    np.testing.assert_array_equal(other["subject"], mmlu["subject"].to_numpy()[rows])
    rule = other.attrs["rule"]
    assert ("decreasing id order" in rule) == (order == "reverse") and f"the {row} free row" in rule
    if changed == 0:
        pd.testing.assert_frame_equal(other, key)


@pytest.mark.parametrize("kw, match", [({"order": "random"}, "order must be"), ({"row": "middle"}, "row must be")])
def test_refill_bad_input(kw, match):
    with pytest.raises(ValueError, match=match):
        data.refill_qa_key(pd.DataFrame({"candidate_rows": []}), **kw)
    with pytest.raises(ValueError, match="rebuilt QA key"):
        data.refill_qa_key(pd.DataFrame({"label": [0, 1]}))


_TABLES = {}


@pytest.fixture
def base_table(require_data):
    require_data("ye2024", ["mmlu_10k.npz", "mmlu_10k_answers.json"])
    require_data("mmlu", ["test.parquet"])
    if "base" not in _TABLES:  # computed once per test session
        _TABLES["base"] = cf.ye_table("qa", "base", answers=_real_key(), online=False)
    return _TABLES["base"]


def test_ye_table_reproduces_the_papers_check_values(base_table):
    t = base_table
    assert list(t.index) == data.YE_MODELS and t.attrs["n_test"] == 4998 and t.attrs["n_calibration"] == 4997
    q, y = t.loc["Qwen-72B"], t.loc["Yi-34B"]
    # set size and coverage at the key's own letters
    assert abs(q["set_size"] - YE_QWEN72B_QA["ss"]) <= 0.02 and abs(q["coverage"] - YE_QWEN72B_QA["cov"]) <= 0.03
    assert abs(y["set_size"] - 2.60) <= 0.02
    # accuracy: 9 test ids are open; the published values lie in the range they allow (their top)
    assert q["accuracy_min"] - 0.005 <= YE_QWEN72B_QA["acc"] <= q["accuracy_max"] + 0.005
    assert y["accuracy_min"] - 0.005 <= 71.24 <= y["accuracy_max"] + 0.005
    assert len(t.attrs["ambiguous_test_ids"]) == 9 and len(t.attrs["ambiguous_calibration_ids"]) == 15
    # the columns are the paper's averages of the per-score columns
    np.testing.assert_allclose(t["set_size"], (t["lac_set_size"] + t["aps_set_size"]) / 2)
    np.testing.assert_allclose(t["coverage"], (t["lac_coverage"] + t["aps_coverage"]) / 2)


def test_every_published_qa_accuracy_lies_in_its_range(base_table):
    t = base_table
    outside = [m for m, (acc, _) in YE_QA_BASE.items()
               if not t.loc[m, "accuracy_min"] - 0.005 <= acc <= t.loc[m, "accuracy_max"] + 0.005]
    assert outside == []
    far = [m for m, (_, ss) in YE_QA_BASE.items() if abs(t.loc[m, "set_size"] - ss) > 0.012]
    assert far == []


def test_key_range_brackets_the_papers_qwen72b_values(require_data):
    require_data("ye2024", ["mmlu_10k.npz", "mmlu_10k_answers.json"])
    logits = data.load_ye_logits("qa", online=False)
    r = key_range({p: logits[f"Qwen-72B__{p}"] for p in data.YE_PROMPTS}, _real_key())
    for k, name in (("acc", "accuracy"), ("ss", "set_size"), ("cov", "coverage")):
        lo, hi = r[name]
        assert lo - 0.005 <= YE_QWEN72B_QA[k] <= hi + 0.005, (name, r[name])
        assert lo <= r["key"][name] <= hi
    assert r["n_keys"] == 2 ** 24 and len(r["open_test"]) == 9


# --------------------------------------------------------------------------- synthetic: key_range by brute force


def _synthetic(n=300, k=4, seed=0, open_ids=(0, 2, 4, 6, 8, 10, 12)):
    rng = np.random.default_rng(seed)
    y = rng.integers(k, size=n)
    logits = {p: (rng.normal(size=(n, k)) + s * np.eye(k)[y]).astype(np.float32) for p, s in (("a", 1.5), ("b", 2.5))}
    cands = ["ABCD"[v] for v in y]
    for i in open_ids:
        other = (y[i] + 1 + rng.integers(k - 1)) % k
        cands[i] = "".join(sorted("ABCD"[v] for v in (y[i], other)))
    return logits, pd.DataFrame({"label": y, "candidates": cands})


def test_key_range_equals_brute_force():
    logits, key = _synthetic()
    r = key_range(logits, key, alpha=0.1)
    cal, test = cf.ye_split(len(key))
    opened = [i for i in range(len(key)) if len(key.loc[i, "candidates"]) > 1 and i not in cf.YE_DROPPED_IDS]
    assert sorted(r["open_calibration"] + r["open_test"]) == opened and r["n_keys"] == 2 ** len(opened)
    values = {"accuracy": [], "set_size": [], "coverage": []}
    for pick in itertools.product(*[key.loc[i, "candidates"] for i in opened]):
        y = key["label"].to_numpy().copy()
        y[opened] = ["ABCD".index(c) for c in pick]
        out = cf.ye_protocol(logits, y, alpha=0.1)
        values["accuracy"].append(out["acc"])
        values["set_size"].append(out["ss"])
        values["coverage"].append(out["cov"])
    for name, v in values.items():
        assert r[name] == pytest.approx((min(v), max(v)), abs=1e-9), name
    assert r[name][0] < r[name][1]  # the open ids do move the coverage: the comparison is not vacuous


def test_ye_table_accuracy_range_equals_brute_force():
    logits, key = _synthetic(seed=3)
    table = cf.ye_table(logits={f"m__{p}": z for p, z in logits.items()}, answers=key)
    r = key_range(logits, key)
    assert (table.loc["m", "accuracy_min"], table.loc["m", "accuracy_max"]) == pytest.approx(r["accuracy"])


def test_key_range_bad_input():
    logits, key = _synthetic()
    with pytest.raises(ValueError, match="max_open_calibration"):
        key_range(logits, key, max_open_calibration=1)
    with pytest.raises(ValueError, match="one shape"):
        key_range({"a": logits["a"], "b": logits["b"][:-1]}, key)
    with pytest.raises(ValueError, match="non-empty dict"):
        key_range({}, key)


# --------------------------------------------------------------------------- ye_table: input and the set builders


def test_ye_table_bad_input():
    logits, key = _synthetic()
    named = {f"m__{p}": z for p, z in logits.items()}
    with pytest.raises(ValueError, match="models must be one of"):
        cf.ye_table(models="chat", logits=named, answers=key)
    with pytest.raises(ValueError, match="named MODEL__PROMPT"):
        cf.ye_table(logits={"m": logits["a"]}, answers=key)
    with pytest.raises(ValueError, match="every model under every prompt"):
        cf.ye_table(logits={**named, "n__a": logits["a"]}, answers=key)
    with pytest.raises(ValueError, match="answers must hold option indices"):
        cf.ye_table(logits=named, answers=np.full(len(key), 7))
    with pytest.raises(ValueError, match="column 'label'"):
        cf.ye_table(logits=named, answers=key.rename(columns={"label": "y"}))
    with pytest.raises(ValueError, match="alpha"):
        cf.ye_table(logits=named, answers=key, alpha=1.5)
    with pytest.raises(ValueError, match="task must be one of"):
        cf.ye_table("mc", online=False)


def test_ye_table_uses_the_packages_set_builders(monkeypatch):
    logits, key = _synthetic()
    named = {f"m__{p}": z for p, z in logits.items()}
    before = cf.ye_table(logits=named, answers=key)
    monkeypatch.setattr(cf, "lac_sets", lambda p_cal, y_cal, p_test, alpha, **kw: np.ones(np.shape(p_test), dtype=bool))
    after = cf.ye_table(logits=named, answers=key)
    assert after.loc["m", "lac_set_size"] == 4.0 and before.loc["m", "lac_set_size"] < 3.0
    assert after.loc["m", "accuracy"] == before.loc["m", "accuracy"]


def test_protocol_names_are_one_object_in_core_and_experiments():
    from semvar.experiments import ye_protocol as runs

    assert runs.ye_split is cf.ye_split and runs.ye_protocol is cf.ye_protocol and runs.ye_table is cf.ye_table


# --------------------------------------------------------------------------- the ledger's data lookups


def _synthetic_task_keys(folder, tasks, seed=0):
    rng = np.random.default_rng(seed)
    (folder / "ye2024").mkdir(parents=True, exist_ok=True)
    for stem in tasks:
        recs = [{"id": i, "answer": "ABCDEF"[k]} for i, k in enumerate(rng.integers(4, size=N))]
        (folder / "ye2024" / f"{stem}.json").write_text(json.dumps(recs))


def test_ledger_checks_compute_when_their_data_appears(tmp_path, monkeypatch, require_data):
    from semvar import claims

    real = require_data("ye2024", ["mmlu_10k.npz", "cosmosqa_10k.npz", "hellaswag_10k.npz", "halu_dialogue.npz",
                                   "halu_summarization.npz"])
    monkeypatch.setenv("SEMVAR_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("SEMVAR_DATA_DIR_ONLY", "1")
    monkeypatch.setenv("SEMVAR_CACHE_DIR", str(tmp_path / "cache"))
    ids = ["ye2024.qwen72b_qa", "ye_review.kendall_tau", "ye_review.aps_only_examples"]
    assert {r.id: r.status for r in claims.run(ids, quick=True)} == dict.fromkeys(ids, "needs_data")
    (tmp_path / "ye2024").mkdir()
    for f in real.glob("*.npz"):
        (tmp_path / "ye2024" / f.name).symlink_to(f)
    # synthetic keys (random letters) for all five tasks: every check now computes a verdict
    _synthetic_task_keys(tmp_path, ["mmlu_10k", "cosmosqa_10k", "hellaswag_10k", "halu_dialogue", "halu_summarization"])
    recs = {r.id: r for r in claims.run(ids, quick=True)}
    assert recs["ye2024.qwen72b_qa"].status == "not_replicated"  # random letters: about chance accuracy
    assert recs["ye2024.qwen72b_qa"].our_value["acc"] < 40
    assert recs["ye_review.kendall_tau"].status in ("replicated", "not_replicated")
    assert set(recs["ye_review.kendall_tau"].our_value) == {"qa", "rc", "ci", "drs", "ds"}
    assert recs["ye_review.aps_only_examples"].status in ("replicated", "partly", "not_replicated")
