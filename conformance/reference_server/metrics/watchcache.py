"""The watch cache's families (`k8s.io/apiserver/pkg/storage/cacher/metrics/metrics.go`, v0.33.1, all ALPHA,
labelled `resource` with the cacher's `groupResource.String()`: `pods`, `deployments.apps`) and the etcd watch's
`apiserver_storage_events_received_total` (`storage/etcd3/metrics/metrics.go`), fed by the store
(`storage.StorageObserver.event`, `reloaded`), and by the HTTP layer's watches (`replayed`).

- `apiserver_watch_cache_events_received_total` (`watch_cache.go` `processEvent`), `_events_dispatched_total`
  (`cacher.go` `dispatchEvents`, one per event, not per watcher) and `apiserver_storage_events_received_total`
  (the etcd watch's events) count the same changes: there are no storage bookmarks here to tell them apart;
- `apiserver_watch_cache_resource_version`: the resourceVersion of the resource's last change or of the etcd
  store's last progress notification (etcd's own every 10 minutes, and those asked for while a consistent read
  waits: one watch here stands for every resource's), or, before either, the store's when the server started;
- `apiserver_watch_cache_initializations_total`: one per resource at start (custom resources included only when
  their CRD existed then), one more for each after the etcd store's watch cache is filled again by a relist;
- `watch_cache_capacity`, `watch_cache_capacity_increase_total`, `_decrease_total` (no `apiserver_` prefix, as
  upstream's): each resource's event ring as `watch_cache.go` sizes it, 100 events at first, doubled (up to
  102400) when it is full of events younger than 75 s (`DefaultEventFreshDuration`), halved (down to 100) when its
  newest quarter began more than 75 s ago, emptied by a relist; only its record times are kept here, the store
  keeping one history for every resource;
- `apiserver_init_events_total` (`cache_watcher.go` `processInterval`): the events an API watch replays from the
  cache when it starts (its initial state, or the history after its resourceVersion); the built-in controllers'
  own watches of the store are left out (kube-controller-manager's informers list, then watch from that list's
  resourceVersion).

Events have no watch cache in kube-apiserver (`DefaultWatchCacheSizes`: `events` 0): none of these families has
an `events` sample. The cache's reads are counted in cachereads.py.
"""
from __future__ import annotations

from collections import deque
from time import monotonic
from typing import Any, Callable

from .cachereads import UNCACHED
from .registry import Collected, CounterVec, Family, GaugeVec
from .storage import group_resource

_RESOURCE = ("resource",)
LOWER_CAPACITY, UPPER_CAPACITY = 100, 100 * 1024  # defaultLowerBoundCapacity, capacityUpperBound(75 s)
FRESH_S = 75.0  # DefaultEventFreshDuration: defaultBookmarkFrequency (1 min) + 15 s


class EventRing:
    """The record times of one resource's watch-cache events, sized as `watchCache.resizeCacheLocked`."""

    def __init__(self) -> None:
        self.capacity = LOWER_CAPACITY
        self.times: deque[float] = deque(maxlen=LOWER_CAPACITY)

    def add(self, now: float) -> int:
        """Record one event at `now` (`updateCache`: resize first, then append); the capacity it changed to, or 0."""
        times, capacity, changed = self.times, self.capacity, 0
        if len(times) == capacity:
            if now - times[0] < FRESH_S:
                changed = min(capacity * 2, UPPER_CAPACITY)
            elif now - times[capacity - capacity // 4] > FRESH_S:
                changed = max(capacity // 2, LOWER_CAPACITY)
            if changed == capacity:
                changed = 0
            elif changed:  # `doCacheResizeLocked`: the newest events are kept
                self.capacity, self.times = changed, deque(times, maxlen=changed)
        self.times.append(now)
        return changed


class WatchCacheMetrics:
    """The watch cache's families; `name` turns a store's resource into upstream's, `served` lists them all."""

    def __init__(self, name: Callable[[str], str], served: Callable[[], list[str]], start_rv: int):
        self.name = name
        self.served = lambda: [r for r in served() if r not in UNCACHED]
        self.received = CounterVec("apiserver_watch_cache_events_received_total", "Counter of events received in "
                                   "watch cache broken by resource type.", _RESOURCE)
        self.resource_version = GaugeVec("apiserver_watch_cache_resource_version", "Current resource version of "
                                         "watch cache broken by resource type.", _RESOURCE)
        self.initializations = CounterVec("apiserver_watch_cache_initializations_total", "Counter of watch cache "
                                          "initializations broken by resource type.", _RESOURCE)
        self.init_events_total = CounterVec("apiserver_init_events_total", "Counter of init events processed in "
                                            "watch cache broken by resource type.", _RESOURCE)
        self.capacity = GaugeVec("watch_cache_capacity", "Total capacity of watch cache broken by resource type.",
                                 _RESOURCE)
        self.increases = CounterVec("watch_cache_capacity_increase_total", "Total number of watch cache capacity "
                                    "increase events broken by resource type.", _RESOURCE)
        self.decreases = CounterVec("watch_cache_capacity_decrease_total", "Total number of watch cache capacity "
                                    "decrease events broken by resource type.", _RESOURCE)
        self.rings: dict[tuple[str], EventRing] = {}
        for resource in self.served():
            self.initializations.inc((resource,))
            self.resource_version.set((resource,), float(start_rv))
            self.capacity.set((resource,), float(LOWER_CAPACITY))  # `newWatchCache`

    def event(self, resource: str, rv: int) -> None:
        if resource in UNCACHED:
            return
        key = (self.name(resource),)
        values = self.received.values
        values[key] = values.get(key, 0) + 1
        self.resource_version.values[key] = rv
        ring = self.rings.get(key)
        if ring is None:
            ring = self.rings[key] = EventRing()
        before = ring.capacity
        changed = ring.add(monotonic())
        if changed:  # `RecordsWatchCacheCapacityChange`
            (self.increases if changed > before else self.decreases).inc(key)
            self.capacity.values[key] = changed

    def progressed(self, rv: int) -> None:
        """A progress notification at `rv` reached every cached resource's watch (`UpdateResourceVersion`)."""
        values = self.resource_version.values
        for resource in self.served():
            values[(resource,)] = rv

    def replayed(self, store: Any, count: int) -> None:
        """An API watch of the registry's `store` started with `count` events from the cache."""
        if store.info.plural not in UNCACHED:
            self.init_events_total.inc((group_resource(store),), count)

    def reloaded(self) -> None:
        for ring in list(self.rings.values()):  # `Replace`: the event window starts again, its capacity kept
            ring.times.clear()
        for resource in self.served():
            self.initializations.inc((resource,))

    def families(self) -> tuple[Family, ...]:
        def same_counts() -> list[tuple[tuple[str, ...], float]]:
            return list(self.received.values.items())

        dispatched = Collected("apiserver_watch_cache_events_dispatched_total", "Counter of events dispatched in "
                               "watch cache broken by resource type.", _RESOURCE, same_counts, kind="counter")
        etcd_events = Collected("apiserver_storage_events_received_total", "Number of etcd events received split by "
                                "kind.", _RESOURCE, same_counts, kind="counter")
        return self.received, dispatched, etcd_events, self.resource_version, self.initializations, \
            self.init_events_total, self.capacity, self.increases, self.decreases


def replayed(metrics: Any, store: Any, count: int) -> None:
    """`WatchCacheMetrics.replayed` of a server's metrics (`ctx.metrics`), when it has them and `count` > 0."""
    cache = getattr(metrics, "watch_cache", None)
    if cache is not None and count:
        cache.replayed(store, count)


__all__ = ["WatchCacheMetrics", "replayed"]
