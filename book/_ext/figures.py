"""Figures that keep their shape and can be read on a phone.

myst-nb gives a notebook's PNG output the size stored with it (IPython's
``retina`` format stores a width *and* a height), which the HTML writer puts
in an inline ``style``: once the column is narrower than that width, the
picture is squashed, since a stylesheet cannot override an inline height.
This extension, for the HTML builders:

* drops the height of every picture that has a width: the width stays the
  largest size it is shown at, the height follows from the picture;
* gives a picture in a figure its caption as text alternative (``alt``), in
  place of its file name;
* puts every PNG picture in a box that scrolls sideways, with a smallest width
  (the CSS variable ``--sv-min-width``) at which its smallest text is
  ``html_figure_min_text_px`` CSS pixels: a figure wider than a phone's
  column is not shrunk below that, it scrolls in its box like a wide table.
  The text size is estimated from the PNG: its resolution and the smallest
  font size that :mod:`semvar.plotting` records in it (``semvar:min_font_pt``);
  figures that do not record it are taken to use the house style's 10 points.

``scripts/check_pages.py`` checks the result in a browser at 390 and 1,400 px.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform

#: the house style's font size (semvar.plotting.use_style) for PNGs that do not record theirs
HOUSE_FONT_PT = 10.0


class figure_box(nodes.General, nodes.Element):
    """A box around a picture that scrolls sideways below the picture's smallest readable width."""


def _visit_box(self, node):
    style = f' style="--sv-min-width: {node["min_width"]}px"' if node.get("min_width") else ""
    self.body.append(f'<div class="sv-figure-box"{style}>')


def _depart_box(self, node):
    self.body.append("</div>")


def _pass(self, node):
    pass


def plain_caption(text: str) -> str:
    """A caption as plain text: TeX commands and braces dropped, white space collapsed.

    >>> plain_caption("at $n = 1{,}000$ and\\n $10^{-4}$ \\\\alpha")
    'at n = 1,000 and 10^-4 alpha'
    """
    text = text.replace("{,}", ",").replace("$", "")
    text = re.sub(r"\\([A-Za-z]+)", r"\1", text)
    text = text.replace("{", "").replace("}", "")
    return " ".join(text.split())


def min_readable_width(path: Path, min_text_px: float) -> int | None:
    """The width in CSS pixels at which the PNG's smallest text is ``min_text_px``, or ``None``."""
    try:
        from PIL import Image

        with Image.open(path) as im:
            if im.format != "PNG" or "dpi" not in im.info:
                return None
            font_pt = float(im.info.get("semvar:min_font_pt", HOUSE_FONT_PT))
            dpi = float(im.info["dpi"][0])
            width = im.size[0]
    except (ImportError, OSError, ValueError):
        return None
    text_px_at_full = font_pt / 72 * dpi  # the text's height in PNG pixels
    return math.ceil(min_text_px * width / text_px_at_full - 1e-6)


class FigureShape(SphinxPostTransform):
    default_priority = 400
    formats = ("html",)

    def run(self, **kwargs) -> None:
        min_text = float(self.config.html_figure_min_text_px)
        for img in list(self.document.findall(nodes.image)):
            if "width" in img and "height" in img:
                del img["height"]
            figure = next((a for a in _ancestors(img) if isinstance(a, nodes.figure)), None)
            if figure is not None:
                caption = next(iter(figure.findall(nodes.caption)), None)
                if caption is not None and caption.astext().strip():
                    img["alt"] = plain_caption(caption.astext())
            if isinstance(img.parent, nodes.TextElement):
                continue  # an inline picture: no box
            uri = img.get("candidates", {}).get("*", img["uri"])
            path = Path(self.env.srcdir) / uri
            if not uri.lower().endswith(".png") or not path.is_file():
                continue
            box = figure_box(min_width=min_readable_width(path, min_text))
            img.replace_self(box)
            box += img


def _ancestors(node):
    node = node.parent
    while node is not None:
        yield node
        node = node.parent


def setup(app):
    app.add_config_value("html_figure_min_text_px", 9.0, "html")
    app.add_node(figure_box, html=(_visit_box, _depart_box), latex=(_pass, _pass),
                 text=(_pass, _pass), man=(_pass, _pass), texinfo=(_pass, _pass))
    app.add_post_transform(FigureShape)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
