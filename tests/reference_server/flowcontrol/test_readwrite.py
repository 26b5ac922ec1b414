"""The filter's request counts by phase and kind (flowcontrol/readwrite.py): time at each count per series."""
from __future__ import annotations

from conformance.reference_server.flowcontrol.readwrite import EXECUTING, WAITING, ReadWriteCounts, series


def test_time_is_spent_at_each_count_of_each_series() -> None:
    now = [10.0]
    counts = ReadWriteCounts(lambda: now[0])
    write, read = series(EXECUTING, "create"), series(EXECUTING, "list")
    assert (write, read, series(WAITING, "watch"), series(WAITING, "deletecollection")) == (3, 2, 0, 1)
    now[0] += 1.0
    counts.add(write, 1)
    now[0] += 2.0
    counts.add(write, 1)   # two writes for 0.5 s
    now[0] += 0.5
    counts.add(write, -2)
    now[0] += 1.0
    taken = dict(counts.take())
    assert taken[("executing", "mutating")] == {0: 2.0, 1: 2.0, 2: 0.5}
    assert taken[("executing", "readOnly")] == {0: 4.5}
    assert taken[("waiting", "readOnly")] == {0: 4.5} and taken[("waiting", "mutating")] == {0: 4.5}
    now[0] += 1.0
    assert dict(counts.take())[("executing", "mutating")] == {0: 1.0}  # forgotten once taken


def test_a_long_run_of_changes_adds_up_as_each_change_did() -> None:
    now = [0.0]
    counts = ReadWriteCounts(lambda: now[0])
    read = series(EXECUTING, "get")
    for _ in range(5000):  # past the log's fold: the time at 1 and at 0 alternate
        now[0] += 1.0
        counts.add(read, 1)
        now[0] += 2.0
        counts.add(read, -1)
    assert counts.counts[read] == 0
    assert dict(counts.take())[("executing", "readOnly")] == {0: 5000.0, 1: 10000.0}
