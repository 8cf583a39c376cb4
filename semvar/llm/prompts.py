"""The judge prompts of Liu (2025, appendix C), filling them in, and reading the verdict.

Both appendix C prompts are built in (``"liu2025"`` and ``"liu2025_format"``);
a custom template with ``{text_A}`` and ``{text_B}`` may be given.  The
verdict is the first word of the answer: ``TRUE`` or ``FALSE``; anything else
is unparseable (``None``), never read as FALSE.
"""

from __future__ import annotations

import re
import textwrap

__all__ = ["PROMPTS", "parse_verdict", "render_prompt"]

# The two prompts of Liu (2025, appendix C), word for word (including the
# paper's own grammar), with the paper's code indentation removed.  The first
# was used for Phi-3-mini-4k-instruct, AI21-Jamba-1.5-Mini and
# Cohere-command-r-08-2024; the second, which adds a FORMAT section, for
# Ministral-3B, Llama-3.3-70B-Instruct and gpt-35-turbo.
_LIU2025 = textwrap.dedent(
    """\
    You are a expert in logical deduction and you are given 2 piece of texts: TEXT A and TEXT B.
    You are to identify if TEXT A implies TEXT B and TEXT B implies TEXT A at the same time.

    TEXT A:
    {text_A}

    TEXT B:
    {text_B}

    ## OUTPUT
    You are to return TRUE if TEXT A implies TEXT B and TEXT B implies TEXT A at the same time.
    otherwise, you are to return FALSE
    """
)
_LIU2025_FORMAT = _LIU2025 + textwrap.dedent(
    """
    ##FORMAT:
    START with either TRUE or FALSE, then detail your reasoning
    """
)

#: built-in prompt templates (Liu 2025, appendix C)
PROMPTS = {"liu2025": _LIU2025, "liu2025_format": _LIU2025_FORMAT}

_PLACEHOLDERS = ("{text_A}", "{text_B}")
_PLACEHOLDER_RE = re.compile(r"\{text_A\}|\{text_B\}")
_THINK_RE = re.compile(r"^\s*<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_VERDICT_RE = re.compile(r"^[\s*_#`>\"'(\[:.-]*(true|false)(?![a-z0-9_])", re.IGNORECASE)
# the leading word followed by "or" / "/" / "|" and a verdict word: the answer names both (e.g. it
# repeats the instruction "TRUE or FALSE"), so it states neither
_BOTH_RE = re.compile(r"[\s*_`\"')\].,;:-]*(?:or\b|/|\|)[\s*_`\"'(\[]*(?:true|false)(?![a-z0-9_])", re.IGNORECASE)


def parse_verdict(answer) -> bool | None:
    """Read the verdict from an answer: TRUE, FALSE, or ``None`` when it is neither.

    The answer must *start* with TRUE or FALSE (any case).  Leading
    whitespace, markdown emphasis or heading marks, quotes and a reasoning
    model's leading ``<think>...</think>`` block are skipped; punctuation may
    follow the word.  Anything else -- including an answer that mentions the
    word only later, or one that offers both (``"TRUE or FALSE"``,
    ``"true/false"``) -- is unparseable.

    Parameters
    ----------
    answer : str or None

    Returns
    -------
    bool or None

    Examples
    --------
    >>> [parse_verdict(a) for a in ["TRUE", "  false.", "**True**", "## FALSE: no", "Truely", "I think TRUE", None]]
    [True, False, True, False, None, None, None]
    >>> parse_verdict("TRUE or FALSE"), parse_verdict("True/False?"), parse_verdict("TRUE, or rather mostly")
    (None, None, True)
    """
    if not isinstance(answer, str):
        return None
    text = _THINK_RE.sub("", answer, count=1)
    m = _VERDICT_RE.match(text)
    if m is None or _BOTH_RE.match(text, m.end()):
        return None
    return m.group(1).lower() == "true"


def _check_template(prompt: str) -> str:
    if not isinstance(prompt, str):
        raise ValueError(f"prompt must be one of {sorted(PROMPTS)} or a template string, got {type(prompt).__name__}")
    if prompt in PROMPTS:
        return PROMPTS[prompt]
    missing = [p for p in _PLACEHOLDERS if p not in prompt]
    if missing:
        shown = prompt if len(prompt) <= 40 else prompt[:37] + "..."
        raise ValueError(
            f"prompt must be one of {sorted(PROMPTS)} or a template containing both {_PLACEHOLDERS[0]} and "
            f"{_PLACEHOLDERS[1]}; {shown!r} lacks {', '.join(missing)}"
        )
    return prompt


def render_prompt(template: str, text_a: str, text_b: str) -> str:
    """Fill ``{text_A}`` and ``{text_B}`` of ``template`` (a name in :data:`PROMPTS` or a template).

    The substitution is a single pass, so braces or placeholders inside the
    texts are left alone.

    >>> render_prompt("A={text_A} B={text_B}", "x {text_B}", "y")
    'A=x {text_B} B=y'
    >>> "TEXT A:\\nWater is vital" in render_prompt("liu2025", "Water is vital", "We need water")
    True
    """
    template = _check_template(template)
    values = {"{text_A}": text_a, "{text_B}": text_b}
    return _PLACEHOLDER_RE.sub(lambda m: values[m.group(0)], template)
