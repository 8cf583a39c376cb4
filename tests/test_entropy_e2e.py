"""End-to-end semantic spectral entropy: texts -> judge -> graph -> clusters -> entropy."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar.corpus import make_corpus
from semvar.entropy import empirical_entropy
from semvar.judges import OracleJudge, SBMJudge
from semvar.pipeline import semantic_spectral_entropy


def test_oracle_recovers_the_true_entropy_hand_computed():
    c = make_corpus(10, (0.2, 0.3, 0.5), random_state=0)  # sizes 2, 3, 5
    truth = -(0.2 * np.log(0.2) + 0.3 * np.log(0.3) + 0.5 * np.log(0.5))
    h, lab = semantic_spectral_entropy(c.texts, OracleJudge(c.labels), 3, random_state=0, return_labels=True)
    assert h == pytest.approx(truth)
    assert lab.tolist() == [0, 0, 1, 1, 1, 2, 2, 2, 2, 2]


@pytest.mark.parametrize("laplacian", ["normalized", "unnormalized"])
def test_strong_sbm_judge_small_error(laplacian):
    # GPT's Table 2 values p = 0.87, q = 0.07 at n = 70, ratio (0.2, 0.3, 0.5)
    errs = []
    for seed in range(5):
        c = make_corpus(70, (0.2, 0.3, 0.5), random_state=seed)
        h = semantic_spectral_entropy(c.texts, SBMJudge(c.labels, 0.87, 0.07, random_state=seed), 3, laplacian=laplacian, random_state=seed)
        errs.append(abs(h - empirical_entropy(c.labels)))
    assert np.mean(errs) <= 0.01


@pytest.mark.filterwarnings("ignore:.*have no edges:RuntimeWarning")
@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000))
def test_k_one_gives_zero_and_bounded_by_log_k(seed):
    c = make_corpus(12, (1, 1, 1), random_state=seed)
    j = SBMJudge(c.labels, 0.5, 0.3, random_state=seed)
    assert semantic_spectral_entropy(c.texts, j, 1, random_state=seed) == 0.0
    h, lab = semantic_spectral_entropy(c.texts, j, 3, random_state=seed, return_labels=True)
    # the estimate is the entropy of the clusters it returns, which number at most k
    assert h == pytest.approx(empirical_entropy(lab), abs=1e-12)
    assert lab.shape == (12,) and set(lab.tolist()) <= {0, 1, 2}
    assert 0 <= h <= np.log(np.unique(lab).size) + 1e-12


@pytest.mark.parametrize(
    "texts, k, kwargs, msg",
    [
        ([], 1, {}, "empty"),
        ("abc", 1, {}, "single string"),
        (["a", "b"], 0, {}, "k must be >= 1"),
        (["a", "b"], 3, {}, "k must be <= 2"),
        (["a", "b"], "gap", {}, "k must be an int or one of"),
        (["a", "b"], 1, {"laplacian": "rw"}, "laplacian"),
        (["a", "b"], 1, {"random_state": "x"}, "random_state"),
    ],
)
def test_bad_input(texts, k, kwargs, msg):
    with pytest.raises(ValueError, match=msg):
        semantic_spectral_entropy(texts, OracleJudge([0, 1]), k, **kwargs)


def test_bad_judge():
    with pytest.raises(ValueError, match="pairs"):
        semantic_spectral_entropy(["a", "b"], object(), 1)
    with pytest.raises(ValueError, match="labels for 2 texts"):
        semantic_spectral_entropy(["a", "b", "c"], OracleJudge([0, 1]), 1)


def test_k_chosen_by_rule_on_a_clean_judge():
    c = make_corpus(60, (0.2, 0.3, 0.5), random_state=1)
    h, lab = semantic_spectral_entropy(c.texts, OracleJudge(c.labels), "eigengap", random_state=0, return_labels=True)
    assert lab.max() + 1 == 3 and h == pytest.approx(empirical_entropy(c.labels))


def test_sweep_protocol_bad_input_and_oracle_cell():
    from semvar.experiments.table1 import cluster, table1_errors

    # an SBM judge with p = 1, q = 0 is the oracle: every cell has zero error
    df = table1_errors(1.0, 0.0, conventions=("normalized", "unnormalized"), sizes=(30,), iterations=2)
    assert len(df) == 3 * 2 * 2 and df.error.max() == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError, match="convention"):
        cluster(np.eye(3), 2, "random-walk", 0)
    with pytest.raises(ValueError, match="model"):
        table1_errors(0.5, 0.1, model="coin", sizes=(30,), iterations=1)


def test_overlap_block_matrix_hand_computed():
    from semvar.corpus import Corpus
    from semvar.experiments.table1 import overlap_block_matrix

    c = Corpus(
        texts=list("abcdef"),
        labels=np.array([0, 0, 1, 1, 2, 2]),
        meanings=[frozenset("ab"), frozenset("ac"), frozenset("de")],
        proportions=np.full(3, 1 / 3),
    )
    # different-meaning text pairs: 12, of which 4 (meanings 0-1) overlap: f = 1/3
    B = overlap_block_matrix(c, 0.9, 0.1)
    assert B[0, 1] == pytest.approx(0.3) and B[0, 2] == 0 and B[1, 2] == 0 and B[2, 2] == 0.9
    B = overlap_block_matrix(c, 0.9, 0.5)
    assert B[0, 1] == 1 and B[0, 2] == pytest.approx(0.25)
    # the expected false-TRUE rate is q in both cases
    for q in (0.1, 0.5):
        B = overlap_block_matrix(c, 0.9, q)
        assert (4 * B[0, 1] + 4 * B[0, 2] + 4 * B[1, 2]) / 12 == pytest.approx(q)


# --------------------------------------------------------------------------- semvar.pipeline.graph_entropy
import scipy.sparse as sp  # noqa: E402

import semvar._validation as validation  # noqa: E402
from semvar.graph import block_labels, judge_graph, sample_sbm  # noqa: E402
from semvar.pipeline import graph_entropy  # noqa: E402
from semvar.select_k import choose_k  # noqa: E402
from semvar.spectral import spectral_clusters  # noqa: E402


def _cliques(sizes):
    labels = block_labels(sizes)
    return (labels[:, None] == labels[None, :]).astype(float) - np.eye(labels.size), labels


def test_graph_entropy_two_triangles_is_log2():
    A, _ = _cliques([3, 3])
    assert graph_entropy(A, 2, random_state=0) == pytest.approx(np.log(2))
    assert graph_entropy(sp.csr_array(A), 2, random_state=0) == pytest.approx(np.log(2))
    assert graph_entropy(A, 1) == 0.0


@pytest.mark.parametrize("laplacian", ["normalized", "unnormalized", "regularized", "centered"])
def test_graph_entropy_cliques_hand_computed(laplacian):
    # sizes 2, 3, 5 of 10: -(0.2 log 0.2 + 0.3 log 0.3 + 0.5 log 0.5)
    A, labels = _cliques([2, 3, 5])
    h, lab = graph_entropy(A, 3, laplacian=laplacian, random_state=0, return_labels=True)
    assert h == pytest.approx(-(0.2 * np.log(0.2) + 0.3 * np.log(0.3) + 0.5 * np.log(0.5)))
    assert lab.tolist() == labels.tolist()


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(2, 8), min_size=1, max_size=4), st.integers(0, 10_000))
def test_graph_entropy_invariant_to_node_order(sizes, seed):
    A, labels = _cliques(sizes)
    perm = np.random.default_rng(seed).permutation(labels.size)
    h = graph_entropy(A[np.ix_(perm, perm)], len(sizes), random_state=seed)
    assert h == pytest.approx(empirical_entropy(labels))
    assert -1e-12 <= h <= np.log(len(sizes)) + 1e-12


@pytest.mark.parametrize("k", [2, 3, "ncv", "eigengap"])
@pytest.mark.parametrize("laplacian", ["normalized", "unnormalized"])
def test_texts_and_graph_entry_agree(k, laplacian):
    c = make_corpus(40, (0.2, 0.3, 0.5), random_state=2)
    judge = SBMJudge(c.labels, 0.87, 0.07, random_state=4)
    h1, lab1 = semantic_spectral_entropy(c.texts, judge, k, laplacian=laplacian, random_state=5, return_labels=True)
    A = judge_graph(SBMJudge(c.labels, 0.87, 0.07, random_state=4), c.texts)
    h2, lab2 = graph_entropy(A, k, laplacian=laplacian, random_state=5, return_labels=True)
    assert h1 == h2 and lab1.tolist() == lab2.tolist()
    # the same as choosing K, clustering and taking the entropy by hand, with one generator
    rng = np.random.default_rng(5)
    kk = k if isinstance(k, int) else choose_k(A, k, 10, random_state=rng)
    assert lab1.tolist() == spectral_clusters(A, kk, laplacian=laplacian, random_state=rng).tolist()


def test_graph_entropy_with_observed_mask_and_tau():
    rng = np.random.default_rng(0)
    A = sample_sbm([30, 40, 50], 0.9, 0.05, random_state=1)
    mask = sp.csr_array(np.ones((120, 120)) - np.eye(120))
    h_mask = graph_entropy(A, 3, laplacian="centered", observed=mask, random_state=rng)
    h_all = graph_entropy(A, 3, laplacian="centered", random_state=np.random.default_rng(0))
    truth = empirical_entropy(block_labels([30, 40, 50]))
    assert h_mask == pytest.approx(truth) and h_all == pytest.approx(truth)
    assert graph_entropy(A, 3, laplacian="regularized", tau=2.0, random_state=0) == pytest.approx(truth)


def test_adjacency_checked_once_on_the_way_through(monkeypatch):
    """The symmetry check reads the whole graph: the pipeline makes it once, the texts path never."""
    calls = []
    real = validation._sparse_asymmetry

    def counting(mat, *args, **kwargs):
        calls.append(mat.shape)
        return real(mat, *args, **kwargs)

    monkeypatch.setattr(validation, "_sparse_asymmetry", counting)
    A = sample_sbm([20, 25, 30], 0.8, 0.05, random_state=0)
    graph_entropy(A, "ncv", random_state=0)
    assert len(calls) == 1
    calls.clear()
    choose_k(A, "ncv", 5, random_state=0)
    spectral_clusters(A, 3, random_state=0)
    assert len(calls) == 2  # each public function checks what it is given
    calls.clear()
    c = make_corpus(30, (0.5, 0.5), random_state=0)
    semantic_spectral_entropy(c.texts, OracleJudge(c.labels), "eigengap", random_state=0)
    assert calls == []  # the graph it builds from verdicts needs no check


@pytest.mark.parametrize(
    "adjacency, k, kwargs, msg",
    [
        (np.ones((3, 4)), 1, {}, "square"),
        (np.array([[0, 1.0], [0, 0]]), 1, {}, "symmetric"),
        (sp.csr_array(np.array([[0, 1.0], [0, 0]])), 1, {}, "symmetric"),
        (np.array([[0, -1.0], [-1, 0]]), 1, {}, "non-negative"),
        (np.array([[0, np.inf], [np.inf, 0]]), 1, {}, "NaN or infinite"),
        (np.zeros((3, 3)), 0, {}, "k must be >= 1"),
        (np.zeros((3, 3)), 4, {}, "k must be <= 3"),
        (np.zeros((3, 3)), 1.5, {}, "k must be an integer"),
        (np.zeros((3, 3)), "gap", {}, "k must be an int or one of"),
        (np.zeros((3, 3)), 1, {"k_max": 0}, "k_max must be >= 1"),
        (np.zeros((3, 3)), 1, {"laplacian": "rw"}, "laplacian must be one of"),
        (np.zeros((3, 3)), 1, {"tau": 1.0}, "tau applies only"),
        (np.zeros((3, 3)), 1, {"laplacian": "regularized", "tau": -1.0}, "tau must lie"),
        (np.zeros((3, 3)), 1, {"observed": np.ones((3, 3))}, "observed applies only"),
        (np.zeros((3, 3)), 1, {"laplacian": "centered", "observed": np.ones((2, 2))}, "observed must have the shape"),
        (np.ones((3, 3)) - np.eye(3), 1, {"laplacian": "centered", "observed": np.zeros((3, 3))}, "edges on pairs"),
        (np.ma.array(np.zeros((4, 4)), mask=np.eye(4, k=1, dtype=bool)), "auto", {"observed": np.ones((4, 4))},
         "masked array and observed"),
        (np.zeros((3, 3)), "auto", {"observed": np.ones((3, 3)), "max_unresolved": 1.5}, "max_unresolved"),
        (np.zeros((3, 3)), 1, {"random_state": -1}, "random_state"),
    ],
)
def test_graph_entropy_bad_input(adjacency, k, kwargs, msg):
    with pytest.raises(ValueError, match=msg):
        graph_entropy(adjacency, k, **kwargs)


def test_semantic_spectral_entropy_bad_texts_and_k_max():
    with pytest.raises(ValueError, match="must all be strings"):
        semantic_spectral_entropy(["a", 3], OracleJudge([0, 1]), 1)
    with pytest.raises(ValueError, match="k_max must be >= 1"):
        semantic_spectral_entropy(["a", "b", "c", "d"], OracleJudge([0, 0, 1, 1]), "ncv", k_max=0)
