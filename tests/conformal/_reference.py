"""An independent, loop-per-item reading of the released code of Ye et al. (2024), for the tests.

The functions LAC_CP and APS_CP of its conformal prediction script, restated
from the probabilities onwards: one Python loop per calibration item and per
test item, as there, with option letters replaced by indices.  It shares no
code with semvar.conformal.
"""

from __future__ import annotations

import numpy as np


def _ref_threshold(cal_scores, alpha):
    n = len(cal_scores)
    q_level = np.ceil((n + 1) * (1 - alpha)) / n
    return np.quantile(cal_scores, q_level, method="higher")


def ref_lac(p_cal, y_cal, p_test, alpha):
    cal_scores = []
    for i in range(len(p_cal)):
        probs = p_cal[i]
        cal_scores.append(1 - probs[y_cal[i]])
    qhat = _ref_threshold(cal_scores, alpha)
    out = []
    for i in range(len(p_test)):
        probs = p_test[i]
        members = []
        for j, pj in enumerate(probs):
            if pj >= 1 - qhat:
                members.append(j)
        if len(members) == 0:
            members.append(int(np.argmax(probs)))
        out.append(members)
    return out


def ref_aps(p_cal, y_cal, p_test, alpha):
    cal_scores = []
    for i in range(len(p_cal)):
        probs = p_cal[i]
        order = np.argsort(probs, kind="stable")[::-1]  # numpy before its SIMD sorts (1.25) sorted short rows stably
        running = np.take_along_axis(probs, order, axis=0).cumsum()
        back = np.take_along_axis(running, order.argsort(), axis=0)
        cal_scores.append(back[y_cal[i]])
    qhat = _ref_threshold(cal_scores, alpha)
    out = []
    for i in range(len(p_test)):
        probs = p_test[i]
        order = np.argsort(probs, kind="stable")[::-1]  # numpy before its SIMD sorts (1.25) sorted short rows stably
        running = np.take_along_axis(probs, order, axis=0).cumsum()
        members = []
        j = 0
        while j < len(running) and running[j] <= qhat:
            members.append(int(order[j]))
            j += 1
        if len(members) == 0:
            members.append(int(order[j]))
        out.append(members)
    return out


def _as_bool(lists, k):
    m = np.zeros((len(lists), k), dtype=bool)
    for i, members in enumerate(lists):
        m[i, members] = True
    return m


def _dirichlet(n, k, rng, conc=None):
    conc = np.ones(k) if conc is None else conc
    return rng.dirichlet(conc, size=n)


def _ref_softmax_float32(row):
    # the released code's per-row softmax; on float32 logits it computes in float32
    e = np.exp(row - np.max(row))
    return e / e.sum()
