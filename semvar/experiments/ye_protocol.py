"""Runs of the Ye et al. (2024) protocol on the released logits: the tables, and what an open answer key allows.

The protocol itself is core (:func:`semvar.conformal.ye_split`,
:func:`~semvar.conformal.ye_protocol`, :func:`~semvar.conformal.ye_table`);
the names are re-exported here for the code that imported them from this
module.  What this module adds:

- :func:`key_range`: the least and greatest accuracy, set size and coverage
  of one model over *every* answer key that the public files allow, when a
  rebuilt key leaves some ids open (the QA key of
  :func:`semvar.data.load_ye_answers` leaves 24, see its rule);
- :func:`inversions`: the pairs of models in which the more accurate one has
  the larger sets, and which score function keeps each pair so;
- :func:`tables`: the QA table of the base models and of the chat models
  under both chat prompts;
- ``python -m semvar.experiments.ye_protocol [--out FILE]``: prints those
  tables (and writes them as one CSV file).
"""

from __future__ import annotations

import argparse
import itertools

import numpy as np

from .. import conformal as cf
from ..conformal import YE_DROPPED_IDS, ye_protocol, ye_split, ye_table

__all__ = ["YE_DROPPED_IDS", "ye_split", "ye_protocol", "ye_table", "key_range", "inversions", "tables"]


def _key(answers, n_items: int, n_options: int):
    labels = np.asarray(answers["label"].to_numpy(), dtype=np.int64)
    if labels.shape != (n_items,) or labels.min() < 0 or labels.max() >= n_options:
        raise ValueError(f"answers['label'] must hold {n_items} option indices in 0..{n_options - 1}")
    cands = {}
    if "candidates" in answers.columns:
        letters = "ABCDEF"[:n_options]
        for i, c in enumerate(answers["candidates"]):
            if isinstance(c, str) and len(c) > 1:
                cands[i] = [letters.index(ch) for ch in c]
    return labels, cands


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


def key_range(logits, answers, *, alpha: float = 0.1, quantile: str = "paper", max_open_calibration: int = 20) -> dict:
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
    answers : pandas.DataFrame
        The key, with columns ``label`` and ``candidates``.
    alpha : float, default 0.1
    quantile : {"paper", "textbook"}, default "paper"
    max_open_calibration : int, default 20
        Refuse keys with more open calibration ids (the enumeration doubles
        with each).

    Returns
    -------
    dict
        ``accuracy``, ``set_size``, ``coverage``: ``(least, greatest)`` (per
        cent / options / per cent, the paper's averages over LAC and APS and
        over prompts); ``key``: the same three at the key's own letters;
        ``open_calibration`` and ``open_test``: the open ids of each half;
        ``n_keys``: the number of keys enumerated over.

    Raises
    ------
    ValueError
        Logits of unequal shapes, a key of the wrong length, or more open
        calibration ids than ``max_open_calibration``.

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
    if not isinstance(logits, dict) or not logits:
        raise ValueError("logits must be a non-empty dict prompt -> array (n_items, K)")
    shapes = {np.shape(z) for z in logits.values()}
    if len(shapes) != 1 or len(next(iter(shapes))) != 2:
        raise ValueError(f"logits must be 2-D arrays of one shape, got {sorted(shapes)}")
    n_items, n_options = next(iter(shapes))
    labels, cands = _key(answers, n_items, n_options)
    cal, test = ye_split(n_items)
    cal_pos = {int(i): k for k, i in enumerate(cal)}
    open_cal = sorted(i for i in cands if i in cal_pos)
    open_test = sorted(i for i in cands if i in set(test.tolist()))
    if len(open_cal) > max_open_calibration:
        raise ValueError(f"the key leaves {len(open_cal)} calibration ids open, more than max_open_calibration="
                         f"{max_open_calibration} (2**{len(open_cal)} keys)")
    width = max([len(cands[i]) for i in open_cal], default=1)
    choices = np.array(list(itertools.product(*[range(len(cands[i])) for i in open_cal])) or [()], dtype=np.int64)
    choices = choices.reshape(len(choices), len(open_cal))
    rank = cf.quantile_rank(len(cal), alpha, quantile=quantile)
    fixed_mask = np.ones(len(cal), dtype=bool)
    fixed_mask[[cal_pos[i] for i in open_cal]] = False
    test_pos = {int(i): k for k, i in enumerate(test)}
    fixed_rows = np.array([k for k, i in enumerate(test) if int(i) not in cands], dtype=np.int64)
    fixed_labels = labels[test][fixed_rows]

    level_ids, sizes, member = [], [], []  # per (prompt, score): threshold class of each key; per class: size, sets
    right = 0  # right answers over prompts at the key's own letters
    hits = {i: np.zeros(len(cands[i])) for i in open_test}  # an open test id: right answers under each candidate
    for z in logits.values():
        p = cf.softmax(z)
        top = np.argmax(z, axis=1)
        right += int(np.sum(top[test] == labels[test]))
        for i in open_test:
            hits[i] += [int(top[i] == c) for c in cands[i]]
            right -= int(top[i] == labels[i])
        for score_fn, set_fn in ((cf.lac_scores, cf.lac_sets), (cf.aps_scores, cf.aps_sets)):
            fixed = np.sort(score_fn(p[cal][fixed_mask], labels[cal][fixed_mask]))
            opened = np.full((len(open_cal), width), np.inf)
            for j, i in enumerate(open_cal):
                opened[j, :len(cands[i])] = score_fn(np.repeat(p[[i]], len(cands[i]), axis=0), cands[i])
            qhat = _kth_smallest(fixed, opened, choices, rank)
            values, first, cls = np.unique(qhat, return_index=True, return_inverse=True)
            level_ids.append(cls)
            class_sizes, class_cover = [], []
            for a in first:  # one representative key per threshold: its sets are those of every key in the class
                y = labels.copy()
                for j, i in enumerate(open_cal):
                    y[i] = cands[i][choices[a, j]]
                sets = set_fn(p[cal], y[cal], p[test], alpha, quantile=quantile)
                class_sizes.append(cf.set_size(sets))
                opened_in = np.zeros((len(open_test), width))  # membership of each candidate of each open test id
                for j, i in enumerate(open_test):
                    opened_in[j, :len(cands[i])] = sets[test_pos[i], cands[i]]
                class_cover.append((int(sets[fixed_rows, fixed_labels].sum()), opened_in))
            sizes.append(np.array(class_sizes))
            member.append(class_cover)
    n_prompts = len(logits)
    combos = np.stack(level_ids, axis=1)  # (keys, prompts * 2)
    distinct = np.unique(combos, axis=0)
    pad = np.array([[0.0] * len(cands[i]) + [np.inf] * (width - len(cands[i])) for i in open_test]).reshape(-1, width)
    ss, cov_lo, cov_hi = [], [], []
    for row in distinct:
        ss.append(np.mean([sizes[c][row[c]] for c in range(len(row))]))
        base = sum(member[c][row[c]][0] for c in range(len(row)))
        contrib = sum(member[c][row[c]][1] for c in range(len(row)))
        lo = base + float(np.sum(np.min(contrib + pad, axis=1))) if len(open_test) else base
        hi = base + float(np.sum(np.max(contrib - pad, axis=1))) if len(open_test) else base
        cov_lo.append(lo / (len(row) * len(test)))
        cov_hi.append(hi / (len(row) * len(test)))
    own = cf.ye_protocol(logits, labels, alpha=alpha, quantile=quantile)
    scale = 100 / (n_prompts * len(test))
    return {
        "accuracy": ((right + sum(h.min() for h in hits.values())) * scale,
                     (right + sum(h.max() for h in hits.values())) * scale),
        "set_size": (float(min(ss)), float(max(ss))),
        "coverage": (100 * float(min(cov_lo)), 100 * float(max(cov_hi))),
        "key": {"accuracy": own["acc"], "set_size": own["ss"], "coverage": own["cov"]},
        "open_calibration": open_cal,
        "open_test": open_test,
        "n_keys": int(len(choices) * np.prod([len(cands[i]) for i in open_test], dtype=np.int64)),
        "n_threshold_classes": int(len(distinct)),
    }


def inversions(table, *, accuracy_margin: float = 0.2, size_margin: float = 0.02):
    """Pairs of models in which the more accurate one has the larger sets, and how each score orders them.

    Parameters
    ----------
    table : pandas.DataFrame
        A table of :func:`semvar.conformal.ye_table`.
    accuracy_margin : float, default 0.2
        Accuracy gap (percentage points) below which two models count as equally accurate.
    size_margin : float, default 0.02
        Set-size gap (options) below which two set sizes count as equal.  The defaults exceed what the
        24 open ids of the rebuilt QA key can move (about 0.15 points and 0.013 options).

    Returns
    -------
    pandas.DataFrame
        One row per pair (``more_accurate``, ``less_accurate``) whose set size (the paper's mean of
        LAC and APS) is larger for the more accurate model, with the gaps and whether LAC and APS
        alone order the pair the same way (``lac``, ``aps``), and the APS coverage of the more
        accurate model.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"accuracy": [70.0, 60.0], "set_size": [3.0, 2.5], "lac_set_size": [2.0, 2.2],
    ...                   "aps_set_size": [4.0, 2.8], "aps_coverage": [95.0, 91.0]}, index=["a", "b"])
    >>> inversions(t)[["more_accurate", "less_accurate", "lac", "aps"]].values.tolist()
    [['a', 'b', False, True]]
    """
    import pandas as pd

    rows = []
    for a in table.index:
        for b in table.index:
            ta, tb = table.loc[a], table.loc[b]
            gap, size_gap = ta["accuracy"] - tb["accuracy"], ta["set_size"] - tb["set_size"]
            if gap > accuracy_margin and size_gap > size_margin:
                rows.append({"more_accurate": a, "less_accurate": b, "accuracy_gap": gap, "set_size_gap": size_gap,
                             "lac": bool(ta["lac_set_size"] - tb["lac_set_size"] > size_margin),
                             "aps": bool(ta["aps_set_size"] - tb["aps_set_size"] > size_margin),
                             "aps_coverage": ta["aps_coverage"]})
    cols = ["more_accurate", "less_accurate", "accuracy_gap", "set_size_gap", "lac", "aps", "aps_coverage"]
    return pd.DataFrame(rows, columns=cols)


def tables(*, alpha: float = 0.1, data_dir=None, online: bool | None = None):
    """The QA table of the 16 base models and of the 9 chat models under both chat prompts.

    Returns
    -------
    dict
        ``"base"``, ``"chat_v1"``, ``"chat_v2"`` -> the frame of
        :func:`semvar.conformal.ye_table`.
    """
    from ..data import load_ye_answers

    key = load_ye_answers("qa", data_dir=data_dir, online=online)
    return {m: ye_table("qa", m, alpha, answers=key, data_dir=data_dir, online=online)
            for m in ("base", "chat_v1", "chat_v2")}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m semvar.experiments.ye_protocol", description=__doc__.splitlines()[0])
    ap.add_argument("--alpha", type=float, default=0.1, help="target miscoverage (default 0.1, the paper's)")
    ap.add_argument("--out", default=None, help="also write the three tables as one CSV file (column 'models')")
    args = ap.parse_args(argv)
    import pandas as pd

    out = tables(alpha=args.alpha)
    for name, t in out.items():
        print(f"\nQA, {name} models (alpha = {args.alpha}): accuracy and coverage in %, set size in options")
        print(t.round(2).to_string())
    if args.out:
        pd.concat(out, names=["models", "model"]).to_csv(args.out)
        print(f"\nwritten: {args.out}")


if __name__ == "__main__":  # pragma: no cover
    main()
