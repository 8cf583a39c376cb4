"""Tests of semvar.data.contextsl: ContextSL's human evaluation, one .xlsx file read without a spreadsheet library.

Synthetic workbooks (written here with ``zipfile``, their checksums pinned for the test) check the reader
and the rules; the real copy, found by the data rule, is checked against the counts of the data README and
cells read by eye; a stand-in origin on 127.0.0.1, laid out as the GitHub repository (the file name with its
spaces), serves it to a fresh machine.
"""

from __future__ import annotations

import hashlib
import shutil
import socket
import warnings
from pathlib import Path
from xml.sax.saxutils import escape

import numpy as np
import pandas as pd
import pytest

from semvar import data
from semvar.testing import serve_folder

from ._helpers import pin_sha256

ORIGIN = data.CONTEXTSL_ORIGIN
NAME = "human_eval_new_final.xlsx"
REPO_NAME = "human_eval_new - final.xlsx"  # the file's name in the repository
HEADER = ["Column1", *data.CONTEXTSL_COLUMNS]


# --------------------------------------------------------------------------- a synthetic workbook

def _cell(ref: str, value, shared: list[str] | None) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return f'<c r="{ref}" t="b"><v>{int(value)}</v></c>'
    if isinstance(value, (int, float)):
        return f'<c r="{ref}"><v>{value!r}</v></c>'
    if shared is not None:
        shared.append(value)
        return f'<c r="{ref}" t="s"><v>{len(shared) - 1}</v></c>'
    return f'<c r="{ref}" t="inlineStr"><is><t xml:space="preserve">{escape(value)}</t></is></c>'


def xlsx_bytes(rows: list[list], *, shared: bool = True, sheets: int = 1) -> bytes:
    """A minimal .xlsx workbook holding ``rows`` (str, number, bool or None per cell) in one sheet."""
    import io
    import zipfile

    main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    strings: list[str] | None = [] if shared else None
    xml_rows = []
    for i, row in enumerate(rows, 1):
        cells = "".join(_cell(f"{chr(ord('A') + j)}{i}", v, strings) for j, v in enumerate(row))
        xml_rows.append(f'<row r="{i}">{cells}</row>')
    sheet = f'<worksheet xmlns="{main}"><sheetData>{"".join(xml_rows)}</sheetData></worksheet>'
    listed = "".join(f'<sheet name="S{k}" sheetId="{k}" r:id="rId{k}"/>' for k in range(1, sheets + 1))
    book = f'<workbook xmlns="{main}" xmlns:r="{rel}"><sheets>{listed}</sheets></workbook>'
    rels = ('<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            + "".join(f'<Relationship Id="rId{k}" Type="{rel}/worksheet" Target="worksheets/sheet{k}.xml"/>'
                      for k in range(1, sheets + 1)) + "</Relationships>")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("xl/workbook.xml", book)
        z.writestr("xl/_rels/workbook.xml.rels", rels)
        for k in range(1, sheets + 1):
            z.writestr(f"xl/worksheets/sheet{k}.xml", sheet)
        if strings is not None:
            items = "".join(f'<si><t xml:space="preserve">{escape(s)}</t></si>' for s in strings)
            z.writestr("xl/sharedStrings.xml", f'<sst xmlns="{main}">{items}</sst>')
    return buf.getvalue()


def valid_rows(n: int = data.CONTEXTSL_ROWS) -> list[list]:
    """A header and ``n`` well-formed rows: the three data sets and models in blocks, human labels 1/0/0.5."""
    rows = [list(HEADER)]
    for k in range(n):
        d = data.CONTEXTSL_DATASETS[(k // 240) % 3]
        m = data.CONTEXTSL_MODELS[(k // 80) % 3]
        rows.append([k, d, m, f"q{k}", "a story" if d == "coqa_new" else None, "Which city?", "Paris",
                     "Paris" if k % 2 else "London", 1 if k % 2 else 0, 0.5, [1, 0, 0.5][k % 3], None])
    return rows


def _write(tmp_path, monkeypatch, payload: bytes) -> Path:
    folder = tmp_path / "contextsl"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / NAME
    path.write_bytes(payload)
    pin_sha256(monkeypatch, ORIGIN, NAME, path)
    return path


@pytest.mark.parametrize("shared", [True, False], ids=["shared-strings", "inline-strings"])
def test_synthetic_workbook_is_read_by_the_rules(tmp_path, monkeypatch, shared):
    rows = valid_rows()
    rows[1][6] = 'Paris & "London" <b>\n  two lines '  # XML escapes and white space kept
    rows[2][7] = None  # an empty response: pd.NA, row kept
    rows[3][8] = None  # a missing score: NaN
    rows[4][11] = "Ref wrong"
    _write(tmp_path, monkeypatch, xlsx_bytes(rows, shared=shared))
    df = data.load_contextsl(data_dir=tmp_path)
    assert tuple(df.columns) == data.CONTEXTSL_COLUMNS and len(df) == data.CONTEXTSL_ROWS
    assert df.index.tolist() == list(range(data.CONTEXTSL_ROWS))
    assert df.at[0, "ref_answer"] == 'Paris & "London" <b>\n  two lines '
    assert df["response"].isna().tolist()[:3] == [False, True, False]
    assert np.isnan(df.at[2, "llama2_score"]) and df.at[1, "llama2_score"] == 1.0
    assert str(df["id"].dtype) == "string" and df["human_eval"].dtype == np.float64
    rep = df.attrs["report"]
    assert rep["human_eval"] == {"0": 240, "0.5": 240, "1": 240}
    assert rep["missing"] == {"story": 480, "response": 1, "llama2_score": 1, "gpt_score": 0}
    assert rep["score_half"] == {"llama2_score": 0, "gpt_score": 720}
    assert rep["notes"] == {"Ref wrong": 1} and len(rep["cells"]) == 9
    assert set(rep["cells"].values()) == {80}


def test_rich_text_and_cells_without_references_are_read(tmp_path, monkeypatch):
    """Shared strings written as rich-text runs (with a phonetic run left out); cells and rows without ``r``."""
    import io
    import zipfile

    payload = xlsx_bytes(valid_rows(), shared=True)
    with zipfile.ZipFile(io.BytesIO(payload)) as z:
        parts = {n: z.read(n).decode() for n in z.namelist()}
    sst = parts["xl/sharedStrings.xml"]
    parts["xl/sharedStrings.xml"] = sst.replace('<si><t xml:space="preserve">Which city?</t></si>',
                                                "<si><r><t>Which </t></r><r><rPr/><t>city?</t></r>"
                                                "<rPh><t>PHONETIC</t></rPh></si>", 1)
    sheet = parts["xl/worksheets/sheet1.xml"]
    parts["xl/worksheets/sheet1.xml"] = sheet.replace('<c r="A2">', "<c>").replace(' r="2"', "", 1)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for n, text in parts.items():
            z.writestr(n, text)
    _write(tmp_path, monkeypatch, buf.getvalue())
    df = data.load_contextsl(data_dir=tmp_path)
    assert df.at[0, "question"] == "Which city?" and df.at[0, "id"] == "q0"


def _bad(rows_edit):
    rows = valid_rows()
    rows_edit(rows)
    return xlsx_bytes(rows)


@pytest.mark.parametrize(
    "payload, match",
    [
        (b"PK\x03\x04 not really a zip", r"is not an \.xlsx workbook \(a zip archive\)"),
        (xlsx_bytes(valid_rows(), sheets=2), "expected one sheet, found 2"),
        (_bad(lambda r: r[0].__setitem__(3, "ID")), "the header must be"),
        (xlsx_bytes(valid_rows(719)), "expected 720 rows, found 719"),
        (_bad(lambda r: r[5].__setitem__(0, 7)), r"row 6: Column1 is 7\.0, expected 4"),
        (_bad(lambda r: r[9].__setitem__(1, "squad")), r"dataset holds \['squad'\]; allowed are"),
        (_bad(lambda r: r[9].__setitem__(2, "gpt-4")), r"model holds \['gpt-4'\]"),
        (_bad(lambda r: r[3].__setitem__(9, 1.5)), r"row 4: gpt_score must be a number in \[0, 1\], got 1\.5"),
        (_bad(lambda r: r[3].__setitem__(8, "high")), r"row 4: llama2_score must be a number in \[0, 1\], got 'high'"),
        (_bad(lambda r: r[3].__setitem__(10, None)), "row 4: human_eval is empty; every row must have one"),
        (_bad(lambda r: r[3].__setitem__(6, None)), "row 4: ref_answer is empty"),
        (_bad(lambda r: r[3].__setitem__(3, 17)), "row 4: id must be text, got the number 17"),
        (_bad(lambda r: r[3].__setitem__(10, True)), r"cell K4: cells of type 'b' \(boolean, error, date\)"),
        (_bad(lambda r: r[3].append("extra")), "row 4: 13 cells, more than the header's 12"),
    ],
    ids=["not-zip", "two-sheets", "header", "rows", "numbering", "dataset", "model", "score-range", "score-text",
         "human-missing", "ref-missing", "id-number", "boolean-cell", "extra-cell"],
)
def test_malformed_workbooks_are_refused(tmp_path, monkeypatch, payload, match):
    _write(tmp_path, monkeypatch, payload)
    with pytest.raises(ValueError, match=match):
        data.load_contextsl(data_dir=tmp_path)


@pytest.mark.parametrize("bad", [3, 1.5, ["contextsl"], b"dir"])
def test_bad_data_dir_is_refused(bad):
    with pytest.raises(ValueError, match=r"data_dir must be None or a folder path \(str or os.PathLike\), got"):
        data.load_contextsl(data_dir=bad)


# --------------------------------------------------------------------------- the real file

@pytest.fixture
def real(require_data):
    return require_data("contextsl", [NAME])


def test_pinned_size_and_checksum_are_those_of_the_copy(real):
    raw = (real / NAME).read_bytes()
    path, sha, size = ORIGIN["files"][NAME]
    assert (len(raw), hashlib.sha256(raw).hexdigest()) == (size, sha)
    assert path == "human_eval_new%20-%20final.xlsx" and len(ORIGIN["commit"]) == 40


def test_real_file(real):
    df = data.load_contextsl(data_dir=real.parent)
    assert len(df) == 720 and tuple(df.columns) == data.CONTEXTSL_COLUMNS
    rep = df.attrs["report"]
    assert rep["human_eval"] == {"0": 162, "0.5": 19, "0.8": 1, "1": 538}  # the data README's counts
    assert rep["score_half"]["gpt_score"] == 140
    assert rep["missing"] == {"story": 480, "response": 1, "llama2_score": 1, "gpt_score": 1}
    assert rep["notes"] == {"Good Example": 3, "Ref wrong": 2}
    assert set(rep["cells"].values()) == {80} and len(rep["cells"]) == 9
    # nine blocks of 80 rows, in the order of the repository's loops (data set, then model)
    blocks = df.groupby(df.index // 80)[["dataset", "model"]].agg(lambda s: "|".join(s.unique()))
    assert blocks.apply(tuple, axis=1).tolist() == [(d, m) for d in data.CONTEXTSL_DATASETS
                                                    for m in data.CONTEXTSL_MODELS]
    assert df["story"].notna().tolist() == [d == "coqa_new" for d in df["dataset"]]
    # cells read by eye in a spreadsheet program
    assert df.loc[0, ["id", "question", "ref_answer", "response"]].tolist() == [
        "32ktq2v7rdfc4uxmnl0agydort19mq_3", "In what year did the Puritans winter there?", "1637", "1637"]
    assert df.at[99, "response"] == " a sharper"  # the release's leading space kept
    assert df.loc[718, ["ref_answer", "response", "llama2_score", "gpt_score", "human_eval"]].tolist() == [
        "March 1930", "1895", 0.0, 0.5, 0.0]
    assert df.loc[207, ["response", "llama2_score", "gpt_score"]].isna().all() and df.at[207, "human_eval"] == 0
    assert df["story"].dropna().str.contains("Read the context and answer the questions below").all()
    scores = df[["llama2_score", "gpt_score"]].to_numpy()
    assert (np.isnan(scores) | ((scores >= 0) & (scores <= 1))).all() and np.isnan(scores).sum() == 2


def test_damaged_copy_is_refused_before_a_good_one(real, tmp_path, monkeypatch):
    dst = tmp_path / "contextsl"
    dst.mkdir()
    raw = (real / NAME).read_bytes()
    (dst / NAME).write_bytes(raw[:-1] + bytes([raw[-1] ^ 1]))  # one bit flipped
    monkeypatch.setenv("SEMVAR_DATA_DIR", str(real.parent))  # a good copy, searched after data_dir
    with pytest.raises(ValueError, match=f"{NAME} is damaged or not the expected file: sha256"):
        data.load_contextsl(data_dir=tmp_path)


# --------------------------------------------------------------------------- fetched from the origin

@pytest.fixture
def mirror(real, tmp_path):
    """The real copy laid out as its GitHub origin (``<owner>/<repo>/<commit>/<name with spaces>``)."""
    root = tmp_path / "mirror"
    target = root / ORIGIN["repo"] / ORIGIN["commit"] / REPO_NAME
    target.parent.mkdir(parents=True)
    shutil.copyfile(real / NAME, target)
    return root


def test_fetched_from_the_origin_verified_then_cached(real, mirror, fresh, monkeypatch):
    local = data.load_contextsl(data_dir=real.parent)
    with serve_folder(mirror) as url:
        monkeypatch.setenv("SEMVAR_DATA_MIRROR", url)
        with pytest.warns(UserWarning, match=f"fetching it from zlin7/ContextSL at commit {ORIGIN['commit'][:12]}"):
            got = data.load_contextsl()
    pd.testing.assert_frame_equal(got, local)
    assert got.attrs["report"] == local.attrs["report"]
    assert got.attrs["source"] == f"zlin7/ContextSL@{ORIGIN['commit']}"
    cached = fresh / "cache" / "github" / ORIGIN["repo"] / ORIGIN["commit"] / ORIGIN["files"][NAME][0]
    assert cached.is_file() and cached.read_bytes() == (real / NAME).read_bytes()
    with socket.socket() as s:  # the origin is gone: the cache serves the same frame
        s.bind(("127.0.0.1", 0))
        monkeypatch.setenv("SEMVAR_DATA_MIRROR", f"http://127.0.0.1:{s.getsockname()[1]}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        pd.testing.assert_frame_equal(data.load_contextsl(), local)


def test_origin_serving_other_bytes_is_refused(mirror, fresh, monkeypatch):
    target = mirror / ORIGIN["repo"] / ORIGIN["commit"] / REPO_NAME
    raw = bytearray(target.read_bytes())
    raw[1000] ^= 1
    target.write_bytes(bytes(raw))
    with serve_folder(mirror) as url:
        monkeypatch.setenv("SEMVAR_DATA_MIRROR", url)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            with pytest.raises(ValueError, match="refused .*sha256 is not the pinned"):
                data.load_contextsl()
    assert not list((fresh / "cache").rglob("*.xlsx"))


def test_missing_file_names_the_places_and_the_origin(fresh, monkeypatch):
    (fresh / "void").mkdir()
    with serve_folder(fresh / "void") as url:  # 404 for everything: never the network
        monkeypatch.setenv("SEMVAR_DATA_MIRROR", url)
        with pytest.warns(UserWarning, match="in no data directory; fetching it from"):
            with pytest.raises(data.DataNotFoundError) as err:
                data.load_contextsl(data_dir=fresh / "arg")
    msg = str(err.value)
    assert str(fresh / "arg" / "contextsl" / NAME) in msg and str(fresh / "data" / "contextsl" / NAME) in msg
    assert "HTTPError: 404" in msg and "SEMVAR_DATA_DIR_ONLY" in msg
    assert f"zlin7/ContextSL/{ORIGIN['commit']}/human_eval_new%20-%20final.xlsx" in msg
    assert not list((fresh / "cache").rglob("*.xlsx"))
