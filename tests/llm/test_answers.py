"""Tests of semvar.llm.answers: constrained answers and soft verdicts, read from what a server returns."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar.llm.answers import (
    GRAMMAR,
    RESPONSE_FORMAT,
    RESPONSE_FORMAT_OBJECT,
    parse_json_verdict,
    score_of_answer,
    soft_answer,
    soft_verdict,
)


def test_the_constraints_allow_the_two_verdicts_only():
    assert GRAMMAR == 'root ::= "TRUE" | "FALSE"'
    schema = RESPONSE_FORMAT["json_schema"]["schema"]
    assert schema["properties"]["verdict"]["enum"] == ["TRUE", "FALSE"] and schema["additionalProperties"] is False
    assert RESPONSE_FORMAT_OBJECT["schema"] == schema and RESPONSE_FORMAT_OBJECT["type"] == "json_object"


@pytest.mark.parametrize("answer, expected", [
    ('{"verdict": "TRUE"}', True), ('{"verdict":"FALSE"}', False), (' \n{"verdict": "TRUE"}\n', True),
    ('{"verdict": "true"}', None), ('{"verdict": "TRUE", "why": "x"}', None), ('{"verdict": 1}', None),
    ('["TRUE"]', None), ("TRUE", None), ('{"verdict": "TR', None), (None, None), (b'{"verdict": "TRUE"}', None),
])
def test_a_json_answer_is_read_exactly(answer, expected):
    assert parse_json_verdict(answer) is expected


def _top(**probs):
    return [{"token": t, "logprob": math.log(p)} for t, p in probs.items()]


def test_the_soft_verdict_adds_the_tokens_that_begin_each_word():
    top = [{"token": "T", "logprob": math.log(0.1)}, {"token": " true", "logprob": math.log(0.1)},
           {"token": "FA", "logprob": math.log(0.05)}, {"token": "False", "logprob": math.log(0.05)},
           {"token": "To", "logprob": math.log(0.6)}, {"token": "Fals", "logprob": math.log(0.1)}]
    assert soft_verdict(top) == pytest.approx(0.2 / 0.4)


@pytest.mark.parametrize("top", [None, [], _top(To=0.9, You=0.1), [{"token": "", "logprob": -0.1}],
                                 [{"token": "TRUE", "logprob": float("nan")}], [{"token": "TRUE", "logprob": 0.5}],
                                 [{"token": "TRUE"}], ["TRUE"], [{"token": None, "logprob": -1.0}]])
def test_no_verdict_token_gives_no_soft_verdict(top):
    assert soft_verdict(top) is None


@settings(max_examples=80, deadline=None)
@given(t=st.floats(1e-6, 1.0), f=st.floats(1e-6, 1.0), other=st.floats(0.0, 1.0), extra=st.floats(1e-6, 1.0))
def test_the_soft_verdict_is_a_probability_and_grows_with_the_true_mass(t, f, other, extra):
    top = [{"token": "TRUE", "logprob": math.log(t)}, {"token": "FALSE", "logprob": math.log(f)}]
    if other > 0:
        top.append({"token": "The", "logprob": math.log(other)})
    p = soft_verdict(top)
    assert 0.0 <= p <= 1.0 and p == pytest.approx(t / (t + f))
    more = soft_verdict(top + [{"token": "Tr", "logprob": math.log(extra)}])
    assert more >= p - 1e-12


def test_a_stored_soft_answer_gives_its_probability_back():
    assert score_of_answer(soft_answer(0.123456789, "F")) == pytest.approx(0.123457)
    for bad in ["TRUE", '{"p_true": 1.5}', '{"p_true": true}', "{not json", None, '{"text": "x"}', '[0.5]']:
        assert score_of_answer(bad) is None
