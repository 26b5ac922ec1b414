"""The replication manager (`pkg/controller/replication/replication_controller.go`): upstream wraps the ReplicaSet
controller, converting each ReplicationController to a ReplicaSet on the way in (`conversion.go`: the selector
map becomes `matchLabels`) and its status back on the way out; so does this, over controller/workloads/
replicaset.py. Pods get the RC as controller (`v1`, `ReplicationController`), events come from
`replication-controller`.
"""
from __future__ import annotations

from typing import Any

from ...registry import GenericStore
from .replicaset import ReplicaSetController


def as_replica_set(rc: dict[str, Any]) -> dict[str, Any]:
    """The RC as the ReplicaSet controller reads it: a shallow copy whose `spec.selector` is a LabelSelector."""
    spec = dict(rc.get("spec") or {})
    spec["selector"] = {"matchLabels": dict(spec.get("selector") or {})}
    return {**rc, "spec": spec}


class ReplicationManager(ReplicaSetController):
    name = "replication manager"
    group = ""
    plural = "replicationcontrollers"
    owner_kind = "ReplicationController"
    component = "replication-controller"
    service_account = "replication-controller"

    @property
    def store(self) -> GenericStore:
        s = self.registry.content(self.plural)
        assert s is not None
        return s

    def get(self, ns: str, name: str) -> dict[str, Any] | None:
        rc = super().get(ns, name)
        return None if rc is None else as_replica_set(rc)

    @staticmethod
    def owner_selector(owner: dict[str, Any]) -> dict[str, Any] | None:
        """An RC's selector is a plain label map."""
        selector = (owner.get("spec") or {}).get("selector") or {}
        return {"matchLabels": selector} if selector else None
