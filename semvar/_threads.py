"""One BLAS / OpenMP thread for code that runs many small array operations.

The selection rules of :mod:`semvar.select_k` and the batches of
:mod:`semvar.pipeline` run many small SVDs, eigen-solves and k-means fits;
with the thread pools of a shared machine oversubscribed, each is far slower
than on one core.  :func:`one_thread` limits the pools for the duration of a
``with`` block.

Private: used inside :mod:`semvar` by the modules named above and by the
experiments.
"""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["one_thread"]


@functools.lru_cache(maxsize=1)
def _controller() -> Any:
    from threadpoolctl import ThreadpoolController  # imported on first use, not with semvar

    return ThreadpoolController()


def one_thread() -> Any:
    """A context in which BLAS and OpenMP use one thread.

    The thread pools are looked up once per process
    (``threadpoolctl.threadpool_limits`` scans the loaded libraries on every
    call, which costs milliseconds).

    Returns
    -------
    context manager
        ``threadpoolctl``'s limiter; the previous limits come back on exit.

    Examples
    --------
    >>> import numpy as np
    >>> with one_thread():
    ...     float(np.linalg.norm(np.eye(3)) ** 2)
    3.0
    """
    return _controller().limit(limits=1)
