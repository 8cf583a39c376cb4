"""End-to-end tests spanning modules: judges -> graph -> spectral clusters -> entropy.

Oracle cases and properties of the whole path (a block-model graph's entropy,
an oracle judge's partition recovered), and a judge feeding the graph assembly.
The tests of each module alone live in that module's test file
(``tests/test_spectral.py`` for :mod:`semvar.spectral`, ``tests/test_graph.py``
for block-model sampling and judged graphs).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar.entropy import empirical_entropy
from semvar.graph import all_pairs, block_labels, judge_graph, sample_sbm
from semvar.judges import OracleJudge, SBMJudge
from semvar.pipeline import graph_entropy
from semvar.spectral import spectral_clusters


@pytest.mark.parametrize("dense", [True, False])
def test_acceptance_sbm_entropy_error(dense):
    """SBM p=0.87, q=0.07, n=200, clusters 40/60/100: mean |E_bar - E_hat| <= 0.01 over 10 seeds."""
    truth = empirical_entropy(block_labels([40, 60, 100]))
    errs = []
    for seed in range(10):
        A = sample_sbm([40, 60, 100], 0.87, 0.07, random_state=seed)
        A = A.toarray() if dense else A
        errs.append(abs(graph_entropy(A, 3, random_state=seed) - truth))
    assert np.mean(errs) <= 0.01


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 8), min_size=1, max_size=4), st.integers(0, 10_000))
def test_oracle_graph_recovers_partition(sizes, seed):
    labels = block_labels(sizes)
    n = labels.size
    A = judge_graph(OracleJudge(labels), ["t"] * n)
    k = len(sizes)
    if any(s == 1 for s in sizes):
        return  # singletons are isolated nodes: a separate, warned case
    est = spectral_clusters(A, k, random_state=seed)
    assert empirical_entropy(est) == pytest.approx(empirical_entropy(labels))


def test_judges_and_graph_assembly():
    labels = block_labels([3, 2])
    texts = list("abcde")
    A = judge_graph(OracleJudge(labels), texts)
    expected = (labels[:, None] == labels[None, :]).astype(float) - np.eye(5)
    assert np.array_equal(A.toarray(), expected)
    with pytest.raises(ValueError, match="knows labels for 5 texts"):
        OracleJudge(labels).pairs(texts[:4], all_pairs(4))


@pytest.mark.parametrize("kw, msg", [({"p": 1.2, "q": 0.1}, "p must lie"), ({"p": 0.5, "q": -0.1}, "q must lie")])
def test_sbm_bad_probabilities(kw, msg):
    with pytest.raises(ValueError, match=msg):
        sample_sbm([3, 3], **kw)
    with pytest.raises(ValueError, match=msg):
        SBMJudge([0, 1], **kw)
