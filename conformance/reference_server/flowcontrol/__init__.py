"""API Priority and Fairness' enforcement: concurrency limits per priority level, fair queuing, the 429's
Retry-After (kube-apiserver's `staging/src/k8s.io/apiserver/pkg/util/flowcontrol/`). Knows nothing of HTTP: the
filter (http/priority_fairness.py) classifies a request, asks `FlowControl` for a seat and answers the 429."""
from .controller import FlowControl, LevelState
from .limits import LevelLimits, concurrency_limits
from .queueset import QueueSet, deal, flow_hash
from .retry_after import DroppedRequests

__all__ = ["DroppedRequests", "FlowControl", "LevelLimits", "LevelState", "QueueSet", "concurrency_limits", "deal",
           "flow_hash"]
