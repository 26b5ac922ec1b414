"""What the store reports (`storage.StorageObserver`), handed to the etcd and watch-cache families: the one
object through which storage reaches the metrics layer without knowing it (storage imports nothing from here)."""
from __future__ import annotations

from ..storage.interface import StorageObserver
from .cachereads import UNCACHED, CacheReadMetrics
from .etcd import EtcdMetrics
from .watchcache import WatchCacheMetrics


class StorageReports(StorageObserver):
    def __init__(self, etcd: EtcdMetrics, cache: WatchCacheMetrics, reads: CacheReadMetrics):
        self.request = etcd.request  # type: ignore[method-assign]  # bound once: one call per report
        self.listed = etcd.listed  # type: ignore[method-assign]
        self.etcd, self.cache, self.reads = etcd, cache, reads
        self.event = cache.event  # type: ignore[method-assign]
        self.reloaded = cache.reloaded  # type: ignore[method-assign]
        self.lease_objects = etcd.lease_attached  # type: ignore[method-assign]

    def bookmark(self, rv: int) -> None:
        """A progress notification: a bookmark of each cached resource, whose watch cache it moves to `rv`."""
        self.etcd.bookmark()
        self.cache.progressed(rv)

    def cache_listed(self, resource: str, index: str, fetched: int, returned: int, seconds: float) -> None:
        """The cache's LIST, or, for a resource kube-apiserver keeps no watch cache of (events), the etcd `list`
        its store sends instead (`store.go` `GetList`: one range, every object read evaluated)."""
        if resource in UNCACHED:
            self.request("list", resource, seconds, False)
            self.listed(resource, fetched, fetched, returned)
        else:
            self.reads.cache_listed(resource, index, fetched, returned)


__all__ = ["StorageReports"]
