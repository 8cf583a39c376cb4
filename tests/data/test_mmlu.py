"""Tests of semvar.data.mmlu: MMLU from a local parquet copy (checked) or through the hub's ``datasets``."""

from __future__ import annotations

import pandas as pd
import pytest

from semvar import data


def test_bad_split_names_the_choices():
    with pytest.raises(ValueError, match=r"split must be one of \('dev', 'test', 'validation'\), got 'tset'"):
        data.load_mmlu(split="tset")


def test_load_mmlu_test_split(require_data):
    require_data("mmlu", ["test.parquet"])
    df = data.load_mmlu("test", online=False)
    assert len(df) == 14042
    assert df["subject"].nunique() == 57
    assert set(df["category"]) == {"STEM", "humanities", "social sciences", "other (business, health, misc.)"}
    assert df["answer"].between(0, 3).all()
    assert df["choices"].map(len).eq(4).all()
    assert df.groupby("category").size().to_dict()["STEM"] == 3018


def test_truncated_file_is_refused(tmp_path, require_data):
    src = require_data("mmlu", ["test.parquet"]) / "test.parquet"
    (tmp_path / "mmlu").mkdir()
    raw = src.read_bytes()
    (tmp_path / "mmlu" / "test.parquet").write_bytes(raw[: len(raw) // 2])
    with pytest.raises(ValueError, match="damaged or not the expected file.*obtain it again"):
        data.load_mmlu("test", data_dir=tmp_path, online=False)


def test_missing_file_lists_where_it_looked(tmp_path, monkeypatch):
    monkeypatch.setenv("SEMVAR_DATA_DIR_ONLY", "1")
    monkeypatch.delenv("SEMVAR_DATA_DIR", raising=False)
    with pytest.raises(data.DataNotFoundError) as err:
        data.load_mmlu("dev", data_dir=tmp_path / "nowhere", online=False)
    assert "nowhere/mmlu/dev.parquet" in str(err.value)
    assert "cais/mmlu" in str(err.value)
    assert "SEMVAR_DATA_DIR_ONLY" in str(err.value)


def test_hub_and_local_paths_give_the_same_split(monkeypatch, tmp_path, require_data):
    # The chapter calls load_mmlu("test") in both settings; emulate the hub with the local file.
    folder = require_data("mmlu", ["test.parquet"])
    import warnings

    import datasets

    local = data.load_mmlu("test", online=False)
    real_load = datasets.load_dataset
    calls = []

    def fake_hub(name, *args, **kwargs):
        if name == "cais/mmlu":
            calls.append((name, args, kwargs.get("split")))
            return real_load("parquet", data_files={"test": str(folder / "test.parquet")}, split="test")
        return real_load(name, *args, **kwargs)

    monkeypatch.setattr(datasets, "load_dataset", fake_hub)
    monkeypatch.setenv("SEMVAR_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("SEMVAR_DATA_DIR_ONLY", "1")
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        hub = data.load_mmlu("test")
    assert calls == [("cais/mmlu", ("all",), "test")]
    pd.testing.assert_frame_equal(hub, local)


def test_the_subject_table_adds_up_to_the_test_split():
    subjects = data.mmlu_subjects()
    assert list(subjects.columns) == ["subject", "n_test_items", "subcategory", "category"]
    assert len(subjects) == 57 and subjects["subject"].is_unique
    assert subjects["n_test_items"].sum() == data.MMLU_ROWS["test"]
    assert subjects.groupby("category").size().to_dict() == {"STEM": 18, "humanities": 13, "social sciences": 12,
                                                             "other (business, health, misc.)": 14}


def test_the_subject_table_counts_the_loaded_split(require_data):
    require_data("mmlu", ["test.parquet"])
    df = data.load_mmlu("test", online=False)
    counts = df.groupby("subject").size()
    table = data.mmlu_subjects().set_index("subject")
    assert counts.to_dict() == table["n_test_items"].to_dict()
    assert (df["category"] == df["subject"].map(table["category"])).all()
