"""The compound-proposition ("hobby") corpus of Liu (2025), section 4 and appendix B.

A *meaning* is a set of ``m`` elementary propositions "John likes hobby h",
drawn from the first ``n_hobbies`` hobbies of the paper's list.  Two texts are
semantically equivalent exactly when they assert the same set of hobbies,
whatever the order in which the hobbies are listed, the synonym used for each
hobby ("cycling", "biking", "bicycling") and the sentence that carries them.
The ground truth is therefore known by construction, which is what makes the
corpus useful for measuring a judge and the spectral entropy built on it.

Surface forms vary along three independent axes:

* the **order** of the ``m`` hobbies (a uniformly random permutation),
* the **synonym** of each hobby (uniform over its synonyms), and
* the **sentence template** (uniform over :data:`TEMPLATES`, eight frames with
  different structure, so that a judge cannot lean on sentence shape).
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from ._validation import RandomStateLike, check_int, check_random_state, check_string

__all__ = ["HOBBIES", "TEMPLATES", "Corpus", "make_corpus", "realised_sizes", "parse_meaning", "parse_spellings"]

#: The ten hobbies of Liu (2025, appendix B).  The first spelling is the
#: canonical name of the hobby; the others are its synonyms.  Two spellings are
#: adapted so that every synonym reads as a gerund phrase in every frame:
#: "piloting aerial drones" for the paper's "pilot Aerial drones" and "keeping a
#: journal" for its "journal writings".
HOBBIES: tuple[tuple[str, ...], ...] = (
    ("running", "jogging"),
    ("drone flying", "piloting aerial drones"),
    ("jazzercise", "aerobics"),
    ("making pottery", "making ceramics"),
    ("water gardening", "aquatic gardening"),
    ("caving", "spelunking", "potholing"),
    ("cycling", "bicycling", "biking"),
    ("reading",),
    ("writing journals", "journaling", "keeping a journal"),
    ("sculling", "rowing"),
)

#: Sentence frames; ``{hobbies}`` receives the hobbies joined as an English list.
TEMPLATES: tuple[str, ...] = (
    "In his free time, John likes {hobbies} as his hobbies.",
    "John's hobbies are {hobbies}.",
    "When he is not working, John enjoys {hobbies}.",
    "Ask John what he does for fun and he will name {hobbies}.",
    "Among the pastimes John loves are {hobbies}.",
    "John spends his weekends on {hobbies}.",
    "For John, a good day off means {hobbies}.",
    "If you want to know John's hobbies: {hobbies}.",
)


@dataclass(frozen=True, eq=False)
class Corpus:
    """Texts with known meanings.

    Attributes
    ----------
    texts : list of str
        The ``n`` texts, grouped by meaning (all texts of label 0 first, then label 1, ...).
    labels : ndarray of int, shape (n,)
        Meaning label ``0..K-1`` of each text.
    meanings : list of frozenset of str
        ``meanings[k]`` is the set of canonical hobby names asserted by every text of label ``k``.
    proportions : ndarray of float, shape (K,)
        Realised cluster sizes divided by ``n`` (see :func:`realised_sizes`).
    """

    texts: list[str]
    labels: np.ndarray
    meanings: list[frozenset[str]]
    proportions: np.ndarray = field(repr=False)

    @property
    def sizes(self) -> np.ndarray:
        """Number of texts of each meaning."""
        return np.bincount(self.labels, minlength=len(self.meanings))

    @property
    def n(self) -> int:
        return len(self.texts)

    @property
    def k(self) -> int:
        """Number of meanings ``K``."""
        return len(self.meanings)

    def __len__(self) -> int:
        return len(self.texts)


def _check_proportions(proportions: ArrayLike) -> np.ndarray:
    try:
        w = np.asarray(proportions, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"proportions must be a 1-D sequence of positive numbers, got {proportions!r}") from None
    if w.ndim != 1 or w.size == 0:
        raise ValueError(f"proportions must be a non-empty 1-D sequence, got shape {w.shape}")
    if not np.all(np.isfinite(w)):
        raise ValueError(f"proportions must be finite, got {w.tolist()}")
    if np.any(w <= 0):
        raise ValueError(f"proportions must all be positive (a meaning with no texts is not a meaning), got {w.tolist()}")
    return w / w.sum()


def realised_sizes(n: int, proportions: ArrayLike) -> np.ndarray:
    """Split ``n`` texts in the ratio ``proportions`` by largest remainders.

    Each meaning first gets ``floor(n * w_k)`` texts (``w`` normalised to sum
    to one); the ``n - sum floor(.)`` texts left over go one each to the
    meanings with the largest fractional parts ``n w_k - floor(n w_k)``, ties
    to the earlier meaning.  The sizes sum to ``n`` exactly and each differs
    from ``n w_k`` by less than one (Hamilton's apportionment).

    Parameters
    ----------
    n : int
        Number of texts, ``n >= K``.
    proportions : sequence of positive float, length K
        Relative cluster sizes (need not sum to one).

    Returns
    -------
    ndarray of int, shape (K,)

    Raises
    ------
    ValueError
        If ``n < 1``, a proportion is not positive and finite, or some meaning
        would receive no text.

    Examples
    --------
    >>> realised_sizes(30, (0.2, 0.3, 0.5)).tolist()
    [6, 9, 15]
    >>> realised_sizes(10, (1, 1, 1)).tolist()
    [4, 3, 3]
    """
    n = check_int(n, "n", low=1)
    w = _check_proportions(proportions)
    exact = n * w
    base = np.floor(exact + 1e-9).astype(np.int64)
    base = np.minimum(base, np.ceil(exact - 1e-9).astype(np.int64))
    left = n - int(base.sum())
    frac = exact - base
    order = np.lexsort((np.arange(w.size), -np.round(frac, 12)))
    base[order[:left]] += 1
    if base.min() < 1:
        raise ValueError(
            f"n={n} texts in the ratio {np.round(w, 4).tolist()} leave meaning {int(np.argmin(base))} "
            "with no text; increase n"
        )
    return base


def _join(items: list[str]) -> str:
    if len(items) == 1:
        return items[0]
    if len(items) == 2:
        return f"{items[0]} and {items[1]}"
    return ", ".join(items[:-1]) + f", and {items[-1]}"


def make_corpus(
    n: int, proportions: ArrayLike, *, m: int = 2, n_hobbies: int = 10, random_state: RandomStateLike = None
) -> Corpus:
    """Generate ``n`` hobby texts whose meanings occur in the ratio ``proportions``.

    Parameters
    ----------
    n : int
        Number of texts, at least the number of meanings ``K = len(proportions)``.
    proportions : sequence of positive float
        Relative size of each meaning, e.g. ``(0.2, 0.3, 0.5)``; rounded to whole
        texts by :func:`realised_sizes` (largest remainders), so sizes sum to ``n``.
    m : int, default=2
        Hobbies per text (the paper's ``M``), ``1 <= m <= n_hobbies``.
    n_hobbies : int, default=10
        How many hobbies of :data:`HOBBIES` to draw from (the paper's ``N``), 1..10.
    random_state : None, int or numpy.random.Generator, default=None

    Returns
    -------
    Corpus
        Texts grouped by meaning, with labels, meanings and realised proportions.

    Raises
    ------
    ValueError
        If ``n < 1`` (empty corpus), ``m > n_hobbies`` (M > N), a proportion is
        negative, zero, NaN or infinite, there are more meanings than the
        ``C(N, M)`` distinct hobby sets, or ``n`` is too small to give every
        meaning a text.

    Notes
    -----
    The ``K`` meanings are ``K`` distinct ``m``-subsets of the first
    ``n_hobbies`` hobbies drawn uniformly without replacement (Liu 2025, section 4).
    Each text orders its hobbies by a uniform random permutation, picks a
    uniform synonym for each hobby and a uniform template from :data:`TEMPLATES`.

    Examples
    --------
    >>> c = make_corpus(5, (0.4, 0.6), random_state=0)
    >>> c.labels.tolist(), c.sizes.tolist()
    ([0, 0, 1, 1, 1], [2, 3])
    >>> all(parse_meaning(t) == c.meanings[k] for t, k in zip(c.texts, c.labels))
    True
    """
    n = check_int(n, "n", low=1)
    n_hobbies = check_int(n_hobbies, "n_hobbies", low=1, high=len(HOBBIES))
    m = check_int(m, "m", low=1)
    if m > n_hobbies:
        raise ValueError(f"m (hobbies per text, M) must be <= n_hobbies (N) = {n_hobbies}, got m={m}")
    w = _check_proportions(proportions)
    K = w.size
    n_sets = math.comb(n_hobbies, m)
    if K > n_sets:
        raise ValueError(
            f"proportions ask for {K} meanings but only C({n_hobbies}, {m}) = {n_sets} distinct hobby sets exist"
        )
    if n < K:
        raise ValueError(f"n must be >= the number of meanings {K}, got n={n}")
    sizes = realised_sizes(n, w)
    rng = check_random_state(random_state)
    if n_sets <= 100_000:
        all_sets = list(itertools.combinations(range(n_hobbies), m))
        chosen = [all_sets[i] for i in rng.choice(n_sets, size=K, replace=False)]
    else:  # pragma: no cover - unreachable with ten hobbies
        raise ValueError("too many hobby sets")
    texts: list[str] = []
    labels = np.repeat(np.arange(K), sizes)
    for k, subset in enumerate(chosen):
        for _ in range(sizes[k]):
            order = rng.permutation(np.asarray(subset))
            words = [HOBBIES[h][int(rng.integers(len(HOBBIES[h])))] for h in order]
            template = TEMPLATES[int(rng.integers(len(TEMPLATES)))]
            texts.append(template.format(hobbies=_join(words)))
    meanings = [frozenset(HOBBIES[h][0] for h in subset) for subset in chosen]
    return Corpus(texts=texts, labels=labels.astype(np.int64), meanings=meanings, proportions=sizes / n)


_PATTERNS = [
    (names[0], re.compile(r"\b(?:" + "|".join(re.escape(s) for s in names) + r")\b", re.IGNORECASE))
    for names in HOBBIES
]


def parse_meaning(text: str) -> frozenset[str]:
    """The set of canonical hobbies a hobby text asserts (synonyms resolved, order ignored).

    This is the ground-truth reading of a text, used to check that a corpus's
    labels match its texts; it is *not* a judge of arbitrary language.

    Examples
    --------
    >>> sorted(parse_meaning("John's hobbies are biking and spelunking."))
    ['caving', 'cycling']
    """
    check_string(text, "text")
    return frozenset(name for name, pat in _PATTERNS if pat.search(text))


_SPELLINGS = [
    (spelling, re.compile(r"\b" + re.escape(spelling) + r"\b", re.IGNORECASE)) for names in HOBBIES for spelling in names
]


def parse_spellings(text: str) -> frozenset[str]:
    """The hobby spellings (synonyms as written) that a hobby text uses.

    Two texts with the same meaning and the same spellings differ only in order
    and sentence frame.

    Examples
    --------
    >>> sorted(parse_spellings("John's hobbies are biking and spelunking."))
    ['biking', 'spelunking']
    """
    check_string(text, "text")
    return frozenset(s for s, pat in _SPELLINGS if pat.search(text))
