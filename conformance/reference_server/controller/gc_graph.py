"""The garbage collector's dependency graph (`pkg/controller/garbagecollector/graph_builder.go`), reduced to
what its decisions read: which objects name which owners.

Only objects with `metadata.ownerReferences` are kept (an owner is found by its reference, read live when
needed, as `attemptToDeleteItem` does), so an event of an object that neither owns nor is owned costs two
dict lookups; of the others only the namespace is kept, by UID (`OwnerRefInvalidNamespace` compares it with
its dependents'). Keys are `(storage key, namespace, name)`; owners are indexed by UID.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple


class ObjKey(NamedTuple):
    resource: str   # the storage key of the object's kind (plural; `<plural>.<group>` for custom resources)
    namespace: str
    name: str


@dataclass
class Owned:
    uid: str
    refs: list[dict[str, Any]]


def blocks(ref: dict[str, Any]) -> bool:
    return ref.get("blockOwnerDeletion") is True


class Graph:
    def __init__(self) -> None:
        self.owned: dict[ObjKey, Owned] = {}
        self.dependents: dict[str, set[ObjKey]] = {}   # owner UID → keys of the objects naming it
        self.namespace_of: dict[str, str] = {}         # UID → namespace of every observed object ("" cluster)

    def refs_of(self, key: ObjKey) -> list[dict[str, Any]]:
        o = self.owned.get(key)
        return o.refs if o is not None else []

    def dependents_of(self, uid: str) -> list[ObjKey]:
        return sorted(self.dependents.get(uid, ()))

    def blocking_dependents(self, uid: str) -> list[ObjKey]:
        """`node.blockingDependents`: dependents whose reference to `uid` has blockOwnerDeletion=true."""
        return [k for k in self.dependents_of(uid)
                if any(r.get("uid") == uid and blocks(r) for r in self.refs_of(k))]

    def observe(self, key: ObjKey, uid: str, refs: list[dict[str, Any]]
                ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Record the object's current references; returns (added refs, refs that stopped blocking their owner:
        removed, or blockOwnerDeletion turned off: `referencesDiffs` + `addUnblockedOwnersToDeleteQueue`)."""
        old = self.owned.get(key)
        old_refs = old.refs if old is not None and old.uid == uid else []
        if old is not None and old.uid != uid:  # the same name, another object: the old one is gone
            self.forget(key)
        by_uid = {r.get("uid"): r for r in old_refs}
        added = [r for r in refs if r.get("uid") not in by_uid]
        new_uids = {r.get("uid"): r for r in refs}
        unblocked = [r for r in old_refs if blocks(r) and (r.get("uid") not in new_uids
                                                           or not blocks(new_uids[r.get("uid")]))]
        for r in old_refs:
            if r.get("uid") not in new_uids:
                self._unlink(r.get("uid"), key)
        if refs:
            self.owned[key] = Owned(uid, list(refs))
            for r in refs:
                self.dependents.setdefault(str(r.get("uid")), set()).add(key)
        else:
            self.owned.pop(key, None)
        return added, unblocked

    def forget(self, key: ObjKey) -> list[dict[str, Any]]:
        """The object is gone: drop it; returns the references it had."""
        old = self.owned.pop(key, None)
        if old is None:
            return []
        for r in old.refs:
            self._unlink(r.get("uid"), key)
        return old.refs

    def _unlink(self, owner_uid: Any, key: ObjKey) -> None:
        deps = self.dependents.get(str(owner_uid))
        if deps is not None:
            deps.discard(key)
            if not deps:
                del self.dependents[str(owner_uid)]
