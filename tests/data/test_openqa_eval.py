"""Tests of semvar.data.openqa_eval: human, LLM and BEM verdicts on NQ answers, and the verdict parser.

The real copies, found by the data rule, are read a second time with the standard library; edited
copies (their checksums pinned for the test) check the refusals.
"""

from __future__ import annotations

import csv
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar import data

from ._helpers import copy_folder, pin_sha256, real_folder


@settings(max_examples=50, deadline=None)
@given(st.text(max_size=30), st.sampled_from(["", " ", "**", "\n", '"']), st.sampled_from([", ", ". ", "! ", ""]))
def test_parse_verdict_reads_the_leading_word(rest, lead, sep):
    assert data.parse_verdict(f"{lead}Yes{sep or ' '}{rest}") is True
    assert data.parse_verdict(f"{lead}no{sep or ' '}{rest}") is False
    assert data.parse_verdict(f"{lead}Yesterday {rest}") is None
    assert data.parse_verdict(f"{lead}Not {rest}") is None


@pytest.mark.parametrize("text, want", [("Yes", True), ("yes, it is", True), ("NO.", False), ("The candidate is correct", None), ("", None),
                                        ("I cannot determine", None), ("No, the candidate is not entirely correct", False)])
def test_parse_verdict_hand_cases(text, want):
    assert data.parse_verdict(text) is want


@pytest.mark.parametrize("bad", [None, 1, b"Yes", ["Yes"]])
def test_parse_verdict_bad_input(bad):
    with pytest.raises(ValueError, match="text must be a str"):
        data.parse_verdict(bad)


def _tsv(path):
    return [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]


def test_openqa_eval_real_files(require_data):
    folder = real_folder(require_data, "openqa_eval")
    df = data.load_openqa_eval(data_dir=folder.parent)
    assert len(df) == 1490 and tuple(df.columns) == data.OPENQA_EVAL_COLUMNS
    assert df.index.tolist() == list(range(1490))
    human = _tsv(folder / "NQ301_human.tsv")[1:]
    gpt4 = _tsv(folder / "NQ301_gpt-4.tsv")[1:]
    dav = _tsv(folder / "NQ301_text-davinci-003.tsv")[1:]
    with open(folder / "NQ301_BEM.tsv", newline="", encoding="utf-8") as fh:
        bem = list(csv.reader(fh, delimiter="\t"))[1:]
    # one to one with the human file, every judge on the same row
    assert df["id"].tolist() == [int(r[0]) for r in human] and df["id"].nunique() == 301
    assert df["question"].tolist() == [r[1] for r in human] and df["answer"].tolist() == [r[2] for r in human]
    assert df["human"].tolist() == [r[3] == "Yes" for r in human] and int(df["human"].sum()) == 816
    assert df["annotator3"].notna().sum() == 223
    assert df["gpt4_text"].tolist() == [r[4] for r in gpt4] and df["davinci_text"].tolist() == [r[3] for r in dav]
    assert [r[1] for r in bem] == df["question"].tolist()
    assert df["gold"].tolist() == [tuple(r[2].split(" | ")) for r in bem]
    assert df["bem"][0] == pytest.approx(0.9881154894828796)  # max over the two gold answers of p(equivalent)
    assert df["bem"].tolist() == [max(p[1] for p in json.loads(r[5])) for r in bem]
    assert (df["bem_verdict"] == (df["bem"] >= 0.5)).all()
    assert df["bem_verdict"].tolist() == [r[4] == "Yes" for r in bem]  # the release's own BEM verdicts
    rep = df.attrs["report"]
    assert rep["davinci_fused_repaired"] == 1490 and all(len(r) == 4 for r in dav)
    assert rep["gpt4_unparsed"] == int(df["gpt4"].isna().sum()) == 10 and rep["davinci_unparsed"] == 0
    assert rep["duplicate_pairs"] == 1 and df.attrs["duplicate_pair_rows"] == [1115, 1117]
    assert rep["human_not_majority"] == 0
    assert rep["answer_differs"] == {"gpt4": 1, "davinci": 0, "bem": 2}
    assert df.attrs["answer_differs_rows"] == {"gpt4": [149], "davinci": [], "bem": [387, 917]}
    assert rep["answer_quotes_differ"] == {"gpt4": 7, "davinci": 7, "bem": 7}
    assert rep["file_acceptable_not_human"] == {
        j: sum(r[k] != h[3] for r, h in zip(rows, human)) for j, rows, k in (("gpt4", gpt4, 3), ("davinci", dav, 2), ("bem", bem, 4))}
    assert rep["file_acceptable_not_human"]["gpt4"] == 228 and rep["file_verdict_not_parsed"] == {"gpt4": 11, "davinci": 0, "bem": 0}
    # the judges agree with the humans on most rows, not all
    for j in ("gpt4", "davinci", "bem_verdict"):
        agree = (df[j] == df["human"]).mean()
        assert 0.7 < agree < 0.95, j


@pytest.fixture
def openqa_copy(require_data, tmp_path):
    return copy_folder(real_folder(require_data, "openqa_eval"), tmp_path, data.OPENQA_EVAL_ORIGIN)


def _rewrite(folder, name, row, edit, monkeypatch):
    path = folder / name
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[row] = edit(lines[row])
    path.write_text("\n".join(lines), encoding="utf-8")
    pin_sha256(monkeypatch, data.OPENQA_EVAL_ORIGIN, name, path)


@pytest.mark.parametrize(
    "name, edit, match",
    [
        ("NQ301_text-davinci-003.tsv", lambda s: "1\tsomething else" + s[s.index("\t", 2):], "fused"),
        ("NQ301_gpt-4.tsv", lambda s: "2" + s[1:], "id '2' is not the human file's 1"),
        ("NQ301_gpt-4.tsv", lambda s: s.replace("washington redskins", "redskins", 1), "is not the human file's"),
        ("NQ301_human.tsv", lambda s: s.replace("\tYes\t", "\tMaybe\t", 1), "Acceptable\\? is 'Maybe'"),
        ("NQ301_human.tsv", lambda s: s + "\textra", "expected 7 tab-separated fields"),
        ("NQ301_BEM.tsv", lambda s: s[: s.rindex("\t")] + '\t"[[0.5, 0.5]]"', "one \\[p\\(different\\), p\\(equivalent\\)\\] pair"),
        ("NQ301_BEM.tsv", lambda s: s[: s.rindex("\t")] + '\t"[[0.2, 0.9], [0.5, 0.5]]"', "BEM probs must be"),
        ("NQ301_human.tsv", lambda s: "id\tQuestion\tanswer\tAcceptable?\tannotator1\tannotator2\tannotator3", "the header must be"),
    ],
)
def test_openqa_eval_malformed_files_are_refused(openqa_copy, monkeypatch, name, edit, match):
    row = 0 if "header" in match else 1
    _rewrite(openqa_copy, name, row, edit, monkeypatch)
    with pytest.raises(ValueError, match=match):
        data.load_openqa_eval(data_dir=openqa_copy.parent)


def test_openqa_eval_unfused_row_and_lost_row(openqa_copy, monkeypatch):
    # a text-davinci-003 row with its tab in place is read as such and not counted as repaired
    q = "where are the washington redskins based out of"
    _rewrite(openqa_copy, "NQ301_text-davinci-003.tsv", 1, lambda s: s.replace(q, q + "\t", 1), monkeypatch)
    df = data.load_openqa_eval(data_dir=openqa_copy.parent)
    assert df.attrs["report"]["davinci_fused_repaired"] == 1489 and df["davinci"][0]
    # a file with a row fewer is refused
    path = openqa_copy / "NQ301_gpt-4.tsv"
    path.write_text("\n".join(path.read_text(encoding="utf-8").split("\n")[:-1]), encoding="utf-8")
    pin_sha256(monkeypatch, data.OPENQA_EVAL_ORIGIN, "NQ301_gpt-4.tsv", path)
    with pytest.raises(ValueError, match="expected 1490 rows, found 1489"):
        data.load_openqa_eval(data_dir=openqa_copy.parent)
