import hashlib
import http.server
import io
import os
import pickle
import shutil
import socket
import threading
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from semvar import data
from semvar.data import _safe_pickle, ye2024

# the offline copies (mmlu_10k.npz, the chat npz, and raw/: byte-exact release pickles), found by the data rule
_YE_FILES = ["mmlu_10k.npz", "mmlu_10k_chat_v2.npz", "raw/SHA256SUMS", "raw/Qwen-72B_mmlu_10k_base_icl1.pkl"]
_YE = data.find_data_dir("ye2024", _YE_FILES)


@pytest.fixture
def ye_copy(require_data):
    """The folder ye2024/ holding the offline copies, found before any test changes the environment."""
    return _YE if _YE is not None else require_data("ye2024", _YE_FILES)


# --------------------------------------------------------------------------- the directory rule


def test_bad_split_names_the_choices():
    with pytest.raises(ValueError, match=r"split must be one of \['dev', 'test', 'validation'\], got 'tset'"):
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


# --------------------------------------------------------------------------- Ye et al. from a data directory


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


# --------------------------------------------------------------------------- the restricted unpickler


class _System:
    def __init__(self, command):
        self.command = command

    def __reduce__(self):
        return os.system, (self.command,)


class _Exec:
    def __init__(self, code):
        self.code = code

    def __reduce__(self):
        return exec, (self.code,)


class _NumpyOther:
    def __reduce__(self):  # a numpy callable, but not array reconstruction
        return np.save, ("x.npy", np.zeros(1))


def _malicious_pickles(marker: Path) -> dict[str, bytes]:
    # each one, loaded by plain pickle.load, would create the marker file
    array = np.zeros(6, dtype=np.float32)
    return {
        "os.system": pickle.dumps([{"id": 0, "logits_options": array}, _System(f"touch {marker}")], protocol=4),
        "exec": pickle.dumps({"x": _Exec(f"open({str(marker)!r}, 'w').close()")}, protocol=2),
        "numpy.save": pickle.dumps([_NumpyOther()], protocol=4),
    }


def test_the_malicious_pickles_do_run_when_unpickled_plainly(tmp_path):
    # the control: proves the crafted streams are live, so the refusal below means something
    marker = tmp_path / "ran"
    pickle.loads(_malicious_pickles(marker)["os.system"])
    assert marker.exists()


@pytest.mark.parametrize("kind", ["os.system", "exec", "numpy.save"])
def test_malicious_pickle_is_refused_before_it_runs(tmp_path, kind):
    marker = tmp_path / "ran"
    path = tmp_path / "evil.pkl"
    path.write_bytes(_malicious_pickles(marker)[kind])
    with pytest.raises(_safe_pickle.RefusedPickleError, match="refused: the pickle names the global") as err:
        _safe_pickle.load_numpy_pickle(path)
    assert isinstance(err.value, ValueError)
    assert not marker.exists()
    assert not (tmp_path / "x.npy").exists()


def test_release_pickle_loads(ye_copy):
    # a byte-exact copy of one release file
    raw = ye_copy / "raw" / "Qwen-72B_mmlu_10k_base_icl1.pkl"
    records = _safe_pickle.load_numpy_pickle(raw)
    arr = ye2024._release_logits(records, raw.name)
    assert np.array_equal(arr, np.load(ye_copy / "mmlu_10k.npz")["Qwen-72B__base"])


def test_garbage_is_not_a_pickle(tmp_path):
    path = tmp_path / "x.pkl"
    path.write_bytes(pickle.dumps([1, 2, 3])[:-3])
    with pytest.raises(ValueError, match="not a readable pickle"):
        _safe_pickle.load_numpy_pickle(path)


@settings(max_examples=25, deadline=None)
@given(
    arrays=st.lists(hnp.arrays(np.float32, st.integers(0, 8)), max_size=5),
    protocol=st.integers(3, 4),  # protocol 2 spells bytes through _codecs.encode, which is refused
)
def test_numpy_only_unpickler_round_trips_arrays(arrays, protocol):
    obj = [{"id": i, "logits_options": a} for i, a in enumerate(arrays)]
    back = _safe_pickle.NumpyOnlyUnpickler(io.BytesIO(pickle.dumps(obj, protocol=protocol))).load()
    assert len(back) == len(obj)
    for a, b in zip(obj, back):
        assert a["id"] == b["id"] and b["logits_options"].dtype == np.float32
        assert a["logits_options"].tobytes() == b["logits_options"].tobytes()


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


# --------------------------------------------------------------------------- the fetch layer, offline


class _Origin:
    """A local stand-in for raw.githubusercontent.com, serving the byte-exact copies in ye2024/raw."""

    def __init__(self, raw: Path | None = None):
        self.raw = raw
        self.requests: list[str] = []
        self.overrides: dict[str, bytes] = {}  # origin path -> bytes served instead
        self.cut: set[str] = set()  # origin paths whose body stops half-way
        self.trickle: dict[str, tuple[float, bool]] = {}  # origin path -> (seconds between bytes, headers too)
        self.trickled = 0  # bytes sent by trickling answers
        self.stop = threading.Event()
        origin = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                origin.requests.append(self.path)
                prefix = f"/{data.YE_REPO}/{data.YE_COMMIT}/"
                rel = self.path[len(prefix):] if self.path.startswith(prefix) else None
                body = origin.overrides.get(rel)
                if body is None and rel is not None and rel.count("/") == 1 and origin.raw is not None:
                    copy = origin.raw / rel.split("/")[1]
                    body = copy.read_bytes() if copy.is_file() else None
                if body is None:
                    self.send_error(404)
                    return
                if rel in origin.trickle:  # one byte every gap seconds, until the client leaves
                    gap, head_too = origin.trickle[rel]
                    head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n\r\n".encode()
                    self.close_connection = True
                    try:
                        if not head_too:
                            self.wfile.write(head)
                        for byte in (head if head_too else b"") + body:
                            self.wfile.write(bytes([byte]))
                            self.wfile.flush()
                            origin.trickled += 1
                            if origin.stop.wait(gap):
                                return
                    except OSError:
                        pass
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if rel in origin.cut:
                    self.wfile.write(body[: len(body) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(body)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def close(self):
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


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
    server = _Origin()
    monkeypatch.setenv("SEMVAR_DATA_MIRROR", server.url)
    yield server
    server.close()


@pytest.fixture
def origin(ye_copy, bare_origin):
    """The stand-in origin serving the byte-exact copies of the release files."""
    bare_origin.raw = ye_copy / "raw"
    return bare_origin


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


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
    assert _files(fresh / "cache") == []


def test_missing_file_at_the_origin(bare_origin, fresh):
    with pytest.raises(data.DataNotFoundError, match=r"could not fetch .*/some/absent.bin \(HTTPError: 404"):
        _fetch("some/absent.bin", None)
    assert _files(fresh / "cache") == []


@pytest.mark.parametrize("pinned", [True, False])
def test_interrupted_download_leaves_no_partial_file(bare_origin, fresh, pinned):
    bare_origin.overrides["some/file.bin"] = _BODY
    bare_origin.cut.add("some/file.bin")
    with pytest.raises(data.DataNotFoundError, match="could not fetch .*SEMVAR_DATA_MIRROR="):
        _fetch("some/file.bin", _BODY_SHA if pinned else None)
    assert bare_origin.requests
    assert _files(fresh / "cache") == []


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
    assert _files(fresh / "cache") == []  # no temporary file, no partial file


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


def test_a_pickle_that_asks_for_745_gib_is_refused_before_allocating(tmp_path):
    class Huge:
        def __reduce__(self):
            return (np.ndarray, ((10**11,), "f8"))

    for protocol in (2, 3, 4):
        raw = pickle.dumps(Huge(), protocol=protocol)
        assert len(raw) <= 53
        path = tmp_path / f"huge{protocol}.pkl"
        path.write_bytes(raw)
        with pytest.raises(_safe_pickle.RefusedPickleError, match=r"800,000,000,000 bytes\) before giving its data"):
            _safe_pickle.load_numpy_pickle(path)
    # numpy's own reconstruction function, asked for a huge empty array
    class Forged:
        def __reduce__(self):
            return (_safe_pickle._reconstruct, (np.ndarray, (10**6, 10**6), b"b"))

    with pytest.raises(_safe_pickle.RefusedPickleError, match=r"1,000,000,000,000 bytes"):
        _safe_pickle.NumpyOnlyUnpickler(io.BytesIO(pickle.dumps(Forged(), protocol=4))).load()
    # a genuine pickle asks for no empty memory (it gives its data), so even a tiny limit lets it through
    back = _safe_pickle.NumpyOnlyUnpickler(io.BytesIO(pickle.dumps(np.arange(1000.0), protocol=4)), max_array_bytes=0)
    assert np.array_equal(back.load(), np.arange(1000.0))


def test_a_huge_pickle_from_the_origin_does_not_stay_in_the_cache(bare_origin, fresh):
    class Huge:
        def __reduce__(self):
            return (np.ndarray, ((10**11,), "f8"))

    first = "outputs_base/Llama-2-7b-hf_cosmosqa_10k_base_icl1.pkl"  # no pinned checksum
    bare_origin.overrides[first] = pickle.dumps(Huge(), protocol=4)
    with pytest.warns(UserWarning, match="fetching"), pytest.raises(_safe_pickle.RefusedPickleError, match="bytes"):
        data.load_ye_logits("rc", progress=False)
    assert _files(fresh / "cache") == []  # a later offline call does not meet it again
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
    assert _files(fresh / "cache") == []


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
    origin.overrides[first] = _malicious_pickles(marker)["os.system"]
    with pytest.warns(UserWarning, match="fetching"), pytest.raises(_safe_pickle.RefusedPickleError, match="posix.system"):
        data.load_ye_logits("rc", progress=False)
    assert not marker.exists()
    assert _files(fresh / "cache") == []  # the unverified file is not kept


def test_unpinned_file_with_the_wrong_structure_is_refused(bare_origin, fresh):
    origin = bare_origin
    first = "outputs_base/Llama-2-7b-hf_halu_dialogue_base_icl1.pkl"
    origin.overrides[first] = pickle.dumps(_records(10), protocol=4)
    with pytest.warns(UserWarning, match="fetching"), pytest.raises(ValueError, match="a list of 10000 records, found 10"):
        data.load_ye_logits("drs", progress=False)
    assert _files(fresh / "cache") == []


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
    assert not [p for p in _files(fresh / "cache") if p.name.endswith(".part")]
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


def test_serve_folder_serves_files_404s_the_rest_and_refuses_a_non_folder(tmp_path):
    import urllib.error
    import urllib.request

    from semvar.testing import serve_folder

    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "b.csv").write_bytes(b"x,y\n1,2\n")
    with serve_folder(tmp_path) as url:
        assert url.startswith("http://127.0.0.1:")
        assert urllib.request.urlopen(f"{url}/a/b.csv", timeout=10).read() == b"x,y\n1,2\n"
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(f"{url}/a/missing.csv", timeout=10)
        assert err.value.code == 404
    with pytest.raises(urllib.error.URLError):  # the server is gone after the block
        urllib.request.urlopen(f"{url}/a/b.csv", timeout=2)
    with pytest.raises(ValueError, match="is not a folder"):
        with serve_folder(tmp_path / "a" / "b.csv"):
            pass
