"""Tests of semvar.data._fetch: the steps of the loaders of files pinned at a commit (locate, verify, parse,
report), and fetch_github against a stand-in origin on 127.0.0.1 (verify, cache, time out, leave nothing behind)."""

from __future__ import annotations

import gzip
import hashlib
import socket
import warnings

import pandas as pd
import pytest

from semvar import data
from semvar.data import DataNotFoundError
from semvar.data import _fetch as fetch_module
from semvar.data._fetch import _load_pinned, _pinned_files

from ._helpers import cache_files


def _origin(body: bytes) -> dict:
    return {"repo": "o/r", "commit": "c" * 40, "licence": "MIT", "subdir": "toy",
            "files": {"t.csv": ("data/t.csv", hashlib.sha256(body).hexdigest())}}


def _frame(paths):
    df = pd.read_csv(paths["t.csv"])
    return df, {"report": {"rows": len(df)}, "extra": [1]}


@pytest.fixture
def machine(tmp_path, monkeypatch):
    monkeypatch.setenv("SEMVAR_DATA_DIR_ONLY", "1")
    monkeypatch.delenv("SEMVAR_DATA_DIR", raising=False)
    monkeypatch.setenv("SEMVAR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SEMVAR_DATA_MIRROR", "http://127.0.0.1:9/")   # nothing listens there
    (tmp_path / "toy").mkdir()
    return tmp_path


def test_a_local_copy_is_verified_parsed_and_reported(machine):
    body = b"x\n1\n2\n"
    (machine / "toy" / "t.csv").write_bytes(body)
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # a local copy is read without a warning
        df = _load_pinned(_origin(body), machine, "the toy table", _frame)
    assert df["x"].tolist() == [1, 2]
    assert list(df.attrs) == ["report", "extra", "source"] and df.attrs["source"] == str(machine / "toy")
    assert df.attrs["report"] == {"rows": 2}


def test_a_copy_with_other_bytes_is_refused(machine):
    (machine / "toy" / "t.csv").write_bytes(b"x\n1\n3\n")
    with pytest.raises(ValueError, match="damaged or not the expected file"):
        _pinned_files(_origin(b"x\n1\n2\n"), machine, "the toy table")


def test_no_copy_and_no_origin_names_both(machine):
    with pytest.warns(UserWarning, match="the toy table is in no data directory; fetching it from o/r"):
        with pytest.raises(DataNotFoundError) as err:
            _load_pinned(_origin(b"x\n"), machine, "the toy table", _frame)
    text = str(err.value)
    assert str(machine / "toy" / "t.csv") in text and "data/t.csv" in text and "put t.csv in a folder toy/" in text


def test_data_dir_is_checked_first(machine):
    with pytest.raises(ValueError, match="data_dir must be None or a folder path"):
        _load_pinned(_origin(b""), 42, "the toy table", _frame)


# --------------------------------------------------------------------------- fetch_github against a stand-in origin on 127.0.0.1


def test_github_url_and_mirror(monkeypatch):
    monkeypatch.delenv("SEMVAR_DATA_MIRROR", raising=False)
    c = "a" * 40
    assert data.github_url("o/r", c, "x/y.pkl") == f"https://raw.githubusercontent.com/o/r/{c}/x/y.pkl"
    monkeypatch.setenv("SEMVAR_DATA_MIRROR", "http://mirror.example/raw/")
    assert data.github_url("o/r", c, "x/y.pkl") == f"http://mirror.example/raw/o/r/{c}/x/y.pkl"


@pytest.mark.parametrize(
    "repo, commit, path, sha, match",
    [
        ("norepo", "a" * 40, "x", None, "repo must be 'owner/name'"),
        ("o/r", "main", "x", None, "commit must be a full 40-character"),
        ("o/r", "a" * 40, "../x", None, "path must be a relative path"),
        ("o/r", "a" * 40, "/x", None, "path must be a relative path"),
        ("o/r", "a" * 40, "x", "abc", "sha256 must be 64 lower-case hex digits"),
    ],
)
def test_fetch_github_bad_input(fresh, repo, commit, path, sha, match):
    with pytest.raises(ValueError, match=match):
        data.fetch_github(repo, commit, path, sha)


_BODY = bytes(range(256)) * 1024  # 256 KiB served by the stand-in origin
_BODY_SHA = hashlib.sha256(_BODY).hexdigest()


def _fetch(path, sha):
    return data.fetch_github(data.YE_REPO, data.YE_COMMIT, path, sha, progress=False)


def test_fetch_github_downloads_verifies_and_caches(bare_origin, fresh):
    bare_origin.overrides["some/file.bin"] = _BODY
    got = _fetch("some/file.bin", _BODY_SHA)
    assert got == fresh / "cache" / "github" / data.YE_REPO / data.YE_COMMIT / "some" / "file.bin"
    assert got.read_bytes() == _BODY
    assert _fetch("some/file.bin", _BODY_SHA) == got
    assert len(bare_origin.requests) == 1  # the second call was served from the cache
    got.write_bytes(b"tampered")  # a cached copy that no longer matches is fetched again
    assert _fetch("some/file.bin", _BODY_SHA).read_bytes() == _BODY
    assert len(bare_origin.requests) == 2


def test_checksum_mismatch_is_refused_and_leaves_nothing(bare_origin, fresh):
    bare_origin.overrides["some/file.bin"] = _BODY[:-1] + b"?"
    with pytest.raises(ValueError, match="refused .*sha256 is not the pinned"):
        _fetch("some/file.bin", _BODY_SHA)
    assert cache_files(fresh / "cache") == []


def test_missing_file_at_the_origin(bare_origin, fresh):
    with pytest.raises(data.DataNotFoundError, match=r"could not fetch .*/some/absent.bin \(HTTPError: 404"):
        _fetch("some/absent.bin", None)
    assert cache_files(fresh / "cache") == []


@pytest.mark.parametrize("pinned", [True, False])
def test_interrupted_download_leaves_no_partial_file(bare_origin, fresh, pinned):
    bare_origin.overrides["some/file.bin"] = _BODY
    bare_origin.cut.add("some/file.bin")
    with pytest.raises(data.DataNotFoundError, match="could not fetch .*SEMVAR_DATA_MIRROR="):
        _fetch("some/file.bin", _BODY_SHA if pinned else None)
    assert bare_origin.requests
    assert cache_files(fresh / "cache") == []


@pytest.mark.parametrize("head_too", [False, True], ids=["body", "headers-and-body"])
def test_a_trickling_mirror_is_cut_off_by_a_total_deadline(bare_origin, fresh, monkeypatch, head_too):
    # one byte every 0.05 s keeps every read far below the 60 s read timeout: only a deadline for the whole
    # download ends it (256 KiB would take 3.6 hours)
    monkeypatch.setenv("SEMVAR_FETCH_DEADLINE", "1")
    bare_origin.overrides["some/file.bin"] = _BODY
    bare_origin.trickle["some/file.bin"] = (0.05, head_too)
    with pytest.raises(data.DataNotFoundError, match=r"did not finish within 1 s in all") as err:
        _fetch("some/file.bin", _BODY_SHA)
    assert "SEMVAR_DATA_MIRROR=http://127.0.0.1" in str(err.value)
    assert 0 < bare_origin.trickled < 200  # about 20 bytes in 1 s, then the socket was shut down
    assert cache_files(fresh / "cache") == []  # no temporary file, no partial file


def test_a_bad_fetch_deadline_setting_is_named(bare_origin, fresh, monkeypatch):
    monkeypatch.setenv("SEMVAR_FETCH_DEADLINE", "soon")
    with pytest.raises(ValueError, match="SEMVAR_FETCH_DEADLINE must be a number of seconds"):
        _fetch("some/file.bin", _BODY_SHA)


@pytest.mark.parametrize(
    "mirror, secrets",
    [
        ("http://alice:S3cr3tTok@127.0.0.1:{port}", ["S3cr3tTok", "alice"]),
        ("http://127.0.0.1:{port}/raw?token=tok-8f2e91c4", ["tok-8f2e91c4"]),
    ],
)
def test_mirror_credentials_are_never_shown(fresh, monkeypatch, mirror, secrets):
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("SEMVAR_DATA_MIRROR", mirror.format(port=port))
    with pytest.raises(data.DataNotFoundError) as err:
        _fetch("some/file.bin", _BODY_SHA)
    with pytest.warns(UserWarning) as warned, pytest.raises(data.DataNotFoundError) as err2:
        data.load_ye_logits("qa", data_dir=fresh / "arg", progress=False)
    shown = [str(err.value), str(err2.value), *(str(w.message) for w in warned),
             data.github_url("o/r", "a" * 40, "x.pkl")]
    for text in shown:
        assert "***" in text or "127.0.0.1" not in text
        for secret in secrets:
            assert secret not in text, text
    assert err.value.__cause__ is None and err.value.__suppress_context__  # no chained message with the URL


# --------------------------------------------------------------------------- compressed answers and answers too long
_BOMB = gzip.compress(bytes(32 << 20), compresslevel=9)  # 32 KiB that inflate to 32 MiB of zeros


@pytest.mark.parametrize("pinned", [True, False], ids=["pinned", "no-sha256"])
@pytest.mark.parametrize("encoding", ["gzip", "deflate", "br", "GZIP", "identity, gzip"])
def test_a_compressed_answer_is_refused_never_inflated(bare_origin, fresh, pinned, encoding):
    written = []
    bare_origin.overrides["some/file.bin"] = _BOMB
    bare_origin.headers["some/file.bin"] = {"Content-Encoding": encoding}
    with pytest.raises(ValueError, match=rf"refused .*/some/file.bin: the server sent it with Content-Encoding "
                                         rf"{encoding!r}") as err:
        written.append(_fetch("some/file.bin", _BODY_SHA if pinned else None))
    assert "not decoded" in str(err.value) and written == []
    assert cache_files(fresh / "cache") == []
    # the request asked for the bytes as they are
    assert bare_origin.asked_with[-1].get("Accept-Encoding") == "identity"


def test_an_identity_answer_is_taken(bare_origin, fresh):
    bare_origin.overrides["some/file.bin"] = _BODY
    bare_origin.headers["some/file.bin"] = {"Content-Encoding": "identity"}
    assert _fetch("some/file.bin", _BODY_SHA).read_bytes() == _BODY


def test_an_answer_longer_than_the_pinned_size_is_cut_off(bare_origin, fresh):
    bare_origin.overrides["some/file.bin"] = _BODY
    bare_origin.endless.add("some/file.bin")  # the file's bytes, then zeros without end and no Content-Length
    with pytest.raises(ValueError, match=rf"refused .*/some/file.bin: the server sent more than the {len(_BODY)} "
                                         "bytes of the pinned file"):
        data.fetch_github(data.YE_REPO, data.YE_COMMIT, "some/file.bin", _BODY_SHA, size=len(_BODY), progress=False)
    assert cache_files(fresh / "cache") == []
    assert bare_origin.sent < 64 << 20  # stopped at once, not at a deadline


def test_a_longer_content_length_than_the_pinned_size_is_refused_unread(bare_origin, fresh):
    bare_origin.overrides["some/file.bin"] = _BODY + b"!"
    with pytest.raises(ValueError, match=rf"announces {len(_BODY) + 1} bytes .*the pinned file has {len(_BODY)}"):
        data.fetch_github(data.YE_REPO, data.YE_COMMIT, "some/file.bin", _BODY_SHA, size=len(_BODY), progress=False)
    assert cache_files(fresh / "cache") == []
    assert data.fetch_github(data.YE_REPO, data.YE_COMMIT, "some/file.bin", None, size=len(_BODY) + 1,
                             progress=False).read_bytes() == _BODY + b"!"


def test_without_a_pinned_size_a_download_has_a_ceiling(bare_origin, fresh, monkeypatch):
    monkeypatch.setattr(fetch_module, "_MAX_BYTES", 1 << 20)
    bare_origin.overrides["some/file.bin"] = _BODY
    bare_origin.endless.add("some/file.bin")
    with pytest.raises(ValueError, match=r"refused .*/some/file.bin: the server sent more than 1048576 bytes, the "
                                         r"most a file without a pinned size may have"):
        _fetch("some/file.bin", None)
    assert cache_files(fresh / "cache") == []
    bare_origin.overrides["other.bin"] = bytes(2 << 20)  # announced too long: refused before its body is read
    with pytest.raises(ValueError, match=r"announces 2097152 bytes, more than 1048576"):
        data.fetch_github(data.YE_REPO, data.YE_COMMIT, "other.bin", None, progress=False)


def test_a_pinned_origin_may_give_each_file_its_size(bare_origin, fresh):
    body = b"x\n1\n2\n"
    origin = {"repo": data.YE_REPO, "commit": data.YE_COMMIT, "licence": "MIT", "subdir": "toy",
              "files": {"t.csv": ("data/t.csv", hashlib.sha256(body).hexdigest(), len(body))}}
    bare_origin.overrides["data/t.csv"] = body
    with pytest.warns(UserWarning, match="fetching it"):
        assert _load_pinned(origin, None, "the toy table", _frame)["x"].tolist() == [1, 2]
    origin["files"]["t.csv"] = ("data/u.csv", hashlib.sha256(body).hexdigest(), len(body))
    bare_origin.overrides["data/u.csv"] = body
    bare_origin.endless.add("data/u.csv")
    with pytest.warns(UserWarning), pytest.raises(ValueError, match=r"more than the 6 bytes of the pinned file"):
        _load_pinned(origin, None, "the toy table", _frame)


@pytest.mark.parametrize("size", [-1, 1.5, True, "10"])
def test_a_bad_size_is_named(fresh, size):
    with pytest.raises(ValueError, match=r"size must be None or a whole number of bytes >= 0, got"):
        data.fetch_github("o/r", "a" * 40, "x", None, size=size)
