"""Deletion propagation: which garbage-collector finalizers a DELETE writes on the object.

Follows `staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go` (`shouldOrphanDependents`,
`shouldDeleteDependents`, `deletionFinalizersForGarbageCollection`) and `rest.GarbageCollectionDeleteStrategy`:
a strategy may declare `gc_policy` (`OrphanDependents` for batch/v1 Jobs, `job/strategy.go`; `Unsupported`
turns propagation off); every other kind behaves as `DeleteDependents`, which writes nothing (background).
The garbage collector (controller/garbagecollector.py) acts on the finalizers this writes.
"""
from __future__ import annotations

from typing import Any

ORPHAN = "orphan"                      # metav1.FinalizerOrphanDependents
FOREGROUND = "foregroundDeletion"      # metav1.FinalizerDeleteDependents
ORPHAN_DEPENDENTS = "OrphanDependents"
DELETE_DEPENDENTS = "DeleteDependents"
UNSUPPORTED = "Unsupported"


def default_policy(strategy: Any) -> str | None:
    """`DefaultGarbageCollectionPolicy` of the kind's strategy (None: the strategy does not declare one)."""
    return getattr(strategy, "gc_policy", None)


def should_orphan(policy: str | None, finalizers: list[str], propagation: str | None,
                  orphan_dependents: bool | None) -> bool:
    """`shouldOrphanDependents`: options, then the object's finalizers, then the kind's default."""
    if policy == UNSUPPORTED:
        return False
    if orphan_dependents is not None:
        return orphan_dependents
    if propagation in ("Orphan", "Background", "Foreground"):
        return propagation == "Orphan"
    for f in finalizers:
        if f == ORPHAN:
            return True
        if f == FOREGROUND:
            return False
    return policy == ORPHAN_DEPENDENTS


def should_delete_dependents(policy: str | None, finalizers: list[str], propagation: str | None,
                             orphan_dependents: bool | None) -> bool:
    """`shouldDeleteDependents`: only an explicit Foreground (or an existing finalizer) asks for it."""
    if policy == UNSUPPORTED:
        return False
    if orphan_dependents is not None:  # upstream: an explicit orphanDependents never means foreground here
        return False
    if propagation in ("Orphan", "Background", "Foreground"):
        return propagation == "Foreground"
    for f in finalizers:
        if f == FOREGROUND:
            return True
        if f == ORPHAN:
            return False
    return False


def deletion_finalizers(strategy: Any, meta: dict[str, Any], propagation: str | None,
                        orphan_dependents: bool | None) -> tuple[bool, list[str]]:
    """`deletionFinalizersForGarbageCollection`: (changed, the finalizers the object should carry).

    Both GC finalizers are taken out, then added back as the options, the object and the kind ask; `changed`
    compares as sets (upstream's `sets.NewString`), so an unchanged object gets no write."""
    current = [f for f in (meta.get("finalizers") or []) if isinstance(f, str)]
    policy = default_policy(strategy)
    new = [f for f in current if f not in (ORPHAN, FOREGROUND)]
    if should_orphan(policy, current, propagation, orphan_dependents):
        new.append(ORPHAN)
    if should_delete_dependents(policy, current, propagation, orphan_dependents):
        new.append(FOREGROUND)
    if set(new) == set(current):
        return False, current
    return True, new
