"""Extreme and malformed inputs: each either works or raises a clear error naming the argument, file and line.

Numerics at the edges of float64, the Beta proxy for any precision, the
response loaders on damaged files, and the rule that a judged graph with
too few verdicts is an error rather than an entropy.
"""

from __future__ import annotations

import gzip
import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semvar import data
from semvar.conformal import softmax
from semvar.entropy import entropy_from_counts
from semvar.exchangeable import (
    bernoulli_subgaussian_proxy,
    beta_proxy_upper_bound,
    beta_subgaussian_proxy,
    beta_variance,
    proxies,
    subsample_halfwidth,
)
from semvar.graph import UnjudgedError, check_judged, design_all_pairs, design_greedy, judge_graph, sample_sbm
from semvar.judges import OracleJudge
from semvar.pipeline import semantic_spectral_entropy
from semvar.spectral import spectral_clusters, spectral_embedding

TWO_TRIANGLES = np.kron(np.eye(2), np.ones((3, 3))) - np.eye(6)


# --------------------------------------------------------------------------- the Beta proxy at any precision
@pytest.mark.parametrize("a, b", [(1e6, 1), (5e4, 0.9), (1e4, 1), (1e300, 1), (1, 1e300), (1e308, 1e307), (1e-300, 1)])
def test_beta_proxy_is_finite_and_in_range_for_extreme_parameters(a, b):
    s2 = beta_subgaussian_proxy(a, b)
    assert math.isfinite(s2) and 0.0 < s2 <= 0.25
    assert s2 >= beta_variance(a, b)
    assert s2 <= beta_proxy_upper_bound(a, b) * (1 + 1e-9)
    assert s2 <= bernoulli_subgaussian_proxy(a / (a + b)) * (1 + 1e-6) or a / (a + b) in (0.0, 1.0)
    assert beta_subgaussian_proxy(b, a) == pytest.approx(s2, rel=1e-9)  # X -> 1 - X


def test_beta_proxy_with_one_parameter_fixed_tends_to_the_gamma_limit():
    # With b fixed and a -> inf, 1 - X is Gamma(b)/a-like near 0, and the supremum is reached where the
    # tilt moves X to 1/t: (a + b) * proxy -> sup_t 2 (t - 1 - log t) / t**2, found here on a fine grid.
    t = np.linspace(1.01, 20.0, 400_001)
    limit = float(np.max(2.0 * (t - 1.0 - np.log(t)) / t**2))
    assert limit == pytest.approx(0.2036, abs=1e-4)
    assert beta_subgaussian_proxy(1e300, 1.0) * 1e300 == pytest.approx(limit, rel=1e-6)
    assert beta_subgaussian_proxy(1e12, 0.5) * (1e12 + 1.5) == pytest.approx(limit, rel=1e-4)


@pytest.mark.parametrize("mean, b_fixed", [(0.9, None), (0.3, None), (None, 1.0), (None, 0.5)])
def test_asymptotic_form_agrees_with_the_exact_supremum_where_it_takes_over(mean, b_fixed):
    # The switch is at a + b = ASYMPTOTIC_PRECISION (1e5).  Below and at it the exact computation runs;
    # the large-precision form M(mu) / (a + b + 1) must approach it, from above, as a + b grows.
    errors = []
    for c in (1e3, 1e4, proxies.ASYMPTOTIC_PRECISION):
        b = c * (1.0 - mean) if b_fixed is None else b_fixed
        a = c - b
        exact = proxies._exact_proxy(a, b)
        asym = proxies._asymptotic_proxy(a, b)
        errors.append((asym - exact) / exact)
    assert all(e >= -1e-9 for e in errors), errors  # the form never understates the proxy
    assert errors[0] > errors[1] > errors[2]  # and its error shrinks with a + b (like 1/c, or log(c)/c)
    assert errors[2] < 1e-4  # at the switch it is below 1e-4 relative


@settings(max_examples=25, deadline=None)
@given(log_a=st.floats(-3.0, 300.0), log_b=st.floats(-3.0, 300.0))
def test_beta_proxy_lies_between_variance_and_upper_bound_for_any_precision(log_a, log_b):
    a, b = 10.0**log_a, 10.0**log_b
    s2 = beta_subgaussian_proxy(a, b)
    assert math.isfinite(s2) and 0.0 < s2 <= 0.25
    assert beta_variance(a, b) * (1 - 1e-9) <= s2 <= beta_proxy_upper_bound(a, b) * (1 + 1e-9)


# --------------------------------------------------------------------------- float64 at its edges
def test_entropy_of_counts_near_the_float_maximum():
    assert entropy_from_counts([1e308, 1e308]) == pytest.approx(math.log(2))
    assert entropy_from_counts([1e308, 1e308, 0.0, 1e308]) == pytest.approx(math.log(3))
    assert entropy_from_counts([7]) == 0.0 and math.copysign(1.0, entropy_from_counts([7])) == 1.0  # not -0.0


@pytest.mark.parametrize("t", [1e-300, 1e-320, 5e-324])
def test_softmax_with_a_vanishing_temperature_is_the_argmax(t):
    p = softmax(np.array([[0.0, 2.0, 1.0], [3.0, 3.0, -1.0]]), temperature=t)
    assert np.all(np.isfinite(p))
    np.testing.assert_array_equal(p, [[0.0, 1.0, 0.0], [0.5, 0.5, 0.0]])
    p32 = softmax(np.array([[0.0, 2.0, 1.0]], dtype=np.float32), temperature=t)
    assert p32.dtype == np.float32 and p32.tolist() == [[0.0, 1.0, 0.0]]


def test_subsample_halfwidth_with_a_subnormal_delta():
    hw = subsample_halfwidth(10, 100, 1e-320)
    assert math.isfinite(hw)
    assert hw == pytest.approx(math.sqrt(90 * (math.log(2.0) - math.log(1e-320)) / 2000.0))
    assert subsample_halfwidth(5000, 14042, 0.05) == pytest.approx(0.01541, abs=1e-5)  # unchanged in range


def test_spectral_input_checks():
    with pytest.raises(ValueError, match="adjacency has weights so large.*overflows"):
        spectral_clusters(TWO_TRIANGLES * 1e308, 2, random_state=0)
    # a scale that does not overflow leaves the clusters alone
    assert spectral_clusters(TWO_TRIANGLES * 1e300, 2, random_state=0).tolist() == [0, 0, 0, 1, 1, 1]
    with pytest.raises(ValueError, match="adjacency must be real; got complex"):
        spectral_clusters(TWO_TRIANGLES * (1 + 1j), 2, random_state=0)
    import scipy.sparse as sp

    with pytest.raises(ValueError, match="adjacency must be real; got complex"):
        spectral_embedding(sp.csr_array(TWO_TRIANGLES.astype(complex)), 2)
    for k in (1, 2):
        with pytest.raises(ValueError, match="laplacian must be one of"):
            spectral_clusters(TWO_TRIANGLES, k, laplacian="foo")


def test_sample_sbm_refuses_fractional_sizes():
    with pytest.raises(ValueError, match=r"sizes must hold integers, got 2\.5"):
        sample_sbm([2.5], 0.5, 0.1)
    with pytest.raises(ValueError, match="sizes must hold integers"):
        sample_sbm([3, float("nan")], 0.5, 0.1)
    assert sample_sbm([3.0, 2.0], 1.0, 0.0, random_state=0).shape == (5, 5)  # whole floats are whole


# --------------------------------------------------------------------------- too few verdicts is an error
class MaskingJudge:
    """Answers from labels, but leaves unjudged every pair that involves a text in ``silent``."""

    def __init__(self, labels, silent=()):
        self.labels = np.asarray(labels)
        self.silent = set(silent)

    def pairs(self, texts, pairs):
        P = np.asarray(pairs).reshape(-1, 2)
        v = self.labels[P[:, 0]] == self.labels[P[:, 1]]
        mask = np.array([i in self.silent or j in self.silent for i, j in P.tolist()], dtype=bool)
        return np.ma.MaskedArray(v, mask=mask)


def test_check_judged_counts_and_explains():
    P = np.array([[0, 1], [0, 2], [1, 2], [2, 3]])
    ok = np.ma.MaskedArray([True, False, False, True], mask=[False, False, False, False])
    assert check_judged(P, ok, 4).all()
    none = np.ma.masked_all(4, dtype=bool)
    with pytest.raises(UnjudgedError, match=r"none of the 4 pairs asked was judged \(4 x HTTP 500\)"):
        check_judged(P, none, 4, reasons="4 x HTTP 500")
    lonely = np.ma.MaskedArray([True, False, False, True], mask=[False, False, False, True])  # text 3 only in (2, 3)
    with pytest.raises(UnjudgedError, match=r"1 of the 4 texts have no judged pair \(the first is text 3\).*3 of the 4"):
        check_judged(P, lonely, 4)
    assert check_judged(P, lonely, 4, min_share=0.75).sum() == 3  # a stated share replaces the per-text rule
    with pytest.raises(UnjudgedError, match=r"only 3 of the 4 pairs asked were judged \(75.0%, fewer than the 80.0%"):
        check_judged(P, lonely, 4, min_share=0.8)
    with pytest.raises(UnjudgedError, match="no pair of the 4 texts was asked"):
        check_judged(np.zeros((0, 2), dtype=int), [], 4)
    assert check_judged(np.zeros((0, 2), dtype=int), [], 1).shape == (0,)  # one text needs no pair
    nan_style = np.array([1.0, np.nan, 0.0, np.nan])
    with pytest.raises(UnjudgedError, match="text 3"):
        check_judged(P, nan_style, 4)
    with pytest.raises(ValueError, match="min_share"):
        check_judged(P, ok, 4, min_share=1.5)


def test_the_library_refuses_an_entropy_built_on_nothing():
    texts = ["a", "b", "c", "d"]
    everyone = MaskingJudge([0, 0, 1, 1], silent=range(4))
    with pytest.raises(UnjudgedError, match="none of the 6 pairs asked was judged"):
        semantic_spectral_entropy(texts, everyone, 2, random_state=0)
    with pytest.raises(UnjudgedError, match="text 3"):
        judge_graph(MaskingJudge([0, 0, 1, 1], silent=[3]), texts)
    with pytest.raises(UnjudgedError):
        design_all_pairs(MaskingJudge([0, 0, 1, 1], silent=[3]), texts)
    # the greedy design no longer reads an unjudged verdict as FALSE: it records it as unjudged
    with pytest.raises(UnjudgedError, match="text 1"):
        design_greedy(MaskingJudge([0, 0, 1, 1], silent=[1]), texts)
    assert design_all_pairs(OracleJudge([0, 0, 0]), ["x", "x", "x"]).calls == 0  # one distinct text: nothing to ask


# --------------------------------------------------------------------------- response loaders
def _lm_eval_file(folder, lines, subject="anatomy"):
    path = folder / f"samples_mmlu_{subject}_2024-01-01.jsonl"
    with open(path, "wb") as fh:
        for line in lines:
            fh.write(line if isinstance(line, bytes) else (json.dumps(line) if not isinstance(line, str) else line).encode())
            fh.write(b"\n")
    return path


@pytest.mark.parametrize(
    "bad, match",
    [
        ({"doc_id": 3.7, "acc": 1}, r":2: doc_id must be an integer .* got 3\.7"),
        ({"doc_id": True, "acc": 1}, r":2: doc_id must be an integer .* got True"),
        ({"doc_id": "abc", "acc": 1}, r":2: doc_id must be an integer .* got 'abc'"),
        ({"doc_id": None, "acc": 1}, r":2: doc_id must be an integer .* got None"),
        ([1, 2, 3], r":2: expected a JSON object \(one sample\), got a JSON list"),
        ("{not json", r":2 is not valid JSON"),
        (b'{"doc_id": 1, "acc": 1, "x": "\xff"}', r":2: not valid UTF-8 \(byte 0xff\)"),
        ({"doc_id": 135, "acc": 1}, r":2: unknown item: doc_id 135 but anatomy has 135"),
    ],
)
def test_lm_eval_loader_names_file_and_line(tmp_path, bad, match):
    path = _lm_eval_file(tmp_path, [{"doc_id": 0, "acc": 1}, bad])
    with pytest.raises(ValueError, match=match) as err:
        data.load_lm_eval_samples(path, model="m")
    assert str(path) in str(err.value)


def test_lm_eval_loader_refuses_a_short_mmlu_table(tmp_path):
    path = _lm_eval_file(tmp_path, [{"doc_id": 0, "doc": {"question": "q"}, "acc": 1}])
    with pytest.raises(ValueError, match=r"whole MMLU test split \(14042 rows\), got 3 rows"):
        data.load_lm_eval_samples(path, model="m", mmlu=pd.DataFrame({"question": ["a", "b", "c"]}))
    ok = data.load_lm_eval_samples(path, model="m")
    assert ok[["model", "item_id", "correct"]].values.tolist() == [["m", 100, 1]]  # anatomy starts at item 100


def test_response_table_keeps_a_model_named_na(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("model,item_id,correct\nNA,0,1\nnull,1,0\nNone,2,1\n", encoding="utf-8")
    got = data.load_response_table(path)
    assert sorted(got["model"].tolist()) == ["NA", "None", "null"]


@pytest.mark.parametrize(
    "content, match",
    [
        (b"", "is empty"),
        (b"model,item_id,correct\n", "holds a header line and no responses"),
        (b"model,item_id,correct\nm,0,1\n,1,0\n", r"rows without a model name .* row 1"),
        (b"model,item_id,correct\nm,0,1\nm,NA,0\n", "unknown item ids"),
        (b"model,item_id,correct\nm,0,1\nm,1,\n", "non-binary correctness"),
        (b"model,item_id,correct\nm,0,1\nm\xe9,1,0\n", r"line 3: not valid UTF-8"),
    ],
)
def test_response_table_refuses_damaged_csv(tmp_path, content, match):
    path = tmp_path / "r.csv"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=match) as err:
        data.load_response_table(path)
    assert str(path) in str(err.value)


def test_response_table_refuses_damaged_gzip(tmp_path):
    good = gzip.compress(b"model,item_id,correct\n" + b"".join(b"m,%d,1\n" % i for i in range(2000)))
    (tmp_path / "cut.csv.gz").write_bytes(good[: len(good) // 2])
    with pytest.raises(ValueError, match=r"cut\.csv\.gz is not a complete gzip file"):
        data.load_response_table(tmp_path / "cut.csv.gz")
    bad_crc = bytearray(good)
    bad_crc[-8] ^= 0xFF  # the CRC-32 of the trailer
    (tmp_path / "crc.csv.gz").write_bytes(bytes(bad_crc))
    with pytest.raises(ValueError, match=r"crc\.csv\.gz .*(CRC|gzip)"):
        data.load_response_table(tmp_path / "crc.csv.gz")
    (tmp_path / "zero.csv.gz").write_bytes(b"")
    with pytest.raises(ValueError, match=r"zero\.csv\.gz is empty"):
        data.load_response_table(tmp_path / "zero.csv.gz")
    (tmp_path / "ok.csv.gz").write_bytes(good)
    assert len(data.load_response_table(tmp_path / "ok.csv.gz")) == 2000


def test_validate_responses_refuses_boolean_ids_and_missing_models():
    with pytest.raises(ValueError, match="boolean item ids"):
        data.validate_responses(pd.DataFrame({"model": ["m", "m"], "item_id": [True, 5], "correct": [1, 0]}))
    with pytest.raises(ValueError, match="without a model name"):
        data.validate_responses(pd.DataFrame({"model": ["m", None], "item_id": [1, 5], "correct": [1, 0]}))
    with pytest.raises(ValueError, match="no responses"):
        data.validate_responses(pd.DataFrame({"model": [], "item_id": [], "correct": []}))
