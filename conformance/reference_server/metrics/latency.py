"""`apiserver_request_sli_duration_seconds` (`k8s.io/apiserver/pkg/endpoints/metrics/metrics.go`, v0.33.1:
ALPHA, observed by `MonitorRequest` for every instrumented request, since `WithLatencyTrackers` is in every
handler chain): a request's duration less its time in mutating and validating admission webhooks and its wait in
an APF queue (`LatencyTrackers`), labelled as `apiserver_request_duration_seconds` without `dry_run`.

Derived, not recorded: its buckets are a subset of the duration histogram's, so for a request that neither
waited nor called a webhook it is the duration histogram's observation, summed over `dry_run` when written. The
few requests with something to leave out are noted twice (`deduct`): their duration, to take away, and their SLI
duration, to add. The hot path thus pays nothing for this family.

Not served: `apiserver_request_slo_duration_seconds`, deprecated in 1.27 and hidden by component-base since 1.28
(`shouldHide`). Left out of the SLI duration here as upstream: webhook time and APF wait; upstream's duration
also holds authentication, authorization and decoding time (measured from the request's arrival), this server's
starts at the route (metrics/apiserver.py), so neither includes those microseconds.
"""
from __future__ import annotations

from bisect import bisect_left

from .registry import HistogramVec

SLI_BUCKETS = (0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60)
SLI_LABELS = ("verb", "group", "version", "resource", "subresource", "scope", "component")


class SliDuration(HistogramVec):
    """The SLI histogram, computed from `duration` (a HistogramVec labelled verb, dry_run, group, ...) when
    written."""

    def __init__(self, duration: HistogramVec):
        super().__init__(
            "apiserver_request_sli_duration_seconds",
            "Response latency distribution (not counting webhook duration and priority & fairness queue wait "
            "times) in seconds for each verb, group, version, resource, subresource, scope and component.",
            SLI_LABELS, SLI_BUCKETS)
        assert set(SLI_BUCKETS) <= set(duration.bounds)
        self.duration = duration
        # the SLI bucket of each duration bucket (+Inf last)
        self._to_sli = tuple(bisect_left(SLI_BUCKETS, b) for b in duration.bounds) + (len(SLI_BUCKETS),)
        self._taken: dict[tuple[str, ...], list[float]] = {}  # durations of the deducted requests (duration cells)
        self._added = HistogramVec(self.name, "", SLI_LABELS, SLI_BUCKETS)  # their SLI durations

    def deduct(self, labels: tuple[str, ...], duration: float, sli: float) -> None:
        """A request (its duration histogram's `labels`) whose SLI duration is not its duration."""
        key = labels[:1] + labels[2:]
        taken = self._taken.get(key)
        if taken is None:
            taken = self._taken[key] = [0.0] * (len(self.duration.bounds) + 3)
        taken[bisect_left(self.duration.bounds, duration)] += 1
        taken[-2] += duration
        taken[-1] += 1
        self._added.observe(key, max(sli, 0.0))

    def _add(self, key: tuple[str, ...], cells: list[float], sign: int) -> None:
        mine = self.cells(key)
        for i, j in enumerate(self._to_sli):
            mine[j] += sign * cells[i]
        mine[-2] += sign * cells[-2]
        mine[-1] += sign * cells[-1]

    def reset(self) -> None:
        super().reset()
        self._taken.clear()
        self._added.reset()

    def render(self, out: list[str]) -> None:
        self.values = {}
        for labels, cells in list(self.duration.values.items()):
            if cells[-1]:
                self._add(labels[:1] + labels[2:], cells, 1)
        for key, cells in self._taken.items():
            self._add(key, cells, -1)
        for key, cells in self._added.values.items():
            mine = self.cells(key)
            for i, n in enumerate(cells):
                mine[i] += n
        super().render(out)


__all__ = ["SLI_BUCKETS", "SLI_LABELS", "SliDuration"]
