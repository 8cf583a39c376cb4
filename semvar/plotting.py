"""The house style for the book's figures, labels placed beside points without
overlap, a player of precomputed frames for the static book, and sliders for
readers who run the notebooks."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING, Any

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.animation import FuncAnimation
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.rcsetup import cycler
from matplotlib.text import Text

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType
from numpy.typing import ArrayLike

from semvar._validation import check_bool

__all__ = [
    "use_style", "PALETTE", "new_figure", "sweep_player", "SweepPlayer", "Slider", "interactive_figure",
    "check_controls", "place_labels", "PHONE_COLUMN_PX", "page_png", "FONT_KEY",
]

#: a colour-blind-safe palette (Okabe & Ito 2008)
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]


#: the PNG text key under which :func:`page_png` records a figure's smallest font size (points)
FONT_KEY = "semvar:min_font_pt"


def page_png(fig: Figure) -> tuple[str, dict] | None:
    """A figure as a notebook shows it and the book prints it: a PNG and its display width.

    The PNG is drawn at twice the figure's dpi (sharp on a high-density screen and in
    print) with a tight bounding box, and records the smallest font size of the
    figure's visible texts, in points, under the text key ``semvar:min_font_pt``.
    The display metadata holds only a ``width`` (half the PNG's pixels), no height:
    a page that shows the figure narrower than that keeps its shape, and a page
    check can tell from the PNG how large its text is shown.

    Returns ``(base64 PNG, {"width": css_px})``, or ``None`` for a figure with
    nothing drawn (as IPython's own formatter does).

    >>> import base64, io
    >>> from PIL import Image
    >>> fig, ax = plt.subplots(figsize=(2, 1), dpi=100)
    >>> _ = ax.plot([0, 1], [0, 1]); _ = ax.set_title("t", fontsize=7)
    >>> data, shown = page_png(fig)
    >>> im = Image.open(io.BytesIO(base64.b64decode(data)))
    >>> list(shown), shown["width"] == im.size[0] // 2, im.info[FONT_KEY], round(im.info["dpi"][0])
    (['width'], True, '7', 200)
    >>> plt.close(fig)
    """
    if not fig.axes and not fig.lines:
        return None
    fig.draw_without_rendering()  # lays out every text (tick labels included) to measure them
    font = _smallest_font_pt(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=2 * fig.dpi, bbox_inches="tight", facecolor=fig.get_facecolor(),
                edgecolor=fig.get_edgecolor(), metadata={FONT_KEY: f"{font:g}"} if font else None)
    data = buf.getvalue()
    width = int.from_bytes(data[16:20], "big")  # IHDR: the PNG's width in pixels
    return base64.b64encode(data).decode("ascii"), {"width": width // 2}


def _crisp_inline_figures() -> None:
    """In a notebook, show figures through :func:`page_png` (200 dpi on the page, a width and no height)."""
    try:
        from IPython import get_ipython  # optional: only present in a notebook kernel
        from matplotlib_inline.backend_inline import set_matplotlib_formats
    except ImportError:  # pragma: no cover - plain Python, no inline backend
        return
    shell = get_ipython()
    if shell is not None:
        set_matplotlib_formats("retina")  # the inline backend's own setting, should it reapply it
        shell.display_formatter.formatters["image/png"].for_type(Figure, page_png)


def use_style() -> None:
    """Apply the house style: readable fonts, light grid, the palette, tight layout.

    In a notebook the inline figures are drawn at twice their nominal density
    (``figure.dpi`` 100, so 200 dots per inch), which keeps them crisp on the page
    and in print at the same displayed size, and record their smallest font size
    (:func:`page_png`).  On a phone (a column of :data:`PHONE_COLUMN_PX` pixels) a
    figure's 10-point text stays 9 CSS pixels or more up to about 5.5 inches of
    width; the book shows a wider figure no narrower than that in a box that
    scrolls sideways (``book/_ext/figures.py``).
    """
    _crisp_inline_figures()
    mpl.rcParams.update(
        {
            "figure.figsize": (6.4, 4.0),
            "figure.dpi": 100,
            "savefig.dpi": 150,
            "figure.autolayout": True,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.prop_cycle": cycler(color=PALETTE),
            "font.size": 10,
            "legend.frameon": False,
        }
    )


def new_figure(
    ncols: int = 1, nrows: int = 1, *, width: float = 6.4, height: float = 4.0, **kw: Any
) -> tuple[Figure, Any]:
    """``plt.subplots`` in the house style with a size scaled to the grid."""
    use_style()
    return plt.subplots(nrows, ncols, figsize=(width * ncols ** 0.8, height * nrows ** 0.9), **kw)


@dataclass(frozen=True)
class Slider:
    """A slider described as data: its default, range, step and scale.

    A chapter writes its controls as ``Slider`` values: they build no widget
    (nothing is stored in the notebook, the static book needs no widget
    JavaScript), :func:`check_controls` draws the figure at their ends, and
    :func:`interactive_figure` turns them into sliders in a live kernel.

    Parameters
    ----------
    value : float
        The default, between ``low`` and ``high``.
    low, high : float
        The ends, ``low < high``; both positive when ``log=True``.
    step : float
        The step, positive (in powers of ten when ``log=True``).
    log : bool, default=False
        A logarithmic slider.
    label : str, optional
        The text beside the slider; default the keyword it is given under.

    Examples
    --------
    >>> Slider(1.0, 0.25, 4.0, 0.05, log=True).ends()
    (0.25, 4.0)
    >>> Slider(2.0, 0.0, 1.0, 0.1)
    Traceback (most recent call last):
    ...
    ValueError: a Slider needs low <= value <= high, got low=0.0, value=2.0, high=1.0
    """

    value: float
    low: float
    high: float
    step: float
    log: bool = False
    label: str | None = None

    def __post_init__(self):
        for name in ("value", "low", "high", "step"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not np.isfinite(v):
                raise ValueError(f"Slider {name} must be a finite number, got {v!r}")
        if not self.low < self.high:
            raise ValueError(f"a Slider needs low < high, got low={self.low}, high={self.high}")
        if not self.low <= self.value <= self.high:
            raise ValueError(f"a Slider needs low <= value <= high, got low={self.low}, value={self.value}, "
                             f"high={self.high}")
        if not self.step > 0:
            raise ValueError(f"Slider step must be positive, got {self.step}")
        if self.log and not self.low > 0:
            raise ValueError(f"a logarithmic Slider needs low > 0, got {self.low}")

    def ends(self) -> tuple[float, float]:
        """``(low, high)``."""
        return (self.low, self.high)

    def widget(self, name: str) -> Any:
        """The ipywidgets slider (built only when called; needs ``ipywidgets``)."""
        import ipywidgets as widgets

        common = dict(description=self.label or name, continuous_update=False)
        if self.log:
            return widgets.FloatLogSlider(value=self.value, base=10, min=float(np.log10(self.low)),
                                          max=float(np.log10(self.high)), step=self.step, **common)
        return widgets.FloatSlider(value=self.value, min=self.low, max=self.high, step=self.step, **common)


def _check_draw(draw, controls) -> None:
    if not callable(draw):
        raise ValueError(f"draw must be a callable returning a matplotlib figure, got {type(draw).__name__}")
    if not controls:
        raise ValueError("interactive_figure needs at least one control, e.g. slope=(0.0, 2.0, 0.5)")


def check_controls(draw: Callable[..., Figure], **controls: Slider) -> int:
    """Draw the figure with every slider at its low end, then at its high end.

    What a reader meets when dragging the sliders of :func:`interactive_figure`
    to their ends, checked without building a widget: an error in ``draw`` at
    either end of the ranges raises here.  Each figure is closed.

    Parameters
    ----------
    draw : callable
        ``draw(**values) -> matplotlib.figure.Figure``.
    **controls : Slider
        One per keyword argument of ``draw``.

    Returns
    -------
    int
        The number of figures drawn (2).

    Raises
    ------
    ValueError
        If ``draw`` is not callable, no control is given, a control is not a
        :class:`Slider`, or ``draw`` does not return a figure.

    Examples
    --------
    >>> def draw(slope):
    ...     fig, ax = new_figure()
    ...     ax.plot([0, 1], [0, slope])
    ...     return fig
    >>> check_controls(draw, slope=Slider(1.0, 0.0, 2.0, 0.5)), len(plt.get_fignums())
    (2, 0)
    """
    _check_draw(draw, controls)
    bad = [k for k, c in controls.items() if not isinstance(c, Slider)]
    if bad:
        raise ValueError(f"check_controls takes Slider controls; not a Slider: {bad}")
    for end in (0, 1):
        fig = draw(**{k: c.ends()[end] for k, c in controls.items()})
        if not isinstance(fig, Figure):
            raise ValueError(f"draw must return a matplotlib Figure, got {type(fig).__name__}")
        plt.close(fig)
    return 2


def interactive_figure(draw: Callable[..., Figure], **controls: Slider) -> Any:
    """Sliders above a picture: every change of a control redraws the figure.

    Each time a control changes, ``draw(**values)`` is called with the current
    value of every control; the figure it returns is rendered to a PNG
    (72 dpi), shown in the picture, and closed.  The picture is drawn once
    when the widget is built, so the static book shows the default view.

    Parameters
    ----------
    draw : callable
        ``draw(**values) -> matplotlib.figure.Figure``, one keyword argument
        per control.
    **controls
        The controls: a :class:`Slider`, or anything
        :func:`ipywidgets.interactive` takes (a widget such as
        ``ipywidgets.FloatSlider(...)``, or an abbreviation such as
        ``(low, high, step)``).

    Returns
    -------
    ipywidgets.VBox
        The controls (an :class:`ipywidgets.interactive`) above an
        :class:`ipywidgets.Image`.

    Raises
    ------
    ValueError
        If ``draw`` is not callable or no control is given.

    Notes
    -----
    A picture, not a live matplotlib canvas: the notebook needs no
    interactive matplotlib backend, and moving a slider recomputes only in a
    running kernel (the static book shows the stored picture).  Requires
    ``ipywidgets``.

    Examples
    --------
    >>> import contextlib
    >>> def draw(slope):
    ...     fig, ax = new_figure()
    ...     ax.plot([0, 1], [0, slope])
    ...     return fig
    >>> with contextlib.redirect_stdout(io.StringIO()):  # outside a notebook the controls print terminal codes
    ...     box = interactive_figure(draw, slope=(0.0, 2.0, 0.5))
    >>> controls, picture = box.children
    >>> bytes(picture.value[1:4]), len(plt.get_fignums())
    (b'PNG', 0)
    """
    _check_draw(draw, controls)
    import ipywidgets as widgets

    controls = {k: c.widget(k) if isinstance(c, Slider) else c for k, c in controls.items()}
    image = widgets.Image(format="png")

    def update(**values):
        fig = draw(**values)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=72)
        plt.close(fig)
        image.value = buf.getvalue()

    return widgets.VBox([widgets.interactive(update, **controls), image])


# -- labels beside points -------------------------------------------------------

# where a label may go, tried in this order: the eight directions around its
# point, nearest ring first (offsets in points)
_DIRECTIONS = ((1, 1), (1, -1), (-1, 1), (-1, -1), (1, 0), (-1, 0), (0, 1), (0, -1))
_RINGS_PT = (4.0, 8.0, 14.0, 22.0)
_HA = {1: "left", 0: "center", -1: "right"}
_VA = {1: "bottom", 0: "center", -1: "top"}


def _overlap(box: np.ndarray, others: np.ndarray) -> float:
    """Total area that ``box`` (x0, y0, x1, y1) shares with the rows of ``others``."""
    if not len(others):
        return 0.0
    w = np.minimum(box[2], others[:, 2]) - np.maximum(box[0], others[:, 0])
    h = np.minimum(box[3], others[:, 3]) - np.maximum(box[1], others[:, 1])
    return float((np.clip(w, 0, None) * np.clip(h, 0, None)).sum())


def _candidate_boxes(anchor: np.ndarray, size: np.ndarray, px_per_pt: float) -> list[tuple]:
    """Every candidate place of a label of ``size`` (w, h px) at point ``anchor``: (box, offset, ha, va)."""
    out = []
    for ring in _RINGS_PT:
        for dx, dy in _DIRECTIONS:
            offset = np.array([dx, dy], dtype=float) * ring / np.hypot(dx, dy)
            x, y = anchor + offset * px_per_pt
            x0 = x - size[0] * (1 - dx) / 2  # left edge at x, right edge at x, or centred
            y0 = y - size[1] * (1 - dy) / 2
            out.append((np.array([x0, y0, x0 + size[0], y0 + size[1]]), offset, _HA[dx], _VA[dy]))
    return out


def _best_place(candidates, placed, markers, frame) -> tuple:
    """The first candidate that overlaps nothing and stays in ``frame``, else the least bad one."""
    best, best_cost = candidates[0], np.inf
    for cand in candidates:
        box = cand[0]
        area = (box[2] - box[0]) * (box[3] - box[1])
        outside = area - _overlap(box, frame[None, :])
        cost = _overlap(box, placed) + _overlap(box, markers) + 10 * outside
        if cost < best_cost:
            best, best_cost = cand, cost
        if cost <= 0:
            break
    return best


def place_labels(ax: Axes, x: ArrayLike, y: ArrayLike, labels: Sequence[str], *, avoid: ArrayLike | None = None,
                 fontsize: float = 8.0, marker_pt: float = 6.0, leader: bool = True, **text_kw: Any) -> list:
    """Label points so that no label covers another label, a point or the axes' edge.

    Each label is placed in turn, in the order given, at the first of a fixed
    list of places around its point (the eight directions, at 4, 8, 14 and
    22 points from it) where it overlaps no label placed before it, no
    point's marker and no point of ``avoid``, and lies inside the axes.  When
    no place is free it takes the place with the least overlap.  The routine
    is deterministic: the same figure gets the same labels.

    Call it last, once the axis limits and the figure's size are final: it
    draws the figure (without rendering) to settle the layout, and the labels
    are kept out of the layout so that they cannot move it afterwards.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes holding the points.
    x, y : array_like of float, shape (n,)
        The labelled points, in data coordinates.
    labels : sequence of str, length n
        One label per point.
    avoid : array_like of float, shape (m, 2), optional
        More points, in data coordinates, that no label may cover (points
        along arrows or lines, unlabelled markers).
    fontsize : float, default=8.0
        The labels' font size in points.
    marker_pt : float, default=6.0
        The width, in points, of the square around each point (labelled or
        in ``avoid``) that labels keep clear of: about a marker's diameter.
    leader : bool, default=True
        Draw a thin line from a label to its point when the label had to
        move beyond the nearest ring, so that it cannot be read as another
        point's.
    **text_kw
        Passed to :meth:`matplotlib.axes.Axes.annotate` (colour, weight, ...).

    Returns
    -------
    list of matplotlib.text.Annotation
        The labels, in the order of ``labels``.

    Raises
    ------
    ValueError
        If ``ax`` is not an Axes, if ``x``, ``y`` and ``labels`` differ in
        length or hold non-finite values, if ``avoid`` is not an (m, 2)
        array of finite values, if ``fontsize`` is not positive or
        ``marker_pt`` negative, or if ``leader`` is not a bool.

    Examples
    --------
    >>> fig, ax = new_figure(width=3.0, height=2.0)
    >>> _ = ax.scatter([0.0, 0.05, 1.0], [0.0, 0.0, 1.0])
    >>> near = place_labels(ax, [0.0, 0.05, 1.0], [0.0, 0.0, 1.0], ["first", "second", "third"],
    ...                     leader=False)
    >>> a, b = (t.get_window_extent() for t in near[:2])
    >>> bool(a.overlaps(b))
    False
    >>> plt.close(fig)
    """
    if not (hasattr(ax, "transData") and hasattr(ax, "annotate")):
        raise ValueError(f"ax must be a matplotlib Axes, got {type(ax).__name__}")
    xs, ys = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
    labels = [str(s) for s in labels]
    if not len(xs) == len(ys) == len(labels):
        raise ValueError(f"x, y and labels must have the same length, got {len(xs)}, {len(ys)} and {len(labels)}")
    xy = np.column_stack([xs, ys])
    if not np.isfinite(xy).all():
        raise ValueError("x and y must be finite")
    extra = np.empty((0, 2)) if avoid is None else np.asarray(avoid, dtype=float)
    if extra.ndim != 2 or extra.shape[1] != 2 or not np.isfinite(extra).all():
        raise ValueError(f"avoid must be an (m, 2) array of finite data coordinates, got shape {extra.shape}")
    if not (isinstance(fontsize, (int, float, np.integer, np.floating)) and fontsize > 0):
        raise ValueError(f"fontsize must be a positive number, got {fontsize!r}")
    if not (isinstance(marker_pt, (int, float, np.integer, np.floating)) and marker_pt >= 0):
        raise ValueError(f"marker_pt must be a non-negative number, got {marker_pt!r}")
    leader = check_bool(leader, "leader")
    return _place_labels(ax, xy, labels, extra, float(fontsize), float(marker_pt), leader, text_kw)


def _place_labels(ax, xy, labels, extra, fontsize, marker_pt, leader, text_kw) -> list:
    fig = ax.figure
    while getattr(fig, "figure", fig) is not fig:  # the figure that holds a subfigure
        fig = fig.figure
    fig.draw_without_rendering()  # final limits and layout
    px_per_pt = fig.dpi / 72
    points = ax.transData.transform(np.vstack([xy, extra])) if len(xy) + len(extra) else np.empty((0, 2))
    half = marker_pt * px_per_pt / 2
    markers = np.column_stack([points - half, points + half])
    frame = np.asarray(ax.get_window_extent().extents)
    placed, out = np.empty((0, 4)), []
    for data_xy, anchor, text in zip(xy, points, labels):
        probe = ax.annotate(text, tuple(data_xy), fontsize=fontsize, **text_kw)
        bbox = probe.get_window_extent()
        probe.remove()
        box, offset, ha, va = _best_place(_candidate_boxes(anchor, np.array([bbox.width, bbox.height]), px_per_pt),
                                          placed, markers, frame)
        far = np.hypot(*offset) > _RINGS_PT[0] + 1e-9
        kw = {"arrowprops": dict(arrowstyle="-", color="0.45", lw=0.6, shrinkA=1, shrinkB=marker_pt / 2)} if (
            leader and far) else {}
        ann = ax.annotate(text, tuple(data_xy), xytext=tuple(offset), textcoords="offset points", fontsize=fontsize,
                          ha=ha, va=va, **kw, **text_kw)
        ann.set_in_layout(False)
        placed = np.vstack([placed, box])
        out.append(ann)
    return out


# -- the kernel-free player -----------------------------------------------------

# the player's buttons: matplotlib's template draws Font Awesome 4 icons from a
# remote stylesheet; characters that every common font has need no download
_BUTTON_GLYPHS = {
    "fa-minus": "&minus;", "fa-fast-backward": "|&#x25C0;", "fa-step-backward": "&lsaquo;",
    "fa-play fa-flip-horizontal": "&#x25C0;", "fa-pause": "&#x2759;&#x2759;", "fa-play": "&#x25B6;",
    "fa-step-forward": "&rsaquo;", "fa-fast-forward": "&#x25B6;|", "fa-plus": "+",
}
_ICON = re.compile(r'<i class="fa (fa-[a-z-]+(?: fa-flip-horizontal)?)"></i>')
_REMOTE_CSS = re.compile(r'<link rel="stylesheet"\s+href="https?://[^"]*">\s*')
_PLAYER_ID = re.compile(r"_anim_img([0-9a-f]{32})")
_FRAME = re.compile(r'(frames\[\d+\] = "data:image/png;base64,)([^"]+)"')
_SLIDER = '<input id="_anim_slider{pid}" type="range"'

# the player's own styles, added to matplotlib's: the frame shrinks to the
# column, the parameter's name and value sit above the slider, and the nine
# buttons fit in one row of a phone's column (9 x 36 px and the gaps)
_PLAYER_CSS = """.animation img {
    max-width: 100%;
    height: auto;
}
.anim-readout {
    margin: 4px 0;
}
.anim-readout output {
    font-weight: bold;
    font-variant-numeric: tabular-nums;
}
.anim-buttons {
    display: flex;
    flex-wrap: wrap;
    justify-content: center;
    gap: 2px;
}
"""

# the readout: after every change of frame (slider, buttons, playing) the
# <output> shows the parameter's value and the slider's aria-valuetext says it
_READOUT_JS = """
<script language="javascript">
  /* The value readout of player {pid}. */
  (function() {{
    var values = {values};
    var label = {label};
    setTimeout(function() {{
      var anim = window["anim{pid}"];
      var slider = document.getElementById("_anim_slider{pid}");
      var readout = document.getElementById("_anim_value{pid}");
      function update() {{
        var text = values[parseInt(slider.value)];
        readout.value = text;
        slider.setAttribute("aria-valuetext", label + " = " + text);
      }}
      var set_frame = anim.set_frame;
      anim.set_frame = function(frame) {{
        set_frame.call(anim, frame);
        update();
      }};
      slider.addEventListener("input", update);
    }}, 0);
  }})();
</script>
"""

#: the width, in CSS pixels, of the book's text column on a phone 390 pixels wide
PHONE_COLUMN_PX = 358


def _quantize(b64: str, colors: int) -> str:
    """A base64 PNG re-encoded with an adaptive palette of ``colors`` colours."""
    from PIL import Image

    image = Image.open(io.BytesIO(base64.b64decode(b64.replace("\\\n", "")))).convert("RGB")
    small = image.quantize(colors=colors, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    buf = io.BytesIO()
    small.save(buf, format="png", optimize=True)
    return base64.b64encode(buf.getvalue()).decode("ascii")


class SweepPlayer:
    """A parameter sweep as precomputed frames in matplotlib's JavaScript player.

    Made by :func:`sweep_player`.  In a notebook or a built book the player
    shows itself (``_repr_html_``): the first frame, a labelled slider over
    the parameter values with a readout of the current value, and play
    buttons, all in plain HTML and JavaScript with the frames embedded, so it
    works with no kernel and no network.

    Attributes
    ----------
    html : str
        The self-contained HTML of the player.
    values : tuple
        The parameter value of each frame, in order.
    label : str
        The parameter's name.
    frame_shape : tuple of int
        ``(height, width)`` of every frame in pixels.
    text_scale : float
        The factor, at most 1, by which the figures were shrunk (in inches,
        at a proportionally higher resolution, so in the same pixels) to make
        their text readable on a phone; 1 when they were drawn as made.
    smallest_text_px : float or None
        The size, in CSS pixels, of the frames' smallest text when a frame
        is shown ``column_px`` wide or at its own width if narrower; None
        when the figures hold no text.
    """

    def __init__(self, html: str, values: tuple, label: str, frame_shape: tuple[int, int],
                 text_scale: float = 1.0, smallest_text_px: float | None = None):
        self.html = html
        self.values = values
        self.label = label
        self.frame_shape = frame_shape
        self.text_scale = text_scale
        self.smallest_text_px = smallest_text_px

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        shown = [_format_value(v) for v in self.values]
        if len(shown) > 6:
            shown = shown[:3] + ["…"] + shown[-2:]
        return f"<sweep player: {len(self.values)} frames, {self.label} = {', '.join(shown)}>"


def _format_value(v) -> str:
    if isinstance(v, (float, np.floating)):
        return format(float(v), ".4g")
    return str(v)


def _check_player_args(draw, values, dpi, colors, interval_ms, max_frames, min_text_px, column_px) -> tuple:
    """``values`` as a tuple, once every argument of :func:`sweep_player` is checked."""
    if not callable(draw):
        raise ValueError(f"draw must be a callable returning a matplotlib figure, got {type(draw).__name__}")
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence | np.ndarray):
        raise ValueError(f"values must be a sequence of parameter values, got {type(values).__name__}")
    max_frames = int(max_frames)
    if max_frames < 1:
        raise ValueError(f"max_frames must be at least 1, got {max_frames}")
    values = tuple(values)
    if not 1 <= len(values) <= max_frames:
        raise ValueError(f"values must hold 1 to max_frames={max_frames} values, got {len(values)}")
    if not 10 <= dpi <= 300:
        raise ValueError(f"dpi must be between 10 and 300, got {dpi}")
    if colors is not None and not (isinstance(colors, (int, np.integer)) and 2 <= colors <= 256):
        raise ValueError(f"colors must be None or an integer from 2 to 256, got {colors!r}")
    if not interval_ms > 0:
        raise ValueError(f"interval_ms must be positive, got {interval_ms}")
    if min_text_px is not None and not 1 <= min_text_px <= 50:
        raise ValueError(f"min_text_px must be None or between 1 and 50, got {min_text_px}")
    if not 100 <= column_px <= 4000:
        raise ValueError(f"column_px must be between 100 and 4000, got {column_px}")
    return values


def _draw_figures(draw: Callable, values: tuple) -> list[Figure]:
    """``draw(v)`` for every value; on an error every figure drawn so far is closed."""
    figures = []
    try:
        for v in values:
            fig = draw(v)
            if not isinstance(fig, Figure):
                if fig is not None and hasattr(fig, "number"):
                    plt.close(fig)
                raise ValueError(f"draw({_format_value(v)}) must return a matplotlib Figure, "
                                 f"got {type(fig).__name__}")
            figures.append(fig)
    except BaseException:
        for fig in figures:
            plt.close(fig)
        raise
    return figures


def _union(limits: list[tuple[float, float]]) -> tuple[float, float]:
    """The smallest interval holding every ``(left, right)`` of ``limits``; inverted if they all are."""
    lo = min(min(a, b) for a, b in limits)
    hi = max(max(a, b) for a, b in limits)
    return (hi, lo) if all(a > b for a, b in limits) else (lo, hi)


def _same_axes(figures: list[Figure]) -> bool:
    """Give the axes at each position of ``figures`` the union of their x and y limits.

    A sweep's frames then share their scales: what moves between frames is the data,
    not the axes.  Figures with different numbers of axes are left as drawn (``False``).
    """
    counts = {len(fig.axes) for fig in figures}
    if len(counts) != 1:
        return False
    for position in range(counts.pop()):
        axes = [fig.axes[position] for fig in figures]
        xlim = _union([ax.get_xlim() for ax in axes])
        ylim = _union([ax.get_ylim() for ax in axes])
        for ax in axes:
            ax.set_xlim(xlim)
            ax.set_ylim(ylim)
    return True


def _smallest_font_pt(fig: Figure) -> float | None:
    """The smallest font size, in points, of the visible texts of a figure that has been drawn."""
    sizes = [float(t.get_fontsize()) for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    return min(sizes, default=None)


def _text_scale(figures: list[Figure], dpi: float, min_text_px: float | None, column_px: int) -> tuple:
    """``(scale, smallest_px)``: the common shrink factor of the drawn figures and their smallest text after it.

    A figure ``W`` inches wide rendered at ``dpi`` is ``W * dpi`` pixels wide
    and shown at ``min(1, column_px / (W * dpi))`` of that on a phone; a text
    of ``f`` points is then ``f / 72 * dpi * min(1, ...)`` CSS pixels.
    Shrinking the figure to ``scale * W`` inches and rendering it at
    ``dpi / scale`` keeps its pixels and divides that size by ``scale``.
    """
    shown = []
    for fig in figures:
        font = _smallest_font_pt(fig)
        if font is not None:
            width_px = fig.get_size_inches()[0] * dpi
            shown.append(font / 72 * dpi * min(1.0, column_px / width_px))
    if not shown:
        return 1.0, None
    scale = 1.0 if min_text_px is None else min(1.0, min(shown) / min_text_px)
    return scale, min(shown) / scale


def _render(fig, dpi: float, scale: float = 1.0) -> np.ndarray:
    """The figure as an RGBA float array, shrunk by ``scale`` and rendered at ``dpi / scale``."""
    if scale < 1:
        fig.set_size_inches(fig.get_size_inches() * scale)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi / scale, facecolor="white")
    buf.seek(0)
    return plt.imread(buf, format="png")


def _frames(figures: list[Figure], dpi: float, min_text_px: float | None, column_px: int) -> tuple:
    """``(frames, scale, smallest_px)``: each figure rendered, again shrunk if its text is too small; all closed.

    The first rendering lays out every text (tick labels included), which
    :func:`_text_scale` then measures.
    """
    try:
        frames = [_render(fig, dpi) for fig in figures]
        scale, smallest = _text_scale(figures, dpi, min_text_px, column_px)
        if scale < 1:
            frames = [_render(fig, dpi, scale) for fig in figures]
    finally:
        for fig in figures:
            plt.close(fig)
    return frames, scale, smallest


def _pad(frames: list[np.ndarray]) -> list[np.ndarray]:
    """The frames on white canvases of the largest frame's size (RGBA)."""
    h = max(f.shape[0] for f in frames)
    w = max(f.shape[1] for f in frames)
    padded = []
    for f in frames:
        canvas = np.ones((h, w, 4), dtype=np.float32)
        canvas[: f.shape[0], : f.shape[1], : f.shape[2]] = f
        padded.append(canvas)
    return padded


def _animation_html(frames: list[np.ndarray], dpi: float, interval_ms: float) -> str:
    """matplotlib's JavaScript player of ``frames``, each shown pixel for pixel."""
    h, w = frames[0].shape[:2]
    plain: dict[RcKeyType, Any] = {"figure.autolayout": False, "savefig.dpi": "figure", "savefig.bbox": "standard",
             "savefig.transparent": False}
    with mpl.rc_context(plain):  # the frames fill the carrier figure pixel for pixel
        carrier = Figure(figsize=(w / dpi, h / dpi), dpi=dpi)
        FigureCanvasAgg(carrier)
        ax = carrier.add_axes((0, 0, 1, 1))
        ax.set_axis_off()
        image = ax.imshow(frames[0], interpolation="none")

        def show(i):
            image.set_data(frames[i])
            return (image,)

        anim = FuncAnimation(carrier, show, frames=len(frames), interval=interval_ms, repeat=False)
        return anim.to_jshtml(default_mode="once")


def _self_contained(html: str, label: str, values: tuple, frames: list[np.ndarray], colors: int | None) -> str:
    """The player with stable ids, no remote stylesheet or icon font, palette frames and a fluid width."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(repr((label, values)).encode())
    for f in frames:
        digest.update(np.ascontiguousarray(f).tobytes())
    html = html.replace(_player_id(html), digest.hexdigest())
    html = _REMOTE_CSS.sub("", html)
    html = _ICON.sub(lambda m: _BUTTON_GLYPHS[m.group(1)], html)
    if colors is not None:
        html = _FRAME.sub(lambda m: m.group(1) + _quantize(m.group(2), int(colors)) + '"', html)
    return html.replace("width: 374px;", "width: 100%;").replace(".anim-buttons {", _PLAYER_CSS + ".anim-buttons {", 1)


def _script_literal(obj) -> str:
    """``obj`` as a JavaScript literal that cannot close the surrounding ``<script>``."""
    return json.dumps(obj).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _player_id(html: str) -> str:
    """The id matplotlib gave its JavaScript player in ``html``."""
    found = _PLAYER_ID.search(html)
    if found is None:
        raise ValueError("matplotlib's animation HTML has no player id (has its format changed?)")
    return found.group(1)


def _accessible(html: str, label: str, values: tuple) -> str:
    """The player's slider with a visible label, a live value readout and ARIA attributes."""
    pid = _player_id(html)
    shown = [_format_value(v) for v in values]
    name = escape(label)
    slider = _SLIDER.format(pid=pid)
    readout = (f'<div class="anim-readout"><label for="_anim_slider{pid}">{name}</label> = '
               f'<output id="_anim_value{pid}" for="_anim_slider{pid}">{escape(shown[0])}</output></div>\n    ')
    attrs = f' aria-label="{name}" aria-valuetext="{name} = {escape(shown[0])}"'
    if html.count(slider) != 1:  # pragma: no cover - matplotlib's template changed
        raise RuntimeError("the player's slider was not found in matplotlib's template")
    html = html.replace(slider, readout + slider + attrs)
    return html + _READOUT_JS.format(pid=pid, values=_script_literal(shown), label=_script_literal(label))


def sweep_player(draw: Callable, values: Sequence, *, label: str = "value", dpi: int = 80,
                 colors: int | None = 64, interval_ms: int = 1000, max_frames: int = 12,
                 min_text_px: float | None = 9.0, column_px: int = PHONE_COLUMN_PX,
                 same_axes: bool = True) -> SweepPlayer:
    """Precompute one figure per parameter value and return a kernel-free player.

    ``draw(value)`` is called once for each value; each figure it returns is
    rendered to an image (``dpi`` dots per inch) and closed.  The images
    become the frames of a :class:`matplotlib.animation.FuncAnimation` on a
    figure of exactly their size, and :meth:`~matplotlib.animation.Animation.to_jshtml`
    writes matplotlib's JavaScript player with the frames embedded.  This
    is the static counterpart of :func:`interactive_figure`: the same
    ``draw`` function serves both, and the player works in the built book,
    where no kernel recomputes anything.

    Parameters
    ----------
    draw : callable
        ``draw(value) -> matplotlib.figure.Figure``.
    values : sequence
        The parameter values, one frame each, in the order played
        (``1 <= len(values) <= max_frames``).
    label : str, default="value"
        The parameter's name: the text of the slider's visible label and
        its accessible name, and the name in the text representation.
    dpi : int, default=80
        Resolution of the frames (10 to 300).  The frames are embedded as
        PNG in the page and in the notebook: keep ``dpi`` and the number of
        frames small.  A frame shrunk for a phone (``min_text_px``) keeps the
        pixel size it has at this resolution.
    colors : int or None, default=64
        Store each frame with an adaptive palette of this many colours (2 to
        256; median cut, no dithering), which makes a line plot's PNG about
        three times smaller with no visible change; ``None`` stores the
        frames in full colour, pixel for pixel as ``draw`` made them.
    interval_ms : int, default=1000
        Milliseconds between frames when playing.
    max_frames : int, default=12
        Refuse more values than this (a guard on the size of the page).
    min_text_px : float or None, default=9.0
        The smallest size, in CSS pixels, that the frames' text may have on
        a phone (1 to 50): when the smallest font of the figures would be
        shown smaller in a column ``column_px`` wide, every figure is shrunk
        by a common factor (its size in inches, keeping the aspect ratio) and
        rendered at a proportionally higher resolution, so that its pixels
        stay the same and its text, lines and markers grow relative to the
        plot.  ``None`` renders the figures as made.
    column_px : int, default=358
        The width, in CSS pixels, of the column the player is shown in on
        the narrowest screen (358: the book's column on a phone 390 pixels
        wide; 100 to 4000).
    same_axes : bool, default=True
        Give every frame the same axis limits: the axes at each position (the
        first axes of every figure, the second, ...; twin axes included) get
        the union of the x and of the y limits that ``draw`` left them, so the
        scales do not jump between frames and what moves is the data.  Figures
        with different numbers of axes keep their own limits.  ``False``
        renders each figure as drawn.

    Returns
    -------
    SweepPlayer
        Shows itself as HTML in a notebook or a book page; ``.html`` holds
        the HTML.

    Raises
    ------
    ValueError
        If ``draw`` is not callable or returns something other than a
        figure, if ``values`` is empty or longer than ``max_frames``, or if
        ``dpi``, ``colors``, ``interval_ms``, ``max_frames``,
        ``min_text_px`` or ``column_px`` is out of range.

    Notes
    -----
    Four changes to matplotlib's player keep it self-contained, accessible
    and readable on a phone: the buttons are plain characters instead of
    Font Awesome icons loaded from a remote stylesheet; the frame and the
    slider shrink to the width of the page; the slider has a visible
    ``<label>``, an ``aria-label``, and an ``<output>`` readout of the
    current value that follows the slider, the buttons and playing (with
    the slider's ``aria-valuetext``); the element ids are a hash of the
    frames instead of a random UUID, so re-running a notebook stores the
    same HTML.  Frames of different sizes are padded with white to the
    largest.

    Examples
    --------
    >>> def draw(slope):
    ...     fig, ax = new_figure(width=3.0, height=2.0)
    ...     ax.plot([0, 1], [0, slope])
    ...     ax.set_title(f"slope {slope}")
    ...     return fig
    >>> player = sweep_player(draw, [0.5, 1.0, 2.0], label="slope", dpi=72)
    >>> player
    <sweep player: 3 frames, slope = 0.5, 1, 2>
    >>> player.frame_shape, player.html.count("data:image/png;base64,"), "https://" in player.html
    ((144, 216), 3, False)
    >>> player.text_scale, round(player.smallest_text_px, 1)  # 10-point ticks at 72 dpi: readable as drawn
    (1.0, 10.0)
    >>> '<label for="_anim_slider' in player.html, "<output" in player.html
    (True, True)
    >>> plt.get_fignums()  # every figure drawn was closed
    []
    """
    values = _check_player_args(draw, values, dpi, colors, interval_ms, max_frames, min_text_px, column_px)
    same_axes = check_bool(same_axes, "same_axes")
    figures = _draw_figures(draw, values)
    if same_axes:
        _same_axes(figures)
    frames, scale, smallest = _frames(figures, dpi, min_text_px, column_px)
    frames = _pad(frames)
    html = _animation_html(frames, dpi, interval_ms)
    html = _accessible(_self_contained(html, label, values, frames, colors), label, values)
    return SweepPlayer(html, values, label, frames[0].shape[:2], scale, smallest)
