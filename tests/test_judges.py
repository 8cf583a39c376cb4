"""Tests of the judges and of estimating a judge's p and q."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar.graph import all_pairs
from semvar.judges import (
    BlockJudge,
    EmbeddingJudge,
    HardTextJudge,
    Judge,
    OracleJudge,
    SBMJudge,
    estimate_pq,
)


def _fake_encoder(calls):
    def encode(texts):
        calls.append(list(texts))
        # 2-D vectors at an angle set by the text's first character
        ang = np.array([ord(t[0]) - ord("a") for t in texts], dtype=float) * 0.3
        return np.column_stack([np.cos(ang), np.sin(ang)]) * 3.0  # not unit length on purpose

    return encode


def test_embedding_judge_hand_computed_and_cached():
    calls = []
    j = EmbeddingJudge(0.9, encode=_fake_encoder(calls))
    texts = ["a1", "a2", "b", "a1"]
    P = np.array([[0, 1], [0, 2], [1, 3], [0, 3]])
    cos = j.cosine(texts, P)
    # 'a' and 'b' differ by one step of 0.3 rad: cos 0.3 = 0.9553; same letter: 1
    assert cos == pytest.approx([1.0, np.cos(0.3), 1.0, 1.0])
    assert j.pairs(texts, P).tolist() == [True, True, True, True]
    assert EmbeddingJudge(0.96, encode=_fake_encoder([])).pairs(texts, P).tolist() == [True, False, True, True]
    assert calls == [["a1", "a2", "b"]]  # each distinct text embedded once
    j.pairs(texts + ["c"], [[0, 4]])
    assert calls[-1] == ["c"]
    j2 = j.with_threshold(0.99)
    j2.pairs(texts, P)
    assert len(calls) == 2  # shares the cache
    assert isinstance(j, Judge)


def test_embedding_judge_minilm_offline():
    j = EmbeddingJudge(0.8)
    texts = ["John likes running and reading.", "John likes jogging and reading.", "The stock market fell sharply."]
    cos = j.cosine(texts, all_pairs(3))
    assert cos[0] > 0.8 > cos[1] and cos[2] < 0.5
    assert j.pairs(texts, all_pairs(3)).tolist() == [True, False, False]


@pytest.mark.parametrize("kwargs, msg", [(dict(threshold=1.5), "threshold"), (dict(threshold=float("nan")), "threshold"), (dict(model=3), "model"), (dict(encode=3), "encode")])
def test_embedding_judge_bad_init(kwargs, msg):
    with pytest.raises(ValueError, match=msg):
        EmbeddingJudge(**kwargs)


def test_embedding_judge_bad_texts():
    j = EmbeddingJudge(encode=_fake_encoder([]))
    with pytest.raises(ValueError, match="single string"):
        j.embeddings("abc")
    with pytest.raises(ValueError, match="empty"):
        j.embeddings([])
    with pytest.raises(ValueError, match="strings"):
        j.embeddings(["a", 3])
    with pytest.raises(ValueError, match="pairs must index"):
        j.pairs(["a", "b"], [[0, 2]])
    zero = EmbeddingJudge(encode=lambda ts: np.zeros((len(ts), 2)))
    with pytest.raises(ValueError, match="zero vector"):
        zero.pairs(["a", "b"], [[0, 1]])


def test_estimate_pq_hand_computed():
    labels = [0, 0, 0, 1]
    P = all_pairs(4)  # (0,1)(0,2)(0,3)(1,2)(1,3)(2,3): same, same, diff, same, diff, diff
    v = np.array([1, 0, 1, 1, 0, 0], dtype=bool)
    est = estimate_pq(v, labels, P)
    p, q = est
    assert (p, q) == (pytest.approx(2 / 3), pytest.approx(1 / 3))
    assert (est.true_same, est.n_same, est.true_diff, est.n_diff) == (2, 3, 1, 3)
    masked = np.ma.masked_array(v, mask=[0, 1, 0, 0, 0, 0])
    assert tuple(estimate_pq(masked, labels, P)) == (1.0, pytest.approx(1 / 3))
    nan_p = estimate_pq([True], [0, 1], [[0, 1]])
    assert np.isnan(nan_p.p) and nan_p.q == 1.0


@settings(max_examples=15, deadline=None)
@given(st.floats(0, 1), st.floats(0, 1), st.integers(0, 100))
def test_estimate_pq_recovers_sbm(p, q, seed):
    labels = np.repeat([0, 1, 2], [30, 40, 50])
    P = all_pairs(labels.size)
    est = estimate_pq(SBMJudge(labels, p, q, random_state=seed).pairs([""] * labels.size, P), labels, P)
    se_p, se_q = est.standard_errors()
    assert abs(est.p - p) <= 5 * max(se_p, 0.01) and abs(est.q - q) <= 5 * max(se_q, 0.01)


@pytest.mark.parametrize(
    "args, msg",
    [
        (([1, 0], [0, 0, 1], [[0, 1]]), "one entry per pair"),
        (([1], [0, 0], [[0, 2]]), "pairs must index"),
        (([2], [0, 0], [[0, 1]]), "boolean or 0/1"),
        (([1], [], [[0, 1]]), "labels must not be empty"),
    ],
)
def test_estimate_pq_bad_input(args, msg):
    with pytest.raises(ValueError, match=msg):
        estimate_pq(*args)


def test_block_judge_confuses_chosen_meanings():
    labels = np.repeat([0, 1, 2], 20)
    B = np.array([[0.9, 0.9, 0.0], [0.9, 0.9, 0.0], [0.0, 0.0, 0.9]])
    P = all_pairs(60)
    v = BlockJudge(labels, B, random_state=1).pairs([""] * 60, P)
    cross01 = (labels[P[:, 0]] == 0) & (labels[P[:, 1]] == 1)
    cross02 = (labels[P[:, 0]] == 0) & (labels[P[:, 1]] == 2)
    assert v[cross01].mean() > 0.8 and v[cross02].sum() == 0


@pytest.mark.parametrize(
    "B, msg",
    [
        (np.eye(2), "at least 3 rows"),
        (np.full((3, 3), 1.5), "probabilities"),
        (np.triu(np.ones((3, 3))), "symmetric"),
        (np.full((3, 3), np.nan), "NaN"),
    ],
)
def test_block_judge_bad_input(B, msg):
    with pytest.raises(ValueError, match=msg):
        BlockJudge([0, 1, 2], B)


def test_sbm_and_oracle_bad_input():
    with pytest.raises(ValueError, match="p must lie in"):
        SBMJudge([0, 1], 1.2, 0.1)
    with pytest.raises(ValueError, match="q must lie in"):
        SBMJudge([0, 1], 0.5, -0.1)
    with pytest.raises(ValueError, match="labels for 2 texts"):
        OracleJudge([0, 1]).pairs(["a", "b", "c"], [[0, 1]])


def test_hard_text_judge():
    labels = np.repeat([0, 1], 50)
    j = HardTextJudge(labels, p=1.0, q=0.0, hard_fraction=0.2, random_state=0)
    P = all_pairs(100)
    v = j.pairs([""] * 100, P)
    hard_pair = j.hard[P[:, 0]] | j.hard[P[:, 1]]
    same = labels[P[:, 0]] == labels[P[:, 1]]
    assert v[same & ~hard_pair].all() and not v[hard_pair].any() and not v[~same].any()
    assert 0.05 < j.hard.mean() < 0.35
    # the calibration identity (1-h)^2 p + (1-(1-h)^2) p_hard = p_overall, by hand for h = 0.5, p_hard = 0
    assert HardTextJudge.p_for(0.2, 0.0, 0.5) == pytest.approx(0.8)
    with pytest.raises(ValueError, match="no easy-pair p"):
        HardTextJudge.p_for(0.9, 0.0, 0.5)
    with pytest.raises(ValueError, match="hard_fraction"):
        HardTextJudge(labels, 0.5, 0.1, hard_fraction=1.5)


# --------------------------------------------------------------------------- word tokens and ROUGE-L on tokens
def test_word_tokens_are_the_tokens_the_text_judges_read():
    from semvar.judges import LexicalJudge, RougeJudge, word_tokens

    text = "The Eiffel-Tower, in PARIS: it's 330 m_tall!"
    assert word_tokens(text) == ["the", "eiffel", "tower", "in", "paris", "it", "s", "330", "m_tall"]
    assert word_tokens(text) == RougeJudge().tokens(text)
    assert frozenset(word_tokens(text)) == LexicalJudge().tokens(text)
    assert word_tokens("  ... ") == []
    with pytest.raises(ValueError, match="text must be a string, got bytes"):
        word_tokens(b"Paris")


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["a", "B", "c", "Paris", "paris", "x-y"]), max_size=6),
       st.lists(st.sampled_from(["a", "B", "c", "Paris", "paris", "x-y"]), max_size=6))
def test_rouge_l_tokens_is_rouge_l_on_word_tokens(a, b):
    from semvar.judges import rouge_l, rouge_l_tokens, word_tokens

    ta, tb = word_tokens(" ".join(a)), word_tokens(" ".join(b))
    assert rouge_l_tokens(ta, tb) == rouge_l(" ".join(a), " ".join(b)) == rouge_l_tokens(tb, ta)


def test_rouge_l_tokens_by_hand_and_bad_input():
    from semvar.judges import rouge_l_tokens

    assert rouge_l_tokens(["the", "cat", "sat"], ["the", "cat"]) == pytest.approx(2 * 2 / 5)
    assert rouge_l_tokens([], []) == 1.0 and rouge_l_tokens([], ["a"]) == 0.0
    assert rouge_l_tokens(("a", "b"), ["b", "a"]) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="a must be a sequence of strings, got a single string"):
        rouge_l_tokens("the cat", ["the"])
    with pytest.raises(ValueError, match="b must all be strings; item 1 is int"):
        rouge_l_tokens(["the"], ["the", 3])


# --------------------------------------------------------------------------- labels of one kind; masks
@pytest.mark.parametrize("make", [OracleJudge, lambda lab: SBMJudge(lab, 1.0, 0.0, random_state=0),
                                  lambda lab: HardTextJudge(lab, 1.0, 0.0, hard_fraction=0.0, random_state=0)])
def test_labelled_judges_compare_labels_as_values_of_one_kind(make):
    with pytest.raises(ValueError, match=r"labels must hold labels of one kind"):
        make([1, "1", 2])  # were one meaning ("1" == "1" in numpy's str dtype)
    with pytest.raises(ValueError, match=r"labels holds None at position 1"):
        make(["a", None])
    with pytest.raises(ValueError, match=r"labels is a masked array with 1 masked entry"):
        make(np.ma.MaskedArray([0, 0, 1], mask=[0, 0, 1]))
    j = make(["a", "a\x00", "a"])  # three texts, two meanings
    assert j.pairs(["x", "y", "z"], [[0, 1], [0, 2]]).tolist() == [False, True]


def test_estimate_pq_compares_labels_as_values_of_one_kind():
    P = [[0, 1], [0, 2], [1, 2]]
    with pytest.raises(ValueError, match=r"labels must hold labels of one kind"):
        estimate_pq([True, False, False], [1, "1", 2], P)
    with pytest.raises(ValueError, match=r"labels holds None at position 2"):
        estimate_pq([True, False, False], ["a", "a", None], P)
    est = estimate_pq([True, False, False], ["a", "a\x00", "b"], P)  # three meanings: every pair different
    assert (est.n_same, est.n_diff, est.true_diff) == (0, 3, 1)


def test_estimate_pq_honours_unjudged_verdicts_and_refuses_other_masks():
    labels, P = [0, 0, 1, 1], all_pairs(4)
    v = np.ma.MaskedArray([True, False, False, False, False, True], mask=[0, 1, 1, 1, 1, 0])
    est = estimate_pq(v, labels, P)  # the two judged pairs are both same-meaning pairs judged TRUE
    assert (est.p, est.n_same, est.n_diff) == (1.0, 2, 0)
    with pytest.raises(ValueError, match=r"labels is a masked array"):
        estimate_pq([True] * 6, np.ma.MaskedArray(labels, mask=[0, 0, 0, 1]), P)
    with pytest.raises(ValueError, match=r"pairs is a masked array"):
        estimate_pq([True] * 6, labels, np.ma.MaskedArray(P, mask=np.eye(6, 2, dtype=bool)))


def test_block_judge_refuses_a_masked_matrix_and_mixed_labels():
    with pytest.raises(ValueError, match=r"B is a masked array"):
        BlockJudge([0, 1], np.ma.MaskedArray(np.eye(2), mask=np.eye(2, dtype=bool)))
    with pytest.raises(ValueError, match=r"labels must hold labels of one kind|integers 0..K-1"):
        BlockJudge([0, "1"], np.eye(2))
