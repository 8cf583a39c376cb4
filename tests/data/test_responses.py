"""Tests of semvar.data.responses: item-level response tables, lm-evaluation-harness sample files, the stored table."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from semvar import data
from semvar._mmlu_subjects import SUBJECTS


def _table(**cols):
    base = {"model": ["m", "m", "n"], "item_id": [0, 5, 0], "correct": [1, 0, 1]}
    base.update(cols)
    return pd.DataFrame(base)


def test_subject_offsets_add_up():
    off = data.mmlu_subject_offsets()
    assert off["abstract_algebra"] == 0
    last = max(off, key=off.get)
    assert off[last] + SUBJECTS[last][0] == 14042
    assert off["anatomy"] == 100 and off["astronomy"] == 235


def test_offsets_match_the_loaded_split(require_data):
    require_data("mmlu", ["test.parquet"])
    df = data.load_mmlu("test", online=False)
    for s, o in data.mmlu_subject_offsets().items():
        assert df["subject"].iloc[o] == s


def test_validate_accepts_bool_and_float_correctness():
    out = data.validate_responses(_table(correct=[True, False, True]))
    assert out["correct"].tolist() == [1, 0, 1]
    out = data.validate_responses(_table(correct=[1.0, 0.0, 1.0]))
    assert out["correct"].dtype.kind == "i"


@pytest.mark.parametrize(
    "cols,match",
    [
        ({"item_id": [0, 14042, 1]}, "unknown item ids"),
        ({"item_id": [0, -1, 1]}, "unknown item ids"),
        ({"item_id": [0, 2.5, 1]}, "unknown item ids"),
        ({"item_id": ["a", 1, 2]}, "unknown item ids"),
        ({"correct": [1, 0.5, 0]}, "non-binary correctness"),
        ({"correct": [1, 2, 0]}, "non-binary correctness"),
        ({"correct": ["yes", 1, 0]}, "non-binary correctness"),
        ({"item_id": [0, 0, 0], "model": ["m", "m", "n"]}, "more than once"),
    ],
)
def test_validate_refuses_bad_tables(cols, match):
    with pytest.raises(ValueError, match=match):
        data.validate_responses(_table(**cols))


def test_validate_refuses_missing_columns():
    with pytest.raises(ValueError, match=r"lacks the columns \['correct'\]"):
        data.validate_responses(pd.DataFrame({"model": ["m"], "item_id": [1]}))
    with pytest.raises(ValueError, match="must be a pandas DataFrame"):
        data.validate_responses({"model": ["m"]})


def test_response_table_round_trip(tmp_path):
    t = _table()
    t.to_csv(tmp_path / "r.csv.gz", index=False)
    back = data.load_response_table(tmp_path / "r.csv.gz")
    assert back[["model", "item_id", "correct"]].values.tolist() == [["m", 0, 1], ["m", 5, 0], ["n", 0, 1]]
    with pytest.raises(FileNotFoundError):
        data.load_response_table(tmp_path / "missing.csv")
    (tmp_path / "r.txt").write_text("x")
    with pytest.raises(ValueError, match="must be .csv"):
        data.load_response_table(tmp_path / "r.txt")
    t.assign(correct=[1, 3, 0]).to_parquet(tmp_path / "bad.parquet")
    with pytest.raises(ValueError, match="non-binary"):
        data.load_response_table(tmp_path / "bad.parquet")


def test_response_matrix():
    wide = data.response_matrix(_table(), n_items=6)
    assert wide.shape == (6, 2)
    assert wide.loc[5, "m"] == 0.0 and np.isnan(wide.loc[5, "n"])


def _write_samples(folder, subject, rows):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"samples_mmlu_{subject}_2026-01-01T00-00-00.jsonl"
    with open(path, "w") as fh:
        for r in rows:
            fh.write(json.dumps(r) + "\n")
    return path


def test_lm_eval_samples(tmp_path):
    model_dir = tmp_path / "org__model-1b"
    _write_samples(model_dir, "anatomy", [{"doc_id": 0, "doc": {"question": "q"}, "acc": 1.0}, {"doc_id": 134, "acc": 0.0}])
    # the subject is taken from doc.subject when present, from the file name otherwise
    _write_samples(model_dir, "college_physics", [{"doc_id": 3, "doc": {"subject": "college_physics"}, "acc": 1.0}])
    out = data.load_lm_eval_samples(tmp_path)
    off = data.mmlu_subject_offsets()
    assert set(out["model"]) == {"org__model-1b"}
    assert sorted(zip(out["item_id"], out["correct"])) == sorted(
        [(off["anatomy"], 1), (off["anatomy"] + 134, 0), (off["college_physics"] + 3, 1)]
    )
    assert data.load_lm_eval_samples(model_dir, model="x")["model"].unique().tolist() == ["x"]


def test_lm_eval_prefers_the_longest_subject_name(tmp_path):
    p = _write_samples(tmp_path / "m", "high_school_physics", [{"doc_id": 0, "acc": 1}])
    out = data.load_lm_eval_samples(p)
    assert out["item_id"].tolist() == [data.mmlu_subject_offsets()["high_school_physics"]]


def test_lm_eval_bad_files(tmp_path):
    with pytest.raises(ValueError, match="no lm-evaluation-harness sample files"):
        data.load_lm_eval_samples(tmp_path)
    p = _write_samples(tmp_path / "a", "anatomy", [{"doc_id": 135, "acc": 1.0}])
    with pytest.raises(ValueError, match="unknown item: doc_id 135 but anatomy has 135"):
        data.load_lm_eval_samples(p)
    p = _write_samples(tmp_path / "b", "anatomy", [{"doc_id": 1, "acc": 0.5}])
    with pytest.raises(ValueError, match="non-binary correctness"):
        data.load_lm_eval_samples(p)
    p = tmp_path / "c" / "samples_mmlu_not_a_subject_x.jsonl"
    p.parent.mkdir()
    p.write_text(json.dumps({"doc_id": 1, "acc": 1}) + "\n")
    with pytest.raises(ValueError, match="cannot tell the MMLU subject"):
        data.load_lm_eval_samples(p)
    p = _write_samples(tmp_path / "d", "anatomy", [{"doc_id": 1, "bleu": 1}])
    with pytest.raises(ValueError, match="no correctness field"):
        data.load_lm_eval_samples(p)
    p.write_text("{not json\n")
    with pytest.raises(ValueError, match="not valid JSON"):
        data.load_lm_eval_samples(p)
    with pytest.raises(ValueError, match="neither a file nor a folder"):
        data.load_lm_eval_samples(tmp_path / "nowhere")


def test_lm_eval_question_check():
    mmlu = pd.DataFrame({"question": [f"q{i}" for i in range(14042)]})
    off = data.mmlu_subject_offsets()["anatomy"]
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        good = _write_samples(Path(d) / "m", "anatomy", [{"doc_id": 2, "doc": {"question": f"q{off + 2}"}, "acc": 1}])
        assert data.load_lm_eval_samples(good, mmlu=mmlu)["item_id"].tolist() == [off + 2]
        bad = _write_samples(Path(d) / "n", "anatomy", [{"doc_id": 2, "doc": {"question": "other"}, "acc": 1}])
        with pytest.raises(ValueError, match="does not match MMLU test item"):
            data.load_lm_eval_samples(bad, mmlu=mmlu)


def test_stored_responses_are_valid(require_data):
    require_data("", [data.MMLU_RESPONSES_FILE])
    r = data.load_mmlu_responses()
    counts = r.groupby("model").size()
    assert (counts == 14042).all()
    acc = r.groupby("model")["correct"].mean()
    # chance is 1/4; MiniLM's zero-shot answerer is known to be a little above it
    assert 0.2 < acc["random_guess"] < 0.3
    assert 0.27 < acc["minilm_cosine"] < 0.36
