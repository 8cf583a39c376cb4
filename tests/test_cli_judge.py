"""Tests of ``python -m semvar judge`` against the simulated endpoint on 127.0.0.1."""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re

import numpy as np
import pytest

from semvar.cli import build_parser, main
from semvar.relation import count_violations
from semvar.testing import SimulatedEndpoint

KEY = "sk-cli-test-KEY-9876543210"


def write_texts(path, sizes, *, with_labels=True):
    texts, labels = [], []
    for g, size in enumerate(sizes):
        for i in range(size):
            texts.append(f"John's hobbies, set {g}, said in way {i}.")
            labels.append(g)
    with open(path, "w", encoding="utf-8") as fh:
        for t, lab in zip(texts, labels):
            fh.write(json.dumps({"text": t, "label": lab} if with_labels else t) + "\n")
    return texts, np.array(labels)


def run(args, ep, tmp_path, *extra):
    out = tmp_path / "result.json"
    # no fault here is a timeout: the request timeout only has to exceed any answer's delay on a busy machine
    argv = ["judge", str(tmp_path / "texts.jsonl"), "--base-url", ep.base_url, "--model", "m",
            "--out", str(out), "--no-progress", "--timeout", "60", "--backoff-base", "0.005", *args, *extra]
    code = main(argv)
    return code, (json.loads(out.read_text()) if out.exists() and code == 0 else None)


def test_parser_keeps_replicate_and_adds_judge():
    parser = build_parser()
    assert parser.parse_args(["replicate", "--quick"]).command == "replicate"
    args = parser.parse_args(["judge", "t.jsonl", "--base-url", "http://x/v1", "--model", "m", "--out", "r.json"])
    assert args.command == "judge" and args.pairs == "all" and args.k == "auto" and args.cache is None


def test_judge_end_to_end_with_fixed_k(tmp_path, capsys, monkeypatch):
    sizes = [6, 4, 2]
    texts, labels = write_texts(tmp_path / "texts.jsonl", sizes)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with SimulatedEndpoint(dict(zip(texts, labels)), api_key=KEY, fault_every=4, faults=("500", "unparseable")) as ep:
        code, res = run(["--k", "3", "--cache", str(tmp_path / "c.sqlite")], ep, tmp_path)
        assert code == 0
        printed = capsys.readouterr()
        # hand computation: clusters of sizes 6, 4, 2 out of 12
        expected = -sum(s / 12 * math.log(s / 12) for s in sizes)
        assert res["k"] == 3 and abs(res["entropy"] - expected) < 1e-12
        assert f"semantic spectral entropy = {expected:.4f}" in printed.out
        assert res["n_pairs"] == 66 and res["calls"]["requests"] == ep.n_requests > 66
        assert res["calls"]["unjudged"] == 0 and res["pq"]["p"] == 1.0 and res["pq"]["q"] == 0.0
        P = np.array(res["pairs"])
        assert res["verdicts"] == (labels[P[:, 0]] == labels[P[:, 1]]).tolist()
        assert res["violations"]["transitivity"]["violations"] == 0
        assert KEY not in printed.out + printed.err + json.dumps(res)

        before = ep.n_requests
        code, res2 = run(["--k", "3", "--cache", str(tmp_path / "c.sqlite")], ep, tmp_path)
        assert code == 0 and ep.n_requests == before and res2["calls"]["requests"] == 0
        assert res2["calls"]["cached"] == 66 and "0 HTTP requests" in capsys.readouterr().out


def test_judge_auto_k_uses_the_auto_rule(tmp_path, capsys):
    pytest.importorskip("semvar.select_k", reason="semvar.select_k is not available")
    texts, labels = write_texts(tmp_path / "texts.jsonl", [8, 8, 8], with_labels=False)
    with SimulatedEndpoint(dict(zip(texts, labels))) as ep:
        code, res = run(["--k", "auto", "--k-max", "4"], ep, tmp_path)
    assert code == 0 and res["k"] == 3 and res["k_method"].startswith("auto: icl, posterior probability")
    assert "K = 3 (auto: icl, posterior probability" in capsys.readouterr().out
    assert abs(res["entropy"] - math.log(3)) < 1e-12 and "pq" not in res


def test_sampled_pairs_cost_fewer_calls(tmp_path, capsys):
    texts, labels = write_texts(tmp_path / "texts.jsonl", [10, 10])
    with SimulatedEndpoint(dict(zip(texts, labels))) as ep:
        code, res = run(["--pairs", "sample:0.3", "--k", "2", "--seed", "1"], ep, tmp_path)
    assert code == 0
    m = res["n_pairs"]
    assert ep.n_requests == m and 0.15 * 190 < m < 0.45 * 190
    P = np.array(res["pairs"])
    assert (P[:, 0] < P[:, 1]).all() and len({tuple(p) for p in P.tolist()}) == m


def test_sampled_design_defaults_to_the_centred_method_and_recovers_entropy(tmp_path, capsys):
    sizes = [30, 20, 10]
    texts, labels = write_texts(tmp_path / "texts.jsonl", sizes)
    with SimulatedEndpoint(dict(zip(texts, labels))) as ep:
        code, res = run(["--pairs", "sample:0.3", "--k", "3", "--seed", "2"], ep, tmp_path)
    assert code == 0 and res["laplacian"] == "centered"
    expected = -sum(s / 60 * math.log(s / 60) for s in sizes)
    assert abs(res["entropy"] - expected) < 1e-9


def test_ordered_design_symmetry_and_transitivity_match_semvar_relation(tmp_path, capsys):
    texts, labels = write_texts(tmp_path / "texts.jsonl", [5, 4, 3])
    n = len(texts)
    with SimulatedEndpoint(dict(zip(texts, labels)), p=0.8, q=0.15, seed=3) as ep:
        code, res = run(["--pairs", "ordered", "--k", "3"], ep, tmp_path)
    assert code == 0 and res["n_pairs"] == n * (n - 1) == ep.n_requests
    R = np.eye(n, dtype=bool)
    for (i, j), v in zip(res["pairs"], res["verdicts"]):
        R[i, j] = v
    assert res["violations"]["symmetry"] == {
        "pairs_judged_both_orders": n * (n - 1) // 2,
        "violations": count_violations(R).symmetry,
    }
    assert count_violations(R).symmetry > 0  # the simulated judge answers the two orders independently


def test_wrong_key_exits_with_a_clear_message(tmp_path, capsys, monkeypatch):
    texts, labels = write_texts(tmp_path / "texts.jsonl", [3, 3])
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong-" + KEY)
    with SimulatedEndpoint(dict(zip(texts, labels)), api_key=KEY) as ep:
        code, _ = run(["--k", "2"], ep, tmp_path)
    err = capsys.readouterr().err
    assert code == 2 and "OPENAI_API_KEY" in err and "401" in err and KEY not in err


@pytest.mark.parametrize(
    "content, extra, match",
    [
        ('{"text": "a"}\n{"text": "b"}\n', ["--pairs", "sample:2"], "sample:S"),
        ('{"text": "a"}\n{"text": "b"}\n', ["--pairs", "some"], "'all', 'ordered'"),
        ('{"text": "a"}\n{"text": "b"}\n', ["--k", "5"], r"--k must lie in \[1, 2\]"),
        ('{"text": "a"}\n{"text": "b"}\n', ["--k", "two"], "'auto' or a positive integer"),
        ('{"text": "a"}\nnot json\n', [], "line 2: not valid JSON"),
        ('{"txt": "a"}\n', [], 'line 1: expected a JSON string or an object with a "text"'),
        ('"only one"\n', [], "at least 2"),
        ('"a"\n"b"\n', ["--prompt", "no-such-prompt-file"], "--prompt must be one of"),
    ],
)
def test_bad_command_lines(tmp_path, capsys, content, extra, match):
    (tmp_path / "texts.jsonl").write_text(content, encoding="utf-8")
    code = main(["judge", str(tmp_path / "texts.jsonl"), "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
                 "--out", str(tmp_path / "r.json"), *extra])
    assert code == 2
    assert re.search(match, capsys.readouterr().err)


def test_representatives_design_asks_few_pairs_and_finds_the_meanings(tmp_path, capsys):
    sizes = [8, 6, 4, 2]
    texts, labels = write_texts(tmp_path / "texts.jsonl", sizes)
    n, K, R = len(texts), len(sizes), 2
    with SimulatedEndpoint(dict(zip(texts, labels))) as ep:
        code, res = run(["--pairs", f"reps:{R}", "--seed", "3"], ep, tmp_path)
    assert code == 0, capsys.readouterr().err
    # a perfect judge: the design's partition is the truth, with at most n (K + R) calls, far fewer than all pairs
    assert res["k"] == K and res["n_pairs"] <= n * (K + R) < n * (n - 1) // 2
    assert ep.n_requests <= res["n_pairs"]
    expected = -sum(s / n * math.log(s / n) for s in sizes)
    assert abs(res["entropy"] - expected) < 1e-9 and res["k_method"].startswith("reps")


@pytest.mark.parametrize("spec", ["reps:-1", "reps:x", "reps:2.5", "reps:"])
def test_representatives_design_refuses_a_bad_r(tmp_path, capsys, spec):
    write_texts(tmp_path / "texts.jsonl", [3, 2])
    code = main(["judge", str(tmp_path / "texts.jsonl"), "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
                 "--out", str(tmp_path / "r.json"), "--pairs", spec, "--no-progress"])
    assert code == 2 and "--pairs reps:R" in capsys.readouterr().err


# --------------------------------------------------------------------------- partly judged graphs
@pytest.mark.parametrize("seed", [0, 1])
def test_a_sparse_sampled_design_is_refused_with_a_design_that_would_do(tmp_path, capsys, seed):
    """300 texts of three meanings, a perfect judge: 1 % of the pairs leaves a third of the texts unresolved."""
    texts, labels = write_texts(tmp_path / "texts.jsonl", [100, 100, 100])
    with SimulatedEndpoint(dict(zip(texts, labels))) as ep:
        code, _ = run(["--pairs", "sample:0.01", "--seed", str(seed), "--concurrency", "16"], ep, tmp_path)
    err = capsys.readouterr().err
    assert code == 1 and not (tmp_path / "result.json").exists()
    assert re.search(r"\d+ of 300 distinct texts \(\d+\.\d%\) are unresolved", err)
    assert "--pairs reps:2" in err and re.search(r"--pairs sample:0\.\d+ \(about [\d,]+ calls\)", err)


def test_a_sampled_design_reports_the_entropy_of_the_resolved_texts(tmp_path, capsys):
    """3 % of the pairs: K = 3 and the entropy log 3 of the resolved texts, the unresolved counted and bounded."""
    texts, labels = write_texts(tmp_path / "texts.jsonl", [100, 100, 100])
    with SimulatedEndpoint(dict(zip(texts, labels))) as ep:
        code, res = run(["--pairs", "sample:0.03", "--seed", "0", "--concurrency", "16", "--max-unresolved", "0.1"],
                        ep, tmp_path)
    assert code == 0 and res["k"] == 3 and abs(res["entropy"] - math.log(3)) < 0.05
    u = res["n_unresolved"]
    assert 0 < u <= 30 and res["clusters"].count(None) == u and res["k_method"].endswith("left out")
    low, high = res["entropy_range"]
    assert low <= res["entropy"] <= high
    assert f"{u} unresolved allow [" in capsys.readouterr().out


def test_lost_calls_are_not_read_as_false(tmp_path, capsys):
    """Every other call fails for good (HTTP 500, no retry): the judged verdicts alone give three meanings."""
    texts, labels = write_texts(tmp_path / "texts.jsonl", [6, 6, 6])
    with SimulatedEndpoint(dict(zip(texts, labels)), fault_every=3, faults=("500",)) as ep:
        code, res = run(["--max-retries", "0", "--concurrency", "1", "--min-judged", "0.5"], ep, tmp_path)
    out = capsys.readouterr()
    assert code == 0, out.err
    lost = sum(v is None for v in res["verdicts"])
    assert lost > 30 and res["k"] == 3 and res["entropy"] == pytest.approx(math.log(3)) and res["n_unresolved"] == 0


def test_the_prompt_file_is_never_the_result_and_is_recorded(tmp_path, capsys):
    texts, labels = write_texts(tmp_path / "texts.jsonl", [3, 3])
    template = tmp_path / "prompt.txt"
    template.write_text("Same meaning?\n\nTEXT A:\n{text_A}\n\nTEXT B:\n{text_B}\n\nAnswer TRUE or FALSE.\n",
                        encoding="utf-8")
    link = tmp_path / "link.json"
    link.symlink_to(template)
    with SimulatedEndpoint(dict(zip(texts, labels))) as ep:
        for out in (template, link):
            argv = ["judge", str(tmp_path / "texts.jsonl"), "--base-url", ep.base_url, "--model", "m",
                    "--out", str(out), "--prompt", str(template), "--no-progress"]
            assert main(argv) == 2
            assert "is also the prompt file" in capsys.readouterr().err
        assert template.read_text(encoding="utf-8").startswith("Same meaning?")
        code, res = run(["--prompt", str(template), "--k", "2"], ep, tmp_path)
    assert code == 0 and res["prompt"] == "custom" and res["prompt_template"] == template.read_text(encoding="utf-8")
    assert res["prompt_sha256"] == hashlib.sha256(template.read_bytes()).hexdigest()


def test_an_api_key_variable_that_is_not_set_is_refused(tmp_path, capsys, monkeypatch):
    texts, labels = write_texts(tmp_path / "texts.jsonl", [2, 2])
    monkeypatch.delenv("MY_KEY_TYPO", raising=False)
    with SimulatedEndpoint(dict(zip(texts, labels))) as ep:
        code, _ = run(["--api-key-env", "MY_KEY_TYPO"], ep, tmp_path)
        assert code == 2 and ep.n_requests == 0
    assert "--api-key-env MY_KEY_TYPO: no such environment variable is set" in capsys.readouterr().err


def test_the_representatives_design_is_sized_by_what_it_asks():
    from semvar.cli import _check_design_size

    _check_design_size("reps:2", 40_000)  # about n (K + R) = 480,000 pairs, not all 8e8
    with pytest.raises(ValueError, match="judge calls"):
        _check_design_size("all", 40_000)


def test_labels_that_differ_only_by_a_trailing_nul_are_two_meanings(tmp_path, capsys):
    path = tmp_path / "texts.jsonl"
    rows = [{"text": f"text {i}", "label": lab} for i, lab in enumerate(["a", "a", "a\x00", "a\x00"])]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with SimulatedEndpoint({r["text"]: r["label"] for r in rows}) as ep:
        code, res = run(["--k", "2"], ep, tmp_path)
    assert code == 0 and res["true_entropy"] == pytest.approx(math.log(2)) and res["pq"]["n_same"] == 2


def test_a_given_k_with_lost_calls_reads_them_as_unjudged(tmp_path, capsys):
    texts, labels = write_texts(tmp_path / "texts.jsonl", [6, 6, 6])
    with SimulatedEndpoint(dict(zip(texts, labels)), fault_every=3, faults=("500",)) as ep:
        code, res = run(["--max-retries", "0", "--concurrency", "1", "--min-judged", "0.5", "--k", "3"], ep, tmp_path)
        assert code == 0 and res["laplacian"] == "centered" and res["entropy"] == pytest.approx(math.log(3))
        code, _ = run(["--max-retries", "0", "--concurrency", "1", "--min-judged", "0.5", "--k", "3",
                       "--laplacian", "normalized"], ep, tmp_path)
    assert code == 2 and "would read them as FALSE" in capsys.readouterr().err


def test_the_suggested_share_solves_the_unresolved_law():
    """(1 - s')^(m - 1) = u*: with the share s and the unresolved share u seen, s' leaves u* for the same m."""
    import argparse

    from semvar.cli import _sufficient_design

    args = argparse.Namespace(pairs="sample:0.01", max_unresolved=0.05, k_max=10)
    u = 0.99**99  # three meanings of 100 texts
    text = _sufficient_design(args, u, 300)
    s_new = float(re.search(r"--pairs sample:([\d.]+)", text).group(1))
    assert (1 - s_new) ** 99 == pytest.approx(0.025, rel=0.05)  # u* = max_unresolved / 2, to the digits printed
    assert "reps:2" in text and f"{300 * 12:,}" in text


def test_no_resolved_text_stops_the_command_whatever_max_unresolved_allows(tmp_path, capsys):
    """Three pairs of texts, each pair's own verdict lost and every other verdict FALSE: nothing is resolved."""
    texts, labels = write_texts(tmp_path / "texts.jsonl", [2, 2, 2])
    from semvar.cli import _check_resolved, _Failure

    A = np.zeros((6, 6))
    O = np.ones((6, 6)) - np.kron(np.eye(3), np.ones((2, 2)))
    args = argparse.Namespace(pairs="all", max_unresolved=1.0, k_max=10)
    with pytest.raises(_Failure) as info:
        _check_resolved(args, A, O, 6)
    msg = str(info.value)
    assert "6 of 6 distinct texts" in msg and "reps:2" in msg and "raise --max-unresolved" not in msg


def test_a_sampled_design_never_lists_every_pair(monkeypatch):
    """sample:S at 40,000 texts draws its pairs without the 8e8 of all pairs: a list of them would fail here."""
    import semvar.cli as cli
    import semvar.graph as graph

    def refuse(n, *a, **k):
        raise AssertionError(f"all pairs of {n} texts listed")

    monkeypatch.setattr(cli, "all_pairs", refuse)
    monkeypatch.setattr(graph, "all_pairs", refuse)
    monkeypatch.setattr(np, "triu_indices", refuse)
    P = cli._pair_design("sample:0.0001", 40_000, 0)
    assert 70_000 < P.shape[0] < 90_000 and (P[:, 0] < P[:, 1]).all() and P.max() < 40_000
    assert np.unique(P[:, 0] * 40_000 + P[:, 1]).size == P.shape[0]
