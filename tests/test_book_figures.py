"""The chapters' figures: numbered, captioned, referred to from the text, and sharp.

Every code cell that stores a picture (``image/png`` or ``image/svg+xml``) is a numbered
figure through myst-nb's cell metadata (``mystnb.figure.name`` and ``caption``); its name
is ``fig-chNN-<slug>`` (``fig-scorecard-<slug>`` on the scorecard page); the prose of the
same page refers to it with ``{numref}`` (or ``{ref}``); no italic "*Figure: ...*"
paragraph stands in for a caption; and the stored PNGs are drawn at 150 dots per inch or
more and shown at most at two thirds of their pixel size (``semvar.plotting.use_style``
makes inline figures retina).  Everything is read from the executed ``.ipynb`` files
(and, for the italic captions, from their ``.md`` sources too).
"""

from __future__ import annotations

import base64
import io
import re
import struct
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import nbformat  # noqa: E402
import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
PAGES = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")) + [NOTEBOOKS / "scorecard.ipynb"]
IMAGE_TYPES = ("image/png", "image/svg+xml")
MIN_DPI = 150
MIN_DENSITY = 1.5  # stored pixels per displayed pixel
ITALIC_CAPTION = re.compile(r"(?m)^\s*\*Figure:")
REFERENCE = re.compile(r"\{(?:numref|ref)\}`(?:[^`<]*<)?([^`<>]+)>?`")


def _prefix(path: Path) -> str:
    return f"fig-ch{path.name[:2]}-" if path.name[:2].isdigit() else f"fig-{path.stem}-"


def _read(path: Path):
    return nbformat.read(path, as_version=4)


def _images(cell) -> list[tuple[str, str, dict]]:
    """``(mime type, data, display metadata)`` of every picture a code cell stores."""
    out = []
    for output in cell.get("outputs", []):
        for mime in IMAGE_TYPES:
            if mime in output.get("data", {}):
                out.append((mime, output["data"][mime], output.get("metadata", {}).get(mime, {})))
    return out


def _figure_cells(nb):
    return [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code" and _images(c)]


def png_geometry(data: bytes) -> tuple[int, int, float | None]:
    """``(width, height, dots per inch)`` of a PNG: IHDR's size and pHYs's density (None without one).

    >>> png_geometry(_tiny_png(dpi=100))[2] < 101
    True
    """
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, width, height, dpi = 8, None, None, None
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height = struct.unpack(">II", body[:8])
        elif kind == b"pHYs":
            x, _, unit = struct.unpack(">IIB", body[:9])
            dpi = x * 0.0254 if unit == 1 else None  # unit 1: pixels per metre
        elif kind == b"IDAT":
            break
        pos += 12 + length
    if width is None:
        raise ValueError("PNG without an IHDR chunk")
    return width, height, dpi


def png_problems(data: bytes, shown: dict) -> list[str]:
    """What keeps one stored PNG from being sharp: too few dots per inch, or shown at full pixel size.

    ``shown`` is the output's display metadata for the image (``width``/``height`` in
    CSS pixels, written by the retina inline backend); without a width the browser
    shows the picture at its pixel size.
    """
    width, _, dpi = png_geometry(data)
    problems = []
    if dpi is None or dpi < MIN_DPI:
        problems.append(f"{dpi and round(dpi)} dpi < {MIN_DPI}")
    shown_width = shown.get("width", width)
    if width < MIN_DENSITY * float(shown_width):
        problems.append(f"{width} px shown {shown_width} px wide (density < {MIN_DENSITY})")
    return problems


def _tiny_png(dpi: int) -> bytes:
    fig, ax = plt.subplots(figsize=(1, 1))
    ax.plot([0, 1], [0, 1])
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    plt.close(fig)
    return buf.getvalue()


def test_there_are_figures():
    assert sum(len(_figure_cells(_read(p))) for p in PAGES) >= 10


def test_the_sharpness_check_can_fail():
    plain, retina = _tiny_png(100), _tiny_png(200)
    assert png_geometry(plain)[:2] == (100, 100)
    assert png_problems(plain, {}), "a 100 dpi PNG shown at its pixel size passed"
    assert png_problems(retina, {}), "a PNG shown at its full pixel size passed"
    assert png_problems(plain, {"width": 50}), "a 100 dpi PNG passed"
    assert not png_problems(retina, {"width": 100, "height": 100})


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_every_figure_is_named_and_captioned(path):
    nb, prefix = _read(path), _prefix(path)
    bad, names = [], []
    for i, cell in enumerate(nb.cells):
        figure = cell.get("metadata", {}).get("mystnb", {}).get("figure")
        has_image = cell.cell_type == "code" and bool(_images(cell))
        if figure is None:
            if has_image:
                bad.append(f"cell {i}: draws a figure without mystnb.figure metadata")
            continue
        if not has_image:
            bad.append(f"cell {i}: mystnb.figure on a cell that stores no picture")
        name, caption = figure.get("name", ""), figure.get("caption", "")
        if not re.fullmatch(re.escape(prefix) + r"[a-z0-9]+(?:-[a-z0-9]+)*", str(name)):
            bad.append(f"cell {i}: figure name {name!r} is not {prefix}<slug>")
        if not str(caption).strip():
            bad.append(f"cell {i}: figure {name!r} has no caption")
        names.append(name)
    duplicated = sorted({n for n in names if names.count(n) > 1})
    assert not bad and not duplicated, f"{path.name}: {bad} {duplicated}"


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_every_figure_is_referred_to_from_the_text(path):
    nb = _read(path)
    referenced = {t for c in nb.cells if c.cell_type == "markdown" for t in REFERENCE.findall(c.source)}
    names = [c.metadata["mystnb"]["figure"].get("name") for _, c in _figure_cells(nb)
             if "figure" in c.get("metadata", {}).get("mystnb", {})]
    missing = [n for n in names if n not in referenced]
    assert not missing, f"{path.name}: no {{numref}} to {missing}"


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_no_italic_figure_paragraph_is_left(path):
    texts = [("ipynb", c.source) for c in _read(path).cells if c.cell_type == "markdown"]
    md = path.with_suffix(".md")
    if md.exists():
        texts.append(("md", md.read_text(encoding="utf-8")))
    left = [f"{where}: {m.string[m.start():m.start() + 60].strip()!r}"
            for where, text in texts for m in ITALIC_CAPTION.finditer(text)]
    assert not left, f"{path.name}: italic figure paragraphs instead of captions: {left}"


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_stored_figures_are_sharp(path):
    bad = []
    for i, cell in _figure_cells(_read(path)):
        for mime, data, shown in _images(cell):
            if mime != "image/png":
                continue
            problems = png_problems(base64.b64decode(data), shown)
            if problems:
                bad.append(f"cell {i}: {'; '.join(problems)}")
    assert not bad, f"{path.name}: {bad}"
