"""The house style for the book's figures, a player of precomputed frames for the
static book, and sliders for readers who run the notebooks."""

from __future__ import annotations

import base64
import hashlib
import io
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.animation import FuncAnimation
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

__all__ = [
    "use_style", "PALETTE", "new_figure", "sweep_player", "SweepPlayer", "Slider", "interactive_figure",
    "check_controls",
]

#: a colour-blind-safe palette (Okabe & Ito 2008)
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]


def _crisp_inline_figures() -> None:
    """In a notebook, show figures at twice the pixel density (200 dpi on the page)."""
    try:
        from IPython import get_ipython  # optional: only present in a notebook kernel
        from matplotlib_inline.backend_inline import set_matplotlib_formats
    except ImportError:  # pragma: no cover - plain Python, no inline backend
        return
    if get_ipython() is not None:
        set_matplotlib_formats("retina")


def use_style() -> None:
    """Apply the house style: readable fonts, light grid, the palette, tight layout.

    In a notebook the inline figures are drawn at twice their nominal density
    (``figure.dpi`` 100, so 200 dots per inch), which keeps them crisp on the page
    and in print at the same displayed size.
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
            "axes.prop_cycle": mpl.cycler(color=PALETTE),
            "font.size": 10,
            "legend.frameon": False,
        }
    )


def new_figure(ncols: int = 1, nrows: int = 1, *, width: float = 6.4, height: float = 4.0, **kw):
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
    log : bool, default False
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

    def widget(self, name: str):
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


def check_controls(draw, **controls: Slider) -> int:
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


def interactive_figure(draw, **controls):
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
    shows itself (``_repr_html_``): the first frame, a slider over the
    parameter values and play buttons, all in plain HTML and JavaScript with
    the frames embedded, so it works with no kernel and no network.

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
    """

    def __init__(self, html: str, values: tuple, label: str, frame_shape: tuple[int, int]):
        self.html = html
        self.values = values
        self.label = label
        self.frame_shape = frame_shape

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


def _render(fig, dpi: int) -> np.ndarray:
    """The figure as an RGBA float array at ``dpi``; the figure is closed."""
    buf = io.BytesIO()
    try:
        fig.savefig(buf, format="png", dpi=dpi, facecolor="white")
    finally:
        plt.close(fig)
    buf.seek(0)
    return plt.imread(buf, format="png")


def sweep_player(draw: Callable, values: Sequence, *, label: str = "value", dpi: int = 80,
                 colors: int | None = 64, interval_ms: int = 1000, max_frames: int = 12) -> SweepPlayer:
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
        The parameter's name, used in the text representation.
    dpi : int, default=80
        Resolution of the frames (10 to 300).  The frames are embedded as
        PNG in the page and in the notebook: keep ``dpi`` and the number of
        frames small.
    colors : int or None, default=64
        Store each frame with an adaptive palette of this many colours (2 to
        256; median cut, no dithering), which makes a line plot's PNG about
        three times smaller with no visible change; ``None`` stores the
        frames in full colour, pixel for pixel as ``draw`` made them.
    interval_ms : int, default=1000
        Milliseconds between frames when playing.
    max_frames : int, default=12
        Refuse more values than this (a guard on the size of the page).

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
        ``dpi``, ``colors``, ``interval_ms`` or ``max_frames`` is out of range.

    Notes
    -----
    Three changes to matplotlib's player keep it self-contained and
    readable on a phone: the buttons are plain characters instead of Font
    Awesome icons loaded from a remote stylesheet; the frame and the slider
    shrink to the width of the page; the element ids are a hash of the
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
    >>> plt.get_fignums()  # every figure drawn was closed
    []
    """
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

    frames = []
    for v in values:
        fig = draw(v)
        if not isinstance(fig, Figure):
            if fig is not None and hasattr(fig, "number"):
                plt.close(fig)
            raise ValueError(f"draw({_format_value(v)}) must return a matplotlib Figure, got {type(fig).__name__}")
        frames.append(_render(fig, dpi))
    h = max(f.shape[0] for f in frames)
    w = max(f.shape[1] for f in frames)
    padded = []
    for f in frames:
        canvas = np.ones((h, w, 4), dtype=np.float32)
        canvas[: f.shape[0], : f.shape[1], : f.shape[2]] = f
        padded.append(canvas)

    plain = {"figure.autolayout": False, "savefig.dpi": "figure", "savefig.bbox": "standard",
             "savefig.transparent": False}
    with mpl.rc_context(plain):  # the frames fill the carrier figure pixel for pixel
        carrier = Figure(figsize=(w / dpi, h / dpi), dpi=dpi)
        FigureCanvasAgg(carrier)
        ax = carrier.add_axes((0, 0, 1, 1))
        ax.set_axis_off()
        image = ax.imshow(padded[0], interpolation="none")

        def show(i):
            image.set_data(padded[i])
            return (image,)

        anim = FuncAnimation(carrier, show, frames=len(padded), interval=interval_ms, repeat=False)
        html = anim.to_jshtml(default_mode="once")

    digest = hashlib.blake2b(digest_size=16)
    digest.update(repr((label, values)).encode())
    for f in padded:
        digest.update(np.ascontiguousarray(f).tobytes())
    old = _PLAYER_ID.search(html).group(1)
    html = html.replace(old, digest.hexdigest())
    html = _REMOTE_CSS.sub("", html)
    html = _ICON.sub(lambda m: _BUTTON_GLYPHS[m.group(1)], html)
    if colors is not None:
        html = _FRAME.sub(lambda m: m.group(1) + _quantize(m.group(2), int(colors)) + '"', html)
    html = html.replace("width: 374px;", "width: 100%;").replace(
        ".anim-buttons {", ".animation img {\n    max-width: 100%;\n    height: auto;\n}\n.anim-buttons {", 1)
    return SweepPlayer(html, values, label, (h, w))
