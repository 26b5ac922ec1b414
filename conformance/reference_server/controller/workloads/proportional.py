"""Proportional scaling of a Deployment's active ReplicaSets: the arithmetic of
`pkg/controller/deployment/util/deployment_util.go` (`MaxSurge`, `IsSaturated`, `FindActiveOrLatest`,
`GetProportion`, `getReplicaSetFraction`, `ReplicasAnnotationsNeedUpdate`) and the plan of
`pkg/controller/deployment/sync.go` `scale`, as pure functions over ReplicaSet dicts.

Scaling a Deployment mid-rollout spreads the change over every active ReplicaSet in proportion to its size,
measured against the `deployment.kubernetes.io/max-replicas` annotation each one carries (the Deployment's
replicas + maxSurge when it was last scaled); what rounding leaves over goes to the first in upstream's order
(largest first; ties: newest first scaling up, oldest first scaling down). The controller applies the plan.
"""
from __future__ import annotations

import math
from typing import Any

DESIRED = "deployment.kubernetes.io/desired-replicas"
MAX = "deployment.kubernetes.io/max-replicas"
INT32_MAX = 2**31 - 1


def replicas(rs: dict[str, Any]) -> int:
    v = (rs.get("spec") or {}).get("replicas")
    return int(v) if isinstance(v, int) else 0


def int32_annotation(rs: dict[str, Any], key: str) -> int | None:
    """`getIntFromAnnotation`: `strconv.ParseInt(v, 10, 32)`, None when absent or not an int32."""
    value = ((rs.get("metadata") or {}).get("annotations") or {}).get(key)
    if value is None:
        return None
    try:
        n = int(value, 10)
    except ValueError:
        return None
    if value.strip() != value or "_" in value or not -2**31 <= n <= INT32_MAX:
        return None
    return n


def go_round(x: float) -> int:
    """`integer.RoundToInt32` is `math.Round`: halves away from zero (Python's round() goes to even)."""
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


def active(rss: list[dict[str, Any] | None]) -> list[dict[str, Any]]:
    """`controller.FilterActiveReplicaSets`: those with spec.replicas > 0."""
    return [rs for rs in rss if rs is not None and replicas(rs) > 0]


def _created(rs: dict[str, Any]) -> tuple[str, str]:
    return rs["metadata"].get("creationTimestamp") or "", rs["metadata"]["name"]


def find_active_or_latest(new: dict[str, Any] | None, old: list[dict[str, Any]]) -> dict[str, Any] | None:
    """`FindActiveOrLatest`: the one active ReplicaSet, or the newest when none is active; None when several are."""
    if new is None and not old:
        return None
    newest_first = sorted(old, key=_created, reverse=True)
    live = active(newest_first + [new])
    if not live:
        return new if new is not None else newest_first[0]
    return live[0] if len(live) == 1 else None


def is_saturated(want: int, rs: dict[str, Any] | None) -> bool:
    """`IsSaturated`: the ReplicaSet has the Deployment's replicas, desired-replicas and available pods."""
    if rs is None:
        return False
    desired = int32_annotation(rs, DESIRED)
    if desired is None:
        return False
    available = int((rs.get("status") or {}).get("availableReplicas", 0) or 0)
    return replicas(rs) == want and desired == want and available == want


def annotations_need_update(rs: dict[str, Any], desired: int, max_replicas: int) -> bool:
    """`ReplicasAnnotationsNeedUpdate`."""
    ann = rs["metadata"].get("annotations") or {}
    return ann.get(DESIRED) != str(desired) or ann.get(MAX) != str(max_replicas)


def fraction(rs: dict[str, Any], want: int, surge: int, status_replicas: int) -> int:
    """`getReplicaSetFraction`: how many replicas `rs` gains (or loses) when the Deployment's maximum moves
    from the max-replicas it was annotated with to want + surge."""
    if want == 0:
        return -replicas(rs)
    max_now = want + surge
    before = int32_annotation(rs, MAX)
    if not before:  # absent, unparsable or 0: the Deployment's current status.replicas instead
        before = status_replicas
        if before == 0:
            return 0
    return go_round(replicas(rs) * max_now / before) - replicas(rs)


def proportion(rs: dict[str, Any], want: int, surge: int, status_replicas: int, to_add: int, added: int) -> int:
    """`GetProportion`: the fraction, never past what is left to add (or remove)."""
    if replicas(rs) == 0 or to_add == 0 or to_add == added:
        return 0
    f = fraction(rs, want, surge, status_replicas)
    allowed = to_add - added
    return min(f, allowed) if to_add > 0 else max(f, allowed)


def plan(want: int, surge: int, status_replicas: int, rss: list[dict[str, Any]]) -> list[tuple[dict[str, Any], int]]:
    """`scale`'s rolling-update branch: the new size of each active ReplicaSet, in the order upstream writes
    them."""
    live = active(rss)
    allowed = want + surge if want > 0 else 0
    to_add = allowed - sum(replicas(rs) for rs in live)
    if to_add > 0:  # ReplicaSetsBySizeNewer
        live.sort(key=lambda rs: (-replicas(rs), _Desc(_created(rs))))
    elif to_add < 0:  # ReplicaSetsBySizeOlder
        live.sort(key=lambda rs: (-replicas(rs), _created(rs)))
    sizes, added = [], 0
    for rs in live:
        p = proportion(rs, want, surge, status_replicas, to_add, added) if to_add else 0
        added += p
        sizes.append(replicas(rs) + p)
    if live and to_add:  # the leftover goes to the first (largest)
        sizes[0] = max(sizes[0] + to_add - added, 0)
    return list(zip(live, sizes))


class _Desc:
    """Reverses the order of a key inside a sort key tuple."""
    __slots__ = ("key",)

    def __init__(self, key: Any):
        self.key = key

    def __lt__(self, other: "_Desc") -> bool:
        return other.key < self.key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Desc) and self.key == other.key
