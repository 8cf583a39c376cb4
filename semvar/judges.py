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

import numbers
import re
import string
from collections.abc import Callable, Iterator, Sequence
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike

from ._validation import (
    RandomStateLike,
    check_array,
    check_label_codes,
    check_pairs,
    check_probability,
    check_random_state,
    check_real,
    check_string,
    check_texts,
    check_unmasked,
    split_verdicts,
)

_WORD = re.compile(r"\w+")

__all__ = ["Judge", "OracleJudge", "SBMJudge", "BlockJudge", "HardTextJudge", "EmbeddingJudge", "LexicalJudge",
           "ExactMatchJudge", "RougeJudge", "PQEstimate", "estimate_pq", "normalize_answer", "rouge_l", "word_tokens",
           "rouge_l_tokens"]


@runtime_checkable
class Judge(Protocol):
    """The judge protocol: ``pairs(texts, pairs) -> bool array of shape (m,)``."""

    def pairs(self, texts: Sequence[str], pairs: ArrayLike) -> np.ndarray:  # pragma: no cover - protocol
        ...


class _LabelledJudge:
    """A judge that knows each text's meaning label: compared as values of one kind, none missing.

    ``labels`` (the meanings as given) and ``codes`` (one integer per meaning,
    :func:`~semvar._validation.check_label_codes`) are kept; verdicts compare
    codes, so ``1`` and ``"1"`` (refused) or ``"a"`` and ``"a\\x00"`` (two
    meanings) are never merged by numpy's string dtype.
    """

    def __init__(self, labels: ArrayLike):
        self.codes, uniques = check_label_codes(labels)
        labels = check_unmasked(labels, "labels")
        if not isinstance(labels, np.ndarray):  # numbers as a numeric array; anything else exactly as given
            numeric = all(isinstance(u, (numbers.Number, np.number)) for u in uniques)
            labels = np.asarray(labels) if numeric else np.asarray(labels, dtype=object)
        self.labels = labels

    def _same(self, texts: Sequence[str], pairs: ArrayLike) -> np.ndarray:
        n = len(texts)
        if n != self.codes.shape[0]:
            raise ValueError(
                f"this judge knows labels for {self.codes.shape[0]} texts but was given {n} texts"
            )
        P = check_pairs(check_unmasked(pairs, "pairs"), n)
        return self.codes[P[:, 0]] == self.codes[P[:, 1]]


class OracleJudge(_LabelledJudge):
    """The ground truth as a judge: TRUE exactly when two texts share a meaning label.

    Parameters
    ----------
    labels : array-like of shape (n,)
        True meaning class of each text, in the order the texts will be given.

    Raises
    ------
    ValueError
        If ``labels`` is empty or not 1-D, holds None or NaN, mixes kinds of
        label (``1`` and ``"1"``), or is a masked array with a masked entry;
        labels are compared as the values given.

    Examples
    --------
    >>> OracleJudge([0, 0, 1]).pairs(["a", "b", "c"], [[0, 1], [0, 2]]).tolist()
    [True, False]
    """

    def pairs(self, texts: Sequence[str], pairs: ArrayLike) -> np.ndarray:
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

    Raises
    ------
    ValueError
        If ``labels`` is empty or not 1-D, holds None or NaN, mixes kinds of
        label (``1`` and ``"1"``), or is a masked array with a masked entry;
        labels are compared as the values given; or
        for ``p`` or ``q`` outside [0, 1].

    Examples
    --------
    >>> j = SBMJudge([0, 0, 1, 1], p=1.0, q=0.0, random_state=0)
    >>> j.pairs(list("abcd"), [[0, 1], [1, 2]]).tolist()
    [True, False]
    """

    def __init__(self, labels: ArrayLike, p: float, q: float, *, random_state: RandomStateLike = None):
        super().__init__(labels)
        self.p = check_probability(p, "p")
        self.q = check_probability(q, "q")
        self._rng = check_random_state(random_state)

    def pairs(self, texts: Sequence[str], pairs: ArrayLike) -> np.ndarray:
        same = self._same(texts, pairs)
        prob = np.where(same, self.p, self.q)
        return self._rng.random(same.shape[0]) < prob


class BlockJudge(_LabelledJudge):
    """A judge whose verdict probability depends on the *pair of meanings* (a general SBM).

    ``P(TRUE | texts of meanings a and b) = B[a, b]``, independently for every
    pair asked.  :class:`SBMJudge` is the special case ``B = q + (p - q) I``;
    an off-diagonal entry near ``p`` describes a judge that systematically
    confuses two particular meanings.

    Parameters
    ----------
    labels : array-like of int, shape (n,)
        Meaning labels ``0..K-1``.
    B : array-like of shape (K, K)
        Symmetric matrix of probabilities in [0, 1].
    random_state : None, int or numpy.random.Generator

    Raises
    ------
    ValueError
        If ``labels`` are not integers ``0..K-1`` (or are refused as for
        :class:`OracleJudge`), or ``B`` is not a symmetric matrix of
        probabilities with a row per label (a masked array with a masked
        entry included).

    Examples
    --------
    >>> j = BlockJudge([0, 1, 2], [[1, 1, 0], [1, 1, 0], [0, 0, 1]], random_state=0)
    >>> j.pairs(list("abc"), [[0, 1], [1, 2]]).tolist()
    [True, False]
    """

    def __init__(self, labels: ArrayLike, B: ArrayLike, *, random_state: RandomStateLike = None):
        super().__init__(labels)
        lab = np.asarray(self.labels)
        if not np.issubdtype(lab.dtype, np.integer) or lab.min() < 0:
            raise ValueError("labels of a BlockJudge must be integers 0..K-1")
        B = check_array(check_unmasked(B, "B"), "B", ndim=2)
        K = int(lab.max()) + 1
        if B.shape[0] != B.shape[1] or B.shape[0] < K:
            raise ValueError(f"B must be a square matrix with at least {K} rows (one per label), got shape {B.shape}")
        if B.size and (B.min() < 0 or B.max() > 1):
            raise ValueError(f"B must hold probabilities in [0, 1], found values in [{B.min()}, {B.max()}]")
        if np.abs(B - B.T).max() > 0:
            raise ValueError("B must be symmetric (the judged relation is symmetric)")
        self.B = B
        self._rng = check_random_state(random_state)

    def pairs(self, texts: Sequence[str], pairs: ArrayLike) -> np.ndarray:
        self._same(texts, pairs)  # validates
        P = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        prob = self.B[self.labels[P[:, 0]], self.labels[P[:, 1]]]
        return self._rng.random(prob.shape[0]) < prob


class HardTextJudge(_LabelledJudge):
    """A judge with text-dependent errors: some texts it cannot match with anything.

    Each text is *hard* with probability ``hard_fraction``, drawn once when the
    judge is made (so the same texts stay hard for every question, as with a
    deterministic language model that does not recognise some surface form).
    A pair of same-meaning texts is judged TRUE with probability ``p`` when both
    texts are easy and ``p_hard`` when at least one is hard; different meanings
    are TRUE with probability ``q``.  Verdicts are otherwise independent.

    Its overall rate of TRUE among same-meaning pairs is close to
    ``(1-h)^2 p + (1-(1-h)^2) p_hard``, so a judge can look like
    :class:`SBMJudge` with that ``p`` while producing nearly isolated nodes,
    which is what spectral clustering is sensitive to.

    Parameters
    ----------
    labels : array-like of shape (n,)
    p, q : float in [0, 1]
    hard_fraction : float in [0, 1]
        Probability ``h`` that a text is hard.
    p_hard : float in [0, 1], optional
        Defaults to ``q`` (a hard text looks like a different meaning to the judge).
    random_state : None, int or numpy.random.Generator

    Raises
    ------
    ValueError
        If ``labels`` is refused as for :class:`OracleJudge`, or a
        probability lies outside [0, 1].

    Examples
    --------
    >>> j = HardTextJudge([0, 0, 0], p=1.0, q=0.0, hard_fraction=0.0, random_state=0)
    >>> j.pairs(list("abc"), [[0, 1], [1, 2]]).tolist()
    [True, True]
    """

    def __init__(
        self, labels: ArrayLike, p: float, q: float, *, hard_fraction: float, p_hard: float | None = None,
        random_state: RandomStateLike = None,
    ):
        super().__init__(labels)
        self.p = check_probability(p, "p")
        self.q = check_probability(q, "q")
        self.hard_fraction = check_probability(hard_fraction, "hard_fraction")
        self.p_hard = self.q if p_hard is None else check_probability(p_hard, "p_hard")
        self._rng = check_random_state(random_state)
        self.hard = np.asarray(self._rng.random(self.labels.shape[0]) < self.hard_fraction)

    @staticmethod
    def p_for(p_overall: float, q: float, hard_fraction: float, p_hard: float | None = None) -> float:
        """The easy-pair ``p`` that gives an overall same-meaning TRUE rate ``p_overall``.

        Solves ``(1-h)^2 p + (1-(1-h)^2) p_hard = p_overall``; raises ValueError
        when no ``p`` in [0, 1] does.

        >>> round(HardTextJudge.p_for(0.67, 0.01, 0.1), 4)
        0.8249
        """
        p_overall = check_probability(p_overall, "p_overall")
        q = check_probability(q, "q")
        h = check_probability(hard_fraction, "hard_fraction")
        ph = q if p_hard is None else check_probability(p_hard, "p_hard")
        both = (1 - h) ** 2
        if both == 0:
            raise ValueError("hard_fraction = 1 leaves no easy pair")
        p = (p_overall - (1 - both) * ph) / both
        if not 0 <= p <= 1:
            raise ValueError(
                f"no easy-pair p in [0, 1] gives an overall p of {p_overall} with hard_fraction={h} and p_hard={ph} (needs {p:.3g})"
            )
        return float(p)

    def pairs(self, texts: Sequence[str], pairs: ArrayLike) -> np.ndarray:
        same = self._same(texts, pairs)
        P = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        hard = self.hard[P[:, 0]] | self.hard[P[:, 1]] if P.shape[0] else np.zeros(0, bool)
        prob = np.where(same, np.where(hard, self.p_hard, self.p), self.q)
        return self._rng.random(same.shape[0]) < prob


class EmbeddingJudge:
    """Judge two texts equivalent when the cosine of their sentence embeddings reaches a threshold.

    Parameters
    ----------
    threshold : float in [-1, 1]
        Verdict TRUE when ``cos(u_i, u_j) >= threshold``.
    model : str, optional
        Sentence-transformers model name or path for :func:`semvar.similarity.embed`;
        ``None`` is all-MiniLM-L6-v2, loaded offline.
    encode : callable, optional
        ``encode(list_of_texts) -> (len, d) array`` used instead of
        :func:`semvar.similarity.embed` (for another embedding source, or tests).

    Notes
    -----
    Embeddings are computed once per distinct text and cached in the instance,
    so asking about many pairs, or re-judging at another threshold through
    :meth:`with_threshold`, embeds each text once.  The cosine is symmetric and
    ``cos(u, u) = 1``, so this judge is reflexive and symmetric by
    construction; only transitivity can fail.

    Examples
    --------
    >>> fake = lambda ts: np.array([[1.0, 0.0] if "a" in t else [0.0, 1.0] for t in ts])
    >>> j = EmbeddingJudge(0.8, encode=fake)
    >>> j.pairs(["a", "ab", "b"], [[0, 1], [0, 2]]).tolist()
    [True, False]
    """

    def __init__(
        self, threshold: float = 0.8, model: str | None = None, *,
        encode: Callable[[list[str]], ArrayLike] | None = None,
    ):
        self.threshold = check_real(threshold, "threshold", low=-1.0, high=1.0)
        if model is not None and not isinstance(model, str):
            raise ValueError(f"model must be None or a model name/path string, got {type(model).__name__}")
        if encode is not None and not callable(encode):
            raise ValueError("encode must be callable: encode(list_of_texts) -> array of shape (len, d)")
        self.model = model
        self._encode = encode
        self._cache: dict[str, np.ndarray] = {}

    def with_threshold(self, threshold: float) -> EmbeddingJudge:
        """A judge with another threshold that shares this judge's embedding cache."""
        other = EmbeddingJudge(threshold, self.model, encode=self._encode)
        other._cache = self._cache
        return other

    def embeddings(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length embeddings of ``texts`` (each distinct text embedded once per instance)."""
        texts = check_texts(texts)
        todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if todo:
            U: ArrayLike
            if self._encode is None:
                from .similarity import embed

                U = embed(todo, self.model, progress=False)
            else:
                U = self._encode(todo)
            U = np.asarray(check_unmasked(U, "the encoder's output"), dtype=float)
            if U.ndim != 2 or U.shape[0] != len(todo):
                raise ValueError(f"the encoder returned shape {U.shape} for {len(todo)} texts")
            norms = np.linalg.norm(U, axis=1, keepdims=True)
            if np.any(norms == 0):
                raise ValueError("the encoder returned a zero vector; the cosine is undefined")
            for t, u in zip(todo, U / norms):
                self._cache[t] = u
        return np.stack([self._cache[t] for t in texts])

    def cosine(self, texts: Sequence[str], pairs: ArrayLike) -> np.ndarray:
        """Cosine similarity of the embeddings of each pair, shape ``(m,)``."""
        texts = list(texts) if not isinstance(texts, str) else texts
        P = check_pairs(check_unmasked(pairs, "pairs"), len(texts))
        if P.shape[0] == 0:
            return np.zeros(0)
        U = self.embeddings(texts)
        return np.einsum("ij,ij->i", U[P[:, 0]], U[P[:, 1]])

    def pairs(self, texts: Sequence[str], pairs: ArrayLike) -> np.ndarray:
        """Verdicts ``cosine >= threshold`` for each pair."""
        return self.cosine(texts, pairs) >= self.threshold

    def __repr__(self) -> str:
        return f"EmbeddingJudge(threshold={self.threshold}, model={self.model!r})"


class LexicalJudge:
    """Judge two texts equivalent when their word sets overlap enough (token Jaccard >= threshold).

    A text's tokens are its maximal runs of letters and digits (``\\w+``),
    lower-cased; the score of a pair is the Jaccard index of the two token
    *sets*, :math:`|T_i \\cap T_j| / |T_i \\cup T_j|` (1 for two texts with
    no token).  It reads wording only, never meaning: a baseline that shows
    how much of a judge's agreement shared words alone can explain.

    Parameters
    ----------
    threshold : float in [0, 1], default=0.5
        Verdict TRUE when the Jaccard index reaches ``threshold``.

    Notes
    -----
    Reflexive and symmetric by construction; like any threshold on a
    similarity, not transitive.  Token sets are cached per distinct text.

    Examples
    --------
    >>> j = LexicalJudge(0.5)
    >>> j.score(["the answer is B", "The answer is (B).", "It is C"], [[0, 1], [0, 2]]).round(3).tolist()
    [1.0, 0.167]
    >>> j.pairs(["the answer is B", "The answer is (B).", "It is C"], [[0, 1], [0, 2]]).tolist()
    [True, False]
    """

    def __init__(self, threshold: float = 0.5):
        self.threshold = check_real(threshold, "threshold", low=0.0, high=1.0)
        self._cache: dict[str, frozenset] = {}

    def tokens(self, text: str) -> frozenset:
        """The set of lower-cased word tokens of one text."""
        got = self._cache.get(text)
        if got is None:
            got = frozenset(_WORD.findall(text.lower()))
            self._cache[text] = got
        return got

    def score(self, texts: Sequence[str], pairs: ArrayLike) -> np.ndarray:
        """Jaccard index of the token sets of each pair, shape ``(m,)``."""
        texts = check_texts(texts)
        P = check_pairs(check_unmasked(pairs, "pairs"), len(texts))
        sets = [self.tokens(t) for t in texts]
        out = np.empty(P.shape[0])
        for k, (i, j) in enumerate(P):
            a, b = sets[i], sets[j]
            union = len(a | b)
            out[k] = len(a & b) / union if union else 1.0
        return out

    def pairs(self, texts: Sequence[str], pairs: ArrayLike) -> np.ndarray:
        """Verdicts ``jaccard >= threshold`` for each pair."""
        return self.score(texts, pairs) >= self.threshold

    def __repr__(self) -> str:
        return f"LexicalJudge(threshold={self.threshold})"


class PQEstimate:
    """Estimated ``p`` and ``q`` of a judge, with the counts behind them; unpacks to ``(p, q)``.

    Attributes
    ----------
    p, q : float
        Share of TRUE verdicts among judged same-meaning / different-meaning pairs
        (NaN when no such pair was judged).
    n_same, n_diff : int
        Number of judged same-meaning / different-meaning pairs.
    true_same, true_diff : int
        Number of TRUE verdicts among them.
    """

    __slots__ = ("p", "q", "n_same", "n_diff", "true_same", "true_diff")

    def __init__(self, true_same: int, n_same: int, true_diff: int, n_diff: int):
        self.true_same, self.n_same = int(true_same), int(n_same)
        self.true_diff, self.n_diff = int(true_diff), int(n_diff)
        self.p = self.true_same / self.n_same if self.n_same else float("nan")
        self.q = self.true_diff / self.n_diff if self.n_diff else float("nan")

    def __iter__(self) -> Iterator[float]:
        yield self.p
        yield self.q

    def __len__(self) -> int:
        return 2

    def __getitem__(self, i: int) -> float:
        return (self.p, self.q)[i]

    def standard_errors(self) -> tuple[float, float]:
        """Binomial standard errors ``sqrt(p(1-p)/n_same)`` and ``sqrt(q(1-q)/n_diff)``.

        Pairs that share a text are not independent, so these understate the
        uncertainty for a judge whose errors depend on the texts.
        """
        se_p = np.sqrt(self.p * (1 - self.p) / self.n_same) if self.n_same else float("nan")
        se_q = np.sqrt(self.q * (1 - self.q) / self.n_diff) if self.n_diff else float("nan")
        return float(se_p), float(se_q)

    def __repr__(self) -> str:
        return (
            f"PQEstimate(p={self.p:.4g} ({self.true_same}/{self.n_same}), "
            f"q={self.q:.4g} ({self.true_diff}/{self.n_diff}))"
        )


def estimate_pq(verdicts: ArrayLike, labels: ArrayLike, pairs: ArrayLike) -> PQEstimate:
    """Estimate a judge's ``p`` and ``q`` (Liu 2025, eqs. 3-4; Table 2) from labelled pairs.

    Parameters
    ----------
    verdicts : array-like of bool, shape (m,)
        The judge's verdicts; a :class:`numpy.ma.MaskedArray` (or NaN in a float
        array) marks unjudged pairs, which are left out.
    labels : array-like, shape (n,)
        True meaning of each text: labels of one kind, compared as given
        (see :func:`semvar._validation.check_label_codes`).
    pairs : array-like of int, shape (m, 2)
        The pairs the verdicts are about (indices into ``labels``).

    Returns
    -------
    PQEstimate
        ``p_hat`` = TRUE share among same-meaning pairs and ``q_hat`` = TRUE
        share among different-meaning pairs, with the counts; unpacks to ``(p, q)``.

    Raises
    ------
    ValueError
        If the lengths disagree, a pair index is out of range, a verdict is
        not boolean / 0-1, ``labels`` holds None or NaN or labels of more than
        one kind, or ``labels`` or ``pairs`` is a masked array with a masked
        entry (only a verdict can be unjudged).

    Examples
    --------
    >>> p, q = estimate_pq([True, False, True, False], [0, 0, 1, 1], [[0, 1], [0, 2], [2, 3], [1, 3]])
    >>> p, q
    (1.0, 0.0)
    """
    lab, _ = check_label_codes(labels)
    P = check_pairs(check_unmasked(pairs, "pairs"), lab.shape[0])
    v, judged = split_verdicts(verdicts, P.shape[0])
    if np.any((v[judged] != 0) & (v[judged] != 1)):
        raise ValueError("verdicts must be boolean or 0/1")
    same = lab[P[:, 0]] == lab[P[:, 1]]
    s, d = same & judged, ~same & judged
    return PQEstimate(v[s].sum(), s.sum(), v[d].sum(), d.sum())


def __getattr__(name: str) -> type:
    # the HTTP judge lives in its own package (it carries a client and a cache); importing it only when
    # asked for keeps ``import semvar.judges`` free of HTTP and SQLite
    if name == "LLMJudge":
        from .llm.judge import LLMJudge

        return LLMJudge
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --------------------------------------------------------------------------- answer-string judges
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = frozenset(string.punctuation)


def normalize_answer(text: str) -> str:
    """The SQuAD normalisation of a short answer: lower case, no punctuation, no articles, single spaces.

    The steps, in the order of the SQuAD v1.1 evaluation (Rajpurkar et al.
    2016): lower-case the text; delete every ASCII punctuation character
    (``string.punctuation``); delete the words "a", "an" and "the"; split on
    whitespace and join with single spaces (which also strips both ends).

    Parameters
    ----------
    text : str

    Returns
    -------
    str

    Raises
    ------
    ValueError
        If ``text`` is not a string.

    References
    ----------
    Rajpurkar, Zhang, Lopyrev & Liang (2016), SQuAD: 100,000+ questions for
    machine comprehension of text (EMNLP), the official evaluation script.

    Examples
    --------
    >>> normalize_answer("  The Eiffel-Tower, in PARIS! ")
    'eiffeltower in paris'
    >>> normalize_answer("An apple") == normalize_answer("apple.")
    True
    """
    return _normalize(check_string(text, "text"))


def _normalize(text: str) -> str:
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def word_tokens(text: str) -> list[str]:
    """The lower-cased word tokens of a text, in order: its maximal runs of ``\\w`` (letters, digits, underscore).

    These are the tokens of :func:`rouge_l` and :class:`RougeJudge`; :class:`LexicalJudge` uses their set.

    Parameters
    ----------
    text : str

    Returns
    -------
    list of str

    Raises
    ------
    ValueError
        If ``text`` is not a string.

    Examples
    --------
    >>> word_tokens("The cat -- it's on the mat!")
    ['the', 'cat', 'it', 's', 'on', 'the', 'mat']
    """
    return _words(check_string(text, "text"))


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of a longest common subsequence of two token lists (dynamic programme, O(|a| |b|) time, O(|b|) memory)."""
    if len(a) < len(b):
        a, b = b, a
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def rouge_l_tokens(a: Sequence[str], b: Sequence[str]) -> float:
    """ROUGE-L F-measure of two token sequences: ``2 LCS(a, b) / (|a| + |b|)`` (Lin 2004).

    :func:`rouge_l` applied to texts already split by :func:`word_tokens`, for a
    caller that compares each text with many others and splits it once.

    Parameters
    ----------
    a, b : sequence of str
        The two token sequences (not single strings).

    Returns
    -------
    float in [0, 1]
        1 for two empty sequences, 0 for one empty and one non-empty.

    Raises
    ------
    ValueError
        If ``a`` or ``b`` is a single string or holds something other than strings.

    Examples
    --------
    >>> rouge_l_tokens(["the", "cat", "sat"], ["the", "cat"])
    0.8
    """
    return _rouge_l(check_texts(a, "a", allow_empty=True), check_texts(b, "b", allow_empty=True))


def _rouge_l(a: Sequence[str], b: Sequence[str]) -> float:
    if not a and not b:
        return 1.0
    return 2.0 * _lcs_length(a, b) / (len(a) + len(b))


def rouge_l(a: str, b: str) -> float:
    """ROUGE-L F-measure of two texts on lower-cased word tokens (Lin 2004), symmetric in ``a`` and ``b``.

    Parameters
    ----------
    a, b : str
        The two texts.  Tokens are the maximal runs of letters, digits and
        underscores (``\\w+``) of the lower-cased text, as in
        :class:`~semvar.judges.LexicalJudge`.

    Returns
    -------
    float in [0, 1]
        :math:`F = 2PR/(P+R)` with :math:`P = \\ell/|a|`,
        :math:`R = \\ell/|b|` and :math:`\\ell` the length of a longest common
        subsequence of the two token sequences; this is
        :math:`2\\ell/(|a|+|b|)`.  Two texts without a token score 1 (equal
        token sequences); one empty text against a non-empty one scores 0.

    Raises
    ------
    ValueError
        If ``a`` or ``b`` is not a string.

    Notes
    -----
    Lin (2004, section 3.1) defines ROUGE-L of a candidate against a reference
    as the F-measure :math:`(1+\\beta^2)RP/(R+\\beta^2P)` of the LCS-based
    recall and precision; with :math:`\\beta=1` it is the harmonic mean, and
    :math:`2\\ell/(|a|+|b|)` follows by substitution, which shows the
    symmetry.  No stemming and no stop-word removal.

    References
    ----------
    Lin (2004), ROUGE: a package for automatic evaluation of summaries.

    Examples
    --------
    LCS of "the cat sat on the mat" and "the cat is on the mat" is
    "the cat on the mat" (5 tokens), so F = 2 * 5 / 12:

    >>> round(rouge_l("The cat sat on the mat", "the cat is on the mat"), 6)
    0.833333
    >>> rouge_l("Paris", "London")
    0.0
    """
    return _rouge_l(_words(check_string(a, "a")), _words(check_string(b, "b")))


class ExactMatchJudge:
    """Judge two answers equivalent when their SQuAD-normalised strings are equal.

    See :func:`normalize_answer`: case, ASCII punctuation, the articles
    "a", "an", "the" and runs of whitespace are ignored.  An equivalence
    relation by construction (equality of normalised strings).

    Examples
    --------
    >>> ExactMatchJudge().pairs(["The Paris.", "paris", "London"], [[0, 1], [0, 2]]).tolist()
    [True, False]
    """

    def __init__(self) -> None:
        self._cache: dict[str, str] = {}

    def normalized(self, text: str) -> str:
        """The normalised form of one text (cached per distinct text)."""
        got = self._cache.get(text)
        if got is None:
            got = self._cache[text] = _normalize(text)
        return got

    def pairs(self, texts: Sequence[str], pairs: ArrayLike) -> np.ndarray:
        """Verdicts ``normalize_answer(t_i) == normalize_answer(t_j)`` for each pair."""
        texts = check_texts(texts)
        P = check_pairs(check_unmasked(pairs, "pairs"), len(texts))
        norm = [self.normalized(t) for t in texts]
        return np.array([norm[i] == norm[j] for i, j in P], dtype=bool)

    def __repr__(self) -> str:
        return "ExactMatchJudge()"


class RougeJudge:
    """Judge two texts equivalent when their ROUGE-L F-measure (:func:`rouge_l`) reaches a threshold.

    Parameters
    ----------
    threshold : float in [0, 1], default=0.5
        Verdict TRUE when ``rouge_l(t_i, t_j) >= threshold``.

    Notes
    -----
    Reflexive and symmetric (ROUGE-L F is symmetric, and a text scores 1
    with itself); not transitive.  Token lists are cached per distinct text.

    Examples
    --------
    >>> j = RougeJudge(0.5)
    >>> j.score(["it is Paris", "Paris it is", "London"], [[0, 1], [0, 2]]).round(4).tolist()
    [0.6667, 0.0]
    >>> j.pairs(["it is Paris", "Paris it is", "London"], [[0, 1], [0, 2]]).tolist()
    [True, False]
    """

    def __init__(self, threshold: float = 0.5):
        self.threshold = check_real(threshold, "threshold", low=0.0, high=1.0)
        self._cache: dict[str, list[str]] = {}

    def tokens(self, text: str) -> list[str]:
        """The lower-cased word tokens of one text, in order."""
        got = self._cache.get(text)
        if got is None:
            got = self._cache[text] = _words(text)
        return got

    def score(self, texts: Sequence[str], pairs: ArrayLike) -> np.ndarray:
        """ROUGE-L F-measure of each pair, shape ``(m,)``."""
        texts = check_texts(texts)
        P = check_pairs(check_unmasked(pairs, "pairs"), len(texts))
        toks = [self.tokens(t) for t in texts]
        return np.array([_rouge_l(toks[i], toks[j]) for i, j in P], dtype=float)

    def pairs(self, texts: Sequence[str], pairs: ArrayLike) -> np.ndarray:
        """Verdicts ``rouge_l >= threshold`` for each pair."""
        return self.score(texts, pairs) >= self.threshold

    def __repr__(self) -> str:
        return f"RougeJudge(threshold={self.threshold})"
