"""Result tables for the book: a DataFrame shown as a numbered, captioned table.

A chapter's result table is a cell output, so that the number on the page is the
number the notebook computed (and nbval checked). :func:`show_table` displays a
:class:`Table`, which carries three representations of the same frame:

- ``text/markdown``: a MyST ``{table}`` directive holding a pipe table, with the
  caption as its argument and ``name`` as its label. The book renders Markdown
  outputs as MyST and prefers them to HTML (``nb_render_markdown_format`` and
  ``nb_mime_priority_overrides`` in ``_config.yml``), so the table is numbered
  ("Table 3.2") and other text can refer to it with ``{numref}``.
- ``text/html``: the same table with its caption, for Jupyter, which prefers HTML.
- ``text/plain``: the frame as text, for a terminal.

Wide tables scroll inside their own box on a narrow screen (the theme wraps every
table in a scrolling container) instead of widening the page.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Mapping
from html import escape
from typing import TypeGuard

import numpy as np
import pandas as pd

from semvar._validation import check_bool, check_int, check_string, show

__all__ = ["Table", "show_table"]

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_ROLE = re.compile(r"\{[a-z][a-z:-]*\}`([^`]*)`")
_MISSING = "–"


def _plain_caption(caption: str) -> str:
    """The caption with MyST roles reduced to their text (``{cite}`key``` -> ``key``)."""
    return _ROLE.sub(lambda m: m.group(1).split("<")[0].strip(), caption)


def _is_real(value: object) -> TypeGuard[numbers.Real | np.floating | np.integer]:
    return isinstance(value, (numbers.Real, np.floating, np.integer)) and not isinstance(value, bool)


def _cell(value: object, digits: int | None) -> str:
    """One cell as text: reals with ``digits`` decimals (None: up to 6 significant
    digits, for labels), integers as they are."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return _MISSING
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (numbers.Integral, np.integer)):
        return str(int(value))
    if _is_real(value):
        if math.isnan(float(value)):
            return _MISSING
        return f"{float(value):g}" if digits is None else f"{float(value):.{digits}f}"
    return str(value)


def _pipe_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _column_name(col: object) -> str:
    if isinstance(col, tuple):
        return " ".join(str(c) for c in col if str(c))
    return str(col)


class Table:
    """A data frame with a caption and a label, shown as a numbered table.

    Build one with :func:`show_table`; its ``_repr_mimebundle_`` gives the MyST,
    HTML and plain-text forms described in the module's docstring.

    Attributes
    ----------
    frame : DataFrame
        The table as shown: the index made a column when ``index`` was true.
    caption : str
        The caption (MyST: it may hold roles such as ``{cite}``).
    name : str
        The label that ``{numref}`` refers to.
    digits : dict
        Decimals shown per column of reals (None: a label, shown with up to six
        significant digits).
    """

    def __init__(self, frame: pd.DataFrame, caption: str, name: str,
                 digits: Mapping[str, int | None]):
        self.frame = frame
        self.caption = caption
        self.name = name
        self.digits = dict(digits)

    def _cells(self) -> list[list[str]]:
        return [[_cell(v, self.digits[c]) for c, v in zip(self.frame.columns, row)]
                for row in self.frame.itertuples(index=False, name=None)]

    def _numeric(self) -> list[bool]:
        return [all(_is_real(v) or v is None or v is pd.NA for v in self.frame[c])
                for c in self.frame.columns]

    def to_myst(self) -> str:
        """The MyST ``{table}`` directive (a pipe table inside) that the book renders."""
        head = [_pipe_cell(c) for c in self.frame.columns]
        rule = ["---:" if num else ":---" for num in self._numeric()]
        rows = [head, rule] + [[_pipe_cell(x) for x in row] for row in self._cells()]
        body = "\n".join("| " + " | ".join(r) + " |" for r in rows)
        return f":::{{table}} {self.caption}\n:name: {self.name}\n\n{body}\n:::\n"

    def to_html(self) -> str:
        """An HTML table with its caption (what Jupyter shows)."""
        align = ["right" if num else "left" for num in self._numeric()]
        head = "".join(f'<th style="text-align:{a}">{escape(c)}</th>'
                       for c, a in zip(self.frame.columns, align))
        rows = "".join("<tr>" + "".join(f'<td style="text-align:{a}">{escape(x)}</td>'
                                        for x, a in zip(row, align)) + "</tr>"
                       for row in self._cells())
        caption = escape(_plain_caption(self.caption))
        return (f'<table class="semvar-table" id="{self.name}"><caption>{caption}</caption>'
                f"<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")

    def to_text(self) -> str:
        """The caption and the table as plain text."""
        shown = pd.DataFrame(self._cells(), columns=self.frame.columns)
        return f"{_plain_caption(self.caption)}\n{shown.to_string(index=False)}"

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, str]:
        return {"text/markdown": self.to_myst(), "text/html": self.to_html(),
                "text/plain": self.to_text()}

    def __repr__(self) -> str:
        return self.to_text()


def _check_frame(frame: object, index: bool) -> tuple[pd.DataFrame, list[str]]:
    """The frame to show (index made columns when ``index``) and the index's column names."""
    if isinstance(frame, pd.Series):
        frame = frame.to_frame()
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"frame must be a pandas DataFrame or Series, got {show(frame)}")
    df: pd.DataFrame = frame  # pandas ships no types here, so isinstance does not narrow ``frame``
    labels = []
    if index:
        names = [n if n is not None else "" for n in df.index.names]
        labels = [_column_name(n) for n in names]
        df = df.copy()
        df.index = df.index.set_names(names)
        df = df.reset_index()
    df = df.copy()
    df.columns = [_column_name(c) for c in df.columns]
    if df.columns.duplicated().any():
        raise ValueError(f"frame must have distinct column names, got {list(df.columns)}")
    if df.shape[1] == 0:
        raise ValueError("frame must have at least one column")
    return df, labels


def _check_digits(digits: object, columns: list[str], labels: list[str]) -> dict[str, int | None]:
    """Decimals per column; index columns (``labels``) not named in ``digits`` get None."""
    if isinstance(digits, Mapping):
        unknown = sorted(set(map(str, digits)) - set(columns) - {"*"})
        if unknown:
            raise ValueError(f"digits names columns the frame does not have: {unknown}")
        default = check_int(digits.get("*", 3), "digits['*']", low=0, high=15)
        return {c: check_int(digits[c], f"digits[{c!r}]", low=0, high=15) if c in digits
                else None if c in labels else default for c in columns}
    d = check_int(digits, "digits", low=0, high=15)
    return {c: None if c in labels else d for c in columns}


def show_table(frame: pd.DataFrame | pd.Series, *, caption: str, name: str,
               digits: int | Mapping[str, int] = 3, index: bool = False,
               display: bool = True) -> Table | None:
    """Show a data frame as a numbered, captioned table that the text can refer to.

    In the book the table is numbered ("Table 4.2"), captioned and labelled
    ``name``, so a paragraph can write ``{numref}`name```; in Jupyter it is an
    HTML table with the caption above it.

    Parameters
    ----------
    frame : DataFrame or Series
        The results, one row per row of the table.
    caption : str
        What the table shows, in a sentence (MyST roles such as ``{cite}`` allowed).
    name : str
        The label, unique in the book: a letter, then letters, digits, ``_`` or ``-``
        (by convention ``tbl-<chapter>-<what>``).
    digits : int or mapping, default=3
        Decimals shown for real numbers: one number for every column, or a mapping
        from column name to decimals (the key ``"*"`` sets the rest). Integers are
        shown as they are, missing values as a dash, and reals of the index (labels
        such as 0.05) with up to six significant digits unless the mapping names them.
    index : bool, default=False
        Show the frame's index as the first column(s).
    display : bool, default=True
        Display the table (with IPython's ``display``) and return None; if false,
        return the :class:`Table` instead (a cell's last expression is displayed too).

    Returns
    -------
    Table or None
        The table when ``display`` is false.

    Raises
    ------
    ValueError
        If ``frame`` is not a data frame, its column names repeat, ``caption`` is
        empty, ``name`` is not a valid label or ``digits`` is not in 0..15.

    Examples
    --------
    >>> import pandas as pd
    >>> t = show_table(pd.DataFrame({"n": [10, 20], "AUROC": [0.71234, 0.8]}),
    ...                caption="AUROC by sample size.", name="tbl-demo", display=False)
    >>> print(t.to_myst())
    :::{table} AUROC by sample size.
    :name: tbl-demo
    <BLANKLINE>
    | n | AUROC |
    | ---: | ---: |
    | 10 | 0.712 |
    | 20 | 0.800 |
    :::
    <BLANKLINE>
    """
    index = check_bool(index, "index")
    display = check_bool(display, "display")
    caption = check_string(caption, "caption").strip()
    if not caption or "\n" in caption:
        raise ValueError(f"caption must be one non-empty line, got {show(caption)}")
    name = check_string(name, "name")
    if not _NAME.fullmatch(name):
        raise ValueError(f"name must be a letter followed by letters, digits, '_' or '-', "
                         f"got {show(name)}")
    frame, labels = _check_frame(frame, index)
    table = Table(frame, caption, name, _check_digits(digits, list(frame.columns), labels))
    if not display:
        return table
    from IPython.display import display as ipython_display

    ipython_display(table)
    return None
