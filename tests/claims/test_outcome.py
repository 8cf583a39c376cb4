"""Tests of semvar.claims._outcome: the outcome of a decision rule, and checks that need data."""

from __future__ import annotations

from semvar.claims._outcome import decide, with_data


def test_decide_orders_the_statuses():
    assert decide(1, True, "n", partly=False).status == "replicated"
    assert decide(1, False, partly=True).status == "partly"
    assert decide(1, False).status == "not_replicated"
    assert decide(1, True, partly=False).note == ""


def test_with_data_runs_the_check_only_on_data():
    seen = []

    @with_data(lambda: [1, 2, 3], "three numbers")
    def found(quick, data):
        seen.append((quick, data))
        return decide(len(data), True)

    @with_data(lambda: (_ for _ in ()).throw(FileNotFoundError("/nowhere/numbers.csv")), "the numbers (numbers.csv)")
    def absent(quick, data):
        raise AssertionError("not called without its data")

    assert found(True).our_value == 3 and seen == [(True, [1, 2, 3])] and found.__name__ == "found"
    out = absent(False)
    assert out.status == "needs_data" and out.note == "needs the numbers (numbers.csv) (looked: FileNotFoundError: numbers.csv)"
