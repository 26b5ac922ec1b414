"""kube-controller-manager's workload controllers, as they behave on a cluster without nodes (pods are made
and stay Pending): ReplicaSet, Deployment, StatefulSet, Job, CronJob (cron.py: the schedule syntax),
DaemonSet. One module each; `common.py` holds what they share (`controller_utils.go`). They set
ownerReferences as upstream; cascading deletion is the garbage collector's."""
from __future__ import annotations

from typing import Any

from ...registry import Registry
from ...storage.offload import Offload
from .cronjob import CronJobController
from .daemonset import DaemonSetController
from .deployment import DeploymentController
from .job import JobController
from .replicaset import ReplicaSetController
from .replication import ReplicationManager
from .statefulset import StatefulSetController
from .common import WorkloadController

CONTROLLERS = (ReplicaSetController, DeploymentController, StatefulSetController, JobController, CronJobController,
               DaemonSetController,
               ReplicationManager)


def workload_controllers(registry: Registry, admission: Any = None) -> list[WorkloadController]:
    """The workload controllers, not started; `admission` is the server's chain (pods they create pass it).
    They share one offload (on etcd: one writer thread, syncs one at a time, off the event loop)."""
    offload = Offload(registry.store, "workload-controllers")
    return [c(registry, admission, offload) for c in CONTROLLERS]


__all__ = ["CONTROLLERS", "CronJobController", "DaemonSetController", "DeploymentController", "JobController", "ReplicaSetController",
           "StatefulSetController", "workload_controllers"]
