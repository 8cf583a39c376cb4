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


# --------------------------------------------------------------------------- refusals before allocating
@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda: graph.block_labels([10**10]), r"sizes: 10,000,000,000 labels need about 74\.5 GiB"),
        (lambda: graph.block_labels([2**62, 2**62]), r"sizes: 9,223,372,036,854,775,808 labels need about"),
        (lambda: sample_sbm([10**6] * 2, 0.5, 0.1), r"sample_sbm: about 599,999,500,000 edges \(expected\) of "
                                                  r"2,000,000 nodes need about [\d,.]+ GiB"),
        (lambda: graph.random_pairs(10**6, 1.0), r"random_pairs: about 499,999,500,000 pairs .* need about "
                                                 r"[\d,.]+ GiB"),
    ],
)
def test_draws_that_cannot_fit_are_refused_before_allocating(monkeypatch, call, msg):
    monkeypatch.setattr(graph, "available_memory", lambda: 4 * 2**30)
    with pytest.raises(ValueError, match=msg + r".*more than the 4\.0 GiB of memory available"):
        call()
    monkeypatch.setattr(graph, "available_memory", lambda: None)  # unknown: refused above a fixed cap
    with pytest.raises(ValueError, match=r"allowed when the memory available cannot be read"):
        call()


def test_a_draw_that_fits_is_let_through(monkeypatch):
    monkeypatch.setattr(graph, "available_memory", lambda: 4 * 2**30)
    assert graph.block_labels([10**6, 10]).shape == (10**6 + 10,)
    A = sample_sbm([10**6] * 2, 0.0, 0.0, random_state=0)  # two million texts, no edge: nothing to hold
    assert A.shape == (2 * 10**6, 2 * 10**6) and A.nnz == 0


def test_random_pairs_draws_a_small_share_without_listing_every_pair():
    import tracemalloc

    tracemalloc.start()
    P = graph.random_pairs(40_000, 1e-4, random_state=0)  # the command line's --pairs sample:1e-4 at 40,000 texts
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    m = 40_000 * 39_999 // 2
    assert abs(P.shape[0] - 1e-4 * m) < 6 * (1e-4 * m) ** 0.5
    assert peak < 200 * P.shape[0] < 40 * 2**20  # bytes a pair drawn; all 8e8 pairs would be 28.8 GB
    assert np.all(P[:, 0] < P[:, 1]) and np.unique(P, axis=0).shape == P.shape


# --------------------------------------------------------------------------- what a judge returns
class _Returns:
    """A judge whose pairs method returns ``make(m)``."""

    def __init__(self, make):
        self.make = make

    def pairs(self, texts, pairs):
        return self.make(len(pairs))


class GeneratorJudge(_Returns):
    pass


@pytest.mark.parametrize(
    "judge, msg",
    [
        (GeneratorJudge(lambda m: (True for _ in range(m))), r"GeneratorJudge\.pairs returned a generator"),
        (_Returns(lambda m: ["TRUE"] * m), r"_Returns\.pairs returned strings \('TRUE'"),
        (_Returns(lambda m: ["1"] * m), r"_Returns\.pairs returned strings \('1'"),
        (_Returns(lambda m: [True] * (m + 1)), r"_Returns\.pairs returned 4 verdicts for 3 pairs"),
        (_Returns(lambda m: np.ones((m, 1), dtype=bool)), r"_Returns\.pairs returned an array of shape \(3, 1\)"),
        (_Returns(lambda m: [2] * m), r"_Returns\.pairs returned the value 2\.0"),
        (_Returns(lambda m: None), r"_Returns\.pairs returned None"),
    ],
)
def test_verdicts_of_the_wrong_kind_name_the_judge(judge, msg):
    texts = ["a", "b", "c"]
    expected = r".*expected one boolean verdict per pair \(3\)"
    for call in (lambda: graph.judge_graph(judge, texts), lambda: graph.design_all_pairs(judge, texts),
                 lambda: graph.design_random(judge, texts, 1.0, random_state=0)):
        with pytest.raises(ValueError, match=msg + expected):
            call()
    named = msg.split(r"\.pairs")[0] + r"\.pairs returned"  # one pair at a time: the same message for m = 1
    with pytest.raises(ValueError, match=named):
        graph.design_greedy(judge, texts)
    with pytest.raises(ValueError, match=named):
        graph.design_representatives(judge, texts, extra=0)


def test_masked_pairs_are_refused_and_masked_labels_expand_masked():
    P = np.ma.MaskedArray([[0, 1], [1, 2]], mask=[[0, 0], [0, 1]])
    with pytest.raises(ValueError, match=r"pairs is a masked array with 1 masked entry"):
        adjacency_from_verdicts(3, P, [True, False])
    with pytest.raises(ValueError, match=r"pairs is a masked array"):
        graph.check_judged(P, [True, False], 3)
    with pytest.raises(ValueError, match=r"sizes is a masked array"):
        graph.block_labels(np.ma.MaskedArray([2, 3], mask=[0, 1]))
    r = graph.design_all_pairs(OracleJudge([0, 0, 1]), ["a", "a", "b"])
    lab = r.expand(np.ma.MaskedArray([5, 7], mask=[0, 1]))
    assert lab.tolist() == [5, 5, None]  # the duplicate texts share their unique text's (un)masked label


def test_an_sbm_of_many_nodes_and_no_edge_is_refused_for_its_row_pointers(monkeypatch):
    monkeypatch.setattr(graph, "available_memory", lambda: 4 * 2**30)
    with pytest.raises(ValueError, match=r"sample_sbm: about 0 edges \(expected\) of 10,000,000,000 nodes need about"):
        sample_sbm([10**10], 0.0, 0.0)  # was a MemoryError building the sparse matrix's row pointers
