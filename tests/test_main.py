"""semvar/__main__.py: ``python -m semvar`` hands its arguments to :func:`semvar.cli.main` and exits with its status.

The commands themselves are tested in tests/test_cli.py (which also runs ``python -m semvar``
in a subprocess); here the entry point's wiring is checked in-process.
"""

import runpy
import sys

import pytest

import semvar.cli


def test_running_the_package_exits_with_the_status_of_cli_main(monkeypatch):
    seen = []

    def fake_main(argv=None):
        seen.append(list(sys.argv[1:]) if argv is None else argv)
        return 7

    monkeypatch.setattr(semvar.cli, "main", fake_main)
    monkeypatch.setattr(sys, "argv", ["semvar", "replicate", "--quick"])
    with pytest.raises(SystemExit) as done:
        runpy.run_module("semvar", run_name="__main__", alter_sys=False)
    assert done.value.code == 7
    assert seen == [["replicate", "--quick"]]


def test_importing_the_entry_point_runs_nothing(monkeypatch):
    monkeypatch.setattr(semvar.cli, "main", lambda argv=None: pytest.fail("main ran on import"))
    namespace = runpy.run_module("semvar.__main__", run_name="semvar.__main__")
    assert namespace["main"] is semvar.cli.main
