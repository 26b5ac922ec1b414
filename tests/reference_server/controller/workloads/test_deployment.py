"""The Deployment controller (controller/workloads/deployment.py), with the ReplicaSet controller beside it."""
from __future__ import annotations

import datetime as dt

from conformance.reference_server.controller.workloads import DeploymentController, ReplicaSetController, proportional
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
    from conformance.reference_server.controller.workloads import DeploymentController, ReplicaSetController, proportional
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


# ---- proportional scaling (sync.go `scale`, deployment_util.go `GetProportion`) ------------------------
def _stuck_rollout(reg):
    """replicas 3, maxSurge 1, maxUnavailable 0, pods never available: the new ReplicaSet gets the one surge
    pod (3 + 1 = 4 at most) and no old pod may go (3 must stay available): stuck at old 3, new 1, both
    annotated desired-replicas 3 and max-replicas 4."""
    _deploy(reg, replicas=3, strategy={"type": "RollingUpdate",
                                       "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}})
    d, r = DeploymentController(reg), ReplicaSetController(reg)
    _settle(reg, d, r)
    patch_spec(reg, "deployments", "web", {"template": template({"app": "web"}, image="nginx:2")})
    _settle(reg, d, r)
    old, new = _rss(reg)
    assert (old["spec"]["replicas"], new["spec"]["replicas"]) == (3, 1)
    return d, r


def _sizes(reg):
    return [(rs["spec"]["replicas"], rs["metadata"]["annotations"]["deployment.kubernetes.io/desired-replicas"],
             rs["metadata"]["annotations"]["deployment.kubernetes.io/max-replicas"]) for rs in _rss(reg)]


def test_scaling_up_mid_rollout_spreads_the_new_replicas_in_proportion(reg):
    d, r = _stuck_rollout(reg)
    patch_spec(reg, "deployments", "web", {"replicas": 9})
    _settle(reg, d, r)
    # allowed 9 + 1 = 10, to add 10 - 4 = 6; largest first: old 3 * 10 / 4 = 7.5, rounded half away from
    # zero to 8: +5; new 1 * 10 / 4 = 2.5 → 3: +2, but only 6 - 5 = 1 is left: +1. Then the rollout (not a
    # scaling event any more) moves nothing: 10 pods = 9 + surge, none available.
    assert _sizes(reg) == [(8, "9", "10"), (2, "9", "10")]
    assert len(pods(reg)) == 10
    old, new = (rs["metadata"]["name"] for rs in _rss(reg))
    messages = {e["message"] for e in reg.content("events").list(NS, ListOptions())["items"]
                if e["reason"] == "ScalingReplicaSet"}
    assert {f"Scaled up replica set {old} from 3 to 8", f"Scaled up replica set {new} from 1 to 2"} <= messages


def test_scaling_down_mid_rollout_takes_from_every_replicaset(reg):
    _deploy(reg, replicas=4)
    d, r = DeploymentController(reg), ReplicaSetController(reg)
    _settle(reg, d, r)
    patch_spec(reg, "deployments", "web", {"template": template({"app": "web"}, image="nginx:2")})
    _settle(reg, d, r)
    assert _sizes(reg) == [(3, "4", "5"), (2, "4", "5")]  # as in the rolling-update test above
    patch_spec(reg, "deployments", "web", {"replicas": 2})
    _settle(reg, d, r)
    # maxSurge 25% of 2 rounded up = 1: allowed 3, to add 3 - 5 = -2; largest first: old 3 * 3 / 5 = 1.8 → 2:
    # -1; new 2 * 3 / 5 = 1.2 → 1: -1 (a rollout alone would keep the new one at 2 and take the old one down)
    assert _sizes(reg) == [(2, "2", "3"), (1, "2", "3")]


def _rs(name, replicas, created, max_replicas="4"):
    return {"metadata": {"name": name, "creationTimestamp": created,
                         "annotations": {"deployment.kubernetes.io/max-replicas": max_replicas}},
            "spec": {"replicas": replicas}}


def test_the_leftover_goes_to_the_largest_and_halves_round_away_from_zero():
    old, new = _rs("a", 3, "2026-01-01T00:00:00Z"), _rs("b", 1, "2026-01-01T00:00:01Z")
    # to 1 replica, surge 1: allowed 2, to add -2; old 3 * 2 / 4 = 1.5 → 2: -1; new 1 * 2 / 4 = 0.5 → 1 (Go's
    # math.Round; half-to-even would say 0): 0; the leftover -2 - (-1) = -1 goes to the first, the old one
    sizes = proportional.plan(1, 1, 4, [new, old])
    assert [(rs["metadata"]["name"], n) for rs, n in sizes] == [("a", 1), ("b", 1)]
    # equal sizes: scaling up, the newest first (and it takes the leftover); scaling down, the oldest first
    a, b, c = (_rs(n, 1, f"2026-01-01T00:00:0{i}Z", "3") for i, n in enumerate("abc"))
    sizes = proportional.plan(4, 0, 3, [a, b, c])  # 1 * 4 / 3 = 1.33 → 1: +0 each, leftover +1
    assert [(rs["metadata"]["name"], n) for rs, n in sizes] == [("c", 2), ("b", 1), ("a", 1)]
    sizes = proportional.plan(2, 0, 3, [c, a, b])  # 1 * 2 / 3 = 0.67 → 1: -0 each, leftover -1
    assert [(rs["metadata"]["name"], n) for rs, n in sizes] == [("a", 0), ("b", 1), ("c", 1)]
    # without a max-replicas annotation the Deployment's status.replicas stands in; scaling to 0 empties all
    assert proportional.fraction(_rs("x", 2, "", ""), 6, 0, 3) == 2
    assert proportional.fraction(_rs("x", 2, "", "4"), 0, 0, 3) == -2


def test_a_paused_deployment_is_scaled_in_proportion(reg):
    d, r = _stuck_rollout(reg)
    patch_spec(reg, "deployments", "web", {"paused": True, "replicas": 7})
    _settle(reg, d, r)
    # allowed 7 + 1 = 8, to add 8 - 4 = 4: old 3 * 8 / 4 = 6: +3; new 1 * 8 / 4 = 2: +1
    assert _sizes(reg) == [(6, "7", "8"), (2, "7", "8")]
