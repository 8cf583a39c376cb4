"""Runs of the Ye et al. (2024) protocol on the released logits: the tables, and the pairs they invert.

The protocol itself is core (:func:`semvar.conformal.ye_split`,
:func:`~semvar.conformal.ye_protocol`, :func:`~semvar.conformal.ye_table`,
and :func:`semvar.conformal.protocol.key_range`, the least and greatest
accuracy, set size and coverage of one model over every answer key that the
public files allow); the names are re-exported here for the code that
imported them from this module.  What this module adds:

- :func:`inversions`: the pairs of models in which the more accurate one has
  the larger sets, and which score function keeps each pair so;
- :func:`tables`: the QA table of the base models and of the chat models
  under both chat prompts;
- ``python -m semvar.experiments.ye_protocol [--out FILE]``: prints those
  tables (and writes them as one CSV file).
"""

from __future__ import annotations

import argparse
import os

import pandas as pd

from ..conformal import YE_DROPPED_IDS, ye_protocol, ye_split, ye_table
from ..conformal.protocol import key_range

__all__ = ["YE_DROPPED_IDS", "ye_split", "ye_protocol", "ye_table", "key_range", "inversions", "tables"]


def inversions(table: pd.DataFrame, *, accuracy_margin: float = 0.2, size_margin: float = 0.02) -> pd.DataFrame:
    """Pairs of models in which the more accurate one has the larger sets, and how each score orders them.

    Parameters
    ----------
    table : pandas.DataFrame
        A table of :func:`semvar.conformal.ye_table`.
    accuracy_margin : float, default=0.2
        Accuracy gap (percentage points) below which two models count as equally accurate.
    size_margin : float, default=0.02
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


def tables(*, alpha: float = 0.1, data_dir: str | os.PathLike | None = None,
           online: bool | None = None) -> dict[str, pd.DataFrame]:
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


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m semvar.experiments.ye_protocol", description=__doc__.splitlines()[0])
    ap.add_argument("--alpha", type=float, default=0.1, help="target miscoverage (default 0.1, the paper's)")
    ap.add_argument("--out", default=None, help="also write the three tables as one CSV file (column 'models')")
    args = ap.parse_args(argv)
    out = tables(alpha=args.alpha)
    for name, t in out.items():
        print(f"\nQA, {name} models (alpha = {args.alpha}): accuracy and coverage in %, set size in options")
        print(t.round(2).to_string())
    if args.out:
        pd.concat(out, names=["models", "model"]).to_csv(args.out)
        print(f"\nwritten: {args.out}")


if __name__ == "__main__":  # pragma: no cover
    main()
