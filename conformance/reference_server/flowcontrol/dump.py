"""The three debug dumps of API Priority and Fairness (`apf_controller_debug.go`, `debug/dump.go`, k8s.io/apiserver
v0.33.1): `/debug/api_priority_and_fairness/dump_priority_levels` (a row per level), `dump_queues` (a row per
queue of the queuing levels) and `dump_requests` (a row per waiting or running request; `?includeRequestDetails=1`
adds who and what), each cell followed by `,` and a tab, through Go's `tabwriter.NewWriter(w, 8, 0, 1, ' ', 0)`.

Upstream walks its levels in map order for the queue and request dumps (sorted only for `dump_priority_levels`);
here every dump is sorted by level name. Times are RFC 3339 with nanoseconds in UTC (a request not yet started:
Go's zero time), durations in Go's `time.Duration` notation, seat-seconds as `SeatSeconds.String()`.
"""
from __future__ import annotations

import datetime
from typing import Any, Callable

from .queueset import QueueSet
from .workestimate import SS_SCALE

ZERO_TIME = "0001-01-01T00:00:00Z"
_LEVEL_HEADERS = ["PriorityLevelName", "ActiveQueues", "IsIdle", "IsQuiescing", "WaitingRequests",
                  "ExecutingRequests", "DispatchedRequests", "RejectedRequests", "TimedoutRequests",
                  "CancelledRequests"]
_QUEUE_HEADERS = ["PriorityLevelName", "Index", "PendingRequests", "ExecutingRequests", "SeatsInUse",
                  "NextDispatchR", "InitialSeatsSum", "MaxSeatsSum", "TotalWorkSum"]
_REQUEST_HEADERS = ["PriorityLevelName", "FlowSchemaName", "QueueIndex", "RequestIndexInQueue", "FlowDistingsher",
                    "ArriveTime", "InitialSeats", "FinalSeats", "AdditionalLatency", "StartTime"]
_DETAIL_HEADERS = ["UserName", "Verb", "APIPath", "Namespace", "Name", "APIVersion", "Resource", "SubResource"]


def tab_rows(rows: list[list[str]]) -> str:
    """Go's `row` (cells joined by ",\t") through `tabwriter.NewWriter(w, 8, 0, 1, ' ', 0)`: every cell but a
    line's last is padded to its column's widest cell plus one, at least 8."""
    cells = [[c + "," for c in r[:-1]] + [r[-1]] for r in rows]
    widths = [max(8, max(len(r[i]) for r in cells) + 1) for i in range(len(cells[0]) - 1)]
    return "".join("".join(c.ljust(w) for c, w in zip(r, widths)) + r[-1] + "\n" for r in cells)


def seat_seconds(value: int) -> str:
    """`SeatSeconds.String()` (an unsigned 64-bit count of 1e-8 seat-seconds)."""
    value %= 1 << 64
    return f"{value // SS_SCALE}.{value % SS_SCALE:08d}ss"


def rfc3339_nano(ns: int) -> str:
    """Go's `time.RFC3339Nano` of a UTC time given in nanoseconds since the epoch (0: the zero time)."""
    if not ns:
        return ZERO_TIME
    seconds, frac = divmod(ns, 1_000_000_000)
    stamp = datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    digits = f"{frac:09d}".rstrip("0")
    return f"{stamp}.{digits}Z" if digits else f"{stamp}Z"


def _frac(value: int, precision: int) -> str:
    whole, part = divmod(value, 10 ** precision)
    digits = f"{part:0{precision}d}".rstrip("0")
    return f"{whole}.{digits}" if digits else str(whole)


def go_duration(ns: int) -> str:
    """`time.Duration.String()`."""
    if ns == 0:
        return "0s"
    sign, ns = ("-", -ns) if ns < 0 else ("", ns)
    if ns < 1_000:
        return f"{sign}{ns}ns"
    if ns < 1_000_000:
        return f"{sign}{_frac(ns, 3)}µs"
    if ns < 1_000_000_000:
        return f"{sign}{_frac(ns, 6)}ms"
    hours, rest = divmod(ns, 3_600_000_000_000)
    minutes, rest = divmod(rest, 60_000_000_000)
    out = f"{_frac(rest, 9)}s"
    if hours or minutes:
        out = f"{minutes}m{out}"
    if hours:
        out = f"{hours}h{out}"
    return sign + out


def priority_levels(levels: dict[str, QueueSet]) -> str:
    """`dumpPriorityLevels`: one row per level, sorted by name (exempt ones too: upstream gives them a queue
    set without queues)."""
    rows = [list(_LEVEL_HEADERS)]
    for name in sorted(levels):
        qs = levels[name]
        rows.append([name, str(qs.active_queues), str(qs.idle).lower(), str(qs.quiescing).lower(),
                     str(qs.waiting), str(qs.executing), str(qs.dispatched), str(qs.rejected), str(qs.timed_out),
                     str(qs.cancelled)])
    return tab_rows(rows)


def queues(levels: dict[str, QueueSet]) -> str:
    """`dumpQueues`: one row per queue of every queuing level."""
    rows = [list(_QUEUE_HEADERS)]
    for name in sorted(levels):
        for index, pending, executing, seats, next_r, initial, most, work in levels[name].queue_rows():
            rows.append([name, str(index), str(pending), str(executing), str(seats), seat_seconds(next_r),
                         str(initial), str(most), seat_seconds(work)])
    return tab_rows(rows)


def _api_version(attrs: Any) -> str:
    group, version = getattr(attrs, "api_group", ""), getattr(attrs, "api_version", "")
    return f"{group}/{version}" if group else version


def requests(levels: dict[str, QueueSet], describe: Callable[[Any], tuple[str, Any]] | None) -> str:
    """`dumpRequests`: one row per waiting request (its index in its queue), running one (-1), running one
    without a queue (-1, -1); with `describe` (a request's details → user name, RequestInfo), who and what."""
    rows = [list(_REQUEST_HEADERS) + (list(_DETAIL_HEADERS) if describe is not None else [])]
    for name in sorted(levels):
        for queue, index, r in levels[name].request_rows():
            work = r.work
            row = [name, r.fs_name, str(queue), str(index), r.distinguisher, rfc3339_nano(r.arrived),
                   str(work.initial), str(work.final), go_duration(work.latency_ns), rfc3339_nano(r.started)]
            if describe is not None:
                user, attrs = describe(r.details) if r.details is not None else ("", None)
                row += [user, getattr(attrs, "verb", ""), getattr(attrs, "path", ""),
                        getattr(attrs, "namespace", ""), getattr(attrs, "name", ""), _api_version(attrs),
                        getattr(attrs, "resource", ""), getattr(attrs, "subresource", "")]
            rows.append(row)
    return tab_rows(rows)


__all__ = ["go_duration", "priority_levels", "queues", "requests", "rfc3339_nano", "seat_seconds", "tab_rows"]
