"""The Deployment controller (controller/workloads/deployment.py), with the ReplicaSet controller beside it."""
from __future__ import annotations

import datetime as dt

from conformance.reference_server.controller.workloads import DeploymentController, ReplicaSetController
from conformance.reference_server.registry import ListOptions

from .conftest import NS, apps, get, patch_spec, pods, template


def _deploy(reg, replicas=2, **spec):
    return apps(reg, "deployments", "web", {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                                            "template": template({"app": "web"}), **spec})


def _rss(reg):
    return sorted(reg.group("apps", "replicasets").list(NS, ListOptions())["items"],
                  key=lambda r: r["metadata"]["creationTimestamp"] + r["metadata"]["resourceVersion"].zfill(12))


def _settle(reg, d, r, times=4):
    for _ in range(times):
        d.sync(NS, "web")
        for rs in _rss(reg):
            r.sync(NS, rs["metadata"]["name"])


def _conds(obj):
    return {c["type"]: (c["status"], c["reason"], c["message"]) for c in obj["status"].get("conditions", [])}


def test_the_new_replicaset_and_its_pods(reg):
    dep = _deploy(reg)
    d, r = DeploymentController(reg), ReplicaSetController(reg)
    _settle(reg, d, r)
    [rs] = _rss(reg)
    h = rs["metadata"]["labels"]["pod-template-hash"]
    assert rs["metadata"]["name"] == f"web-{h}"
    assert rs["metadata"]["labels"] == {"app": "web", "pod-template-hash": h}
    assert rs["metadata"]["annotations"] == {"deployment.kubernetes.io/revision": "1",
                                             "deployment.kubernetes.io/desired-replicas": "2",
                                             "deployment.kubernetes.io/max-replicas": "3"}
    assert rs["spec"]["selector"] == {"matchLabels": {"app": "web", "pod-template-hash": h}}
    assert rs["spec"]["replicas"] == 2 and rs["spec"]["template"]["metadata"]["labels"]["pod-template-hash"] == h
    assert rs["metadata"]["ownerReferences"] == [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web",
                                                  "uid": dep["metadata"]["uid"], "controller": True,
                                                  "blockOwnerDeletion": True}]
    assert len(pods(reg)) == 2 and all(p["metadata"]["labels"]["pod-template-hash"] == h for p in pods(reg))
    now = get(reg, "deployments", "web")
    assert now["metadata"]["annotations"] == {"deployment.kubernetes.io/revision": "1"}
    status = {k: v for k, v in now["status"].items() if k != "conditions"}
    assert status == {"observedGeneration": 1, "replicas": 2, "updatedReplicas": 2, "unavailableReplicas": 2}
    assert _conds(now) == {
        "Available": ("False", "MinimumReplicasUnavailable", "Deployment does not have minimum availability."),
        "Progressing": ("True", "ReplicaSetUpdated", f'ReplicaSet "web-{h}" is progressing.')}


def test_first_sync_says_new_replicaset_created(reg):
    _deploy(reg)
    DeploymentController(reg).sync(NS, "web")
    [rs] = _rss(reg)
    assert _conds(get(reg, "deployments", "web"))["Progressing"] == (
        "True", "NewReplicaSetCreated", f'Created new replica set "{rs["metadata"]["name"]}"')


def test_a_rolling_update_over_pods_never_available_stops_at_the_surge(reg):
    _deploy(reg, replicas=4)
    d, r = DeploymentController(reg), ReplicaSetController(reg)
    _settle(reg, d, r)
    patch_spec(reg, "deployments", "web", {"template": template({"app": "web"}, image="nginx:2")})
    _settle(reg, d, r)
    old, new = _rss(reg)
    # maxSurge 25% of 4 = 1, maxUnavailable 25% = 1: new 1 (4+1 pods), old 3 (one unavailable may go), new 2
    # (4+1 again); then 5 pods, none available: nothing more may move, as on a cluster whose pods never start
    assert (old["spec"]["replicas"], new["spec"]["replicas"]) == (3, 2)
    assert new["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"
    assert len(pods(reg)) == 5
    dep = get(reg, "deployments", "web")
    assert dep["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"
    assert dep["status"]["updatedReplicas"] == 2 and dep["status"]["observedGeneration"] == 2


def test_recreate_scales_the_old_replicaset_down_before_the_new_one(reg):
    _deploy(reg, strategy={"type": "Recreate"})
    d, r = DeploymentController(reg), ReplicaSetController(reg)
    _settle(reg, d, r)
    patch_spec(reg, "deployments", "web", {"template": template({"app": "web"}, image="nginx:2")})
    d.sync(NS, "web")
    [old] = _rss(reg)
    assert old["spec"]["replicas"] == 0 and len(pods(reg)) == 2  # no new ReplicaSet while old pods remain
    _settle(reg, d, r)
    old, new = _rss(reg)
    assert (old["spec"]["replicas"], new["spec"]["replicas"]) == (0, 2)
    assert {p["metadata"]["labels"]["pod-template-hash"] for p in pods(reg)} == \
        {new["metadata"]["labels"]["pod-template-hash"]}


def test_scale(reg):
    _deploy(reg)
    d, r = DeploymentController(reg), ReplicaSetController(reg)
    _settle(reg, d, r)
    patch_spec(reg, "deployments", "web", {"replicas": 5})
    _settle(reg, d, r)
    [rs] = _rss(reg)
    assert rs["spec"]["replicas"] == 5 and len(pods(reg)) == 5
    assert rs["metadata"]["annotations"]["deployment.kubernetes.io/desired-replicas"] == "5"
    assert rs["metadata"]["annotations"]["deployment.kubernetes.io/max-replicas"] == "7"


def test_paused_makes_no_replicaset(reg):
    _deploy(reg, paused=True)
    DeploymentController(reg).sync(NS, "web")
    assert _rss(reg) == []
    assert _conds(get(reg, "deployments", "web"))["Progressing"] == ("Unknown", "DeploymentPaused",
                                                                     "Deployment is paused")


def test_progress_deadline_exceeded(reg):
    _deploy(reg, progressDeadlineSeconds=5)
    d, r = DeploymentController(reg), ReplicaSetController(reg)
    _settle(reg, d, r)
    assert d.requeued and d.requeued[-1][0] == (NS, "web") and 0 < d.requeued[-1][1] <= 6

    def backdate(cur):  # the last progress was 10 s ago
        ago = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=10)).strftime("%Y-%m-%dT%H:%M:%SZ")
        for c in cur["status"]["conditions"]:
            c["lastUpdateTime"] = ago
        return cur
    store = reg.group("apps", "deployments")
    store.update(NS, "web", transform=backdate, strategy=store.status_strategy)
    d.sync(NS, "web")
    [rs] = _rss(reg)
    assert _conds(get(reg, "deployments", "web"))["Progressing"] == (
        "False", "ProgressDeadlineExceeded", f'ReplicaSet "{rs["metadata"]["name"]}" has timed out progressing.')


def test_zero_replicas_is_available_and_complete(reg):
    _deploy(reg, replicas=0)
    d, r = DeploymentController(reg), ReplicaSetController(reg)
    _settle(reg, d, r)
    [rs] = _rss(reg)
    conds = _conds(get(reg, "deployments", "web"))
    assert conds["Available"] == ("True", "MinimumReplicasAvailable", "Deployment has minimum availability.")
    assert conds["Progressing"] == ("True", "NewReplicaSetAvailable",
                                    f'ReplicaSet "{rs["metadata"]["name"]}" has successfully progressed.')


# ---- rollout history (kubectl rollout history/undo read and write these) -----------------------------
def _history_deploy(reg, replicas=1, **spec):
    from .conftest import apps, template
    return apps(reg, "deployments", "h", {"replicas": replicas, "selector": {"matchLabels": {"app": "h"}},
                                          "template": template({"app": "h"}), **spec})


def _by_image(reg):
    from conformance.reference_server.registry import ListOptions
    return {rs["spec"]["template"]["spec"]["containers"][0]["image"]: rs
            for rs in reg.group("apps", "replicasets").list(NS, ListOptions())["items"]}


def _set_image(reg, image):
    from .conftest import template
    patch_spec(reg, "deployments", "h", {"template": template({"app": "h"}, image=image)})


def test_undo_raises_the_old_replicasets_revision_and_keeps_its_history(reg):
    from conformance.reference_server.controller.workloads import DeploymentController
    _history_deploy(reg)
    dc = DeploymentController(reg)
    dc.sync(NS, "h")
    _set_image(reg, "nginx:2")
    dc.sync(NS, "h")
    rss = _by_image(reg)
    assert rss["nginx"]["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "1"
    assert rss["nginx:2"]["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"
    old_template = rss["nginx"]["spec"]["template"]
    del old_template["metadata"]["labels"]["pod-template-hash"]

    def undo(cur):  # what `kubectl rollout undo` does: the old ReplicaSet's template, without its hash label
        cur["metadata"].setdefault("annotations", {})["kubernetes.io/change-cause"] = "undo to 1"
        cur["spec"]["template"] = old_template
        return cur
    reg.group("apps", "deployments").update(NS, "h", transform=undo)
    dc.sync(NS, "h")
    ann = _by_image(reg)["nginx"]["metadata"]["annotations"]
    assert ann["deployment.kubernetes.io/revision"] == "3"
    assert ann["deployment.kubernetes.io/revision-history"] == "1"
    assert ann["kubernetes.io/change-cause"] == "undo to 1"
    assert get(reg, "deployments", "h")["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "3"
    _set_image(reg, "nginx:2")
    dc.sync(NS, "h")
    _set_image(reg, "nginx")
    dc.sync(NS, "h")
    ann = _by_image(reg)["nginx"]["metadata"]["annotations"]
    assert (ann["deployment.kubernetes.io/revision"], ann["deployment.kubernetes.io/revision-history"]) == ("5", "1,3")


def test_revision_history_limit_deletes_the_oldest_idle_replicasets_once_complete(reg):
    from conformance.reference_server.controller.workloads import DeploymentController, ReplicaSetController
    _history_deploy(reg, replicas=0, revisionHistoryLimit=1)
    dc, rsc = DeploymentController(reg), ReplicaSetController(reg)
    for image in ("nginx:2", "nginx:3", "nginx:4"):
        dc.sync(NS, "h")
        for rs in _by_image(reg).values():
            rsc.sync(NS, rs["metadata"]["name"])
        dc.sync(NS, "h")
        _set_image(reg, image)
    dc.sync(NS, "h")
    for rs in _by_image(reg).values():
        rsc.sync(NS, rs["metadata"]["name"])
    dc.sync(NS, "h")
    dc.sync(NS, "h")
    assert sorted(_by_image(reg)) == ["nginx:3", "nginx:4"]  # the new one and revisionHistoryLimit=1 old one
