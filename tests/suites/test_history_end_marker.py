"""The list/watch history suite's end marker (`Recorder.mark` + `collect(..., marker=)`): the marker's event ends a
stream's reading, is never recorded, and a stray event before it is still caught; without it the quiet tail
rules as before."""
from __future__ import annotations

import queue
import time
from typing import Any

from conformance.suites import test_list_watch_history as H

NS = "nsc-t"
MARKER = (NS, H.MARKER)


class FakeStream:
    """What `collect` reads: `next_event(timeout)` and `ended`. `waits`: reads that found nothing queued (they
    wait out their timeout: a quiet tail, or the wait for a change)."""

    def __init__(self, events: list[dict[str, Any]]) -> None:
        self.ended = False
        self.waits = 0
        self._q: queue.Queue = queue.Queue()
        for ev in events:
            self._q.put(ev)

    def next_event(self, timeout: float | None = None) -> dict[str, Any] | None:
        self.waits += self._q.empty()
        try:
            return self._q.get(timeout=max(timeout or 0.0, 0.0))
        except queue.Empty:
            return None


def _ev(kind: str, name: str, rv: int) -> dict[str, Any]:
    return {"type": kind, "object": {"apiVersion": "v1", "kind": "ConfigMap",
                                     "metadata": {"name": name, "namespace": NS, "resourceVersion": str(rv)}}}


def test_marker_ends_the_tail_and_is_not_recorded():
    stream = FakeStream([_ev("ADDED", "a", 1), _ev("MODIFIED", "a", 2), _ev("ADDED", H.MARKER, 3)])
    events = H.collect(stream, 2, "watch", marker=MARKER)
    assert [(e.type, e.rv) for e in events] == [("ADDED", "1"), ("MODIFIED", "2")]
    assert stream.waits == 0  # no quiet tail awaited


def test_stray_event_before_the_marker_is_recorded():
    stream = FakeStream([_ev("ADDED", "a", 1), _ev("ADDED", "a", 1), _ev("ADDED", H.MARKER, 3)])
    events = H.collect(stream, 1, "watch", marker=MARKER)
    assert [(e.type, e.rv) for e in events] == [("ADDED", "1"), ("ADDED", "1")]  # the duplicate: the check fails it


def test_marker_before_the_expected_changes_ends_the_wait():
    stream = FakeStream([_ev("ADDED", "a", 1), _ev("ADDED", H.MARKER, 3)])
    events = H.collect(stream, 5, "watch", marker=MARKER)  # four changes can never come now
    assert [e.rv for e in events] == ["1"]
    assert stream.waits == 0


def test_without_the_marker_the_quiet_tail_rules():
    stream = FakeStream([_ev("ADDED", "a", 1)])
    started = time.monotonic()
    events = H.collect(stream, 1, "watch", marker=MARKER)  # (a refused marker: None behaves the same)
    assert [e.rv for e in events] == ["1"]
    assert stream.waits >= 1 and time.monotonic() - started >= H.QUIET


def test_settle_quietly_ends_each_stream_at_its_marker():
    first = FakeStream([_ev("ADDED", H.MARKER, 3)])
    second = FakeStream([_ev("DELETED", "a", 2), _ev("ADDED", H.MARKER, 3)])
    seen_first, seen_second = H.Recording(), H.Recording()
    assert H.settle_quietly([(first, seen_first, "w1"), (second, seen_second, "w2")], marker=MARKER) == [None, None]
    assert not seen_first and [e.type for e in seen_second] == ["DELETED"]
    assert first.waits == second.waits == 0
