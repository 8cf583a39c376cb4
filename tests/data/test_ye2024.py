"""Tests of semvar.data.ye2024: Ye et al.'s (2024) released logits, from a data directory and from the origin.

The offline copies (``ye2024/``: the npz files and byte-exact release pickles in ``raw/``) are
found by the data rule; a stand-in origin on 127.0.0.1 (:class:`tests.data._helpers.Origin`)
serves those pickles, or crafted ones, to check the fetch-verify-convert-cache path.
"""

from __future__ import annotations

import hashlib
import pickle
import shutil
import socket

import numpy as np
import pytest

from semvar import data
from semvar.data import _safe_pickle, ye2024

from ._helpers import cache_files, malicious_pickles

# --------------------------------------------------------------------------- from a data directory


def test_ye_logits(require_data):
    require_data("ye2024", ["mmlu_10k.npz"])
    z = data.load_ye_logits("qa")
    assert len(z) == 48
    arr = z["Qwen-72B__base"]
    assert arr.shape == (10000, 6) and arr.dtype == np.float32


@pytest.mark.parametrize("models", ["chat_v1", "chat_v2"])
def test_ye_chat_logits(require_data, models):
    require_data("ye2024", [f"mmlu_10k_{models}.npz"])
    z = data.load_ye_logits("qa", models=models)
    assert set(z) == {f"{m}__{p}" for m in data.YE_CHAT_MODELS for p in data.YE_PROMPTS}
    assert all(a.shape == (10000, 6) and a.dtype == np.float32 for a in z.values())
    assert data.load_ye_logits("mmlu_10k", models)["Yi-34B-Chat__task"].tobytes() == z["Yi-34B-Chat__task"].tobytes()


def test_ye_bad_arguments():
    with pytest.raises(ValueError, match="task must be one of"):
        data.load_ye_logits("mmlu")
    with pytest.raises(ValueError, match=r"models must be one of \('base', 'chat_v1', 'chat_v2'\), got 'chat'"):
        data.load_ye_logits("qa", models="chat")
    with pytest.raises(ValueError, match="for the QA task .* only, got task 'rc'"):
        data.load_ye_logits("rc", models="chat_v2")
    with pytest.raises(ValueError, match="online must be None, True or False"):
        data.load_ye_logits("qa", online="yes")


def test_ye_damaged_file(tmp_path, require_data):
    folder = require_data("ye2024", ["halu_dialogue.npz"])
    (tmp_path / "ye2024").mkdir()
    shutil.copy(folder / "halu_dialogue.npz", tmp_path / "ye2024" / "halu_dialogue.npz")
    with open(tmp_path / "ye2024" / "halu_dialogue.npz", "r+b") as fh:
        fh.truncate(1000)
    with pytest.raises(ValueError, match="damaged"):
        data.load_ye_logits("drs", data_dir=tmp_path)


def test_pinned_digests_match_the_copies(require_data):
    # the pinned array digests are those of the distributed copies, computed by a second route
    folder = require_data("ye2024", ["mmlu_10k.npz", "mmlu_10k_chat_v2.npz"])
    for name in ("mmlu_10k", "mmlu_10k_chat_v2"):
        h = hashlib.sha256()
        with np.load(folder / f"{name}.npz") as z:
            for key in sorted(z.files):
                h.update(key.encode() + b"\0" + z[key].astype("<f4").tobytes())
        assert h.hexdigest() == ye2024._ARRAYS_SHA256[name]


# --------------------------------------------------------------------------- the structure of a release file


def _records(n=10000, *, ids=None, dtype=np.float32, width=6):
    ids = range(n) if ids is None else ids
    return [{"id": i, "logits_options": np.full(width, i, dtype=dtype)} for i in ids]


def test_release_structure_is_checked():
    ok = ye2024._release_logits(_records(ids=list(range(9999, -1, -1))), "x")
    assert ok[7, 0] == 7  # rows placed by id
    bad = {
        "a list of 10000 records, found 9999": _records(9999),
        "ids must be the integers": _records(ids=[0] * 10000),
        "has logits_options float64": _records(dtype=np.float64),
        "expected float32 of shape": _records(width=5),
    }
    for message, records in bad.items():
        with pytest.raises(ValueError, match=message):
            ye2024._release_logits(records, "x")
    with pytest.raises(ValueError, match="not a dict"):
        ye2024._release_logits([[0, 1]] * 10000, "x")
    with pytest.raises(ValueError, match="found dict"):
        ye2024._release_logits({"id": 0}, "x")


# --------------------------------------------------------------------------- from the origin (a stand-in on 127.0.0.1)


def test_a_huge_pickle_from_the_origin_does_not_stay_in_the_cache(bare_origin, fresh):
    class Huge:
        def __reduce__(self):
            return (np.ndarray, ((10**11,), "f8"))

    first = "outputs_base/Llama-2-7b-hf_cosmosqa_10k_base_icl1.pkl"  # no pinned checksum
    bare_origin.overrides[first] = pickle.dumps(Huge(), protocol=4)
    with pytest.warns(UserWarning, match="fetching"), pytest.raises(_safe_pickle.RefusedPickleError, match="bytes"):
        data.load_ye_logits("rc", progress=False)
    assert cache_files(fresh / "cache") == []  # a later offline call does not meet it again
    bare_origin.overrides.clear()
    with pytest.raises(data.DataNotFoundError):
        data.load_ye_logits("rc", online=False)


def test_no_network_and_no_copy_names_url_dirs_and_mirror(fresh, monkeypatch):
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("SEMVAR_DATA_MIRROR", f"http://127.0.0.1:{port}")
    with pytest.warns(UserWarning, match="fetching the release"), pytest.raises(data.DataNotFoundError) as err:
        data.load_ye_logits("qa", data_dir=fresh / "arg", progress=False)
    msg = str(err.value)
    url = f"http://127.0.0.1:{port}/{data.YE_REPO}/{data.YE_COMMIT}/outputs_base/"
    assert url in msg
    assert str(fresh / "arg" / "ye2024" / "mmlu_10k.npz") in msg
    assert str(fresh / "data" / "ye2024" / "mmlu_10k.npz") in msg
    assert "SEMVAR_DATA_MIRROR" in msg
    assert cache_files(fresh / "cache") == []


def test_online_false_never_fetches(bare_origin, fresh):
    origin = bare_origin
    with pytest.raises(data.DataNotFoundError, match="SEMVAR_DATA_MIRROR replaces the host") as err:
        data.load_ye_logits("qa", online=False)
    assert origin.requests == []
    assert str(fresh / "cache" / "ye2024" / "mmlu_10k.npz") in str(err.value)


def test_malicious_release_file_is_refused_end_to_end(bare_origin, fresh):
    origin = bare_origin
    # the other tasks' pickles have no pinned checksum: the unpickler is what stands in the way
    marker = fresh / "ran"
    first = "outputs_base/Llama-2-7b-hf_cosmosqa_10k_base_icl1.pkl"
    origin.overrides[first] = malicious_pickles(marker)["os.system"]
    with pytest.warns(UserWarning, match="fetching"), pytest.raises(_safe_pickle.RefusedPickleError, match="posix.system"):
        data.load_ye_logits("rc", progress=False)
    assert not marker.exists()
    assert cache_files(fresh / "cache") == []  # the unverified file is not kept


def test_unpinned_file_with_the_wrong_structure_is_refused(bare_origin, fresh):
    origin = bare_origin
    first = "outputs_base/Llama-2-7b-hf_halu_dialogue_base_icl1.pkl"
    origin.overrides[first] = pickle.dumps(_records(10), protocol=4)
    with pytest.warns(UserWarning, match="fetching"), pytest.raises(ValueError, match="a list of 10000 records, found 10"):
        data.load_ye_logits("drs", progress=False)
    assert cache_files(fresh / "cache") == []


def test_pinned_chat_file_converts_to_the_copy(origin, ye_copy):
    folder = ye_copy
    path = ye2024._origin_paths("mmlu_10k", "chat_v2")["Yi-6B-Chat__task"]
    local = data.fetch_github(data.YE_REPO, data.YE_COMMIT, path, ye2024._PICKLE_SHA256[path], progress=False)
    arr = ye2024._release_logits(_safe_pickle.load_numpy_pickle(local), path)
    assert np.array_equal(arr, np.load(folder / "mmlu_10k_chat_v2.npz")["Yi-6B-Chat__task"])


def test_logits_from_the_origin_equal_the_copy(origin, fresh, ye_copy):
    """A fresh machine: no npz anywhere, the 48 release pickles fetched, converted, cached."""
    with pytest.warns(UserWarning, match="in no data directory nor the cache; fetching"):
        got = data.load_ye_logits("qa", progress=False)
    assert len(origin.requests) == 48
    with np.load(ye_copy / "mmlu_10k.npz") as z:
        assert set(got) == set(z.files)
        for name in z.files:
            assert got[name].dtype == np.float32 and np.array_equal(got[name], z[name]), name
    cached = fresh / "cache" / "ye2024" / "mmlu_10k.npz"
    assert cached.is_file()
    assert not [p for p in cache_files(fresh / "cache") if p.name.endswith(".part")]
    # the second call reads the cached npz: no request, same arrays
    again = data.load_ye_logits("qa", progress=False)
    assert len(origin.requests) == 48
    assert all(np.array_equal(again[k], got[k]) for k in got)
    # a damaged cached npz is rebuilt from the cached pickles, still without a request
    with open(cached, "r+b") as fh:
        fh.truncate(5000)
    with pytest.warns(UserWarning, match="damaged"), pytest.warns(UserWarning, match="reusing any already cached"):
        rebuilt = data.load_ye_logits("qa", progress=False)
    assert len(origin.requests) == 48
    assert all(np.array_equal(rebuilt[k], got[k]) for k in got)
