"""Tests of semvar.plotting."""

from __future__ import annotations

import base64
import contextlib
import io
import re

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import pytest

from semvar.plotting import PALETTE, Slider, SweepPlayer, check_controls, interactive_figure, new_figure, sweep_player


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
    player = sweep_player(_line, values, label="slope", dpi=72, colors=None)
    assert isinstance(player, SweepPlayer) and player.values == tuple(values)
    frames = _frames(player.html)
    assert len(frames) == len(values) and player.frame_shape == (144, 216)  # 3 x 2 inches at 72 dpi
    for v, frame in zip(values, frames):
        np.testing.assert_array_equal(frame, _direct(_line(v), 72))  # pixel for pixel
    assert not np.array_equal(frames[0], frames[-1])  # the frames differ with the value
    assert plt.get_fignums() == []
    assert repr(player) == "<sweep player: 4 frames, slope = 0.5, 1, 2, 4>"
    assert player._repr_html_() is player.html


def test_sweep_player_is_self_contained_and_deterministic():
    a = sweep_player(_line, [1.0, 2.0], dpi=40)
    b = sweep_player(_line, [1.0, 2.0], dpi=40)
    c = sweep_player(_line, [1.0, 3.0], dpi=40)
    assert a.html == b.html  # no random ids: re-running a notebook stores the same output
    ids = {re.search(r"_anim_img([0-9a-f]{32})", p.html).group(1) for p in (a, c)}
    assert len(ids) == 2  # two players on one page do not share element ids
    assert not re.search(r"(src|href)=\"(https?:)?//", a.html)  # nothing fetched from another host
    assert "fa-" not in a.html and "374px" not in a.html  # no icon font; the slider fits a phone
    assert "max-width: 100%" in a.html


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
    ],
)
def test_sweep_player_bad_input(draw, values, kw, match):
    with pytest.raises(ValueError, match=match):
        sweep_player(draw, values, **kw)
    assert plt.get_fignums() == []
