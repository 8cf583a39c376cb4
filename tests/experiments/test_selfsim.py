"""Tests of semvar.experiments.selfsim (chapter 8's two studies) with an embedding that needs no model.

Each text is embedded as the indicator vector of the hobbies it asserts, so the cosine of two texts
is the share of hobbies they have in common: 1 for a paraphrase, 1/2 for one hobby changed, 0 for
none shared (with two hobbies per text).  A judge at any threshold in (1/2, 1] is then the oracle,
and every number of the studies can be computed by hand from the corpora's meanings.
"""

from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import pandas as pd
import pytest

from semvar.corpus import HOBBIES, parse_meaning
from semvar.experiments import selfsim as SS
from semvar.judges import EmbeddingJudge

_NAMES = [names[0] for names in HOBBIES]


def _hobby_vectors(texts):
    return np.array([[name in parse_meaning(t) for name in _NAMES] for t in texts], dtype=float)


class _HobbyJudge(EmbeddingJudge):
    """The MiniLM judge of the studies with the hobby-indicator embedding in place of the model."""

    def __init__(self, threshold=0.8, model=None, *, encode=None):
        super().__init__(threshold, model, encode=_hobby_vectors if encode is None else encode)


def _judge(threshold=0.8):
    return _HobbyJudge(threshold)


def _entropy(labels):
    _, counts = np.unique(labels, return_counts=True)
    p = counts / counts.sum()
    return float(-(p * np.log(p)).sum())


def test_corpus_table_with_an_oracle_judge():
    grid = [{"shape": "single", "k": 1, "seed": 0}, {"shape": "uniform", "k": 3, "seed": 0},
            {"shape": "dominant", "k": 4, "seed": 1}]
    table, corpora = SS.corpus_table(_judge(), grid=grid, n=24, thresholds=(0.6, 0.9))
    assert list(table.columns) == ["shape", "k", "seed", "n", "distinct", "entropy", "collision", "self_similarity",
                                   "spectral_0.6", "spectral_0.9"]
    assert table[["shape", "k", "seed"]].to_dict("records") == grid and len(corpora) == 3
    for (_, row), (_, c) in zip(table.iterrows(), corpora):
        meanings = [parse_meaning(t) for t in c.texts]
        assert row["n"] == 24 and row["distinct"] == len(set(c.texts))
        assert row["entropy"] == pytest.approx(_entropy(c.labels))
        same = [a == b for a, b in combinations(meanings, 2)]
        assert row["collision"] == pytest.approx(np.mean(same))
        # cosine = shared hobbies / 2; the mean over pairs of distinct texts
        assert row["self_similarity"] == pytest.approx(np.mean([len(a & b) / 2 for a, b in combinations(meanings, 2)]))
        # the oracle's graph is the partition: spectral entropy with K known is the true entropy
        assert row["spectral_0.6"] == pytest.approx(row["entropy"])
        assert row["spectral_0.9"] == pytest.approx(row["entropy"])


def test_pair_summary_separates_the_three_kinds_of_pair():
    _, corpora = SS.corpus_table(_judge(), grid=[{"shape": "uniform", "k": 4, "seed": 2}], n=30, thresholds=())
    texts = list(dict.fromkeys(corpora[0][1].texts))
    s = SS.pair_summary(texts, _hobby_vectors(texts), thresholds=[0.4, 0.75, 0.99])
    m = [parse_meaning(t) for t in texts]
    shared = [len(a & b) for a, b in combinations(m, 2)]
    assert s["texts"] == len(texts)
    assert s["pairs"] == {"paraphrase": shared.count(2), "one_changed": shared.count(1), "none_shared": shared.count(0)}
    assert s["mean"]["paraphrase"] == 1.0 and s["mean"]["one_changed"] == 0.5 and s["mean"]["none_shared"] == 0.0
    assert s["auc_paraphrase_vs_one_changed"] == 1.0 and s["p_one_changed_beats_paraphrase"] == 0.0
    assert s["anchors_broken"] == 0.0
    # at 0.4 the one-changed pairs pass too; at 0.75 and 0.99 only paraphrases: balanced accuracy 1
    assert s["thresholds"]["tpr"] == [1.0, 1.0, 1.0] and s["thresholds"]["fpr_one_changed"] == [1.0, 0.0, 0.0]
    assert s["best_threshold"] == 0.75 and s["best_balanced_accuracy"] == 1.0


def test_run_quick_and_main_write_both_results(tmp_path, monkeypatch, capsys):
    import semvar.judges

    table, pairs = SS.run(quick=True, progress=False, judge=_judge())
    assert table[["k", "seed"]].values.tolist() == [[1, 0]] + [[k, 0] for k in (2, 4, 8) for _ in SS.SHAPES]
    assert np.allclose(table[[f"spectral_{t:g}" for t in SS.THRESHOLDS]].to_numpy(), table[["entropy"]].to_numpy())
    # the quick study's discordance: self-similarity falls as entropy rises, so few pairs are ordered wrongly
    assert SS.discordance(table["entropy"], table["self_similarity"], higher_means_more_variable=False) < 0.2
    monkeypatch.setattr(semvar.judges, "EmbeddingJudge", _HobbyJudge)
    assert SS.main(["--quick", "--no-progress", "--out", str(tmp_path)]) == 0
    written = pd.read_csv(tmp_path / SS.CORPORA_FILE)
    pd.testing.assert_frame_equal(written, table.round(6), check_dtype=False)
    assert json.loads((tmp_path / SS.PAIRS_FILE).read_text()) == json.loads(json.dumps(pairs))
    assert "wrote" in capsys.readouterr().out


def test_pair_table_in_blocks_gives_every_pair_its_cosine(monkeypatch):
    """The cosines are computed a block of pairs at a time (memory); a block boundary changes no value."""
    _, corpora = SS.corpus_table(_judge(), grid=[{"shape": "uniform", "k": 4, "seed": 2}], n=30, thresholds=())
    texts = list(dict.fromkeys(corpora[0][1].texts))
    U = np.random.default_rng(0).standard_normal((len(texts), 16))
    whole = SS.pair_table(texts, U)
    monkeypatch.setattr(SS, "_PAIR_BLOCK", 7)                      # many blocks, the last one short
    i, j, shared, cos = SS.pair_table(texts, U)
    V = U / np.linalg.norm(U, axis=1, keepdims=True)
    assert np.array_equal(cos, whole[3]) and np.array_equal(i, whole[0]) and np.array_equal(shared, whole[2])
    assert np.allclose(cos, (V @ V.T)[i, j]) and cos.size == len(texts) * (len(texts) - 1) // 2
