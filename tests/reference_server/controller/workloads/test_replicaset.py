"""The ReplicaSet controller (controller/workloads/replicaset.py)."""
from __future__ import annotations

from conformance.reference_server.controller.workloads import ReplicaSetController
from conformance.reference_server.registry import DeleteOptions

from .conftest import NS, apps, get, patch_spec, pods, template


def _rs(reg, replicas=3):
    return apps(reg, "replicasets", "web", {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                                            "template": template({"app": "web"})})


def test_pods_from_the_template_with_a_controller_reference(reg):
    rs = _rs(reg)
    ReplicaSetController(reg).sync(NS, "web")
    made = pods(reg)
    assert len(made) == 3
    for p in made:
        meta = p["metadata"]
        assert meta["generateName"] == "web-" and meta["name"].startswith("web-") and len(meta["name"]) == 9
        assert meta["labels"] == {"app": "web"}
        assert meta["ownerReferences"] == [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web",
                                            "uid": rs["metadata"]["uid"], "controller": True,
                                            "blockOwnerDeletion": True}]
        assert p["spec"]["containers"][0]["image"] == "nginx" and p["status"]["phase"] == "Pending"
        assert meta["managedFields"][0]["manager"] == "kube-controller-manager"


def test_status_counts_pods_listed_before_the_sync_wrote(reg):
    _rs(reg)
    c = ReplicaSetController(reg)
    c.sync(NS, "web")
    assert get(reg, "replicasets", "web")["status"] == {"replicas": 0, "observedGeneration": 1}  # upstream's order
    c.sync(NS, "web")
    assert get(reg, "replicasets", "web")["status"] == {"replicas": 3, "fullyLabeledReplicas": 3,
                                                        "observedGeneration": 1}
    assert len(pods(reg)) == 3  # nothing more made


def test_scale_down_deletes_the_newest_pods(reg):
    _rs(reg)
    c = ReplicaSetController(reg)
    c.sync(NS, "web")
    oldest = sorted(pods(reg), key=lambda p: (p["metadata"]["creationTimestamp"], p["metadata"]["resourceVersion"]))
    patch_spec(reg, "replicasets", "web", {"replicas": 1})
    c.sync(NS, "web")
    left = pods(reg)
    assert len(left) == 1
    assert left[0]["metadata"]["creationTimestamp"] == oldest[0]["metadata"]["creationTimestamp"]


def test_a_deleted_pod_is_replaced(reg):
    _rs(reg, replicas=1)
    c = ReplicaSetController(reg)
    c.sync(NS, "web")
    first = pods(reg)[0]["metadata"]["name"]
    reg.content("pods").delete(NS, first, DeleteOptions())  # unscheduled: removed at once
    c.sync(NS, "web")
    assert [p["metadata"]["name"] for p in pods(reg)] != [first] and len(pods(reg)) == 1


def test_a_failed_create_is_the_replica_failure_condition_and_terminating_is_quiet(reg):
    from conformance.reference_server.admission.scope import ScopeAdmission
    _rs(reg, replicas=2)
    quotas = reg.content("resourcequotas")
    quotas.create({"metadata": {"name": "q", "namespace": NS}, "spec": {"hard": {"pods": "0"}}})
    quotas.update(NS, "q", transform=lambda q: {**q, "status": {"hard": {"pods": "0"}, "used": {"pods": "0"}}},
                  strategy=quotas.status_strategy)  # what the quota controller writes
    c = ReplicaSetController(reg, ScopeAdmission(reg))
    c.sync(NS, "web")
    cond = get(reg, "replicasets", "web")["status"]["conditions"]
    assert [(x["type"], x["status"], x["reason"]) for x in cond] == [("ReplicaFailure", "True", "FailedCreate")]
    assert "exceeded quota" in cond[0]["message"] and pods(reg) == []
    reg.content("resourcequotas").delete(NS, "q", DeleteOptions())
    reg.namespaces.delete("", NS, DeleteOptions())  # Terminating: admission refuses, the controller says nothing
    c.sync(NS, "web")
    assert pods(reg) == [] and "conditions" not in get(reg, "replicasets", "web")["status"]


def test_a_large_replicaset_is_made_a_chunk_per_sync(reg):
    """At most SYNC_CREATES pods a sync, the rest queued at once: the event loop serves requests in between."""
    from conformance.reference_server.controller.workloads.common import SYNC_CREATES
    _rs(reg, replicas=SYNC_CREATES + 6)
    c = ReplicaSetController(reg)
    c.sync(NS, "web")
    assert len(pods(reg)) == SYNC_CREATES and c.requeued == [((NS, "web"), 0)]
    c.sync(NS, "web")
    assert len(pods(reg)) == SYNC_CREATES + 6


# ---- adoption and release by selector (controller_ref_manager.go) -----------------------------------
def _orphan(reg, name, labels):
    return reg.content("pods").create({"metadata": {"name": name, "namespace": NS, "labels": labels},
                                       "spec": {"containers": [{"name": "c", "image": "nginx"}]}})


def test_an_orphan_matching_the_selector_is_adopted_and_counted(reg):
    _orphan(reg, "stray", {"app": "web"})
    _orphan(reg, "other", {"app": "db"})
    rs = _rs(reg, replicas=2)
    ReplicaSetController(reg).sync(NS, "web")
    stray = reg.content("pods").get(NS, "stray")
    assert stray["metadata"]["ownerReferences"] == [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web",
                                                     "uid": rs["metadata"]["uid"], "controller": True,
                                                     "blockOwnerDeletion": True}]
    assert "ownerReferences" not in reg.content("pods").get(NS, "other")["metadata"]
    assert len(pods(reg)) == 3  # the adopted pod counts: one made, not two


def test_a_pod_that_no_longer_matches_is_released_and_replaced(reg):
    _rs(reg, replicas=1)
    c = ReplicaSetController(reg)
    c.sync(NS, "web")
    [mine] = pods(reg)

    def relabel(cur):
        cur["metadata"]["labels"] = {"app": "debug"}
        return cur
    reg.content("pods").update(NS, mine["metadata"]["name"], transform=relabel)
    c.sync(NS, "web")
    assert "ownerReferences" not in reg.content("pods").get(NS, mine["metadata"]["name"])["metadata"]
    assert len(pods(reg)) == 2


def test_a_replicaset_being_deleted_adopts_nothing(reg):
    _rs(reg, replicas=0)
    reg.group("apps", "replicasets").update(NS, "web", transform=lambda cur: {
        **cur, "metadata": {**cur["metadata"], "finalizers": ["x/y"]}})
    reg.group("apps", "replicasets").delete(NS, "web", DeleteOptions())
    _orphan(reg, "stray", {"app": "web"})
    ReplicaSetController(reg).sync(NS, "web")
    assert "ownerReferences" not in reg.content("pods").get(NS, "stray")["metadata"]
