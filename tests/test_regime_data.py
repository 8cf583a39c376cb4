"""Tests of the loaders of the semantic-entropy regime: uq_nlg, sas, openqa_eval, evouna.

The real copies (found by the data rule, ``require_data``) check the counts
the data README states, against an independent reading of the files with the
standard library; synthetic files (their checksums pinned for the test) check
the refusals; a stand-in origin on 127.0.0.1 serving the real copies checks
the fetch-verify-cache path.
"""

from __future__ import annotations

import csv
import json
import pickle
import pickletools
import shutil
import socket
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar import data
from semvar.data import _safe_pickle
from semvar.testing import serve_folder

ORIGINS = {
    "uq_nlg": (data.UQ_NLG_ORIGIN, data.load_uq_nlg),
    "sas": (data.SAS_ORIGIN, data.load_sas),
    "openqa_eval": (data.OPENQA_EVAL_ORIGIN, data.load_openqa_eval),
    "evouna": (data.EVOUNA_ORIGIN, data.load_evouna),
}
# the offline copies, located before any test changes the environment
_FOUND = {k: data.find_data_dir(o["subdir"], list(o["files"]) + ["SHA256SUMS"]) for k, (o, _) in ORIGINS.items()}


def _folder(require_data, key):
    if _FOUND[key] is not None:
        return _FOUND[key]
    origin = ORIGINS[key][0]
    return require_data(origin["subdir"], list(origin["files"]) + ["SHA256SUMS"])


def _quiet(load, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return load(*args, **kw)


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """A machine with no data directory, an empty cache and an origin that serves nothing."""
    monkeypatch.setenv("SEMVAR_DATA_DIR_ONLY", "1")
    monkeypatch.setenv("SEMVAR_DATA_DIR", str(tmp_path / "empty"))
    monkeypatch.setenv("SEMVAR_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "void").mkdir()
    with serve_folder(tmp_path / "void") as url:  # 404 for everything: never the network
        monkeypatch.setenv("SEMVAR_DATA_MIRROR", url)
        yield tmp_path


def _copy(src, dst_root, origin):
    """A writable copy of a data folder under ``dst_root/<subdir>``."""
    dst = dst_root / origin["subdir"]
    dst.mkdir(parents=True)
    for name in origin["files"]:
        shutil.copyfile(src / name, dst / name)
    return dst


def _pin(monkeypatch, origin, name, path):
    """Pin the sha256 of a rewritten file, so that the test reaches the content checks."""
    monkeypatch.setitem(origin["files"], name, (origin["files"][name][0], data._paths._sha256(path)))


# --------------------------------------------------------------------------- every loader: the rule, the checksums


@pytest.mark.parametrize("key", list(ORIGINS))
def test_pinned_checksums_are_those_of_the_copies(require_data, key):
    folder = _folder(require_data, key)
    origin = ORIGINS[key][0]
    sums = dict(line.split()[::-1] for line in (folder / "SHA256SUMS").read_text().splitlines() if line.strip())
    assert {name: sha for name, (_, sha) in origin["files"].items()} == {n: sums[n] for n in origin["files"]}
    assert len(origin["commit"]) == 40


@pytest.mark.parametrize("key", list(ORIGINS))
@pytest.mark.parametrize("bad", [3, 1.5, ["a"], b"dir", object()])
def test_bad_data_dir_type(key, bad):
    with pytest.raises(ValueError, match=r"data_dir must be None or a folder path \(str or os.PathLike\), got"):
        ORIGINS[key][1](data_dir=bad)


@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_bad_progress(bad):
    with pytest.raises(ValueError, match="progress must be True or False"):
        data.load_uq_nlg(progress=bad)


@pytest.mark.parametrize("key", list(ORIGINS))
def test_damaged_copy_is_refused_and_data_dir_comes_first(require_data, key, tmp_path, monkeypatch):
    src = _folder(require_data, key)
    origin, load = ORIGINS[key]
    dst = _copy(src, tmp_path, origin)
    name = list(origin["files"])[-1]
    raw = (dst / name).read_bytes()
    (dst / name).write_bytes(raw[: len(raw) // 2])
    monkeypatch.setenv("SEMVAR_DATA_DIR", str(src.parent))  # a good copy, searched after data_dir
    with pytest.raises(ValueError, match=f"{name} is damaged or not the expected file: sha256"):
        load(data_dir=tmp_path)


@pytest.mark.parametrize("key", list(ORIGINS))
def test_missing_files_name_the_places_and_the_origin(fresh, key):
    origin, load = ORIGINS[key]
    with pytest.warns(UserWarning, match="in no data directory; fetching it from"):
        with pytest.raises(data.DataNotFoundError) as err:
            load(data_dir=fresh / "arg")
    msg = str(err.value)
    first = list(origin["files"])[0]
    assert str(fresh / "arg" / origin["subdir"] / first) in msg
    assert str(fresh / "empty" / origin["subdir"] / first) in msg
    assert "SEMVAR_DATA_DIR_ONLY" in msg and "HTTPError: 404" in msg
    assert f"{origin['repo']}/{origin['commit']}/{origin['files'][first][0]}" in msg
    assert not list((fresh / "cache").rglob("*.*"))  # nothing half-fetched is left


@pytest.fixture
def mirror(require_data, tmp_path):
    """The real copies laid out as their origins (<owner>/<repo>/<commit>/<path>), served on 127.0.0.1."""
    root = tmp_path / "mirror"
    for key, (origin, _) in ORIGINS.items():
        src = _folder(require_data, key)
        for name, (path, _) in origin["files"].items():
            target = root / origin["repo"] / origin["commit"] / path
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src / name, target)
    return root


def test_fetched_from_the_origin_verified_then_cached(mirror, require_data, tmp_path, monkeypatch):
    local = {key: load(data_dir=_folder(require_data, key).parent) for key, (_, load) in ORIGINS.items()}
    monkeypatch.setenv("SEMVAR_DATA_DIR_ONLY", "1")
    monkeypatch.setenv("SEMVAR_DATA_DIR", str(tmp_path / "empty"))
    monkeypatch.setenv("SEMVAR_CACHE_DIR", str(tmp_path / "cache"))
    with serve_folder(mirror) as url:
        monkeypatch.setenv("SEMVAR_DATA_MIRROR", url)
        for key, (origin, load) in ORIGINS.items():
            with pytest.warns(UserWarning, match=f"fetching it from {origin['repo']} at commit {origin['commit'][:12]}"):
                got = load()
            pd.testing.assert_frame_equal(got, local[key])
            assert got.attrs["report"] == local[key].attrs["report"]
            assert got.attrs["source"] == f"{origin['repo']}@{origin['commit']}"
            for path, _ in origin["files"].values():
                assert (tmp_path / "cache" / "github" / origin["repo"] / origin["commit"] / path).is_file()
    # the origin is gone: the cache of the earlier fetch serves the same frames
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        monkeypatch.setenv("SEMVAR_DATA_MIRROR", f"http://127.0.0.1:{s.getsockname()[1]}")
    for key, (_, load) in ORIGINS.items():
        pd.testing.assert_frame_equal(_quiet(load), local[key])


def test_origin_serving_other_bytes_is_refused(mirror, tmp_path, monkeypatch):
    origin = data.SAS_ORIGIN
    path = mirror / origin["repo"] / origin["commit"] / origin["files"]["SQuAD_SAS.csv"][0]
    path.write_bytes(path.read_bytes().replace(b",2.0", b",0.0", 1))
    monkeypatch.setenv("SEMVAR_DATA_DIR_ONLY", "1")
    monkeypatch.setenv("SEMVAR_DATA_DIR", str(tmp_path / "empty"))
    monkeypatch.setenv("SEMVAR_CACHE_DIR", str(tmp_path / "cache"))
    with serve_folder(mirror) as url:
        monkeypatch.setenv("SEMVAR_DATA_MIRROR", url)
        with pytest.raises(ValueError, match="refused .*sha256 is not the pinned"):
            _quiet(data.load_sas)
    assert not (tmp_path / "cache" / "github" / origin["repo"] / origin["commit"] / "data" / "data" / "SQuAD_SAS.csv").exists()


# --------------------------------------------------------------------------- the unpickler that admits no global


def test_no_globals_unpickler_loads_builtins_and_refuses_every_global(tmp_path):
    plain = [{"id": "q", "x": ("a", 1, 2.5, None, True, b"b")}, {1, 2}, frozenset({3})]
    (tmp_path / "ok.pkl").write_bytes(pickle.dumps(plain))
    assert _safe_pickle.load_plain_pickle(tmp_path / "ok.pkl") == plain
    refused = [np.arange(3), [np.float64(1.0)], print, complex(1, 2), pd.Series([1])]
    for k, value in enumerate(refused):
        (tmp_path / f"g{k}.pkl").write_bytes(pickle.dumps(value))
        with pytest.raises(_safe_pickle.RefusedPickleError, match="names the global .*no global is admitted"):
            _safe_pickle.load_plain_pickle(tmp_path / f"g{k}.pkl")
    # the numpy-only unpickler admits the array; this one does not
    assert _safe_pickle.load_numpy_pickle(tmp_path / "g0.pkl").tolist() == [0, 1, 2]


def test_no_globals_unpickler_runs_nothing(tmp_path):
    class Boom:
        def __reduce__(self):
            return (open, (str(tmp_path / "created"), "w"))

    (tmp_path / "evil.pkl").write_bytes(pickle.dumps([Boom()]))
    with pytest.raises(_safe_pickle.RefusedPickleError, match="builtins.open|io.open"):
        _safe_pickle.load_plain_pickle(tmp_path / "evil.pkl", source="http://x/evil.pkl")
    assert not (tmp_path / "created").exists()
    (tmp_path / "cut.pkl").write_bytes(pickle.dumps(["a" * 50])[:20])
    with pytest.raises(ValueError, match="not a readable pickle of builtin values"):
        _safe_pickle.load_plain_pickle(tmp_path / "cut.pkl")


# --------------------------------------------------------------------------- uq_nlg


def _uq_record(k, n=20):
    return {"prompt": f"Q: q{k}?\nA:", "id": f"id_{k}", "question": f"q{k}?", "answer": "Paris",
            "generations": {"text": [" Paris\n"] * n, "text_cleaned": [" Paris"] * (n - 1) + [" "]}}


def _write_uq(folder, payload, monkeypatch):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "demo_data.pkl"
    path.write_bytes(pickle.dumps(payload))
    _pin(monkeypatch, data.UQ_NLG_ORIGIN, "demo_data.pkl", path)


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
    folder = _folder(require_data, "uq_nlg")
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


# --------------------------------------------------------------------------- sas


def _write_sas(folder, monkeypatch, texts):
    folder.mkdir(parents=True, exist_ok=True)
    for name in data.SAS_DATASETS:
        path = folder / f"{name}_SAS.csv"
        path.write_text(texts.get(name, "answer1,answer2,label\n" + "a,b,0.0\n" * data.SAS_ROWS[name]), encoding="utf-8")
        _pin(monkeypatch, data.SAS_ORIGIN, f"{name}_SAS.csv", path)


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
    folder = _folder(require_data, "sas")
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


# --------------------------------------------------------------------------- openqa_eval


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
    folder = _folder(require_data, "openqa_eval")
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
    return _copy(_folder(require_data, "openqa_eval"), tmp_path, data.OPENQA_EVAL_ORIGIN)


def _rewrite(folder, name, row, edit, monkeypatch):
    path = folder / name
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[row] = edit(lines[row])
    path.write_text("\n".join(lines), encoding="utf-8")
    _pin(monkeypatch, data.OPENQA_EVAL_ORIGIN, name, path)


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
    _pin(monkeypatch, data.OPENQA_EVAL_ORIGIN, "NQ301_gpt-4.tsv", path)
    with pytest.raises(ValueError, match="expected 1490 rows, found 1489"):
        data.load_openqa_eval(data_dir=openqa_copy.parent)


# --------------------------------------------------------------------------- evouna


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
        _pin(monkeypatch, data.EVOUNA_ORIGIN, f"{name}.json", path)


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
    folder = _folder(require_data, "evouna")
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
