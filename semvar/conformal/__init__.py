"""Split conformal prediction sets for multiple-choice answers, and set size.

Ye et al. (2024) rank language models by the mean size of their conformal
prediction sets.  This package builds those sets exactly as the paper's
released code builds them, together with the textbook variant, the summary
statistics (set size, coverage, accuracy) and a cross-check against MAPIE.
The paper's evaluation protocol and table are :func:`ye_split`,
:func:`ye_protocol` and :func:`ye_table`; the review's synthetic models live
in :mod:`semvar.experiments.review_models`.

Modules:

- :mod:`~semvar.conformal.scores` - softmax, LAC and APS nonconformity scores
- :mod:`~semvar.conformal.thresholds` - the threshold ``qhat`` and its rank
- :mod:`~semvar.conformal.sets` - LAC and APS prediction sets
- :mod:`~semvar.conformal.metrics` - set size, coverage, accuracy, inclusion probabilities
- :mod:`~semvar.conformal.mapie` - the same sets through MAPIE, for comparison
- :mod:`~semvar.conformal.protocol` - the paper's split, protocol and table (:func:`ye_table`)

The construction
----------------
Given calibration probabilities ``p_cal`` (n, K) with true options ``y_cal``
and a nonconformity score ``s(x, y)``, the threshold is an order statistic of
the n calibration scores:

* ``quantile="textbook"``: the ``k``-th smallest score with
  ``k = ceil((n + 1)(1 - alpha))`` (Vovk et al. 2005; Angelopoulos & Bates
  2023), which gives ``P(Y in C(X)) >= 1 - alpha`` under exchangeability;
* ``quantile="paper"``: ``np.quantile(scores, k / n, method="higher")``, the
  released code's rule.  Its virtual index is ``(k/n)(n - 1) = k - k/n``,
  which for ``0 < k < n`` is not an integer and rounds up to ``k``
  (0-based), i.e. the ``(k + 1)``-th smallest score: one rank above the
  textbook threshold (for ``k = n`` both are the largest score).  The
  textbook ``k`` is computed exactly (alpha read as the decimal written);
  the released code's ``k`` keeps its floating-point expression, which
  rounds up one too far for a few ``(n, alpha)`` (``n = 9, alpha = 0.7``:
  4 instead of 3), where it is two ranks above the textbook threshold.

Scores and sets:

* LAC (Sadinle, Lei & Wasserman 2019): score ``1 - p_y``; the test set keeps
  every option with ``p >= 1 - qhat``.
* APS (Romano, Sesia & Candes 2020, without randomisation): options sorted by
  decreasing probability; the score is the cumulative probability down to and
  including the true option; at test time options are added in that order
  while the cumulative sum stays ``<= qhat``.

In both, an empty set is replaced by the single top option (``np.argmax``).
"""

from ._checks import SUM_TOL
from .mapie import mapie_sets
from .metrics import accuracy, coverage, inclusion_probabilities, set_size
from .protocol import YE_DROPPED_IDS, ye_protocol, ye_split, ye_table
from .scores import aps_scores, lac_scores, softmax
from .sets import aps_sets, lac_sets
from .thresholds import conformal_threshold, min_calibration_size, quantile_rank

__all__ = [
    "softmax",
    "quantile_rank",
    "min_calibration_size",
    "conformal_threshold",
    "lac_scores",
    "aps_scores",
    "lac_sets",
    "aps_sets",
    "set_size",
    "coverage",
    "accuracy",
    "inclusion_probabilities",
    "mapie_sets",
    "YE_DROPPED_IDS",
    "ye_split",
    "ye_protocol",
    "ye_table",
    "SUM_TOL",
]
