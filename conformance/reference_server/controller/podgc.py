"""kube-controller-manager's pod garbage collector (`pkg/controller/podgc/gc_controller.go`), as far as a cluster
without nodes can tell: no kubelet ever confirms a pod's deletion here, so this is what removes pods.

Every `period` seconds (upstream `gcCheckPeriod`, 20 s) it lists pods and nodes and
* `gcOrphaned`: a pod bound (`spec.nodeName`) to a node that does not exist puts that node in quarantine for
  `quarantine` seconds (`quarantineTime`, 40 s); a node still missing afterwards (checked with a GET) has its
  pods marked Failed with the `DisruptionTarget` condition (`DeletionByPodGC`, `PodGC: node no longer exists`)
  and deleted with grace 0 — whether or not anyone deleted them before;
* `gcUnscheduledTerminating`: a pod being deleted that is bound to no node (one held by finalizers: others go
  at once) is marked Failed and deleted with grace 0.
`gcTerminated` (past `--terminated-pod-gc-threshold`, 12500) and `gcTerminating` (nodes tainted out-of-service)
need terminated pods or nodes, which this server never produces.

Its writes (the `pods/status` UPDATE, then the DELETE) are made as its service account
(`cmd/kube-controller-manager/app/core.go` `ClientOrDie("pod-garbage-collector")`) through admission/admitted.py:
a pass that reaches a write some webhook or policy selects stops, is admitted, and runs again; a refused write is
logged and the pod tried again on the next pass (upstream logs the error and goes on to the next pod).
"""
from __future__ import annotations

import asyncio
import copy
import logging
import time
from typing import Any

from .. import apierrors as E
from ..registry import DeleteOptions, ListOptions, Registry
from ..registry.meta import now
from ..admission.admitted import admitted
from .loop import Controller

log = logging.getLogger("nsconform.reference_server.controller")
GC_CHECK_PERIOD = 20.0
QUARANTINE_TIME = 40.0
FIELD_MANAGER = "kube-controller-manager"
ORPHANED = {"type": "DisruptionTarget", "status": "True", "reason": "DeletionByPodGC",
            "message": "PodGC: node no longer exists"}


class PodGarbageCollector(Controller):
    name = "pod garbage collector"
    service_account = "pod-garbage-collector"

    def __init__(self, registry: Registry, *, period: float = GC_CHECK_PERIOD, quarantine: float = QUARANTINE_TIME):
        super().__init__()
        self.registry = registry
        self.period = period
        self.quarantine = quarantine
        self._quarantined: dict[str, float] = {}  # node name → when its quarantine ends (the delaying queue)

    def start(self) -> None:
        """Start the periodic pass (`wait.UntilWithContext`: at once, then every period); on the server's loop."""
        async def run() -> None:
            while True:
                try:  # a pass stopped by a write still to be admitted runs again once it is
                    await admitted(self._pass)
                except Exception:  # a controller bug must not stop the loop
                    log.exception("%s: pass failed", self.name)
                await asyncio.sleep(self.period)
        self._spawn(run())

    async def _pass(self) -> None:
        self.gc()

    def gc(self, clock: float | None = None) -> None:
        """One pass over every pod (upstream's order: orphaned, then unscheduled terminating)."""
        t = time.monotonic() if clock is None else clock
        pods = self.registry.content("pods")
        if pods is None:
            return
        items = pods.list(None, ListOptions(), shared=True)["items"]
        nodes = self.registry.cluster("nodes")
        existing = {n["metadata"]["name"] for n in nodes.list(None, ListOptions(), shared=True)["items"]} \
            if nodes is not None else set()
        for p in items:
            node = (p.get("spec") or {}).get("nodeName")
            if node and node not in existing:
                self._quarantined.setdefault(node, t + self.quarantine)
        gone, expired = set(), []
        for node, until in list(self._quarantined.items()):
            if until <= t:
                expired.append(node)
                if node not in existing and not self._node_exists(node):
                    gone.add(node)
        for p in items:
            if (p.get("spec") or {}).get("nodeName") in gone:
                self._mark_failed_and_delete(p, ORPHANED)
        for node in expired:  # (after the writes: a pass a pending admission stopped finds them again)
            del self._quarantined[node]
        for p in items:
            if p["metadata"].get("deletionTimestamp") and not (p.get("spec") or {}).get("nodeName"):
                self._mark_failed_and_delete(p, None)

    def _node_exists(self, name: str) -> bool:
        nodes = self.registry.cluster("nodes")
        if nodes is None:
            return False
        try:
            nodes.get("", name)
            return True
        except E.StatusError:
            return False

    def _mark_failed_and_delete(self, pod: dict[str, Any], condition: dict[str, Any] | None) -> None:
        """`markFailedAndDeletePodWithCondition`: phase Failed (and the condition) first, then DELETE with grace 0."""
        pods = self.registry.content("pods")
        meta = pod["metadata"]
        ns, name, uid = meta.get("namespace", ""), meta["name"], meta.get("uid")
        try:
            if ((pod.get("status") or {}).get("phase")) not in ("Succeeded", "Failed"):
                def failed(cur: dict[str, Any]) -> dict[str, Any]:
                    if uid and cur["metadata"].get("uid") != uid:  # PatchPodStatus's UID precondition
                        raise E.conflict("pods", name, "the object has been recreated")
                    new = copy.deepcopy(cur)
                    status = new.setdefault("status", {})
                    status["phase"] = "Failed"
                    if condition is not None:
                        conds = [c for c in status.get("conditions") or [] if c.get("type") != condition["type"]]
                        conds.append({"type": condition["type"], "status": condition["status"], "lastProbeTime": None,
                                      "lastTransitionTime": now(), "reason": condition["reason"],
                                      "message": condition["message"]})
                        status["conditions"] = conds
                    return new
                strategy = pods.status_strategy  # `pods/status` (registry/subresources.py)
                self.writes.update(pods, ns, name, transform=failed, strategy=strategy, field_manager=FIELD_MANAGER)
            self.writes.delete(pods, ns, name, DeleteOptions(grace_period_seconds=0))  # NewDeleteOptions(0)
        except E.StatusError as exc:
            if exc.code != 404:
                log.info("%s: %s/%s: %s", self.name, ns, name, exc.message)
