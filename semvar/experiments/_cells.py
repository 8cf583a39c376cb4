"""Running the cells of a sweep: in this process or on joblib workers, with a progress bar, Ctrl-C safe.

Private to :mod:`semvar.experiments`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from joblib import Parallel, delayed
from threadpoolctl import threadpool_limits
from tqdm.auto import tqdm

__all__ = ["run_cells"]


def _one_thread(work: Callable, index: int, task: tuple):
    with threadpool_limits(limits=1):  # two workers on two cores: BLAS threads would only fight
        return index, work(*task)


def run_cells(tasks: Sequence[tuple], work: Callable[..., list], *, n_jobs: int = 1, progress: bool = True,
              cost: Callable[[tuple], float] | None = None, desc: str = "cells") -> list:
    """``work(*task)`` for every task (a list of rows each), concatenated in the order of ``tasks``.

    With ``n_jobs > 1`` the tasks run on joblib workers, the costliest first when ``cost`` is given
    (so that the workers finish together); the rows do not depend on ``n_jobs``.  On Ctrl-C the rows
    of the tasks finished so far are returned, in task order, and a line says so.
    """
    done: dict[int, list] = {}
    bar = tqdm(total=len(tasks), disable=not progress, desc=desc)
    try:
        if n_jobs == 1:
            for i, task in enumerate(tasks):
                done[i] = _one_thread(work, i, task)[1]
                bar.update()
        else:
            order = sorted(range(len(tasks)), key=lambda i: -cost(tasks[i])) if cost else range(len(tasks))
            for i, rows in Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
                    delayed(_one_thread)(work, i, tasks[i]) for i in order):
                done[i] = rows
                bar.update()
    except KeyboardInterrupt:
        print(f"\ninterrupted: keeping the rows of the {len(done)} finished cells", file=sys.stderr)
    finally:
        bar.close()
    return [row for i in sorted(done) for row in done[i]]
