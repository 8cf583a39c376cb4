"""Judges: who decides whether two texts mean the same thing.

Every judge follows one protocol (:class:`Judge`): ``judge.pairs(texts, pairs)``
takes a sequence of texts and an ``(m, 2)`` integer array of index pairs and
returns ``m`` boolean verdicts ("equivalent" or not).  A judge that could not
answer some pairs returns a :class:`numpy.ma.MaskedArray` whose masked entries
are *unjudged*; the graph code treats them as unobserved, never as FALSE.

Simulated judges know the true meaning labels of the texts they will be asked
about; real judges (embeddings, an LLM) read the texts.
"""

from __future__ import annotations

from typing import Protocol, Sequence, runtime_checkable

import numpy as np

from ._validation import check_labels, check_probability, check_random_state
from .graph import _check_pairs

__all__ = ["Judge", "OracleJudge", "SBMJudge"]


@runtime_checkable
class Judge(Protocol):
    """The judge protocol: ``pairs(texts, pairs) -> bool array of shape (m,)``."""

    def pairs(self, texts: Sequence[str], pairs: np.ndarray) -> np.ndarray:  # pragma: no cover - protocol
        ...


class _LabelledJudge:
    def __init__(self, labels):
        self.labels = check_labels(labels)

    def _same(self, texts, pairs) -> np.ndarray:
        n = len(texts)
        if n != self.labels.shape[0]:
            raise ValueError(
                f"this judge knows labels for {self.labels.shape[0]} texts but was given {n} texts"
            )
        P = _check_pairs(pairs, n)
        return self.labels[P[:, 0]] == self.labels[P[:, 1]]


class OracleJudge(_LabelledJudge):
    """The ground truth as a judge: TRUE exactly when two texts share a meaning label.

    Parameters
    ----------
    labels : array-like of shape (n,)
        True meaning class of each text, in the order the texts will be given.

    Examples
    --------
    >>> OracleJudge([0, 0, 1]).pairs(["a", "b", "c"], [[0, 1], [0, 2]]).tolist()
    [True, False]
    """

    def pairs(self, texts, pairs) -> np.ndarray:
        return self._same(texts, pairs)


class SBMJudge(_LabelledJudge):
    """A noisy judge whose verdicts are independent coin flips (Liu 2025, eqs. 3-4).

    ``P(TRUE | same meaning) = p`` and ``P(TRUE | different meanings) = q``,
    independently for every pair asked, so the judged graph of all pairs is a
    stochastic block model with within-block probability ``p`` and
    between-block probability ``q``.

    Parameters
    ----------
    labels : array-like of shape (n,)
        True meaning class of each text.
    p, q : float in [0, 1]
    random_state : None, int or numpy.random.Generator

    Examples
    --------
    >>> j = SBMJudge([0, 0, 1, 1], p=1.0, q=0.0, random_state=0)
    >>> j.pairs(list("abcd"), [[0, 1], [1, 2]]).tolist()
    [True, False]
    """

    def __init__(self, labels, p: float, q: float, *, random_state=None):
        super().__init__(labels)
        self.p = check_probability(p, "p")
        self.q = check_probability(q, "q")
        self._rng = check_random_state(random_state)

    def pairs(self, texts, pairs) -> np.ndarray:
        same = self._same(texts, pairs)
        prob = np.where(same, self.p, self.q)
        return self._rng.random(same.shape[0]) < prob


def __getattr__(name):
    # the HTTP judge lives in its own module (it carries a client, a cache and a CLI)
    if name == "LLMJudge":
        from .llm_judge import LLMJudge

        return LLMJudge
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
