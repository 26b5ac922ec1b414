"""The config consumer's enforcement side (`apf_controller.go`, k8s.io/apiserver v0.33): one `QueueSet` per
priority level, re-configured in place when the stored PriorityLevelConfigurations change (its waiting and
executing requests kept), a missing mandatory level (`exempt`, `catch-all`) imagined from the bootstrap objects as
upstream's `imaginePL` does. An exempt level's QueueSet never makes a request wait (it only counts them, for the
debug dumps, flowcontrol/dump.py). Each level's most seats for one request feed the work estimator (`max_seats`,
upstream's `MaxSeatsTracker`).

Borrowing: every level dispatches up to its current limit, re-divided by demand (flowcontrol/borrowing.py) when
the configuration changes and every 10 s.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

from ..registry.flowcontrol_bootstrap import MANDATORY_PRIORITY_LEVELS
from . import dump
from .limits import LevelLimits, concurrency_limits
from .borrowing import BORROWING_ADJUSTMENT_PERIOD, DemandStats, LevelDemand, _go_round, current_limits
from .queueset import QueueSet
from .readwrite import ReadWriteCounts
from .retry_after import DroppedRequests

DEFAULT_MAX_REQUESTS_INFLIGHT = 400           # kube-apiserver --max-requests-inflight
DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT = 200  # kube-apiserver --max-mutating-requests-inflight


@dataclass
class LevelState:
    limits: LevelLimits
    queueset: QueueSet  # an exempt level's: seats without limit, counted for the dump
    stats: DemandStats  # seatDemandStats
    obj: dict[str, Any]  # the PriorityLevelConfiguration it was configured from


class FlowControl:
    """Seats for classified requests: `level(name)`, a QueueSet (an exempt level's never refuses one), or None for
    an unknown level. `update_borrowing()` re-divides the seats by demand; the filter calls it every
    `BORROWING_ADJUSTMENT_PERIOD` seconds, as upstream's controller does."""

    def __init__(self, server_limit: int = DEFAULT_MAX_REQUESTS_INFLIGHT + DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT):
        self.server_limit = server_limit
        self.levels: dict[str, LevelState] = {}
        self.queuesets: dict[str, QueueSet] = {}  # name → QueueSet of every level (the filter's lookup)
        self.dropped = DroppedRequests()
        self._desired: list[dict[str, Any]] = []
        self.executions: Any = None  # the execution-time sink every QueueSet appends to (metrics), or None
        self.watch_counts: Any = None  # where the work estimator observes a write's watch count (metrics), or None
        self.notes: dict[str, float] = {}  # the last re-division's seat targets by level, fair fraction under ""
        self.read_write = ReadWriteCounts()  # the filter's requests by phase and kind (read_vs_write_current_requests)

    def configure(self, levels: Iterable[dict[str, Any]]) -> None:
        """The stored PriorityLevelConfigurations changed: new limits, queue sets (and their demand statistics)
        kept where the level stays; a new level starts at `nominal - lendable / 2`; a level no longer stored
        that still has requests waiting or running is kept, quiescing, with its shares counted, until it is idle
        (`processOldPLsLocked`; then the configuration is digested again, as `maybeReap` has it); then the seats
        are re-divided at once, as `digestConfigObjects` ends with `updateBorrowingLocked`."""
        desired = list(levels)
        names = {o["metadata"]["name"] for o in desired}
        desired += [o for o in MANDATORY_PRIORITY_LEVELS if o["metadata"]["name"] not in names]
        self._desired = desired
        names = {o["metadata"]["name"] for o in desired}
        quiescing = [old.obj for name, old in self.levels.items() if name not in names and not old.queueset.idle]
        objs = {o["metadata"]["name"]: o for o in desired + quiescing}
        new: dict[str, LevelState] = {}
        for name, limits in concurrency_limits(desired + quiescing, self.server_limit).items():
            obj = objs[name]
            old = self.levels.get(name)
            if old is not None and old.limits.exempt == limits.exempt:
                new[name] = LevelState(limits, old.queueset, old.stats, obj)
            else:
                new[name] = LevelState(limits, QueueSet(limits, limits.nominal - limits.lendable // 2),
                                       DemandStats(), obj)
            qs = new[name].queueset
            qs.executions = self.executions
            qs.quiescing = name not in names
            qs.on_idle = self._reap if qs.quiescing else None
        self.levels = new
        self.queuesets = {name: s.queueset for name, s in new.items()}
        for state in new.values():
            state.queueset.reconfigure(state.limits)
        self.update_borrowing()

    def _reap(self) -> None:
        """A quiescing level went idle: digest the stored configuration again, without it."""
        self.configure(self._desired)

    def update_borrowing(self) -> None:
        """`updateBorrowingLocked`: each level's demand statistics from the period just ended, then the new
        current limits (flowcontrol/borrowing.py)."""
        demands: dict[str, LevelDemand] = {}
        for name, state in self.levels.items():
            state.stats.update(state.queueset.demand.reset())
            lim = state.limits
            demands[name] = LevelDemand(lim.exempt, lim.nominal, lim.nominal - lim.lendable, lim.borrowing_limit,
                                        state.queueset.current_cl, state.stats)
        nominal_sum = sum(state.limits.nominal for state in self.levels.values())
        notes: dict[str, float] = {}
        floor = max(1, int(_go_round(self.server_limit / 10)))
        for name, current in current_limits(nominal_sum, demands, notes).items():
            # `ConcurrencyDenominator`: the limit, or a tenth of the server's seats for a level left none
            self.levels[name].queueset.set_current_limit(current, current if current > 0 else floor)
        self.notes = notes

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

    def dump_requests(self, describe: Callable[[Any], tuple[str, Any]] | None = None) -> str:
        """With `describe` (a request's details → its user name and RequestInfo), the detail columns too."""
        return dump.requests(self.queuesets, describe)


__all__ = ["BORROWING_ADJUSTMENT_PERIOD", "DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT", "DEFAULT_MAX_REQUESTS_INFLIGHT",
           "FlowControl", "LevelState"]
