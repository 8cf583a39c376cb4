"""Tests of semvar.experiments.mmlu_responses: the CPU answerers of MMLU (controls for chapter 12), on toy items."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from semvar.experiments.mmlu_responses import answer_by_similarity, longest_option, run_sweep


def test_similarity_answerer_by_hand():
    q = np.array([[1.0, 0.0], [0.0, 1.0]])
    opts = np.array([[[0.0, 1.0], [1.0, 0.1], [-1.0, 0.0]], [[1.0, 0.0], [0.2, 1.0], [0.0, 2.0]]])
    # second row: options 1 and 2 -> cosines 0.98 and 1.0
    assert answer_by_similarity(q, opts, np.random.default_rng(0)).tolist() == [1, 2]


def test_longest_option_breaks_ties_at_random():
    picks = {int(longest_option([["ab", "cd", "e"]], np.random.default_rng(s))[0]) for s in range(30)}
    assert picks == {0, 1}


def test_sweep_lexical_answerers_on_a_toy_benchmark():
    toy = pd.DataFrame(
        {
            "question": ["What colour is the sky on a clear day", "Which animal barks loudly"],
            "choices": [["the sky is blue", "green", "red", "a cat"], ["fish", "a dog barks", "an ant", "owl"]],
            "answer": [0, 1],
        }
    )
    out = run_sweep(toy, models=("tfidf_cosine", "longest_option", "random_guess"), progress=False)
    tf = out[out["model"] == "tfidf_cosine"]
    assert tf["correct"].tolist() == [1, 1]
    with pytest.raises(ValueError, match="unknown"):
        run_sweep(toy, models=("gpt",), progress=False)


def _toy():
    return pd.DataFrame({
        "question": ["Which planet is red", "Which metal is liquid at room temperature", "What do bees make"],
        "choices": [["Mars the red planet", "Venus", "Jupiter", "Saturn"],
                    ["iron", "copper", "mercury is a liquid metal", "gold"],
                    ["milk", "silk", "wax", "honey, which bees make"]],
        "answer": [0, 2, 3],
    })


def test_the_long_table_scores_every_pick_against_the_key():
    toy = _toy()
    out = run_sweep(toy, models=("longest_option", "random_guess"), progress=False)
    assert list(out.columns) == ["model", "item_id", "choice", "correct"] and len(out) == 2 * len(toy)
    for model, part in out.groupby("model"):
        assert part["item_id"].tolist() == [0, 1, 2], model
        assert part["choice"].between(0, 3).all()
        assert (part["correct"] == (part["choice"].to_numpy() == toy["answer"].to_numpy())).all(), model
    # the longest option of each toy item is its key, so the rule scores 3 of 3
    assert out[out.model == "longest_option"]["choice"].tolist() == [0, 2, 3]


def test_the_random_guess_is_uniform_and_fixed_by_its_seed():
    n = 4000
    toy = pd.DataFrame({"question": ["q"] * n, "choices": [["a", "b", "c", "d"]] * n, "answer": [1] * n})
    first = run_sweep(toy, models=("random_guess",), progress=False)
    again = run_sweep(toy, models=("random_guess",), progress=False)
    pd.testing.assert_frame_equal(first, again)
    counts = np.bincount(first["choice"], minlength=4)
    assert counts.sum() == n and np.all(np.abs(counts / n - 0.25) < 0.03)   # 4.5 standard errors
    assert abs(first["correct"].mean() - 0.25) < 0.03


def test_ties_in_similarity_are_broken_at_random():
    q = np.array([[1.0, 0.0]])
    opts = np.array([[[2.0, 0.0], [1.0, 0.0], [0.0, 1.0]]])   # options 0 and 1 both have cosine 1
    picks = {int(answer_by_similarity(q, opts, np.random.default_rng(s))[0]) for s in range(30)}
    assert picks == {0, 1}


def test_an_unknown_model_is_refused_by_name():
    with pytest.raises(ValueError, match=r"models must be among \['minilm_cosine', .* got unknown \['bert'\]"):
        run_sweep(_toy(), models=("longest_option", "bert"), progress=False)
