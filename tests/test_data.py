import shutil

import numpy as np
import pytest

from semvar import data


def _local_mmlu_dir():
    folder = data.find_data_dir("mmlu", ["test.parquet"])
    if folder is None:
        pytest.skip("MMLU is not in any local data directory")
    return folder


def test_bad_split_names_the_choices():
    with pytest.raises(ValueError, match=r"split must be one of \['dev', 'test', 'validation'\], got 'tset'"):
        data.load_mmlu(split="tset")


def test_load_mmlu_test_split():
    _local_mmlu_dir()
    df = data.load_mmlu("test", online=False)
    assert len(df) == 14042
    assert df["subject"].nunique() == 57
    assert set(df["category"]) == {"STEM", "humanities", "social sciences", "other (business, health, misc.)"}
    assert df["answer"].between(0, 3).all()
    assert df["choices"].map(len).eq(4).all()
    assert df.groupby("category").size().to_dict()["STEM"] == 3018


def test_truncated_file_is_refused(tmp_path):
    src = _local_mmlu_dir() / "test.parquet"
    (tmp_path / "mmlu").mkdir()
    raw = src.read_bytes()
    (tmp_path / "mmlu" / "test.parquet").write_bytes(raw[: len(raw) // 2])
    with pytest.raises(ValueError, match="damaged or not the expected file.*obtain it again"):
        data.load_mmlu("test", data_dir=tmp_path, online=False)


def test_missing_file_lists_where_it_looked(tmp_path, monkeypatch):
    monkeypatch.setattr(data, "candidate_dirs", lambda data_dir=None: [tmp_path / "nowhere"])
    with pytest.raises(data.DataNotFoundError) as err:
        data.load_mmlu("dev", online=False)
    assert "nowhere/mmlu/dev.parquet" in str(err.value)
    assert "cais/mmlu" in str(err.value)


def test_explicit_data_dir_comes_first(tmp_path, monkeypatch):
    monkeypatch.setenv("SEMVAR_DATA_DIR", str(tmp_path / "env"))
    dirs = data.candidate_dirs(tmp_path / "arg")
    assert dirs[0] == tmp_path / "arg" and dirs[1] == tmp_path / "env"
    assert dirs[2].name == "data" and dirs[3].parts[-2:] == ("shared", "data")


def test_ye_logits():
    if data.find_data_dir("ye2024", ["mmlu_10k.npz"]) is None:
        pytest.skip("Ye et al. logits are not in any local data directory")
    z = data.load_ye_logits("qa")
    assert len(z) == 48
    arr = z["Qwen-72B__base"]
    assert arr.shape == (10000, 6) and arr.dtype == np.float32


def test_ye_bad_task_and_damaged_file(tmp_path):
    with pytest.raises(ValueError, match="task must be one of"):
        data.load_ye_logits("mmlu")
    folder = data.find_data_dir("ye2024", ["halu_dialogue.npz"])
    if folder is None:
        pytest.skip("no local logits")
    (tmp_path / "ye2024").mkdir()
    shutil.copy(folder / "halu_dialogue.npz", tmp_path / "ye2024" / "halu_dialogue.npz")
    with open(tmp_path / "ye2024" / "halu_dialogue.npz", "r+b") as fh:
        fh.truncate(1000)
    with pytest.raises(ValueError, match="damaged"):
        data.load_ye_logits("drs", data_dir=tmp_path)
