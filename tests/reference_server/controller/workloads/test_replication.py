"""The replication manager (controller/workloads/replication.py): the ReplicaSet controller over RCs."""
from __future__ import annotations

from conformance.reference_server.controller.workloads import ReplicationManager

from .conftest import NS, pods, template


def _rc(reg, replicas=2, selector=None):
    spec = {"replicas": replicas, "template": template({"app": "web"})}
    if selector is not None:
        spec["selector"] = selector
    return reg.content("replicationcontrollers").create({"metadata": {"name": "web", "namespace": NS}, "spec": spec})


def test_rc_pods_and_status(reg):
    rc = _rc(reg)  # the selector defaults to the template's labels
    assert rc["spec"]["selector"] == {"app": "web"} and rc["metadata"]["labels"] == {"app": "web"}
    c = ReplicationManager(reg)
    c.sync(NS, "web")
    made = pods(reg)
    assert len(made) == 2
    for p in made:
        assert p["metadata"]["generateName"] == "web-"
        assert p["metadata"]["ownerReferences"] == [{"apiVersion": "v1", "kind": "ReplicationController",
                                                     "name": "web", "uid": rc["metadata"]["uid"],
                                                     "controller": True, "blockOwnerDeletion": True}]
    c.sync(NS, "web")
    status = reg.content("replicationcontrollers").get(NS, "web")["status"]
    assert status == {"replicas": 2, "fullyLabeledReplicas": 2, "observedGeneration": 1}
    stored = reg.content("replicationcontrollers").get(NS, "web")
    assert stored["spec"]["selector"] == {"app": "web"}  # the status write kept the RC's own selector shape


def test_orphans_matching_the_selector_are_adopted(reg):
    reg.content("pods").create({"metadata": {"name": "orphan", "namespace": NS, "labels": {"app": "web"}},
                                "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
    _rc(reg, replicas=1)
    ReplicationManager(reg).sync(NS, "web")
    made = pods(reg)
    assert [p["metadata"]["name"] for p in made] == ["orphan"]
    assert made[0]["metadata"]["ownerReferences"][0]["kind"] == "ReplicationController"
