"""Tests of semvar.data._paths: the data directories searched, and where the project's own result files are found,
in a checkout and installed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from semvar import data
from semvar.data import DataNotFoundError, _paths, result_path

ROOT = Path(__file__).resolve().parents[2]


def test_a_checkout_reads_and_writes_its_data_folder(monkeypatch):
    monkeypatch.delenv("SEMVAR_RESULTS_DIR", raising=False)
    assert result_path("scorecard.json") == ROOT / "data" / "scorecard.json"
    assert result_path("not_written_yet.csv") == ROOT / "data" / "not_written_yet.csv"  # a file to be written


def test_results_dir_comes_first(tmp_path, monkeypatch):
    monkeypatch.setenv("SEMVAR_RESULTS_DIR", str(tmp_path))
    assert result_path("scorecard.json") == tmp_path / "scorecard.json"   # even where the checkout has the file
    monkeypatch.setenv("SEMVAR_RESULTS_DIR", "  ")                         # blank counts as unset
    assert result_path("scorecard.json") == ROOT / "data" / "scorecard.json"


def test_without_a_project_folder_the_data_directories_are_searched(tmp_path, monkeypatch):
    monkeypatch.setattr(_paths, "PROJECT_ROOT", tmp_path / "site-packages")   # as an installed package sees it
    monkeypatch.delenv("SEMVAR_RESULTS_DIR", raising=False)
    monkeypatch.setenv("SEMVAR_DATA_DIR_ONLY", "1")
    data_dir = tmp_path / "data_dir"
    data_dir.mkdir()
    monkeypatch.setenv("SEMVAR_DATA_DIR", str(data_dir))
    (data_dir / "select_k_sweep.csv").write_text("k\n2\n")
    assert result_path("select_k_sweep.csv") == data_dir / "select_k_sweep.csv"
    with pytest.raises(DataNotFoundError, match="Set SEMVAR_RESULTS_DIR") as err:
        result_path("scorecard.json")
    assert str(data_dir / "scorecard.json") in str(err.value) and isinstance(err.value, FileNotFoundError)
    monkeypatch.delenv("SEMVAR_DATA_DIR")
    with pytest.raises(DataNotFoundError, match="no data directory"):
        result_path("select_k_sweep.csv")


@pytest.mark.parametrize("name", ["", "/etc/passwd", "../x.csv", "a/../../x.csv", 3, None])
def test_bad_names(name):
    with pytest.raises(ValueError, match="name must be a relative file name"):
        result_path(name)


def test_an_installed_copy_of_the_package_finds_the_results_it_is_told_of(tmp_path):
    """The package alone (as a wheel installs it, without the project's data/) in a fresh interpreter."""
    site = tmp_path / "site"
    shutil.copytree(ROOT / "semvar", site / "semvar", ignore=shutil.ignore_patterns("__pycache__"))
    results = tmp_path / "results"
    results.mkdir()
    shutil.copy(ROOT / "data" / "realtext_summary.json", results / "realtext_summary.json")
    code = ("import semvar, json; from semvar.data import result_path; "
            "print(semvar.__file__); print(json.load(open(result_path('realtext_summary.json')))['questions'])")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEMVAR_")}
    env["PYTHONPATH"] = str(site)

    def run(**extra):
        return subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env={**env, **extra},
                              capture_output=True, text=True, timeout=120)

    told = run(SEMVAR_RESULTS_DIR=str(results))
    assert told.returncode == 0, told.stderr
    where, value = told.stdout.split()
    assert where.startswith(str(site)) and int(value) > 0
    untold = run()
    assert untold.returncode != 0 and "SEMVAR_RESULTS_DIR" in untold.stderr and "DataNotFoundError" in untold.stderr


# --------------------------------------------------------------------------- the data directories searched


def test_explicit_data_dir_comes_first(tmp_path, monkeypatch):
    monkeypatch.delenv("SEMVAR_DATA_DIR_ONLY", raising=False)
    monkeypatch.setenv("SEMVAR_DATA_DIR", str(tmp_path / "env"))
    dirs = data.candidate_dirs(tmp_path / "arg")
    assert dirs[0] == tmp_path / "arg" and dirs[1] == tmp_path / "env"
    assert dirs[2] == data.PROJECT_ROOT / "data"
    assert dirs[3] == data.PROJECT_ROOT.parent / "shared" / "data"
    assert len(dirs) == 4
    monkeypatch.delenv("SEMVAR_DATA_DIR")
    assert data.candidate_dirs() == [data.PROJECT_ROOT / "data", data.PROJECT_ROOT.parent / "shared" / "data"]


@pytest.mark.parametrize("value, kept", [("1", False), ("true", False), ("0", True), ("", True)])
def test_data_dir_only_leaves_out_the_project_folders(tmp_path, monkeypatch, value, kept):
    monkeypatch.setenv("SEMVAR_DATA_DIR", str(tmp_path / "env"))
    monkeypatch.setenv("SEMVAR_DATA_DIR_ONLY", value)
    dirs = data.candidate_dirs(tmp_path / "arg")
    assert dirs[:2] == [tmp_path / "arg", tmp_path / "env"]
    assert (len(dirs) == 4) is kept


def test_semvar_data_dir_is_used(tmp_path, monkeypatch):
    for d in ("env", "arg"):
        (tmp_path / d / "sub").mkdir(parents=True)
        (tmp_path / d / "sub" / "a.txt").write_text(d)
    monkeypatch.setenv("SEMVAR_DATA_DIR", str(tmp_path / "env"))
    assert data.find_data_dir("sub", ["a.txt"]) == tmp_path / "env" / "sub"
    assert data.find_data_dir("sub", ["a.txt"], data_dir=tmp_path / "arg") == tmp_path / "arg" / "sub"
    assert data.find_data_dir("sub", ["a.txt", "b.txt"], data_dir=tmp_path / "arg") is None


@pytest.mark.parametrize("name", ["", "/etc/passwd", "../x.csv", "a/../../x", 3])
def test_result_path_refuses_names_outside_data(name):
    with pytest.raises(ValueError, match="name must be a relative file name under data/"):
        data.result_path(name)


def test_result_path_is_under_the_project_data_folder():
    assert data.result_path("sub/x.csv") == data.PROJECT_ROOT / "data" / "sub" / "x.csv"
    assert (data.PROJECT_ROOT / "semvar" / "data" / "__init__.py").is_file()
