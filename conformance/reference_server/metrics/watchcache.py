"""The watch cache's families (`k8s.io/apiserver/pkg/storage/cacher/metrics/metrics.go`, v0.33.1, all ALPHA,
labelled `resource` with the cacher's `groupResource.String()`: `pods`, `deployments.apps`) and the etcd watch's
`apiserver_storage_events_received_total` (`storage/etcd3/metrics/metrics.go`), fed by the store
(`storage.StorageObserver.event`, `reloaded`), and by the HTTP layer's watches (`replayed`).

- `apiserver_watch_cache_events_received_total` (`watch_cache.go` `processEvent`), `_events_dispatched_total`
  (`cacher.go` `dispatchEvents`, one per event, not per watcher) and `apiserver_storage_events_received_total`
  (the etcd watch's events) count the same changes: there are no storage bookmarks here to tell them apart;
- `apiserver_watch_cache_resource_version`: the resourceVersion of the resource's last change, or, before any, the
  store's when the server started (upstream: the initial list's revision, moved on by progress notifications);
- `apiserver_watch_cache_initializations_total`: one per resource at start (custom resources included only when
  their CRD existed then), one more for each after the etcd store's watch cache is filled again by a relist;
- `apiserver_init_events_total` (`cache_watcher.go` `processInterval`): the events an API watch replays from the
  cache when it starts (its initial state, or the history after its resourceVersion); the built-in controllers'
  own watches of the store are left out (kube-controller-manager's informers list, then watch from that list's
  resourceVersion).

Not served: `apiserver_watch_cache_capacity` and its `_increase_total`/`_decrease_total` (one history for every
resource here, not upstream's per-resource ring resized by event freshness), `_read_wait_seconds`,
`_consistent_read_total`, `apiserver_cache_list_*` (the store's reads are not only the API's LISTs), and
`apiserver_terminated_watchers_total` (a watcher here is never closed for being slow: it would have no sample).
"""
from __future__ import annotations

from typing import Any, Callable

from .registry import Collected, CounterVec, Family, GaugeVec
from .storage import group_resource

_RESOURCE = ("resource",)


class WatchCacheMetrics:
    """The watch cache's families; `name` turns a store's resource into upstream's, `served` lists them all."""

    def __init__(self, name: Callable[[str], str], served: Callable[[], list[str]], start_rv: int):
        self.name, self.served = name, served
        self.received = CounterVec("apiserver_watch_cache_events_received_total", "Counter of events received in "
                                   "watch cache broken by resource type.", _RESOURCE)
        self.resource_version = GaugeVec("apiserver_watch_cache_resource_version", "Current resource version of "
                                         "watch cache broken by resource type.", _RESOURCE)
        self.initializations = CounterVec("apiserver_watch_cache_initializations_total", "Counter of watch cache "
                                          "initializations broken by resource type.", _RESOURCE)
        self.init_events_total = CounterVec("apiserver_init_events_total", "Counter of init events processed in "
                                            "watch cache broken by resource type.", _RESOURCE)
        for resource in served():
            self.initializations.inc((resource,))
            self.resource_version.set((resource,), float(start_rv))

    def event(self, resource: str, rv: int) -> None:
        key = (self.name(resource),)
        values = self.received.values
        values[key] = values.get(key, 0) + 1
        self.resource_version.values[key] = rv

    def replayed(self, store: Any, count: int) -> None:
        """An API watch of the registry's `store` started with `count` events from the cache."""
        self.init_events_total.inc((group_resource(store),), count)

    def reloaded(self) -> None:
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
            self.init_events_total


def replayed(metrics: Any, store: Any, count: int) -> None:
    """`WatchCacheMetrics.replayed` of a server's metrics (`ctx.metrics`), when it has them and `count` > 0."""
    cache = getattr(metrics, "watch_cache", None)
    if cache is not None and count:
        cache.replayed(store, count)


__all__ = ["WatchCacheMetrics", "replayed"]
