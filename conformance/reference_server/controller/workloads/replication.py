"""The replication manager (`pkg/controller/replication/replication_controller.go`): upstream wraps the ReplicaSet
controller, converting each ReplicationController to a ReplicaSet on the way in (`conversion.go`: the selector
map becomes `matchLabels`) and its status back on the way out; so does this, over controller/workloads/
replicaset.py. Pods get the RC as controller (`v1`, `ReplicationController`), events come from
`replication-controller`.
"""
from __future__ import annotations

from typing import Any

from ...registry import GenericStore, ListOptions
from ...registry.workloads import selector_matches
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

    @property
    def store(self) -> GenericStore:
        s = self.registry.content(self.plural)
        assert s is not None
        return s

    def get(self, ns: str, name: str) -> dict[str, Any] | None:
        rc = super().get(ns, name)
        return None if rc is None else as_replica_set(rc)

    def _wake_adopters(self, ev: Any) -> None:
        labels = ev.object["metadata"].get("labels") or {}
        if not labels:
            return
        for owner in self.store.list(ev.namespace, ListOptions(), shared=True)["items"]:
            selector = (owner.get("spec") or {}).get("selector") or {}
            if selector and selector_matches({"matchLabels": selector}, labels):
                self.keys.add((ev.namespace, owner["metadata"]["name"]))
