"""Tests of semvar.data.mmlu_pro: the MMLU-Pro model outputs loader.

A tiny synthetic release (zips written here, their checksums pinned for the
test) checks the parsing, the wrinkles, the cache and the bad inputs; the real
copies (``require_data``) check the counts the data README states.
"""

from __future__ import annotations

import hashlib
import json
import warnings
import zipfile

import numpy as np
import pandas as pd
import pytest

from semvar import data
from semvar.data import mmlu_pro
from semvar.testing import serve_folder

IDS = mmlu_pro.mmlu_pro_question_ids()[:5].tolist()  # five real question ids
M1, M2 = "Yi-6B", "gemini-1.5-pro-002"


def _record(qid, pred, text, *, answer="B", field="generated_text", category="math"):
    return {"question_id": qid, "question": "q?", "options": ["x", "y"], "answer": answer, "answer_index": 1,
            "cot_content": "", "category": category, "src": "ori_mmlu-test", "pred": pred, field: text}


def _write_zip(path, payload, *, member=None, extra=None):
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(member or path.name.replace(".zip", ".json"), payload if isinstance(payload, str) else json.dumps(payload))
        if extra:
            z.writestr(extra, "{}")
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _m1_records():
    return [
        _record(IDS[0], "B", "Step by step. The answer is (B)."),
        "total",  # a bare string: skipped and counted
        _record(IDS[1], None, "I cannot decide."),  # no letter extracted: kept, pred NaN
        _record(IDS[2], "C", "The answer is (C).", answer="C"),
        _record(IDS[3], "A", "no letter offered here"),  # a letter the text does not contain
        _record(IDS[4], "D", None),  # an empty text
    ]


def _m2_records():  # the other text field, one question missing, one key that differs from M1's
    recs = [_record(q, "B", "So the answer is (B).", field="model_outputs") for q in IDS[:4]]
    recs[0]["answer"] = "C"
    return recs


@pytest.fixture
def release(tmp_path, monkeypatch):
    """Two synthetic model files under tmp/mmlu_pro, pinned; the project's data folders hidden."""
    folder = tmp_path / "data" / "mmlu_pro"
    sha1 = _write_zip(folder / mmlu_pro._file_name(M1), _m1_records())
    sha2 = _write_zip(folder / mmlu_pro._file_name(M2), _m2_records())
    monkeypatch.setitem(mmlu_pro.MMLU_PRO_SHA256, M1, sha1)
    monkeypatch.setitem(mmlu_pro.MMLU_PRO_SHA256, M2, sha2)
    monkeypatch.setenv("SEMVAR_DATA_DIR_ONLY", "1")
    monkeypatch.delenv("SEMVAR_DATA_DIR", raising=False)
    monkeypatch.setenv("SEMVAR_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "data"


def _load(release, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mmlu_pro.MMLUProDataWarning)
        return data.load_mmlu_pro_outputs([M1, M2], data_dir=release, online=False, progress=False, **kw)


# --------------------------------------------------------------------------- synthetic release


def test_frame_layout_and_wrinkles(release):
    with pytest.warns(mmlu_pro.MMLUProDataWarning, match="1 bare-string entries skipped.*questions not answered.*2 questions whose key differs"):
        df = data.load_mmlu_pro_outputs([M1, M2], data_dir=release, online=False, progress=False)
    assert list(df.columns) == list(data.MMLU_PRO_COLUMNS)
    assert list(df["model"].cat.categories) == [M1, M2]
    assert len(df) == 5 + 4
    assert df["question_id"].dtype == np.int32
    m1 = df[df["model"] == M1].set_index("question_id")
    assert pd.isna(m1.loc[IDS[1], "pred"]) and not m1.loc[IDS[1], "correct"]  # unparseable kept, never dropped
    assert m1["correct"].tolist() == [True, False, True, False, False]
    assert m1.loc[IDS[4], "generated_text"] == ""
    assert (df[df["model"] == M2]["generated_text"] == "So the answer is (B).").all()  # the other text field
    rep = data.mmlu_pro_report(df)
    assert rep.loc[M1, ["entries", "records", "bare_strings", "unparseable", "empty_texts", "pred_without_letter"]].tolist() == [6, 5, 1, 1, 1, 2]
    assert rep.loc[M2, "text_field"] == "model_outputs"
    assert rep.loc[M2, "missing_questions"] == data.MMLU_PRO_QUESTIONS - 4
    assert IDS[4] in df.attrs["missing_question_ids"][M2]
    assert df.attrs["pred_without_letter_ids"][M1] == [IDS[3], IDS[4]]
    assert df.attrs["key_disputed_ids"] == [IDS[0], IDS[2]]
    m2 = df[df["model"] == M2].set_index("question_id")
    assert m2.loc[IDS[0], "answer"] == "C" and not m2.loc[IDS[0], "correct"]  # each row keeps its file's key


def test_cache_gives_the_same_frame_and_text_false_drops_the_text(release, tmp_path):
    cold = _load(release)
    cached = sorted((tmp_path / "cache" / "mmlu_pro").glob("*.parquet"))
    assert len(cached) == 2 and all(mmlu_pro.MMLU_PRO_SHA256[M1][:16] in p.name or mmlu_pro.MMLU_PRO_SHA256[M2][:16] in p.name for p in cached)
    warm = _load(release)
    pd.testing.assert_frame_equal(cold, warm)
    assert warm.attrs == cold.attrs
    short = _load(release, text=False)
    assert "generated_text" not in short.columns
    pd.testing.assert_frame_equal(short, cold.drop(columns="generated_text"))


def test_model_order_and_single_name(release):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mmlu_pro.MMLUProDataWarning)
        rev = data.load_mmlu_pro_outputs([M2, M1], data_dir=release, online=False, progress=False, text=False)
        one = data.load_mmlu_pro_outputs(M2, data_dir=release, online=False, progress=False, text=False)
    assert rev["model"].iloc[0] == M2 and list(rev["model"].cat.categories) == [M2, M1]
    assert len(one) == 4 and list(one["model"].cat.categories) == [M2]


def test_damaged_cache_is_rebuilt_with_a_warning(release, tmp_path):
    _load(release)
    path = next((tmp_path / "cache" / "mmlu_pro").glob(f"{M1}.*.parquet"))
    path.write_bytes(b"not parquet")
    with pytest.warns(UserWarning, match="unreadable or damaged"):
        df = _load(release)
    assert (df["model"] == M1).sum() == 5


def test_bad_checksum_is_refused(release):
    path = release / "mmlu_pro" / mmlu_pro._file_name(M1)
    _write_zip(path, _m1_records()[:3])  # another file under the same name
    with pytest.raises(ValueError, match="sha256 .* but expected"):
        _load(release)


@pytest.mark.parametrize(
    "payload, member, extra, match",
    [
        ({"question_id": 1}, None, None, "expected a JSON list"),
        ("[1, 2", None, None, "does not parse"),
        ([_record(IDS[0], "B", "x")], None, "second.json", "one JSON file"),
        ([_record(IDS[0], "B", "x")], "data.txt", None, "one JSON file"),
        ([_record(IDS[0], "K", "x")], None, None, "pred 'K'"),
        ([_record(IDS[0], "B", "x", answer="Z")], None, None, "answer 'Z'"),
        ([_record(IDS[0], "B", "x", category="astrology")], None, None, "category 'astrology'"),
        ([_record(IDS[0], "B", "x"), _record(IDS[0], "C", "y")], None, None, "more than once"),
        ([_record(1, "B", "x")], None, None, r"not in the MMLU-Pro test set"),
        ([{"question_id": IDS[0]}], None, None, "exactly one of the text fields"),
        ([[1, 2]], None, None, "neither a record nor a bare string"),
        (["total"], None, None, "holds no record"),
    ],
)
def test_malformed_files_are_refused(release, monkeypatch, payload, member, extra, match):
    path = release / "mmlu_pro" / mmlu_pro._file_name(M1)
    monkeypatch.setitem(mmlu_pro.MMLU_PRO_SHA256, M1, _write_zip(path, payload, member=member, extra=extra))
    with pytest.raises(ValueError, match=match):
        _load(release)


def test_not_a_zip_is_refused(release, monkeypatch):
    path = release / "mmlu_pro" / mmlu_pro._file_name(M1)
    path.write_bytes(b"plain bytes")
    monkeypatch.setitem(mmlu_pro.MMLU_PRO_SHA256, M1, hashlib.sha256(b"plain bytes").hexdigest())
    with pytest.raises(ValueError, match="not a readable zip"):
        _load(release)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"models": "GPT-5"}, r"unknown model\(s\) \['GPT-5'\]; models must be among the 29 of the release: \['DeepSeek-Coder-V2'"),
        ({"models": []}, "at least one model"),
        ({"models": [M1, M1]}, "must not repeat"),
        ({"models": 3}, "a model name or a list"),
        ({"online": "yes"}, "online must be"),
        ({"text": "no"}, "text must be True or False"),
    ],
)
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        data.load_mmlu_pro_outputs(**kwargs)


def test_not_found_names_the_places_and_the_origin(tmp_path, monkeypatch):
    monkeypatch.setenv("SEMVAR_DATA_DIR_ONLY", "1")
    monkeypatch.delenv("SEMVAR_DATA_DIR", raising=False)
    monkeypatch.setenv("SEMVAR_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(data.DataNotFoundError, match=r"(?s)model_outputs_Yi-6B_5shots\.zip.*TIGER-AI-Lab/MMLU-Pro"):
        data.load_mmlu_pro_outputs(M1, data_dir=tmp_path, online=False)


def test_report_needs_a_loader_frame():
    with pytest.raises(ValueError, match="no attrs"):
        data.mmlu_pro_report(pd.DataFrame({"a": [1]}))


def test_question_ids_are_the_test_set():
    ids = data.mmlu_pro_question_ids()
    assert ids.size == data.MMLU_PRO_QUESTIONS == 12032
    assert np.all(np.diff(ids) > 0)
    assert hashlib.sha256(ids.astype("<i8").tobytes()).hexdigest() == mmlu_pro._IDS_SHA256


@pytest.fixture
def mirror(tmp_path):
    """A synthetic file served on 127.0.0.1 in the origin's layout <owner>/<repo>/<commit>/<path>."""
    root = tmp_path / "mirror"
    path = root / data.MMLU_PRO_REPO / data.MMLU_PRO_COMMIT / "eval_results" / mmlu_pro._file_name(M1)
    sha = _write_zip(path, _m1_records())

    with serve_folder(root) as url:
        yield url, sha


def test_fetched_from_the_origin_when_no_copy(mirror, tmp_path, monkeypatch):
    url, sha = mirror
    monkeypatch.setitem(mmlu_pro.MMLU_PRO_SHA256, M1, sha)
    monkeypatch.setenv("SEMVAR_DATA_DIR_ONLY", "1")
    monkeypatch.delenv("SEMVAR_DATA_DIR", raising=False)
    monkeypatch.setenv("SEMVAR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SEMVAR_DATA_MIRROR", url)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mmlu_pro.MMLUProDataWarning)
        with pytest.warns(UserWarning, match="fetched from TIGER-AI-Lab/MMLU-Pro"):
            df = data.load_mmlu_pro_outputs(M1, progress=False)
    assert len(df) == 5
    # a pinned checksum the served bytes do not match: refused, nothing cached
    monkeypatch.setitem(mmlu_pro.MMLU_PRO_SHA256, M2, "0" * 64)
    (tmp_path / "mirror" / data.MMLU_PRO_REPO / data.MMLU_PRO_COMMIT / "eval_results" / mmlu_pro._file_name(M2)).write_bytes(b"x")
    with pytest.raises(ValueError, match="refused"):
        data.load_mmlu_pro_outputs(M2, progress=False)


# --------------------------------------------------------------------------- the real copies


@pytest.fixture
def real_dir(require_data):
    return require_data("mmlu_pro", [mmlu_pro._file_name(m) for m in data.MMLU_PRO_MODELS])


def test_pinned_checksums_match_the_copies(real_dir):
    sums = dict(line.split()[::-1] for line in (real_dir / "SHA256SUMS").read_text().splitlines() if line.strip())
    for m, sha in data.MMLU_PRO_SHA256.items():
        assert sums[mmlu_pro._file_name(m)] == sha, m


def test_real_release_counts(real_dir):
    with pytest.warns(mmlu_pro.MMLUProDataWarning, match="43 bare-string entries"):
        df = data.load_mmlu_pro_outputs(text=False, data_dir=real_dir.parent, progress=False)
    assert df["model"].nunique() == 29 and df["question_id"].nunique() == 12032
    rep = data.mmlu_pro_report(df)
    assert rep.loc["DeepSeek-Coder-V2", ["entries", "records", "bare_strings"]].tolist() == [10394, 10351, 43]
    assert rep.loc["gemini-1.5-flash-002", "records"] == 12012 and rep.loc["gemini-1.5-pro-002", "records"] == 12020
    assert (rep["records"] + rep["missing_questions"] == 12032).all()
    assert len(df) == rep["records"].sum()
    share_null = df["pred"].isna().mean()
    assert 0.08 < share_null < 0.10  # "about 9 %" (data README)
    assert 0.12 < df.loc[df["model"] == "gemma-7b", "pred"].isna().mean() < 0.14  # "13 % for gemma-7b"
    assert set(df["category"].unique()) == set(data.MMLU_PRO_CATEGORIES)
    # the category of a question is the same in every file; the key differs for 33 questions (reported)
    per_q = df.groupby("question_id", observed=True).agg(keys=("answer", "nunique"), cats=("category", "nunique"))
    assert (per_q["cats"] == 1).all()
    assert per_q.index[per_q["keys"] > 1].tolist() == df.attrs["key_disputed_ids"]
    assert len(df.attrs["key_disputed_ids"]) == 33


def test_real_file_read_independently(real_dir):
    """One file parsed here with json alone agrees with the loader row for row."""
    with zipfile.ZipFile(real_dir / mmlu_pro._file_name("DeepSeek-Coder-V2")) as z:
        raw = json.loads(z.read(z.namelist()[0]))
    recs = sorted((r for r in raw if isinstance(r, dict)), key=lambda r: r["question_id"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mmlu_pro.MMLUProDataWarning)
        df = data.load_mmlu_pro_outputs("DeepSeek-Coder-V2", data_dir=real_dir.parent, progress=False)
    assert df["question_id"].tolist() == [r["question_id"] for r in recs]
    assert df["pred"].astype(object).where(df["pred"].notna(), None).tolist() == [r["pred"] for r in recs]
    assert df["generated_text"].tolist() == [r["model_outputs"] or "" for r in recs]
    assert df["correct"].sum() == sum(r["pred"] == r["answer"] for r in recs)
