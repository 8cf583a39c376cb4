"""Fixtures of the loaders' tests: the offline copies of Ye et al.'s release, a fresh machine, a stand-in origin."""

from __future__ import annotations

import pytest

from semvar import data

from ._helpers import Origin

# the offline copies (mmlu_10k.npz, the chat npz, and raw/: byte-exact release pickles), found by the data rule
# when this module is imported, before any test changes the environment
_YE_FILES = ["mmlu_10k.npz", "mmlu_10k_chat_v2.npz", "raw/SHA256SUMS", "raw/Qwen-72B_mmlu_10k_base_icl1.pkl"]
_YE = data.find_data_dir("ye2024", _YE_FILES)


@pytest.fixture
def ye_copy(require_data):
    """The folder ye2024/ holding the offline copies, found before any test changes the environment."""
    return _YE if _YE is not None else require_data("ye2024", _YE_FILES)


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """A machine with no data directory and an empty cache."""
    monkeypatch.setenv("SEMVAR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SEMVAR_DATA_DIR_ONLY", "1")
    monkeypatch.setenv("SEMVAR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SEMVAR_DATA_MIRROR", raising=False)
    return tmp_path


@pytest.fixture
def bare_origin(fresh, monkeypatch):
    """A stand-in origin on 127.0.0.1 (serving only what a test puts in it), on a fresh machine."""
    server = Origin()
    monkeypatch.setenv("SEMVAR_DATA_MIRROR", server.url)
    yield server
    server.close()


@pytest.fixture
def origin(ye_copy, bare_origin):
    """The stand-in origin serving the byte-exact copies of the release files."""
    bare_origin.raw = ye_copy / "raw"
    return bare_origin
