"""kube-apiserver's etcd client families (`k8s.io/apiserver/pkg/storage/etcd3/metrics/metrics.go`, v0.33.1, all ALPHA):
`etcd_request_duration_seconds`, `etcd_requests_total`, `etcd_request_errors_total` labelled `operation` and `type`
(1.33's label: the `GroupResource.String()`, `pods`, `deployments.apps`), and the LIST cost counters
`apiserver_storage_list_total`, `_fetched_objects_total`, `_evaluated_objects_total`, `_returned_objects_total`
(`resource`), fed by the store (`storage.StorageObserver.request` and `listed`).

What counts as an etcd request is what the store sends etcd: each write's transaction (`create`, `update`, `delete`;
the memory store, etcd and watch cache in one, reports its writes the same way, timed in memory) and the reads that
bypass the watch cache (`get`, `list`: the memory store's reads at a revision, which 1.33 sends etcd for a LIST at a
resourceVersion or a continued one, and the etcd store's range reads past its cache's window). Upstream's
`listWithCount` (the once-a-minute count behind `apiserver_storage_objects`, here read from the cache at scrape
time) and the GETs it sends etcd for `resourceVersion=""` (answered here from the cache, which a write waits for)
are not counted. `etcd_requests_total` is the duration histogram's count: every request observes both.

Also `etcd_bookmark_counts` (`resource`; a gauge, only ever incremented): the progress notifications the watch
cache's etcd watch receives (`watcher.go`), one per cached resource for each (upstream's cachers each watch their
own resource on one gRPC stream, and etcd answers a progress request on every watch of the stream: here one watch
covers the whole prefix); the memory store has no etcd watch, so none. `apiserver_storage_size_bytes`
(`storage_cluster_id="etcd-0"`, STABLE, the storage monitor's collector): the etcd database file's size from
Maintenance/Status `dbSize`, asked at each scrape (off the event loop, 1 s at most, no sample when etcd does not
answer in time, as upstream); the memory store's is what its revisions would take as etcd keys and JSON values
(`MemoryStore.db_size`). `etcd_lease_object_counts` (buckets 10 … 5000): at each new lease the lease manager
grants for a TTL'd write (Events, `--event-ttl`), the objects attached to the previous one and the write that asked
for the new one (storage/leases.py: upstream counts before it decides; the first grant observes 1). Registered with
no sample until used, as upstream's: `apiserver_storage_decode_errors_total` (the etcd store skips a value it cannot
decode without counting it; nothing the memory store holds fails to decode).
`apiserver_storage_db_total_size_in_bytes` (deprecated in 1.28) is hidden in 1.33.
"""
from __future__ import annotations

import asyncio
import threading
from typing import Any, Callable, Iterable

from .registry import STABLE, Collected, CounterVec, Family, GaugeVec, HistogramVec, LazyHistogramVec, Sample

ETCD_BUCKETS = (0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45,
                60)
_LABELS = ("operation", "type")


class ThreadedHistogramVec(LazyHistogramVec):
    """A `LazyHistogramVec` observed from any thread (the etcd store writes from its writer and deleter
    threads): folds are serialised by a lock; each takes the values its lists hold away before bucketing them
    (`LazyHistogramVec.fold`), never clearing what another thread appended meanwhile."""

    def __init__(self, *args, **kw) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kw)
        self.lock = threading.RLock()

    def observe_any_thread(self, key: tuple[str, ...], value: float) -> None:
        pending = self.waiting.get(key)
        if pending is None:
            pending = self.waiting.setdefault(key, [])
        pending.append(value)
        if len(pending) >= self.FOLD_AT:
            self.fold()

    def fold(self) -> None:
        with self.lock:  # two threads' folds never bucket one list's values twice
            super().fold()

    def render(self, out: list[str]) -> None:
        with self.lock:  # no fold from another thread adds a label set while it is written
            super().render(out)

    def reset(self) -> None:
        with self.lock:
            super().reset()


class EtcdMetrics:
    """The etcd request and storage LIST families; `request` and `listed` are the store's reports, with its
    resource names turned into upstream's by `name`."""

    def __init__(self, name: Callable[[str], str], cached: Callable[[], list[str]] = list, store: Any = None):
        self.name, self.cached, self.store = name, cached, store
        self.size: int | None = None  # the storage's size at the last `refresh`
        self.bookmarks = GaugeVec("etcd_bookmark_counts", "Number of etcd bookmarks (progress notify events) split "
                                  "by kind.", ("resource",))
        self.lease_objects = HistogramVec("etcd_lease_object_counts", "Number of objects attached to a single etcd "
                                          "lease.", (), (10, 50, 100, 500, 1000, 2500, 5000))
        self._lease_lock = threading.Lock()
        self.decode_errors = CounterVec("apiserver_storage_decode_errors_total", "Number of stored object decode "
                                        "errors split by object type", ("resource",))
        self.duration = ThreadedHistogramVec("etcd_request_duration_seconds", "Etcd request latency in seconds for "
                                             "each operation and object type.", _LABELS, ETCD_BUCKETS)
        self.errors = CounterVec("etcd_request_errors_total", "Etcd failed request counts for each operation and "
                                 "object type.", _LABELS)
        self.lists = CounterVec("apiserver_storage_list_total", "Number of LIST requests served from storage",
                                ("resource",))
        self.fetched = CounterVec("apiserver_storage_list_fetched_objects_total", "Number of objects read from "
                                  "storage in the course of serving a LIST request", ("resource",))
        self.evaluated = CounterVec("apiserver_storage_list_evaluated_objects_total", "Number of objects tested in "
                                    "the course of serving a LIST request from storage", ("resource",))
        self.returned = CounterVec("apiserver_storage_list_returned_objects_total", "Number of objects returned for a "
                                   "LIST request from storage", ("resource",))

    def request(self, operation: str, resource: str, seconds: float, failed: bool) -> None:
        key = (operation, self.name(resource))
        self.duration.observe_any_thread(key, seconds)  # one append; bucketed when scraped
        if failed:
            self.errors.inc(key)

    def listed(self, resource: str, fetched: int, evaluated: int, returned: int) -> None:
        key = (self.name(resource),)
        self.lists.inc(key)
        self.fetched.inc(key, fetched)
        self.evaluated.inc(key, evaluated)
        self.returned.inc(key, returned)

    def lease_attached(self, count: int) -> None:
        """The lease manager granted a new lease: `count` is the previous one's objects and the asking write
        (`UpdateLeaseObjectCount`; from the etcd store's writer threads too)."""
        with self._lease_lock:
            self.lease_objects.observe((), count)

    def bookmark(self) -> None:
        """A progress notification on the watch cache's etcd watch: one for each cached resource's watch."""
        values = self.bookmarks.values
        for resource in self.cached():
            key = (resource,)
            values[key] = values.get(key, 0) + 1

    async def refresh(self) -> None:
        """Read the storage's size for the next scrape, off the loop, 1 s at most (`monitorCollector`)."""
        db_size = getattr(self.store, "db_size", None)
        if db_size is None:
            return
        try:
            self.size = await asyncio.wait_for(asyncio.get_running_loop().run_in_executor(None, db_size), 1.0)
        except Exception:  # noqa: BLE001 - upstream logs the failure and writes no sample
            self.size = None

    def _size(self) -> list[Sample]:
        return [] if self.size is None else [(("etcd-0",), float(self.size))]

    def _counts(self) -> Iterable[Sample]:
        with self.duration.lock:
            self.duration.fold()
            return [(key, float(cells[-1])) for key, cells in self.duration.values.items() if cells[-1]]

    def families(self) -> tuple[Family, ...]:
        total = Collected("etcd_requests_total", "Etcd request counts for each operation and object type.", _LABELS,
                          self._counts, kind="counter")
        size = Collected("apiserver_storage_size_bytes", "Size of the storage database file physically allocated in "
                         "bytes.", ("storage_cluster_id",), self._size, STABLE)
        return self.duration, total, self.errors, self.lists, self.fetched, self.evaluated, self.returned, \
            self.bookmarks, self.lease_objects, self.decode_errors, size


__all__ = ["ETCD_BUCKETS", "EtcdMetrics", "ThreadedHistogramVec"]
