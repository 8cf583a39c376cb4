"""Tests of semvar.measures (the peers' uncertainty measures) and the answer-string judges of semvar.judges."""

from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar import measures as M
from semvar.entropy import empirical_entropy
from semvar.judges import ExactMatchJudge, Judge, RougeJudge, normalize_answer, rouge_l
from semvar.pipeline import graph_entropy, semantic_spectral_entropy
from semvar.similarity import self_similarity

PARIS = np.array([[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]], dtype=bool)  # Paris, Paris, London, London


def partition(labels) -> np.ndarray:
    lab = np.asarray(labels)
    return lab[:, None] == lab[None, :]


def cliques(*sizes) -> np.ndarray:
    return partition(np.repeat(np.arange(len(sizes)), sizes))


labels_st = st.lists(st.integers(0, 4), min_size=1, max_size=9)


@st.composite
def symmetric_w(draw, min_n=1, max_n=7):
    n = draw(st.integers(min_n, max_n))
    vals = draw(st.lists(st.floats(0, 1), min_size=n * n, max_size=n * n))
    W = np.array(vals).reshape(n, n)
    W = (W + W.T) / 2
    np.fill_diagonal(W, 1.0)
    return W


@st.composite
def verdict_matrix(draw, min_n=1, max_n=7):
    n = draw(st.integers(min_n, max_n))
    bits = draw(st.lists(st.booleans(), min_size=n * n, max_size=n * n))
    return np.array(bits).reshape(n, n)


# --------------------------------------------------------------------------- oracle cases
def test_paris_london_by_hand():
    assert M.greedy_clusters(PARIS).tolist() == [0, 0, 1, 1]
    assert M.semantic_entropy(PARIS) == pytest.approx(math.log(2), abs=1e-15)
    assert M.num_semantic_sets(PARIS) == 2
    assert M.spectral_entropy(PARIS) == pytest.approx(math.log(2), abs=1e-12)
    assert M.eigv(PARIS) == pytest.approx(2.0, abs=1e-12)
    assert M.ecc(PARIS) == pytest.approx(1.0, abs=1e-12)
    assert M.deg(PARIS) == 0.5  # degrees 2 each: 1 - 8/16


def test_semantic_entropy_of_three_and_one():
    V = partition([0, 0, 0, 1])
    assert M.semantic_entropy(V) == pytest.approx(-(0.75 * math.log(0.75) + 0.25 * math.log(0.25)), abs=1e-15)
    assert M.semantic_entropy(np.eye(5, dtype=bool)) == pytest.approx(math.log(5), abs=1e-15)
    assert M.semantic_entropy(np.ones((5, 5))) == 0.0
    assert M.num_semantic_sets(np.eye(5)) == 5 and M.num_semantic_sets([[1]]) == 1


def test_greedy_depends_on_order_for_a_non_transitive_judge():
    # a ~ b, b ~ c, a !~ c: the representative rule of the docstring
    V = np.array([[1, 1, 0], [1, 1, 1], [0, 1, 1]], dtype=bool)
    assert M.greedy_clusters(V).tolist() == [0, 0, 1]  # order a, b, c: {a, b}, {c}
    perm = [1, 0, 2]  # order b, a, c: c joins b's cluster through the representative b
    assert M.greedy_clusters(V[np.ix_(perm, perm)]).tolist() == [0, 0, 0]


def test_greedy_needs_both_directions_and_ignores_the_diagonal():
    V = np.array([[0, 1, 1], [0, 0, 0], [1, 0, 0]], dtype=bool)  # 0->1 one way only; 0<->2 both ways
    assert M.greedy_clusters(V).tolist() == [0, 1, 0]
    assert M.greedy_clusters(V | np.eye(3, dtype=bool)).tolist() == [0, 1, 0]
    for one_way in ([[1, 1], [0, 1]], [[1, 0], [1, 1]]):  # either direction alone is not enough
        assert M.greedy_clusters(one_way).tolist() == [0, 1]
        assert M.semantic_entropy(one_way) == pytest.approx(math.log(2), abs=1e-15)


@pytest.mark.parametrize("n", [1, 2, 5, 9])
def test_identity_and_complete_graphs(n):
    I = np.eye(n)
    assert M.eigv(I) == pytest.approx(n, abs=1e-12)  # L = 0: all eigenvalues 0
    assert M.deg(I) == pytest.approx(1 - 1 / n, abs=1e-15)  # degree 1 each
    assert M.ecc(I) == pytest.approx(math.sqrt(n - 1), abs=1e-12)  # ||(I - J/n) V||_F, V orthogonal
    J = np.ones((n, n))
    assert M.eigv(J) == pytest.approx(1.0, abs=1e-12)  # L = I - J/n: eigenvalues 0 once, 1
    assert M.deg(J) == 0.0
    assert M.ecc(J) == pytest.approx(0.0, abs=1e-12)  # one eigenvector, constant rows


@pytest.mark.parametrize("sizes", [(2, 2), (3, 1), (1, 1, 1), (4, 2, 3), (5,)])
def test_disjoint_cliques(sizes):
    W = cliques(*sizes)
    K, n = len(sizes), sum(sizes)
    assert M.eigv(W) == pytest.approx(K, abs=1e-10)  # K zero eigenvalues, the others 1 + ...
    assert M.ecc(W) == pytest.approx(math.sqrt(K - 1), abs=1e-10)  # tr(C P) = K - 1
    assert M.deg(W) == pytest.approx(1 - sum(s * s for s in sizes) / n**2, abs=1e-15)
    assert M.num_semantic_sets(W) == K


@pytest.mark.parametrize("w", [0.0, 0.2, 0.5, 0.8, 0.85, 1.0])
def test_two_texts_weighted_by_hand(w):
    # W = [[1, w], [w, 1]]: L has eigenvalues 0 and 2w / (1 + w)
    W = np.array([[1.0, w], [w, 1.0]])
    assert M.eigv(W) == pytest.approx(2 / (1 + w), abs=1e-12)
    assert M.deg(W) == pytest.approx((1 - w) / 2, abs=1e-15)
    kept_both = 2 * w / (1 + w) < 0.9  # w < 9/11
    assert M.ecc(W) == pytest.approx(1.0 if kept_both else 0.0, abs=1e-12)
    assert M.ecc(W, threshold=2.0) == pytest.approx(1.0, abs=1e-12)  # both eigenvalues (< 2) kept


def test_diagonal_is_ignored_and_isolated_texts_are_their_own_meaning():
    A = cliques(3, 1).astype(float)
    Z = A.copy()
    np.fill_diagonal(Z, 0.0)  # a judged graph: text 3 has degree 0
    for f in (M.eigv, M.ecc, M.deg):
        assert f(Z) == f(A)
    assert M.eigv(Z) == pytest.approx(2.0, abs=1e-12)
    assert M.ecc(Z) == pytest.approx(1.0, abs=1e-12)
    assert M.semantic_entropy(Z) == M.semantic_entropy(A)
    assert M.spectral_entropy(Z) == M.spectral_entropy(A) == pytest.approx(empirical_entropy([0, 0, 0, 1]))
    assert M.eigv(np.zeros((3, 3))) == pytest.approx(3.0)  # every text isolated


def test_spectral_entropy_is_graph_entropy_of_the_bidirectional_graph():
    rng = np.random.default_rng(3)
    V = rng.random((12, 12)) < 0.5
    A = (V & V.T).astype(float)
    np.fill_diagonal(A, 0)
    assert M.spectral_entropy(V, random_state=5) == graph_entropy(A, "auto", random_state=5)
    assert M.spectral_entropy(V, k=2, random_state=5) == graph_entropy(A, 2, random_state=5)


def test_self_similarity_uncertainty():
    E = [[1, 0], [0, 1], [-1, 0]]  # cosines 0, -1, 0: SS = -1/3
    assert M.self_similarity_uncertainty(E) == pytest.approx(4 / 3, abs=1e-15)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(7, 5))
    assert M.self_similarity_uncertainty(X) == 1.0 - self_similarity(X)
    assert M.self_similarity_uncertainty([[1, 2], [2, 4]]) == pytest.approx(0.0, abs=1e-15)


# --------------------------------------------------------------------------- ROUGE-L and the judges
def _lcs_brute(a, b) -> int:
    """Longest common subsequence by trying every subsequence of the shorter list (an independent oracle)."""
    a, b = (a, b) if len(a) <= len(b) else (b, a)
    for r in range(len(a), 0, -1):
        for sub in itertools.combinations(a, r):
            it = iter(b)
            if all(any(x == y for y in it) for x in sub):
                return r
    return 0


@pytest.mark.parametrize(
    "a, b, expected",
    [
        ("the cat sat on the mat", "the cat is on the mat", 2 * 5 / 12),  # LCS: the cat on the mat
        ("A B C D", "b d", 2 * 2 / 6),  # case ignored; LCS b d
        ("police killed the gunman", "the gunman killed police", 2 * 2 / 8),  # Lin (2004) section 3.1's example pair
        ("Paris", "Paris.", 1.0),
        ("Paris", "London", 0.0),
        ("", "", 1.0),
        ("", "word", 0.0),
        ("x y z", "z y x", 2 / 6),
    ],
)
def test_rouge_l_oracle(a, b, expected):
    assert rouge_l(a, b) == pytest.approx(expected, abs=1e-15)
    assert rouge_l(b, a) == rouge_l(a, b)


words = st.lists(st.sampled_from(["a", "b", "c", "d", "Paris"]), max_size=7)


@settings(max_examples=150, deadline=None)
@given(words, words)
def test_rouge_l_matches_brute_force_lcs(a, b):
    expected = 1.0 if not a and not b else 2 * _lcs_brute([w.lower() for w in a], [w.lower() for w in b]) / (len(a) + len(b))
    assert rouge_l(" ".join(a), " ".join(b)) == pytest.approx(expected, abs=1e-15)


def test_lexical_similarity_uncertainty_by_hand():
    texts = ["Paris", "Paris", "London", "London"]  # ROUGE-L 1 for two of the six pairs
    assert M.lexical_similarity_uncertainty(texts) == pytest.approx(1 - 2 / 6, abs=1e-15)
    assert M.lexical_similarity_uncertainty(["a b", "a b"]) == 0.0
    assert M.lexical_similarity_uncertainty(["a b", "c d"]) == 1.0


@pytest.mark.parametrize(
    "text, expected",
    [
        ("The Cat.", "cat"),
        ("  an   apple ", "apple"),
        ("U.S.A.", "usa"),
        ("theater", "theater"),  # an article only as a whole word
        ("A, the; AN!", ""),
        ("Paris (France)", "paris france"),
        ("the-end", "theend"),  # punctuation goes first, so "the" is no longer a word
    ],
)
def test_normalize_answer(text, expected):
    assert normalize_answer(text) == expected


def test_exact_match_judge():
    j = ExactMatchJudge()
    texts = ["The Eiffel Tower.", "eiffel tower", "an Eiffel  tower!", "Tower Eiffel"]
    assert j.pairs(texts, [[0, 1], [1, 2], [0, 3]]).tolist() == [True, True, False]
    assert j.pairs(texts, np.zeros((0, 2), dtype=int)).shape == (0,)
    assert isinstance(j, Judge) and repr(j) == "ExactMatchJudge()"
    h = semantic_spectral_entropy(["Paris", "paris.", "London", "the London"], j, random_state=0)
    assert h == pytest.approx(math.log(2), abs=1e-12)


def test_rouge_judge():
    j = RougeJudge(0.5)
    texts = ["it is Paris", "Paris it is", "London"]
    s = j.score(texts, [[0, 1], [0, 2], [1, 1]])
    assert s.tolist() == pytest.approx([2 / 3, 0.0, 1.0], abs=1e-15)
    assert j.pairs(texts, [[0, 1], [0, 2]]).tolist() == [True, False]
    assert RougeJudge(2 / 3).pairs(texts, [[0, 1]]).tolist() == [True]
    assert RougeJudge(0.67).pairs(texts, [[0, 1]]).tolist() == [False]
    assert isinstance(j, Judge) and repr(j) == "RougeJudge(threshold=0.5)"


# --------------------------------------------------------------------------- properties
@settings(max_examples=80, deadline=None)
@given(labels_st, st.randoms(use_true_random=False))
def test_partition_verdicts_give_the_label_entropy_in_any_order(labels, rnd):
    V = partition(labels)
    n = len(labels)
    h = M.semantic_entropy(V)
    assert h == pytest.approx(empirical_entropy(labels), abs=1e-12)
    assert 0.0 <= h <= math.log(n) + 1e-12
    assert M.num_semantic_sets(V) == len(set(labels))
    assert M.eigv(V) == pytest.approx(len(set(labels)), abs=1e-8)  # EigV = NumSet for an exact relation
    perm = list(range(n))
    rnd.shuffle(perm)
    Vp = V[np.ix_(perm, perm)]
    assert M.semantic_entropy(Vp) == pytest.approx(h, abs=1e-12)
    assert M.num_semantic_sets(Vp) == M.num_semantic_sets(V)


@settings(max_examples=60, deadline=None)
@given(labels_st, st.integers(0, 4))
def test_refining_a_partition_raises_semantic_entropy(labels, new):
    # split one meaning class in two (the texts of class `new` at even positions get a fresh label)
    lab = np.asarray(labels)
    fine = lab.copy()
    idx = np.flatnonzero(lab == new)[::2]
    fine[idx] = 99
    assert M.semantic_entropy(partition(fine)) >= M.semantic_entropy(partition(lab)) - 1e-12
    assert M.num_semantic_sets(partition(fine)) >= M.num_semantic_sets(partition(lab))


@settings(max_examples=100, deadline=None)
@given(verdict_matrix(max_n=9))
def test_greedy_clusters_satisfy_the_representative_rule(V):
    lab = M.greedy_clusters(V)
    both = V & V.T
    reps = [int(np.flatnonzero(lab == c)[0]) for c in range(lab.max() + 1)]
    assert reps == sorted(reps)  # clusters numbered in order of first appearance
    for i, c in enumerate(lab):
        r = reps[c]
        assert i == r or both[i, r]  # equivalent both ways to its representative ...
        assert not any(both[i, reps[d]] for d in range(c) if reps[d] < i)  # ... and to no earlier one


@settings(max_examples=80, deadline=None)
@given(verdict_matrix())
def test_bounds_for_any_verdicts(V):
    n = V.shape[0]
    assert 0.0 <= M.semantic_entropy(V) <= math.log(n) + 1e-12
    assert 1 <= M.num_semantic_sets(V) <= n
    out = M.uncertainty_measures(verdicts=V)
    assert list(out) == [k for k, m in M.MEASURES.items() if m.needs == "verdicts"]  # each verdict measure, in order
    assert all(math.isfinite(v) for v in out.values())
    assert 0.0 <= out["spectral_entropy"] <= math.log(n) + 1e-12


@settings(max_examples=80, deadline=None)
@given(symmetric_w(), st.randoms(use_true_random=False))
def test_graph_measures_bounds_and_permutation_invariance(W, rnd):
    n = W.shape[0]
    e, c, d = M.eigv(W), M.ecc(W), M.deg(W)
    assert 1 - 1e-9 <= e <= n + 1e-9
    assert -1e-12 <= c <= math.sqrt(n - 1) + 1e-9
    assert -1e-15 <= d <= 1 - 1 / n + 1e-15
    perm = list(range(n))
    rnd.shuffle(perm)
    Wp = W[np.ix_(perm, perm)]
    assert M.eigv(Wp) == pytest.approx(e, abs=1e-9)
    assert M.deg(Wp) == pytest.approx(d, abs=1e-12)
    # Ecc is basis-free except when an eigenvalue sits at the threshold; keep away from it
    lam = np.linalg.eigvalsh(M._normalized_laplacian(W))
    if np.all(np.abs(lam - M.ECC_THRESHOLD) > 1e-6):
        assert M.ecc(Wp) == pytest.approx(c, abs=1e-7)


@settings(max_examples=60, deadline=None)
@given(symmetric_w(min_n=2), st.floats(0.0, 1.0))
def test_deg_falls_as_similarity_rises(W, t):
    More = W + t * (1 - W)  # every similarity moved towards 1
    assert M.deg(More) <= M.deg(W) + 1e-15


@settings(max_examples=50, deadline=None)
@given(symmetric_w(min_n=2))
def test_ecc_is_the_trace_of_centred_projector(W):
    n = W.shape[0]
    lam, U = np.linalg.eigh(M._normalized_laplacian(W))
    if np.any(np.abs(lam - M.ECC_THRESHOLD) < 1e-6):
        return
    P = U[:, lam < M.ECC_THRESHOLD] @ U[:, lam < M.ECC_THRESHOLD].T
    C = np.eye(n) - np.ones((n, n)) / n
    assert M.ecc(W) == pytest.approx(math.sqrt(max(0.0, np.trace(C @ P))), abs=1e-7)
    assert M.ecc(W, threshold=2.0) == pytest.approx(math.sqrt(n - 1), abs=1e-7)  # every eigenvalue is below 2


def test_citation_keys_are_in_the_bibliography():
    from pathlib import Path

    bib = (Path(__file__).resolve().parents[1] / "book" / "references.bib").read_text(encoding="utf-8")
    for m in M.MEASURES.values():
        assert "{" + m.citation + "," in bib, m.citation


# --------------------------------------------------------------------------- the registry
def test_registry_shape():
    # the measures of the module notes' table are the registered ones, no more and no fewer
    rules = [i for i, line in enumerate(M.__doc__.splitlines()) if line.startswith("====")]
    table = M.__doc__.splitlines()[rules[1] + 1:rules[2]]
    documented = {key for line in table for key in re.findall(r"``(\w+)``", line.split("  ")[0])}
    assert len(M.MEASURES) >= 8 and documented == set(M.MEASURES)
    for key, m in M.MEASURES.items():
        assert m.name == key and m.needs in M.NEEDS and callable(m.function) and m.label and m.citation
    with pytest.raises(ValueError, match="needs must be one of"):
        M.Measure("x", len, "graph", "x", "x", len)


def _inputs():
    """One input of each kind, eight texts: a symmetric verdict matrix, similarities, embeddings, texts."""
    rng = np.random.default_rng(1)
    V = rng.random((8, 8)) < 0.4
    S = rng.random((8, 8))
    T = [" ".join(rng.choice(["a", "b", "c"], size=3)) for _ in range(8)]
    return {"verdicts": V | V.T, "similarity": (S + S.T) / 2, "embeddings": rng.normal(size=(8, 4)), "texts": T}


@pytest.mark.parametrize("key", list(M.MEASURES))
def test_each_registered_measure_is_its_public_function(key):
    """uncertainty_measures computes each registered measure as its public function does, on the same input."""
    m, x = M.MEASURES[key], _inputs()[M.MEASURES[key].needs]
    seed = {"random_state": 4} if m._seeded else {}
    assert M.uncertainty_measures(**{m.needs: x}, names=[key], random_state=4) == {key: m.function(x, **seed)}
    assert key in M.__doc__ and m.function.__name__ in M.__all__  # a row of the module notes; exported


@pytest.mark.parametrize("key", list(M.MEASURES))
def test_each_registered_measure_is_on_the_api_page(key):
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "book" / "api" / "spectral.md").read_text(encoding="utf-8")
    section = page.split("## `semvar.measures`", 1)[1].split("\n## ", 1)[0]
    assert f"   {M.MEASURES[key].function.__name__}\n" in section, "add it to the autosummary of semvar.measures"


def test_uncertainty_measures_computes_every_measure_of_the_inputs_in_order():
    given = _inputs()
    out = M.uncertainty_measures(**given, random_state=4)
    assert list(out) == list(M.MEASURES)
    for key, m in M.MEASURES.items():
        if not m._seeded:  # a seeded one draws from the shared generator: its own test above
            assert out[key] == m.function(given[m.needs]), key
    weighted = [k for k, m in M.MEASURES.items() if m.needs == "similarity"][::-1]
    sub = M.uncertainty_measures(similarity=given["similarity"], names=weighted)
    assert list(sub) == weighted and sub[weighted[0]] == out[weighted[0]]


def test_uncertainty_measures_use_the_bidirectional_graph():
    V = np.array([[1, 1, 0], [0, 1, 0], [0, 0, 1]], dtype=bool)  # 0 -> 1 one way only: three meanings
    out = M.uncertainty_measures(verdicts=V)
    assert out["num_semantic_sets"] == 3.0 and out["eigv"] == pytest.approx(3.0)
    assert out["deg"] == M.deg(np.eye(3))


def test_sparse_verdicts():
    assert M.semantic_entropy(sp.csr_array(PARIS.astype(float))) == M.semantic_entropy(PARIS)
    assert M.eigv(sp.csr_array(PARIS.astype(float))) == M.eigv(PARIS)


# --------------------------------------------------------------------------- bad input
BAD_SQUARE = [
    ("not square", np.ones((2, 3)), "square"),
    ("empty", np.zeros((0, 0)), "empty"),
    ("1-D", np.ones(3), "2-D"),
    ("NaN", np.array([[1.0, np.nan], [np.nan, 1.0]]), "NaN"),
    ("strings", np.array([["a", "b"], ["b", "a"]]), "numbers"),
    ("complex", np.array([[1, 1j], [1j, 1]]), "real"),
    ("objects", [[None, 1], [1, None]], "NaN"),
    ("dicts", [[{}, 1], [1, {}]], "numeric"),
]


@pytest.mark.parametrize("f", [M.greedy_clusters, M.semantic_entropy, M.num_semantic_sets, M.spectral_entropy])
@pytest.mark.parametrize("case, bad, msg", BAD_SQUARE + [("not 0/1", [[1, 0.5], [0.5, 1]], "0/1")])
def test_bad_verdicts(f, case, bad, msg):
    with pytest.raises(ValueError, match=msg):
        f(bad)


@pytest.mark.parametrize("f", [M.eigv, M.ecc, M.deg])
@pytest.mark.parametrize(
    "case, bad, msg",
    BAD_SQUARE + [("above 1", [[1, 2], [2, 1]], r"\[0, 1\]"), ("negative", [[1, -0.1], [-0.1, 1]], r"\[0, 1\]"),
                  ("asymmetric", [[1, 0.2], [0.7, 1]], "symmetric")],
)
def test_bad_similarity(f, case, bad, msg):
    with pytest.raises(ValueError, match=msg):
        f(bad)


def test_bad_other_arguments():
    with pytest.raises(ValueError, match="threshold"):
        M.ecc(np.eye(2), threshold=0)
    with pytest.raises(ValueError, match="threshold"):
        M.ecc(np.eye(2), threshold="0.9")
    with pytest.raises(ValueError, match="k must"):
        M.spectral_entropy(PARIS, k=9)
    with pytest.raises(ValueError, match="random_state"):
        M.spectral_entropy(PARIS, random_state=-1)
    with pytest.raises(ValueError, match="zero vector"):
        M.self_similarity_uncertainty([[0, 0], [1, 0]])
    with pytest.raises(ValueError, match="at least 2 rows"):
        M.self_similarity_uncertainty([[1, 0]])
    with pytest.raises(ValueError, match="at least two"):
        M.lexical_similarity_uncertainty(["one"])
    with pytest.raises(ValueError, match="single string"):
        M.lexical_similarity_uncertainty("ab")
    with pytest.raises(ValueError, match="strings"):
        M.lexical_similarity_uncertainty(["a", 3])
    with pytest.raises(ValueError, match="must be a string"):
        rouge_l("a", None)
    with pytest.raises(ValueError, match="must be a string"):
        normalize_answer(b"bytes")
    with pytest.raises(ValueError, match="threshold"):
        RougeJudge(1.5)
    with pytest.raises(ValueError, match="pairs"):
        ExactMatchJudge().pairs(["a", "b"], [[0, 2]])
    with pytest.raises(ValueError, match="pairs"):
        RougeJudge().pairs(["a", "b"], [[0.0, 1.0]])
    with pytest.raises(ValueError, match="strings"):
        ExactMatchJudge().pairs(["a", None], [[0, 1]])


@pytest.mark.parametrize(
    "kwargs, msg",
    [
        ({}, "at least one of"),
        ({"verdicts": PARIS, "names": "eigv"}, "sequence of measure names"),
        ({"verdicts": PARIS, "names": 3}, "sequence of measure names"),
        ({"verdicts": PARIS, "names": ["eigv", "nope"]}, "measure names from"),
        ({"verdicts": PARIS, "names": [None]}, "measure names from"),
        ({"verdicts": PARIS, "names": ["eigv_w"]}, "needs similarity="),
        ({"verdicts": PARIS, "names": ["eigv", "eigv"]}, "repeat"),
        ({"verdicts": PARIS, "similarity": np.eye(3)}, "same number of texts"),
        ({"verdicts": PARIS, "texts": ["a", "b"]}, "same number of texts"),
        ({"verdicts": PARIS, "random_state": "seed"}, "random_state"),
        ({"verdicts": [[1, 2], [2, 1]]}, "0/1"),
        ({"similarity": [[1, 2], [2, 1]]}, r"similarity must hold similarities"),
        ({"embeddings": [[np.nan, 1], [1, 0]]}, "NaN"),
        ({"texts": ["only one"]}, "at least two"),
    ],
)
def test_uncertainty_measures_bad_input(kwargs, msg):
    with pytest.raises(ValueError, match=msg):
        M.uncertainty_measures(**kwargs)


def test_public_names_resolve_and_core_does_not_import_experiments():
    import subprocess
    import sys

    assert all(hasattr(M, name) for name in M.__all__)
    code = "import sys, semvar.measures; print(sorted(m for m in sys.modules if m.startswith(('semvar.experiments', 'semvar.claims'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_one_decorated_function_is_a_new_measure_everywhere(monkeypatch):
    """A measure added with the decorator alone is listed and computed by uncertainty_measures, after the others."""
    monkeypatch.setattr(M, "MEASURES", dict(M.MEASURES))  # the package's registry, restored afterwards

    def share_of_true(verdicts):
        """A stand-in measure: the share of TRUE verdicts."""
        return float(np.mean(verdicts))

    @M.measure("share_of_true", share_of_true, "verdicts", "share TRUE", "liu2025semantic")
    def _share(V):
        return float(np.mean(V))

    V = np.kron(np.eye(2), np.ones((3, 3))).astype(bool)
    out = M.uncertainty_measures(verdicts=V, random_state=0)
    assert list(out)[-1] == "share_of_true" and out["share_of_true"] == pytest.approx(0.5)
    with pytest.raises(ValueError, match="registered already"):
        M.measure("eigv", M.eigv, "verdicts", "EigV", "lin2024generating")(lambda V: 0.0)
