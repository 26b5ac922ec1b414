"""Namespace deletion conditions (`deletion/status_condition_utils.go`, NS-71)."""
from __future__ import annotations

from typing import Any

from ..registry.meta import now

CONDITION_TYPES = ("NamespaceDeletionDiscoveryFailure", "NamespaceDeletionGroupVersionParsingFailure",
                   "NamespaceDeletionContentFailure", "NamespaceContentRemaining", "NamespaceFinalizersRemaining")
_OK = {
    "NamespaceDeletionDiscoveryFailure": ("ResourcesDiscovered", "All resources successfully discovered"),
    "NamespaceDeletionGroupVersionParsingFailure": ("ParsedGroupVersions", "All legacy kube types successfully parsed"),
    "NamespaceDeletionContentFailure": ("ContentDeleted",
                                        "All content successfully deleted, may be waiting on finalization"),
    "NamespaceContentRemaining": ("ContentRemoved", "All content successfully removed"),
    "NamespaceFinalizersRemaining": ("ContentRemoved", "All content successfully removed"),
}


def _cond(typ: str, status: str, reason: str, message: str) -> dict[str, Any]:
    return {"type": typ, "status": status, "lastTransitionTime": now(), "reason": reason, "message": message}


def failure_conditions(remaining: dict[str, int], finalizers: dict[str, int],
                       delete_errors: list[str], discovery_failure: str = "") -> list[dict[str, Any]]:
    """The failing conditions for the current content totals (the rest get the OK variant).

    `remaining` is keyed by `<resource>.<group>` (core: `pods.`), as upstream prints a GroupVersionResource.
    Wording as in current upstream `status_condition_utils.go` (the finalizers text and reason changed after
    1.16: `Some content in the namespace has finalizers remaining`, `SomeFinalizersRemain`)."""
    out = []
    if discovery_failure:
        out.append(_cond("NamespaceDeletionDiscoveryFailure", "True", "DiscoveryFailed", discovery_failure))
    if delete_errors:
        out.append(_cond("NamespaceDeletionContentFailure", "True", "ContentDeletionFailed",
                         f"Failed to delete all resource types, {len(delete_errors)} remaining: "
                         + ", ".join(sorted(delete_errors))))
    parts = sorted(f"{res} has {n} resource instances" for res, n in remaining.items() if n)
    if parts:
        out.append(_cond("NamespaceContentRemaining", "True", "SomeResourcesRemain",
                         "Some resources are remaining: " + ", ".join(parts)))
    fparts = sorted(f"{f} in {n} resource instances" for f, n in finalizers.items() if n)
    if fparts:
        out.append(_cond("NamespaceFinalizersRemaining", "True", "SomeFinalizersRemain",
                         "Some content in the namespace has finalizers remaining: " + ", ".join(fparts)))
    return out


def update_conditions(status: dict[str, Any], new: list[dict[str, Any]]) -> bool:
    """`updateConditions`: maintain all five types in order; lastTransitionTime changes only on flips."""
    conditions = status.setdefault("conditions", [])
    changed = False
    for typ in CONDITION_TYPES:
        cand = next((c for c in new if c["type"] == typ), None) or _cond(typ, "False", *_OK[typ])
        old = next((c for c in conditions if c.get("type") == typ), None)
        if old is None:
            conditions.append(cand)
            changed = True
        elif (old.get("status"), old.get("message"), old.get("reason")) != \
                (cand["status"], cand["message"], cand["reason"]):
            if old.get("status") != cand["status"]:
                old["lastTransitionTime"] = now()
            old.update(status=cand["status"], reason=cand["reason"], message=cand["message"])
            changed = True
    return changed
