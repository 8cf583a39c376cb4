"""A cross-check of the prediction sets against MAPIE (an independent implementation)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_option
from .sets import _prepare

__all__ = ["mapie_sets"]


class _FixedProbabilities:
    """A prefit 'classifier' whose features are its own predicted probabilities (for MAPIE)."""

    _estimator_type = "classifier"

    def __init__(self, n_options: int):
        self.n_options = n_options
        self.classes_ = np.arange(n_options)
        self.n_features_in_ = n_options

    def fit(self, X, y):  # pragma: no cover - never called (prefit)
        return self

    def predict_proba(self, X):
        return np.asarray(X, dtype=float)

    def predict(self, X):
        return np.argmax(np.asarray(X), axis=1)

    def get_params(self, deep=True):
        return {"n_options": self.n_options}

    def set_params(self, **params):
        for key, value in params.items():
            setattr(self, key, value)
        return self

    def __sklearn_is_fitted__(self):
        return True

    def __sklearn_tags__(self):
        from sklearn.utils import ClassifierTags, Tags, TargetTags

        return Tags(
            estimator_type="classifier", target_tags=TargetTags(required=True), classifier_tags=ClassifierTags()
        )


def mapie_sets(
    p_cal: ArrayLike, y_cal: ArrayLike, p_test: ArrayLike, alpha: float, *, score: str = "lac",
    include_last_label: bool | str = True, random_state: int = 0,
) -> np.ndarray:
    """The same inputs through MAPIE's :class:`SplitConformalClassifier` (prefit), for comparison.

    Parameters
    ----------
    p_cal, y_cal, p_test, alpha : as in :func:`lac_sets`
    score : {"lac", "aps"}, default="lac"
    include_last_label : bool or "randomized", default=True
        MAPIE's APS option (ignored for LAC).
    random_state : int, default=0
        MAPIE's APS calibration scores are always randomised (``U * p_y`` is
        subtracted); this seeds that draw.

    Returns
    -------
    ndarray of bool, shape (n_test, K)

    Notes
    -----
    The differences from the released code, each checked in the tests:
    MAPIE's threshold is the textbook ``ceil((n+1)(1-alpha))``-th smallest
    score (``method="lower"``); LAC compares with a tolerance of 1e-8 and
    leaves empty sets empty; APS calibration scores are randomised, and with
    ``include_last_label=True`` the option whose cumulative sum first crosses
    the threshold is kept (the released code drops it).
    """
    from mapie.classification import SplitConformalClassifier

    p_cal, y_cal, p_test, alpha = _prepare(p_cal, y_cal, p_test, alpha, "textbook")
    check_option(score, "score", ("lac", "aps"))
    clf = SplitConformalClassifier(
        estimator=_FixedProbabilities(p_cal.shape[1]), confidence_level=1 - alpha,
        conformity_score=score, prefit=True, random_state=random_state,
    )
    clf.conformalize(p_cal, y_cal)
    params = {"include_last_label": include_last_label} if score == "aps" else None
    _, sets = clf.predict_set(p_test, conformity_score_params=params)
    return np.asarray(sets[:, :, 0], dtype=bool)
