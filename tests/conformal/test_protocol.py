"""Tests of semvar.conformal.protocol: the protocol of Ye et al. (2024) on synthetic and float32 logits.

Also the answer keys the protocol reads (semvar.data.load_ye_answers).
"""

from __future__ import annotations

import numpy as np
import pytest

from semvar import conformal as cf
from semvar import data
from semvar.experiments.ye_protocol import ye_protocol, ye_split

from ._reference import _as_bool, _ref_softmax_float32, ref_aps, ref_lac


def test_ye_protocol_runs_on_synthetic_keys():
    rng = np.random.default_rng(8)
    z = rng.normal(size=(10000, 6))
    z[np.arange(10000), rng.integers(6, size=10000)] += 2
    y = np.argmax(z + rng.normal(scale=1.5, size=z.shape), axis=1)
    out = ye_protocol({"base": z, "task": z * 2}, y)
    assert 0 < out["acc"] < 100 and 1 <= out["ss"] <= 6
    assert out["lac_cov"] >= 88 and out["aps_cov"] >= 88
    assert out["per_prompt"]["base"]["acc"] == out["per_prompt"]["task"]["acc"]


def test_ye_protocol_on_float32_logits_equals_the_released_code():
    # uninformative float32 logits and random keys: the APS threshold is a cumulative sum of a whole row (about 1),
    # and whether a test set keeps its last option turns on float32 rounding, as in the released code
    rng = np.random.default_rng(9)
    z = rng.normal(scale=2.0, size=(10000, 6)).astype(np.float32)
    y = rng.integers(6, size=10000)
    cal, test = ye_split()
    p32 = [_ref_softmax_float32(row) for row in z]
    ref = {name: _as_bool(fn([p32[i] for i in cal], y[cal], [p32[i] for i in test], 0.1), 6)
           for name, fn in (("lac", ref_lac), ("aps", ref_aps))}
    out = ye_protocol(z, y)["per_prompt"][""]
    assert out["lac_ss"] == cf.set_size(ref["lac"]) and out["aps_ss"] == cf.set_size(ref["aps"])
    assert out["aps_cov"] == 100 * cf.coverage(ref["aps"], y[test])
    # the float64 computation gives other APS sets here: the check is not vacuous
    p64 = cf.softmax(z.astype(np.float64))
    assert cf.set_size(cf.aps_sets(p64[cal], y[cal], p64[test], 0.1)) != out["aps_ss"]


def test_answer_keys_local_json_and_missing(tmp_path):
    import json

    (tmp_path / "ye2024").mkdir()
    recs = [{"id": i, "answer": "ABCDEF"[(i * 7) % 6]} for i in range(10000)][::-1]
    (tmp_path / "ye2024" / "hellaswag_10k.json").write_text(json.dumps(recs))
    df = data.load_ye_answers("ci", data_dir=tmp_path, online=False)
    assert df.index.tolist()[:3] == [0, 1, 2] and df.loc[7, "label"] == (7 * 7) % 6
    # JSON lines work too
    (tmp_path / "ye2024" / "halu_dialogue.json").write_text("\n".join(json.dumps(r) for r in recs))
    assert data.load_ye_answers("drs", data_dir=tmp_path, online=False)["label"].sum() == df["label"].sum()
    (tmp_path / "ye2024" / "mmlu_10k.json").write_text(json.dumps(recs[:9000]))
    with pytest.raises(ValueError, match="expected 10,000 records"):
        data.load_ye_answers("qa", data_dir=tmp_path, online=False)
    with pytest.raises(data.DataNotFoundError, match="ErikYip/LLM-Uncertainty-Bench"):
        data.load_ye_answers("rc", data_dir=tmp_path / "nowhere", online=False)
    with pytest.raises(ValueError, match="task must be one of"):
        data.load_ye_answers("xx", online=False)
