"""API Priority and Fairness' per-level families that upstream's queue sets and config controller record
(`k8s.io/apiserver/pkg/util/flowcontrol/metrics/metrics.go`, `timing_ratio_histogram.go`, `fairqueuing/queueset/
queueset.go`, `apf_controller.go` `updateBorrowingLocked`, `apf_filter.go` `Handle`, v0.33.1; component-base's
`prometheusextension/timing_histogram.go` and `weighted_histogram.go`), read from flowcontrol/ at scrape time:

- `request_execution_seconds` {priority_level, flow_schema, type}: a request's time from its dispatch to its end
  (a watch's until it is set up, type `watch`, else `regular`); the queue sets append it to this histogram's
  per-label lists (`LazyHistogramVec`), bucketed here.
- the timing-ratio histograms `priority_level_seat_utilization` {phase="executing", priority_level} (seats in use
  / `ConcurrencyDenominator`), `demand_seats` {priority_level} (seats in use + seats waiting / the same
  denominator: upstream's HELP says "nominal", its code divides by the denominator) and
  `priority_level_request_utilization` {phase, priority_level} (`reqsGaugePair`: requests executing / the same
  denominator, requests waiting / max(1, queueLengthLimit) × the queues, as `queueset.go` `setConfiguration`):
  weighted histograms whose counts are nanoseconds spent at each ratio and whose sum is the ratio × nanoseconds,
  since the level was created; folded from the demand integrator's time per state (flowcontrol/borrowing.py
  `SeatDemand.take`).
- the timing-ratio histogram `read_vs_write_current_requests` {phase, request_kind}: the requests the filter has
  waiting in a queue and executing (a watch until it is set up), read-only (`get`, `list`, `watch`) or mutating,
  over a denominator of 1 (`apf_filter.go`'s watermarks: the max-in-flight filter alone sets a limit), from the
  server's start (flowcontrol/readwrite.py).
- the borrowing statistics of the last re-division: `demand_seats_high_watermark`, `_average`, `_stdev`,
  `_smoothed`, `target_seats`, `seat_fair_frac`.
- the virtual-time gauges: `current_r` (R at the level's last time sync, seat-seconds), and, once a request was
  dispatched from a queue, `dispatch_r`, `latest_s`, `next_s_bounds` and `next_discounted_s_bounds` {bound}.
- `request_dispatch_no_accommodation_total` and `request_queue_length_after_enqueue`, counted by the queue sets.
- `watch_count_samples` {priority_level, flow_schema}: the watches a write may notify, observed by the work
  estimator (`mutating_work_estimator.go`: every write but a `serviceaccounts/token` create, exempt levels'
  included, as 1.33's `startRequest` estimates before its exempt check).

Not served: `epoch_advance_total` (R never reaches upstream's epoch bound here: a family without samples, which
expfmt does not write either).
"""
from __future__ import annotations

from bisect import bisect_left
from typing import Any, Iterable

from ..flowcontrol.workestimate import SS_SCALE
from .registry import Collected, CounterVec, Family, HistogramVec, LazyHistogramVec, Sample

EXECUTION_BUCKETS = (0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30)  # requestDurationSecondsBuckets
QUEUE_LENGTH_BUCKETS = (0, 10, 25, 50, 100, 250, 500, 1000)  # queueLengthBuckets
WATCH_COUNT_BUCKETS = (0, 1, 10, 100, 1000, 10000)
SEAT_UTILIZATION_BUCKETS = (0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1)
DEMAND_BUCKETS = (0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4, 1.7, 2, 2.8, 4, 6)
REQUEST_UTILIZATION_BUCKETS = (0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.25, 0.5, 0.75, 1)
READ_WRITE_BUCKETS = (0, 0.001, 0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1)
_PL = ("priority_level",)
_PL_FS = ("priority_level", "flow_schema")
_LOW32 = 0xFFFFFFFF


class _Folded:
    """Families filled from the queue sets when written (`fold`), and on `Reset()` folded then emptied."""
    folded: tuple[Family, ...] = ()

    def __init__(self, flow_control: Any):
        self.flow_control = flow_control

    def _install(self, *families: Family) -> None:
        self.folded = families
        for family in families:
            family.render = self._rendering(family.render)  # type: ignore[method-assign]
            family.reset = self._reset  # type: ignore[method-assign]

    def fold(self) -> None:
        raise NotImplementedError

    def _rendering(self, render: Any) -> Any:
        def run(out: list[str]) -> None:
            self.fold()
            render(out)
        return run

    def _reset(self) -> None:
        """`Reset()`: the families start again from now."""
        self.fold()
        for family in self.folded:
            family.values.clear()  # type: ignore[attr-defined]

    def families(self) -> tuple[Family, ...]:
        return self.folded


def _spend(cells: list[float], bounds: tuple[float, ...], ratio: float, ns: int) -> None:
    """`ns` nanoseconds at `ratio` into a timing-ratio histogram's cells."""
    cells[bisect_left(bounds, ratio)] += ns
    cells[-2] += ratio * ns
    cells[-1] += ns


class LevelTimes(_Folded):
    """The three per-level timing-ratio histograms, fed together from each level's demand integrator."""

    def __init__(self, flow_control: Any):
        super().__init__(flow_control)
        self.seats = HistogramVec(
            "apiserver_flowcontrol_priority_level_seat_utilization",
            "Observations, at the end of every nanosecond, of utilization of seats for any stage of execution (but "
            "only initial stage for WATCHes)", ("phase", "priority_level"), SEAT_UTILIZATION_BUCKETS)
        self.demand = HistogramVec(
            "apiserver_flowcontrol_demand_seats",
            "Observations, at the end of every nanosecond, of (the number of seats each priority level could use) / "
            "(nominal number of seats for that level)", _PL, DEMAND_BUCKETS)
        self.requests = HistogramVec(
            "apiserver_flowcontrol_priority_level_request_utilization",
            "Observations, at the end of every nanosecond, of number of requests (as a fraction of the relevant "
            "limit) waiting or in any stage of execution (but only initial stage for WATCHes)",
            ("phase", "priority_level"), REQUEST_UTILIZATION_BUCKETS)
        self._install(self.seats, self.demand, self.requests)

    def fold(self) -> None:
        """Each level's time per (seats, requests) state since the last fold, into the three histograms."""
        seat_bounds, demand_bounds, request_bounds = self.seats.bounds, self.demand.bounds, self.requests.bounds
        for name, qs in self.flow_control.queuesets.items():
            seats = self.seats.cells(("executing", name))
            demand = self.demand.cells((name,))
            executing = self.requests.cells(("executing", name))
            waiting = self.requests.cells(("waiting", name))
            for (denominator, capacity), times in qs.demand.take((qs.denominator, qs.capacity)):
                for state, seconds in times.items():
                    ns = round(seconds * 1e9)
                    if ns <= 0:
                        continue
                    in_use = state & _LOW32
                    _spend(seats, seat_bounds, in_use / denominator, ns)
                    _spend(demand, demand_bounds, (in_use + ((state >> 32) & _LOW32)) / denominator, ns)
                    _spend(executing, request_bounds, ((state >> 64) & _LOW32) / denominator, ns)
                    _spend(waiting, request_bounds, (state >> 96) / capacity, ns)


class ReadWriteTimes(_Folded):
    """`read_vs_write_current_requests`, from the filter's counts (flowcontrol/readwrite.py)."""

    def __init__(self, flow_control: Any):
        super().__init__(flow_control)
        self.requests = HistogramVec(
            "apiserver_flowcontrol_read_vs_write_current_requests",
            "Observations, at the end of every nanosecond, of the number of requests (as a fraction of the relevant "
            "limit) waiting or in regular stage of execution", ("phase", "request_kind"), READ_WRITE_BUCKETS)
        self._install(self.requests)

    def fold(self) -> None:
        counts = getattr(self.flow_control, "read_write", None)  # None: a FlowControl without the filter's counts
        if counts is None:
            return
        bounds = self.requests.bounds
        for labels, times in counts.take():
            cells = self.requests.cells(labels)
            for count, seconds in times.items():
                ns = round(seconds * 1e9)
                if ns > 0:
                    _spend(cells, bounds, float(count), ns)


class ExecutionSeconds(LazyHistogramVec):
    """`request_execution_seconds`: the queue sets append to `pending(labels)` (flowcontrol/queueset.py
    `finish`); `fold()` when a list is long."""

    def __init__(self) -> None:
        super().__init__("apiserver_flowcontrol_request_execution_seconds",
                         "Duration of initial stage (for a WATCH) or any (for a non-WATCH) stage of request execution "
                         "in the API Priority and Fairness subsystem", ("priority_level", "flow_schema", "type"),
                         EXECUTION_BUCKETS)


class QueueCounts(_Folded):
    """The queue sets' own counts, gathered per level at scrape time: dispatches that found no room (a counter)
    and queue lengths after enqueue (a histogram); level names are kept once seen."""

    def __init__(self, flow_control: Any):
        super().__init__(flow_control)
        self.no_accommodation = CounterVec(
            "apiserver_flowcontrol_request_dispatch_no_accommodation_total",
            "Number of times a dispatch attempt resulted in a non accommodation due to lack of available seats",
            _PL_FS)
        self.queue_length = HistogramVec(
            "apiserver_flowcontrol_request_queue_length_after_enqueue",
            "Length of queue in the API Priority and Fairness subsystem, as seen by each request after it is "
            "enqueued", _PL_FS, QUEUE_LENGTH_BUCKETS)
        self._install(self.no_accommodation, self.queue_length)

    def fold(self) -> None:
        counter = self.no_accommodation.values
        for name, qs in self.flow_control.queuesets.items():
            found, qs.no_accommodation = qs.no_accommodation, {}
            for fs, n in found.items():
                counter[(name, fs)] = counter.get((name, fs), 0) + n
            lengths, qs.enqueue_lengths = qs.enqueue_lengths, {}
            for (fs, length), n in lengths.items():
                cells = self.queue_length.cells((name, fs))
                cells[bisect_left(self.queue_length.bounds, length)] += n
                cells[-2] += length * n
                cells[-1] += n


class LevelGauges:
    """The gauges read from each level's state; a level's series stay, with their last values, once seen (Go
    gauges are not deleted when a level goes)."""

    def __init__(self, flow_control: Any):
        self.flow_control = flow_control
        self._last: dict[str, dict[tuple[str, ...], float]] = {}

    def _kept(self, name: str, samples: Iterable[Sample]) -> list[Sample]:
        last = self._last.setdefault(name, {})
        last.update(samples)
        return list(last.items())

    def _stats(self, pick: Any) -> list[Sample]:
        return [((name,), float(pick(state.stats))) for name, state in self.flow_control.levels.items()]

    def _dispatch(self, index: int, bound: str = "") -> list[Sample]:
        out: list[Sample] = []
        for name, qs in self.flow_control.queuesets.items():
            if qs.dispatch_r is not None:
                out.append(((name, bound) if bound else (name,), qs.dispatch_r[index] / SS_SCALE))
        return out

    def families(self) -> tuple[Family, ...]:
        fc = self.flow_control

        def gauge(name: str, help_text: str, collect: Any, labels: tuple[str, ...] = _PL) -> Collected:
            full = "apiserver_flowcontrol_" + name
            return Collected(full, help_text, labels, lambda: self._kept(full, collect()))

        return (
            gauge("demand_seats_high_watermark", "High watermark, over last adjustment period, of demand_seats",
                  lambda: self._stats(lambda s: s.high_watermark)),
            gauge("demand_seats_average", "Time-weighted average, over last adjustment period, of demand_seats",
                  lambda: self._stats(lambda s: s.avg)),
            gauge("demand_seats_stdev", "Time-weighted standard deviation, over last adjustment period, of "
                  "demand_seats", lambda: self._stats(lambda s: s.std_dev)),
            gauge("demand_seats_smoothed", "Smoothed seat demands", lambda: self._stats(lambda s: s.smoothed)),
            gauge("target_seats", "Seat allocation targets",
                  lambda: [((name,), float(fc.notes[name])) for name in fc.levels if name in fc.notes]),
            Collected("apiserver_flowcontrol_seat_fair_frac", "Fair fraction of server's concurrency to allocate to "
                      "each priority level that can use it", (), lambda: [((), float(fc.notes.get("", 0.0)))]),
            gauge("current_r", "R(time of last change)",
                  lambda: [((name,), qs.current_r / SS_SCALE) for name, qs in fc.queuesets.items()]),
            gauge("dispatch_r", "R(time of last dispatch)", lambda: self._dispatch(0)),
            gauge("latest_s", "S(most recently dispatched request)", lambda: self._dispatch(1)),
            gauge("next_s_bounds", "min and max, over queues, of S(oldest waiting request in queue)",
                  lambda: self._dispatch(2, "min") + self._dispatch(3, "max"), _PL + ("bound",)),
            gauge("next_discounted_s_bounds", "min and max, over queues, of S(oldest waiting request in queue) - "
                  "estimated work in progress", lambda: self._dispatch(4, "min") + self._dispatch(5, "max"),
                  _PL + ("bound",)),
        )


class LevelMetrics:
    """The families above for one server's `FlowControl`; installs the execution-time sink in its queue sets and
    the watch-count histogram the work estimator observes into."""

    def __init__(self, flow_control: Any):
        self.executions = ExecutionSeconds()
        flow_control.executions = self.executions
        self.watch_counts = HistogramVec(
            "apiserver_flowcontrol_watch_count_samples", "count of watchers for mutating requests in API Priority "
            "and Fairness", _PL_FS, WATCH_COUNT_BUCKETS)
        flow_control.watch_counts = self.watch_counts
        for qs in flow_control.queuesets.values():
            qs.executions = self.executions
        self.times = LevelTimes(flow_control)
        self.read_write = ReadWriteTimes(flow_control)
        self.counts = QueueCounts(flow_control)
        self.gauges = LevelGauges(flow_control)

    def families(self) -> tuple[Family, ...]:
        return (self.executions, self.watch_counts, *self.times.families(), *self.read_write.families(),
                *self.counts.families(),
                *self.gauges.families())


__all__ = ["DEMAND_BUCKETS", "EXECUTION_BUCKETS", "LevelMetrics", "QUEUE_LENGTH_BUCKETS", "READ_WRITE_BUCKETS",
           "REQUEST_UTILIZATION_BUCKETS", "SEAT_UTILIZATION_BUCKETS"]
