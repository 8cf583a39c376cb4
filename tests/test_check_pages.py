"""The page check (scripts/check_pages.py) and the figure extension (book/_ext/figures.py) catch what they claim to.

The browser test builds a two-page site with a squashed figure, a figure without a text
alternative, a figure whose text is too small at 390 px and a clipped formula, and a page
with none of these; it runs only where Chromium and playwright are installed.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


check_pages = _load("_scripts_check_pages", ROOT / "scripts" / "check_pages.py")
figures = _load("_book_ext_figures", ROOT / "book" / "_ext" / "figures.py")


def _png(path: Path, width_in: float, font_pt: float | None, dpi: int = 200) -> Path:
    fig, ax = plt.subplots(figsize=(width_in, width_in / 2))
    ax.plot([0, 1], [0, 1])
    meta = {"semvar:min_font_pt": f"{font_pt:g}"} if font_pt else None
    fig.savefig(path, dpi=dpi, metadata=meta)
    plt.close(fig)
    return path


def _fig(src, width, height, natural=(1000, 500), alt="a line"):
    return {"src": src, "alt": alt, "width": width, "height": height, "natural_width": natural[0],
            "natural_height": natural[1], "hidden": False, "player": False}


def test_png_text_scale_reads_the_recorded_font_and_the_resolution(tmp_path):
    font, dpi = check_pages.png_text_scale(_png(tmp_path / "a.png", 4, 7))
    assert font == 7 and round(dpi) == 200
    font, _ = check_pages.png_text_scale(_png(tmp_path / "b.png", 4, None))
    assert font == check_pages.HOUSE_FONT_PT  # not recorded: the house style's size
    (tmp_path / "c.png").write_bytes(b"not a png")
    assert check_pages.png_text_scale(tmp_path / "c.png") is None


def test_figure_problems_flags_squashed_unnamed_and_small_figures(tmp_path):
    _png(tmp_path / "wide.png", 10, 10)  # 2000 px wide at 200 dpi; 10 pt = 27.8 px of the PNG
    base = "http://127.0.0.1:1"
    good = _fig(f"{base}/wide.png", 800, 400, natural=(2000, 1000))
    assert check_pages.figure_problems([good], tmp_path, base, 1400) == []
    squashed = _fig(f"{base}/wide.png", 342, 390, natural=(2000, 1000))
    [p] = check_pages.figure_problems([squashed], tmp_path, base, 1400)
    assert p.startswith("squashed figure wide.png")
    unnamed = _fig(f"{base}/wide.png", 800, 400, natural=(2000, 1000), alt="../_images/wide.png")
    [p] = check_pages.figure_problems([unnamed], tmp_path, base, 1400)
    assert "no text alternative" in p
    # shown 342 px wide on a phone: 27.78 * 342 / 2000 = 4.75 px of text
    small = _fig(f"{base}/wide.png", 342, 171, natural=(2000, 1000))
    [p] = check_pages.figure_problems([small], tmp_path, base, 390)
    assert "figure text of wide.png is 4.7 px" in p
    assert check_pages.figure_problems([small], tmp_path, base, 1400) == []  # measured at 390 px only


def test_the_extension_sizes_the_box_so_the_text_reaches_the_floor(tmp_path):
    path = _png(tmp_path / "wide.png", 10, 10)
    width = figures.min_readable_width(path, 9.0)
    assert 648 <= width <= 649  # 9 px / (10 pt at 200 dpi = 27.78 px) * 2000 px, rounded up
    font, dpi = check_pages.png_text_scale(path)
    assert font / 72 * dpi * width / 2000 >= 9.0 > font / 72 * dpi * (width - 1) / 2000  # the smallest such
    assert 1296 <= figures.min_readable_width(_png(tmp_path / "f.png", 10, 5), 9.0) <= 1297
    assert figures.plain_caption("error $+10^{-4}$ at\n $n = 1{,}000$") == "error +10^-4 at n = 1,000"


PAGE = """<!doctype html><html><head><style>
span.math {{ display: inline-flex; max-width: 100%; overflow: hidden; }}
mjx-container {{ display: inline-block; white-space: nowrap; }}
img {{ max-width: 100%; }}
{extra}
</style></head><body><article class="bd-article">
<p>text <span class="math"><mjx-container>{formula}</mjx-container></span></p>
<img src="wide.png" alt="{alt}" style="width: 1000px; {height}">
</article></body></html>"""


@pytest.mark.skipif(shutil.which("chromium") is None or importlib.util.find_spec("playwright") is None,
                    reason="needs Chromium and playwright (scripts/check_pages.sh installs them)")
def test_the_browser_check_fails_on_each_defect_and_passes_a_clean_page(tmp_path):
    _png(tmp_path / "wide.png", 10, 10)
    long_formula = "x" * 200
    (tmp_path / "index.html").write_text("<!doctype html><p>home</p>", encoding="utf-8")
    (tmp_path / "bad.html").write_text(PAGE.format(extra="", formula=long_formula, alt="wide.png",
                                                   height="height: 500px;"), encoding="utf-8")
    fixed = ("img { max-width: 100%; height: auto; min-width: 648px; }"
             " article { overflow-x: auto; } span.math { overflow-x: auto; }")
    (tmp_path / "good.html").write_text(PAGE.format(extra=fixed, formula=long_formula, alt="a line",
                                                    height=""), encoding="utf-8")
    failures = check_pages.check(tmp_path, [390])
    bad = [f for f in failures if f.startswith("bad.html")]
    assert any("squashed figure wide.png" in f for f in bad), failures
    assert any("no text alternative" in f for f in bad), failures
    assert any("figure text of wide.png" in f for f in bad), failures
    assert any("clipped formula: xxxx" in f for f in bad), failures
    assert not [f for f in failures if f.startswith("good.html")], failures
