"""How a judge is asked to answer, and how its answer becomes a verdict.

A large model told to "answer TRUE or FALSE" does so; a model of 135 to 270
million parameters starts its answer with "To" or "You" (chapter 7).  Two
ways out, both standard on OpenAI-compatible servers:

* **Constrained answers.**  ``constrain="grammar"`` sends llama.cpp's
  ``grammar`` field with :data:`GRAMMAR`, a GBNF grammar whose only
  sentences are ``TRUE`` and ``FALSE``: the sampler may emit nothing else.
  ``constrain="json"`` sends a JSON-schema ``response_format``
  (:data:`RESPONSE_FORMAT`; OpenAI, vLLM and llama.cpp accept it) whose only
  documents are ``{"verdict": "TRUE"}`` and ``{"verdict": "FALSE"}``, read
  by :func:`parse_json_verdict`; ``constrain="json_object"`` sends the same
  schema in the form llama-cpp-python's server takes
  (:data:`RESPONSE_FORMAT_OBJECT`), which refuses the ``json_schema`` type.
* **A soft verdict.**  With ``logprobs`` the server returns the
  log-probabilities of the most likely first tokens.  The probability mass of
  tokens that begin ``TRUE`` (``"T"``, ``"TR"``, ``"True"``, any case, spaces
  stripped) against that of tokens that begin ``FALSE`` gives

  .. math::  \\pi = \\frac{P(\\text{TRUE})}{P(\\text{TRUE}) + P(\\text{FALSE})},

  the model's own probability of "same meaning" given that it answers one of
  the two words (:func:`soft_verdict`).  The verdict is ``pi >= threshold``;
  ``pi`` itself is kept (:meth:`semvar.llm.LLMJudge.scores`).  The
  log-probabilities a server reports are those of the model before any
  grammar, so a soft verdict reads the model, not the constraint.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

__all__ = ["GRAMMAR", "RESPONSE_FORMAT", "RESPONSE_FORMAT_OBJECT", "CONSTRAINTS", "parse_json_verdict", "soft_verdict", "soft_answer",
           "score_of_answer"]

#: llama.cpp's GBNF grammar whose only sentences are the two verdicts
GRAMMAR = 'root ::= "TRUE" | "FALSE"'

#: an OpenAI ``response_format`` whose only documents are ``{"verdict": "TRUE"}`` and ``{"verdict": "FALSE"}``
RESPONSE_FORMAT: dict[str, Any] = {
    "type": "json_schema",
    "json_schema": {
        "name": "verdict",
        "strict": True,
        "schema": {
            "type": "object",
            "properties": {"verdict": {"type": "string", "enum": ["TRUE", "FALSE"]}},
            "required": ["verdict"],
            "additionalProperties": False,
        },
    },
}

#: llama-cpp-python's own form of a JSON-schema constraint (its server accepts no ``json_schema`` type)
RESPONSE_FORMAT_OBJECT = {"type": "json_object", "schema": RESPONSE_FORMAT["json_schema"]["schema"]}

#: the values of ``constrain``
CONSTRAINTS = (None, "grammar", "json", "json_object")


def parse_json_verdict(answer: object) -> bool | None:
    """The verdict of a JSON answer ``{"verdict": "TRUE"}`` or ``{"verdict": "FALSE"}``; None for anything else.

    Examples
    --------
    >>> [parse_json_verdict(a) for a in ['{"verdict": "TRUE"}', ' {"verdict":"FALSE"} ', '{"verdict": "yes"}', 'TRUE']]
    [True, False, None, None]
    """
    if not isinstance(answer, str):
        return None
    try:
        doc = json.loads(answer)
    except ValueError:
        return None
    if not isinstance(doc, dict) or set(doc) != {"verdict"}:
        return None
    return {"TRUE": True, "FALSE": False}.get(doc["verdict"]) if isinstance(doc["verdict"], str) else None


def _begins(word: str, token: object) -> bool:
    t = token.strip().lower() if isinstance(token, str) else ""
    return bool(t) and word.startswith(t)


def soft_verdict(top_logprobs: Sequence[dict] | None) -> float | None:
    """``P(TRUE) / (P(TRUE) + P(FALSE))`` from a first token's top log-probabilities, or None.

    Parameters
    ----------
    top_logprobs : sequence of dict or None
        The server's ``choices[0].logprobs.content[0].top_logprobs``: entries
        ``{"token": str, "logprob": float}``.

    Returns
    -------
    float or None
        None when no listed token begins either word (the model puts its mass
        elsewhere; the pair stays unjudged rather than guessed).

    Examples
    --------
    >>> top = [{"token": "To", "logprob": -0.1}, {"token": "True", "logprob": math.log(0.03)},
    ...        {"token": " F", "logprob": math.log(0.01)}]
    >>> round(soft_verdict(top), 4)
    0.75
    >>> soft_verdict([{"token": "To", "logprob": -0.1}]) is None
    True
    """
    if not top_logprobs:
        return None
    mass = {"true": 0.0, "false": 0.0}
    for entry in top_logprobs:
        if not isinstance(entry, dict):
            continue
        lp = entry.get("logprob")
        if not isinstance(lp, (int, float)) or isinstance(lp, bool) or not math.isfinite(lp) or lp > 0:
            continue
        for word in mass:
            if _begins(word, entry.get("token")):
                mass[word] += math.exp(lp)
    total = mass["true"] + mass["false"]
    return mass["true"] / total if total > 0 else None


def soft_answer(p_true: float, text: str) -> str:
    """What the cache keeps of a soft verdict: the probability and the answer's text, as JSON."""
    return json.dumps({"p_true": round(float(p_true), 6), "text": text})


def score_of_answer(answer: object) -> float | None:
    """The probability a stored soft answer (:func:`soft_answer`) holds, or None.

    >>> score_of_answer(soft_answer(0.25, "F")), score_of_answer("TRUE")
    (0.25, None)
    """
    if not isinstance(answer, str) or not answer.startswith("{"):
        return None
    try:
        p = json.loads(answer).get("p_true")
    except (ValueError, AttributeError):
        return None
    return float(p) if isinstance(p, (int, float)) and not isinstance(p, bool) and 0.0 <= p <= 1.0 else None
