"""The evaluation protocol of Ye et al. (2024) and the table it produces.

:func:`ye_split` is the paper's calibration/test split, :func:`ye_protocol`
the numbers its released code reports for one model on one task (accuracy,
LAC and APS set size and coverage, averaged over the prompts), and
:func:`ye_table` the paper's table: every model of a task, from the released
logits and an answer key.  :func:`key_range` is what a key that leaves some
ids open allows: the least and greatest accuracy, set size and coverage of one
model over every admissible key (the QA key rebuilt from public files leaves
24 ids open, see :func:`semvar.data.load_ye_answers`).

The protocol (Ye et al. 2024, section 3 and the released code): drop the
item ids 1, 3, 5, 7, 9 (the in-context demonstrations); split the other
9,995 with ``sklearn.model_selection.train_test_split(train_size=0.5,
random_state=42)`` into 4,997 calibration and 4,998 test items; softmax the
six option logits; build LAC and APS sets at ``alpha = 0.1`` with the
released threshold (:func:`~semvar.conformal.conformal_threshold`,
``quantile="paper"``); report accuracy, the set size (the mean of the LAC and
APS set sizes) and the coverage (the mean of the two coverages), each the
mean over the three prompts.

The set builders are looked up on :mod:`semvar.conformal` each time the
protocol runs, so a replacement of ``semvar.conformal.lac_sets`` (as a test of
the verdicts that rest on it makes) is what the protocol uses.
"""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from .._validation import (
    check_array,
    check_int,
    check_option,
    check_option_indices,
    check_probability,
    check_unmasked,
    float_dtype,
)
from ._checks import _check_quantile

if TYPE_CHECKING:  # pandas is imported when a table is made, not with the package
    import pandas as pd

__all__ = ["YE_DROPPED_IDS", "ye_split", "ye_protocol", "ye_table", "key_range"]

#: item ids the released code drops before splitting (used as in-context demonstrations)
YE_DROPPED_IDS = (1, 3, 5, 7, 9)


def _cf():
    # the package itself, read when called (not at import): see the module docstring
    return sys.modules[__package__]


def ye_split(n_items: int = 10000, *, cal_ratio: float = 0.5, random_state: int = 42) -> tuple[np.ndarray, np.ndarray]:
    """Calibration and test item ids of the paper's protocol.

    Parameters
    ----------
    n_items : int, default=10000
        Number of items of the task (ids ``0 .. n_items - 1``).
    cal_ratio : float in (0, 1), default=0.5
        Share of the remaining items used for calibration.
    random_state : int, default=42
        The seed of the released code.

    Returns
    -------
    cal, test : ndarray of int
        Item ids, in the order ``train_test_split`` returns them.

    Notes
    -----
    Drops ids 1, 3, 5, 7, 9 (the demonstrations), then
    ``train_test_split(ids, train_size=cal_ratio, random_state=random_state)``.
    The shuffle depends only on the number of items, so splitting ids splits
    logits and answer records identically.

    Examples
    --------
    >>> cal, test = ye_split()
    >>> len(cal), len(test)
    (4997, 4998)
    """
    from sklearn.model_selection import train_test_split

    n_items = check_int(n_items, "n_items", low=12)
    cal_ratio = check_probability(cal_ratio, "cal_ratio", low_open=True, high_open=True)
    ids = np.array([i for i in range(n_items) if i not in YE_DROPPED_IDS])
    cal, test = train_test_split(ids, train_size=cal_ratio, random_state=random_state)
    return np.asarray(cal), np.asarray(test)


def ye_protocol(
    logits: dict[str, ArrayLike] | ArrayLike, answers: ArrayLike, *, alpha: float = 0.1, quantile: str = "paper"
) -> dict:
    """Accuracy, set size and coverage of one model on one task, as the released code computes them.

    Parameters
    ----------
    logits : dict ``prompt -> array (n_items, K)``, or one array
        Row ``i`` is item id ``i`` (the layout of
        :func:`semvar.data.load_ye_logits`).  Float32 logits are kept in
        float32, as in the released code.
    answers : array-like of shape (n_items,)
        Correct option index of item id ``i``.
    alpha : float in (0, 1), default=0.1
    quantile : {"paper", "textbook"}, default="paper"
        Threshold rule, see :func:`~semvar.conformal.conformal_threshold`.

    Returns
    -------
    dict
        ``acc`` (percent), ``lac_ss``, ``aps_ss``, ``ss`` (their mean),
        ``lac_cov``, ``aps_cov``, ``cov`` (percent, the mean of the two), each
        the mean over prompts, and ``per_prompt`` with the same keys (but
        ``ss`` and ``cov``) per prompt.

    Raises
    ------
    ValueError
        Logits that are not 2-D finite arrays, answers that are not option
        indices of the right length (either a masked array with a masked
        entry included), or a bad ``alpha`` or ``quantile``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(200, 6)); y = z.argmax(axis=1)
    >>> ye_protocol({"base": z}, y)["acc"]
    100.0
    """
    cf = _cf()
    if not isinstance(logits, dict):
        logits = {"": logits}
    if not logits:
        raise ValueError("logits must hold at least one prompt's array")
    check_probability(alpha, "alpha", low_open=True, high_open=True)  # passed on as written (the textbook rank is exact)
    _check_quantile(quantile)
    per = {}
    for prompt, z in logits.items():
        z = check_unmasked(z, f"logits[{prompt!r}]")
        z = check_array(z, f"logits[{prompt!r}]", ndim=2, dtype=float_dtype(z))  # float32 stays float32
        y = check_option_indices(check_unmasked(answers, "answers"), "answers", z.shape[0], z.shape[1])
        cal, test = ye_split(z.shape[0])
        p = cf.softmax(z)
        lac = cf.lac_sets(p[cal], y[cal], p[test], alpha, quantile=quantile)
        aps = cf.aps_sets(p[cal], y[cal], p[test], alpha, quantile=quantile)
        per[prompt] = {
            "acc": 100 * cf.accuracy(z[test], y[test]),
            "lac_ss": cf.set_size(lac), "aps_ss": cf.set_size(aps),
            "lac_cov": 100 * cf.coverage(lac, y[test]), "aps_cov": 100 * cf.coverage(aps, y[test]),
        }
    keys = ["acc", "lac_ss", "aps_ss", "lac_cov", "aps_cov"]
    out: dict[str, Any] = {k: float(np.mean([v[k] for v in per.values()])) for k in keys}
    out["ss"] = (out["lac_ss"] + out["aps_ss"]) / 2
    out["cov"] = (out["lac_cov"] + out["aps_cov"]) / 2
    out["per_prompt"] = per
    return out


def _models_and_prompts(logits: Mapping) -> tuple[list[str], list[str]]:
    models, prompts = [], []
    for name in logits:
        if not isinstance(name, str) or name.count("__") != 1:
            raise ValueError(f"logits must be named MODEL__PROMPT, got {name!r}")
        m, p = name.split("__")
        if m not in models:
            models.append(m)
        if p not in prompts:
            prompts.append(p)
    missing = [f"{m}__{p}" for m in models for p in prompts if f"{m}__{p}" not in logits]
    if missing:
        raise ValueError(f"logits must hold every model under every prompt; missing {missing[:3]}")
    return models, prompts


def _labels_and_candidates(answers, n_items: int, n_options: int):
    """``(labels, candidates)``; candidates maps an id to its admissible labels where a key leaves a choice."""
    import pandas as pd

    if isinstance(answers, pd.DataFrame):
        if "label" not in answers.columns:
            raise ValueError(f"answers must have a column 'label' (as load_ye_answers returns); got {list(answers.columns)}")
        labels = check_option_indices(answers["label"].to_numpy(), "answers['label']", n_items, n_options)
        cands = {}
        if "candidates" in answers.columns:
            letters = "ABCDEF"[:n_options]
            for i, c in zip(range(n_items), answers["candidates"]):
                if isinstance(c, str) and len(c) > 1:
                    if any(ch not in letters for ch in c):
                        raise ValueError(f"answers['candidates'] must hold letters {letters}; id {i} has {c!r}")
                    cands[i] = [letters.index(ch) for ch in c]
        return labels, cands
    return check_option_indices(check_unmasked(answers, "answers"), "answers", n_items, n_options), {}


def _open_test_hits(tops: list[np.ndarray], labels: np.ndarray, cands: dict, open_test: list[int]):
    """For each open test id, its right answers summed over the prompts under each candidate, and under its own label.

    ``tops`` holds, per prompt, the top option (``np.argmax``) of every item.
    """
    hits = {i: [sum(int(t[i] == c) for t in tops) for c in cands[i]] for i in open_test}
    mine = {i: sum(int(t[i] == labels[i]) for t in tops) for i in open_test}
    return hits, mine


def _table_inputs(task, models: str, logits, answers, data_dir, online):
    """The logits and the key of a table: those given, else the release's (:mod:`semvar.data`)."""
    if logits is None or answers is None:
        from ..data import YE_TASKS, load_ye_answers, load_ye_logits

        if not isinstance(task, str) or (task not in YE_TASKS and task not in YE_TASKS.values()):
            raise ValueError(f"task must be one of {sorted(YE_TASKS)} or {sorted(YE_TASKS.values())}, got {task!r}")
        if logits is None:
            logits = load_ye_logits(task, models, data_dir=data_dir, online=online)
        if answers is None:
            answers = load_ye_answers(task, data_dir=data_dir, online=online)
    if not isinstance(logits, dict) or not logits:
        raise ValueError("logits must be a non-empty dict MODEL__PROMPT -> array (n_items, K)")
    return logits, answers


def _release_order(logits: Mapping) -> tuple[list[str], list[str]]:
    """The models and prompts of ``logits``; the models in the release's order when they are the release's."""
    names, prompts = _models_and_prompts(logits)
    from ..data import YE_CHAT_MODELS, YE_MODELS

    for known in (YE_MODELS, YE_CHAT_MODELS):
        if set(names) <= set(known):
            names = [m for m in known if m in names]
    return names, prompts


def _table_row(per_prompt: dict, labels: np.ndarray, cands: dict, open_test: list[int], n_test: int,
               alpha: float, quantile: str) -> dict:
    """One model's row of the table: the protocol's numbers, and the accuracy range of an open key."""
    r = ye_protocol(per_prompt, labels, alpha=alpha, quantile=quantile)
    row = {"accuracy": r["acc"], "set_size": r["ss"], "coverage": r["cov"],
           "lac_set_size": r["lac_ss"], "aps_set_size": r["aps_ss"],
           "lac_coverage": r["lac_cov"], "aps_coverage": r["aps_cov"]}
    if cands:
        # each open test id counts right under the letters it could have; the rest as in the key
        tops = [np.argmax(z, axis=1) for z in per_prompt.values()]
        hits, mine = _open_test_hits(tops, labels, cands, open_test)
        low = sum(min(hits[i]) - mine[i] for i in open_test)
        high = sum(max(hits[i]) - mine[i] for i in open_test)
        scale = 100 / (len(per_prompt) * n_test)
        row["accuracy_min"] = r["acc"] + low * scale
        row["accuracy_max"] = r["acc"] + high * scale
    return row


def ye_table(task: str = "qa", models: str = "base", alpha: float = 0.1, *, quantile: str = "paper",
             logits: Mapping[str, ArrayLike] | None = None, answers: pd.DataFrame | ArrayLike | None = None,
             data_dir: str | os.PathLike | None = None, online: bool | None = None) -> pd.DataFrame:
    """The paper's table for one task: accuracy, set size and coverage of every model.

    Parameters
    ----------
    task : str, default="qa"
        ``"qa"``, ``"rc"``, ``"ci"``, ``"drs"``, ``"ds"`` (or a file stem).
    models : {"base", "chat_v1", "chat_v2"}, default="base"
        The 16 base models, or the 9 chat models under either chat prompt
        (QA only); see :func:`semvar.data.load_ye_logits`.
    alpha : float in (0, 1), default=0.1
        Target miscoverage (the paper's 0.1).
    quantile : {"paper", "textbook"}, default="paper"
        Threshold rule, see :func:`~semvar.conformal.conformal_threshold`.
    logits : dict, optional
        ``"{model}__{prompt}" -> array (n_items, K)``; default
        :func:`semvar.data.load_ye_logits` ``(task, models)``.
    answers : pandas.DataFrame or array-like, optional
        The answer key: a frame with a column ``label`` (and, from a rebuilt
        key, ``candidates``), or the labels; default
        :func:`semvar.data.load_ye_answers` ``(task)``.
    data_dir, online
        Passed to the loaders when they are used.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``model`` (the release's names, in the release's order),
        with ``accuracy`` and ``coverage`` in percent and ``set_size`` in
        options, as the paper prints them (unrounded here): the means over
        LAC and APS and over the prompts; the per-score columns
        ``lac_set_size``, ``aps_set_size``, ``lac_coverage``,
        ``aps_coverage``; and, when the key leaves some ids open (the rebuilt
        QA key), ``accuracy_min`` and ``accuracy_max``: the least and
        greatest accuracy over every key the public files allow.  ``attrs``
        records ``task``, ``models``, ``alpha``, ``quantile``,
        ``n_calibration``, ``n_test``, ``prompts``, the key's ``rule`` and
        the ambiguous ids in each half.

    Raises
    ------
    ValueError
        Unknown ``task`` or ``models``, logits not named ``MODEL__PROMPT``
        or not covering every model under every prompt, an answer key of the
        wrong length or with labels outside the options, a bad ``alpha`` or
        ``quantile``.
    DataNotFoundError
        When the logits or the key are needed and cannot be found.

    Notes
    -----
    Accuracy: share of test items whose top logit (``np.argmax``, first on
    ties) is the correct option.  Set size: the paper's equation (6), the
    test-set mean of ``|C(X)|``.  Coverage: share of test items whose correct
    option is in the set.  See :func:`ye_protocol` for the protocol.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> y = rng.integers(6, size=1000)
    >>> z = {f"m{k}__p": rng.normal(size=(1000, 6)) + 3.0 * k * np.eye(6)[y] for k in (1, 2)}
    >>> t = ye_table(logits=z, answers=y)
    >>> t.index.tolist(), bool(t.loc["m2", "accuracy"] > t.loc["m1", "accuracy"])
    (['m1', 'm2'], True)
    """
    import pandas as pd

    check_option(models, "models", ("base", "chat_v1", "chat_v2"))
    alpha_f = check_probability(alpha, "alpha", low_open=True, high_open=True)  # alpha goes on as written
    _check_quantile(quantile)
    logits, answers = _table_inputs(task, models, logits, answers, data_dir, online)
    names, prompts = _release_order(logits)
    first = check_array(next(iter(logits.values())), "logits", ndim=2)
    n_items, n_options = first.shape
    labels, cands = _labels_and_candidates(answers, n_items, n_options)
    cal, test = ye_split(n_items)
    in_test, in_cal = set(test.tolist()), set(cal.tolist())
    open_test = sorted(i for i in cands if i in in_test)
    rows = {m: _table_row({p: logits[f"{m}__{p}"] for p in prompts}, labels, cands, open_test, len(test), alpha, quantile)
            for m in names}
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "model"
    attrs = getattr(answers, "attrs", {}) or {}
    table.attrs.update(
        task=task, models=models, alpha=alpha_f, quantile=quantile, prompts=prompts,
        n_calibration=len(cal), n_test=len(test),
        key_rule=attrs.get("rule", "as given"),
        ambiguous_test_ids=open_test,
        ambiguous_calibration_ids=sorted(i for i in cands if i in in_cal),
    )
    return table


# --------------------------------------------------------------------------- what an open key allows

def _kth_smallest(fixed_sorted: np.ndarray, open_scores: np.ndarray, choice: np.ndarray, rank: int) -> np.ndarray:
    """For each row of ``choice`` (one candidate per open item) the ``rank``-th smallest of the fixed and chosen scores.

    ``fixed_sorted`` (sorted), ``open_scores`` (m, c): each open item's score under each candidate,
    ``choice`` (A, m) candidate indices.  The value is min{v in the union : #{x <= v} >= rank}; adding m
    values moves a rank by at most m, so only the fixed values of ranks rank - m .. rank compete with the
    chosen ones.
    """
    m = open_scores.shape[0]
    chosen = np.take_along_axis(open_scores[None, :, :], choice[:, :, None], axis=2)[:, :, 0]  # (A, m)
    lo, hi = max(rank - m - 1, 0), min(rank, fixed_sorted.size)
    best = np.full(choice.shape[0], np.inf)
    for v in np.unique(fixed_sorted[lo:hi]):
        count = np.searchsorted(fixed_sorted, v, side="right") + (chosen <= v).sum(axis=1)
        best = np.where(count >= rank, np.minimum(best, v), best)
    for j in range(m):
        v = chosen[:, j]
        count = np.searchsorted(fixed_sorted, v, side="right") + (chosen <= v[:, None]).sum(axis=1)
        best = np.where(count >= rank, np.minimum(best, v), best)
    return best


@dataclass
class _OpenKey:
    """A key with open ids, laid out for :func:`key_range`: the split, the open ids of each half, the keys."""

    labels: np.ndarray
    cands: dict
    cal: np.ndarray
    test: np.ndarray
    open_cal: list
    open_test: list
    choices: np.ndarray       # (keys, open calibration ids): the candidate each key picks
    width: int                # most candidates of an open calibration id
    fixed_mask: np.ndarray    # calibration positions whose label the key fixes
    fixed_rows: np.ndarray    # test positions whose label the key fixes
    test_pos: dict


def _open_key(labels: np.ndarray, cands: dict, n_items: int, max_open_calibration: int) -> _OpenKey:
    cal, test = ye_split(n_items)
    cal_pos = {int(i): k for k, i in enumerate(cal)}
    open_cal = sorted(i for i in cands if i in cal_pos)
    open_test = sorted(i for i in cands if i in set(test.tolist()))
    if len(open_cal) > max_open_calibration:
        raise ValueError(f"the key leaves {len(open_cal)} calibration ids open, more than max_open_calibration="
                         f"{max_open_calibration} (2**{len(open_cal)} keys)")
    width = max([len(cands[i]) for i in open_cal], default=1)
    choices = np.array(list(itertools.product(*[range(len(cands[i])) for i in open_cal])) or [()], dtype=np.int64)
    fixed_mask = np.ones(len(cal), dtype=bool)
    fixed_mask[[cal_pos[i] for i in open_cal]] = False
    return _OpenKey(labels, cands, cal, test, open_cal, open_test, choices.reshape(len(choices), len(open_cal)),
                    width, fixed_mask, np.array([k for k, i in enumerate(test) if int(i) not in cands], dtype=np.int64),
                    {int(i): k for k, i in enumerate(test)})


def _threshold_classes(key: _OpenKey, p: np.ndarray, score_fn, set_fn, rank: int, alpha: float, quantile: str):
    """Under one prompt and score: the threshold class of every key, and per class its set size and coverage parts.

    Keys whose thresholds agree build the same sets, so one representative key per class is enough.  A class's
    coverage parts are the covered test items whose label the key fixes, and which candidates of each open test
    id its sets hold.
    """
    cal, test, cands, labels = key.cal, key.test, key.cands, key.labels
    fixed = np.sort(score_fn(p[cal][key.fixed_mask], labels[cal][key.fixed_mask]))
    opened = np.full((len(key.open_cal), key.width), np.inf)
    for j, i in enumerate(key.open_cal):
        opened[j, :len(cands[i])] = score_fn(np.repeat(p[[i]], len(cands[i]), axis=0), cands[i])
    qhat = _kth_smallest(fixed, opened, key.choices, rank)
    _, first, cls = np.unique(qhat, return_index=True, return_inverse=True)
    sizes, cover = [], []
    for a in first:
        y = labels.copy()
        for j, i in enumerate(key.open_cal):
            y[i] = cands[i][key.choices[a, j]]
        sets = set_fn(p[cal], y[cal], p[test], alpha, quantile=quantile)
        sizes.append(_cf().set_size(sets))
        opened_in = np.zeros((len(key.open_test), key.width))  # membership of each candidate of each open test id
        for j, i in enumerate(key.open_test):
            opened_in[j, :len(cands[i])] = sets[key.test_pos[i], cands[i]]
        cover.append((int(sets[key.fixed_rows, labels[test][key.fixed_rows]].sum()), opened_in))
    return cls, np.array(sizes), cover


def _size_and_coverage_ranges(key: _OpenKey, level_ids: list, sizes: list, member: list):
    """Set size and the least and greatest coverage of every distinct combination of threshold classes."""
    distinct = np.unique(np.stack(level_ids, axis=1), axis=0)  # (combinations, prompts * 2)
    cands, width = key.cands, key.width
    pad = np.array([[0.0] * len(cands[i]) + [np.inf] * (width - len(cands[i])) for i in key.open_test]).reshape(-1, width)
    ss, cov_lo, cov_hi = [], [], []
    for row in distinct:
        ss.append(np.mean([sizes[c][row[c]] for c in range(len(row))]))
        base = sum(member[c][row[c]][0] for c in range(len(row)))
        contrib = sum(member[c][row[c]][1] for c in range(len(row)))
        lo = base + float(np.sum(np.min(contrib + pad, axis=1))) if len(key.open_test) else base
        hi = base + float(np.sum(np.max(contrib - pad, axis=1))) if len(key.open_test) else base
        cov_lo.append(lo / (len(row) * len(key.test)))
        cov_hi.append(hi / (len(row) * len(key.test)))
    return ss, cov_lo, cov_hi, len(distinct)


def key_range(logits: dict[str, ArrayLike], answers: pd.DataFrame | ArrayLike, *, alpha: float = 0.1,
              quantile: str = "paper", max_open_calibration: int = 20) -> dict:
    """Least and greatest accuracy, set size and coverage of one model over every admissible answer key.

    A rebuilt key (:func:`semvar.data.load_ye_answers`, QA task) leaves some
    ids open between two letters (its column ``candidates``).  Open ids in
    the test half move accuracy and coverage; open ids in the calibration
    half move the thresholds, hence the sets, set size and coverage.  This
    function enumerates every choice for the calibration half (``c`` open
    ids: ``2**c`` keys), finds the thresholds each choice gives, builds the
    sets of each distinct threshold with :func:`semvar.conformal.lac_sets`
    and :func:`~semvar.conformal.aps_sets`, and adds the least and the
    greatest contribution of each open test id.  No key is chosen: the result
    is the range a reader cannot narrow without the task file.

    Parameters
    ----------
    logits : dict ``prompt -> array (n_items, K)``
        One model's logits under each prompt.
    answers : pandas.DataFrame or array-like
        The key, with columns ``label`` and ``candidates`` (as
        :func:`~semvar.conformal.ye_table` reads it); labels alone leave no id open.
    alpha : float in (0, 1), default=0.1
    quantile : {"paper", "textbook"}, default="paper"
    max_open_calibration : int, default=20
        Refuse keys with more open calibration ids (the enumeration doubles
        with each).

    Returns
    -------
    dict
        ``accuracy``, ``set_size``, ``coverage``: ``(least, greatest)`` (per
        cent / options / per cent, the paper's averages over LAC and APS and
        over prompts); ``key``: the same three at the key's own letters;
        ``open_calibration`` and ``open_test``: the open ids of each half;
        ``n_keys``: the number of keys enumerated over;
        ``n_threshold_classes``: the distinct combinations of thresholds.

    Raises
    ------
    ValueError
        Logits of unequal shapes, a key of the wrong length, more open
        calibration ids than ``max_open_calibration``, or a bad ``alpha`` or
        ``quantile``.

    Examples
    --------
    A key over 400 items that leaves one test id (83) and one calibration id
    (283) open between two letters: four keys.

    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(4, size=400)
    >>> z = {"p": rng.normal(size=(400, 4)) + 2.0 * np.eye(4)[y]}
    >>> key = pd.DataFrame({"label": y, "candidates": ["ABCD"[k] for k in y]})
    >>> key.loc[83, "candidates"], key.loc[283, "candidates"] = "AB", "AC"
    >>> r = key_range(z, key)
    >>> r["n_keys"], [round(float(v), 2) for v in r["accuracy"]], [round(float(v), 3) for v in r["set_size"]]
    (4, [79.8, 80.3], [1.682, 1.687])
    """
    cf = _cf()
    if not isinstance(logits, dict) or not logits:
        raise ValueError("logits must be a non-empty dict prompt -> array (n_items, K)")
    shapes = {np.shape(z) for z in logits.values()}
    if len(shapes) != 1 or len(next(iter(shapes))) != 2:
        raise ValueError(f"logits must be 2-D arrays of one shape, got {sorted(shapes)}")
    check_probability(alpha, "alpha", low_open=True, high_open=True)  # passed on as written (the textbook rank is exact)
    _check_quantile(quantile)
    max_open_calibration = check_int(max_open_calibration, "max_open_calibration", low=0)
    n_items, n_options = next(iter(shapes))
    labels, cands = _labels_and_candidates(answers, n_items, n_options)
    key = _open_key(labels, cands, n_items, max_open_calibration)
    rank = cf.quantile_rank(len(key.cal), alpha, quantile=quantile)
    level_ids, sizes, member = [], [], []  # per (prompt, score): threshold class of each key; per class: size, sets
    for z in logits.values():
        p = cf.softmax(z)
        for score_fn, set_fn in ((cf.lac_scores, cf.lac_sets), (cf.aps_scores, cf.aps_sets)):
            cls, class_sizes, class_cover = _threshold_classes(key, p, score_fn, set_fn, rank, alpha, quantile)
            level_ids.append(cls)
            sizes.append(class_sizes)
            member.append(class_cover)
    ss, cov_lo, cov_hi, n_classes = _size_and_coverage_ranges(key, level_ids, sizes, member)
    tops = [np.argmax(z, axis=1) for z in logits.values()]
    hits, mine = _open_test_hits(tops, labels, cands, key.open_test)
    right = sum(int(np.sum(t[key.test] == labels[key.test])) for t in tops) - sum(mine.values())
    own = cf.ye_protocol(logits, labels, alpha=alpha, quantile=quantile)
    scale = 100 / (len(logits) * len(key.test))
    return {
        "accuracy": ((right + sum(np.min(h) for h in hits.values())) * scale,
                     (right + sum(np.max(h) for h in hits.values())) * scale),
        "set_size": (float(min(ss)), float(max(ss))),
        "coverage": (100 * float(min(cov_lo)), 100 * float(max(cov_hi))),
        "key": {"accuracy": own["acc"], "set_size": own["ss"], "coverage": own["cov"]},
        "open_calibration": key.open_cal,
        "open_test": key.open_test,
        "n_keys": int(len(key.choices) * np.prod([len(cands[i]) for i in key.open_test], dtype=np.int64)),
        "n_threshold_classes": int(n_classes),
    }
