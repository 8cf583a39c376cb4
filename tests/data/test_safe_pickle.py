"""Tests of semvar.data._safe_pickle: the unpicklers that admit numpy arrays only, or no global at all.

Each crafted stream would run code under plain :func:`pickle.load` (the control test shows it does);
the restricted unpicklers refuse it before anything runs.
"""

from __future__ import annotations

import io
import pickle

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from semvar.data import _safe_pickle, ye2024

from ._helpers import malicious_pickles

# --------------------------------------------------------------------------- the numpy-only unpickler


def test_the_malicious_pickles_do_run_when_unpickled_plainly(tmp_path):
    # the control: proves the crafted streams are live, so the refusal below means something
    marker = tmp_path / "ran"
    pickle.loads(malicious_pickles(marker)["os.system"])
    assert marker.exists()


@pytest.mark.parametrize("kind", ["os.system", "exec", "numpy.save"])
def test_malicious_pickle_is_refused_before_it_runs(tmp_path, kind):
    marker = tmp_path / "ran"
    path = tmp_path / "evil.pkl"
    path.write_bytes(malicious_pickles(marker)[kind])
    with pytest.raises(_safe_pickle.RefusedPickleError, match="refused: the pickle names the global") as err:
        _safe_pickle.load_numpy_pickle(path)
    assert isinstance(err.value, ValueError)
    assert not marker.exists()
    assert not (tmp_path / "x.npy").exists()


def test_release_pickle_loads(ye_copy):
    # a byte-exact copy of one release file
    raw = ye_copy / "raw" / "Qwen-72B_mmlu_10k_base_icl1.pkl"
    records = _safe_pickle.load_numpy_pickle(raw)
    arr = ye2024._release_logits(records, raw.name)
    assert np.array_equal(arr, np.load(ye_copy / "mmlu_10k.npz")["Qwen-72B__base"])


def test_garbage_is_not_a_pickle(tmp_path):
    path = tmp_path / "x.pkl"
    path.write_bytes(pickle.dumps([1, 2, 3])[:-3])
    with pytest.raises(ValueError, match="not a readable pickle"):
        _safe_pickle.load_numpy_pickle(path)


@settings(max_examples=25, deadline=None)
@given(
    arrays=st.lists(hnp.arrays(np.float32, st.integers(0, 8)), max_size=5),
    protocol=st.integers(3, 4),  # protocol 2 spells bytes through _codecs.encode, which is refused
)
def test_numpy_only_unpickler_round_trips_arrays(arrays, protocol):
    obj = [{"id": i, "logits_options": a} for i, a in enumerate(arrays)]
    back = _safe_pickle.NumpyOnlyUnpickler(io.BytesIO(pickle.dumps(obj, protocol=protocol))).load()
    assert len(back) == len(obj)
    for a, b in zip(obj, back):
        assert a["id"] == b["id"] and b["logits_options"].dtype == np.float32
        assert a["logits_options"].tobytes() == b["logits_options"].tobytes()


def test_a_pickle_that_asks_for_745_gib_is_refused_before_allocating(tmp_path):
    class Huge:
        def __reduce__(self):
            return (np.ndarray, ((10**11,), "f8"))

    for protocol in (2, 3, 4):
        raw = pickle.dumps(Huge(), protocol=protocol)
        assert len(raw) <= 53
        path = tmp_path / f"huge{protocol}.pkl"
        path.write_bytes(raw)
        with pytest.raises(_safe_pickle.RefusedPickleError, match=r"800,000,000,000 bytes\) before giving its data"):
            _safe_pickle.load_numpy_pickle(path)
    # numpy's own reconstruction function, asked for a huge empty array
    class Forged:
        def __reduce__(self):
            return (_safe_pickle._reconstruct, (np.ndarray, (10**6, 10**6), b"b"))

    with pytest.raises(_safe_pickle.RefusedPickleError, match=r"1,000,000,000,000 bytes"):
        _safe_pickle.NumpyOnlyUnpickler(io.BytesIO(pickle.dumps(Forged(), protocol=4))).load()
    # a genuine pickle asks for no empty memory (it gives its data), so even a tiny limit lets it through
    back = _safe_pickle.NumpyOnlyUnpickler(io.BytesIO(pickle.dumps(np.arange(1000.0), protocol=4)), max_array_bytes=0)
    assert np.array_equal(back.load(), np.arange(1000.0))


# --------------------------------------------------------------------------- the unpickler that admits no global


def test_no_globals_unpickler_loads_builtins_and_refuses_every_global(tmp_path):
    plain = [{"id": "q", "x": ("a", 1, 2.5, None, True, b"b")}, {1, 2}, frozenset({3})]
    (tmp_path / "ok.pkl").write_bytes(pickle.dumps(plain))
    assert _safe_pickle.load_plain_pickle(tmp_path / "ok.pkl") == plain
    refused = [np.arange(3), [np.float64(1.0)], print, complex(1, 2), pd.Series([1])]
    for k, value in enumerate(refused):
        (tmp_path / f"g{k}.pkl").write_bytes(pickle.dumps(value))
        with pytest.raises(_safe_pickle.RefusedPickleError, match="names the global .*no global is admitted"):
            _safe_pickle.load_plain_pickle(tmp_path / f"g{k}.pkl")
    # the numpy-only unpickler admits the array; this one does not
    assert _safe_pickle.load_numpy_pickle(tmp_path / "g0.pkl").tolist() == [0, 1, 2]


def test_no_globals_unpickler_runs_nothing(tmp_path):
    class Boom:
        def __reduce__(self):
            return (open, (str(tmp_path / "created"), "w"))

    (tmp_path / "evil.pkl").write_bytes(pickle.dumps([Boom()]))
    with pytest.raises(_safe_pickle.RefusedPickleError, match="builtins.open|io.open"):
        _safe_pickle.load_plain_pickle(tmp_path / "evil.pkl", source="http://x/evil.pkl")
    assert not (tmp_path / "created").exists()
    (tmp_path / "cut.pkl").write_bytes(pickle.dumps(["a" * 50])[:20])
    with pytest.raises(ValueError, match="not a readable pickle of builtin values"):
        _safe_pickle.load_plain_pickle(tmp_path / "cut.pkl")
