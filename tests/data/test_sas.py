"""Tests of semvar.data.sas: human same-meaning labels of answer pairs (SAS), three CSV files.

Synthetic files (their checksums pinned for the test) check the rules and refusals; the real copies,
found by the data rule, are read a second time with the standard ``csv`` module.
"""

from __future__ import annotations

import csv

import pandas as pd
import pytest

from semvar import data

from ._helpers import pin_sha256, real_folder


def _write_sas(folder, monkeypatch, texts):
    folder.mkdir(parents=True, exist_ok=True)
    for name in data.SAS_DATASETS:
        path = folder / f"{name}_SAS.csv"
        path.write_text(texts.get(name, "answer1,answer2,label\n" + "a,b,0.0\n" * data.SAS_ROWS[name]), encoding="utf-8")
        pin_sha256(monkeypatch, data.SAS_ORIGIN, f"{name}_SAS.csv", path)


def test_sas_synthetic_rules(tmp_path, monkeypatch):
    n = data.SAS_ROWS["SQuAD"]
    body = "answer1,answer2,label\nNone,x,2.0\n,,\n\"two\nlines\",y,1\n" + "a,None,0.0\n" * (n - 3)
    _write_sas(tmp_path / "sas", monkeypatch, {"SQuAD": body})
    df = data.load_sas(data_dir=tmp_path)
    assert len(df) == sum(data.SAS_ROWS.values()) and tuple(df.columns) == data.SAS_COLUMNS
    sq = df[df["dataset"] == "SQuAD"].reset_index(drop=True)
    assert sq["answer1"].isna().tolist()[:3] == [True, True, False] and sq["answer1"][2] == "two\nlines"
    assert sq["label"].tolist()[:3] == [2, pd.NA, 1]
    assert str(df["label"].dtype) == "Int8"
    rep = df.attrs["report"]["SQuAD"]
    assert rep == {"rows": n, "missing_answer1": 2, "missing_answer2": n - 2, "label_0": n - 3, "label_1": 1,
                   "label_2": 1, "missing_label": 1, "none_as_missing": 1 + n - 3, "empty_rows": 1}
    assert set(df.loc[df["dataset"] == "GermanQuAD", "language"]) == {"de"}


@pytest.mark.parametrize(
    "body, match",
    [
        ("answer1,answer2,label\n" + "a,b,3.0\n" * 942, r"label '3.0' is not 0, 1 or 2"),
        ("answer1,answer2,label\n" + "a,b,yes\n" * 942, r"label 'yes' is not"),
        ("a1,a2,label\n" + "a,b,0\n" * 942, "the header must be answer1,answer2,label"),
        ("answer1,answer2,label\n" + "a,b,0\n" * 941, "expected 942 answer pairs, found 941"),
        ("answer1,answer2,label\n\"open,b,0\n", "expected 942|not a readable CSV"),
    ],
)
def test_sas_malformed_files_are_refused(tmp_path, monkeypatch, body, match):
    _write_sas(tmp_path / "sas", monkeypatch, {"SQuAD": body})
    with pytest.raises(ValueError, match=match):
        data.load_sas(data_dir=tmp_path)


def test_sas_real_files(require_data):
    folder = real_folder(require_data, "sas")
    df = data.load_sas(data_dir=folder.parent)
    assert len(df) == 5025 and tuple(df.columns) == data.SAS_COLUMNS
    assert df.groupby("dataset", sort=False).size().to_dict() == {"NQ-open": 3658, "SQuAD": 942, "GermanQuAD": 425}
    assert df.groupby("dataset")["language"].unique().map(list).to_dict() == {
        "NQ-open": ["en"], "SQuAD": ["en"], "GermanQuAD": ["de"]}
    rep = df.attrs["report"]
    for name in data.SAS_DATASETS:  # against the standard csv module
        with open(folder / f"{name}_SAS.csv", newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh))[1:]
        part = df[df["dataset"] == name]
        assert len(rows) == len(part) == rep[name]["rows"]
        for v in (0, 1, 2):
            assert rep[name][f"label_{v}"] == sum(r[2] == f"{v}.0" for r in rows) == int((part["label"] == v).sum())
        assert rep[name]["missing_label"] == sum(r[2] == "" for r in rows)
        given = part["answer2"].fillna("\0").tolist()
        assert given == [a if a not in ("", "None") else "\0" for _, a, _ in rows]
    assert (rep["NQ-open"]["label_0"], rep["NQ-open"]["label_1"], rep["NQ-open"]["label_2"]) == (2621, 593, 444)
    assert rep["NQ-open"]["missing_answer1"] == rep["NQ-open"]["none_as_missing"] == 9  # the README's 9 rows, kept
    nq = df[df["dataset"] == "NQ-open"]
    assert nq.index[nq["answer1"].isna()].tolist() == [651, 652, 1332, 1333, 1334, 1335, 1336, 1337, 1338]
    assert nq["answer2"].notna().all() and nq["label"].notna().all()
    assert rep["GermanQuAD"]["missing_label"] == 3 and rep["GermanQuAD"]["empty_rows"] == 2
    assert rep["SQuAD"]["missing_answer1"] == rep["SQuAD"]["missing_answer2"] == rep["SQuAD"]["missing_label"] == 0
