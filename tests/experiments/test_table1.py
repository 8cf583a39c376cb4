"""Tests of semvar.experiments.table1 (Liu's Table 1 and Figure 1 under simulated judges) on one small cell."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from semvar.corpus import make_corpus
from semvar.experiments import table1 as T
from semvar.graph import block_labels, sample_sbm


@pytest.mark.parametrize("convention", T.CONVENTIONS)
def test_every_convention_recovers_three_cliques(convention):
    A = sample_sbm([10, 12, 8], 1.0, 0.0, random_state=0)
    labels = T.cluster(A, 3, convention, random_state=0)
    assert adjusted_rand_score(block_labels([10, 12, 8]), labels) == pytest.approx(1.0)


def test_an_unknown_convention_is_refused():
    with pytest.raises(ValueError, match="convention must be one of"):
        T.cluster(sample_sbm([4, 4], 1.0, 0.0, random_state=0), 2, "laplacian", random_state=0)


@pytest.mark.parametrize("q", [0.05, 0.6])
def test_the_overlap_judge_has_the_papers_overall_false_rate(q):
    c = make_corpus(40, (1, 1, 1, 1, 1), m=2, random_state=0)   # 30% of the different-meaning pairs share a hobby
    B = T.overlap_block_matrix(c, 0.9, q)
    K = c.sizes.size
    assert np.allclose(np.diag(B), 0.9) and np.allclose(B, B.T)
    # the expected share of TRUE over different-meaning text pairs, weighted by how many such pairs each block pair has
    cross = np.outer(c.sizes, c.sizes).astype(float)
    off = ~np.eye(K, dtype=bool)
    assert (B[off] * cross[off]).sum() / cross[off].sum() == pytest.approx(q)
    overlap = np.array([[bool(c.meanings[a] & c.meanings[b]) for b in range(K)] for a in range(K)]) & off
    f = cross[overlap].sum() / cross[off].sum()
    assert f == pytest.approx(0.3)
    if q <= f:   # every false TRUE on meanings that share a hobby
        assert np.allclose(B[off & ~overlap], 0.0)
    else:        # overlapping meanings always confused, the rest spread evenly
        assert np.allclose(B[overlap], 1.0) and np.allclose(B[off & ~overlap], (q - f) / (1 - f))


def test_table1_errors_are_zero_for_a_perfect_judge_and_seeded():
    kw = dict(conventions=("normalized", "unnormalized"), ratios=((0.5, 0.5), (0.2, 0.3, 0.5)), sizes=(30,),
              iterations=2, random_state=4)
    df = T.table1_errors(1.0, 0.0, **kw)
    assert list(df.columns) == ["ratio", "n", "iteration", "convention", "error"]
    assert len(df) == 2 * 1 * 2 * 2 and set(df["ratio"]) == {"(0.5, 0.5)", "(0.2, 0.3, 0.5)"}
    assert np.allclose(df["error"], 0.0)
    noisy = T.table1_errors(0.6, 0.3, model="hard", hard_fraction=0.1, **kw)
    assert noisy.equals(T.table1_errors(0.6, 0.3, model="hard", hard_fraction=0.1, **kw))
    assert (noisy["error"] >= 0).all() and (noisy["error"] <= np.log(3)).all()
    with pytest.raises(ValueError, match="model must be 'sbm', 'hard' or 'overlap'"):
        T.table1_errors(0.6, 0.3, model="llm", **kw)


def test_phase_errors_skip_p_above_one_and_vanish_at_p_minus_q_one():
    df = T.phase_errors(0.0, [0.5, 1.0, 1.5], sizes=(30,), iterations=3, random_state=0)
    assert list(df.columns) == ["q", "p_minus_q", "n", "convention", "mean_error", "se"]
    assert df["p_minus_q"].tolist() == [0.5, 1.0]                       # p = 1.5 is no judge
    top = df[df.p_minus_q == 1.0].iloc[0]
    assert top["mean_error"] == pytest.approx(0.0, abs=1e-12) and top["se"] == pytest.approx(0.0, abs=1e-12)


def test_the_summary_keeps_the_first_ten_iterations_apart():
    import pandas as pd

    df = pd.DataFrame({"judge": ["a"] * 12, "iteration": list(range(12)), "error": [1.0] * 10 + [4.0, 4.0]})
    out = T._summarise(df)
    assert out.loc[0, "mean_error"] == pytest.approx(1.5) and out.loc[0, "mean_first10"] == 1.0
    assert out.loc[0, "iterations"] == 12
