"""kube-apiserver's `/metrics` and `/metrics/slis` (`k8s.io/apiserver/pkg/server/routes/metrics.go`
`MetricsWithReset`, installed because kube-apiserver profiles by default, and component-base's
`slis.SLIMetricsWithReset`, v0.33.1): Prometheus' text format 0.0.4 answered to any method, `DELETE` resetting
the counters and histograms (`metrics reset`), gzip when the client accepts it (promhttp).

The rooms: registry.py (families and the text format), apiserver.py (request counters, response sizes, the HTTP
layer's hooks), latency.py (the SLI duration, derived from the duration), watch.py (watch events), admission.py
(admission webhooks), conversion.py (CRD conversion webhooks), admission_chain.py (the admission chain's steps and
plugins), flowcontrol.py (API Priority and Fairness' families), storage.py (`apiserver_storage_objects`), etcd.py
(etcd requests, storage LISTs, bookmarks, the storage's size), watchcache.py (the watch cache's events) and
cachereads.py (the LISTs and reads it serves), fed by the store through storage_reports.py,
process.py (`process_*`), goruntime.py (`go_*`), slis.py (`/metrics/slis`). Knows nothing of the HTTP layer
beyond the request objects it is handed; authorization (`get` on the non-resource URL) is the HTTP layer's, before
the handler.
"""
from __future__ import annotations

from typing import Any

from .admission import AdmissionMetrics
from .admission_chain import AdmissionChainMetrics
from .apiserver import RequestMetrics
from .cachereads import CacheReadMetrics
from .conversion import ConversionMetrics
from .etcd import EtcdMetrics
from .flowcontrol import FlowControlMetrics
from .goruntime import GoRuntime
from .process import ProcessMetrics
from .registry import Registry, meta_metrics
from .slis import SliMetrics
from .storage import GroupResources, storage_objects
from .storage_reports import StorageReports
from .watch import WatchMetrics
from .watchcache import WatchCacheMetrics

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8; escaping=underscores"  # expfmt.Negotiate's default
METRICS_PATHS = frozenset({"/metrics", "/metrics/slis"})


class ServerMetrics:
    """One server's metrics: `requests` and `flowcontrol` take the HTTP layer's hooks, `answer` serves a path."""

    def __init__(self, registry: Any, flow_control: Any, request_info: Any):
        self.requests = RequestMetrics(request_info)
        self.flowcontrol = FlowControlMetrics(flow_control)
        self.process = ProcessMetrics()
        self.goruntime = GoRuntime()
        self.watch = WatchMetrics()  # http/watch.py finds it as ctx.metrics.watch
        self.admission = AdmissionMetrics()
        registry.admission_metrics = self.admission  # what the webhook plugin records into (admission/webhooks/)
        self.conversion = ConversionMetrics()
        if getattr(registry, "custom", None) is not None:  # CRD conversion webhooks' calls (registry/crconversion/)
            registry.custom.observe_conversion = self.conversion.observe
        self.admission_chain = AdmissionChainMetrics()
        self.requests.on_admission = self.admission_chain.record
        self.slis = SliMetrics(self.process)
        self.flowcontrol.on_waited = self.requests.waited
        resources = GroupResources(registry)
        self.watch_cache = WatchCacheMetrics(resources, resources.served, registry.store.current_rv())
        self.etcd = EtcdMetrics(resources, self.watch_cache.served, registry.store)
        self.cache_reads = CacheReadMetrics()  # the HTTP layer's reads find it as ctx.metrics.cache_reads
        observe = getattr(registry.store, "observe", None)  # (a test's stand-in store may have none)
        if observe is not None:
            observe(StorageReports(self.etcd, self.watch_cache, self.cache_reads))
        self.note = self.requests.note  # http/app.py's dispatcher calls it once the route is known
        self.registry = Registry()
        self.registry.add(*self.requests.families(), *self.flowcontrol.families(), storage_objects(registry),
                          *self.process.families(), *self.goruntime.families(), *self.watch.families(),
                          *self.admission.families(),
                          *self.admission_chain.families(), *self.conversion.families(),
                          *self.etcd.families(), *self.watch_cache.families(), *self.cache_reads.families())
        self.registry.add(*meta_metrics(self.registry, self.slis.registry))

    async def refresh(self, method: str, path: str) -> None:
        """What a scrape of `path` reads from elsewhere first, off the loop (the storage's size)."""
        if path == "/metrics" and method != "DELETE":
            await self.etcd.refresh()

    def answer(self, method: str, path: str, accept_encoding: str) -> tuple[int, dict[str, str], bytes]:
        """(status, headers, body) for `/metrics` or `/metrics/slis`."""
        registry = self.slis.registry if path == "/metrics/slis" else self.registry
        if method == "DELETE":  # `HandlerWithReset`
            registry.reset()
            self.requests.forget()
            return 200, {"Content-Type": "text/plain; charset=utf-8"}, b"metrics reset\n"
        body = registry.render().encode("utf-8")
        headers = {"Content-Type": CONTENT_TYPE}
        if "gzip" in accept_encoding:
            import gzip  # on first use: importing the server loads no compressor (wire/descriptions.py's test)
            body = gzip.compress(body, compresslevel=6)
            headers["Content-Encoding"] = "gzip"
        return 200, headers, body


__all__ = ["CONTENT_TYPE", "METRICS_PATHS", "ServerMetrics"]
