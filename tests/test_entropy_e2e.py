"""End-to-end semantic spectral entropy: texts -> judge -> graph -> clusters -> entropy."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar.corpus import make_corpus
from semvar.entropy import empirical_entropy, semantic_spectral_entropy
from semvar.judges import OracleJudge, SBMJudge


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
    assert 0 <= semantic_spectral_entropy(c.texts, j, 3, random_state=seed) <= np.log(3) + 1e-12


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
    from semvar.sweep_table1 import cluster, table1_errors

    # an SBM judge with p = 1, q = 0 is the oracle: every cell has zero error
    df = table1_errors(1.0, 0.0, conventions=("normalized", "unnormalized"), sizes=(30,), iterations=2)
    assert len(df) == 3 * 2 * 2 and df.error.max() == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError, match="convention"):
        cluster(np.eye(3), 2, "random-walk", 0)
    with pytest.raises(ValueError, match="model"):
        table1_errors(0.5, 0.1, model="coin", sizes=(30,), iterations=1)


def test_overlap_block_matrix_hand_computed():
    from semvar.corpus import Corpus
    from semvar.sweep_table1 import overlap_block_matrix

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
