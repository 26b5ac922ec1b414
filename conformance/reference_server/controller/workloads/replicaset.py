"""The ReplicaSet controller (`pkg/controller/replicaset/replica_set.go`), on a cluster without nodes: pods
are made from the template (`<rs>-xxxxx`, controller reference, slow-start batches of 1, 2, 4, ... at most
`burstReplicas` 500 a sync), surplus pods deleted (the least advanced first: `getPodsToDelete` ranks
unscheduled before scheduled, pending before running, not ready before ready, newest first), and the status
counts them (`calculateStatus`); none is ever ready or available here.
"""
from __future__ import annotations

from typing import Any

from ...admission.admitted import AdmissionRefusal
from ...registry.workloads import selector_matches
from .common import WorkloadController, counts, is_active, is_ready, now, pod_from_template, set_condition, \
    slow_start

BURST_REPLICAS = 500


def _delete_rank(pod: dict[str, Any]) -> tuple[Any, ...]:
    """`controller.ActivePodsWithRanks.Less`, sorted first-to-delete first."""
    status = pod.get("status") or {}
    phase_rank = {"Pending": 0, "Unknown": 1, "Running": 2}.get(status.get("phase", ""), 0)
    created = pod["metadata"].get("creationTimestamp") or ""
    return (bool((pod.get("spec") or {}).get("nodeName")), phase_rank, is_ready(pod),
            "".join(chr(0x10FFFF - ord(ch)) for ch in created))  # newer first


class ReplicaSetController(WorkloadController):
    name = "replicaset controller"
    plural = "replicasets"
    owner_kind = "ReplicaSet"
    component = "replicaset-controller"
    service_account = "replicaset-controller"
    adopts = True

    def member(self, owner: dict[str, Any], obj: dict[str, Any]) -> bool:
        return is_active(obj)  # `FilterActivePods` before `ClaimPods`

    def sync(self, ns: str, name: str) -> None:
        rs = self.get(ns, name)
        if rs is None:
            return
        pods = [p for p in self.claim(self.pods, rs) if is_active(p)]
        error = None
        if not rs["metadata"].get("deletionTimestamp"):
            error = self.manage_replicas(pods, rs)
        self.write_status(rs, self.calculate_status(rs, pods, error))
        if isinstance(error, AdmissionRefusal):  # `manageReplicasErr` returned: the key requeued, rate-limited
            self.requeue_after((ns, name), self.backoff((ns, name)))

    def manage_replicas(self, pods: list[dict[str, Any]], rs: dict[str, Any]) -> Any:
        """`manageReplicas`: create or delete the difference; returns the first creation error."""
        want = int((rs.get("spec") or {}).get("replicas", 1) or 0)
        diff = len(pods) - want
        if diff < 0:
            template = rs["spec"]["template"]
            key = (rs["metadata"]["namespace"], rs["metadata"]["name"])
            _, error = slow_start(self.capped(key, min(-diff, BURST_REPLICAS)),
                                  lambda: self.create_pod(pod_from_template(template, rs), rs))
            return error
        if diff > 0:
            for pod in sorted(pods, key=_delete_rank)[:min(diff, BURST_REPLICAS)]:
                self.delete_pod(pod, rs)
        return None

    def calculate_status(self, rs: dict[str, Any], pods: list[dict[str, Any]], error: Any) -> dict[str, Any]:
        """`calculateStatus` (zero counts are omitted, as Go's `omitempty`; `replicas` always shown)."""
        template_labels = ((rs["spec"].get("template") or {}).get("metadata") or {}).get("labels") or {}
        old = rs.get("status") or {}
        status: dict[str, Any] = {"replicas": len(pods)}
        fully = counts(pods, lambda p: selector_matches({"matchLabels": template_labels},
                                                          p["metadata"].get("labels") or {}))
        ready = counts(pods, is_ready)
        for key, value in (("fullyLabeledReplicas", fully), ("readyReplicas", ready), ("availableReplicas", ready),
                           ("observedGeneration", rs["metadata"].get("generation", 0))):
            if value:
                status[key] = value
        conditions = [c for c in old.get("conditions") or [] if isinstance(c, dict)]
        if error is not None:
            conditions = set_condition(conditions, {"type": "ReplicaFailure", "status": "True",
                                                    "lastTransitionTime": now(), "reason": "FailedCreate",
                                                    "message": error.message})
        else:
            conditions = [c for c in conditions if c.get("type") != "ReplicaFailure"]
        if conditions:
            status["conditions"] = conditions
        return status
