"""Tests of semvar._threads: one BLAS thread inside the block, the former limits after it."""

import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from semvar._threads import one_thread


def _blas_threads():
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


def test_one_thread_limits_blas_and_restores_it():
    if not _blas_threads():
        pytest.skip("no BLAS thread pool is loaded")
    with threadpool_limits(limits=2, user_api="blas"):  # two threads, whatever the environment says
        before = _blas_threads()
        assert before == [2] * len(before)
        with one_thread():
            assert _blas_threads() == [1] * len(before)
        assert _blas_threads() == before
