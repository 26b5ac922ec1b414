"""The garbage collector on custom resources: a CRD created after the server started is monitored (its
resources own and are owned), foreground deletion through a custom resource, and a cluster-scoped custom
resource owning namespaced objects. A server of its own: CRDs change `/apis` for every other test."""
from __future__ import annotations

from typing import Any

import requests

from conformance.reference_server.embedded import RunningServer

from .test_extensions import APISERVICES, CRDS, new_group, new_namespace, until, widget
from .test_garbage_collector import Objects, ref
from tests.reference_server.crds import create_crd
from tests.reference_server.ownserver import own_server

CLEANUP = "customresourcecleanup.apiextensions.k8s.io"


crd_server = own_server(flavor="bare")


def _established(base: str, group: str) -> None:
    until(base, f"{CRDS}/widgets.{group}",
          lambda o: any(c["type"] == "Established" and c["status"] == "True"
                        for c in (o.get("status") or {}).get("conditions", [])), "CRD established")


def test_custom_resource_trio(crd_server: RunningServer) -> None:
    base, http = crd_server.url, requests.Session()
    group = new_group(http, base)
    _established(base, group)
    objs = Objects(http, base, new_namespace(http, base))
    widgets = f"/apis/{group}/v1/namespaces/{objs.ns}/widgets"
    owner = http.post(base + widgets, json={**widget(f"/apis/{group}/v1", "owner"), "apiVersion": f"{group}/v1"}).json()
    assert owner["metadata"]["uid"], owner
    child = http.post(base + widgets, json={**widget(f"/apis/{group}/v1", "child", ownerReferences=[ref(owner, block=True)]),
                                            "apiVersion": f"{group}/v1"}).json()
    objs.cm("grandchild", ref(child, block=True), finalizers=["example.com/hold"])
    r = http.delete(f"{base}{widgets}/owner", json={"propagationPolicy": "Foreground"})
    assert r.status_code == 200 and r.json()["metadata"]["finalizers"] == ["foregroundDeletion"]
    objs.until(objs.path("grandchild"), lambda o: o["metadata"].get("deletionTimestamp"), "grandchild marked")
    assert http.get(f"{base}{widgets}/child").json()["metadata"]["finalizers"] == ["foregroundDeletion"]
    assert http.get(f"{base}{widgets}/owner").status_code == 200
    objs.release(objs.path("grandchild"))
    objs.gone(f"{widgets}/owner")
    assert http.get(f"{base}{widgets}/child").status_code == 404


def test_cluster_scoped_custom_resource_owns_namespaced_objects(crd_server: RunningServer) -> None:
    base, http = crd_server.url, requests.Session()
    group = new_group(http, base, scope="Cluster")
    _established(base, group)
    objs = Objects(http, base, new_namespace(http, base))
    owner: dict[str, Any] = http.post(f"{base}/apis/{group}/v1/widgets",
                                      json={**widget(f"/apis/{group}/v1", "cluster-owner"), "apiVersion": f"{group}/v1"}).json()
    objs.cm("owned", ref(owner))
    objs.barrier()
    assert objs.get(objs.path("owned")).status_code == 200
    assert http.delete(f"{base}/apis/{group}/v1/widgets/cluster-owner").status_code == 200
    objs.gone(objs.path("owned"))


def test_owner_kind_not_served_yet_is_retried(crd_server: RunningServer) -> None:
    """A reference to a kind no API serves is a `restMappingError`: the dependent is kept and retried, and once
    the CRD is served, a missing owner makes it dangling."""
    base, http = crd_server.url, requests.Session()
    objs = Objects(http, base, new_namespace(http, base))
    group = f"later-{objs.ns}.example.com"
    objs.cm("waits", {"apiVersion": f"{group}/v1", "kind": "Widget", "name": "w", "uid": "0000"})
    objs.barrier()
    assert objs.get(objs.path("waits")).status_code == 200
    from .test_extensions import crd
    assert create_crd(http, base, crd(group)).status_code == 201
    objs.gone(objs.path("waits"), timeout=60)


# ---- a CRD's own DELETE (customresourcedefinition/etcd.go Delete) ------------------------------------------
def _crd_owned(http: requests.Session, base: str, objs: Objects, crd_name: str, name: str) -> dict[str, Any]:
    crd = http.get(f"{base}{CRDS}/{crd_name}").json()
    return objs.cm(name, {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                          "name": crd_name, "uid": crd["metadata"]["uid"]})


def test_first_crd_delete_marks_it_whatever_its_policy_later_ones_write_the_policy(
        crd_server: RunningServer) -> None:
    base, http = crd_server.url, requests.Session()
    group = new_group(http, base)
    _established(base, group)
    objs = Objects(http, base, new_namespace(http, base))
    crd_path = f"{CRDS}/widgets.{group}"
    held = {**widget(f"/apis/{group}/v1", "held", finalizers=["example.com/hold"]), "apiVersion": f"{group}/v1"}
    assert http.post(f"{base}/apis/{group}/v1/namespaces/{objs.ns}/widgets", json=held).status_code == 201
    kept = _crd_owned(http, base, objs, f"widgets.{group}", "kept")
    objs.barrier()
    assert objs.get(objs.path("kept")).status_code == 200  # a living CRD is a solid owner
    dry = http.delete(base + crd_path, json={"propagationPolicy": "Orphan", "dryRun": ["All"]})  # (a body's own)
    assert dry.status_code == 200 and dry.json()["metadata"]["finalizers"] == [CLEANUP]
    assert dry.json()["status"]["conditions"][-1]["type"] == "Terminating"
    assert "deletionTimestamp" not in http.get(base + crd_path).json()["metadata"]  # nothing stored
    first = http.delete(base + crd_path, json={"propagationPolicy": "Orphan"}).json()
    assert first["metadata"]["finalizers"] == [CLEANUP] and "deletionGracePeriodSeconds" not in first["metadata"]
    for policy, finalizers in (("Orphan", [CLEANUP, "orphan"]), ("Background", [CLEANUP]),
                               ("Foreground", [CLEANUP, "foregroundDeletion"])):  # (foreground would take `kept`)
        r = http.delete(base + crd_path, json={"propagationPolicy": policy})
        assert r.status_code == 200 and r.json()["metadata"]["finalizers"][:2] == finalizers, (policy, r.text)
    objs.release(f"/apis/{group}/v1/namespaces/{objs.ns}/widgets/held")
    objs.gone(crd_path)
    orphaned = objs.get(objs.path("kept")).json()
    assert orphaned["metadata"]["uid"] == kept["metadata"]["uid"] and "ownerReferences" not in orphaned["metadata"]


def test_a_crd_deleted_in_the_background_takes_its_dependents(crd_server: RunningServer) -> None:
    base, http = crd_server.url, requests.Session()
    group = new_group(http, base)
    _established(base, group)
    objs = Objects(http, base, new_namespace(http, base))
    _crd_owned(http, base, objs, f"widgets.{group}", "dependent")
    assert http.delete(f"{base}{CRDS}/widgets.{group}").status_code == 200
    objs.gone(f"{CRDS}/widgets.{group}")
    objs.gone(objs.path("dependent"))


def test_an_apiservice_is_a_solid_owner(crd_server: RunningServer) -> None:
    """An APIService (stored under its own key) is read where it is: its dependents stay while it lives."""
    base, http = crd_server.url, requests.Session()
    objs = Objects(http, base, new_namespace(http, base))
    group = f"{new_namespace(http, base)}.example.com"
    body = {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": f"v1.{group}"},
            "spec": {"group": group, "version": "v1", "groupPriorityMinimum": 100, "versionPriority": 100,
                     "service": {"namespace": objs.ns, "name": "none", "port": 443}}}
    owner = http.post(base + APISERVICES, json=body).json()
    objs.cm("dependent", ref(owner))
    objs.barrier()
    assert objs.get(objs.path("dependent")).status_code == 200
    assert http.delete(f"{base}{APISERVICES}/v1.{group}").status_code == 200
    objs.gone(objs.path("dependent"))
