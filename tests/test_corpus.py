"""Tests of the hobby corpus generator."""

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from semvar.corpus import HOBBIES, TEMPLATES, make_corpus, parse_meaning, realised_sizes


def test_sizes_hand_computed():
    # 30 * (0.2, 0.3, 0.5) = (6, 9, 15) exactly; 10 * (1/3, 1/3, 1/3): 3.33 each, the leftover text to the first
    assert realised_sizes(30, (0.2, 0.3, 0.5)).tolist() == [6, 9, 15]
    assert realised_sizes(50, (0.3, 0.3, 0.4)).tolist() == [15, 15, 20]
    assert realised_sizes(10, (1, 1, 1)).tolist() == [4, 3, 3]
    assert realised_sizes(7, (0.5, 0.5)).tolist() == [4, 3]


@settings(max_examples=40, deadline=None)
@given(
    st.integers(3, 120),
    st.lists(st.floats(0.05, 5.0), min_size=1, max_size=3),
    st.integers(1, 4),
    st.integers(0, 10_000),
)
def test_ground_truth_matches_texts(n, props, m, seed):
    assume(n * min(props) / sum(props) >= 1)  # every meaning gets at least one text
    c = make_corpus(n, props, m=m, random_state=seed)
    assert len(c.texts) == c.labels.size == n
    assert c.sizes.sum() == n and c.sizes.min() >= 1
    assert np.all(np.abs(c.sizes - n * np.asarray(props) / sum(props)) < 1)
    assert np.allclose(c.proportions, c.sizes / n)
    assert len(set(c.meanings)) == len(props)  # distinct meanings
    for text, k in zip(c.texts, c.labels):
        assert parse_meaning(text) == c.meanings[k]
        assert len(c.meanings[k]) == m


def test_surface_forms_vary_and_are_seeded():
    c = make_corpus(200, (0.5, 0.5), m=3, random_state=3)
    assert len(set(c.texts)) > 150  # order x synonym x template gives many forms
    used_templates = {i for i, t in enumerate(TEMPLATES) for s in c.texts if s.startswith(t.split("{")[0])}
    assert len(used_templates) == len(TEMPLATES) >= 6
    assert make_corpus(20, (1, 1), random_state=5).texts == make_corpus(20, (1, 1), random_state=5).texts


def test_every_hobby_set_reachable():
    # with N=4, M=2 there are C(4,2)=6 meanings: asking for all of them must work
    c = make_corpus(12, [1] * 6, m=2, n_hobbies=4, random_state=0)
    assert len(set(c.meanings)) == math.comb(4, 2)
    assert set().union(*c.meanings) == {h[0] for h in HOBBIES[:4]}


@pytest.mark.parametrize(
    "kwargs, msg",
    [
        (dict(n=0, proportions=(1,)), "n must be >= 1"),
        (dict(n=10, proportions=(1,), m=5, n_hobbies=4), "m .* must be <= n_hobbies"),
        (dict(n=10, proportions=(0.5, -0.5)), "positive"),
        (dict(n=10, proportions=(0.5, float("nan"))), "finite"),
        (dict(n=10, proportions=(0, 0)), "positive"),
        (dict(n=10, proportions=()), "non-empty"),
        (dict(n=10, proportions=[1] * 7, m=1, n_hobbies=6), "only C\\(6, 1\\) = 6"),
        (dict(n=2, proportions=(1, 1, 1)), "n must be >= the number of meanings"),
        (dict(n=3, proportions=(0.98, 0.01, 0.01)), "no text"),
        (dict(n=10, proportions=(1,), n_hobbies=11), "n_hobbies must be <= 10"),
    ],
)
def test_bad_input(kwargs, msg):
    with pytest.raises(ValueError, match=msg):
        make_corpus(**kwargs)


def test_parse_meaning_bad_input_and_word_boundaries():
    with pytest.raises(ValueError, match="string"):
        parse_meaning(3)
    assert parse_meaning("John likes bicycling.") == frozenset({"cycling"})  # not also "cycling" twice / nothing else


def test_parse_spellings():
    from semvar.corpus import parse_spellings

    assert parse_spellings("John likes bicycling and making ceramics.") == frozenset({"bicycling", "making ceramics"})
    with pytest.raises(ValueError, match="string"):
        parse_spellings(None)
    c = make_corpus(30, (1, 1), m=3, random_state=0)
    assert all(len(parse_spellings(t)) == 3 for t in c.texts)


@pytest.mark.parametrize("n, props, msg", [(0, (1,), "n must be >= 1"), (5, (1, np.inf), "finite"), (5, "ab", "1-D sequence"), (5, [[1, 2]], "1-D")])
def test_realised_sizes_bad_input(n, props, msg):
    with pytest.raises(ValueError, match=msg):
        realised_sizes(n, props)
