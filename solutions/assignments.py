"""Reference solutions of the assignments (book/assignments.md), and one wrong solution per check.

Instructors' material: keep it out of a repository that students can read.  The
tests of the check cells (tests/test_assignments.py) load this file from the
folder named by the environment variable ``SEMVAR_SOLUTIONS`` (default: this
folder, ``solutions/``); without it they are skipped and say why.  See
solutions/README.md.

Written from scratch (numpy, scipy, scikit-learn; ``semvar`` only where the
task allows it), so that they show the checks can be passed by a student's own
code; the wrong ones show that each check can fail.
"""

from __future__ import annotations

import numpy as np
from sklearn.cluster import KMeans


def judged_graph(labels, p, q, rng):
    labels = np.asarray(labels)
    n = labels.size
    prob = np.where(labels[:, None] == labels[None, :], p, q)
    upper = np.triu(rng.random((n, n)) < prob, k=1)
    return (upper | upper.T).astype(int)


def spectral_entropy(A, k, seed):
    d = A.sum(1)
    inv = 1 / np.sqrt(d)
    w, v = np.linalg.eigh(A * inv[:, None] * inv[None, :])
    rows = v[:, -k:]
    labels = KMeans(k, n_init=20, random_state=seed).fit_predict(rows)
    share = np.bincount(labels) / labels.size
    return float(-(share * np.log(share)).sum())


def fast_self_similarity(U):
    n = U.shape[0]
    total = U.sum(0)
    return float((total @ total - n) / (n * (n - 1)))


def decompose(U, labels):
    labels = np.asarray(labels)
    n = labels.size
    counts = np.bincount(labels)
    within_pairs = (counts * (counts - 1)).sum()
    sums = np.array([U[labels == g].sum(0) for g in range(counts.size)])
    within = sum(s @ s for s in sums) - n  # ordered distinct pairs within a meaning
    total = U.sum(0) @ U.sum(0) - n
    C = within_pairs / (n * (n - 1))
    return C, within / within_pairs, (total - within) / (n * (n - 1) - within_pairs)


def _two_sets():
    from semvar.corpus import make_corpus

    a = make_corpus(30, (1, 1, 1), m=1, random_state=0)
    b = make_corpus(30, (1, 1, 1), m=2, random_state=3)
    return (list(a.texts), a.labels), (list(b.texts), b.labels)


def simulate_scores(n_subjects, per_subject, a, b, reps, rng):
    p = rng.beta(a, b, size=(reps, n_subjects))
    return rng.binomial(per_subject, p).sum(1) / (n_subjects * per_subject)


def naive_halfwidth(n, delta):
    return float(np.sqrt(np.log(2 / delta) / (2 * n)))


def eff_halfwidth(n_subjects, per_subject, a, b, delta):
    from semvar.exchangeable import beta_subgaussian_proxy

    n = n_subjects * per_subject
    sigma2 = n * (1 / n) ** 2 / 4 + n_subjects * (1 / n_subjects) ** 2 * beta_subgaussian_proxy(a, b)
    return float(np.sqrt(2 * sigma2 * np.log(2 / delta)))


def _threshold(scores, alpha):
    k = int(np.ceil((scores.size + 1) * (1 - alpha)))
    return np.sort(scores)[k - 1]


def my_lac_sets(p_cal, y_cal, p_test, alpha):
    qhat = _threshold(1 - p_cal[np.arange(y_cal.size), y_cal], alpha)
    sets = p_test >= 1 - qhat
    empty = ~sets.any(1)
    sets[empty, p_test[empty].argmax(1)] = True
    return sets


def my_aps_sets(p_cal, y_cal, p_test, alpha):
    def cumulative(p):
        order = np.argsort(p, axis=1, kind="stable")[:, ::-1]
        cum = np.cumsum(np.take_along_axis(p, order, 1), 1)
        return order, cum

    order, cum = cumulative(p_cal)
    rank = np.argsort(order, 1)[np.arange(y_cal.size), y_cal]
    qhat = _threshold(cum[np.arange(y_cal.size), rank], alpha)
    order, cum = cumulative(p_test)
    keep = np.logical_and.accumulate(cum <= qhat, axis=1)
    keep[:, 0] = True  # an empty set becomes the top option
    sets = np.zeros_like(keep)
    np.put_along_axis(sets, order, keep, 1)
    return sets


def _pair():
    from semvar.experiments.review_models import synthetic_logits

    z1, y = synthetic_logits(4000, acc0=0.9, margin=6.0, sigma=1.0, construction="beat_best", random_state=2)
    z2, _ = synthetic_logits(4000, acc0=0.9, margin=1.0, sigma=1.0, construction="beat_best", random_state=2)
    return dict(z1=z1, z2=z2, y=y, alpha=0.07)


def reference():
    return dict(judged_graph=judged_graph, spectral_entropy=spectral_entropy,
                fast_self_similarity=fast_self_similarity, decompose=decompose, two_sets=_two_sets(),
                simulate_scores=simulate_scores, naive_halfwidth=naive_halfwidth, eff_halfwidth=eff_halfwidth,
                my_lac_sets=my_lac_sets, my_aps_sets=my_aps_sets, pair=_pair())


# ---- wrong solutions: one per check ---------------------------------------

def wrong(name, ns):
    if name == "A1":  # the entropy of three equal meanings, whatever the graph
        ns["spectral_entropy"] = lambda A, k, seed: float(np.log(k))
    elif name == "A2":  # pairs drawn with replacement
        def decompose_wrong(U, labels):
            C, s_in, s_out = decompose(U, labels)
            counts = np.bincount(labels)
            return (counts ** 2).sum() / labels.size ** 2, s_in, s_out
        ns["decompose"] = decompose_wrong
    elif name == "A3":  # the i.i.d. interval in both places
        ns["eff_halfwidth"] = lambda n_subjects, per_subject, a, b, delta: naive_halfwidth(n_subjects * per_subject, delta)
    elif name == "A4":  # the released code's rank, one above the textbook one
        def lac_wrong(p_cal, y_cal, p_test, alpha):
            scores = np.sort(1 - p_cal[np.arange(y_cal.size), y_cal])
            qhat = scores[int(np.ceil((scores.size + 1) * (1 - alpha)))]
            sets = p_test >= 1 - qhat
            empty = ~sets.any(1)
            sets[empty, p_test[empty].argmax(1)] = True
            return sets
        ns["my_lac_sets"] = lac_wrong
    return ns
