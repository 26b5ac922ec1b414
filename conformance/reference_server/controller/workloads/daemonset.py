"""The DaemonSet controller (`pkg/controller/daemon/daemon_controller.go`) on a cluster without nodes: no
node wants a daemon pod, so nothing is made and the status (`updateDaemonSetStatus`) is zeros with the
`observedGeneration` that tells `kubectl rollout status` the controller has seen the spec. Nodes created
through the API (this server has no kubelet) are not scheduled to.
"""
from __future__ import annotations

from .common import WorkloadController


class DaemonSetController(WorkloadController):
    name = "daemonset controller"
    plural = "daemonsets"
    owner_kind = "DaemonSet"
    component = "daemonset-controller"

    def sync(self, ns: str, name: str) -> None:
        ds = self.get(ns, name)
        if ds is None or ds["metadata"].get("deletionTimestamp"):
            return
        status = {"currentNumberScheduled": 0, "numberMisscheduled": 0, "desiredNumberScheduled": 0,
                  "numberReady": 0, "observedGeneration": ds["metadata"].get("generation", 0)}
        self.write_status(ds, status)
