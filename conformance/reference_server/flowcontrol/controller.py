"""The config consumer's enforcement side (`apf_controller.go`, k8s.io/apiserver v0.33): one `QueueSet` per limited
priority level, re-configured in place when the stored PriorityLevelConfigurations change (its waiting and
executing requests kept), a missing mandatory level (`exempt`, `catch-all`) imagined from the bootstrap objects as
upstream's `imaginePL` does. An exempt level's QueueSet never makes a request wait (it only counts them, for the debug dump).

Borrowing is simplified (flowcontrol/queueset.py, `SeatPool`): each level keeps `nominal - lendable` seats of its
own and takes lendable seats of any level, exempt ones included, up to its borrowing limit, while one is free.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from ..registry.flowcontrol_bootstrap import MANDATORY_PRIORITY_LEVELS
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

    def dump_priority_levels(self) -> str:
        """`/debug/api_priority_and_fairness/dump_priority_levels` (`apf_controller_debug.go`): one row per level,
        sorted by name (exempt ones too: upstream gives them a queue set without queues), through Go's
        tabwriter(8, 0, 1, ' ')."""
        rows = [["PriorityLevelName", "ActiveQueues", "IsIdle", "IsQuiescing", "WaitingRequests",
                 "ExecutingRequests", "DispatchedRequests", "RejectedRequests", "TimedoutRequests",
                 "CancelledRequests"]]
        for name in sorted(self.levels):
            qs = self.levels[name].queueset
            idle = not qs.waiting and not qs.in_use
            rows.append([name, str(qs.active_queues), str(idle).lower(), "false", str(qs.waiting), str(qs.in_use),
                         str(qs.dispatched), str(qs.rejected), str(qs.timed_out), str(qs.cancelled)])
        return tab_rows(rows)


def tab_rows(rows: list[list[str]]) -> str:
    """Go's `row` (cells joined by ",\t") through `tabwriter.NewWriter(w, 8, 0, 1, ' ', 0)`: every cell but a
    line's last is padded to its column's widest cell plus one, at least 8."""
    cells = [[c + "," for c in r[:-1]] + [r[-1]] for r in rows]
    widths = [max(8, max(len(r[i]) for r in cells) + 1) for i in range(len(cells[0]) - 1)]
    return "".join("".join(c.ljust(w) for c, w in zip(r, widths)) + r[-1] + "\n" for r in cells)


__all__ = ["DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT", "DEFAULT_MAX_REQUESTS_INFLIGHT", "FlowControl", "LevelState"]
