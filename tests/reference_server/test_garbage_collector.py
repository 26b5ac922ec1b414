"""Deletion propagation and the garbage collector (registry/propagation.py, controller/garbagecollector.py)
over HTTP, on both storage backends: owner/dependent chains of ConfigMaps, each propagation policy, the
owners that do not exist or are another object, cluster-scoped owners, Jobs' orphaning default, the
validation of `metadata.ownerReferences`, and a namespace whose content owns itself still going away."""
from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
import requests

from .conftest import WatchReader, wait_gone

MERGE = {"Content-Type": "application/merge-patch+json"}


class Objects:
    """ConfigMaps (and other objects) of one test namespace, with watch-based waits (no sleeping)."""

    def __init__(self, http: requests.Session, url: str, ns: str):
        self.http, self.url, self.ns = http, url, ns

    def path(self, name: str, kind: str = "configmaps") -> str:
        return f"/api/v1/namespaces/{self.ns}/{kind}/{name}"

    def cm(self, name: str, *owners: dict[str, Any], finalizers: list[str] | None = None) -> dict[str, Any]:
        meta: dict[str, Any] = {"name": name}
        if owners:
            meta["ownerReferences"] = list(owners)
        if finalizers:
            meta["finalizers"] = finalizers
        r = self.http.post(f"{self.url}/api/v1/namespaces/{self.ns}/configmaps", json={"metadata": meta})
        assert r.status_code == 201, r.text
        return r.json()

    def get(self, path: str) -> requests.Response:
        return self.http.get(self.url + path)

    def delete(self, path: str, body: dict[str, Any] | None = None, **params: str) -> requests.Response:
        return self.http.delete(self.url + path, json=body, params=params or None)

    def until(self, path: str, pred: Any, what: str, timeout: float = 15) -> dict[str, Any]:
        collection, _, name = path.rpartition("/")
        with WatchReader(self.url + collection, {"fieldSelector": f"metadata.name={name}"}) as w:
            return w.until(lambda e: e["type"] != "DELETED" and pred(e["object"]), timeout, what)[-1]["object"]

    def gone(self, path: str, timeout: float = 15) -> None:
        r = self.get(path)
        if r.status_code == 404:
            return
        collection, _, name = path.rpartition("/")
        with WatchReader(self.url + collection, {"fieldSelector": f"metadata.name={name}",
                                                 "resourceVersion": r.json()["metadata"]["resourceVersion"]}) as w:
            w.until(lambda e: e["type"] == "DELETED", timeout, f"{path} deleted")

    def barrier(self) -> None:
        """Wait until the garbage collector has worked through what was queued before: a dependent of an
        owner that never existed is deleted once its turn comes (one worker, queue order)."""
        self.gone(self.path(self.cm(f"barrier-{uuid.uuid4().hex[:6]}", ref_to("nobody", str(uuid.uuid4())))[
            "metadata"]["name"]))

    def release(self, path: str) -> None:
        self.http.patch(self.url + path, data=json.dumps({"metadata": {"finalizers": None}}), headers=MERGE)


def ref(obj: dict[str, Any], *, block: bool | None = None, controller: bool | None = None) -> dict[str, Any]:
    out = {"apiVersion": obj.get("apiVersion", "v1"), "kind": obj.get("kind", "ConfigMap"),
           "name": obj["metadata"]["name"], "uid": obj["metadata"]["uid"]}
    if block is not None:
        out["blockOwnerDeletion"] = block
    if controller is not None:
        out["controller"] = controller
    return out


def ref_to(name: str, uid: str, kind: str = "ConfigMap", api_version: str = "v1") -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "name": name, "uid": uid}


@pytest.fixture
def objs(http: requests.Session, url: str, namespaces: Any) -> Objects:
    return Objects(http, url, namespaces.create("gc")["metadata"]["name"])


# ---- background (the default) ------------------------------------------------------------------------
def test_background_deletes_a_chain_of_dependents(objs: Objects) -> None:
    owner = objs.cm("owner")
    child = objs.cm("child", ref(owner))
    objs.cm("grandchild", ref(child, block=True))
    other = objs.cm("unrelated")
    r = objs.delete(objs.path("owner"))
    assert r.status_code == 200 and r.json()["kind"] == "Status"  # no finalizer: gone at once
    objs.gone(objs.path("child"))
    objs.gone(objs.path("grandchild"))
    assert objs.get(objs.path("unrelated")).json()["metadata"]["uid"] == other["metadata"]["uid"]


def test_dependent_with_a_living_owner_keeps_it_and_loses_the_dead_one(objs: Objects) -> None:
    a, b = objs.cm("a"), objs.cm("b")
    objs.cm("both", ref(a), ref(b))
    assert objs.delete(objs.path("a")).status_code == 200
    kept = objs.until(objs.path("both"), lambda o: len(o["metadata"].get("ownerReferences", [])) == 1,
                      "the reference to the deleted owner removed")
    assert kept["metadata"]["ownerReferences"] == [ref(b)]


def test_owner_that_never_existed_or_is_another_object(objs: Objects) -> None:
    objs.cm("orphan-at-birth", ref_to("nobody", str(uuid.uuid4())))
    objs.gone(objs.path("orphan-at-birth"))
    owner = objs.cm("same-name")
    objs.cm("wrong-uid", ref_to("same-name", str(uuid.uuid4())))  # same name, another UID: not its owner
    objs.gone(objs.path("wrong-uid"))
    assert objs.get(objs.path("same-name")).json()["metadata"]["uid"] == owner["metadata"]["uid"]


# ---- foreground --------------------------------------------------------------------------------------
def test_foreground_waits_for_blocking_dependents(objs: Objects) -> None:
    owner = objs.cm("owner")
    objs.cm("blocker", ref(owner, block=True), finalizers=["example.com/hold"])
    objs.cm("free", ref(owner))  # blockOwnerDeletion unset: deleted, but the owner does not wait for it
    r = objs.delete(objs.path("owner"), {"propagationPolicy": "Foreground"})
    assert r.status_code == 200
    meta = r.json()["metadata"]
    assert meta["finalizers"] == ["foregroundDeletion"] and meta["deletionTimestamp"]
    assert meta["deletionGracePeriodSeconds"] == 0
    objs.until(objs.path("blocker"), lambda o: o["metadata"].get("deletionTimestamp"), "blocker being deleted")
    objs.gone(objs.path("free"))
    held = objs.get(objs.path("owner")).json()["metadata"]
    assert held["finalizers"] == ["foregroundDeletion"]  # the blocker still exists (its own finalizer)
    objs.release(objs.path("blocker"))
    objs.gone(objs.path("blocker"))
    objs.gone(objs.path("owner"))


def test_foreground_chain_deletes_bottom_up(objs: Objects, watch: Any) -> None:
    owner = objs.cm("owner")
    child = objs.cm("child", ref(owner, block=True))
    objs.cm("grandchild", ref(child, block=True))
    rv = objs.get(objs.path("owner")).json()["metadata"]["resourceVersion"]
    w = watch(f"{objs.url}/api/v1/namespaces/{objs.ns}/configmaps", {"resourceVersion": rv})
    assert objs.delete(objs.path("owner"), propagationPolicy="Foreground").status_code == 200
    events = w.until(lambda e: e["type"] == "DELETED" and e["object"]["metadata"]["name"] == "owner",
                     timeout=15, what="owner deleted")
    deleted = [e["object"]["metadata"]["name"] for e in events if e["type"] == "DELETED"]
    assert deleted == ["grandchild", "child", "owner"]
    # the child waited for its own blocking dependent: it went through foreground deletion too
    assert any(e["object"]["metadata"]["name"] == "child" and "foregroundDeletion" in
               e["object"]["metadata"].get("finalizers", []) for e in events)


def test_orphan_dependents_false_is_foreground_only_by_policy(objs: Objects) -> None:
    """`orphanDependents: false` never adds `foregroundDeletion` (store.go `shouldDeleteDependents`): an object
    without finalizers is gone at once (200); with another finalizer it waits, and the answer is 202."""
    objs.cm("plain")
    assert objs.delete(objs.path("plain"), {"orphanDependents": False}).status_code == 200
    assert objs.get(objs.path("plain")).status_code == 404
    objs.cm("held", finalizers=["example.com/hold"])
    r = objs.delete(objs.path("held"), {"orphanDependents": False})
    assert r.status_code == 202 and r.json()["metadata"]["finalizers"] == ["example.com/hold"]
    objs.release(objs.path("held"))


# ---- orphan ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("options", [{"propagationPolicy": "Orphan"}, {"orphanDependents": True}])
def test_orphan_removes_references_then_the_owner(objs: Objects, options: dict[str, Any]) -> None:
    owner, other = objs.cm("owner"), objs.cm("other")
    objs.cm("dep", ref(owner, block=True, controller=True))
    objs.cm("shared", ref(owner), ref(other))
    r = objs.delete(objs.path("owner"), options)
    assert r.status_code == 200 and r.json()["metadata"]["finalizers"] == ["orphan"]
    objs.gone(objs.path("owner"))
    assert "ownerReferences" not in objs.get(objs.path("dep")).json()["metadata"]
    assert objs.get(objs.path("shared")).json()["metadata"]["ownerReferences"] == [ref(other)]


def test_policy_changes_on_an_object_being_deleted(objs: Objects) -> None:
    """Finalizers follow the options on every DELETE of a kind without graceful deletion: Orphan then
    Background takes `orphan` off again (and with no finalizer left, the object goes)."""
    objs.cm("held", finalizers=["example.com/hold"])
    r = objs.delete(objs.path("held"), propagationPolicy="Orphan")
    assert r.json()["metadata"]["finalizers"] == ["example.com/hold", "orphan"]
    r = objs.delete(objs.path("held"), propagationPolicy="Foreground")
    assert r.json()["metadata"]["finalizers"] == ["example.com/hold", "foregroundDeletion"]
    r = objs.delete(objs.path("held"), propagationPolicy="Background")
    assert r.status_code == 200 and r.json()["metadata"]["finalizers"] == ["example.com/hold"]
    objs.release(objs.path("held"))
    objs.gone(objs.path("held"))


def test_deletecollection_applies_the_policy_to_each_item(objs: Objects) -> None:
    owner = objs.cm("owner")
    objs.cm("dep", ref(owner))
    r = objs.http.delete(f"{objs.url}/api/v1/namespaces/{objs.ns}/configmaps",
                         params={"labelSelector": "", "fieldSelector": "metadata.name=owner",
                                 "propagationPolicy": "Orphan"})
    assert r.status_code == 200, r.text
    # upstream answers the objects as its LIST found them (store.go `DeleteCollection` returns `listObj`)
    assert [i["metadata"].get("finalizers") for i in r.json()["items"]] == [None]
    objs.gone(objs.path("owner"))
    assert "ownerReferences" not in objs.get(objs.path("dep")).json()["metadata"]


# ---- kinds and scopes --------------------------------------------------------------------------------
JOB = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": {"template": {"spec": {
    "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}


def test_job_orphans_by_default_in_batch_v1(objs: Objects) -> None:
    """batch/v1 Jobs default to OrphanDependents (job/strategy.go): a DELETE without options keeps the pods."""
    jobs = f"/apis/batch/v1/namespaces/{objs.ns}/jobs"
    job = objs.http.post(objs.url + jobs, json=JOB).json()
    objs.cm("pod-like", ref(job, block=True, controller=True))
    r = objs.delete(f"{jobs}/j")
    assert r.status_code == 200 and r.json()["metadata"]["finalizers"] == ["orphan"]
    objs.gone(f"{jobs}/j")
    assert "ownerReferences" not in objs.get(objs.path("pod-like")).json()["metadata"]
    job = objs.http.post(objs.url + jobs, json=JOB).json()
    objs.cm("pod-like-2", ref(job, block=True, controller=True))
    assert objs.delete(f"{jobs}/j", propagationPolicy="Background").json()["kind"] == "Status"
    objs.gone(objs.path("pod-like-2"))


def test_cluster_scoped_owner_of_namespaced_dependents(objs: Objects, namespaces: Any) -> None:
    """A Namespace may own objects in other namespaces (a cluster-scoped owner is looked up without one)."""
    owner_ns = namespaces.create("owner")
    objs.cm("owned-by-ns", ref(owner_ns))
    objs.barrier()
    assert objs.get(objs.path("owned-by-ns")).status_code == 200  # solid owner
    assert objs.delete(f"/api/v1/namespaces/{owner_ns['metadata']['name']}").status_code == 200
    wait_gone(objs.http, objs.url, owner_ns["metadata"]["name"], timeout=30)
    objs.gone(objs.path("owned-by-ns"))


def test_namespaced_owner_is_looked_up_in_the_dependents_namespace(objs: Objects, namespaces: Any) -> None:
    elsewhere = Objects(objs.http, objs.url, namespaces.create("else")["metadata"]["name"])
    owner = elsewhere.cm("owner")
    objs.cm("cross", ref(owner))  # no such owner in this namespace: dangling, so deleted
    objs.gone(objs.path("cross"))
    assert elsewhere.get(elsewhere.path("owner")).status_code == 200


def _invalid_namespace_event(objs: Objects, ns: str, dependent: dict[str, Any]) -> dict[str, Any]:
    """The garbage collector's `OwnerRefInvalidNamespace` Warning on `dependent`, waited for in `ns`."""
    uid = dependent["metadata"]["uid"]
    with WatchReader(f"{objs.url}/api/v1/namespaces/{ns}/events", {"fieldSelector": f"involvedObject.uid={uid}"}) as w:
        return w.until(lambda e: e["object"].get("reason") == "OwnerRefInvalidNamespace", 15,
                       "OwnerRefInvalidNamespace")[-1]["object"]


def test_a_reference_to_an_owner_of_another_namespace_is_reported(objs: Objects, namespaces: Any) -> None:
    """graph_builder.go `reportInvalidNamespaceOwnerRef`: the owner is observed in another namespace."""
    elsewhere = Objects(objs.http, objs.url, namespaces.create("else")["metadata"]["name"])
    owner = elsewhere.cm("owner")
    dependent = objs.cm("cross", ref(owner))
    ev = _invalid_namespace_event(objs, objs.ns, dependent)
    assert (ev["type"], ev["source"], ev["reportingComponent"], ev["count"]) == \
        ("Warning", {"component": "garbage-collector-controller"}, "garbage-collector-controller", 1)
    assert ev["involvedObject"] == {"kind": "ConfigMap", "namespace": objs.ns, "name": "cross",
                                    "uid": dependent["metadata"]["uid"], "apiVersion": "v1"}
    assert ev["message"] == (f"ownerRef [v1/ConfigMap, namespace: {objs.ns}, name: owner, uid: "
                             f"{owner['metadata']['uid']}] does not exist in namespace \"{objs.ns}\"")


def test_a_cluster_scoped_dependent_of_a_namespaced_owner_is_reported_in_default(objs: Objects,
                                                                                 namespaces: Any) -> None:
    owner = objs.cm("owner")
    name = namespaces.name("dep")
    r = objs.http.post(f"{objs.url}/api/v1/namespaces", json={"metadata": {"name": name,
                                                                           "ownerReferences": [ref(owner)]}})
    assert r.status_code == 201, r.text
    ev = _invalid_namespace_event(objs, "default", r.json())
    assert ev["involvedObject"]["kind"] == "Namespace" and "namespace" not in ev["involvedObject"]
    assert ev["message"] == (f"ownerRef [v1/ConfigMap, namespace: , name: owner, uid: {owner['metadata']['uid']}] "
                             'does not exist in namespace ""')


def test_cluster_scoped_dependent_of_a_namespaced_owner_is_left_alone(objs: Objects, namespaces: Any) -> None:
    owner = objs.cm("owner")
    name = namespaces.name("dep")
    r = objs.http.post(f"{objs.url}/api/v1/namespaces", json={"metadata": {"name": name,
                                                                           "ownerReferences": [ref(owner)]}})
    assert r.status_code == 201, r.text
    objs.delete(objs.path("owner"))
    objs.barrier()
    assert objs.get(f"/api/v1/namespaces/{name}").json()["metadata"]["ownerReferences"] == [ref(owner)]


def test_namespace_with_owners_and_dependents_inside_still_goes(objs: Objects) -> None:
    owner = objs.cm("owner")
    child = objs.cm("child", ref(owner, block=True))
    objs.cm("grandchild", ref(child, block=True))
    objs.delete(objs.path("owner"), propagationPolicy="Foreground")
    assert objs.delete(f"/api/v1/namespaces/{objs.ns}").status_code == 200
    wait_gone(objs.http, objs.url, objs.ns, timeout=30)


# ---- validation --------------------------------------------------------------------------------------
@pytest.mark.parametrize("refs,message", [
    ([{"kind": "ConfigMap", "name": "a", "uid": "u"}],
     'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty'),
    ([{"apiVersion": "v1", "name": "a", "uid": "u"}],
     'metadata.ownerReferences.kind: Invalid value: "": kind must not be empty'),
    ([{"apiVersion": "v1", "kind": "ConfigMap", "uid": "u"}],
     'metadata.ownerReferences.name: Invalid value: "": name must not be empty'),
    ([{"apiVersion": "v1", "kind": "ConfigMap", "name": "a"}],
     'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty'),
    ([{"apiVersion": "v1", "kind": "Event", "name": "a", "uid": "u"}],
     "/v1, Kind=Event is disallowed from being an owner"),
    ([{"apiVersion": "v1", "kind": "ConfigMap", "name": "a", "uid": "u", "controller": True},
      {"apiVersion": "apps/v1", "kind": "Deployment", "name": "b", "uid": "v", "controller": True}],
     'Only one reference can have Controller set to true. Found "true" in references for ConfigMap/a and '
     'Deployment/b'),
])
def test_owner_references_validation(objs: Objects, refs: list[dict[str, Any]], message: str) -> None:
    r = objs.http.post(f"{objs.url}/api/v1/namespaces/{objs.ns}/configmaps",
                       json={"metadata": {"name": "bad", "ownerReferences": refs}})
    assert r.status_code == 422, r.text
    assert message in r.json()["message"]
    assert r.json()["details"]["causes"][0]["field"].startswith("metadata.ownerReferences")
    good = objs.cm("good")
    r = objs.http.patch(objs.url + objs.path("good"), data=json.dumps({"metadata": {"ownerReferences": refs}}),
                        headers=MERGE)
    assert r.status_code == 422 and message in r.json()["message"]
    assert good["metadata"]["uid"]


DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {
    "selector": {"matchLabels": {"app": "web"}},
    "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}


def test_marking_for_deletion_bumps_generation(objs: Objects) -> None:
    """`markAsDeleting`: the first deletion of an object that keeps a generation increments it."""
    deployments = f"/apis/apps/v1/namespaces/{objs.ns}/deployments"
    assert objs.http.post(objs.url + deployments, json=DEPLOYMENT).json()["metadata"]["generation"] == 1
    r = objs.delete(f"{deployments}/web", propagationPolicy="Foreground")
    assert r.status_code == 200 and r.json()["metadata"]["generation"] == 2
    objs.gone(f"{deployments}/web")  # no dependents: the garbage collector lets it go


@pytest.mark.parametrize("policy", ["Foreground", "Orphan"])
def test_namespace_deleted_with_a_policy_still_goes(http: requests.Session, url: str, namespaces: Any,
                                                    policy: str) -> None:
    """The namespace's `orphan`/`foregroundDeletion` metadata finalizer (NS-55) is the garbage collector's to
    remove: without it such a namespace stayed Terminating for ever."""
    name = namespaces.create("gcns")["metadata"]["name"]
    Objects(http, url, name).cm("content")
    r = http.delete(f"{url}/api/v1/namespaces/{name}", params={"propagationPolicy": policy})
    assert r.status_code == 200 and r.json()["metadata"]["finalizers"] == [
        {"Foreground": "foregroundDeletion", "Orphan": "orphan"}[policy]]
    wait_gone(http, url, name, timeout=30)
