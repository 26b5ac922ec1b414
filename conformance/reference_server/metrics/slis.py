"""`/metrics/slis` (`k8s.io/component-base/metrics/prometheus/slis`, v0.33.1): `kubernetes_healthcheck` (1 or 0,
the last result of a check) and `kubernetes_healthchecks_total`, recorded by `healthz.go` for each check a health
root (`/healthz`, `/livez`, `/readyz`) runs, and `process_start_time_seconds`. This server runs one check,
`ping`, which always succeeds (kube-apiserver also lists `log`, `etcd` and its post-start hooks)."""
from __future__ import annotations

from typing import Any

from .registry import RAW, STABLE, Collected, CounterVec, GaugeVec, Registry

HEALTH_CHECKS = ("ping",)


class SliMetrics:
    def __init__(self, process: Any):
        self.healthcheck = GaugeVec("kubernetes_healthcheck", "This metric records the result of a single healthcheck.",
                                    ("name", "type"), STABLE)
        self.healthchecks_total = CounterVec("kubernetes_healthchecks_total",
                                             "This metric records the results of all healthcheck.",
                                             ("name", "type", "status"), STABLE)
        self.registry = Registry()
        self.registry.add(self.healthcheck, self.healthchecks_total)
        if process.available:  # `RegisterProcessStartTime`
            self.registry.add(Collected("process_start_time_seconds",
                                        "Start time of the process since unix epoch in seconds.", (),
                                        lambda: [((), process.start_time)], RAW))

    def observe(self, path: str) -> None:
        """A health root was asked for: `ObserveHealthcheck` of each of its checks (all succeed here)."""
        if path not in ("/healthz", "/livez", "/readyz"):
            return  # a single check's path (/healthz/ping) records nothing
        kind = path.strip("/")
        for name in HEALTH_CHECKS:
            self.healthcheck.set((name, kind), 1)
            self.healthchecks_total.inc((name, kind, "success"))


__all__ = ["HEALTH_CHECKS", "SliMetrics"]
