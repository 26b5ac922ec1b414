"""The StatefulSet and DaemonSet controllers (controller/workloads/statefulset.py, daemonset.py)."""
from __future__ import annotations

from conformance.reference_server.controller.workloads import DaemonSetController, StatefulSetController

from .conftest import NS, apps, get, patch_spec, pods, template


def _sts(reg, **spec):
    return apps(reg, "statefulsets", "db", {"replicas": 3, "serviceName": "db", "selector": {"matchLabels": {"app": "db"}},
                                            "template": template({"app": "db"}), **spec})


def test_ordered_ready_makes_pod_0_and_waits_for_it(reg):
    sts = _sts(reg)
    c = StatefulSetController(reg)
    c.sync(NS, "db")
    c.sync(NS, "db")
    [p] = pods(reg)
    rev = get(reg, "statefulsets", "db")["status"]["updateRevision"]
    assert rev.startswith("db-")
    assert p["metadata"]["name"] == "db-0" and "generateName" not in p["metadata"]
    assert p["metadata"]["labels"] == {"app": "db", "statefulset.kubernetes.io/pod-name": "db-0",
                                       "apps.kubernetes.io/pod-index": "0", "controller-revision-hash": rev}
    assert (p["spec"]["hostname"], p["spec"]["subdomain"]) == ("db-0", "db")
    assert p["metadata"]["ownerReferences"][0]["uid"] == sts["metadata"]["uid"]
    assert get(reg, "statefulsets", "db")["status"] == {
        "observedGeneration": 1, "replicas": 1, "availableReplicas": 0, "currentReplicas": 1, "updatedReplicas": 1,
        "currentRevision": rev, "updateRevision": rev, "collisionCount": 0}


def test_parallel_makes_all_and_scales_down_from_the_top(reg):
    _sts(reg, podManagementPolicy="Parallel")
    c = StatefulSetController(reg)
    c.sync(NS, "db")
    assert sorted(p["metadata"]["name"] for p in pods(reg)) == ["db-0", "db-1", "db-2"]
    patch_spec(reg, "statefulsets", "db", {"replicas": 1})
    c.sync(NS, "db")
    assert [p["metadata"]["name"] for p in pods(reg)] == ["db-0"]


def test_daemonset_status_without_nodes(reg):
    apps(reg, "daemonsets", "ds", {"selector": {"matchLabels": {"app": "ds"}}, "template": template({"app": "ds"})})
    DaemonSetController(reg).sync(NS, "ds")
    assert pods(reg) == []
    assert get(reg, "daemonsets", "ds")["status"] == {"currentNumberScheduled": 0, "numberMisscheduled": 0,
                                                      "desiredNumberScheduled": 0, "numberReady": 0,
                                                      "observedGeneration": 1}
