"""The scheduler imitation (controller/scheduler.py): with no node, pods are Unschedulable as kube-scheduler
writes it (`ErrNoNodesAvailable`)."""
from __future__ import annotations

from conformance.reference_server.controller.scheduler import NO_NODES, NoNodesScheduler
from conformance.reference_server.registry import DeleteOptions, Registry
from conformance.reference_server.storage import MemoryStore

SPEC = {"containers": [{"name": "c", "image": "pause"}]}


def _reg() -> Registry:
    r = Registry(MemoryStore())
    r.namespaces.create({"metadata": {"name": "s"}})
    return r


def _conds(reg, name):
    return reg.content("pods").get("s", name)["status"].get("conditions")


def test_pod_scheduled_false_unschedulable_written_once():
    reg = _reg()
    reg.content("pods").create({"metadata": {"name": "p", "namespace": "s"}, "spec": SPEC}, field_manager="t")
    sched = NoNodesScheduler(reg)
    sched.schedule("s", "p")
    [c] = _conds(reg, "p")
    assert NO_NODES == "no nodes available to schedule pods"
    assert {k: v for k, v in c.items() if k != "lastTransitionTime"} == {
        "type": "PodScheduled", "status": "False", "lastProbeTime": None, "reason": "Unschedulable",
        "message": NO_NODES}
    pod = reg.content("pods").get("s", "p")
    assert [(m["manager"], m.get("subresource")) for m in pod["metadata"].get("managedFields", [])
            if m["manager"] == "kube-scheduler"] == [("kube-scheduler", "status")]
    rv = pod["metadata"]["resourceVersion"]
    sched.schedule("s", "p")
    assert reg.content("pods").get("s", "p")["metadata"]["resourceVersion"] == rv


def test_other_schedulers_bound_pods_and_clusters_with_nodes_are_left_alone():
    reg = _reg()
    pods = reg.content("pods")
    pods.create({"metadata": {"name": "other", "namespace": "s"}, "spec": {**SPEC, "schedulerName": "mine"}})
    pods.create({"metadata": {"name": "bound", "namespace": "s"}, "spec": {**SPEC, "nodeName": "n1"}})
    pods.create({"metadata": {"name": "free", "namespace": "s"}, "spec": SPEC})
    reg.cluster("nodes").create({"metadata": {"name": "n1"}})
    sched = NoNodesScheduler(reg)
    for name in ("other", "bound", "free"):
        sched.schedule("s", name)
        assert not _conds(reg, name)
    reg.cluster("nodes").delete("", "n1", DeleteOptions())
    sched.schedule("s", "free")
    assert _conds(reg, "free")[0]["reason"] == "Unschedulable"
