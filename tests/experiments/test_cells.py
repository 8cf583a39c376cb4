"""Tests of semvar.experiments._cells: rows in task order whatever the workers, Ctrl-C keeps finished cells."""

import pytest

from semvar.experiments._cells import run_cells


def _rows(n, tag):
    return [(n, tag, i) for i in range(n)]


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_rows_come_in_task_order_whatever_the_workers(n_jobs):
    tasks = [(3, "a"), (1, "b"), (2, "c")]
    rows = run_cells(tasks, _rows, n_jobs=n_jobs, progress=False, cost=lambda t: t[0])
    assert rows == _rows(3, "a") + _rows(1, "b") + _rows(2, "c")


def test_an_interrupted_sweep_keeps_the_finished_cells(capsys):
    def work(n):
        if n == 2:
            raise KeyboardInterrupt
        return [n]

    assert run_cells([(0,), (1,), (2,), (3,)], work, progress=False) == [0, 1]
    assert "keeping the rows of the 2 finished cells" in capsys.readouterr().err
