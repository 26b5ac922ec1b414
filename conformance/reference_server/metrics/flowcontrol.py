"""API Priority and Fairness' metrics (`k8s.io/apiserver/pkg/util/flowcontrol/metrics/metrics.go`, v0.33.1) and
kube-apiserver's in-flight gauges (`pkg/server/filters/priority-and-fairness.go` feeding
`apiserver_current_inflight_requests`/`apiserver_current_inqueue_requests` of `endpoints/metrics`).

Counted as the filter goes (`apf_filter.go` `Handle`, `queueset.go`): a dispatched request
(`dispatched_requests_total`, exempt ones included), a rejection with its reason (`concurrency-limit` for a
`Reject` level, `queue-full`, `time-out` for a wait that ended without a seat, the client's going away included,
as upstream's `decisionCancel`), and the wait of a request that was queued (`request_wait_duration_seconds`,
`execute` true or false; one dispatched at once is not observed); `work_estimated_seats` is derived from these
counters (`WorkEstimatedSeats`). Read from flowcontrol/ at scrape time: the
executing and waiting requests and seats per level and flow schema (series seen once stay, at 0, as a Go gauge
does), each level's nominal, lower, upper and current limits, and the in-flight gauges by request kind
(upstream's is the highest count of the last second; here the count at the scrape, the scrape included).

The per-level families the queue sets and the re-division record (execution times, the timing-ratio histograms,
the R/S gauges, the borrowing statistics) are metrics/flowcontrol_levels.py's.

Not served: the deprecated `apiserver_flowcontrol_request_concurrency_limit` (deprecated in 1.30) and
`request_concurrency_in_use` (1.31), hidden by component-base in 1.33; those flowcontrol_levels.py names.
"""
from __future__ import annotations

import time
from bisect import bisect_left
from typing import Any, Iterable

from .flowcontrol_levels import LevelMetrics
from .registry import BETA, STABLE, Collected, CounterVec, HistogramVec, Sample

WAIT_BUCKETS = (0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30)
SEAT_BUCKETS = (1, 2, 4, 10)
READ_ONLY_VERBS = frozenset({"get", "list", "watch"})  # nonMutatingRequestVerbs
_PL_FS = ("priority_level", "flow_schema")


class FlowControlMetrics:
    """The counters the filter feeds (`dispatched`, `rejected`) and the families read from `FlowControl`."""

    def __init__(self, flow_control: Any):
        self.flow_control = flow_control  # flowcontrol.FlowControl (its queuesets and limits)
        self.dispatched_total = CounterVec(
            "apiserver_flowcontrol_dispatched_requests_total",
            "Number of requests executed by API Priority and Fairness subsystem", _PL_FS, BETA)
        self.rejected_total = CounterVec(
            "apiserver_flowcontrol_rejected_requests_total",
            "Number of requests rejected by API Priority and Fairness subsystem", _PL_FS + ("reason",), BETA)
        self.wait = HistogramVec(
            "apiserver_flowcontrol_request_wait_duration_seconds",
            "Length of time a request spent waiting in its queue", _PL_FS + ("execute",), WAIT_BUCKETS, BETA)
        self._seen: dict[str, set[tuple[str, str]]] = {}
        self.on_waited: Any = None  # (request, seconds) of a request dispatched after waiting in a queue
        self.seats = WorkEstimatedSeats(self)
        self.levels = LevelMetrics(flow_control)

    # -- the filter's hooks --------------------------------------------------------------------------------

    def dispatched(self, decision: Any, req: Any) -> None:
        """A request got its seats (at once, or after waiting in a queue)."""
        key = decision.flow
        values = self.dispatched_total.values
        values[key] = values.get(key, 0) + 1
        if req.seats != 1:  # work_estimated_seats: the one-seat requests are the counters' others
            self.seats.wide(key, req.seats)
        if req.started != req.arrived:  # it was queued
            waited = (req.started - req.arrived) / 1e9
            self.wait.observe(key + ("true",), waited)
            if self.on_waited is not None and isinstance(req.details, tuple):
                self.on_waited(req.details[0], waited)  # the request's duration includes its wait

    def rejected(self, decision: Any, req: Any, queueset: Any) -> None:
        """A request refused its seats: at once (`req` None) or after waiting."""
        key = decision.flow
        if req is None:
            reason = "queue-full" if queueset.limits.queues else "concurrency-limit"
        else:
            reason = "time-out"
            if req.seats != 1:
                self.seats.wide(key, req.seats)
            self.wait.observe(key + ("false",), (time.time_ns() - req.arrived) / 1e9)
        self.rejected_total.inc(key + (reason,))

    # -- read at scrape time -------------------------------------------------------------------------------

    def _per_flow(self, name: str, waiting: bool, seats: bool) -> list[Sample]:
        counts: dict[tuple[str, str], float] = {}
        for level, qs in self.flow_control.queuesets.items():
            for index, position, req in qs.request_rows():
                if (position >= 0) == waiting:
                    key = (level, req.fs_name)
                    counts[key] = counts.get(key, 0) + (req.seats if seats else 1)
        seen = self._seen.setdefault(name, set())
        seen.update(counts)
        return [(key, counts.get(key, 0.0)) for key in seen]

    def _by_kind(self, waiting: bool) -> list[Sample]:
        counts = {"readOnly": 0.0, "mutating": 0.0}
        for qs in self.flow_control.queuesets.values():
            for _, position, req in qs.request_rows():
                if (position >= 0) == waiting:
                    details = req.details
                    verb = getattr(details[1], "verb", "") if isinstance(details, tuple) and len(details) > 1 else ""
                    counts["readOnly" if verb in READ_ONLY_VERBS else "mutating"] += 1
        return [((kind,), value) for kind, value in counts.items()]

    def _limits(self, pick: Any) -> list[Sample]:
        return [((name,), float(pick(state))) for name, state in self.flow_control.levels.items()]

    def families(self) -> Iterable[Any]:
        yield self.dispatched_total
        yield self.rejected_total
        yield self.wait
        yield self.seats
        yield Collected("apiserver_flowcontrol_current_executing_requests",
                        "Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the "
                        "API Priority and Fairness subsystem", _PL_FS,
                        lambda: self._per_flow("executing", False, False), BETA)
        yield Collected("apiserver_flowcontrol_current_executing_seats",
                        "Concurrency (number of seats) occupied by the currently executing (initial stage for a "
                        "WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem", _PL_FS,
                        lambda: self._per_flow("executing_seats", False, True), BETA)
        yield Collected("apiserver_flowcontrol_current_inqueue_requests",
                        "Number of requests currently pending in queues of the API Priority and Fairness subsystem",
                        _PL_FS, lambda: self._per_flow("inqueue", True, False), BETA)
        yield Collected("apiserver_flowcontrol_current_inqueue_seats",
                        "Number of seats currently pending in queues of the API Priority and Fairness subsystem",
                        _PL_FS, lambda: self._per_flow("inqueue_seats", True, True))
        yield Collected("apiserver_flowcontrol_nominal_limit_seats",
                        "Nominal number of execution seats configured for each priority level", ("priority_level",),
                        lambda: self._limits(lambda s: s.limits.nominal), BETA)
        yield Collected("apiserver_flowcontrol_lower_limit_seats",
                        "Configured lower bound on number of execution seats available to each priority level",
                        ("priority_level",), lambda: self._limits(lambda s: s.limits.nominal - s.limits.lendable))
        yield Collected("apiserver_flowcontrol_upper_limit_seats",
                        "Configured upper bound on number of execution seats available to each priority level",
                        ("priority_level",), lambda: self._limits(lambda s: s.limits.borrowing_limit))
        yield Collected("apiserver_flowcontrol_current_limit_seats",
                        "current derived number of execution seats available to each priority level",
                        ("priority_level",), lambda: self._limits(lambda s: s.queueset.current_cl))
        yield Collected("apiserver_current_inflight_requests",
                        "Maximal number of currently used inflight request limit of this apiserver per request kind "
                        "in last second.", ("request_kind",), lambda: self._by_kind(False), STABLE)
        yield Collected("apiserver_current_inqueue_requests",
                        "Maximal number of queued requests in this apiserver per request kind in last second.",
                        ("request_kind",), lambda: self._by_kind(True))
        yield from self.levels.families()


class WorkEstimatedSeats(HistogramVec):
    """`apiserver_flowcontrol_work_estimated_seats` (ALPHA; `priority-and-fairness.go` `estimateWork`: the most of
    a request's initial and final seats, observed for each request APF classifies, rejected ones and exempt
    levels' included: 1.33's `apf_controller.go` `startRequest` estimates before its exempt check). Derived when
    written: the requests of a level and flow schema (dispatched and rejected)
    are one-seat requests but for those noted by `wide` (a dict update only for a request of more seats). A
    request rejected at once (a full queue, a `Reject` level) is counted as one seat: its estimate does not reach
    the metrics."""

    def __init__(self, flowcontrol: FlowControlMetrics):
        super().__init__("apiserver_flowcontrol_work_estimated_seats",
                         "Number of estimated seats (maximum of initial and final seats) associated with requests in "
                         "API Priority and Fairness", _PL_FS, SEAT_BUCKETS)
        self.flowcontrol = flowcontrol
        self._wide: dict[tuple[str, str], dict[int, int]] = {}

    def wide(self, key: tuple[str, str], seats: int) -> None:
        counts = self._wide.setdefault(key, {})
        counts[seats] = counts.get(seats, 0) + 1

    def reset(self) -> None:
        super().reset()
        self._wide.clear()

    def render(self, out: list[str]) -> None:
        fc = self.flowcontrol
        totals = dict(fc.dispatched_total.values)
        for (pl, fs, _), n in fc.rejected_total.values.items():
            totals[(pl, fs)] = totals.get((pl, fs), 0) + n
        self.values = {}
        for key, n in totals.items():
            wide = self._wide.get(key, {})
            for seats, count in ((1, n - sum(wide.values())), *wide.items()):
                cells = self.cells(key)
                cells[bisect_left(self.bounds, seats)] += count
                cells[-2] += seats * count
                cells[-1] += count
        super().render(out)


__all__ = ["FlowControlMetrics", "SEAT_BUCKETS", "WAIT_BUCKETS", "WorkEstimatedSeats"]
