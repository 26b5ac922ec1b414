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


# --------------------------------------------------------------------------------------------- a recorded history
# Recorded from the embedded server by tests/tools/record_history.py: three writers, a cross-namespace watch.

def _recorded():
    import json
    from pathlib import Path

    doc = json.loads((Path(__file__).parent / "data" / "watch_history.json").read_text(encoding="utf-8"))
    writes = [Write(tuple(w["key"]), w["op"], w["rv"], w["state"], w["started"], w["acked"], w["writer"])
              for w in doc["writes"]]
    events = [Seen(e["type"], tuple(e["key"]), e["rv"], e["state"]) for e in doc["events"]]
    return writes, events


def test_recorded_history_passes_every_check():
    writes, events = _recorded()
    assert len(writes) == len(events) == 30
    assert check_watch(writes, events) is None
    for point in range(len(events)):
        assert check_resume(events, point, events[point + 1:]) is None
    state: dict = {}
    for k in range(len(events) + 1):  # every prefix of the history is a snapshot the checker accepts
        assert check_snapshot({}, events, dict(state)) is None, k
        if k < len(events):
            e = events[k]
            state.pop(e.key, None) if e.type == "DELETED" else state.__setitem__(e.key, e.rv)


@pytest.mark.parametrize("index", range(30))
def test_recorded_history_with_one_event_dropped_fails(index):
    writes, events = _recorded()
    v = check_watch(writes, events[:index] + events[index + 1:])
    assert v is not None and v.property in ("complete", "real-time"), v
    assert check_resume(events, 0, events[1:index] + events[index + 1:]) is not None or index == 0


@pytest.mark.parametrize("index", range(30))
def test_recorded_history_with_one_event_duplicated_fails(index):
    writes, events = _recorded()
    v = check_watch(writes, events[:index + 1] + events[index:])
    assert v is not None and v.property == "unique", v


def test_recorded_history_with_an_object_s_changes_swapped_fails():
    writes, events = _recorded()
    swapped = 0
    for i, e in enumerate(events):
        j = next((j for j in range(i + 1, len(events)) if events[j].key == e.key), None)
        if j is None:
            continue
        faulty = list(events)
        faulty[i], faulty[j] = faulty[j], faulty[i]
        v = check_watch(writes, faulty)
        assert v is not None and v.property in ("order", "real-time"), (i, j, v)
        swapped += 1
    assert swapped >= 20


def test_recorded_history_resumed_one_event_late_fails():
    _, events = _recorded()
    for point in range(len(events) - 1):
        v = check_resume(events, point, events[point + 2:])
        assert v is not None and v.property == "resume", point


def test_recorded_history_non_snapshot_list_fails():
    _, events = _recorded()
    # every object at its first version, though some were deleted before others were created: no point matches
    first: dict = {}
    for e in events:
        first.setdefault(e.key, e.rv)
    assert check_snapshot({}, events, first) is not None
