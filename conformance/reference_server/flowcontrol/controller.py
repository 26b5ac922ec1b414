"""The config consumer's enforcement side (`apf_controller.go`, k8s.io/apiserver v0.33): one `QueueSet` per
priority level, re-configured in place when the stored PriorityLevelConfigurations change (its waiting and
executing requests kept), a missing mandatory level (`exempt`, `catch-all`) imagined from the bootstrap objects as
upstream's `imaginePL` does. An exempt level's QueueSet never makes a request wait (it only counts them, for the
debug dumps, flowcontrol/dump.py). Each level's most seats for one request feed the work estimator (`max_seats`,
upstream's `MaxSeatsTracker`).

Borrowing is simplified (flowcontrol/queueset.py, `SeatPool`): each level keeps `nominal - lendable` seats of its
own and takes lendable seats of any level, exempt ones included, up to its borrowing limit, while one is free.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from ..registry.flowcontrol_bootstrap import MANDATORY_PRIORITY_LEVELS
from . import dump
from .limits import LevelLimits, concurrency_limits
from .queueset import QueueSet, SeatPool
from .retry_after import DroppedRequests

DEFAULT_MAX_REQUESTS_INFLIGHT = 400           # kube-apiserver --max-requests-inflight
DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT = 200  # kube-apiserver --max-mutating-requests-inflight


@dataclass
class LevelState:
    limits: LevelLimits
    queueset: QueueSet  # an exempt level's: seats without limit, counted for the dump


class FlowControl:
    """Seats for classified requests: `level(name)`, a QueueSet (an exempt level's never refuses one), or None for
    an unknown level."""

    def __init__(self, server_limit: int = DEFAULT_MAX_REQUESTS_INFLIGHT + DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT):
        self.server_limit = server_limit
        self.levels: dict[str, LevelState] = {}
        self.queuesets: dict[str, QueueSet] = {}  # name → QueueSet of the limited levels (the filter's lookup)
        self.dropped = DroppedRequests()
        self.pool = SeatPool()

    def configure(self, levels: Iterable[dict[str, Any]]) -> None:
        """The stored PriorityLevelConfigurations changed: new limits, queue sets kept where the level stays."""
        levels = list(levels)
        names = {o["metadata"]["name"] for o in levels}
        levels += [o for o in MANDATORY_PRIORITY_LEVELS if o["metadata"]["name"] not in names]
        new: dict[str, LevelState] = {}
        for name, limits in concurrency_limits(levels, self.server_limit).items():
            old = self.levels.get(name)
            if old is not None and old.limits.exempt == limits.exempt:
                qs = old.queueset
                qs.limits = limits  # reconfigured below, once the pool is recounted
            else:
                qs = QueueSet(limits, None if limits.exempt else self.pool)
            new[name] = LevelState(limits, qs)
        # a level gone keeps serving what it queued and runs, on seats of its own, outside the pool (upstream's
        # quiescing level, not shown in the dump here)
        for name, old in self.levels.items():
            if new.get(name, LevelState(old.limits, None)).queueset is not old.queueset:
                old.queueset.pool = None
                old.queueset.reconfigure(old.queueset.limits)
        self.levels = new
        self.queuesets = {name: s.queueset for name, s in new.items()}
        pool = self.pool
        pool.capacity = sum(s.limits.lendable for s in new.values())  # exempt levels lend too
        pool.levels = [qs for qs in self.queuesets.values() if not qs.limits.exempt]
        for qs in pool.levels:
            qs.min_cl = qs.limits.nominal - qs.limits.lendable  # the pool's count below uses the new limits
        pool.used = sum(max(0, qs.in_use - qs.min_cl) for qs in pool.levels)
        for qs in self.queuesets.values():
            qs.reconfigure(qs.limits)

    def level(self, name: str) -> QueueSet | None:
        return self.queuesets.get(name)

    def max_seats(self, name: str) -> int:
        """The work estimator's `maxSeatsFn`: the level's most seats for one request (0: none of its own)."""
        state = self.levels.get(name)
        return state.limits.max_seats if state is not None else 0

    def dump_priority_levels(self) -> str:
        return dump.priority_levels(self.queuesets)

    def dump_queues(self) -> str:
        return dump.queues(self.queuesets)

    def dump_requests(self, details: bool) -> str:
        return dump.requests(self.queuesets, details)


__all__ = ["DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT", "DEFAULT_MAX_REQUESTS_INFLIGHT", "FlowControl", "LevelState"]
