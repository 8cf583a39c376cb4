"""SIMULATION: the set-size review's synthetic multiple-choice models (its three panels).

These are models of a model, not data: logits drawn from a stated recipe so
that accuracy, sharpness and the shape of the wrong answers can be set one at
a time.  Panel A (:func:`temperature_sweep`) changes only the temperature;
panel B (:func:`sharp_soft_pair`) a sharp and a soft model with the same
answers; panel C (:func:`same_sets_models`) two models with the same LAC sets
and very different accuracy.  The prediction sets come from
:mod:`semvar.conformal`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import conformal as cf
from .._validation import (
    RandomStateLike,
    check_array,
    check_int,
    check_option,
    check_probability,
    check_random_state,
    check_real,
)

__all__ = ["synthetic_logits", "same_sets_models", "temperature_sweep", "sharp_soft_pair"]


def synthetic_logits(n: int, *, acc0: float, margin: float, sigma: float, n_options: int = 6,
                     construction: str = "additive",
                     random_state: RandomStateLike = None) -> tuple[np.ndarray, np.ndarray]:
    """The set-size review's synthetic multiple-choice model.

    For each question a correct option ``y`` is drawn uniformly; the model
    *chooses* ``y`` with probability ``acc0`` and otherwise a uniformly random
    wrong option.  Logits:

    * ``construction="additive"``: ``z_j = sigma * eps_j + margin * 1{j = chosen}``,
      ``eps_j`` iid standard normal (panel A);
    * ``construction="beat_best"``: ``z_j = sigma * eps_j`` for the other options
      and ``z_chosen = max_{j != chosen} z_j + margin``, so the chosen option beats
      the best other by exactly ``margin`` and is always the argmax (panel B):
      accuracy is then ``acc0`` up to sampling noise, whatever ``margin`` and
      ``sigma``.

    Under ``"additive"`` the chosen option is the argmax only with high
    probability (when ``margin >> sigma``), so accuracy is close to, not
    equal to, ``acc0``.

    Parameters
    ----------
    n : int >= 1
    acc0 : float in [0, 1]
    margin : float >= 0
    sigma : float >= 0
    n_options : int >= 2
    construction : {"additive", "beat_best"}
    random_state : None, int or numpy Generator

    Returns
    -------
    logits : ndarray (n, n_options)
    y : ndarray (n,) of int, the correct options

    Raises
    ------
    ValueError
        For parameters outside the ranges above.

    Examples
    --------
    >>> from semvar.conformal import accuracy
    >>> z, y = synthetic_logits(5000, acc0=0.9, margin=3.0, sigma=1.0, construction="beat_best", random_state=0)
    >>> round(accuracy(z, y), 2)
    0.9
    """
    n = check_int(n, "n", low=1)
    acc0 = check_probability(acc0, "acc0")
    margin = check_real(margin, "margin", low=0.0)
    sigma = check_real(sigma, "sigma", low=0.0)
    k = check_int(n_options, "n_options", low=2)
    check_option(construction, "construction", ("additive", "beat_best"))
    rng = check_random_state(random_state)
    y = rng.integers(k, size=n)
    right = rng.random(n) < acc0
    chosen = np.where(right, y, (y + rng.integers(1, k, size=n)) % k)
    z = sigma * rng.standard_normal((n, k))
    rows = np.arange(n)
    if construction == "additive":
        z[rows, chosen] += margin
    else:
        others = z.copy()
        others[rows, chosen] = -np.inf
        z[rows, chosen] = others.max(axis=1) + margin
    return z, y


def same_sets_models(n: int, *, p_medium: float = 0.85, n_options: int = 6,
                     random_state: RandomStateLike = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Panel C of the review: two models whose LAC sets coincide while accuracy is 90% vs 5%.

    A share ``p_medium`` of questions is *medium*: both models put
    probabilities 0.5, 0.4, 0.1 on three distinct options and 0 elsewhere;
    model 1 puts the 0.5 on the correct option and 0.4 on a wrong one, model 2
    the reverse (0.4 on the correct option, 0.5 on that same wrong one).  The
    other questions are *hard*: probabilities 0.4, 0.3, 0.3 with the correct
    option in a uniformly random one of the three slots, identical under both
    models.  The options used are drawn at random per question.

    Parameters
    ----------
    n : int >= 1
    p_medium : float in [0, 1]
    n_options : int >= 3
    random_state : None, int or numpy Generator

    Returns
    -------
    p1, p2 : ndarray (n, n_options)
        The two models' probabilities.
    y : ndarray (n,) of int
        Correct options.
    medium : ndarray (n,) of bool

    Examples
    --------
    >>> from semvar.conformal import accuracy
    >>> p1, p2, y, medium = same_sets_models(20000, random_state=0)
    >>> round(accuracy(p1, y), 2), round(accuracy(p2, y), 2)
    (0.9, 0.05)
    """
    n = check_int(n, "n", low=1)
    p_medium = check_probability(p_medium, "p_medium")
    k = check_int(n_options, "n_options", low=3)
    rng = check_random_state(random_state)
    slots = np.argsort(rng.random((n, k)), axis=1)[:, :3]  # three distinct options per question
    medium = rng.random(n) < p_medium
    rows = np.arange(n)
    p1 = np.zeros((n, k))
    p2 = np.zeros((n, k))
    # medium: slot 0 = correct option
    for p, (a, b) in ((p1, (0.5, 0.4)), (p2, (0.4, 0.5))):
        p[rows[medium], slots[medium, 0]] = a
        p[rows[medium], slots[medium, 1]] = b
        p[rows[medium], slots[medium, 2]] = 0.1
        p[rows[~medium], slots[~medium, 0]] = 0.4
        p[rows[~medium], slots[~medium, 1]] = 0.3
        p[rows[~medium], slots[~medium, 2]] = 0.3
    y = np.where(medium, slots[:, 0], slots[rows, rng.integers(3, size=n)])
    return p1, p2, y, medium


def _split_eval(p, y, n_cal, alpha, quantile):
    cal, test = slice(0, n_cal), slice(n_cal, None)
    lac = cf.lac_sets(p[cal], y[cal], p[test], alpha, quantile=quantile)
    aps = cf.aps_sets(p[cal], y[cal], p[test], alpha, quantile=quantile)
    return {
        "accuracy": cf.accuracy(p[test], y[test]),
        "lac_ss": cf.set_size(lac), "aps_ss": cf.set_size(aps),
        "lac_cov": cf.coverage(lac, y[test]), "aps_cov": cf.coverage(aps, y[test]),
    }


def temperature_sweep(temperatures: Sequence[float] | np.ndarray, *, acc0: float = 0.88, margin: float = 4.0, sigma: float = 1.0,
                      alpha: float = 0.1, n_cal: int = 2000, n_test: int = 6000, quantile: str = "paper",
                      random_state: RandomStateLike = None) -> dict:
    """Panel A of the review: one draw of the additive synthetic model, softmax at each temperature.

    The same logits (same questions, same answers) are divided by each T; the
    first ``n_cal`` questions calibrate, the other ``n_test`` are evaluated.

    Returns
    -------
    dict of ndarrays, one entry per temperature: ``accuracy``, ``lac_ss``,
    ``aps_ss``, ``lac_cov``, ``aps_cov``; and ``temperature``.

    Examples
    --------
    >>> r = temperature_sweep([0.5, 2.0], n_cal=500, n_test=1000, random_state=0)
    >>> bool(r["accuracy"][0] == r["accuracy"][1]), bool(r["aps_ss"][0] > r["aps_ss"][1])
    (True, True)
    """
    ts = check_array(temperatures, "temperatures", ndim=1)
    if ts.size == 0 or ts.min() <= 0:
        raise ValueError(f"temperatures must be a non-empty list of positive numbers, got {ts}")
    n_cal = check_int(n_cal, "n_cal", low=1)
    n_test = check_int(n_test, "n_test", low=1)
    z, y = synthetic_logits(n_cal + n_test, acc0=acc0, margin=margin, sigma=sigma, random_state=random_state)
    rows = [_split_eval(cf.softmax(z, t), y, n_cal, alpha, quantile) for t in ts]
    out = {k: np.array([r[k] for r in rows]) for k in rows[0]}
    out["temperature"] = ts
    return out


def sharp_soft_pair(*, acc0: float = 0.9, margin_sharp: float = 6.0, margin_soft: float = 1.0, sigma: float = 1.0,
                    alpha: float = 0.15, n_cal: int = 2000, n_test: int = 6000, quantile: str = "paper",
                    shared: bool = True, random_state: RandomStateLike = None) -> dict:
    """Panel B of the review: a sharp and a soft model with the same answers on every question.

    Both models are :func:`synthetic_logits` with ``construction="beat_best"``.
    With ``shared=True`` they come from the same random draw (same questions,
    same chosen options, same noise) and only the margin differs, so they give
    the same answer on every question and are wrong on the same questions.
    With ``shared=False`` each model has its own draw: the same accuracy in
    expectation, wrong on different questions.

    Returns
    -------
    dict
        ``sharp`` and ``soft``: the summaries (``accuracy``, ``lac_ss``,
        ``aps_ss``, ``lac_cov``, ``aps_cov``) of each model.

    Examples
    --------
    >>> r = sharp_soft_pair(random_state=0)
    >>> r["sharp"]["accuracy"] == r["soft"]["accuracy"], r["sharp"]["lac_ss"], r["soft"]["lac_ss"]
    (True, 1.0, 1.0)
    >>> bool(r["sharp"]["aps_ss"] > r["soft"]["aps_ss"])
    True
    """
    n_cal = check_int(n_cal, "n_cal", low=1)
    n_test = check_int(n_test, "n_test", low=1)
    rng = check_random_state(random_state)
    seed = rng.integers(2**63)
    out = {}
    for name, a in (("sharp", margin_sharp), ("soft", margin_soft)):
        draw = seed if shared else rng.integers(2**63)
        z, y = synthetic_logits(n_cal + n_test, acc0=acc0, margin=a, sigma=sigma, construction="beat_best", random_state=draw)
        out[name] = _split_eval(cf.softmax(z), y, n_cal, alpha, quantile)
    return out
