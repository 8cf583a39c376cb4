"""semvar._redact: secrets, URL user information and query values blanked out of messages."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar._redact import FRAGMENT, redact, redact_url

KEY = "sk-live-0123456789abcdefghij"
#: characters of generated secrets and texts: no '*', so a mask can never form part of a secret
ALPHABET = st.characters(codec="ascii", categories=("L", "N"))


def pieces(text: str, secret: str, width: int = FRAGMENT) -> list[str]:
    """Every run of ``width`` consecutive characters of ``secret`` still in ``text``."""
    return [secret[i : i + width] for i in range(len(secret) - width + 1) if secret[i : i + width] in text]


def test_a_whole_key_cut_keys_and_pieces_are_blanked():
    text = f"bad key {KEY}; head {KEY[:12]}; tail {KEY[-10:]}; short {KEY[:9]}"
    out = redact(text, KEY)
    assert out == f"bad key ***; head ***; tail ***; short {KEY[:9]}"
    assert pieces(out, KEY) == []


def test_overlapping_and_adjacent_pieces_become_one_mask():
    assert redact(KEY[:15] + KEY[5:20], KEY) == "***"
    assert redact("<" + KEY + KEY + ">", KEY) == "<***>"


def test_fragment_sets_the_shortest_piece():
    assert redact("x " + KEY[:6] + " y", KEY, fragment=6) == "x *** y"
    assert redact("x " + KEY[:6] + " y", KEY) == "x " + KEY[:6] + " y"


def test_a_secret_shorter_than_a_fragment_is_blanked_whole():
    assert redact("token abc123 and abc12", "abc123") == "token *** and abc12"


def test_no_secret_none_and_empty_secrets_leave_the_text():
    assert redact("plain message") == "plain message"
    assert redact("plain message", None, "") == "plain message"
    assert redact(None) == ""
    assert redact(404) == "404"


def test_several_secrets():
    other = "ghp_ABCDEFGHIJKLMNOPQRST"
    assert redact(f"{KEY} then {other}", KEY, other) == "*** then ***"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("https://alice:S3cr3t@mirror.example/a.csv", "https://***@mirror.example/a.csv"),
        ("ftp://token@host/path", "ftp://***@host/path"),
        ("htp//user:pa55@host/v1", "htp//***@host/v1"),  # malformed scheme
        ("proxy user:pa55@proxy.local:3128", "proxy ***@proxy.local:3128"),  # no scheme at all
        ("http://host/a?token=abc&x=1#frag", "http://host/a?token=***&x=***#frag"),
        ("see 'http://host/a?key=abc' now", "see 'http://host/a?key=***' now"),
        ("mail me: name@example.org", "mail me: name@example.org"),  # an address is not user information
        ("http://host/v1/chat/completions", "http://host/v1/chat/completions"),
    ],
)
def test_urls(text, expected):
    assert redact(text) == expected
    assert redact(text, urls=False) == text


def test_redact_url():
    assert redact_url("https://bob:pw@example.org:8443/v1?api_key=sk-1&b=2") == (
        "https://***@example.org:8443/v1?api_key=***&b=***"
    )


@settings(max_examples=200, deadline=None)
@given(
    st.text(ALPHABET, min_size=FRAGMENT, max_size=40),
    st.lists(st.tuples(st.text(ALPHABET, max_size=8), st.integers(0, 40), st.integers(0, 40)), max_size=6),
)
def test_no_long_piece_of_a_secret_survives(secret, parts):
    text = "".join(filler + secret[min(a, b) : max(a, b)] for filler, a, b in parts)
    out = redact(text, secret, urls=False)
    assert pieces(out, secret) == []


@settings(max_examples=200, deadline=None)
@given(st.text(ALPHABET, min_size=FRAGMENT, max_size=30), st.text(max_size=60))
def test_a_text_without_a_piece_of_the_secret_is_unchanged(secret, text):
    if not pieces(text, secret):
        assert redact(text, secret, urls=False) == text
