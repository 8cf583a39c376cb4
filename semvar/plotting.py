"""The house style for the book's figures."""

from __future__ import annotations

import matplotlib as mpl
import matplotlib.pyplot as plt

__all__ = ["use_style", "PALETTE", "new_figure"]

#: a colour-blind-safe palette (Okabe & Ito 2008)
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]


def use_style() -> None:
    """Apply the house style: readable fonts, light grid, the palette, tight layout."""
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
