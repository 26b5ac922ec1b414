"""`/metrics/slis` (`k8s.io/component-base/metrics/prometheus/slis`, v0.33.1): `kubernetes_healthcheck` (1 or 0,
the last result of a check) and `kubernetes_healthchecks_total`, recorded by `healthz.go` for each check a health
root (`/healthz`, `/livez`, `/readyz`) runs (health/: each check not excluded, with its result), and
`process_start_time_seconds`."""
from __future__ import annotations

from typing import Any, Iterable

from .registry import RAW, STABLE, Collected, CounterVec, GaugeVec, Registry


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

    def observe(self, endpoint: str, results: Iterable[tuple[str, bool]]) -> None:
        """A health root answered: `ObserveHealthcheck(name, endpoint, Success|Error)` of each check it ran (a
        single check's path, `/healthz/ping`, records nothing)."""
        for name, ok in results:
            self.healthcheck.set((name, endpoint), 1 if ok else 0)
            self.healthchecks_total.inc((name, endpoint, "success" if ok else "error"))


__all__ = ["SliMetrics"]
