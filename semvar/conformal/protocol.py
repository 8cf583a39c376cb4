"""The evaluation protocol of Ye et al. (2024) and the table it produces.

:func:`ye_split` is the paper's calibration/test split, :func:`ye_protocol`
the numbers its released code reports for one model on one task (accuracy,
LAC and APS set size and coverage, averaged over the prompts), and
:func:`ye_table` the paper's table: every model of a task, from the released
logits and an answer key.

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

import sys

import numpy as np

from .._validation import check_array, check_int, check_option_indices, check_probability, float_dtype
from ._checks import _check_quantile

__all__ = ["YE_DROPPED_IDS", "ye_split", "ye_protocol", "ye_table"]

#: item ids the released code drops before splitting (used as in-context demonstrations)
YE_DROPPED_IDS = (1, 3, 5, 7, 9)


def _cf():
    # the package itself, read when called (not at import): see the module docstring
    return sys.modules[__package__]


def ye_split(n_items: int = 10000, *, cal_ratio: float = 0.5, random_state: int = 42):
    """Calibration and test item ids of the paper's protocol.

    Parameters
    ----------
    n_items : int, default 10000
        Number of items of the task (ids ``0 .. n_items - 1``).
    cal_ratio : float in (0, 1), default 0.5
        Share of the remaining items used for calibration.
    random_state : int, default 42
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


def ye_protocol(logits, answers, *, alpha: float = 0.1, quantile: str = "paper") -> dict:
    """Accuracy, set size and coverage of one model on one task, as the released code computes them.

    Parameters
    ----------
    logits : dict ``prompt -> array (n_items, K)``, or one array
        Row ``i`` is item id ``i`` (the layout of
        :func:`semvar.data.load_ye_logits`).  Float32 logits are kept in
        float32, as in the released code.
    answers : array-like of shape (n_items,)
        Correct option index of item id ``i``.
    alpha : float in (0, 1), default 0.1
    quantile : {"paper", "textbook"}, default "paper"
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
        indices of the right length, or a bad ``alpha`` or ``quantile``.

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
    alpha = check_probability(alpha, "alpha", low_open=True, high_open=True)
    _check_quantile(quantile)
    per = {}
    for prompt, z in logits.items():
        z = check_array(z, f"logits[{prompt!r}]", ndim=2, dtype=float_dtype(z))  # float32 stays float32
        y = check_option_indices(answers, "answers", z.shape[0], z.shape[1])
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
    out = {k: float(np.mean([v[k] for v in per.values()])) for k in keys}
    out["ss"] = (out["lac_ss"] + out["aps_ss"]) / 2
    out["cov"] = (out["lac_cov"] + out["aps_cov"]) / 2
    out["per_prompt"] = per
    return out


def _models_and_prompts(logits: dict) -> tuple[list[str], list[str]]:
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
    return check_option_indices(answers, "answers", n_items, n_options), {}


def ye_table(task: str = "qa", models: str = "base", alpha: float = 0.1, *, quantile: str = "paper",
             logits=None, answers=None, data_dir=None, online: bool | None = None):
    """The paper's table for one task: accuracy, set size and coverage of every model.

    Parameters
    ----------
    task : str, default "qa"
        ``"qa"``, ``"rc"``, ``"ci"``, ``"drs"``, ``"ds"`` (or a file stem).
    models : {"base", "chat_v1", "chat_v2"}, default "base"
        The 16 base models, or the 9 chat models under either chat prompt
        (QA only); see :func:`semvar.data.load_ye_logits`.
    alpha : float in (0, 1), default 0.1
        Target miscoverage (the paper's 0.1).
    quantile : {"paper", "textbook"}, default "paper"
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

    if models not in ("base", "chat_v1", "chat_v2"):
        raise ValueError(f"models must be one of ('base', 'chat_v1', 'chat_v2'), got {models!r}")
    alpha = check_probability(alpha, "alpha", low_open=True, high_open=True)
    _check_quantile(quantile)
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
    names, prompts = _models_and_prompts(logits)
    from ..data import YE_CHAT_MODELS, YE_MODELS

    for known in (YE_MODELS, YE_CHAT_MODELS):  # the release's order, when these are the release's models
        if set(names) <= set(known):
            names = [m for m in known if m in names]
    first = check_array(next(iter(logits.values())), "logits", ndim=2)
    n_items, n_options = first.shape
    labels, cands = _labels_and_candidates(answers, n_items, n_options)
    cal, test = ye_split(n_items)
    in_test, in_cal = set(test.tolist()), set(cal.tolist())
    open_test = sorted(i for i in cands if i in in_test)

    rows = {}
    for m in names:
        r = ye_protocol({p: logits[f"{m}__{p}"] for p in prompts}, labels, alpha=alpha, quantile=quantile)
        row = {"accuracy": r["acc"], "set_size": r["ss"], "coverage": r["cov"],
               "lac_set_size": r["lac_ss"], "aps_set_size": r["aps_ss"],
               "lac_coverage": r["lac_cov"], "aps_coverage": r["aps_cov"]}
        if cands:
            # each open test id counts right under the letters it could have; the rest as in the key
            low = high = 0
            for i in open_test:
                hits = [sum(int(np.argmax(logits[f"{m}__{p}"][i]) == c) for p in prompts) for c in cands[i]]
                mine = sum(int(np.argmax(logits[f"{m}__{p}"][i]) == labels[i]) for p in prompts)
                low += min(hits) - mine
                high += max(hits) - mine
            scale = 100 / (len(prompts) * len(test))
            row["accuracy_min"] = r["acc"] + low * scale
            row["accuracy_max"] = r["acc"] + high * scale
        rows[m] = row
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "model"
    attrs = getattr(answers, "attrs", {}) or {}
    table.attrs.update(
        task=task, models=models, alpha=alpha, quantile=quantile, prompts=prompts,
        n_calibration=len(cal), n_test=len(test),
        key_rule=attrs.get("rule", "as given"),
        ambiguous_test_ids=open_test,
        ambiguous_calibration_ids=sorted(i for i in cands if i in in_cal),
    )
    return table
