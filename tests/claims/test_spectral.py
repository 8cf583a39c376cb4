"""Tests of semvar.claims.spectral: the records of chapters 1-3: the relation, the judge, spectral entropy.

The module's checks run in their reduced (quick) form, about 7 s: every record must reach a
verdict (no ``error``) and the status of the stored full run ``data/scorecard.json``, as
``tests/test_scorecard_fresh.py`` requires of the whole ledger at once.  Whether a wrong core
function changes these verdicts is the subject of ``tests/test_claims_mutation.py``.

The two records that need data no check can generate (the six judges' verdicts of Table 2, repeated
temperature-0 generations) are decided here from files a test supplies in ``$SEMVAR_DATA_DIR``.
"""

from __future__ import annotations

import numpy as np
import pytest

from semvar import claims

from ._helpers import assert_decided_as_stored, module_ids, run_module


def test_records_decide_as_the_stored_run():
    records = run_module("spectral")
    assert len(records) == len(module_ids("spectral")) >= 6   # none registered would pass vacuously
    assert_decided_as_stored(records)


# ----------------------------------------------------------------------------- data that settles a claim

@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("SEMVAR_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("SEMVAR_DATA_DIR_ONLY", "1")
    (tmp_path / "liu2025").mkdir()
    return tmp_path / "liu2025"


def _verdicts(judges, rng, shift=0.0):
    import pandas as pd

    from semvar.papers import PAPER_TABLE2

    rows = []
    for j in judges:
        p, q = PAPER_TABLE2[j]
        for same, prob, size in ((1, p, 400), (0, q, 1600)):
            rows += [(j, same, int(v)) for v in rng.random(size) < min(1.0, prob + (shift if j == judges[0] else 0))]
    return pd.DataFrame(rows, columns=["judge", "same_meaning", "verdict"])


def test_table2_without_data_needs_data(data_dir):
    rec = claims.run(["liu2025.table2"], quick=True)
    assert {r.id: r.status for r in rec}["liu2025.table2"] == "needs_data"


def test_table2_is_decided_when_verdicts_are_supplied(data_dir):
    from semvar.papers import PAPER_TABLE2

    rng = np.random.default_rng(0)
    path = data_dir / "table2_verdicts.csv"
    _verdicts(list(PAPER_TABLE2), rng).to_csv(path, index=False)
    assert claims.run(["liu2025.table2"], quick=True)[0].status == "replicated"
    _verdicts(["GPT", "PHI"], rng).to_csv(path, index=False)
    assert claims.run(["liu2025.table2"], quick=True)[0].status == "partly"
    _verdicts(["GPT", "PHI"], rng, shift=-0.3).to_csv(path, index=False)   # GPT's p off by 0.3
    rec = claims.run(["liu2025.table2"], quick=True)[0]
    assert rec.status == "not_replicated" and "GPT" in rec.note


def test_temperature0_is_decided_when_runs_are_supplied(data_dir):
    import pandas as pd

    path = data_dir / "temperature0_runs.csv"
    rec = claims.run(["liu2025.temperature0"])[0]  # CPU runs (chapter 7) do not test a claim about GPU rounding
    assert rec.status == "needs_data" and "GPU" in rec.note
    same = pd.DataFrame([(f"p{i}", r, f"answer {i}") for i in range(3) for r in range(5)], columns=["prompt", "run", "text"])
    same.to_csv(path, index=False)
    assert claims.run(["liu2025.temperature0"])[0].status == "not_replicated"
    differ = same.copy()
    differ.loc[3, "text"] = "answer 0, worded otherwise"
    differ.to_csv(path, index=False)
    rec = claims.run(["liu2025.temperature0"])[0]
    assert rec.status == "replicated" and rec.our_value["prompts_with_differing_runs"] == 1
    same[same.run < 2].to_csv(path, index=False)   # identical, but only two runs each: cannot refute
    assert claims.run(["liu2025.temperature0"])[0].status == "needs_data"


def test_malformed_supplied_data_is_an_error_not_needs_data(data_dir):
    (data_dir / "table2_verdicts.csv").write_text("judge,verdict\nGPT,1\n")
    rec = claims.run(["liu2025.table2"], quick=True)[0]
    assert rec.status == "error" and "same_meaning" in rec.note
