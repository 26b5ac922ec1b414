"""kube-scheduler on a cluster without nodes (`pkg/scheduler/schedule_one.go`): every pod it is asked to
schedule (`spec.schedulerName` default-scheduler, no `spec.nodeName`, not being deleted) fails with
`ErrNoNodesAvailable` ("no nodes available to schedule pods", `UnschedulableAndUnresolvable`), which
`handleSchedulingFailure` writes as the condition PodScheduled False, reason `Unschedulable`, through
`pods/status` (field manager `kube-scheduler`), after the Warning event `FailedScheduling` with the same
message (for zero nodes upstream's message is this error's, not the "0/N nodes are available: ..." of a failed
fit). A pod already carrying that condition is left alone (`UpdatePodCondition` finds nothing to change).

With Node objects present (created through the API: there is no kubelet here) this imitation steps aside:
it never binds pods, and the "0/N nodes are available: ..." messages of a failed fit need the filter plugins.
"""
from __future__ import annotations

import copy
import logging
import socket
from typing import Any

from .. import apierrors as E
from ..admission.admitted import KUBE_SCHEDULER_USER
from ..registry import ListOptions, Registry
from ..registry.meta import now
from .events import WARNING, EventRecorder
from .loop import Controller, WorkQueue

log = logging.getLogger("nsconform.reference_server.controller")
SCHEDULER_NAME = "default-scheduler"
FIELD_MANAGER = "kube-scheduler"
NO_NODES = "no nodes available to schedule pods"  # ErrNoNodesAvailable


def unschedulable(pod: dict[str, Any]) -> bool:
    """Whether the pod already has the condition this scheduler would write."""
    return any(c.get("type") == "PodScheduled" and c.get("status") == "False" and c.get("reason") == "Unschedulable"
               and c.get("message") == NO_NODES
               for c in (pod.get("status") or {}).get("conditions") or () if isinstance(c, dict))


def wants_scheduling(pod: dict[str, Any]) -> bool:
    spec = pod.get("spec") or {}
    return spec.get("schedulerName", SCHEDULER_NAME) == SCHEDULER_NAME and not spec.get("nodeName") \
        and not pod["metadata"].get("deletionTimestamp") \
        and (pod.get("status") or {}).get("phase", "Pending") == "Pending"


class NoNodesScheduler(Controller):
    name = "scheduler"
    # kind's kube-scheduler.conf: a client certificate `CN=system:kube-scheduler` without organisation
    client_user = KUBE_SCHEDULER_USER

    def __init__(self, registry: Registry, admission: Any = None, hostname: str = ""):
        super().__init__()
        self.registry = registry
        # kube-scheduler's recorder is the events.k8s.io one (`tools/events`): `reportingInstance`
        # `default-scheduler-<host>`, action `Scheduling`
        self.recorder = EventRecorder(registry, SCHEDULER_NAME, admission, host=f"{SCHEDULER_NAME}-{hostname or socket.gethostname()}",
                                      events_api=True, action="Scheduling", field_manager=FIELD_MANAGER)
        self.keys: WorkQueue[tuple[str, str]] = self._queue()

    def start(self) -> None:
        pods = self.registry.content("pods")
        if pods is None:
            return
        self._inform(pods, self._on_pod)
        self._work(self.keys, self._sync)

    def _on_pod(self, ev: Any) -> None:
        if ev.type != "DELETED" and wants_scheduling(ev.object) and not unschedulable(ev.object):
            self.keys.add((ev.namespace, ev.name))

    async def _sync(self, key: tuple[str, str]) -> None:
        self.schedule(*key)

    def schedule(self, ns: str, name: str) -> None:
        """One scheduling cycle for the pod: with no node, the failure condition."""
        nodes = self.registry.cluster("nodes")
        if nodes is not None and nodes.list(None, ListOptions(limit=1), shared=True)["items"]:
            return
        pods = self.registry.content("pods")
        try:
            pod = pods.get(ns, name)  # type: ignore[union-attr]
        except E.StatusError:
            return
        if not wants_scheduling(pod) or unschedulable(pod):
            return
        uid = pod["metadata"].get("uid")

        def fail(cur: dict[str, Any]) -> dict[str, Any]:
            if cur["metadata"].get("uid") != uid:
                raise E.conflict("pods", name, "the object has been recreated")
            new = copy.deepcopy(cur)
            status = new.setdefault("status", {})
            conditions = [c for c in status.get("conditions") or [] if c.get("type") != "PodScheduled"]
            conditions.append({"type": "PodScheduled", "status": "False", "lastProbeTime": None,
                               "lastTransitionTime": now(), "reason": "Unschedulable", "message": NO_NODES})
            status["conditions"] = conditions
            return new
        # handleSchedulingFailure: the event (Warning FailedScheduling, the status's message), then the condition
        self.recorder.event(pod, WARNING, "FailedScheduling", NO_NODES)
        try:
            self.writes.update(pods, ns, name, transform=fail, strategy=pods.status_strategy,  # type: ignore[union-attr]
                               field_manager=FIELD_MANAGER)
        except E.StatusError as exc:
            if exc.code not in (404, 409):
                log.info("%s: %s/%s: %s", self.name, ns, name, exc.message)
