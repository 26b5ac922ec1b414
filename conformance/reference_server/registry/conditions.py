"""Setting one condition in an object's `status.conditions` as upstream's helpers do: `podutil.UpdatePodCondition`
(`pkg/api/v1/pod/util.go`) and `apimeta.SetStatusCondition` (`apimachinery/pkg/api/meta/conditions.go`) agree on
what a client sees: the condition of that type is replaced (or appended), and its `lastTransitionTime` moves only
when its `status` changes."""
from __future__ import annotations

from typing import Any

from .meta import now


def set_condition(status: dict[str, Any], fresh: dict[str, Any]) -> bool:
    """Put `fresh` (with a new `lastTransitionTime`) in place of the condition of its type; True when that
    changed anything."""
    conditions = [c for c in status.get("conditions") or [] if isinstance(c, dict)]
    status["conditions"] = conditions
    for i, old in enumerate(conditions):
        if old.get("type") == fresh["type"]:
            if old.get("status") == fresh["status"]:
                fresh["lastTransitionTime"] = old.get("lastTransitionTime")
            conditions[i] = fresh
            return old != fresh
    conditions.append(fresh)
    return True


def update_pod_condition(status: dict[str, Any], type_: str, value: str, reason: str = "", message: str = "") -> bool:
    """`podutil.UpdatePodCondition` (PodCondition's JSON: `lastProbeTime` null, empty reason and message omitted)."""
    fresh: dict[str, Any] = {"type": type_, "status": value, "lastProbeTime": None, "lastTransitionTime": now()}
    if reason:
        fresh["reason"] = reason
    if message:
        fresh["message"] = message
    return set_condition(status, fresh)


__all__ = ["set_condition", "update_pod_condition"]
