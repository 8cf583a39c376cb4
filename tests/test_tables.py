"""Tests of semvar.tables: a data frame as a numbered, captioned MyST table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from semvar.tables import Table, show_table


def _table(frame, **kw) -> Table:
    kw.setdefault("caption", "A caption.")
    kw.setdefault("name", "tbl-x")
    return show_table(frame, display=False, **kw)


def test_myst_form_by_hand():
    t = _table(pd.DataFrame({"K": [1, 2], "H": [0.5, 1 / 3], "who": ["a", "b"]}), digits=2)
    assert t.to_myst() == (
        ":::{table} A caption.\n:name: tbl-x\n\n"
        "| K | H | who |\n| ---: | ---: | :--- |\n| 1 | 0.50 | a |\n| 2 | 0.33 | b |\n:::\n"
    )


def test_bundle_has_the_three_forms():
    bundle = _table(pd.DataFrame({"a": [1.0]}))._repr_mimebundle_()
    assert set(bundle) == {"text/markdown", "text/html", "text/plain"}
    assert "<caption>A caption.</caption>" in bundle["text/html"]
    assert bundle["text/plain"].splitlines()[0] == "A caption."


def test_digits_per_column_and_default():
    t = _table(pd.DataFrame({"a": [0.123456], "b": [0.123456]}), digits={"a": 1, "*": 4})
    assert "| 0.1 | 0.1235 |" in t.to_myst()


def test_index_becomes_a_column():
    frame = pd.DataFrame({"v": [1.0, 2.0]}, index=pd.Index(["x", "y"], name="arm"))
    t = _table(frame, index=True, digits=0)
    assert "| arm | v |" in t.to_myst() and "| x | 1 |" in t.to_myst()
    assert "arm" not in _table(frame, digits=0).to_myst()


def test_index_reals_are_labels():
    frame = pd.DataFrame({"v": [0.5, 0.25]}, index=pd.Index([0.05, 60.0], name="level"))
    myst = _table(frame, index=True, digits=2).to_myst()
    assert "| 0.05 | 0.50 |" in myst and "| 60 | 0.25 |" in myst
    assert "| 0.050 | 0.500 |" in _table(frame, index=True, digits={"level": 3, "*": 3}).to_myst()


def test_missing_values_pipes_and_multiindex_columns():
    cols = pd.MultiIndex.from_tuples([("AUROC", "mean"), ("AUROC", "sd")])
    frame = pd.DataFrame([[np.nan, 0.2], [0.3, None]], columns=cols)
    myst = _table(frame).to_myst()
    assert "| AUROC mean | AUROC sd |" in myst
    assert "| – | 0.200 |" in myst and "| 0.300 | – |" in myst
    assert "a\\|b" in _table(pd.DataFrame({"t": ["a|b"]})).to_myst()


def test_roles_become_text_outside_the_book():
    t = _table(pd.DataFrame({"a": [1]}), caption="As in {cite}`kuhn2023`, {numref}`Fig <fig-x>`.")
    assert "{cite}" in t.to_myst()
    assert "As in kuhn2023, Fig." in t.to_html()


def test_html_escapes_text():
    html = _table(pd.DataFrame({"<b>": ["x & y"]})).to_html()
    assert "&lt;b&gt;" in html and "x &amp; y" in html


def test_series_and_booleans():
    t = _table(pd.Series([True, False], name="ok"))
    assert "| True |" in t.to_myst() and "| :--- |" in t.to_myst()


def test_display_shows_and_returns_none(capsys):
    assert show_table(pd.DataFrame({"a": [1]}), caption="Shown.", name="tbl-y") is None
    assert "Shown." in capsys.readouterr().out


@pytest.mark.parametrize("kw, match", [
    ({"name": "1abc"}, "name"),
    ({"name": "has space"}, "name"),
    ({"caption": ""}, "caption"),
    ({"caption": "two\nlines"}, "caption"),
    ({"caption": 3}, "caption"),
    ({"digits": -1}, "digits"),
    ({"digits": 2.5}, "digits"),
    ({"digits": {"nope": 2}}, "digits"),
    ({"index": "yes"}, "index"),
])
def test_bad_arguments(kw, match):
    with pytest.raises(ValueError, match=match):
        _table(pd.DataFrame({"a": [1.0]}), **kw)


def test_bad_frames():
    with pytest.raises(ValueError, match="frame"):
        _table([[1, 2]])
    with pytest.raises(ValueError, match="distinct"):
        _table(pd.DataFrame([[1, 2]], columns=["a", "a"]))
    with pytest.raises(ValueError, match="column"):
        _table(pd.DataFrame(index=[0, 1]))
