"""semvar.testing.origin: a local folder served over HTTP on 127.0.0.1 as a stand-in data origin."""

import http.client
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest

from semvar.testing import serve_folder


def test_serve_folder_serves_files_404s_the_rest_and_refuses_a_non_folder(tmp_path):
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


def test_an_origin_layout_is_served_byte_for_byte_to_parallel_clients(tmp_path):
    """``<owner>/<repo>/<commit>/<path>``, as the loaders ask a mirror for it."""
    files = {f"owner/repo/{'0' * 40}/data/part{i}.bin": bytes(range(256)) * (i + 1) for i in range(8)}
    for rel, blob in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(blob)
    with serve_folder(str(tmp_path)) as url, ThreadPoolExecutor(4) as pool:  # a str works as well as a Path
        got = dict(zip(files, pool.map(lambda rel: urllib.request.urlopen(f"{url}/{rel}", timeout=10).read(), files)))
    assert got == files


def test_nothing_outside_the_folder_is_served(tmp_path):
    (tmp_path / "root").mkdir()
    (tmp_path / "secret.txt").write_text("outside")
    with serve_folder(tmp_path / "root") as url:
        conn = http.client.HTTPConnection(urlsplit(url).hostname, urlsplit(url).port, timeout=10)
        conn.request("GET", "/../secret.txt")  # sent as written, not normalised by a client
        reply = conn.getresponse()
        assert reply.status == 404 and b"outside" not in reply.read()
        conn.close()


def test_two_folders_at_once_get_their_own_ports(tmp_path):
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "which.txt").write_text(name)
    with serve_folder(tmp_path / "one") as first, serve_folder(tmp_path / "two") as second:
        assert first != second
        assert urllib.request.urlopen(f"{first}/which.txt", timeout=10).read() == b"one"
        assert urllib.request.urlopen(f"{second}/which.txt", timeout=10).read() == b"two"


def test_the_server_stops_when_the_block_raises(tmp_path):
    with pytest.raises(RuntimeError, match="inside"):
        with serve_folder(tmp_path) as url:
            raise RuntimeError("inside")
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(f"{url}/", timeout=2)
