"""The four loaders of files pinned at a commit, tested together: uq_nlg, sas, openqa_eval, evouna.

Cross-cutting on purpose: each test runs the same rule on every loader (parametrized by
:data:`tests.data._helpers.ORIGINS`): the pinned checksums are those of the offline copies, a bad
``data_dir`` is refused, a damaged copy is refused before a good one further down the data rule, a
missing file names every place searched and the origin, and a stand-in origin on 127.0.0.1 serving
the real copies (laid out as their GitHub repositories) gives the same frames, verified and cached.
Each loader's own rules are in ``tests/data/test_<loader>.py``.
"""

from __future__ import annotations

import hashlib
import shutil
import socket
import warnings
from urllib.parse import unquote

import pandas as pd
import pytest

from semvar import data
from semvar.testing import serve_folder

from ._helpers import ORIGINS, copy_folder, real_folder


def _quiet(load, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return load(*args, **kw)


@pytest.fixture
def machine(tmp_path, monkeypatch):
    """A machine with no data directory, an empty cache and an origin that serves nothing."""
    monkeypatch.setenv("SEMVAR_DATA_DIR_ONLY", "1")
    monkeypatch.setenv("SEMVAR_DATA_DIR", str(tmp_path / "empty"))
    monkeypatch.setenv("SEMVAR_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "void").mkdir()
    with serve_folder(tmp_path / "void") as url:  # 404 for everything: never the network
        monkeypatch.setenv("SEMVAR_DATA_MIRROR", url)
        yield tmp_path


@pytest.mark.parametrize("key", list(ORIGINS))
def test_pinned_checksums_are_those_of_the_copies(require_data, key):
    folder = real_folder(require_data, key)
    origin = ORIGINS[key][0]
    pinned = {name: spec[1] for name, spec in origin["files"].items()}  # (path, sha256[, size])
    # the bytes of the copy itself, and the checksum list published beside it where there is one
    assert pinned == {n: hashlib.sha256((folder / n).read_bytes()).hexdigest() for n in origin["files"]}
    if (folder / "SHA256SUMS").is_file():
        sums = dict(line.split()[::-1] for line in (folder / "SHA256SUMS").read_text().splitlines() if line.strip())
        assert pinned == {n: sums[n] for n in origin["files"]}
    assert len(origin["commit"]) == 40


@pytest.mark.parametrize("key", list(ORIGINS))
@pytest.mark.parametrize("bad", [3, 1.5, ["a"], b"dir", object()])
def test_bad_data_dir_type(key, bad):
    with pytest.raises(ValueError, match=r"data_dir must be None or a folder path \(str or os.PathLike\), got"):
        ORIGINS[key][1](data_dir=bad)


@pytest.mark.parametrize("key", list(ORIGINS))
def test_damaged_copy_is_refused_and_data_dir_comes_first(require_data, key, tmp_path, monkeypatch):
    src = real_folder(require_data, key)
    origin, load = ORIGINS[key]
    dst = copy_folder(src, tmp_path, origin)
    name = list(origin["files"])[-1]
    raw = (dst / name).read_bytes()
    (dst / name).write_bytes(raw[: len(raw) // 2])
    monkeypatch.setenv("SEMVAR_DATA_DIR", str(src.parent))  # a good copy, searched after data_dir
    with pytest.raises(ValueError, match=f"{name} is damaged or not the expected file: sha256"):
        load(data_dir=tmp_path)


@pytest.mark.parametrize("key", list(ORIGINS))
def test_missing_files_name_the_places_and_the_origin(machine, key):
    origin, load = ORIGINS[key]
    with pytest.warns(UserWarning, match="in no data directory; fetching it from"):
        with pytest.raises(data.DataNotFoundError) as err:
            load(data_dir=machine / "arg")
    msg = str(err.value)
    first = list(origin["files"])[0]
    assert str(machine / "arg" / origin["subdir"] / first) in msg
    assert str(machine / "empty" / origin["subdir"] / first) in msg
    assert "SEMVAR_DATA_DIR_ONLY" in msg and "HTTPError: 404" in msg
    assert f"{origin['repo']}/{origin['commit']}/{origin['files'][first][0]}" in msg
    assert not list((machine / "cache").rglob("*.*"))  # nothing half-fetched is left


@pytest.fixture
def mirror(require_data, tmp_path):
    """The real copies laid out as their origins (<owner>/<repo>/<commit>/<path>), served on 127.0.0.1."""
    root = tmp_path / "mirror"
    for key, (origin, _) in ORIGINS.items():
        src = real_folder(require_data, key)
        for name, (path, *_) in origin["files"].items():
            target = root / origin["repo"] / origin["commit"] / unquote(path)  # paths are URL-encoded
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src / name, target)
    return root


def test_fetched_from_the_origin_verified_then_cached(mirror, require_data, tmp_path, monkeypatch):
    local = {key: load(data_dir=real_folder(require_data, key).parent) for key, (_, load) in ORIGINS.items()}
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
            for path, *_ in origin["files"].values():
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
