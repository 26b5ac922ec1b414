"""The history checker on recorded histories: a clean one passes, each injected fault is caught and named."""

from __future__ import annotations

import pytest

from conformance.history import Seen, Write, check_resume, check_snapshot, check_watch

A, B, C = ("ns1", "a"), ("ns1", "b"), ("ns2", "c")


def _history():
    """Two writers (a, then b in ns1; c in ns2), interleaved; c's DELETE answered with a Status (no rv)."""
    writes = [
        Write(A, "create", "11", {"v": "0"}, 0.0, 0.1, "w1"),
        Write(C, "create", "12", {"v": "0"}, 0.05, 0.15, "w2"),
        Write(A, "update", "13", {"v": "1"}, 0.2, 0.3, "w1"),
        Write(C, "update", "14", {"v": "1"}, 0.2, 0.35, "w2"),
        Write(B, "create", "15", {"v": "0"}, 0.4, 0.5, "w1"),
        Write(C, "delete", None, None, 0.4, 0.45, "w2"),
        Write(A, "delete", "17", {"v": "1"}, 0.6, 0.7, "w1"),
    ]
    events = [Seen("ADDED", A, "11", {"v": "0"}), Seen("ADDED", C, "12", {"v": "0"}),
              Seen("MODIFIED", A, "13", {"v": "1"}), Seen("MODIFIED", C, "14", {"v": "1"}),
              Seen("DELETED", C, "16", {"v": "1"}), Seen("BOOKMARK", None, "16"),
              Seen("ADDED", B, "15", {"v": "0"}), Seen("DELETED", A, "17", {"v": "1"})]
    return writes, events


def test_clean_history_passes():
    writes, events = _history()
    assert check_watch(writes, events) is None


def test_concurrent_writes_may_arrive_in_either_order():
    writes, events = _history()
    events[0], events[1] = events[1], events[0]  # a and c were written concurrently
    assert check_watch(writes, events) is None


@pytest.mark.parametrize("fault, prop, needle", [
    ("drop", "complete", "update ns1/a rv=13 by w1 was acknowledged but never delivered"),
    ("drop-last", "complete", "delete ns1/a rv=17 by w1 was acknowledged but never delivered"),
    ("duplicate", "unique", "already delivered as event #2"),
    ("reorder-same-object", "order", "delivered before the earlier write create ns1/a"),
    ("reorder-real-time", "real-time", "acknowledged before it was sent"),
    ("wrong-state", "state", "carries {'v': 'x'}"),
    ("wrong-rv", "state", "type or resourceVersion differs"),
    ("foreign", "complete", "no acknowledged write of this object"),
    ("extra-delete", "unique", "no acknowledged write of this object is left"),
])
def test_injected_fault_is_caught(fault, prop, needle):
    writes, events = _history()
    if fault == "drop":
        del events[2]
    elif fault == "drop-last":
        del events[-1]
    elif fault == "duplicate":
        events.insert(3, events[2])
    elif fault == "reorder-same-object":
        events[0], events[2] = events[2], events[0]
    elif fault == "reorder-real-time":  # c's update (sent after a's create was acknowledged) before a's create
        events = [events[1], events[3], events[0], events[2]] + events[4:]
    elif fault == "wrong-state":
        events[2] = Seen("MODIFIED", A, "13", {"v": "x"})
    elif fault == "wrong-rv":
        events[2] = Seen("MODIFIED", A, "99", {"v": "1"})
    elif fault == "foreign":
        events.insert(1, Seen("ADDED", ("ns3", "z"), "20", {}))
    elif fault == "extra-delete":
        events.append(Seen("DELETED", C, "18", {"v": "1"}))
    v = check_watch(writes, events)
    assert v is not None, fault
    assert v.property == prop, str(v)
    assert needle in str(v), str(v)
    assert "events around it" in str(v)


def test_resume_from_any_delivered_point():
    _, events = _history()
    for point in range(len(events)):
        assert check_resume(events, point, events[point + 1:]) is None, point


@pytest.mark.parametrize("fault, needle", [
    ("late", "the first watch delivered MODIFIED ns2/c rv=14 there"),  # one event late: a change is lost
    ("short", "1 later change(s) missing"),
    ("early", "is MODIFIED ns1/a rv=13"),          # resumed one event early: an old change again
    ("extra", "extra event"),
])
def test_resume_faults(fault, needle):
    _, events = _history()
    point = 2
    resumed = {"late": events[4:], "early": events[2:], "short": events[3:-1],
               "extra": events[3:] + [Seen("ADDED", B, "99")]}[fault]
    v = check_resume(events, point, resumed)
    assert v is not None and v.property == "resume", fault
    assert needle in str(v), str(v)


def test_snapshot_is_a_prefix_of_history():
    _, events = _history()
    assert check_snapshot({}, events, {A: "13", C: "12"}) is None  # after three changes
    assert check_snapshot({B: "5"}, [], {B: "5"}) is None
    assert check_snapshot({}, events, {B: "15"}) is None  # the end


def test_non_snapshot_list_is_caught():
    _, events = _history()
    # a at its first version, c already deleted: no single point of the history looks like that
    v = check_snapshot({}, events, {A: "11"} | {B: "15"})
    assert v is not None and v.property == "snapshot"
    assert "matches no point of the history" in str(v)
