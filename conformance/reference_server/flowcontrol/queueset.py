"""One limited priority level's seats and queues (`fairqueuing/queueset/queueset.go` and
`shufflesharding/shufflesharding.go`, k8s.io/apiserver v0.33), on the event loop: no locks, a waiter is a future.

- A free seat and nobody waiting: the request runs at once (`try_take`, the fast path: two integer operations).
- `limitResponse.type: Reject` (no queues): no free seat is a rejection at once.
- `Queue`: the flow (FlowSchema name and distinguisher) is hashed as upstream (`hashFlowID`: SHA-256 of
  `name NUL distinguisher`, first 8 bytes little-endian) and dealt a hand of `handSize` of the `queues` queues
  (`Dealer.Deal`); the request joins the hand's shortest queue, visited from a rotating offset (upstream weighs the
  waiting requests' seat-seconds: the same order while every request costs the same); it is rejected when every
  seat is taken and that queue already holds `queueLengthLimit` requests (`rejectOrEnqueueToBoundLocked`). A freed seat goes to the
  head of the non-empty queue with the smallest virtual dispatch time (`findDispatchQueueToBoundLocked`: fair
  queuing; each dispatch advances its queue's virtual time by the request's one seat; a queue that wakes up starts
  at the current virtual time, round-robin between equals). A request still waiting at its deadline leaves its
  queue and is rejected (`time-out`); one whose client went away leaves it silently.

Every request takes one seat (upstream's work estimator gives a list up to 10 seats by the objects it may return,
and a write extra seats while its watch events fan out): see README Known gaps.
"""
from __future__ import annotations

import asyncio
import hashlib
from collections import deque
from typing import Callable

from .limits import LevelLimits

UNLIMITED = 1 << 62


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


class _Queue:
    __slots__ = ("waiting", "executing", "next_r")

    def __init__(self) -> None:
        self.waiting: deque[asyncio.Future] = deque()
        self.executing = 0
        self.next_r = 0


class SeatPool:
    """The lendable seats of every level, shared (see `QueueSet`): `used` is the sum over the levels of the seats
    each holds beyond its `min_cl`."""

    def __init__(self) -> None:
        self.capacity = 0
        self.used = 0
        self.levels: list["QueueSet"] = []

    def dispatch(self) -> None:
        """A pooled seat came back: the levels with requests waiting take what they can."""
        for qs in self.levels:
            if self.used >= self.capacity:
                return
            if qs.waiting:
                qs._dispatch()


class QueueSet:
    """The seats and queues of one limited priority level.

    Seats: `min_cl` (nominal minus lendable) are the level's own; beyond them, up to `max_cl`, it takes seats from
    the pool of every level's lendable seats while the pool has one free. (Upstream re-divides the lendable seats
    every 10 s by each level's smoothed demand, `computeConcurrencyAllocation`; here the borrowing is immediate and
    a level's lent seats come back only as its borrowers finish, as upstream's between two re-divisions.)
    """

    def __init__(self, limits: LevelLimits, pool: SeatPool | None = None):
        self.pool = pool
        self.in_use = 0          # seats taken (requests executing)
        self.waiting = 0         # requests in the queues
        self.rejected = 0        # counters for the debug dump
        self.timed_out = 0
        self.cancelled = 0
        self.dispatched = 0
        self._queues: list[_Queue] = []
        self._virtual_r = 0
        self._robin = 0
        self._enqueues = 0
        self.reconfigure(limits)

    def reconfigure(self, limits: LevelLimits) -> None:
        """New limits: a changed queue count re-deals the waiting requests (upstream drains the old queues
        instead); then as many as now fit are dispatched."""
        self.limits = limits
        self.limit = limits.nominal  # shown as the level's own; `min_cl`/`max_cl` decide
        self.min_cl = limits.nominal - limits.lendable if self.pool is not None else limits.nominal
        self.max_cl = limits.borrowing_limit if self.pool is not None else limits.nominal
        if limits.exempt:  # never waits
            self.min_cl = self.max_cl = UNLIMITED
        if len(self._queues) != limits.queues:
            old = [f for q in self._queues for f in q.waiting]
            self._queues = [_Queue() for _ in range(limits.queues)]
            self.waiting = 0
            for fut in old:
                if not fut.done():
                    if self._queues:
                        self._enqueue(self._queues[getattr(fut, "_nsc_queue_hint", 0) % len(self._queues)], fut)
                    else:
                        fut.set_result(False)  # now Reject: out of the queue, refused
        self._dispatch()

    def try_take(self) -> bool:
        """The fast path: a seat when one is free and nobody waits for it."""
        if self.waiting:
            return False
        if self.in_use < self.min_cl:
            self.in_use += 1
            self.dispatched += 1
            return True
        if self._can_borrow():
            self._take()
            return True
        return False

    def _can_borrow(self) -> bool:
        pool = self.pool
        return pool is not None and self.in_use < self.max_cl and pool.used < pool.capacity

    def _can_take(self) -> bool:
        return self.in_use < self.min_cl or self._can_borrow()

    def _take(self) -> None:
        if self.in_use >= self.min_cl:
            self.pool.used += 1  # type: ignore[union-attr]
        self.in_use += 1
        self.dispatched += 1

    async def wait(self, hash_value: int, timeout: float) -> Callable[[], None] | None:
        """A seat within `timeout` seconds (its release function), or None: rejected or timed out."""
        if self.try_take():
            return self.release
        if not self._queues:  # Reject
            self.rejected += 1
            return None
        hand = deal(hash_value, len(self._queues), self.limits.hand_size)
        n = len(hand)
        offset = self._enqueues % n  # `shuffleShardLocked`: visited from a rotating offset, the first shortest wins
        self._enqueues += 1
        best, best_len = hand[offset], None
        for k in range(n):
            i = hand[(offset + k) % n]
            length = len(self._queues[i].waiting)
            if best_len is None or length < best_len:
                best, best_len = i, length
        queue = self._queues[best]
        if not self._can_take() and len(queue.waiting) >= self.limits.queue_length_limit:
            self.rejected += 1
            return None
        fut: asyncio.Future = asyncio.get_running_loop().create_future()
        fut._nsc_queue_hint = best  # type: ignore[attr-defined]
        self._enqueue(queue, fut)
        self._dispatch()
        try:
            async with asyncio.timeout(timeout):
                granted = await fut
        except TimeoutError:
            granted = self._withdraw(fut)
            if not granted:
                self.timed_out += 1
                return None
        except asyncio.CancelledError:
            if self._withdraw(fut):
                self._release_queue(fut)
            else:
                self.cancelled += 1
            raise
        if not granted:
            return None
        return lambda: self._release_queue(fut)

    @property
    def active_queues(self) -> int:
        return sum(1 for q in self._queues if q.waiting)

    def _enqueue(self, queue: _Queue, fut: asyncio.Future) -> None:
        if not queue.waiting and not queue.executing:
            queue.next_r = max(queue.next_r, self._virtual_r)
        fut._nsc_queue = queue  # type: ignore[attr-defined]
        queue.waiting.append(fut)
        self.waiting += 1

    def _withdraw(self, fut: asyncio.Future) -> bool:
        """Take a waiter out of its queue; True when it had been granted its seat meanwhile."""
        if fut.done() and not fut.cancelled():
            return bool(fut.result())
        queue: _Queue = fut._nsc_queue  # type: ignore[attr-defined]
        try:
            queue.waiting.remove(fut)
            self.waiting -= 1
        except ValueError:
            pass
        return False

    def release(self) -> None:
        """A seat taken by `try_take` is free again."""
        self.in_use -= 1
        if self.in_use >= self.min_cl and self.pool is not None:  # a borrowed seat: back to the pool
            self.pool.used -= 1
            if self.waiting:
                self._dispatch()
            self.pool.dispatch()
        elif self.waiting:
            self._dispatch()

    def _release_queue(self, fut: asyncio.Future) -> None:
        fut._nsc_queue.executing -= 1  # type: ignore[attr-defined]
        self.release()

    def _dispatch(self) -> None:
        """`dispatchAsMuchAsPossibleLocked`."""
        queues = self._queues
        n = len(queues)
        while self.waiting and self._can_take():
            best = None
            for k in range(n):
                q = queues[(self._robin + k) % n]
                if q.waiting and (best is None or q.next_r < best.next_r):
                    best = q
            if best is None:
                self.waiting = 0
                return
            self._robin = (queues.index(best) + 1) % n
            fut = best.waiting.popleft()
            self.waiting -= 1
            if fut.done():  # its waiter left (cancelled) between two loop turns
                continue
            self._virtual_r = best.next_r
            best.next_r += 1
            best.executing += 1
            self._take()
            fut.set_result(True)


__all__ = ["QueueSet", "SeatPool", "deal", "flow_hash"]
