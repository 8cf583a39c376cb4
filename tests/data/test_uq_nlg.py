"""Tests of semvar.data.uq_nlg: one model's 20 sampled answers per TriviaQA question (a pickle of builtins).

Synthetic files (their checksums pinned for the test) check the refusals; the real copy, found by the
data rule, checks the counts the data README states against an independent reading of the stream.
"""

from __future__ import annotations

import pickle
import pickletools

import numpy as np
import pytest

from semvar import data
from semvar.data import _safe_pickle

from ._helpers import pin_sha256, real_folder


@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_bad_progress(bad):
    with pytest.raises(ValueError, match="progress must be True or False"):
        data.load_uq_nlg(progress=bad)


def _uq_record(k, n=20):
    return {"prompt": f"Q: q{k}?\nA:", "id": f"id_{k}", "question": f"q{k}?", "answer": "Paris",
            "generations": {"text": [" Paris\n"] * n, "text_cleaned": [" Paris"] * (n - 1) + [" "]}}


def _write_uq(folder, payload, monkeypatch):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "demo_data.pkl"
    path.write_bytes(pickle.dumps(payload))
    pin_sha256(monkeypatch, data.UQ_NLG_ORIGIN, "demo_data.pkl", path)


def test_uq_nlg_synthetic_file_rules(tmp_path, monkeypatch):
    _write_uq(tmp_path / "uq_nlg", [_uq_record(k) for k in range(500)], monkeypatch)
    df = data.load_uq_nlg(data_dir=tmp_path)
    assert df.shape == (500, 6) and tuple(df.columns) == data.UQ_NLG_COLUMNS
    assert df["answers"].iloc[0] == ("Paris",) * 19 + ("",)
    assert df["answers_raw"].iloc[0] == (" Paris\n",) * 20
    rep = df.attrs["report"]
    assert rep["empty_answers"] == 500 and rep["answers_stripped"] == 10000 and rep["empty_raw_answers"] == 0
    assert rep["empty_answer_ids"][:2] == ["id_0", "id_1"]


@pytest.mark.parametrize(
    "payload, match",
    [
        ({"a": 1}, "expected a list of records"),
        ([_uq_record(k) for k in range(499)], "expected 500 records, found 499"),
        ([_uq_record(0)] * 500, "repeats the id 'id_0'"),
        ([{"id": "x"}] + [_uq_record(k) for k in range(1, 500)], "record 0 must be a dict with the keys"),
        ([_uq_record(0, n=19)] + [_uq_record(k) for k in range(1, 500)], r"must be a list of 20 strings, got 19"),
        ([{**_uq_record(0), "question": 5}] + [_uq_record(k) for k in range(1, 500)], "question of type int"),
        ([{**_uq_record(0), "generations": {"text": []}}] + [_uq_record(k) for k in range(1, 500)], "needs generations"),
    ],
)
def test_uq_nlg_malformed_files_are_refused(tmp_path, monkeypatch, payload, match):
    _write_uq(tmp_path / "uq_nlg", payload, monkeypatch)
    with pytest.raises(ValueError, match=match):
        data.load_uq_nlg(data_dir=tmp_path)


def test_uq_nlg_pickle_with_a_numpy_global_is_refused(tmp_path, monkeypatch):
    records = [_uq_record(k) for k in range(500)]
    records[7]["generations"]["text"] = np.array(records[7]["generations"]["text"])
    _write_uq(tmp_path / "uq_nlg", records, monkeypatch)
    with pytest.raises(_safe_pickle.RefusedPickleError, match="demo_data.pkl: refused: the pickle names the global numpy"):
        data.load_uq_nlg(data_dir=tmp_path)


def test_uq_nlg_real_file(require_data):
    folder = real_folder(require_data, "uq_nlg")
    raw = (folder / "demo_data.pkl").read_bytes()
    ops = {op.name for op, _, _ in pickletools.genops(raw)}
    assert not ops & {"GLOBAL", "STACK_GLOBAL", "REDUCE", "BUILD", "INST", "OBJ", "NEWOBJ", "NEWOBJ_EX", "EXT1", "EXT2", "EXT4"}
    records = pickle.loads(raw)  # safe here: the stream was just shown to name no callable
    df = data.load_uq_nlg(data_dir=folder.parent)
    assert df.shape == (500, 6) and df["id"].is_unique and df["id"].iloc[0] == "qw_8385"
    assert df["answers"].map(len).eq(20).all() and df["answers_raw"].map(len).eq(20).all()
    assert df["id"].tolist() == [r["id"] for r in records]
    assert df["reference"].tolist() == [r["answer"] for r in records]
    assert df["answers"].tolist() == [tuple(t.strip() for t in r["generations"]["text_cleaned"]) for r in records]
    assert df["answers_raw"].tolist() == [tuple(r["generations"]["text"]) for r in records]
    rep = df.attrs["report"]
    n_empty = sum(t.strip() == "" for r in records for t in r["generations"]["text_cleaned"])
    assert rep["empty_answers"] == n_empty == 6  # the data README's 6
    assert rep["answers_stripped"] == 9997 and rep["questions"] == 500 and rep["samples_per_question"] == 20
    assert sorted(rep["empty_answer_ids"]) == sorted(df["id"][df["answers"].map(lambda a: "" in a)])
    assert 2.5 < np.mean([len(a.split()) for t in df["answers"] for a in t]) < 2.8  # "about 2.7 words"
