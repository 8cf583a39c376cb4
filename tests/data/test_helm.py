"""The HELM answers and MMLU-Redux loaders (semvar.data.helm): synthetic files for the rules, the real copies for the data."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar import data
from semvar.data import helm
from semvar.testing import serve_folder

SUBJECT_FILES = [f"original_helm_combined/{s}.csv" for s in sorted(data.mmlu_subjects()["subject"])]
REDUX_FILE = "multi_expert_helm_all.csv"
MODELS = list(data.HELM_MODELS)

# --------------------------------------------------------------------------- synthetic files


def _mmlu(rows):
    """A small stand-in for the MMLU test split: (subject, question, choices, answer index)."""
    return pd.DataFrame(rows, columns=["subject", "question", "choices", "answer"])


MMLU = _mmlu([
    ("anatomy", "Which bone?", ["femur", "tibia", "ulna", "radius"], 0),
    ("anatomy", "Which organ?", ["heart", "liver", "lung", "skin"], 2),
    ("anatomy", "Repeated?", ["a", "b", "c", "d"], 1),
    ("anatomy", "Repeated?", ["a", "b", "c", "d"], 1),
    ("virology", "Which virus \u2019s?", ["flu", "hiv", "hpv", "ebola"], 3),
])


def _helm_csv(path: Path, rows, *, drop=None, extra=None, answers=None):
    """Write a HELM-style subject file: rows of (question, choices); every model answers ``answers[j]``."""
    cols = ["question", "choices"] + [c for c in MODELS if c != drop]
    out = []
    for j, (q, ch) in enumerate(rows):
        ans = answers[j] if answers is not None else "A"
        out.append([q, str(list(ch))] + [ans] * (len(cols) - 2))
    df = pd.DataFrame(out, columns=cols)
    if extra:
        df[extra] = "A"
    path.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(path, index=False)
    return path


def test_parse_scores_letters_words_and_blanks(tmp_path):
    rows = [("Which bone?", ["femur", "tibia", "ulna", "radius"]), ("Which organ?", ["heart", "liver", "lung", "skin"]),
            ("Repeated?", ["a", "b", "c", "d"])]
    anat = _helm_csv(tmp_path / "anatomy.csv", rows, answers=[" A", "To", "B "])
    viro = _helm_csv(tmp_path / "virology.csv", [("Which  virus ?s? ", ["flu", "hiv", "hpv", "ebola"])], answers=[""])
    df = helm._parse_helm({"anatomy": anat, "virology": viro}, MMLU)
    one = df[df["model"] == "gpt-4o-2024-05-13"].set_index("item_id")
    assert one["answer"].to_dict() == {0: "A", 1: "To", 2: "B", 4: ""}          # stripped; words and blanks kept
    assert one["correct"].to_dict() == {0: 1, 1: 0, 2: 1, 4: 0}                 # a word or a blank is wrong, not missing
    assert one["subject"].to_dict()[4] == "virology"                            # white space and non-ASCII normalised
    assert df.attrs["unanswered_items"] == [3] and df.attrs["unmatched"] == []  # MMLU's repeat, listed once in HELM
    assert sorted(df["model"].unique()) == sorted(data.HELM_MODELS.values()) and len(df) == 40


def test_a_letter_beyond_d_counts_wrong(tmp_path):
    rows = [("Which bone?", ["femur", "tibia", "ulna", "radius"]), ("Which organ?", ["heart", "liver", "lung", "skin"])]
    f = _helm_csv(tmp_path / "anatomy.csv", rows, answers=["E", "C"])
    df = helm._parse_helm({"anatomy": f}, MMLU)
    assert df.groupby("item_id")["correct"].sum().to_dict() == {0: 0, 1: 10}


def test_unmatched_rows_are_left_out_and_reported(tmp_path):
    rows = [("Which bone?", ["femur", "tibia", "ulna", "radius"]), ("Not in MMLU?", ["w", "x", "y", "z"])]
    df = helm._parse_helm({"anatomy": _helm_csv(tmp_path / "anatomy.csv", rows)}, MMLU)
    assert df["item_id"].unique().tolist() == [0]
    assert df.attrs["unmatched"] == [{"subject": "anatomy", "line": 3, "question": "Not in MMLU?"}]


def test_a_question_mmlu_holds_twice_may_appear_twice(tmp_path):
    rows = [("Repeated?", ["a", "b", "c", "d"])] * 2
    df = helm._parse_helm({"anatomy": _helm_csv(tmp_path / "anatomy.csv", rows)}, MMLU)
    assert sorted(df["item_id"].unique()) == [2, 3]


@pytest.mark.parametrize("rows,match", [
    ([("Which bone?", ["femur", "tibia", "ulna", "radius"])] * 2, "duplicated question"),
    ([("Repeated?", ["a", "b", "c", "d"])] * 3, "duplicated question"),
    ([("Nowhere?", ["a", "b", "c", "d"])] * 2, "duplicated question"),
])
def test_duplicated_question_is_refused(tmp_path, rows, match):
    with pytest.raises(ValueError, match=match):
        helm._parse_helm({"anatomy": _helm_csv(tmp_path / "anatomy.csv", rows)}, MMLU)


def test_missing_or_unexpected_model_column_is_refused(tmp_path):
    rows = [("Which bone?", ["femur", "tibia", "ulna", "radius"])]
    f = _helm_csv(tmp_path / "anatomy.csv", rows, drop="meta_llama-3-70b")
    with pytest.raises(ValueError, match=r"anatomy.csv: missing column\(s\) \['meta_llama-3-70b'\]"):
        helm._parse_helm({"anatomy": f}, MMLU)
    f = _helm_csv(tmp_path / "anatomy.csv", rows, extra="acme_model-x")
    with pytest.raises(ValueError, match="unexpected column"):
        helm._parse_helm({"anatomy": f}, MMLU)


@pytest.mark.parametrize("code", [["0", "2"], ["a", "c"], ["To", "The"]])
def test_a_column_of_answers_outside_a_to_d_is_refused(tmp_path, code):
    rows = [("Which bone?", ["femur", "tibia", "ulna", "radius"]), ("Which organ?", ["heart", "liver", "lung", "skin"])]
    f = _helm_csv(tmp_path / "anatomy.csv", rows, answers=code)
    with pytest.raises(ValueError, match="outside A-D"):
        helm._parse_helm({"anatomy": f}, MMLU)


def test_unreadable_choices_are_refused(tmp_path):
    f = tmp_path / "anatomy.csv"
    pd.DataFrame([["Which bone?", "femur, tibia"] + ["A"] * len(MODELS)], columns=["question", "choices"] + MODELS).to_csv(f, index=False)
    with pytest.raises(ValueError, match="line 2: choices must be a list of four strings"):
        helm._parse_helm({"anatomy": f}, MMLU)


def _redux_csv(path: Path, *, n=5700, key="0", label="ok", question="Which bone?"):
    subjects = np.repeat(sorted(data.mmlu_subjects()["subject"]), 100)[:n]
    rows = []
    for j, s in enumerate(subjects):
        q = question if (s == "anatomy" and j % 100 == 0) else f"q{j}"
        ch = ["femur", "tibia", "ulna", "radius"] if q == question else [f"{j}a", "b", "c", "d"]
        rows.append([q, str(ch), key, label] + ["A"] * len(data.REDUX_MODELS))
    df = pd.DataFrame(rows, columns=["question", "choices", "groundtruth_answer", "error_type", *data.REDUX_MODELS])
    df.to_csv(path, index=False)
    return path


def test_redux_parse_and_its_bad_inputs(tmp_path):
    f = _redux_csv(tmp_path / "r.csv")
    df = helm._parse_redux(f, MMLU)
    assert len(df) == 5700 and df["item_id"].notna().sum() == 1
    assert df.loc[df["item_id"].notna(), "subject"].tolist() == ["anatomy"]
    assert len(df.attrs["unmatched"]) == 5699 and df.attrs["models"] == list(data.REDUX_MODELS.values())
    with pytest.raises(ValueError, match="groundtruth_answer must be 0-3"):
        helm._parse_redux(_redux_csv(tmp_path / "r.csv", key="4"), MMLU)
    with pytest.raises(ValueError, match="unknown error_type"):
        helm._parse_redux(_redux_csv(tmp_path / "r.csv", label="typo"), MMLU)
    with pytest.raises(ValueError, match="expected 5700 rows"):
        helm._parse_redux(_redux_csv(tmp_path / "r.csv", n=5699), MMLU)
    with pytest.raises(ValueError, match="differs from the key"):
        helm._parse_redux(_redux_csv(tmp_path / "r.csv", key="2"), MMLU)


@settings(max_examples=60, deadline=None)
@given(answers=st.lists(st.sampled_from(["A", " B", "C ", "D", "E", "To", "", "The", "2"]), min_size=2, max_size=2),
       pad=st.sampled_from(["", " ", "\t", "  "]))
def test_scoring_is_the_stripped_answer_against_the_key(tmp_path_factory, answers, pad):
    if sum(a.strip() in "ABCD" and a.strip() != "" for a in answers) == 0:
        answers = ["A", answers[1]]  # keep the column mostly letters
    tmp = tmp_path_factory.mktemp("h")
    rows = [("Which bone?", ["femur", "tibia", "ulna", "radius"]), ("Which organ?", ["heart", "liver", "lung", "skin"])]
    f = _helm_csv(tmp / "anatomy.csv", rows, answers=[pad + a + pad for a in answers])
    one = helm._parse_helm({"anatomy": f}, MMLU).query("model == 'llama-3-70b'").set_index("item_id")
    keys = {0: "A", 1: "C"}
    for item, a in zip((0, 1), answers):
        assert one.loc[item, "answer"] == a.strip()
        assert one.loc[item, "correct"] == int(a.strip() == keys[item])


def test_bad_arguments():
    with pytest.raises(ValueError, match="online must be"):
        data.load_helm_mmlu(online="yes")
    with pytest.raises(ValueError, match="online must be"):
        data.load_mmlu_redux(online=1.5)


def test_no_copy_and_no_network_names_the_origin(tmp_path, monkeypatch):
    monkeypatch.setenv("SEMVAR_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("SEMVAR_DATA_DIR_ONLY", "1")
    with pytest.raises(data.DataNotFoundError, match=r"(?s)mmlu_redux/original_helm_combined/abstract_algebra.csv.*aryopg/mmlu-redux"):
        data.load_helm_mmlu(online=False)
    with pytest.raises(data.DataNotFoundError, match="multi_expert_helm_all.csv"):
        data.load_mmlu_redux(online=False)


def test_a_file_from_another_commit_is_refused(tmp_path, monkeypatch):
    """Checksums: synthetic (or other-commit) files in a data directory are refused before anything is parsed."""
    folder = tmp_path / "mmlu_redux"
    for f in SUBJECT_FILES:
        _helm_csv(folder / f, [("Which bone?", ["femur", "tibia", "ulna", "radius"])])
    monkeypatch.setenv("SEMVAR_DATA_DIR_ONLY", "1")
    monkeypatch.setenv("SEMVAR_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(ValueError, match=r"(?s)abstract_algebra.csv is damaged or not the expected file.*commit 4563cfa"):
        data.load_helm_mmlu(data_dir=tmp_path)
    assert not (tmp_path / "cache").exists()


# --------------------------------------------------------------------------- the real copies


@pytest.fixture
def helm_dir(require_data):
    return require_data("mmlu_redux", SUBJECT_FILES + [REDUX_FILE])


@pytest.fixture(scope="module")
def mmlu_test():
    return data.load_mmlu("test", online=False)


def test_pinned_checksums_match_the_copies(helm_dir):
    assert len(data.HELM_SHA256) == 58
    for rel, sha in data.HELM_SHA256.items():
        assert data._paths._sha256(helm_dir / rel) == sha, rel


def test_helm_answers(helm_dir, mmlu_test, tmp_path, monkeypatch):
    monkeypatch.setenv("SEMVAR_CACHE_DIR", str(tmp_path / "cache"))
    df = data.load_helm_mmlu(mmlu=mmlu_test)  # parsed
    assert sorted(df["model"].unique()) == sorted(data.HELM_MODELS.values())
    size = df.groupby("model").size()
    assert (size >= 14000).all() and (size == 14015).all()
    acc = df.groupby("model")["correct"].mean()
    assert acc.round(2).between(0.77, 0.85).all()
    assert round(acc["claude-3-opus-20240229"], 3) == 0.850 and round(acc["gpt-4o-2024-05-13"], 3) == 0.848
    assert acc.idxmax() == "claude-3-opus-20240229"
    assert df.attrs["unmatched"] == [] and len(df.attrs["unanswered_items"]) == 27
    # the 27 unanswered rows repeat a question (and its options) of their subject that is answered
    dup = mmlu_test.assign(c=mmlu_test["choices"].map(tuple)).duplicated(["subject", "question", "c"])
    assert sorted(np.flatnonzero(dup.to_numpy())) == df.attrs["unanswered_items"]
    # scored against MMLU's key, independently of the loader
    one = df[df["model"] == "llama-3-70b"]
    key = np.array(list("ABCD"))[mmlu_test["answer"].to_numpy()[one["item_id"].to_numpy()]]
    assert np.array_equal(one["correct"].to_numpy(), (one["answer"].to_numpy() == key).astype(int))
    # stripped, and non-letters are wrong answers, not missing ones
    assert not df["answer"].str.match(r"^\s|\s$").any()
    words = df[(df["model"] == "gpt-4-1106-preview") & ~df["answer"].isin(list("ABCD"))]
    assert len(words) > 700 and (words["correct"] == 0).all()
    # the second load comes from the cache and is the same table
    again = data.load_helm_mmlu()
    pd.testing.assert_frame_equal(again, df)
    assert again.attrs == df.attrs
    assert list((tmp_path / "cache" / "mmlu_redux").glob("helm_mmlu_*.parquet"))


def test_damaged_cache_is_rebuilt(helm_dir, mmlu_test, tmp_path, monkeypatch):
    monkeypatch.setenv("SEMVAR_CACHE_DIR", str(tmp_path / "cache"))
    first = data.load_mmlu_redux(mmlu=mmlu_test)
    (cached,) = (tmp_path / "cache" / "mmlu_redux").glob("mmlu_redux_*.parquet")
    cached.write_bytes(b"not parquet")
    with pytest.warns(UserWarning, match="damaged"):
        again = data.load_mmlu_redux(mmlu=mmlu_test)
    pd.testing.assert_frame_equal(again, first)


def test_mmlu_redux(helm_dir, mmlu_test, tmp_path, monkeypatch):
    monkeypatch.setenv("SEMVAR_CACHE_DIR", str(tmp_path / "cache"))
    r = data.load_mmlu_redux(mmlu=mmlu_test)
    assert len(r) == 5700 and (r.groupby("subject").size() == 100).all()
    assert r["error_type"].value_counts().to_dict() == {
        "ok": 5330, "bad_question_clarity": 132, "wrong_groundtruth": 107, "multiple_correct_answers": 39,
        "no_correct_answer": 35, "expert": 32, "bad_options_clarity": 25}
    assert r["item_id"].isna().sum() == 6 and len(r.attrs["unmatched"]) == 6
    matched = r.dropna(subset=["item_id"])
    ids = matched["item_id"].astype(int).to_numpy()
    assert (mmlu_test["subject"].to_numpy()[ids] == matched["subject"].to_numpy()).all()
    assert (np.array(list("ABCD"))[mmlu_test["answer"].to_numpy()[ids]] == matched["groundtruth"].to_numpy()).all()
    assert len(set(ids)) == len(ids)
    assert set(data.REDUX_MODELS.values()) <= set(r.columns)
    # the models in both files answered the same questions mostly alike
    h = data.load_helm_mmlu(mmlu=mmlu_test)
    g = h[h["model"] == "gpt-4o-2024-05-13"].set_index("item_id")["answer"]
    both = matched.set_index(matched["item_id"].astype(int))["gpt-4o-2024-05-13"].reindex(g.index).dropna()
    assert (both == g.reindex(both.index)).mean() > 0.9


def test_tampered_copy_is_refused(helm_dir, tmp_path, monkeypatch):
    folder = tmp_path / "mmlu_redux"
    shutil.copytree(helm_dir, folder)
    target = folder / REDUX_FILE
    target.chmod(0o644)
    target.write_bytes(target.read_bytes().replace(b",wrong_groundtruth,", b",ok,", 1))
    monkeypatch.setenv("SEMVAR_DATA_DIR_ONLY", "1")
    with pytest.raises(ValueError, match="multi_expert_helm_all.csv is damaged or not the expected file"):
        data.load_mmlu_redux(data_dir=tmp_path)


@pytest.fixture
def mirror(helm_dir, tmp_path):
    """The copies laid out as the origin (<owner>/<repo>/<commit>/<path>) and served on 127.0.0.1."""
    root = tmp_path / "mirror"
    base = root / data.HELM_REPO / data.HELM_COMMIT / "outputs"
    (base / "multi_expert_helm").mkdir(parents=True)
    shutil.copytree(helm_dir / "original_helm_combined", base / "original_helm_combined")
    shutil.copy(helm_dir / REDUX_FILE, base / "multi_expert_helm" / "all.csv")

    with serve_folder(root) as url:
        yield url


def test_fetched_from_the_origin_when_no_copy(mirror, mmlu_test, tmp_path, monkeypatch):
    monkeypatch.setenv("SEMVAR_DATA_DIR", str(tmp_path / "empty"))
    monkeypatch.setenv("SEMVAR_DATA_DIR_ONLY", "1")
    monkeypatch.setenv("SEMVAR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SEMVAR_DATA_MIRROR", mirror)
    with pytest.warns(UserWarning, match="fetching it from aryopg/mmlu-redux"):
        r = data.load_mmlu_redux(mmlu=mmlu_test)
    assert len(r) == 5700
    with pytest.warns(UserWarning, match="fetching"):
        h = data.load_helm_mmlu(mmlu=mmlu_test)
    assert h.groupby("model").size().eq(14015).all()
    fetched = tmp_path / "cache" / "github" / data.HELM_REPO / data.HELM_COMMIT / "outputs"
    assert len(list((fetched / "original_helm_combined").glob("*.csv"))) == 57
