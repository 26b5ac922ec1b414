"""API Priority and Fairness' enforcement: concurrency limits per priority level, the work estimator, fair queuing
in seat-seconds, borrowing by demand, the 429's Retry-After, the debug dumps (kube-apiserver's
`staging/src/k8s.io/apiserver/pkg/util/flowcontrol/`). Knows nothing of HTTP: the filter
(http/priority_fairness.py) classifies a request, has its work estimated, asks `FlowControl` for its seats and
answers the 429."""
from .borrowing import AllocItem, DemandStats, SeatDemand, allocate, current_limits
from .controller import BORROWING_ADJUSTMENT_PERIOD, FlowControl, LevelState
from .limits import LevelLimits, concurrency_limits
from .queueset import QueueSet, Request, deal, flow_hash
from .retry_after import DroppedRequests
from .workestimate import MUTATING_VERBS, ONE_SEAT, ObjectCounts, WatchTracker, WorkEstimate, WorkEstimator

__all__ = ["AllocItem", "BORROWING_ADJUSTMENT_PERIOD", "DemandStats", "DroppedRequests", "FlowControl",
           "LevelLimits", "LevelState", "MUTATING_VERBS", "ONE_SEAT", "ObjectCounts", "QueueSet", "Request",
           "SeatDemand", "WatchTracker", "WorkEstimate", "WorkEstimator", "allocate", "concurrency_limits",
           "current_limits", "deal", "flow_hash"]
