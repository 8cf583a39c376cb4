"""The command line's structure: its sub-commands, its steps and how it stops (semvar.cli).

The judge command end to end, against the simulated endpoint, is tested in test_cli_judge.py and
test_llm_hostile.py.
"""

import json
import subprocess
import sys

import numpy as np
import pytest

import semvar.cli as cli
from semvar.llm import PROMPTS
from semvar.llm.judge import JudgeStats


def subcommands(parser):
    (action,) = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
    return action.choices


def test_the_parser_registers_replicate_and_judge():
    parser = cli.build_parser()
    assert sorted(subcommands(parser)) == ["judge", "replicate"]
    assert parser.parse_args(["replicate"]).func is cli._cmd_replicate
    args = parser.parse_args(["judge", "t.jsonl", "--base-url", "http://x/v1", "--model", "m", "--out", "r.json"])
    assert args.func is cli._cmd_judge and args.laplacian is None and args.seed == 0


def test_python_dash_m_semvar_lists_the_commands():
    r = subprocess.run([sys.executable, "-m", "semvar", "--help"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "replicate" in r.stdout and "judge" in r.stdout
    r = subprocess.run([sys.executable, "-m", "semvar"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "required: command" in r.stderr


def test_an_interrupt_outside_the_calls_exits_130(monkeypatch, capsys):
    def stop(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_cmd_replicate", stop)
    assert cli.main(["replicate"]) == 130
    assert capsys.readouterr().err == "\ninterrupted\n"


class StoppedJudge:
    """Stands in for LLMJudge: three calls finished, then Ctrl-C."""

    closed = False

    def __init__(self, base_url, model, **kw):
        self.template, self.stats, self.base_url, self.prompt = PROMPTS["liu2025"], JudgeStats(done=3), base_url, "p"

    def pairs(self, texts, pairs):
        raise KeyboardInterrupt

    def close(self):
        StoppedJudge.closed = True


@pytest.mark.parametrize("cache", [None, "c.sqlite"])
def test_an_interrupt_during_the_calls_says_what_was_kept(tmp_path, capsys, monkeypatch, cache):
    (tmp_path / "t.jsonl").write_text('"a"\n"b"\n"c"\n', encoding="utf-8")
    monkeypatch.setattr(cli, "LLMJudge", StoppedJudge)
    extra = ["--cache", str(tmp_path / cache)] if cache else []
    code = cli.main(["judge", str(tmp_path / "t.jsonl"), "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
                     "--out", str(tmp_path / "r.json"), "--no-progress", *extra])
    err = capsys.readouterr().err
    assert code == 130 and not (tmp_path / "r.json").exists()
    if cache:
        assert err == f"\ninterrupted: 3 finished calls are in {tmp_path / cache}; run the same command again to resume\n"
    else:
        assert err.endswith("\ninterrupted: 3 finished calls were not cached\n")
    assert not StoppedJudge.closed  # no waiting on the requests in flight: a second Ctrl-C is never held up


def test_replicate_refuses_an_unknown_claim_before_running_any(capsys):
    assert cli.main(["replicate", "--only", "no.such.claim"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("semvar replicate: error: --only: no claim id starts with 'no.such.claim'; known ids: ")


def test_failures_are_redacted(capsys):
    assert cli._fail("judge", "key sk-0123456789abcdef at http://u:pw@h/v1", 1, "sk-0123456789abcdef") == 1
    err = capsys.readouterr().err
    assert "0123456789" not in err and "pw" not in err and err.startswith("semvar judge: error: key ***")


@pytest.mark.parametrize("spec, laplacian", [("all", "normalized"), ("ordered", "normalized"),
                                             ("sample:0.2", "centered"), ("reps:2", "centered")])
def test_the_default_spectral_matrix_of_each_design(spec, laplacian):
    assert cli._default_laplacian(spec) == laplacian


def test_pair_designs():
    assert cli._pair_design("all", 4, 0).tolist() == [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
    ordered = cli._pair_design("ordered", 3, 0)
    assert ordered.shape == (6, 2) and {tuple(p) for p in ordered.tolist()} == {
        (i, j) for i in range(3) for j in range(3) if i != j}
    a, b = cli._pair_design("sample:0.5", 40, 7), cli._pair_design("sample:0.5", 40, 7)
    assert np.array_equal(a, b) and 0.35 * 780 < a.shape[0] < 0.65 * 780
    assert cli._pair_design("reps:3", 10, 0) is None and cli._reps_extra("reps:3") == 3


def test_strict_json_has_no_nan():
    obj = {"a": [1.0, float("nan"), {"b": float("inf")}], "c": (float("-inf"), "x")}
    assert cli._strict_json(obj) == {"a": [1.0, None, {"b": None}], "c": [None, "x"]}
    json.loads(json.dumps(cli._strict_json(obj), allow_nan=False))



def test_replicate_only_with_no_id_is_refused(capsys):
    from semvar.cli import main

    assert main(["replicate", "--only"]) == 2
    assert "--only needs at least one claim id" in capsys.readouterr().err


def test_replicate_shows_its_progress_on_stderr_unless_quiet(capsys):
    """A bar on standard error (the claim running, the count, the time left), the records alone on standard
    output, even with --json; --quiet leaves standard error empty."""
    assert cli.main(["replicate", "--only", "lin2026.subsample_bound", "--quick", "--json"]) == 0
    out, err = capsys.readouterr()
    assert [r["id"] for r in json.loads(out)] == ["lin2026.subsample_bound"]
    assert "running lin2026.subsample_bound" in err and "claims 1/1" in err and "100%" in err
    assert cli.main(["replicate", "--only", "lin2026.subsample_bound", "--quick", "--json", "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and [r["id"] for r in json.loads(out)] == ["lin2026.subsample_bound"]
