"""The lease manager kube-apiserver's etcd3 store attaches TTL'd objects (Events) with
(`staging/src/k8s.io/apiserver/pkg/storage/etcd3/lease_manager.go`, v0.33): one previous lease is reused while
its expiry lies between `now + ttl` and `now + ttl + reuse`, where `reuse` = min(5 % of the ttl,
`--lease-reuse-duration-seconds`, default 60), and at most `MAX_OBJECTS` (its `LeaseMaxObjectCount`, 1000) objects
share it; otherwise a new lease of `ttl + reuse` seconds is granted and the count observed
(`etcd_lease_object_counts`): upstream counts every call before deciding, so what it observes is the previous
lease's objects and the one that asked for the new lease (1 at the first grant), then starts again at 1. Storage-only: a
store hands it a `grant(seconds) -> lease id` (etcd's LeaseGrant, or the memory store's own leases)."""
from __future__ import annotations

import threading
import time
from typing import Callable

REUSE_DURATION_SECONDS = 60  # storagebackend.DefaultLeaseReuseDurationSeconds (--lease-reuse-duration-seconds)
REUSE_DURATION_PERCENT = 0.05
MAX_OBJECTS = 1000  # storagebackend.DefaultLeaseMaxObjectCount
MIN_LEASE_TTL = 2  # etcd's lessor minimum: ceil(3 * election ticks / 2 * heartbeat) = ceil(1.5 s) by default


class LeaseManager:
    """`leaseManager.GetLease`: `lease(ttl)` answers the lease id a write of `ttl` seconds is attached to."""

    def __init__(self, grant: Callable[[int], int], observe: Callable[[int], None],
                 reuse_seconds: int = REUSE_DURATION_SECONDS, max_objects: int = MAX_OBJECTS,
                 clock: Callable[[], float] = time.monotonic):
        self.grant, self.observe, self.clock = grant, observe, clock
        self.reuse_seconds, self.max_objects = reuse_seconds, max_objects
        self.prev_id = 0
        self.prev_expiry = float("-inf")
        self.attached = 0
        self._lock = threading.Lock()

    def reuse_duration(self, ttl: int) -> int:
        """`getReuseDurationSecondsLocked`: int64(5 % of the ttl), at most the configured seconds."""
        return min(int(REUSE_DURATION_PERCENT * ttl), self.reuse_seconds)

    def lease(self, ttl: int) -> int:
        with self._lock:
            now = self.clock()
            reuse = self.reuse_duration(ttl)
            valid = now + ttl < self.prev_expiry
            sufficient = now + ttl + reuse > self.prev_expiry
            self.attached += 1  # every call counts, the one that ends up on a new lease too (upstream's)
            if valid and sufficient and self.attached <= self.max_objects:
                return self.prev_id
            ttl += reuse
            lease_id = self.grant(ttl)  # raises as etcd's Grant fails: the write fails with it
            self.prev_id, self.prev_expiry = lease_id, now + ttl
            self.observe(self.attached)
            self.attached = 1
            return lease_id
