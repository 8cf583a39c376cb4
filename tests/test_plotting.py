"""Tests of semvar.plotting."""

from __future__ import annotations

import base64
import contextlib
import io
import re
from html.parser import HTMLParser

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.text import Text

from semvar import plotting
from semvar.plotting import (
    PALETTE,
    PHONE_COLUMN_PX,
    Slider,
    SweepPlayer,
    check_controls,
    interactive_figure,
    new_figure,
    place_labels,
    sweep_player,
)


def _quiet(fn, *args, **kwargs):
    # outside a notebook the controls write terminal codes to stdout
    with contextlib.redirect_stdout(io.StringIO()):
        return fn(*args, **kwargs)


def _png_size(data) -> tuple[int, int]:
    data = bytes(data)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_interactive_figure_redraws_with_the_current_values_and_closes_figures():
    calls = []

    def draw(width, label):
        calls.append((width, label))
        fig, ax = new_figure(width=width, height=2.0)
        ax.plot([0, 1], [0, 1], label=label)
        return fig

    slider = widgets.FloatSlider(value=2.0, min=1.0, max=4.0, step=1.0)
    box = _quiet(interactive_figure, draw, width=slider, label="x")
    controls, picture = box.children
    assert isinstance(box, widgets.VBox) and isinstance(picture, widgets.Image)
    assert calls == [(2.0, "x")]  # drawn once when built
    assert _png_size(picture.value) == (144, 144)  # 2 x 2 inches at 72 dpi
    _quiet(setattr, slider, "value", 4.0)
    assert calls[-1] == (4.0, "x")
    assert _png_size(picture.value) == (288, 144)  # the picture follows the slider
    assert plt.get_fignums() == []  # every drawn figure was closed


@pytest.mark.parametrize("draw, controls, match", [(None, {"a": (0, 1)}, "draw must be a callable"), (lambda: None, {}, "at least one control")])
def test_interactive_figure_bad_input(draw, controls, match):
    with pytest.raises(ValueError, match=match):
        interactive_figure(draw, **controls)


def _picture(width, label="x"):
    fig, ax = new_figure(width=width, height=2.0)
    ax.plot([0, 1], [0, 1], label=label)
    return fig


def test_slider_specs_become_widgets_only_when_built():
    lin, log = Slider(2.0, 1.0, 4.0, 1.0), Slider(1.0, 0.25, 4.0, 0.05, log=True, label="T")
    w = lin.widget("width")
    assert isinstance(w, widgets.FloatSlider) and (w.value, w.min, w.max, w.description) == (2.0, 1.0, 4.0, "width")
    w = log.widget("t")
    assert isinstance(w, widgets.FloatLogSlider) and w.description == "T"
    assert (w.min, w.max) == pytest.approx((np.log10(0.25), np.log10(4.0))) and w.value == pytest.approx(1.0)
    box = _quiet(interactive_figure, _picture, width=lin)
    assert _png_size(box.children[1].value) == (144, 144)  # built at the default
    assert plt.get_fignums() == []


def test_check_controls_draws_both_ends_and_surfaces_errors():
    seen = []

    def draw(width, height):
        seen.append((width, height))
        if width > 3.5:
            raise ZeroDivisionError("breaks at the high end")
        return _picture(width)

    ok = dict(width=Slider(2.0, 1.0, 3.0, 0.5), height=Slider(2.0, 1.0, 2.5, 0.5))
    assert check_controls(draw, **ok) == 2 and seen == [(1.0, 1.0), (3.0, 2.5)]
    assert plt.get_fignums() == []
    with pytest.raises(ZeroDivisionError, match="high end"):
        check_controls(draw, width=Slider(2.0, 1.0, 4.0, 0.5), height=Slider(2.0, 1.0, 2.5, 0.5))
    with pytest.raises(ValueError, match="must return a matplotlib Figure"):
        check_controls(lambda width: None, width=Slider(2.0, 1.0, 3.0, 0.5))
    with pytest.raises(ValueError, match="not a Slider"):
        check_controls(_picture, width=(1.0, 3.0, 0.5))
    with pytest.raises(ValueError, match="at least one control"):
        check_controls(_picture)


@pytest.mark.parametrize("args, kw, match", [
    ((2.0, 0.0, 1.0, 0.1), {}, "low <= value <= high"),
    ((1.0, 1.0, 1.0, 0.1), {}, "low < high"),
    ((0.5, 0.0, 1.0, 0.0), {}, "step must be positive"),
    ((0.5, 0.0, 1.0, 0.1), {"log": True}, "low > 0"),
    ((float("nan"), 0.0, 1.0, 0.1), {}, "finite number"),
    (("1", 0.0, 1.0, 0.1), {}, "finite number"),
    ((True, 0.0, 1.0, 0.1), {}, "finite number"),
])
def test_slider_bad_input(args, kw, match):
    with pytest.raises(ValueError, match=match):
        Slider(*args, **kw)


def test_new_figure_uses_the_palette_and_scales_with_the_grid():
    fig, axes = new_figure(2, 1, width=5.0, height=3.0)
    try:
        assert len(axes) == 2
        np.testing.assert_allclose(fig.get_size_inches(), (5.0 * 2**0.8, 3.0))
        assert plt.rcParams["axes.prop_cycle"].by_key()["color"] == PALETTE
    finally:
        plt.close(fig)


def _line(slope, width=3.0):
    fig, ax = new_figure(width=width, height=2.0)
    ax.plot([0, 1], [0, slope])
    ax.set_title(f"slope {slope}")
    return fig


def _frames(html):
    """The embedded frames of a player, decoded to RGBA arrays."""
    data = re.findall(r'data:image/png;base64,([^"]+)"', html)
    return [plt.imread(io.BytesIO(base64.b64decode(d.replace("\\\n", ""))), format="png") for d in data]


def _direct(fig, dpi):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, facecolor="white")
    plt.close(fig)
    buf.seek(0)
    return plt.imread(buf, format="png")


def test_sweep_player_has_one_frame_per_value_equal_to_the_figure_drawn():
    values = [0.5, 1.0, 2.0, 4.0]
    player = sweep_player(_line, values, label="slope", dpi=72, colors=None, same_axes=False)
    assert isinstance(player, SweepPlayer) and player.values == tuple(values)
    frames = _frames(player.html)
    assert len(frames) == len(values) and player.frame_shape == (144, 216)  # 3 x 2 inches at 72 dpi
    for v, frame in zip(values, frames):
        np.testing.assert_array_equal(frame, _direct(_line(v), 72))  # pixel for pixel
    assert not np.array_equal(frames[0], frames[-1])  # the frames differ with the value
    assert plt.get_fignums() == []
    assert repr(player) == "<sweep player: 4 frames, slope = 0.5, 1, 2, 4>"
    assert player._repr_html_() is player.html


def test_sweep_player_frames_share_their_axes():
    # each frame drawn alone autoscales its y axis to its own slope: the scale jumps
    alone = [_direct(_line(v), 72) for v in (1.0, 4.0)]
    assert not np.array_equal(alone[0], alone[1])
    drawn = []

    def draw(slope):
        drawn.append(_line(slope))
        return drawn[-1]

    shared = sweep_player(draw, [1.0, 4.0], dpi=72, colors=None)
    ylims = [fig.axes[0].get_ylim() for fig in drawn]
    assert ylims[0] == ylims[1]  # both frames: the union of the two ranges
    assert ylims[0][0] <= 0.0 and ylims[0][1] >= 4.0
    fixed = _line(1.0)
    fixed.axes[0].set_ylim(ylims[0])
    np.testing.assert_array_equal(_frames(shared.html)[0], _direct(fixed, 72))
    assert plt.get_fignums() == []


def test_same_axes_leaves_figures_with_different_axes_alone():
    one = _line(1.0)
    two, axes = new_figure(2, 1, width=3.0, height=2.0)
    try:
        before = one.axes[0].get_ylim()
        assert plotting._same_axes([one, two]) is False
        assert one.axes[0].get_ylim() == before
        assert plotting._union([(3.0, 1.0), (2.0, 0.0)]) == (3.0, 0.0)  # inverted axes stay inverted
        assert plotting._union([(0.0, 1.0), (2.0, 0.5)]) == (0.0, 2.0)
    finally:
        plt.close(one)
        plt.close(two)


def test_sweep_player_is_self_contained_and_deterministic():
    a = sweep_player(_line, [1.0, 2.0], dpi=40)
    b = sweep_player(_line, [1.0, 2.0], dpi=40)
    c = sweep_player(_line, [1.0, 3.0], dpi=40)
    assert a.html == b.html  # no random ids: re-running a notebook stores the same output
    ids = {re.search(r"_anim_img([0-9a-f]{32})", p.html).group(1) for p in (a, c)}
    assert len(ids) == 2  # two players on one page do not share element ids
    assert not re.search(r"(src|href)=\"(https?:)?//", a.html)  # nothing fetched from another host
    assert "fa-" not in a.html and "374px" not in a.html  # no icon font; the slider fits a phone
    assert "max-width: 100%" in a.html and "height: auto" in a.html  # the frame scales to the column
    assert "flex-wrap: wrap" in a.html  # the buttons wrap instead of widening the page


def test_sweep_player_palette_frames_are_smaller_and_close_to_the_full_colour_ones():
    full = sweep_player(_line, [1.0, 2.0], dpi=72, colors=None)
    small = sweep_player(_line, [1.0, 2.0], dpi=72)
    assert len(small.html) < 0.7 * len(full.html)
    for a, b in zip(_frames(full.html), _frames(small.html)):
        assert a.shape[:2] == b.shape[:2]
        assert np.abs(a[..., :3] - b[..., :3]).mean() < 0.01  # no visible change


def test_sweep_player_pads_frames_of_different_sizes():
    player = sweep_player(lambda w: _line(1.0, width=w), [2.0, 3.0], dpi=50, colors=None)
    small, large = _frames(player.html)
    assert small.shape == large.shape == (100, 150, 4)
    assert (small[:, 100:, :3] == 1).all()  # white beyond the narrower figure


def test_sweep_player_closes_figures_when_draw_returns_something_else():
    def draw(v):
        if v > 1:
            return "not a figure"
        return _line(v)

    with pytest.raises(ValueError, match=r"draw\(2\) must return a matplotlib Figure, got str"):
        sweep_player(draw, [1, 2])
    assert plt.get_fignums() == []


@pytest.mark.parametrize(
    "draw, values, kw, match",
    [
        (None, [1], {}, "draw must be a callable"),
        (_line, [], {}, "1 to max_frames=12 values, got 0"),
        (_line, list(range(13)), {}, "1 to max_frames=12 values, got 13"),
        (_line, "abc", {}, "values must be a sequence"),
        (_line, 3, {}, "values must be a sequence"),
        (_line, [1], {"dpi": 5}, "dpi must be between 10 and 300, got 5"),
        (_line, [1], {"interval_ms": 0}, "interval_ms must be positive"),
        (_line, [1], {"colors": 1}, "colors must be None or an integer from 2 to 256, got 1"),
        (_line, [1], {"colors": 2.5}, "colors must be None or an integer"),
        (_line, [1], {"max_frames": 0}, "max_frames must be at least 1"),
        (_line, [1], {"min_text_px": 0.5}, "min_text_px must be None or between 1 and 50, got 0.5"),
        (_line, [1], {"column_px": 50}, "column_px must be between 100 and 4000, got 50"),
    ],
)
def test_sweep_player_bad_input(draw, values, kw, match):
    with pytest.raises(ValueError, match=match):
        sweep_player(draw, values, **kw)
    assert plt.get_fignums() == []


class _Elements(HTMLParser):
    """Every start tag of a page with its attributes, and the text inside <label> and <output>."""

    def __init__(self):
        super().__init__()
        self.tags, self.text, self._open = [], {}, None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag in ("label", "output"):
            self._open = (tag, dict(attrs).get("for"))
            self.text[self._open] = ""

    def handle_endtag(self, tag):
        self._open = None

    def handle_data(self, data):
        if self._open:
            self.text[self._open] += data


def _elements(html):
    parser = _Elements()
    parser.feed(html)
    return parser


def test_sweep_player_slider_has_a_label_a_live_readout_and_aria_attributes():
    player = sweep_player(_line, [0.5, 1.0, 2.5], label="slope <b>", dpi=40)
    page = _elements(player.html)
    sliders = [a for t, a in page.tags if t == "input" and a.get("type") == "range"]
    assert len(sliders) == 1
    slider = sliders[0]
    sid = slider["id"]
    labels = [a for t, a in page.tags if t == "label" and a.get("for") == sid]
    outputs = [a for t, a in page.tags if t == "output" and a.get("for") == sid]
    assert len(labels) == 1 and len(outputs) == 1  # tied to the slider by its id
    assert page.text[("label", sid)] == "slope <b>"  # visible, and escaped in the HTML
    assert "<b>" not in player.html.split("<script")[0]
    assert page.text[("output", sid)] == "0.5"  # the first frame's value
    assert slider["aria-label"] == "slope <b>" and slider["aria-valuetext"] == "slope <b> = 0.5"
    # the readout follows the frame: the script knows every value and updates both on each change
    oid = outputs[0]["id"]
    script = player.html[player.html.index("The value readout"):]
    assert '["0.5", "1", "2.5"]' in script and f'getElementById("{oid}")' in script
    assert f'getElementById("{sid}")' in script and 'addEventListener("input"' in script
    assert 'setAttribute("aria-valuetext"' in script and "anim.set_frame = function" in script
    assert "\\u003cb\\u003e" in script  # the label cannot close the script


def _small_text(v, width=8.0, height=3.0):
    fig, ax = new_figure(width=width, height=height)
    ax.plot([0, 1], [0, v])
    ax.tick_params(labelsize=6)
    ax.set_xlabel("x", fontsize=6)
    ax.set_ylabel("y", fontsize=6)
    ax.set_title(f"value {v}", fontsize=6)
    return fig


def test_sweep_player_enlarges_small_text_for_a_phone_and_keeps_the_pixels():
    dpi = 80
    player = sweep_player(_small_text, [1.0, 2.0], dpi=dpi, colors=None, same_axes=False)
    # 6-point text on a figure 8 inches (640 px) wide, shown 358 px wide: 6 / 72 * 80 * 358 / 640 px
    shown = 6 / 72 * dpi * PHONE_COLUMN_PX / 640
    scale = shown / 9
    assert player.text_scale == pytest.approx(scale) and player.smallest_text_px == pytest.approx(9.0)
    assert player.frame_shape == (240, 640)  # the same pixels as the figure at 80 dpi
    plain = sweep_player(_small_text, [1.0, 2.0], dpi=dpi, colors=None, min_text_px=None,
                         same_axes=False)
    assert plain.text_scale == 1.0 and plain.smallest_text_px == pytest.approx(shown)
    assert plain.frame_shape == (240, 640)
    for v, big, small in zip([1.0, 2.0], _frames(player.html), _frames(plain.html)):
        np.testing.assert_array_equal(small, _direct(_small_text(v), dpi))  # as drawn, pixel for pixel
        # the enlarged frame is the figure drawn smaller in inches at a higher resolution
        redrawn = _direct(_small_text(v, width=8.0 * scale, height=3.0 * scale), dpi / scale)
        assert redrawn.shape == big.shape
        assert np.abs(big[..., :3] - redrawn[..., :3]).mean() < 0.01
        assert np.abs(big[..., :3] - small[..., :3]).mean() > 0.02  # and not the frame as drawn
    assert plt.get_fignums() == []


def test_sweep_player_leaves_readable_frames_as_drawn():
    readable = sweep_player(_line, [1.0], dpi=72, colors=None)  # 10-point text, 216 px wide
    assert readable.text_scale == 1.0 and readable.smallest_text_px == pytest.approx(10.0)
    # 6-point text at 120 dpi is 10 px; on a phone the 960-px frame would shrink it to 3.7 px
    assert sweep_player(_small_text, [1.0], dpi=120).text_scale < 1
    wide = sweep_player(_small_text, [1.0], dpi=120, column_px=1000)  # shown as drawn in a wider column
    assert wide.text_scale == 1.0 and wide.smallest_text_px == pytest.approx(10.0)


def _boxes(annotations):
    """The labels' text boxes (an annotation's own extent includes its leader line)."""
    return [Text.get_window_extent(a) for a in annotations]


def test_place_labels_separates_labels_of_nearby_points():
    x = np.array([45.6, 44.8, 57.6, 57.0, 72.5, 23.0])
    y = np.array([3.20, 3.20, 3.20, 3.21, 2.45, 3.90])
    names = ["Llama-2-7b-hf", "Qwen-1_8B", "Yi-6B", "Yi-6B-twin", "Qwen-72B", "falcon-7b"]
    fig, ax = new_figure(width=5.0, height=4.0)
    ax.scatter(x, y)
    try:
        # the labels as they would be drawn at one fixed offset overlap
        naive = [ax.annotate(n, (a, b), xytext=(4, 4), textcoords="offset points", fontsize=8)
                 for n, a, b in zip(names, x, y)]
        fig.draw_without_rendering()
        assert any(p.overlaps(q) for i, p in enumerate(_boxes(naive)) for q in _boxes(naive)[i + 1:])
        for a in naive:
            a.remove()
        labels = place_labels(ax, x, y, names, fontsize=8)
        fig.canvas.draw()
        boxes = _boxes(labels)
        assert [a.get_text() for a in labels] == names
        for i, p in enumerate(boxes):
            assert not any(p.overlaps(q) for q in boxes[i + 1:])
        frame = ax.get_window_extent()
        half = 6.0 * fig.dpi / 72 / 2
        for p in boxes:
            assert frame.x0 <= p.x0 and p.x1 <= frame.x1 and frame.y0 <= p.y0 and p.y1 <= frame.y1
            for px, py in ax.transData.transform(np.column_stack([x, y])):  # clear of every marker
                assert p.x1 <= px - half or p.x0 >= px + half or p.y1 <= py - half or p.y0 >= py + half
        again = place_labels(ax, x, y, names, fontsize=8)
        assert [a.xyann for a in again] == [a.xyann for a in labels]  # deterministic
    finally:
        plt.close(fig)


def test_place_labels_keeps_clear_of_avoided_points():
    fig, ax = new_figure(width=4.0, height=3.0)
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 10)
    try:
        line = np.column_stack([np.linspace(5, 9, 40), np.linspace(5, 9, 40)])  # up and to the right of the point
        free = place_labels(ax, [5.0], [5.0], ["label"])[0]
        fig.draw_without_rendering()
        inside = lambda box: any(box.contains(*p) for p in ax.transData.transform(line))  # noqa: E731
        assert inside(free.get_window_extent())  # where it goes with nothing to avoid
        kept = place_labels(ax, [5.0], [5.0], ["label"], avoid=line)[0]
        fig.draw_without_rendering()
        assert not inside(kept.get_window_extent())
    finally:
        plt.close(fig)


def test_place_labels_draws_leaders_to_labels_moved_away():
    fig, ax = new_figure(width=4.0, height=3.0)
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 10)
    try:
        x, y = 5 + 0.05 * np.arange(6), np.full(6, 5.0)  # six labels for one crowded spot
        labels = place_labels(ax, x, y, [f"label {i}" for i in range(6)])
        fig.draw_without_rendering()
        boxes = _boxes(labels)
        assert not any(p.overlaps(q) for i, p in enumerate(boxes) for q in boxes[i + 1:])
        near = [np.hypot(*a.xyann) < 4.5 for a in labels]
        assert any(near) and not all(near)
        assert all((a.arrow_patch is None) == n for a, n in zip(labels, near))  # a leader if moved away
        bare = place_labels(ax, x, y, [f"label {i}" for i in range(6)], leader=False)
        assert all(a.arrow_patch is None for a in bare)
    finally:
        plt.close(fig)


@pytest.mark.parametrize("args, kw, match", [
    (([0, 1], [0], ["a", "b"]), {}, "same length, got 2, 1 and 2"),
    (([0, 1], [0, 1], ["a"]), {}, "same length"),
    (([0, np.nan], [0, 1], ["a", "b"]), {}, "finite"),
    (([0], [0], ["a"]), {"avoid": [1, 2, 3]}, r"avoid must be an \(m, 2\) array"),
    (([0], [0], ["a"]), {"fontsize": 0}, "fontsize must be a positive number"),
    (([0], [0], ["a"]), {"marker_pt": -1}, "marker_pt must be a non-negative number"),
    (([0], [0], ["a"]), {"leader": "yes"}, "leader must be True or False"),
])
def test_place_labels_bad_input(args, kw, match):
    with pytest.raises(ValueError, match="ax must be a matplotlib Axes, got str"):
        place_labels("axes", [0], [0], ["a"])
    fig, ax = new_figure()
    try:
        with pytest.raises(ValueError, match=match):
            place_labels(ax, *args, **kw)
    finally:
        plt.close(fig)
