"""semvar.graph: the free-memory reader, the bytes-per-pair constants, duplicate texts, judge checks."""

import builtins

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import semvar.cli as cli
from semvar import graph
from semvar.graph import adjacency_from_verdicts, all_pairs, sample_sbm
from semvar.judges import OracleJudge


def test_available_memory_reads_memavailable(monkeypatch, tmp_path):
    fake = tmp_path / "meminfo"
    fake.write_text("MemTotal:       16000000 kB\nMemFree:         1000 kB\nMemAvailable:    2048 kB\n")
    real_open = builtins.open
    monkeypatch.setattr(builtins, "open", lambda path, *a, **k: real_open(fake if path == "/proc/meminfo" else path,
                                                                          *a, **k))
    assert graph.available_memory() == 2048 * 1024


def test_available_memory_falls_back_to_sysconf_and_then_none(monkeypatch):
    real_open = builtins.open

    def no_proc(path, *a, **k):
        if path == "/proc/meminfo":
            raise FileNotFoundError(path)
        return real_open(path, *a, **k)

    monkeypatch.setattr(builtins, "open", no_proc)
    sizes = {"SC_AVPHYS_PAGES": 10, "SC_PAGE_SIZE": 4096}
    monkeypatch.setattr(graph.os, "sysconf", lambda name: sizes[name])
    assert graph.available_memory() == 40960

    def unknown(name):
        raise ValueError(name)

    monkeypatch.setattr(graph.os, "sysconf", unknown)
    assert graph.available_memory() is None


def test_one_patched_reader_governs_both_memory_checks(monkeypatch):
    monkeypatch.setattr(graph, "available_memory", lambda: 2**30)
    with pytest.raises(ValueError, match=r"about 26\.8 GiB \(36 bytes a pair\).*1\.0 GiB of memory available"):
        graph.all_pairs(40_000)
    with pytest.raises(ValueError, match=r"about 596\.0 GiB of memory \(800 bytes a pair\).*1\.0 GiB available"):
        cli._check_design_size("all", 40_000)
    # a design that fits is let through, and a sample is counted at its share
    cli._check_design_size("sample:0.0001", 40_000)
    monkeypatch.setattr(graph, "available_memory", lambda: None)  # unknown: nothing is refused
    cli._check_design_size("ordered", 40_000)


def test_the_bytes_per_pair_constants():
    assert graph.PAIR_LIST_BYTES == graph.PAIR_BYTES == 36 and graph.JUDGED_PAIR_BYTES == 800


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", "d", ""]), min_size=1, max_size=30))
def test_collapse_duplicates_first_positions(texts):
    unique, inverse, first = graph.collapse_duplicates(texts, return_first=True)
    assert [texts[i] for i in first] == unique
    assert first.tolist() == [texts.index(u) for u in unique]
    assert [unique[j] for j in inverse] == texts
    u2, inv2 = graph.collapse_duplicates(texts)
    assert u2 == unique and np.array_equal(inv2, inverse)


def test_collapse_duplicates_return_first_must_be_a_bool():
    with pytest.raises(ValueError, match="return_first must be True or False"):
        graph.collapse_duplicates(["a"], return_first="yes")


@pytest.mark.parametrize("design", [graph.design_all_pairs, graph.design_greedy, graph.design_representatives])
def test_a_judge_without_pairs_is_refused(design):
    for kind in (TypeError, ValueError):  # one error that is both
        with pytest.raises(kind, match=r"judge must have a pairs\(texts, pairs\) method"):
            design(object(), ["a", "b"])
    with pytest.raises(TypeError, match="judge must have a pairs"):
        graph.judge_graph(lambda texts, pairs: None, ["a", "b"])


@pytest.mark.parametrize("kw, msg", [({"refine": 1}, "refine must be True or False"),
                                     ({"collapse": "no"}, "collapse must be True or False"),
                                     ({"representative": "last"}, r"representative must be one of \('first', 'random'\)"),
                                     ({"extras": 3}, r"extras must be one of \('uncertain', 'random'\)")])
def test_design_options_are_checked(kw, msg):
    with pytest.raises(ValueError, match=msg):
        graph.design_representatives(OracleJudge([0, 1]), ["a", "b"], **kw)


# ---- moved from the end-to-end file: graph assembly alone
def test_sample_sbm_edge_density_and_symmetry():
    A = sample_sbm([200, 300], 0.3, 0.05, random_state=0)
    assert (A != A.T).nnz == 0 and A.diagonal().sum() == 0
    within = A[:200][:, :200].sum() / (200 * 199)
    across = A[:200][:, 200:].sum() / (200 * 300)
    assert within == pytest.approx(0.3, abs=0.02) and across == pytest.approx(0.05, abs=0.01)


def test_sample_sbm_large_path_matches_density():
    # the block-pair sampler with rng.choice is used above 5e6 slots
    A = sample_sbm([4000, 4000], 0.01, 0.002, random_state=1)
    assert A.sum() / 2 == pytest.approx(0.01 * 4000 * 3999 + 0.002 * 4000 * 4000, rel=0.03)


def test_unjudged_pairs_are_unobserved_not_false():
    pairs = all_pairs(3)
    verdicts = np.ma.array([True, False, True], mask=[False, False, True])
    A, obs = adjacency_from_verdicts(3, pairs, verdicts, return_mask=True)
    assert A[0, 1] == 1 and A[1, 2] == 0
    assert obs[0, 2] == 1 and obs[1, 2] == 0  # judged FALSE vs never judged


def test_adjacency_bad_pairs():
    with pytest.raises(ValueError, match="pairs must index texts"):
        adjacency_from_verdicts(2, [[0, 5]], [True])
    with pytest.raises(ValueError, match="one entry per pair"):
        adjacency_from_verdicts(3, [[0, 1]], [True, False])
