"""ControllerRevisions kept by the StatefulSet and DaemonSet controllers (controller/workloads/history.py,
statefulset.py, daemonset.py), their syncs called directly."""
from __future__ import annotations

import json

import pytest

from conformance.reference_server import apierrors as E
from conformance.reference_server.controller.workloads import DaemonSetController, StatefulSetController
from conformance.reference_server.controller.workloads.templatehash import safe_encode
from conformance.reference_server.controller.workloads.history import (fnv32, go_json, hash_revision, revision_name,
                                                                      template_patch)
from conformance.reference_server.registry import DeleteOptions, ListOptions

from .conftest import NS, apps, get, patch_spec, pods, template


def revisions(reg):
    items = reg.group("apps", "controllerrevisions").list(NS, ListOptions())["items"]
    return {r["metadata"]["name"]: r for r in items}


def numbers(reg):
    return sorted((r["revision"], name) for name, r in revisions(reg).items())


def _sts(reg, **spec):
    return apps(reg, "statefulsets", "db", {"replicas": 1, "serviceName": "db",
                                            "selector": {"matchLabels": {"app": "db"}},
                                            "template": template({"app": "db"}), **spec})


def test_fnv1_not_fnv1a_and_safe_encoded():
    assert fnv32(b"") == 0x811C9DC5 and fnv32(b"a") == 0x050C5D7E  # FNV-1a would give 0xe40c292c
    data = {"spec": {"template": {"b": "<&>", "a": 1}}}
    assert go_json(data) == b'{"spec":{"template":{"a":1,"b":"\\u003c\\u0026\\u003e"}}}'
    assert hash_revision(data) == safe_encode(str(fnv32(go_json(data))))
    assert hash_revision(data, 2) == safe_encode(str(fnv32(go_json(data) + b"2")))


def test_name_prefix_cut_to_223_bytes():
    assert revision_name("web", "abc") == "web-abc"
    assert revision_name("x" * 300, "abc") == "x" * 223 + "-abc"


def test_statefulset_revision_and_template_patch(reg):
    sts = _sts(reg)
    StatefulSetController(reg).sync(NS, "db")
    [(name, rev)] = revisions(reg).items()
    hash_ = hash_revision(template_patch(get(reg, "statefulsets", "db")), 0)  # the set's count, never nil
    assert name == f"db-{hash_}" and rev["revision"] == 1
    assert rev["metadata"]["labels"] == {"app": "db", "controller.kubernetes.io/hash": hash_}
    assert rev["metadata"]["ownerReferences"][0]["uid"] == sts["metadata"]["uid"]
    tmpl = rev["data"]["spec"]["template"]
    assert tmpl["$patch"] == "replace" and tmpl["metadata"] == {"creationTimestamp": None, "labels": {"app": "db"}}
    assert list(json.loads(go_json(rev["data"]))["spec"]["template"]) == list(tmpl)  # Go's key order kept
    [pod] = pods(reg)
    assert pod["metadata"]["labels"]["controller-revision-hash"] == name


def test_statefulset_update_keeps_current_revision_and_undo_renumbers(reg):
    _sts(reg)
    c = StatefulSetController(reg)
    c.sync(NS, "db")
    [first] = revisions(reg)
    patch_spec(reg, "statefulsets", "db", {"template": template({"app": "db"}, image="nginx:2")})
    c.sync(NS, "db")
    [(_, a), (_, second)] = numbers(reg)
    status = get(reg, "statefulsets", "db")["status"]
    # pod 0 is never Ready: OrderedReady never reaches the rolling update and the current revision stays
    assert (status["currentRevision"], status["updateRevision"], status["currentReplicas"]) == (first, second, 1)
    assert "updatedReplicas" not in status
    assert [p["metadata"]["labels"]["controller-revision-hash"] for p in pods(reg)] == [first]
    patch_spec(reg, "statefulsets", "db", {"template": template({"app": "db"})})  # kubectl rollout undo
    c.sync(NS, "db")
    assert numbers(reg) == [(2, second), (3, first)]
    status = get(reg, "statefulsets", "db")["status"]
    assert (status["currentRevision"], status["updateRevision"], status["updatedReplicas"]) == (first, first, 1)


def test_statefulset_history_truncated_but_live_revisions_kept(reg):
    _sts(reg, revisionHistoryLimit=1)
    c = StatefulSetController(reg)
    for image in ("nginx", "a", "b", "c"):
        patch_spec(reg, "statefulsets", "db", {"template": template({"app": "db"}, image=image)})
        c.sync(NS, "db")
    # 1 is current (pod 0's), 4 the update revision; of the others only one (the newest) is kept
    assert [n for n, _ in numbers(reg)] == [1, 3, 4]


def test_statefulset_name_collision_counted(reg):
    _sts(reg)
    data = template_patch(get(reg, "statefulsets", "db"))
    taken = f"db-{hash_revision(data, 0)}"
    reg.group("apps", "controllerrevisions").create({"metadata": {"name": taken, "namespace": NS},
                                                     "data": {"other": True}, "revision": 7})
    StatefulSetController(reg).sync(NS, "db")
    status = get(reg, "statefulsets", "db")["status"]
    assert status["collisionCount"] == 1 and status["updateRevision"] == f"db-{hash_revision(data, 1)}"


def test_statefulset_adopts_orphan_revision(reg):
    _sts(reg)
    data = template_patch(get(reg, "statefulsets", "db"))
    reg.group("apps", "controllerrevisions").create({"metadata": {"name": "db-old", "namespace": NS,
                                                                  "labels": {"app": "db"}},
                                                     "data": data, "revision": 4})
    StatefulSetController(reg).sync(NS, "db")
    assert revisions(reg)["db-old"]["metadata"]["ownerReferences"][0]["name"] == "db"
    assert get(reg, "statefulsets", "db")["status"]["updateRevision"] == "db-old"  # the equal, last revision


def test_parallel_rolling_update_replaces_the_highest_pod_then_waits(reg):
    _sts(reg, replicas=2, podManagementPolicy="Parallel")
    c = StatefulSetController(reg)
    c.sync(NS, "db")
    patch_spec(reg, "statefulsets", "db", {"template": template({"app": "db"}, image="nginx:2")})
    for _ in range(3):
        c.sync(NS, "db")
    status = get(reg, "statefulsets", "db")["status"]
    by_pod = {p["metadata"]["name"]: p["metadata"]["labels"]["controller-revision-hash"] for p in pods(reg)}
    assert by_pod == {"db-0": status["currentRevision"], "db-1": status["updateRevision"]}
    assert {p["metadata"]["name"]: p["spec"]["containers"][0]["image"] for p in pods(reg)} == {
        "db-0": "nginx", "db-1": "nginx:2"}
    assert (status["currentReplicas"], status["updatedReplicas"]) == (1, 1)


def _ds(reg, **spec):
    return apps(reg, "daemonsets", "ds", {"selector": {"matchLabels": {"app": "ds"}},
                                          "template": template({"app": "ds"}), **spec})


def test_daemonset_history_without_nodes(reg):
    reg.group("apps", "daemonsets").create({"metadata": {"name": "ds", "namespace": NS, "annotations": {"a": "b"}},
                                            "spec": {"selector": {"matchLabels": {"app": "ds"}},
                                                     "template": template({"app": "ds"})}})
    c = DaemonSetController(reg)
    c.sync(NS, "ds")
    [(first, rev)] = revisions(reg).items()
    assert rev["metadata"]["labels"] == {"app": "ds", "controller-revision-hash": first.split("-", 1)[1]}
    # the DaemonSet's annotations, apps/v1's template generation among them (upstream's revisions carry it too)
    assert rev["metadata"]["annotations"] == {"a": "b", "deprecated.daemonset.template.generation": "1"}
    assert rev["revision"] == 1
    patch_spec(reg, "daemonsets", "ds", {"template": template({"app": "ds"}, image="nginx:2")})
    assert get(reg, "daemonsets", "ds")["metadata"]["annotations"]["deprecated.daemonset.template.generation"] == "2"
    c.sync(NS, "ds")
    [(_, _), (_, second)] = numbers(reg)
    patch_spec(reg, "daemonsets", "ds", {"template": template({"app": "ds"})})
    c.sync(NS, "ds")
    assert numbers(reg) == [(2, second), (3, first)]
    patch_spec(reg, "daemonsets", "ds", {"revisionHistoryLimit": 0})  # not the template: generation kept
    assert get(reg, "daemonsets", "ds")["metadata"]["annotations"]["deprecated.daemonset.template.generation"] == "3"
    c.sync(NS, "ds")
    assert numbers(reg) == [(3, first)]
    assert pods(reg) == []


def test_daemonset_name_collision_bumps_collision_count(reg):
    _ds(reg)
    c = DaemonSetController(reg)
    c.sync(NS, "ds")
    [(name, rev)] = revisions(reg).items()
    store = reg.group("apps", "controllerrevisions")
    store.delete(NS, name, DeleteOptions())
    store.create({"metadata": {"name": name, "namespace": NS}, "data": {"other": True}, "revision": 1})
    with pytest.raises(E.StatusError) as err:
        c.sync(NS, "ds")
    assert err.value.reason == "AlreadyExists"
    assert get(reg, "daemonsets", "ds")["status"]["collisionCount"] == 1
    c.sync(NS, "ds")
    mine = [r for n, r in revisions(reg).items() if n != name]
    assert len(mine) == 1 and mine[0]["data"] == rev["data"]
    assert get(reg, "daemonsets", "ds")["status"]["collisionCount"] == 1
