"""Tests of semvar.llm.prompts: the two prompts of Liu (2025, appendix C), custom templates, reading the verdict."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar.llm import PROMPTS, LLMJudge, parse_verdict, render_prompt
from semvar.testing import extract_texts


def test_parse_verdict_hand_cases():
    yes = ["TRUE", "true", "True.", "  TRUE, because", "**TRUE**", "**True** both say", "## FALSE", "`false`",
           "\n\nFALSE: no", '"TRUE"', "<think>hmm, FALSE?</think>\nTRUE", "'TRUE'", "FALSE - they differ"]
    no = ["", "  ", "Yes", "The answer is TRUE", "TRUEFALSE", "Truthfully, no", "untrue", "FALSEHOOD", "T R U E", None, 1,
          "TRUE or FALSE", "true/false", "**FALSE** | **TRUE**", "TRUE. Or FALSE?",
          # the first word must be the verdict word itself, not a longer word that begins with it
          "True-ish, but actually FALSE", "TRUE's the word", "false-positive, TRUE", "TRUE\u2019s"]
    assert [parse_verdict(a) for a in yes] == [True] * 6 + [False] * 3 + [True] * 3 + [False]
    assert [parse_verdict(a) for a in no] == [None] * len(no)


@settings(max_examples=60, deadline=None)
@given(
    lead=st.text(alphabet=" \n\t*_#`>\"'", max_size=5),
    word=st.sampled_from(["true", "TRUE", "True", "false", "FALSE", "fAlSe"]),
    tail=st.text(max_size=20).filter(
        lambda t: not t[:1].isalnum() and t[:1] not in "_-"
        and not (t[:1] in "'\u2019" and (t[1:2].isalnum() or t[1:2] == "_"))
        and "true" not in t.lower() and "false" not in t.lower()
    ),
)
def test_parse_verdict_reads_the_leading_word(lead, word, tail):
    assert parse_verdict(lead + word + tail) is (word.lower() == "true")


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=30))
def test_parse_verdict_never_guesses(text):
    if "true" not in text.lower() and "false" not in text.lower():
        assert parse_verdict(text) is None
    assert parse_verdict("The verdict: " + text) is None


def test_builtin_prompts_fill_both_texts_once():
    a, b = "Water is vital to human survival.", "Humans must have water to survive."
    for name in ("liu2025", "liu2025_format"):
        text = render_prompt(name, a, b)
        assert text.count(a) == 1 and text.count(b) == 1 and text.index(a) < text.index(b)
        assert "{text_" not in text
        assert extract_texts(text) == (a, b)
        assert "return TRUE if TEXT A implies TEXT B and TEXT B implies TEXT A" in text
    assert "START with either TRUE or FALSE" in render_prompt("liu2025_format", a, b)
    assert "START with" not in render_prompt("liu2025", a, b)
    assert PROMPTS["liu2025_format"].startswith(PROMPTS["liu2025"])


def test_custom_template_is_validated():
    with pytest.raises(ValueError, match=r"lacks \{text_B\}"):
        render_prompt("Compare {text_A} with nothing", "x", "y")
    with pytest.raises(ValueError, match="liu2025"):
        LLMJudge("http://127.0.0.1:9/v1", "m", prompt="no placeholders")
    assert render_prompt("B={text_B}; A={text_A}", "a", "b") == "B=b; A=a"
