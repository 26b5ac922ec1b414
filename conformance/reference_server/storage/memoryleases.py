"""The memory store's etcd leases: what etcd's lessor does for kube-apiserver's TTL'd objects (Events), so the memory
store expires them at the moment etcd would (`go.etcd.io/etcd/server/v3/lease/lessor.go`: `Grant` raises a ttl
under the minimum to it, a put attaches its key to its lease and detaches it from the previous one, a delete detaches
it, and an expired lease is revoked: every key still attached deleted in one transaction, one revision).

etcd's `runLoop` looks for expired leases once per 500 ms tick, so a lease is revoked at the first tick at or after
its deadline (up to half a second late); the timer here fires on the same grid, counted from the lessor's start.

Expiry runs on the event loop (one `call_at` timer for the earliest lease, a heap of the others), never blocking it:
the store's `revoke` takes its lock only to take the lease's keys (`take`) and delete them. A lease granted before any loop is known is armed once
one is (`bind`)."""
from __future__ import annotations

import asyncio
import heapq
import itertools
import math
import threading
import time
from typing import Callable

from .leases import MIN_LEASE_TTL

Key = tuple[str, str, str]  # (resource, namespace, name)
LESSOR_TICK = 0.5  # lessor.go `runLoop`: `time.NewTicker(500 * time.Millisecond)` between revocation rounds


def next_tick(deadline: float, start: float, tick: float = LESSOR_TICK) -> float:
    """The first tick of the lessor's loop (every `tick` s from `start`) at or after `deadline`."""
    return start + max(0, math.ceil((deadline - start) / tick)) * tick


class MemoryLeases:
    """Leases by id: their deadline (`time.monotonic`) and attached keys; `revoke(lease_id)` is the store's deletion
    of an expired lease's keys (`take`)."""

    def __init__(self, revoke: Callable[[int], None]):
        self._revoke = revoke
        self._ids = itertools.count(0x694d9b1a8c2f0001)  # etcd's ids are large int64s; any unique one will do
        self._deadline: dict[int, float] = {}
        self._keys: dict[int, set[Key]] = {}
        self._lease_of: dict[Key, int] = {}
        self._heap: list[tuple[float, int]] = []
        self._lock = threading.RLock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._started = time.monotonic()  # the lessor's loop starts with the store

    def grant(self, ttl: int) -> int:
        """etcd's LeaseGrant: a new lease of `ttl` seconds (at least the lessor's minimum), its id."""
        ttl = max(ttl, MIN_LEASE_TTL)
        with self._lock:
            lease_id = next(self._ids)
            deadline = time.monotonic() + ttl
            self._deadline[lease_id], self._keys[lease_id] = deadline, set()
            heapq.heappush(self._heap, (deadline, lease_id))
            first = self._heap[0][1] == lease_id
        self.bind(asyncio._get_running_loop())
        if first:
            self._schedule()
        return lease_id

    def attach(self, key: Key, lease_id: int) -> None:
        """A put of `key` with `lease_id` (0: none): it leaves its previous lease."""
        if not lease_id and key not in self._lease_of:  # every write without a ttl: no lock taken
            return
        with self._lock:
            self.detach(key)
            if lease_id and lease_id in self._keys:
                self._keys[lease_id].add(key)
                self._lease_of[key] = lease_id

    def detach(self, key: Key) -> None:
        if key not in self._lease_of:  # (a key only the store's lock writes: no lease to leave)
            return
        with self._lock:
            lease_id = self._lease_of.pop(key, 0)
            if lease_id:
                self._keys[lease_id].discard(key)

    def bind(self, loop: asyncio.AbstractEventLoop | None) -> None:
        """The loop the expiry timer runs on (the first one a write or watch runs on)."""
        if loop is not None and (self._loop is None or self._loop.is_closed()):
            self._loop = loop
            if self._heap:
                self._schedule()

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _schedule(self) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        if asyncio._get_running_loop() is loop:
            self._arm()
        else:
            loop.call_soon_threadsafe(self._arm)

    def _arm(self) -> None:
        """On the loop: one timer, for the earliest deadline."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        with self._lock:
            if not self._heap:
                return
            deadline = self._heap[0][0]
        assert self._loop is not None
        fire = next_tick(deadline, self._started)
        self._timer = self._loop.call_later(max(0.0, fire - time.monotonic()), self._expire)

    def take(self, lease_id: int) -> list[Key]:
        """Forget an expired lease: the keys still attached to it, by key (the store calls this under its own lock,
        so no write moves a key between this and the deletion)."""
        with self._lock:
            keys = sorted(self._keys.pop(lease_id, ()))
            for key in keys:
                del self._lease_of[key]
            return keys

    def _expire(self) -> None:
        """Revoke every lease past its deadline (each its own deletion), then arm for the next."""
        self._timer = None
        now = time.monotonic()
        while True:
            with self._lock:
                if not self._heap or self._heap[0][0] > now:
                    break
                _, lease_id = heapq.heappop(self._heap)
                del self._deadline[lease_id]
            self._revoke(lease_id)
        self._arm()
