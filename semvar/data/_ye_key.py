"""The QA answer key of Ye et al. (2024) rebuilt from public files: the rule, the rebuild and its other orders.

The task file with the QA letters is on the Hugging Face hub only; what is
public elsewhere is a conversion that keeps each id's question and the *text*
of its correct option.  :func:`rebuild_qa_key` turns those texts and MMLU's
test split into letters by :data:`YE_QA_KEY_RULE`, and :func:`refill_qa_key`
applies the other model-free orders in which the ids that the texts leave open
can be served.  Reading the files is the loader's work
(:func:`semvar.data.load_ye_answers`); this module only computes.

Private to :mod:`semvar.data`, which re-exports the public names.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._validation import check_option

__all__ = ["YE_OPTIONS", "YE_QA_KEY_RULE", "AnswerKeyWarning", "rebuild_qa_key", "refill_qa_key"]

#: The option letters of the release (E = "I don't know", F = "None of the above").
YE_OPTIONS = "ABCDEF"

#: Items of each task of the release.
N_ITEMS = 10000

YE_QA_KEY_RULE = (
    "The letter of each id is MMLU's own answer for the test row whose question is the id's question "
    "(exact text) and whose correct option is the id's answer text (a missing answer, NaN or null, is read "
    "as the text 'None'). Where several such rows hold the correct option at different letters, the id is marked "
    "ambiguous and the rows are handed out in order: ids in increasing order, each taking the first "
    "such row (in MMLU's order) that no other id has taken. No model output is used."
)


class AnswerKeyWarning(UserWarning):
    """A rebuilt answer key has ids whose letter the public files do not determine (see the frame's ``attrs``)."""


def _is_null(value: object) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value))


# --------------------------------------------------------------------------- the rebuild, in steps

def _check_text_records(records: object, source: str) -> None:
    """10,000 dicts ``{id, question, answer}``, ids 0-9999 once each, text questions, text or missing answers."""
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise ValueError(f"{source}: expected a JSON list of records {{id, question, answer}}")
    if len(records) != N_ITEMS:
        raise ValueError(f"{source}: expected {N_ITEMS:,} records, found {len(records):,}")
    missing = sorted({f for r in records for f in ("id", "question", "answer") if f not in r})
    if missing:
        raise ValueError(f"{source}: records lack the fields {missing}")
    ids = [r["id"] for r in records]
    if not all(type(i) is int for i in ids) or sorted(ids) != list(range(N_ITEMS)):
        raise ValueError(f"{source}: field id must hold the integers 0-{N_ITEMS - 1}, each once")
    bad = [r["id"] for r in records if not isinstance(r["question"], str)
           or not (isinstance(r["answer"], str) or _is_null(r["answer"]))]
    if bad:
        raise ValueError(f"{source}: question must be text and answer text or missing; not so for ids {sorted(bad)[:5]}")


def _admissible_rows(by_id: list[dict], rows_of: dict[str, list[int]], choices: list[list[str]],
                     keyed: np.ndarray, source: str) -> tuple[list[list[int]], list[int]]:
    """Per id, the MMLU rows with its question whose correct option is its answer text; and the ids read as 'None'."""
    unmatched, untexted, admissible, nulls = [], [], [], []
    for r in by_id:
        rows = rows_of.get(r["question"], [])
        if not rows:
            unmatched.append(r["id"])
            continue
        text = r["answer"]
        if _is_null(text):
            nulls.append(r["id"])
            text = "None"
        ok = [row for row in rows if choices[row][keyed[row]] == text]
        if not ok:
            untexted.append(r["id"])
        admissible.append(ok)
    if unmatched:
        raise ValueError(f"{source}: {len(unmatched)} questions occur nowhere in MMLU's test split "
                         f"(exact text), e.g. ids {unmatched[:5]}; is this MMLU's test split in the hub's order?")
    if untexted:
        raise ValueError(f"{source}: for {len(untexted)} ids the answer text is the correct option of no MMLU row "
                         f"with that question, e.g. ids {untexted[:5]}")
    return admissible, nulls


def _key_frame(admissible: list[list[int]], keyed: np.ndarray, subjects: np.ndarray) -> pd.DataFrame:
    """The key's columns, each id taking its row by the rule's order (ids increasing, first free row)."""
    assigned = np.asarray(_hand_out(admissible, "id", "first"))
    letters = [sorted({int(keyed[row]) for row in rows}) for rows in admissible]
    label = keyed[assigned].astype(np.int64)
    return pd.DataFrame({
        "id": np.arange(N_ITEMS),
        "answer": [YE_OPTIONS[k] for k in label],
        "label": label,
        "mmlu_test_row": assigned.astype(np.int64),
        "subject": subjects[assigned],
        "ambiguous": np.array([len(x) > 1 for x in letters]),
        "candidates": ["".join(YE_OPTIONS[k] for k in x) for x in letters],
        "candidate_rows": [tuple(int(row) for row in rows) for rows in admissible],
    })


def rebuild_qa_key(records: list[dict], mmlu: pd.DataFrame, *, source: str = "the answer texts") -> pd.DataFrame:
    """The answer letters of the QA task from its answer texts and MMLU's test split (see :data:`YE_QA_KEY_RULE`).

    Parameters
    ----------
    records : list of dict
        10,000 records ``{"id", "question", "answer"}``: the id's question and
        the text of its correct option (missing, None or NaN, for the option
        "None").
    mmlu : pandas.DataFrame
        MMLU's test split in the hub's row order (columns ``question``,
        ``subject``, ``choices``, ``answer``), as :func:`semvar.data.load_mmlu`
        returns it.
    source : str, default="the answer texts"
        Where the records came from, for the error messages.

    Returns
    -------
    pandas.DataFrame
        The key in id order, as :func:`semvar.data.load_ye_answers` describes
        the rebuilt QA key (``id``, ``answer``, ``label``, ``mmlu_test_row``,
        ``subject``, ``ambiguous``, ``candidates``, ``candidate_rows`` and the
        ``attrs``).

    Raises
    ------
    ValueError
        Records that are not 10,000 dicts with ids 0-9999, text questions and
        text or missing answers; a question that occurs nowhere in ``mmlu``;
        an answer text that is the correct option of none of its question's
        rows.  Every check runs before anything is returned.

    Examples
    --------
    >>> rebuild_qa_key([{"id": 0, "question": "q", "answer": "a"}], pd.DataFrame())
    Traceback (most recent call last):
    ...
    ValueError: the answer texts: expected 10,000 records, found 1
    """
    _check_text_records(records, source)
    questions = mmlu["question"].tolist()
    choices = [list(c) for c in mmlu["choices"]]
    keyed = mmlu["answer"].to_numpy()
    rows_of: dict[str, list[int]] = {}
    for row, q in enumerate(questions):
        rows_of.setdefault(q, []).append(row)
    by_id = sorted(records, key=lambda r: r["id"])
    admissible, nulls = _admissible_rows(by_id, rows_of, choices, keyed, source)
    subjects = mmlu["subject"].to_numpy()
    out = _key_frame(admissible, keyed, subjects)
    ambiguous = out["ambiguous"].to_numpy()
    several = {int(row) for rows in admissible if len(rows) > 1 for row in rows}
    out.attrs.update(
        source=source,
        rule=YE_QA_KEY_RULE,
        row_label={row: int(keyed[row]) for row in sorted(several)},
        row_subject={row: str(subjects[row]) for row in sorted(several)},
        n_ambiguous=int(ambiguous.sum()),
        ambiguous_ids=[int(i) for i in np.flatnonzero(ambiguous)],
        null_answer_ids=[int(i) for i in nulls],
        n_shared_question=sum(len(rows_of[r["question"]]) > 1 for r in by_id),
        n_several_rows=int(sum(len(rows) > 1 for rows in admissible)),
    )
    return out


# --------------------------------------------------------------------------- the other orders

def _hand_out(admissible: list[list[int]], order: str, row: str) -> list[int]:
    """One MMLU row per id: an id with one admissible row takes it; the others are served in ``order``
    (``"id"``: increasing id, ``"reverse"``: decreasing), each taking the ``row`` (``"first"`` or
    ``"last"`` in MMLU's order) of its admissible rows that no id has taken yet (any of them if all are)."""
    taken = {rows[0] for rows in admissible if len(rows) == 1}
    out = [rows[0] if len(rows) == 1 else -1 for rows in admissible]
    several = [i for i, rows in enumerate(admissible) if len(rows) > 1]
    for i in (several if order == "id" else several[::-1]):
        rows = admissible[i]
        free = [r for r in rows if r not in taken] or list(rows)
        out[i] = free[0] if row == "first" else free[-1]
        taken.add(out[i])
    return out


def refill_qa_key(key: pd.DataFrame, *, order: str = "id", row: str = "first") -> pd.DataFrame:
    """The rebuilt QA key with its open ids filled by another model-free rule.

    The rebuilt key (:func:`semvar.data.load_ye_answers` ``("qa")`` without the task file)
    hands the MMLU rows of ids with several admissible rows out in increasing
    id order, each id taking the first free row.  The other orders are as
    model-free; this function applies one of them, so that a result can be
    shown under all four.

    Parameters
    ----------
    key : pandas.DataFrame
        A rebuilt QA key (it has the column ``candidate_rows`` and the
        ``attrs`` ``row_label`` and ``row_subject``).
    order : {"id", "reverse"}, default="id"
        The order in which ids with several admissible rows are served.
    row : {"first", "last"}, default="first"
        Which free admissible row (in MMLU's order) an id takes.

    Returns
    -------
    pandas.DataFrame
        A copy of ``key`` with ``answer``, ``label``, ``mmlu_test_row`` and
        ``subject`` of those ids replaced; ``attrs["rule"]`` names the rule.
        ``refill_qa_key(key)`` equals ``key``.

    Raises
    ------
    ValueError
        For an unknown ``order`` or ``row``, or a key that is not a rebuilt QA key.

    Examples
    --------
    >>> key = pd.DataFrame({"id": [0, 1, 2], "answer": ["A", "A", "B"], "label": [0, 0, 1],
    ...                     "mmlu_test_row": [7, 8, 9], "subject": ["s", "s", "t"], "ambiguous": [True, True, False],
    ...                     "candidates": ["AB", "AB", "B"], "candidate_rows": [(7, 8), (7, 8), (9,)]})
    >>> key.attrs.update(row_label={7: 0, 8: 1}, row_subject={7: "s", 8: "s"})
    >>> refill_qa_key(key, order="reverse")[["answer", "mmlu_test_row"]].values.tolist()
    [['B', 8], ['A', 7], ['B', 9]]
    """
    check_option(order, "order", ("id", "reverse"))
    check_option(row, "row", ("first", "last"))
    if not isinstance(key, pd.DataFrame) or "candidate_rows" not in key or not {"row_label", "row_subject"} <= set(key.attrs):
        raise ValueError("key must be a rebuilt QA key from load_ye_answers('qa') (column candidate_rows, "
                         "attrs row_label and row_subject); a key read from the task file has no open ids")
    admissible = [list(rows) for rows in key["candidate_rows"]]
    assigned = _hand_out(admissible, order, row)
    out = key.copy()
    out.attrs = dict(key.attrs)
    for i, rows in enumerate(admissible):
        if len(rows) > 1:
            r = assigned[i]
            lab = key.attrs["row_label"][r]
            out.iloc[i, out.columns.get_loc("label")] = lab
            out.iloc[i, out.columns.get_loc("answer")] = YE_OPTIONS[lab]
            out.iloc[i, out.columns.get_loc("mmlu_test_row")] = r
            out.iloc[i, out.columns.get_loc("subject")] = key.attrs["row_subject"][r]
    ids_in = "increasing" if order == "id" else "decreasing"
    out.attrs["rule"] = (f"as the rebuilt key, but ids with several admissible rows are served in {ids_in} id order, "
                         f"each taking the {row} free row in MMLU's order")
    return out
