"""The StatefulSet controller (`pkg/controller/statefulset/stateful_set_control.go`), where no pod is ever
Running and Ready.

Pods `<set>-<ordinal>` with the template's labels plus `controller-revision-hash` (`<set>-<hash>`),
`statefulset.kubernetes.io/pod-name` and `apps.kubernetes.io/pod-index`, hostname `<set>-<ordinal>` and
subdomain `spec.serviceName`. `OrderedReady` (the default) makes pod 0 and waits for it to be Running and
Ready, which it never is here, so it stops there; `Parallel` makes them all. Pods above `replicas` are
deleted, highest ordinal first (OrderedReady: only while no pod below is unhealthy, one at a time).
Status: replicas, currentReplicas/updatedReplicas, readyReplicas/availableReplicas 0, currentRevision and
updateRevision, collisionCount 0, observedGeneration.
Left out: ControllerRevision objects (`apps/v1 controllerrevisions` is not served here; the revision name is
still `<set>-<hash>`) and PVCs from `volumeClaimTemplates` (`persistentvolumeclaims` is not served).
"""
from __future__ import annotations

import copy
from typing import Any

from ..events import NORMAL, WARNING
from .common import WorkloadController, compute_hash, counts, is_ready, owner_reference

REVISION_LABEL = "controller-revision-hash"
POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"


def _ordinal(pod: dict[str, Any], set_name: str) -> int | None:
    name = pod["metadata"]["name"]
    prefix, _, tail = name.rpartition("-")
    return int(tail) if prefix == set_name and tail.isdigit() else None


class StatefulSetController(WorkloadController):
    name = "statefulset controller"
    plural = "statefulsets"
    owner_kind = "StatefulSet"
    component = "statefulset-controller"
    adopts = True

    def member(self, owner: dict[str, Any], obj: dict[str, Any]) -> bool:
        return _ordinal(obj, owner["metadata"]["name"]) is not None  # isMemberOf: `<set>-<ordinal>`

    def pod_event(self, owner: dict[str, Any], pod: dict[str, Any], error: Any, verb: str = "create") -> None:
        """`recordPodEvent`: `Successful<Verb>` "<verb> Pod <pod> in StatefulSet <set> successful", or
        `Failed<Verb>` "... failed error: <message>"."""
        pod_name, set_name = pod["metadata"].get("name", ""), owner["metadata"]["name"]
        if error is None:
            self.recorder.event(owner, NORMAL, f"Successful{verb.title()}",
                                f"{verb} Pod {pod_name} in StatefulSet {set_name} successful")
        else:
            self.recorder.event(owner, WARNING, f"Failed{verb.title()}",
                                f"{verb} Pod {pod_name} in StatefulSet {set_name} failed error: {error.message}")

    def sync(self, ns: str, name: str) -> None:
        sts = self.get(ns, name)
        if sts is None:
            return
        spec = sts["spec"]
        revision = f"{name}-{compute_hash(spec.get('template') or {}, (sts.get('status') or {}).get('collisionCount'))}"
        pods = {o: p for p in self.claim(self.pods, sts) if (o := _ordinal(p, name)) is not None}
        if not sts["metadata"].get("deletionTimestamp"):
            self.update_pods(sts, pods, revision)
            pods = {o: p for p in self.controlled(self.pods, sts) if (o := _ordinal(p, name)) is not None}
        live = [p for p in pods.values()]
        updated = counts(live, lambda p: (p["metadata"].get("labels") or {}).get(REVISION_LABEL) == revision)
        status: dict[str, Any] = {"observedGeneration": sts["metadata"].get("generation", 0),
                                  "replicas": len(live), "availableReplicas": 0}
        ready = counts(live, is_ready)
        if ready:
            status["readyReplicas"] = ready
            status["availableReplicas"] = ready
        if updated:
            status["currentReplicas"] = updated
            status["updatedReplicas"] = updated
        status["currentRevision"] = revision
        status["updateRevision"] = revision
        status["collisionCount"] = int((sts.get("status") or {}).get("collisionCount") or 0)
        self.write_status(sts, status)

    def update_pods(self, sts: dict[str, Any], pods: dict[int, dict[str, Any]], revision: str) -> None:
        """`updateStatefulSet`'s create/delete part (rolling template updates need Ready pods: left out)."""
        spec = sts["spec"]
        replicas = int(spec.get("replicas", 1) or 0)
        parallel = spec.get("podManagementPolicy") == "Parallel"
        start = int(((spec.get("ordinals") or {}).get("start")) or 0)
        wanted = range(start, start + replicas)
        budget = self.capped((sts["metadata"]["namespace"], sts["metadata"]["name"]),
                             sum(1 for o in wanted if o not in pods))
        for ordinal in wanted:
            pod = pods.get(ordinal)
            if pod is None:
                if budget == 0:
                    return
                budget -= 1
                self.create_pod(self.new_pod(sts, ordinal, revision), sts)
                if not parallel:
                    return  # monotonic: wait for it to be Running and Ready (never, here)
            elif not parallel and (pod["metadata"].get("deletionTimestamp") or not is_ready(pod)):
                return
        for ordinal in sorted((o for o in pods if o not in wanted), reverse=True):
            self.delete_pod(pods[ordinal], sts)
            if not parallel:
                return

    def new_pod(self, sts: dict[str, Any], ordinal: int, revision: str) -> dict[str, Any]:
        """`newVersionedStatefulSetPod`."""
        name = f'{sts["metadata"]["name"]}-{ordinal}'
        template = copy.deepcopy(sts["spec"].get("template") or {})
        tmeta = template.get("metadata") or {}
        labels = {**(tmeta.get("labels") or {}), POD_NAME_LABEL: name, POD_INDEX_LABEL: str(ordinal),
                  REVISION_LABEL: revision}
        meta: dict[str, Any] = {"name": name, "namespace": sts["metadata"]["namespace"], "labels": labels}
        for key in ("annotations", "finalizers"):
            if tmeta.get(key):
                meta[key] = tmeta[key]
        meta["ownerReferences"] = [owner_reference(sts)]
        pod_spec = template.get("spec") or {}
        pod_spec["hostname"] = name
        if sts["spec"].get("serviceName"):
            pod_spec["subdomain"] = sts["spec"]["serviceName"]
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": pod_spec}
