"""Tests of semvar.data.evouna: five QA systems' answers to NQ and TriviaQA questions, with human labels.

Synthetic files (their checksums pinned for the test) check the rules and refusals; the real copies,
found by the data rule, are read a second time with the standard ``json`` module.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from semvar import data

from ._helpers import pin_sha256, real_folder


def _ev_record(q, label=True, improper=False):
    rec = {"question": q, "golden_answer": "a/b", "improper": improper}
    for s in data.EVOUNA_SYSTEMS:
        rec[f"answer_{s}"] = f"{s} says a"
        rec[f"judge_{s}"] = label
    return rec


def _write_ev(folder, monkeypatch, payloads):
    folder.mkdir(parents=True, exist_ok=True)
    for name, n in data.EVOUNA_QUESTIONS.items():
        path = folder / f"{name}.json"
        payload = payloads.get(name, [_ev_record(f"{name}{k}") for k in range(n)])
        path.write_text(payload if isinstance(payload, str) else json.dumps(payload), encoding="utf-8")
        pin_sha256(monkeypatch, data.EVOUNA_ORIGIN, f"{name}.json", path)


def test_evouna_synthetic_rules_and_long_form(tmp_path, monkeypatch):
    tq = [_ev_record(f"t{k}") for k in range(2000)]
    tq[0] = _ev_record("t0", label="nan", improper=True)
    tq[1] = _ev_record("t1", label="False")
    tq[2]["judge_gpt4"], tq[2]["answer_newbing"], tq[2]["golden_answer"] = None, None, None
    tq[3] = _ev_record("t2", label="None")  # a repeated question, kept
    _write_ev(tmp_path / "evouna", monkeypatch, {"TQ": tq})
    df = data.load_evouna(data_dir=tmp_path)
    assert df.shape == (5610, 14) and tuple(df.columns) == data.EVOUNA_COLUMNS
    t = df[df["dataset"] == "TQ"].reset_index(drop=True)
    assert t.loc[0, ["label_fid", "label_gpt4"]].isna().all()
    assert pd.notna(t.loc[1, "label_fid"]) and not t.loc[1, "label_fid"]
    assert pd.isna(t.loc[2, "label_gpt4"]) and bool(t.loc[2, "label_fid"]) and pd.isna(t.loc[2, "answer_newbing"])
    rep = df.attrs["report"]["TQ"]
    assert rep["label_missing"] == {"fid": 2, "gpt35": 2, "chatgpt": 2, "gpt4": 3, "newbing": 2}
    assert rep["label_missing_not_improper"]["gpt4"] == 2 and rep["improper"] == 1
    assert rep["answer_missing"]["newbing"] == 1 and rep["answer_missing_labelled"]["newbing"] == 1
    assert rep["golden_answer_missing"] == 1 and rep["duplicate_questions"] == 1
    assert df.attrs["duplicate_questions"]["TQ"] == ["t2"]
    long = data.evouna_long(df)
    assert tuple(long.columns) == data.EVOUNA_LONG_COLUMNS and len(long) == 5 * 5610
    assert list(long["system"].cat.categories) == list(data.EVOUNA_SYSTEMS)
    row = long[(long["item"] == 3610 + 2) & (long["system"] == "newbing")].iloc[0]
    assert pd.isna(row["answer"]) and bool(row["label"]) and row["question"] == "t2"
    assert int(long["label"].isna().sum()) == sum(rep["label_missing"].values())
    sub = data.evouna_long(df.iloc[[3610, 3611]])
    assert sub["item"].tolist() == [3610] * 5 + [3611] * 5 and sub["label"].isna().tolist() == [True] * 5 + [False] * 5


@pytest.mark.parametrize(
    "payload, match",
    [
        ({"a": 1}, "expected a JSON list"),
        ("[1, 2", "does not parse as JSON"),
        ([_ev_record("q")] * 1999, "expected 2000 records, found 1999"),
        ([_ev_record("q", label="maybe")] * 2000, "judge_fid is 'maybe'; a label must be True, False or missing"),
        ([_ev_record("q", label=1)] * 2000, "judge_fid is 1"),
        ([_ev_record("q", improper="False")] * 2000, "improper is 'False', not a bool"),
        ([{**_ev_record("q"), "extra": 1}] * 2000, "expected the fields"),
        ([{**_ev_record("q"), "answer_fid": 3}] * 2000, "answer_fid is a int"),
        ([{**_ev_record("q"), "question": None}] * 2000, "question is a NoneType"),
    ],
)
def test_evouna_malformed_files_are_refused(tmp_path, monkeypatch, payload, match):
    _write_ev(tmp_path / "evouna", monkeypatch, {"TQ": payload})
    with pytest.raises(ValueError, match=match):
        data.load_evouna(data_dir=tmp_path)


@pytest.mark.parametrize("bad, match", [([1], "must be the DataFrame"), (pd.DataFrame({"question": ["q"]}), "lacks the columns")])
def test_evouna_long_bad_input(bad, match):
    with pytest.raises(ValueError, match=match):
        data.evouna_long(bad)


def test_evouna_real_files(require_data):
    folder = real_folder(require_data, "evouna")
    df = data.load_evouna(data_dir=folder.parent)
    assert len(df) == 5610 and tuple(df.columns) == data.EVOUNA_COLUMNS
    assert df.groupby("dataset", sort=False).size().to_dict() == {"NQ": 3610, "TQ": 2000}
    rep = df.attrs["report"]
    for name in ("NQ", "TQ"):
        records = json.loads((folder / f"{name}.json").read_bytes())
        part = df[df["dataset"] == name]
        assert part["question"].tolist() == [r["question"] for r in records]
        assert part["improper"].tolist() == [r["improper"] for r in records] and rep[name]["improper"] == sum(part["improper"])
        for s in data.EVOUNA_SYSTEMS:
            want = [r[f"judge_{s}"] if isinstance(r[f"judge_{s}"], bool) else None for r in records]
            got = part[f"label_{s}"].astype(object).where(part[f"label_{s}"].notna(), None).tolist()
            assert got == want, s
            assert rep[name]["label_missing"][s] == want.count(None)
    assert rep["NQ"]["label_missing"] == {"fid": 529, "gpt35": 529, "chatgpt": 446, "gpt4": 582, "newbing": 530}
    assert rep["TQ"]["label_missing"] == dict.fromkeys(data.EVOUNA_SYSTEMS, 15)
    assert rep["NQ"]["improper"] == 590 and rep["TQ"]["improper"] == 62
    assert rep["NQ"]["answer_missing"]["newbing"] == 499 and rep["NQ"]["golden_answer_missing"] == 1
    assert rep["NQ"]["duplicate_questions"] == rep["TQ"]["duplicate_questions"] == 1
    long = data.evouna_long(df)
    assert len(long) == 28050 and long.groupby("system", observed=True)["label"].count().sum() == 28050 - sum(
        sum(rep[n]["label_missing"].values()) for n in ("NQ", "TQ"))
