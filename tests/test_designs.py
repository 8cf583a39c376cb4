"""Pair designs (semvar.graph); the judge-budget law is tested in test_pair_budget.py."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar.entropy import empirical_entropy
from semvar.experiments.budget import FrozenJudge, greedy_order_study, sizes_for
from semvar.graph import (
    block_labels,
    collapse_duplicates,
    design_all_pairs,
    design_greedy,
    design_random,
    design_representatives,
    random_pairs,
    refine_partition,
)
from semvar.judges import OracleJudge, SBMJudge
from semvar.spectral import spectral_clusters


class CountingJudge:
    """Oracle that counts the pairs it is asked about."""

    def __init__(self, labels):
        self.inner = OracleJudge(labels)
        self.asked = 0

    def pairs(self, texts, pairs):
        self.asked += len(pairs)
        return self.inner.pairs(texts, pairs)


def test_collapse_duplicates_by_hand():
    u, inv = collapse_duplicates(["Paris", "London", "Paris", "Paris", "Rome"])
    assert u == ["Paris", "London", "Rome"] and inv.tolist() == [0, 1, 0, 0, 2]


def test_all_pairs_design_counts_and_collapse():
    texts = ["a", "b", "a", "c", "b"]  # 3 distinct texts
    j = CountingJudge([0, 1, 0, 1, 1])
    r = design_all_pairs(j, texts)
    assert r.calls == 3 == j.asked and r.n_unique == 3 and r.n_texts == 5
    assert r.fraction == pytest.approx(3 / 10)
    # the unique texts a, b, c have labels 0, 1, 1: only (b, c) is an edge
    assert r.adjacency.toarray().astype(int).tolist() == [[0, 0, 0], [0, 0, 1], [0, 1, 0]]
    full = design_all_pairs(CountingJudge([0, 1, 0, 1, 1]), texts, collapse=False)
    assert full.calls == 10
    assert r.expand([7, 8, 8]).tolist() == [7, 8, 7, 8, 8]


def test_random_pairs_properties():
    assert random_pairs(5, 1.0).shape == (10, 2)
    P = random_pairs(300, 0.1, random_state=0)
    assert np.all(P[:, 0] < P[:, 1])
    assert len({tuple(x) for x in P.tolist()}) == len(P)
    N = 300 * 299 // 2
    assert abs(len(P) - 0.1 * N) < 4 * np.sqrt(N * 0.09)
    assert np.array_equal(P, random_pairs(300, 0.1, random_state=0))


def test_random_design_masks_unasked_pairs():
    labels = block_labels([30, 30])
    r = design_random(OracleJudge(labels), [str(i) for i in range(60)], 0.3, random_state=1)
    assert r.calls == r.pairs.shape[0] == r.observed.nnz // 2
    # every edge lies on an asked pair; asked same-meaning pairs are edges
    assert (r.adjacency.multiply(r.observed)).nnz == r.adjacency.nnz
    same = labels[r.pairs[:, 0]] == labels[r.pairs[:, 1]]
    assert r.adjacency.nnz // 2 == same.sum()


def test_greedy_with_oracle_counts_calls_by_hand():
    # order 0..4, labels 0 1 0 1 2: text 1 asks 1 pair, 2 asks 1, 3 asks 2, 4 asks 2
    r = design_greedy(OracleJudge([0, 1, 0, 1, 2]), list("abcde"))
    assert r.labels.tolist() == [0, 1, 0, 1, 2] and r.calls == 6
    r2 = design_greedy(OracleJudge([0, 1, 0, 1, 2]), list("abcde"), order=[4, 3, 2, 1, 0])
    assert empirical_entropy(r2.labels) == pytest.approx(empirical_entropy([0, 1, 0, 1, 2]))


def test_greedy_depends_on_order_for_a_non_transitive_judge():
    # a ~ b, b ~ c, a !~ c: the order decides between one and two clusters
    V = np.array([[1, 1, 0], [1, 1, 1], [0, 1, 1]])
    j = FrozenJudge(V)
    assert design_greedy(j, list("abc"), order=[0, 1, 2]).labels.tolist() == [0, 0, 1]
    assert design_greedy(j, list("abc"), order=[1, 0, 2]).labels.tolist() == [0, 0, 0]


def test_greedy_collapses_duplicates_and_uses_the_right_labels():
    j = CountingJudge([0, 1, 0, 0])
    r = design_greedy(j, ["x", "y", "x", "x"])
    assert r.labels.tolist() == [0, 1, 0, 0] and r.calls == 1 == j.asked


def test_greedy_calls_at_most_n_times_clusters():
    labels = block_labels([40, 60, 100])
    r = design_greedy(SBMJudge(labels, 0.87, 0.07, random_state=3), [str(i) for i in range(200)], random_state=3)
    k = r.labels.max() + 1
    assert r.calls <= 200 * k


def test_greedy_order_study_varies_under_noise_but_not_for_oracle():
    noisy = greedy_order_study(200, 0.87, 0.07, 6, seed=0)
    exact = greedy_order_study(200, 1.0, 0.0, 3, seed=0)
    # verdicts frozen, only the order changes: the entropy moves by far more than the 0.01 target
    # and stays biased far above the truth in every order (more clusters than meanings)
    assert noisy["entropy"].std() >= 0.01
    assert noisy["err"].min() >= 0.1 and (noisy["n_clusters"] > 3).all()
    assert exact["err"].max() == pytest.approx(0.0, abs=1e-12)


def test_random_design_with_centred_spectrum_recovers_gpt_like_judge():
    labels = block_labels(sizes_for(1000))
    judge = SBMJudge(labels, 0.87, 0.07, random_state=5)
    r = design_random(judge, [str(i) for i in range(1000)], 0.05, random_state=5)
    est = r.expand(spectral_clusters(r.adjacency, 3, laplacian="centered", observed=r.observed, random_state=0))
    assert r.fraction <= 0.06
    assert abs(empirical_entropy(est) - empirical_entropy(labels)) <= 0.02


@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda: collapse_duplicates([]), "texts must not be empty"),
        (lambda: collapse_duplicates(["a", 3]), "texts must all be strings"),
        (lambda: collapse_duplicates("abc"), "a single string"),
        (lambda: random_pairs(5, 1.5), "s must lie"),
        (lambda: random_pairs(0, 0.5), "n must be >= 1"),
        (lambda: design_random(OracleJudge([0, 1]), ["a", "b"], -0.1), "s must lie"),
        (lambda: design_all_pairs(OracleJudge([0]), []), "texts must not be empty"),
        (lambda: design_all_pairs(OracleJudge([0, 1]), ["a", "b"], collapse="yes"), "collapse must be"),
        (lambda: design_greedy(OracleJudge([0, 1]), ["a", "b"], order=[0, 0]), "order must be a permutation"),
        (lambda: FrozenJudge([[1, 0], [1, 1]]), "symmetric square"),
        (lambda: sizes_for(2), "too small"),
        (lambda: design_representatives(OracleJudge([0, 1]), ["a", "b"], extra=-1), "extra must lie"),
        (lambda: design_representatives(OracleJudge([0, 1]), ["a", "b"], representative="best"), "representative must"),
        (lambda: design_representatives(OracleJudge([0, 1]), ["a", "b"], extras="all"), "extras must be one of"),
        (lambda: design_representatives(OracleJudge([0, 1]), ["a", "b"], refine=1), "refine must be"),
        (lambda: design_representatives(OracleJudge([0, 1]), ["a", "b"], rates=(0.1, 0.9)), "p > q"),
        (lambda: design_representatives(OracleJudge([0, 1]), ["a", "b"], rates=0.9), "rates must be None or a pair"),
        (lambda: design_representatives(OracleJudge([0, 1]), ["a", "b"], order=[1, 1]), "order must be a permutation"),
        (lambda: design_representatives(OracleJudge([0]), []), "texts must not be empty"),
        (lambda: refine_partition(3, [[0, 1]], [True], labels=[0, 1]), "one entry per text"),
        (lambda: refine_partition(3, [[0, 3]], [True]), "pairs"),
        (lambda: refine_partition(3, [[0, 1]], [2.0]), "verdicts must be"),
        (lambda: refine_partition(3, [[0, 1]], [True], max_iter=0), "max_iter must be"),
        (lambda: refine_partition(3, [[0, 1]], [True], rates=(0.5, 1.5)), "rates\\[1\\]"),
    ],
)
def test_bad_input(call, msg):
    with pytest.raises(ValueError, match=msg):
        call()


def test_expand_bad_input():
    r = design_all_pairs(OracleJudge([0, 1]), ["a", "b"])
    with pytest.raises(ValueError, match="one entry per unique text"):
        r.expand([0, 1, 2])


# --- the representatives design: greedy against representatives, checked by extra pairs -------------


@pytest.mark.parametrize("extras", ["uncertain", "random"])
@pytest.mark.parametrize("sizes", [[12], [5, 4, 3], [7, 1, 1, 1], [2, 2, 2, 2, 2]])
@pytest.mark.parametrize("extra", [0, 1, 2.5])
def test_representatives_with_oracle_is_exact_within_budget(sizes, extra, extras):
    labels = block_labels(sizes)
    n, k = labels.size, len(sizes)
    j = CountingJudge(labels)
    r = design_representatives(j, [f"t{i}" for i in range(n)], extra=extra, extras=extras, random_state=4,
                               collapse=False)
    # an exact judge: the partition itself, up to names
    assert adjusted_rand(r.labels, labels) == 1.0 and r.labels.max() + 1 == k
    # every call counted, none repeated, within the n K + r n of the docstring
    assert r.calls == j.asked == r.pairs.shape[0] == r.observed.nnz // 2
    assert len({tuple(sorted(p)) for p in r.pairs.tolist()}) == r.calls
    assert r.calls <= n * k + round(extra * n)


def adjusted_rand(a, b):
    from sklearn.metrics import adjusted_rand_score

    return adjusted_rand_score(a, b)


def test_representatives_greedy_pass_counts_calls_by_hand():
    # order 0..4, labels 0 1 0 1 2, largest cluster first, no extra pairs:
    # t1 vs t0 (1 call); t2 vs t0 (1); t3 vs t0 (cluster {0, 2} is larger), then t1 (2); t4 vs t0, t1 (2)
    j = CountingJudge([0, 1, 0, 1, 2])
    r = design_representatives(j, list("abcde"), extra=0)
    assert r.labels.tolist() == [0, 1, 0, 1, 2] and r.calls == 6 == j.asked
    assert r.design == "representatives"
    assert r.pairs.tolist() == [[0, 1], [0, 2], [0, 3], [1, 3], [0, 4], [1, 4]]
    assert r.verdicts.tolist() == [0.0, 1.0, 0.0, 1.0, 0.0, 0.0]


def test_representatives_extra_pairs_are_counted():
    labels = block_labels([6, 6])
    base = design_representatives(CountingJudge(labels), [str(i) for i in range(12)], extra=0, random_state=1,
                                  collapse=False)
    j = CountingJudge(labels)
    more = design_representatives(j, [str(i) for i in range(12)], extra=2, extras="random", random_state=1,
                                  collapse=False)
    # the same greedy pass (same seed, exact judge), then up to 2 new pairs per text: the first text
    # visited was compared with every other in the greedy pass (the largest cluster's representative)
    assert more.pairs[: base.calls].tolist() == base.pairs.tolist()
    assert more.calls == j.asked == base.calls + 22


def test_representatives_extra_pairs_repair_a_wrong_verdict():
    # three meanings of four texts, every pair TRUE inside a meaning except (0, 1); greedy in the given
    # order splits text 1 off (its only comparison with meaning 0 said FALSE), the extra verdicts put it back
    labels = np.repeat([0, 1, 2], 4)
    V = labels[:, None] == labels[None, :]
    V[0, 1] = V[1, 0] = False
    texts = [str(i) for i in range(12)]
    greedy = design_representatives(FrozenJudge(V), texts, extra=0, refine=False)
    assert greedy.labels.max() + 1 == 4
    fixed = design_representatives(FrozenJudge(V), texts, extra=2, random_state=0)
    assert fixed.labels.max() + 1 == 3 and adjusted_rand(fixed.labels, labels) == 1.0


def test_representatives_collapses_duplicates():
    j = CountingJudge([0, 1, 0, 0, 1])
    r = design_representatives(j, ["x", "y", "x", "x", "y"], extra=1)
    assert r.n_unique == 2 and r.calls == 1 == j.asked  # the only pair of two distinct texts
    assert r.labels.tolist() == [0, 1, 0, 0, 1]


def test_representatives_single_text_asks_nothing():
    r = design_representatives(CountingJudge([0, 0]), ["same", "same"], extra=3)
    assert r.calls == 0 and r.labels.tolist() == [0, 0]


def test_refine_partition_by_hand():
    # two meanings of three texts, every pair judged, one wrong FALSE inside the first
    truth = np.array([0, 0, 0, 1, 1, 1])
    from semvar.graph import all_pairs

    P = all_pairs(6)
    v = truth[P[:, 0]] == truth[P[:, 1]]
    v[0] = False
    assert refine_partition(6, P, v, labels=[0, 1, 0, 2, 2, 2]).tolist() == [0, 0, 0, 1, 1, 1]
    # the ICL of the two partitions, by hand: splitting text 1 off is worse
    from scipy.special import betaln, gammaln

    def icl(e_in, n_in, e_out, n_out, sizes):
        k = len(sizes)
        return (betaln(e_in + 1, n_in - e_in + 1) + betaln(e_out + 1, n_out - e_out + 1) + gammaln(k)
                - gammaln(6 + k) + sum(gammaln(s + 1) for s in sizes) + gammaln(k + 1))

    assert icl(5, 6, 0, 9, [3, 3]) > icl(4, 4, 1, 11, [2, 1, 3])
    # unjudged verdicts are no evidence: masking the wrong FALSE changes nothing
    vm = np.ma.MaskedArray(v, mask=np.arange(15) == 0)
    assert refine_partition(6, P, vm).tolist() == [0, 0, 0, 1, 1, 1]


def test_refine_partition_known_rates_decide_a_close_call():
    # a 2-vs-1 split of three texts whose one cross verdict is TRUE: with a judge known to say TRUE
    # across meanings almost never (q = 0.01), that verdict joins them; at q = 0.6 it does not
    P = [[0, 1], [0, 2], [1, 2]]
    v = [True, True, False]
    assert refine_partition(3, P, v, labels=[0, 0, 1], rates=(0.99, 0.01)).max() == 0
    assert refine_partition(3, P, v, labels=[0, 0, 1], rates=(0.99, 0.6)).max() == 1


@settings(max_examples=25, deadline=None)
@given(sizes=st.lists(st.integers(1, 6), min_size=1, max_size=4), extra=st.integers(0, 3), seed=st.integers(0, 10_000))
def test_representatives_oracle_property(sizes, extra, seed):
    labels = block_labels(sizes)
    n = labels.size
    j = CountingJudge(labels)
    r = design_representatives(j, [f"t{i}" for i in range(n)], extra=extra, random_state=seed, collapse=False)
    assert adjusted_rand(r.labels, labels) == 1.0 or n == 1
    assert r.calls == j.asked <= n * len(sizes) + extra * n


def test_representatives_beats_greedy_on_a_noisy_judge():
    # GPT-like judge, 40 texts in 20/10/10: the refined design finds K far more often than greedy
    labels = block_labels([20, 10, 10])
    texts = [str(i) for i in range(40)]
    hits_g = hits_r = 0
    for seed in range(12):
        g = design_greedy(SBMJudge(labels, 0.87, 0.07, random_state=seed), texts, random_state=seed)
        r = design_representatives(SBMJudge(labels, 0.87, 0.07, random_state=seed), texts, extra=3,
                                   random_state=seed)
        hits_g += int(g.labels.max() + 1 == 3)
        hits_r += int(r.labels.max() + 1 == 3)
        assert r.fraction < 0.5
    assert hits_r >= hits_g + 4
