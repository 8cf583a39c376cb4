"""semvar.experiments.mmlu_bounds on real-model-shaped data, and the lin2026 claims that rest on it.

Synthetic response tables with and without subject structure show that each diagnostic (and so each
verdict built on it) can come out either way; the six-model claim is fed lm-evaluation-harness files.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from semvar import data
from semvar import exchangeable as ex
from semvar.experiments import mmlu_bounds as mb

META = mb.mmlu_subjects_sorted()
N = int(META["n_test_items"].sum())


def _responses(models: dict, seed=0) -> pd.DataFrame:
    """Synthetic answers to all 14,042 items: model -> None (i.i.d. Bernoulli(0.8)) or (a, b) (subject p ~ Beta(a, b))."""
    rng = np.random.default_rng(seed)
    sizes = META["n_test_items"].to_numpy()
    frames = []
    for name, law in models.items():
        p = np.full(len(sizes), 0.8) if law is None else rng.beta(*law, size=len(sizes))
        x = rng.binomial(1, np.repeat(p, sizes))
        frames.append(pd.DataFrame({"model": name, "item_id": np.arange(N), "correct": x}))
    return pd.concat(frames, ignore_index=True)


@pytest.fixture(scope="module")
def synthetic():
    return _responses({"iid": None, "het": (8.0, 2.0)})


def test_accuracy_table_by_hand(synthetic):
    t = mb.accuracy_table(synthetic, META)
    for m in ("iid", "het"):
        x = synthetic.loc[synthetic["model"] == m, "correct"]
        p = x.mean()
        assert t.loc[m, "accuracy"] == pytest.approx(p) and t.loc[m, "items"] == N
        assert t.loc[m, "wald"] == pytest.approx(1.959964 * math.sqrt(p * (1 - p) / N), rel=1e-6)
        assert t.loc[m, "hoeffding"] == pytest.approx(math.sqrt(math.log(40) / (2 * N)))
        assert t.loc[m, "exchangeable"] >= t.loc[m, "hoeffding"] - 1e-12
        assert t.loc[m, "exchangeable_macro"] >= t.loc[m, "iid_macro"] - 1e-12
    # subject structure widens the exchangeable half-width; without it the two nearly coincide
    assert t.loc["het", "exchangeable_macro"] > 2 * t.loc["het", "iid_macro"]
    assert t.loc["iid", "exchangeable_macro"] < 1.2 * t.loc["iid", "iid_macro"]


def test_dependence_diagnostics_tell_structure_from_none(synthetic):
    split = mb.split_half_table(synthetic, META, 20)
    assert split.shape == (2, 4)
    assert split.loc["het"].min() > 0.65 and split.loc["iid"].abs().max() < 0.4
    spread = mb.subject_spread_table(synthetic, META)
    assert spread.loc["het", "ratio"] > 2 and spread.loc["het", "homogeneity_p"] < 1e-3
    assert 0.7 < spread.loc["iid", "ratio"] < 1.3 and spread.loc["iid", "homogeneity_p"] > 1e-3


def test_subject_split_coverage_fails_for_iid_only_when_there_is_structure(synthetic):
    cov = mb.subject_split_coverage(synthetic, META, 10, random_state=1)
    # with structure the i.i.d. half-width misses; the exchangeable one (fitted on 6-9 subjects a domain) covers
    # far more often, though a plug-in fit need not reach 95 %
    assert cov.loc["het", "iid"] < 0.8 and cov.loc["het", "exchangeable"] >= 0.8
    assert cov.loc["iid", "iid"] >= 0.95


def test_exact_subsample_deviation_by_hand():
    # N = 4 items, 2 right, a subset of 2: K = 0, 1, 2 with probabilities 1/6, 4/6, 1/6; |K/2 - 1/2| = 1/2, 0, 1/2
    r = mb.exact_subsample_deviation(2, 4, 2, t=0.5, q=0.95)
    assert r["quantile"] == 0.5 and r["exceedance"] == pytest.approx(1 / 3)
    assert r["sd"] == pytest.approx(math.sqrt(1 / 12))
    assert mb.exact_subsample_deviation(2, 4, 2, q=0.5)["quantile"] == 0.0
    assert mb.exact_subsample_deviation(3, 10, 10)["quantile"] == 0.0  # the whole population: no deviation
    with pytest.raises(ValueError, match="successes must be <= 4"):
        mb.exact_subsample_deviation(5, 4, 2)


def test_exact_subsample_deviation_agrees_with_simulation(synthetic):
    t = mb.subsample_table(synthetic, 3000, 1000, random_state=2)
    assert (abs(t["q95"] - t["exact_q95"]) < 0.1 * t["exact_q95"]).all()
    assert (t["exact_q95"] < t["bound"]).all()
    # the variance proxy of the bound is the exact variance of the worst population, accuracy 1/2
    w = mb.exact_subsample_deviation(N // 2, N, 5000)
    assert w["sd"] == pytest.approx(math.sqrt((N - 5000) / (4 * 5000 * N)), rel=1e-3)


def test_paired_table(synthetic):
    t = mb.paired_table(synthetic)
    assert len(t) == 1 and t.loc[0, "a"] == synthetic.groupby("model")["correct"].mean().idxmax()
    a = synthetic.loc[synthetic["model"] == t.loc[0, "a"], "correct"].to_numpy()
    b = synthetic.loc[synthetic["model"] == t.loc[0, "b"], "correct"].to_numpy()
    assert t.loc[0, "paired"] == ex.paired_halfwidth(a, b) and t.loc[0, "discordant"] == int((a != b).sum())
    assert t.loc[0, "resolved"] == (t.loc[0, "difference"] >= t.loc[0, "paired"])


def test_redux_effect_by_hand():
    resp = pd.DataFrame({"model": ["m"] * 4 + ["n"] * 4, "item_id": [0, 1, 2, 3] * 2, "correct": [1, 1, 0, 0, 1, 0, 1, 1]})
    redux = pd.DataFrame({"item_id": pd.array([0, 1, 2, 3, None], dtype="Int64"),
                          "error_type": ["ok", "ok", "wrong_groundtruth", "ok", "ok"]})
    r = mb.redux_effect(resp, redux)
    assert r.loc["m", "accuracy"] == 0.5 and r.loc["m", "accuracy_ok"] == pytest.approx(2 / 3)
    assert r.loc["n", "accuracy_flagged"] == 1.0 and r.attrs["flagged"] == 1
    assert r.loc["n", "rank"] == 1 and r["items"].eq(4).all()
    with pytest.raises(ValueError, match="load_mmlu_redux"):
        mb.redux_effect(resp, redux.drop(columns="error_type"))


def test_gaussian_level_check_regimes():
    bal = mb.gaussian_level_check(100_000, 50_000, 50_000, 50_000, random_state=0)
    assert abs(bal["ratio_eff"] - 1) < 0.03 and bal["ratio_sampling_only"] < 0.8 and bal["ratio_mixture_only"] < 0.8
    assert bal["mixture_share"] == pytest.approx(0.5, abs=0.01)


# --------------------------------------------------------------------------- the six models' files


def _lm_eval_folder(folder, p_by_subject, seed=0, subjects=None):
    """Write lm-evaluation-harness --log_samples files (one per subject) with Bernoulli(p_s) correctness."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for j, (s, n) in enumerate(zip(META["subject"], META["n_test_items"])):
        if subjects is not None and s not in subjects:
            continue
        with open(folder / f"samples_mmlu_{s}_2025-01-01T00-00-00.jsonl", "w") as fh:
            for i, x in enumerate(rng.binomial(1, p_by_subject[j], size=n)):
                fh.write(json.dumps({"doc_id": i, "acc": float(x)}) + "\n")


def test_lin2026_responses_layout(tmp_path, monkeypatch):
    monkeypatch.setenv("SEMVAR_DATA_DIR_ONLY", "1")
    with pytest.raises(data.DataNotFoundError, match="lin2026"):
        mb.lin2026_responses(tmp_path)
    p = np.full(len(META), 0.7)
    _lm_eval_folder(tmp_path / "lin2026" / "google__gemma-2-9b", p)
    _lm_eval_folder(tmp_path / "lin2026" / "google__gemma-2-27b", p)  # not one of the six: ignored
    got = mb.lin2026_responses(tmp_path)
    assert list(got) == ["gemma-2-9b"] and len(got["gemma-2-9b"]) == N
    _lm_eval_folder(tmp_path / "lin2026" / "gemma-2-9b-it", p)
    with pytest.raises(ValueError, match="two folders for Gemma 2 9B"):
        mb.lin2026_responses(tmp_path)


def test_lin2026_responses_need_every_subject(tmp_path, monkeypatch):
    monkeypatch.setenv("SEMVAR_DATA_DIR_ONLY", "1")
    _lm_eval_folder(tmp_path / "lin2026" / "Qwen__Qwen3-8B", np.full(len(META), 0.7), subjects={"anatomy", "virology"})
    with pytest.raises(ValueError, match="cover 2 of MMLU's 57 subjects"):
        mb.lin2026_responses(tmp_path)


def test_six_model_claim_computes_when_the_files_are_there(tmp_path, monkeypatch):
    from semvar.claims import run

    monkeypatch.setenv("SEMVAR_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("SEMVAR_DATA_DIR_ONLY", "1")
    (absent,) = run(["lin2026.six_models"], quick=True)
    assert absent.status == "needs_data" and "lin2026/<model>/" in absent.note
    rng = np.random.default_rng(4)
    _lm_eval_folder(tmp_path / "lin2026" / "google__gemma-2-9b", rng.beta(6, 2.5, size=len(META)), seed=1)
    (rec,) = run(["lin2026.six_models"], quick=True)
    assert rec.status in ("partly", "not_replicated"), rec.note  # one model of six: never replicated
    assert rec.our_value["models"] == ["gemma-2-9b"]
    responses = mb.lin2026_responses()["gemma-2-9b"]
    expected = mb.accuracy_table(responses, META)["exchangeable_macro"].iloc[0]
    assert rec.our_value["gemma2_9b_halfwidth"] == round(float(expected), 4)
    assert "missing models" in rec.note
