"""How many seats a request occupies, and for how long after it ends (`pkg/util/flowcontrol/request/`: `width.go`,
`list_work_estimator.go`, `mutating_work_estimator.go`, `config.go`, `seat_seconds.go`; and `watch_tracker.go`,
k8s.io/apiserver v0.33.1).

- A `list` occupies one seat per 100 objects it is estimated to process, at least 1 and at most the level's
  maximum (`max_seats`, at most 10): a list by name (`fieldSelector=metadata.name=`) is 1 seat; a list the watch
  cache serves (no `resourceVersion`: a consistent read, served from the cache as `ConsistentListFromCache` has it
  on kind's etcd; `resourceVersion=0`; `resourceVersionMatch=NotOlderThan`) processes every stored object of the
  resource; one that goes to etcd (a `continue`, an exact or paged `resourceVersion`) processes twice its limit, or
  all plus its limit when it has a selector. List options that do not decode take the maximum; a resource whose
  count is unknown (an aggregated API) the minimum. The stored count is the store's own (upstream's tracker polls
  etcd once a minute), re-read when the store changed: at most once a second when counting is slow.
- A watch takes 1 seat (`WatchList` is off by default in 1.33, so its initial events are not estimated).
- `create`, `update`, `patch` and `delete` take 1 seat while they run and, when at least 10 watches may be
  interested in the change, `ceil(watches / 10)` seats (at most the level's maximum) for 5 ms × that many seats /
  the seats kept after the response (`AdditionalLatency`): the watch fan-out. A ServiceAccount token request is
  exempt (it makes no event).
- Everything else: 1 seat.

`WatchTracker` counts the watches being served by (group, resource, namespace, name); a pods watch for one node
(`fieldSelector=spec.nodeName=…`) is not counted, as upstream's built-in index has it.
"""
from __future__ import annotations

import math
import time
from typing import Any, Callable, Mapping, NamedTuple

from ..memo import remember
from ..paramcodec import NumError, parse_int

MINIMUM_SEATS = 1
MAXIMUM_SEATS_LIMIT = 10
OBJECTS_PER_SEAT = 100.0
WATCHES_PER_SEAT = 10.0
EVENT_ADDITIONAL_DURATION_NS = 5_000_000  # 5 ms
SS_SCALE = 100_000_000  # seat-seconds are integers of 1e-8 (`ssScale`)
_READ_ONLY = frozenset({"get", "list", "watch", "proxy"})
MUTATING_VERBS = frozenset({"create", "update", "patch", "delete"})
_BUILTIN_INDEXES = {"pods": "spec.nodeName"}
_UNSET = "<unset>"


def seats_times_duration(seats: float, duration_ns: int) -> int:
    """`SeatsTimesDuration`: seat-seconds (in 1e-8 units) from seats and nanoseconds."""
    return int(_go_round(seats * duration_ns / (1e9 / SS_SCALE)))


def duration_per_seat(seat_seconds: int, seats: float) -> int:
    """`SeatSeconds.DurationPerSeat`: nanoseconds (truncated, as Go's conversion to time.Duration)."""
    return int(seat_seconds / seats * (1e9 / SS_SCALE))


def _go_round(x: float) -> float:
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


class WorkEstimate(NamedTuple):
    """`WorkEstimate`: seats while running, seats kept afterwards and for how long (nanoseconds)."""
    initial: int
    final: int = 0
    latency_ns: int = 0

    @property
    def max_seats(self) -> int:
        return max(self.initial, self.final)


ONE_SEAT = WorkEstimate(MINIMUM_SEATS)


def _first(query: Mapping[str, Any], key: str) -> str | None:
    getall = getattr(query, "getall", None)
    if getall is not None:
        values = getall(key, ())
        return values[0] if values else None
    value = query.get(key)
    return value[0] if isinstance(value, list) and value else value


def _int_option(value: str | None) -> tuple[bool, int]:
    """`Convert_Slice_string_To_int64` / `..._To_Pointer_int64` (`strconv.ParseInt`): (decoded?, value). Only an
    absent parameter is 0: an empty one fails to parse, as the handler's own decoding (paramcodec.py) refuses it."""
    if value is None:
        return True, 0
    try:
        return True, parse_int(value)
    except NumError:
        return False, 0


def _list_from_storage(query: Mapping[str, Any], limit: int) -> bool:
    """`delegator.ShouldDelegateListMeta` with `CacheWithoutSnapshots` (consistent reads served by the cache)."""
    match = _first(query, "resourceVersionMatch") or ""
    rv = _first(query, "resourceVersion") or ""
    if match == "Exact":
        return True
    if match == "NotOlderThan":
        return False
    if match:
        return True
    if _first(query, "continue"):
        return True
    return limit > 0 and rv not in ("", "0")


def _exact_field(selector: str | None, field: str) -> str:
    """`fields.Selector.RequiresExactMatch` for one field, or `<unset>`."""
    for term in (selector or "").split(","):
        for op in ("==", "="):
            key, sep, value = term.partition(op)
            if sep and key.strip() == field and not key.endswith("!"):
                return value.strip()
    return _UNSET


class WatchTracker:
    """`watchTracker`: the watches being served, for the mutating estimate's fan-out."""

    def __init__(self) -> None:
        self.counts: dict[tuple[str, str, str, str], int] = {}

    def register(self, attrs: Any, query: Mapping[str, Any]) -> Callable[[], None] | None:
        """`RegisterWatch`: count a watch that starts; the function returned forgets it."""
        if attrs.verb != "watch":
            return None
        field = _BUILTIN_INDEXES.get(attrs.resource)
        if field is not None and _exact_field(_first(query, "fieldSelector"), field) not in (_UNSET, ""):
            return None  # indexed: not interested in every change
        key = (attrs.api_group, attrs.resource, attrs.namespace, attrs.name)
        counts = self.counts
        counts[key] = counts.get(key, 0) + 1

        def forget() -> None:
            left = counts.get(key, 0) - 1
            if left > 0:
                counts[key] = left
            else:
                counts.pop(key, None)
        return forget

    def interested(self, attrs: Any) -> int:
        """`GetInterestedWatchCount`: cluster-wide watches of the resource, those of its namespace, of its name."""
        if attrs.verb in _READ_ONLY or not self.counts:
            return 0
        counts = self.counts
        group, resource = attrs.api_group, attrs.resource
        n = counts.get((group, resource, "", ""), 0)
        if attrs.namespace:
            n += counts.get((group, resource, attrs.namespace, ""), 0)
        if attrs.name:
            n += counts.get((group, resource, attrs.namespace, attrs.name), 0)
        return n


class ObjectCounts:
    """The stored object count of a (group, resource), from `count_fn` (None: not a stored resource), re-read when
    the store's resourceVersion moved, at most once a second when a count costs more than a millisecond (a
    resource spread over thousands of namespaces)."""

    SLOW = 0.001
    PERIOD = 1.0

    def __init__(self, count_fn: Callable[[str, str], int | None], rv_fn: Callable[[], int]):
        self._count_fn = count_fn
        self._rv_fn = rv_fn
        self._cache: dict[tuple[str, str], tuple[int, int | None, float, bool]] = {}

    def get(self, group: str, resource: str) -> int | None:
        rv = self._rv_fn()
        key = (group, resource)
        hit = self._cache.get(key)
        if hit is not None and (hit[0] == rv or (hit[3] and time.monotonic() - hit[2] < self.PERIOD)):
            return hit[1]
        started = time.monotonic()
        count = self._count_fn(group, resource)
        now = time.monotonic()
        remember(self._cache, key, (rv, count, now, now - started > self.SLOW), 4096)
        return count


class WorkEstimator:
    """`workEstimator.estimate` over a request's attributes (RequestInfo) and query."""

    def __init__(self, counts: ObjectCounts, watches: WatchTracker):
        self.counts = counts
        self.watches = watches

    def estimate(self, attrs: Any, query: Mapping[str, Any], level_max_seats: int,
                 flow: tuple[str, str] | None = None, samples: Any = None) -> WorkEstimate:
        """`samples`: where a write's watch count is observed under `flow` (`ObserveWatchCount`, the metrics'
        `watch_count_samples`, an `observe(labels, value)`), or None."""
        verb = attrs.verb
        if verb == "list":
            return self._list(attrs, query, _max_seats(level_max_seats))
        if verb in MUTATING_VERBS:
            return self._mutating(attrs, _max_seats(level_max_seats), flow, samples)
        return ONE_SEAT

    def _list(self, attrs: Any, query: Mapping[str, Any], max_seats: int) -> WorkEstimate:
        if attrs.name:  # a list by name is a get in storage
            return ONE_SEAT
        ok, limit_opt = _int_option(_first(query, "limit"))
        ok2, _ = _int_option(_first(query, "timeoutSeconds"))
        if not (ok and ok2):  # destined to fail validation
            return WorkEstimate(max_seats)
        from_storage = _list_from_storage(query, limit_opt)
        stored = self.counts.get(attrs.api_group, attrs.resource)
        if stored is None:
            return ONE_SEAT
        limit = limit_opt if 0 < limit_opt < stored else stored
        if not from_storage:
            objects = stored
        elif _first(query, "fieldSelector") or _first(query, "labelSelector"):
            objects = stored + limit
        else:
            objects = 2 * limit
        seats = math.ceil(objects / OBJECTS_PER_SEAT)
        return WorkEstimate(min(max(seats, MINIMUM_SEATS), max_seats))

    def _mutating(self, attrs: Any, max_seats: int, flow: tuple[str, str] | None = None,
                  samples: Any = None) -> WorkEstimate:
        if attrs.resource == "serviceaccounts" and attrs.subresource == "token":
            return ONE_SEAT
        watches = self.watches.interested(attrs)
        if samples is not None and flow is not None:
            samples.observe(flow, watches)
        if watches < WATCHES_PER_SEAT:
            return ONE_SEAT
        final = math.ceil(watches / WATCHES_PER_SEAT)
        final_work = seats_times_duration(final, EVENT_ADDITIONAL_DURATION_NS)
        final = min(final, max_seats)
        return WorkEstimate(1, final, duration_per_seat(final_work, final))


def _max_seats(level_max_seats: int) -> int:
    return level_max_seats if 0 < level_max_seats <= MAXIMUM_SEATS_LIMIT else MAXIMUM_SEATS_LIMIT


__all__ = ["MAXIMUM_SEATS_LIMIT", "MUTATING_VERBS", "ONE_SEAT", "ObjectCounts", "SS_SCALE", "WatchTracker",
           "WorkEstimate", "WorkEstimator", "duration_per_seat", "seats_times_duration"]
