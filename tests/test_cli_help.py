"""The command line's help is plain text: no reStructuredText markup from the docstrings."""

from __future__ import annotations

import re

import pytest

from semvar import cli

# inline literals, roles (:func:`x`), strong emphasis and interpreted text
RST_MARKUP = re.compile(r"``|:[a-z]+:`|\*\*[A-Za-z][^*\n]*\*\*|`[^`\s][^`]*`_?")


def _helps() -> dict[str, str]:
    parser = cli.build_parser()
    out = {"python -m semvar": parser.format_help()}
    for action in parser._subparsers._group_actions:
        for name, sub in action.choices.items():
            out[name] = sub.format_help()
    return out


def test_the_markup_pattern_finds_rst():
    assert RST_MARKUP.search("Command line: ``python -m semvar``.")
    assert RST_MARKUP.search("see :func:`semvar.select_k.auto`")
    assert RST_MARKUP.search("a **strong** word")
    assert not RST_MARKUP.search("'sample:S' (each pair with probability S), base * 2**r seconds")


@pytest.mark.parametrize("name", ["python -m semvar", "replicate", "judge"])
def test_help_has_no_rst_markup(name):
    text = _helps()[name]
    found = [text[max(0, m.start() - 30):m.end() + 30] for m in RST_MARKUP.finditer(text)]
    assert not found, f"{name} --help shows markup: {found}"
