"""The filter's request counts by phase (waiting in a queue, executing) and kind (read-only, mutating), with the
time spent at each count, for `apiserver_flowcontrol_read_vs_write_current_requests` (metrics/flowcontrol_levels.py).

Follows `staging/src/k8s.io/apiserver/pkg/server/filters/priority-and-fairness.go` (v0.33.1): `isMutatingRequest`
is every verb but `get`, `list` and `watch`; `noteWaitingDelta` while a request sits in a queue, `noteExecutingDelta`
while it executes (a watch until it is set up); the four series are created with the filter (so they count time at
0 from the server's start), over a denominator of 1 (`NewForLabelValuesEfficient(0, 1, ...)`: only the
max-in-flight filter sets a limit). One series changes per call: its previous count's time is added then.
"""
from __future__ import annotations

import time
from typing import Callable

READ_ONLY_VERBS = frozenset({"get", "list", "watch"})  # `nonMutatingRequestVerbs`
WAITING, EXECUTING = 0, 2  # + 1 for a mutating request: the series' index
_LABELS = (("waiting", "readOnly"), ("waiting", "mutating"), ("executing", "readOnly"), ("executing", "mutating"))


def series(phase: int, verb: str) -> int:
    """The series of a request of `verb` in `phase` (WAITING or EXECUTING)."""
    return phase if verb in READ_ONLY_VERBS else phase + 1


_FOLD_AT = 4096  # changes logged before they are added up (a scrape adds them up too)


class ReadWriteCounts:
    """Four counts, each with the seconds spent at each of its values since the last `take`. A change is logged
    (one append: every request makes two) and added up in order when the log is long or the counts are taken."""
    __slots__ = ("_clock", "_counts", "_since", "_times", "_log")

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self._clock = clock
        now = clock()
        self._counts = [0, 0, 0, 0]
        self._since = [now, now, now, now]
        self._times: list[dict[int, float]] = [{}, {}, {}, {}]
        self._log: list[tuple[float, int, int]] = []

    def add(self, index: int, delta: int) -> None:
        log = self._log
        log.append((self._clock(), index, delta))
        if len(log) >= _FOLD_AT:
            self._fold()

    @property
    def counts(self) -> list[int]:
        """The four counts now."""
        self._fold()
        return self._counts

    def _fold(self) -> None:
        log, self._log = self._log, []
        counts, since, all_times = self._counts, self._since, self._times
        for now, index, delta in log:
            count = counts[index]
            times = all_times[index]
            times[count] = times.get(count, 0.0) + now - since[index]
            since[index] = now
            counts[index] = count + delta

    def take(self) -> list[tuple[tuple[str, str], dict[int, float]]]:
        """Each series' (phase, request_kind) labels and its seconds per count, up to now; forgotten here."""
        self._fold()
        now = self._clock()
        out = []
        for i, labels in enumerate(_LABELS):
            times, self._times[i] = self._times[i], {}
            count = self._counts[i]
            times[count] = times.get(count, 0.0) + now - self._since[i]
            self._since[i] = now
            out.append((labels, times))
        return out


__all__ = ["EXECUTING", "READ_ONLY_VERBS", "ReadWriteCounts", "WAITING", "series"]
