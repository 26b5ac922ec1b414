"""The watch cache's read families (`k8s.io/apiserver/pkg/storage/cacher/metrics/metrics.go`, v0.33.1, all ALPHA
but the INTERNAL consistency checks), as 1.33's `cacher.go` `GetList`, `delegator.go` `GetList` and
`watch_cache.go` `waitUntilFreshAndBlock` record them:

- `apiserver_cache_list_total`, `_fetched_objects_total` (`resource_prefix`, `index`) and
  `apiserver_cache_list_returned_objects_total` (`resource_prefix`): each LIST the watch cache serves, labelled
  with the cacher's resource prefix (the etcd key root after the storage prefix: `/pods`, `/services/specs`,
  `/apps/deployments`... as `storage.keys.key_root`, `/apiextensions.k8s.io/customresourcedefinitions`) and the
  index it used (`f:spec.nodeName` for a pod LIST selecting `spec.nodeName=`, the only index 1.33 keeps since
  `StorageNamespaceIndex` yields to the B-tree cache; else ""); fetched counts every object under the LIST's
  key prefix (a namespace's, or the resource's), returned what is left after the selectors and the limit.
  1.33 serves from the cache every LIST but an `Exact` one, a legacy exact one (`resourceVersion` with `limit`)
  and a continued one (the snapshots are alpha): those are etcd's (`metrics/etcd.py`). Reported by the registry's
  LIST (`StorageObserver.cache_listed`: it does the cacher's filtering here), the API's and its own
  (DeleteCollection, an eviction's PodDisruptionBudgets: upstream's come through its loopback client).
- `apiserver_watch_cache_read_wait_seconds` (`resource`): the time a read waited for the cache to reach the
  resourceVersion it needs, observed when that is above 0: a LIST at `resourceVersion=""` (etcd's current
  revision) or at a number, a GET at a number (reported by the HTTP layer, which awaits the freshness gate:
  `storage/freshness.py`). The memory store's cache is never behind, so its reads wait 0 s.
- `apiserver_watch_cache_consistent_read_total` (`resource`, `success`, `fallback`): each LIST at
  `resourceVersion=""` without `continue` (`ConsistentListFromCache`, on in 1.33), `fallback="true"` when the
  cache could not catch up in 3 s and the read went to etcd.
- `apiserver_terminated_watchers_total` and `apiserver_storage_consistency_checks_total` are registered with no
  sample, as upstream's until used: no watcher here is closed for being slow (its queue grows), and the
  consistency checker runs only when `KUBE_WATCHCACHE_CONSISTENCY_CHECKER` is set.

Events have no watch cache in kube-apiserver (`DefaultWatchCacheSizes`: `events` 0, events.k8s.io's view too):
their reads are never recorded here (their LISTs are etcd's: `storage_reports.py`).
"""
from __future__ import annotations

from typing import Any

from ..storage.keys import key_root
from .registry import CounterVec, Family, LazyHistogramVec
from .storage import group_resource

READ_WAIT_BUCKETS = (0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3)
UNCACHED = frozenset({"events"})  # `DefaultWatchCacheSizes` (pkg/kubeapiserver/default_storage_factory_builder.go)
INTERNAL = "INTERNAL"


class CacheReadMetrics:
    """The cache's LIST, read-wait and consistent-read families."""

    def __init__(self) -> None:
        self.prefixes: dict[str, str] = {}
        pair = ("resource_prefix", "index")
        self.lists = CounterVec("apiserver_cache_list_total", "Number of LIST requests served from watch cache", pair)
        self.fetched = CounterVec("apiserver_cache_list_fetched_objects_total", "Number of objects read from watch "
                                  "cache in the course of serving a LIST request", pair)
        self.returned = CounterVec("apiserver_cache_list_returned_objects_total", "Number of objects returned for a "
                                   "LIST request from watch cache", ("resource_prefix",))
        self.read_wait = LazyHistogramVec("apiserver_watch_cache_read_wait_seconds", "Histogram of time spent waiting "
                                          "for a watch cache to become fresh.", ("resource",), READ_WAIT_BUCKETS)
        self.consistent = CounterVec("apiserver_watch_cache_consistent_read_total", "Counter for consistent reads "
                                     "from cache.", ("resource", "success", "fallback"))
        self.terminated = CounterVec("apiserver_terminated_watchers_total", "Counter of watchers closed due to "
                                     "unresponsiveness broken by resource type.", ("resource",))
        self.checks = CounterVec("apiserver_storage_consistency_checks_total", "Counter for status of consistency "
                                 "checks between etcd and watch cache", ("resource", "status"), INTERNAL)

    def cache_listed(self, resource: str, index: str, fetched: int, returned: int) -> None:
        prefix = self.prefixes.get(resource)
        if prefix is None:
            prefix = self.prefixes[resource] = "/" + key_root(resource)
        key = (prefix, index)
        self.lists.inc(key)
        self.fetched.inc(key, fetched)
        self.returned.inc((prefix,), returned)

    def read_waited(self, store: Any, seconds: float) -> None:
        """A read of the registry's `store` waited `seconds` for the cache (a resourceVersion above 0)."""
        if store.info.plural not in UNCACHED:
            key = (group_resource(store),)
            pending = self.read_wait.waiting.get(key)
            if pending is None:
                pending = self.read_wait.pending(key)
            pending.append(seconds)
            if len(pending) >= self.read_wait.FOLD_AT:
                self.read_wait.fold()

    def consistent_read(self, store: Any, success: bool, fallback: bool) -> None:
        if store.info.plural not in UNCACHED:
            self.consistent.inc((group_resource(store), "true" if success else "false",
                                 "true" if fallback else "false"))

    def families(self) -> tuple[Family, ...]:
        return self.lists, self.fetched, self.returned, self.read_wait, self.consistent, self.terminated, self.checks


def cache_reads(metrics: Any) -> CacheReadMetrics | None:
    """A server's `CacheReadMetrics` (`ctx.metrics.cache_reads`), or None without metrics."""
    return getattr(metrics, "cache_reads", None)


__all__ = ["READ_WAIT_BUCKETS", "UNCACHED", "CacheReadMetrics", "cache_reads"]
