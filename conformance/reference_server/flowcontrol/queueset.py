"""One priority level's seats and queues (`fairqueuing/queueset/queueset.go`, `types.go` and
`shufflesharding/shufflesharding.go`, k8s.io/apiserver v0.33.1), on the event loop: no locks, a waiter is a future.

A request asks for its work estimate's seats (flowcontrol/workestimate.py: the most of its initial and final
seats), held while it runs and, when it has an additional latency, that long after it ends.

- Exempt levels: every request runs at once (counted, for the dumps).
- `limitResponse.type: Reject` (no queues): a request runs when its seats fit, else is rejected at once.
- `Queue`: the flow (FlowSchema name and distinguisher) is hashed as upstream (`hashFlowID`: SHA-256 of
  `name NUL distinguisher`, first 8 bytes little-endian) and dealt a hand of `handSize` of the `queues` queues
  (`Dealer.Deal`); the request joins the hand's queue with the least waiting work in seat-seconds, visited from a
  rotating offset (`shuffleShardLocked`); it is rejected when every seat is taken and that queue already holds
  `queueLengthLimit` requests (`rejectOrEnqueueToBoundLocked`). Freed seats go by fair queuing in seat-seconds
  (`findDispatchQueueToBoundLocked`): the non-empty queue whose head would finish first in virtual time
  (`nextDispatchR` + the head's work: initial seats × the estimated service time of 3 ms + final seats × the
  additional latency), visited round-robin; when that head's seats do not fit, nothing is dispatched until they
  do (a wide request is not overtaken), except that a request wider than the level runs alone. Virtual time (R)
  advances at `min(seats asked for, limit) / active queues` per second; a queue that wakes up starts at the
  current R, its R advances by each dispatched request's work and is corrected by the actual service time when
  the request ends, and never falls behind its head's arrival (`boundNextDispatchLocked`). A request still
  waiting at its deadline, or whose client went away, leaves its queue (counted as rejected and cancelled, as
  upstream's `time-out` rejection; upstream's dump never counts a timed-out one).

A level dispatches up to its current limit (`currentCL`), which flowcontrol/borrowing.py re-divides every 10 s by
the levels' seat demand, integrated here (seats in use + seats asked for by the waiting requests).

What upstream's metrics observe here (metrics/flowcontrol.py reads it): the demand integrator's time per (seats in
use, seats waiting) state, per `ConcurrencyDenominator` (the timing-ratio histograms); each request's execution
time, from its dispatch to its end (`apf_filter.go` `Handle`: `request_execution_seconds`, type `watch` for a
watch's seat), appended to the `executions` sink's per-label list; the virtual times of the last dispatch from a
queue (`SetDispatchMetrics`), the dispatches that found no room (`AddDispatchWithNoAccommodation`) and each queued
request's queue length (`ObserveQueueLength`), counted per flow schema.
"""
from __future__ import annotations

import asyncio
import hashlib
import time
from collections import deque
from typing import Any, Callable

from .borrowing import SeatDemand
from .limits import LevelLimits
from .workestimate import SS_SCALE, WorkEstimate, seats_times_duration
from ..memo import remember

ESTIMATED_SERVICE_DURATION_NS = 3_000_000  # `estimatedServiceDuration`: 3 ms
_WAITING, _EXECUTING, _DONE = 0, 1, 2
EXECUTING = _EXECUTING  # a request's `state` once it runs (`running`)


def flow_hash(flow_schema: str, distinguisher: str) -> int:
    """`hashFlowID`."""
    digest = hashlib.sha256(flow_schema.encode() + b"\0" + distinguisher.encode()).digest()
    return int.from_bytes(digest[:8], "little")


def deal(hash_value: int, deck_size: int, hand_size: int) -> list[int]:
    """`Dealer.Deal`: `hand_size` distinct queue indices out of `deck_size`, from the hash."""
    remainders = []
    for i in range(hand_size):
        nxt = hash_value // (deck_size - i)
        remainders.append(hash_value - (deck_size - i) * nxt)
        hash_value = nxt
    hand = []
    for i in range(hand_size):
        card = remainders[i]
        for j in range(i, 0, -1):
            if card >= remainders[j - 1]:
                card += 1
        hand.append(card)
    return hand


_SIZES: dict[WorkEstimate, tuple[int, int]] = {}


def sizes(work: WorkEstimate) -> tuple[int, int]:
    """(seats, total work): the most of initial and final seats, and `completeWorkEstimate`'s totalWork (initial
    seats × 3 ms + final seats × the additional latency, in seat-seconds); cached, estimates take few values."""
    found = _SIZES.get(work)
    if found is None:
        found = remember(_SIZES, work, (work.max_seats,
                                        seats_times_duration(work.initial, ESTIMATED_SERVICE_DURATION_NS)
                                        + seats_times_duration(work.final, work.latency_ns)), 4096)
    return found


def _round_div10(x: int) -> int:
    """x / 10 rounded half away from zero (`SeatsTimesDuration` of whole seats and nanoseconds)."""
    return (x + 5) // 10 if x >= 0 else -((5 - x) // 10)


class Request:
    """One request's place in a QueueSet (`request` in types.go)."""
    __slots__ = ("work", "seats", "total_work", "fs_name", "distinguisher", "details", "queue", "arrival_r",
                 "arrived", "started", "began", "fut", "state")

    def __init__(self, work: WorkEstimate, fs_name: str, distinguisher: str, details: Any):
        self.work = work
        self.seats, self.total_work = sizes(work)
        self.fs_name = fs_name
        self.distinguisher = distinguisher
        self.details = details  # for `dump_requests?includeRequestDetails=1` (see FlowControl.dump_requests)
        self.queue: _Queue | None = None
        self.arrival_r = 0
        self.arrived = time.time_ns()  # wall clock, ns
        self.started = 0  # wall clock, ns, once it runs
        self.began = 0.0  # time.monotonic() when it was dispatched
        self.fut: asyncio.Future | None = None
        self.state = _WAITING


class _Queue:
    __slots__ = ("index", "waiting", "executing", "seats_in_use", "next_r", "initial_sum", "max_sum", "work_sum")

    def __init__(self, index: int) -> None:
        self.index = index
        self.waiting: deque[Request] = deque()
        self.executing: dict[Request, None] = {}
        self.seats_in_use = 0
        self.next_r = 0       # nextDispatchR, seat-seconds × 1e8
        self.initial_sum = 0  # the waiting requests' QueueSum
        self.max_sum = 0
        self.work_sum = 0


class QueueSet:
    """The seats and queues of one priority level."""

    def __init__(self, limits: LevelLimits, current_cl: int | None = None):
        self.current_cl = limits.nominal if current_cl is None else current_cl  # currentCL: what it dispatches to
        self.demand = SeatDemand()  # seatDemandIntegrator
        self.in_use = 0          # seats taken (running requests, and lingering ones' final seats)
        self.executing = 0       # requests running
        self.waiting = 0         # requests in the queues
        self.seats_waiting = 0
        self.rejected = 0        # counters for the debug dump
        self.timed_out = 0       # upstream never counts one (`totRequestsTimedout`): a time-out is a cancel
        self.cancelled = 0
        self.dispatched = 0
        self._queues: list[_Queue] = []
        self._queueless: dict[Request, None] = {}  # running without a queue (exempt, Reject)
        self._r = 0              # currentR
        self._last = time.monotonic()
        self._active = 0         # queues with requests waiting or running
        self._queue_seats = 0    # seats in use by queued requests
        self._robin = -1
        self._enqueues = 0
        self._hands: dict[tuple[str, str], list[int]] = {}
        self.quiescing = False   # its PriorityLevelConfiguration is gone; it drains
        self.on_idle: Callable[[], None] | None = None  # called (soon) when a quiescing level goes idle
        self.denominator = max(1, self.current_cl)  # ConcurrencyDenominator: the utilization ratios' divisor
        self.capacity = 1  # the waiting requests' ratio's divisor: max(1, queueLengthLimit) × queues (when any)
        self.executions: Any = None  # a sink with `pending(labels) -> list` and `fold()` (metrics), or None
        self._served: dict[str, list[float]] = {}  # flow schema → the sink's list (regular requests)
        self._served_watch: dict[str, list[float]] = {}
        self.dispatch_r: tuple[int, int, int, int, int, int] | None = None  # R, S, S bounds, discounted S bounds
        self.no_accommodation: dict[str, int] = {}  # flow schema → dispatches that found no room
        self.enqueue_lengths: dict[tuple[str, int], int] = {}  # (flow schema, queue length) → queued requests
        self.reconfigure(limits)

    def reconfigure(self, limits: LevelLimits) -> None:
        """New limits: a changed queue count re-deals the waiting requests and lets the running ones finish
        outside the queues (upstream drains the old queues instead); then as many as now fit are dispatched."""
        self.limits = limits
        capacity = max(1, limits.queue_length_limit) * max(1, limits.queues)
        if capacity != self.capacity:  # `reqsGaugePair.RequestsWaiting.SetDenominator`
            self.demand.epoch((self.denominator, self.capacity))
            self.capacity = capacity
        if len(self._queues) != limits.queues:
            old = [r for q in self._queues for r in q.waiting]
            for q in self._queues:
                for r in q.executing:
                    r.queue = None
                    self._queueless[r] = None
            self._queues = [_Queue(i) for i in range(limits.queues)]
            self._hands = {}
            self._robin = -1
            self.waiting = self.seats_waiting = self._active = self._queue_seats = 0
            for r in old:
                if self._queues:
                    self._enqueue(r, self._queues[r.queue.index % len(self._queues)])  # type: ignore[union-attr]
                else:  # now Reject: out of the queue, refused
                    r.state = _DONE
                    if r.fut is not None and not r.fut.done():
                        r.fut.set_result(False)
        self._dispatch()

    # -- seats ---------------------------------------------------------------------------------------------

    def set_current_limit(self, current_cl: int, denominator: int | None = None) -> None:
        """A new currentCL (the re-division, a new configuration): as many as now fit are dispatched.
        `denominator`: the utilization ratios' (`ConcurrencyDenominator`; default the limit, at least 1)."""
        self.current_cl = current_cl
        denominator = denominator if denominator is not None else max(1, current_cl)
        if denominator != self.denominator:
            self.demand.epoch((self.denominator, self.capacity))
            self.denominator = denominator
        self._dispatch()

    def _fits(self, seats: int) -> bool:
        return self.limits.exempt or self.in_use + seats <= self.current_cl

    def seats_at_once(self, seats: int) -> bool:
        """Would `start` dispatch a request of `seats` seats now, without queuing it (nothing waits, it fits)?"""
        return not self.waiting and self._can_accommodate(seats)  # (a level without queues never has any waiting)

    def _can_accommodate(self, seats: int) -> bool:
        """`canAccommodateSeatsLocked`: a request wider than the level runs alone."""
        if self.limits.exempt:
            return True
        if seats > self.current_cl:
            return self.executing == 0
        return self.in_use + seats <= self.current_cl

    def _sync(self, now: float) -> None:
        """`syncTimeLocked`: R advances by `min(seats asked for, limit) / active queues` seat-seconds a second."""
        elapsed, self._last = now - self._last, now
        if self._active:
            ratio = min(self._queue_seats + self.seats_waiting, self.current_cl) / self._active
            self._r += int(ratio * elapsed * SS_SCALE + 0.5)

    # -- a request's life ---------------------------------------------------------------------------------

    def start(self, work: WorkEstimate, fs_name: str = "", distinguisher: str = "",
              details: Any = None) -> Request | None:
        """`StartRequest`: the request, running (`running(req)`) or queued (then `await wait(req, timeout)`),
        or None when rejected."""
        req = Request(work, fs_name, distinguisher, details)
        now = time.monotonic()
        if not self._queues:
            if self.limits.exempt or self._can_accommodate(req.seats):
                req.started = req.arrived
                self._begin(req, None, now)
                return req
            self.rejected += 1
            return None
        self._sync(now)
        queue = self._shuffle_shard(fs_name, distinguisher)
        req.arrival_r = self._r
        if not self.waiting and self._can_accommodate(req.seats):  # the only candidate: dispatched at once
            if not queue.waiting and not queue.executing:
                self._active += 1
                queue.next_r = self._r
            self._robin = queue.index
            req.started = req.arrived
            self._begin(req, queue, now)
            return req
        if not self._fits(1) and len(queue.waiting) >= self.limits.queue_length_limit:
            self.rejected += 1
            return None
        req.fut = asyncio.get_running_loop().create_future()
        self._enqueue(req, queue)
        lengths, key = self.enqueue_lengths, (fs_name, len(queue.waiting))
        lengths[key] = lengths.get(key, 0) + 1
        self._bound(queue)
        self._dispatch()
        return req

    @staticmethod
    def running(req: Request) -> bool:
        return req.state == _EXECUTING

    async def wait(self, req: Request, timeout: float) -> bool:
        """Wait for a queued request's dispatch for at most `timeout` seconds: True when it runs (then `finish`
        it), False when it timed out or its level stopped queuing."""
        if req.state == _EXECUTING:
            return True
        fut = req.fut
        assert fut is not None
        try:
            async with asyncio.timeout(timeout):
                return bool(await fut)
        except TimeoutError:
            if req.state == _EXECUTING:
                return True
            self._eject(req)
            return False
        except asyncio.CancelledError:
            if req.state == _EXECUTING:
                self.finish(req)
            elif req.state == _WAITING:
                self._eject(req)
            raise

    def _eject(self, req: Request) -> None:
        """`request.wait`'s `decisionCancel`: the wait's deadline passed or the client went away; either way the
        request leaves its queue, rejected and cancelled (upstream's `time-out` rejection)."""
        self._withdraw(req)
        self.rejected += 1
        self.cancelled += 1
        self._note_idle()

    def finish(self, req: Request, watch: bool = False) -> None:
        """`finishRequestLocked`: the request ended (`watch`: a watch is set up); its seats are free now, or
        after its additional latency."""
        if req.state != _EXECUTING:
            return
        req.state = _DONE
        self.executing -= 1
        now = time.monotonic()
        served = now - req.began
        sink = self.executions
        if sink is not None:  # request_execution_seconds
            pending = (self._served_watch if watch else self._served).get(req.fs_name)
            if pending is None:
                pending = self._pending(req.fs_name, watch)
            pending.append(served)
            if len(pending) >= 4096:
                sink.fold()
        queue = req.queue
        if queue is not None:
            self._sync(now)
            del queue.executing[req]
            # `nextDispatchR -= initial seats × (G - service time)`
            queue.next_r -= _round_div10(req.work.initial * (ESTIMATED_SERVICE_DURATION_NS - int(served * 1e9)))
            if queue.waiting:
                self._bound(queue)
            elif not queue.executing:
                self._active -= 1
        else:
            self._queueless.pop(req, None)
        if req.work.latency_ns > 0:
            self.demand.note(self.in_use, self.seats_waiting, now, self.executing | self.waiting << 32)
            asyncio.get_running_loop().call_later(req.work.latency_ns / 1e9, self._release, req)
            self._dispatch()
        else:
            self._release(req, now)
        if self.on_idle is not None:
            self._note_idle()

    def _pending(self, fs_name: str, watch: bool) -> list[float]:
        """The execution-time sink's list for this level, `fs_name` and request type, kept at hand."""
        served = self._served_watch if watch else self._served
        found = served[fs_name] = self.executions.pending((self.limits.name, fs_name, "watch" if watch else "regular"))
        return found

    def _note_idle(self) -> None:
        if self.on_idle is not None and self.idle:
            asyncio.get_running_loop().call_soon(self.on_idle)

    def _release(self, req: Request, now: float | None = None) -> None:
        if now is None:
            now = time.monotonic()
        seats = req.seats
        queue = req.queue
        if queue is not None:
            if now != self._last:  # `finish` synced at this very reading
                self._sync(now)
            queue.seats_in_use -= seats
            self._queue_seats -= seats
        self.in_use -= seats
        self.demand.note(self.in_use, self.seats_waiting, now, self.executing | self.waiting << 32)
        if self.waiting:
            self._dispatch()

    def _begin(self, req: Request, queue: _Queue | None, now: float) -> None:
        req.state = _EXECUTING
        req.began = now
        self.executing += 1
        self.dispatched += 1
        seats = req.seats
        self.in_use += seats
        self.demand.note(self.in_use, self.seats_waiting, now, self.executing | self.waiting << 32)
        req.queue = queue
        if queue is None:
            self._queueless[req] = None
            return
        queue.executing[req] = None
        queue.seats_in_use += seats
        self._queue_seats += seats
        queue.next_r += req.total_work

    def _shuffle_shard(self, fs_name: str, distinguisher: str) -> _Queue:
        """`shuffleShardLocked`: the hand's queue with the least waiting work, from a rotating offset."""
        key = (fs_name, distinguisher)
        hand = self._hands.get(key)
        if hand is None:
            hand = remember(self._hands, key, deal(flow_hash(fs_name, distinguisher), len(self._queues),
                                                   self.limits.hand_size), 4096)
        n = len(hand)
        offset = self._enqueues % n
        self._enqueues += 1
        queues = self._queues
        best = queues[hand[offset]]
        if not self.waiting:  # no work waits anywhere: the first visited wins
            return best
        for k in range(1, n):
            q = queues[hand[(offset + k) % n]]
            if q.work_sum < best.work_sum:
                best = q
        return best

    def _enqueue(self, req: Request, queue: _Queue) -> None:
        """`enqueueToBoundLocked`."""
        if not queue.waiting and not queue.executing:
            self._active += 1
            queue.next_r = self._r
        req.queue = queue
        req.state = _WAITING
        queue.waiting.append(req)
        queue.initial_sum += req.work.initial
        queue.max_sum += req.seats
        queue.work_sum += req.total_work
        self.waiting += 1
        self.seats_waiting += req.seats
        self.demand.note(self.in_use, self.seats_waiting, None, self.executing | self.waiting << 32)

    def _dequeue(self, req: Request, queue: _Queue) -> None:
        queue.initial_sum -= req.work.initial
        queue.max_sum -= req.seats
        queue.work_sum -= req.total_work
        self.waiting -= 1
        self.seats_waiting -= req.seats
        self.demand.note(self.in_use, self.seats_waiting, None, self.executing | self.waiting << 32)

    def _withdraw(self, req: Request) -> None:
        """A waiting request leaves its queue (its deadline passed or its client went away)."""
        queue = req.queue
        req.state = _DONE
        if queue is None:
            return
        self._sync(time.monotonic())
        try:
            queue.waiting.remove(req)
        except ValueError:
            return
        self._dequeue(req, queue)
        if not queue.waiting and not queue.executing:
            self._active -= 1
        self._bound(queue)
        self._dispatch()

    def _bound(self, queue: _Queue) -> None:
        """`boundNextDispatchLocked`: a queue's R never falls behind its head's arrival."""
        if queue.waiting and queue.next_r < queue.waiting[0].arrival_r:
            queue.next_r = queue.waiting[0].arrival_r

    def _dispatch(self) -> None:
        """`dispatchAsMuchAsPossibleLocked`."""
        if not self.waiting:
            return
        now = time.monotonic()
        self._sync(now)
        while self.waiting:
            found = self._find()
            if found is None:
                return
            queue = found
            req = queue.waiting.popleft()
            self._dequeue(req, queue)
            req.started = time.time_ns()
            self._begin(req, queue, now)
            self._bound(queue)
            if req.fut is not None and not req.fut.done():
                req.fut.set_result(True)

    def _find(self) -> _Queue | None:
        """`findDispatchQueueToBoundLocked`: the queue whose head finishes first in virtual time, if it fits."""
        queues = self._queues
        n = len(queues)
        best: _Queue | None = None
        best_finish = 0
        robin = self._robin
        for _ in range(n):
            robin = (robin + 1) % n
            q = queues[robin]
            if q.waiting:
                finish = q.next_r + q.waiting[0].total_work
                if best is None or finish < best_finish:
                    best, best_finish = q, finish
        if best is None:
            return None
        if not self._can_accommodate(best.waiting[0].seats):
            fs = best.waiting[0].fs_name
            self.no_accommodation[fs] = self.no_accommodation.get(fs, 0) + 1
            return None
        self._robin = best.index
        self._note_dispatch(best)
        return best

    def _note_dispatch(self, chosen: _Queue) -> None:
        """`SetDispatchMetrics`: R, the chosen queue's S, and the min and max over the waiting queues of S and of S
        less the work in progress (seats in use × 3 ms)."""
        s = [q.next_r for q in self._queues if q.waiting]
        ds = [q.next_r - seats_times_duration(q.seats_in_use, ESTIMATED_SERVICE_DURATION_NS)
              for q in self._queues if q.waiting]
        self.dispatch_r = (self._r, chosen.next_r, min(s), max(s), min(ds), max(ds))

    # -- the dumps ----------------------------------------------------------------------------------------

    @property
    def current_r(self) -> int:
        """R at the last time sync (seat-seconds × 1e8), the `current_r` gauge."""
        return self._r

    @property
    def active_queues(self) -> int:
        return sum(1 for q in self._queues if q.waiting)

    @property
    def idle(self) -> bool:
        return not self.waiting and not self.executing

    def queue_rows(self) -> list[tuple[int, int, int, int, int, int, int, int]]:
        """Per queue: index, waiting, running, seats in use, nextDispatchR, and the waiting requests' initial
        seats, most seats and work."""
        return [(q.index, len(q.waiting), len(q.executing), q.seats_in_use, q.next_r, q.initial_sum, q.max_sum,
                 q.work_sum) for q in self._queues]

    def request_rows(self) -> list[tuple[int, int, Request]]:
        """(queue index, index in queue, request): each queue's waiting ones, then its running ones (-1), then
        those running without a queue (-1, -1), as `dumpRequests` lists them."""
        rows: list[tuple[int, int, Request]] = []
        for q in self._queues:
            rows += [(q.index, i, r) for i, r in enumerate(q.waiting)]
            rows += [(q.index, -1, r) for r in q.executing]
        rows += [(-1, -1, r) for r in self._queueless]
        return rows


__all__ = ["ESTIMATED_SERVICE_DURATION_NS", "EXECUTING", "QueueSet", "Request", "deal", "flow_hash"]
