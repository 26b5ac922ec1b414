"""What the store reports (`storage.StorageObserver`), handed to the etcd and watch-cache families: the one
object through which storage reaches the metrics layer without knowing it (storage imports nothing from here)."""
from __future__ import annotations

from ..storage.interface import StorageObserver
from .cachereads import CacheReadMetrics
from .etcd import EtcdMetrics
from .watchcache import WatchCacheMetrics


class StorageReports(StorageObserver):
    def __init__(self, etcd: EtcdMetrics, cache: WatchCacheMetrics, reads: CacheReadMetrics):
        self.request = etcd.request  # type: ignore[method-assign]  # bound once: one call per report
        self.listed = etcd.listed  # type: ignore[method-assign]
        self.bookmark = etcd.bookmark  # type: ignore[method-assign]
        self.cache_listed = reads.cache_listed  # type: ignore[method-assign]
        self.event = cache.event  # type: ignore[method-assign]
        self.reloaded = cache.reloaded  # type: ignore[method-assign]


__all__ = ["StorageReports"]
