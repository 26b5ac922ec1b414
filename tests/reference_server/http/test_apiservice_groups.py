"""http/apiservice_groups.py: the legacy `/apis` and `/apis/<group>` follow the APIService objects, as
kube-aggregator's handler_apis.go builds them; aggregated discovery and the group-versions' own paths do not
(upstream's installers keep them in the discovery resource manager)."""
from __future__ import annotations

import subprocess

import pytest
import requests

from conformance.reference_server.embedded import RunningServer
from conformance.reference_server.http.apiservice_groups import sorted_by_group_and_version
from tests.reference_server.conftest import unique
from tests.reference_server.ownserver import own_server
from tests.reference_server.replicas import until

APISERVICES = "/apis/apiregistration.k8s.io/v1/apiservices"
V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"


srv = own_server()  # its own: its tests delete a built-in APIService


def _legacy(url: str) -> list[str]:
    return [g["name"] for g in requests.get(url + "/apis", headers={"Accept": "application/json"}).json()["groups"]]


def _aggregated(url: str) -> list[str]:
    return [g["metadata"]["name"] for g in requests.get(url + "/apis", headers={"Accept": V2}).json()["items"]]


def _apiservice(name: str, group: str, version: str, group_priority: int, version_priority: int = 15) -> dict:
    return {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": name},
            "spec": {"group": group, "version": version, "groupPriorityMinimum": group_priority,
                     "versionPriority": version_priority}}


def _kubectl(srv: RunningServer, tmp_path, *args: str) -> subprocess.CompletedProcess[str]:
    from tests.tools.kubectl import get_kubectl
    kubectl = get_kubectl()
    if kubectl is None:
        pytest.skip("kubectl 1.33 not available")
    kc = tmp_path / "kc"
    srv.write_kubeconfig(str(kc))
    return subprocess.run([str(kubectl), "--kubeconfig", str(kc), *args], capture_output=True, text=True,
                          timeout=60, env={"HOME": str(tmp_path)}, check=False)


def test_a_deleted_builtin_apiservice_leaves_the_legacy_group_list_only(srv, tmp_path):
    """`apisHandler` lists APIServices: node.k8s.io leaves `/apis`; the aggregated document (BuiltinSource),
    `kubectl api-resources` (which reads it), `/apis/node.k8s.io` (the delegate's, no APIService left) and the
    group-version's paths (the delegate's) stay; a recreated APIService brings the group back in its place."""
    before = _legacy(srv.url)
    assert "node.k8s.io" in before
    saved = requests.get(f"{srv.url}{APISERVICES}/v1.node.k8s.io").json()
    assert requests.delete(f"{srv.url}{APISERVICES}/v1.node.k8s.io").status_code == 200
    assert _legacy(srv.url) == [g for g in before if g != "node.k8s.io"]
    raw = _kubectl(srv, tmp_path, "get", "--raw", "/apis")
    assert raw.returncode == 0 and '"node.k8s.io"' not in raw.stdout and '"storage.k8s.io"' in raw.stdout
    assert "node.k8s.io" in _aggregated(srv.url)
    listed = _kubectl(srv, tmp_path, "api-resources", "--api-group=node.k8s.io", "--no-headers")
    assert listed.returncode == 0 and listed.stdout.split()[0] == "runtimeclasses", listed.stderr
    group = requests.get(srv.url + "/apis/node.k8s.io").json()
    assert group["preferredVersion"] == {"groupVersion": "node.k8s.io/v1", "version": "v1"}
    assert requests.get(srv.url + "/apis/node.k8s.io/v1").json()["resources"][0]["name"] == "runtimeclasses"
    assert requests.get(srv.url + "/apis/node.k8s.io/v1/runtimeclasses").status_code == 200

    body = _apiservice("v1.node.k8s.io", "node.k8s.io", "v1", saved["spec"]["groupPriorityMinimum"])
    assert requests.post(srv.url + APISERVICES, json=body).status_code == 201
    assert _legacy(srv.url) == before


def test_a_local_apiservice_of_a_group_nothing_serves_is_listed_there(srv):
    """A local APIService is listed by `/apis` and its group answered by `apiGroupHandler`, whether or not
    anything serves it; the aggregated document has no source for it (no local delegate serves the path), and
    below the group-version the delegate answers 404."""
    group = f"{unique('loc')}.example.com"
    v1, v2 = (_apiservice(f"{v}.{group}", group, v, 17900, p) for v, p in (("v1", 15), ("v2beta1", 20)))
    for body in (v1, v2):
        assert requests.post(srv.url + APISERVICES, json=body).status_code == 201
    try:
        legacy = requests.get(srv.url + "/apis").json()["groups"]
        assert [g["name"] for g in legacy][:2] == ["apiregistration.k8s.io", group]  # 17900: before apps' 17800
        assert legacy[1]["versions"] == [{"groupVersion": f"{group}/v2beta1", "version": "v2beta1"},
                                         {"groupVersion": f"{group}/v1", "version": "v1"}]  # versionPriority first
        doc = requests.get(f"{srv.url}/apis/{group}").json()
        assert (doc["kind"], doc["preferredVersion"]["version"]) == ("APIGroup", "v2beta1")
        assert group not in _aggregated(srv.url)
        assert requests.get(f"{srv.url}/apis/{group}/v1").status_code == 404
        paths = requests.get(srv.url + "/").json()["paths"]  # the aggregator's mux lists what it handles
        assert {f"/apis/{group}", f"/apis/{group}/v1", f"/apis/{group}/v2beta1"} <= set(paths)
    finally:
        for body in (v1, v2):
            requests.delete(f"{srv.url}{APISERVICES}/{body['metadata']['name']}")
    until(lambda: group not in _legacy(srv.url), "the group gone from /apis", timeout=10)
    assert requests.get(f"{srv.url}/apis/{group}").status_code == 404


def test_sorted_by_group_and_version_breaks_ties_by_name_then_kube_version():
    """`ByGroupPriorityMinimum` ties by the APIService's name (not the group's), `ByVersionPriority` by
    kube-aware version order (GA, beta, alpha; then anything else alphabetically)."""
    def a(name: str, gpm: int, vp: int) -> dict:
        version, _, group = name.partition(".")
        return _apiservice(name, group, version, gpm, vp)
    got = sorted_by_group_and_version([a("v1.b.io", 10, 1), a("v1beta1.a.io", 10, 1), a("v1alpha1.b.io", 10, 1),
                                       a("foo.b.io", 10, 1), a("v2.b.io", 10, 1), a("v1.c.io", 20, 1)])
    assert [[x["metadata"]["name"] for x in g] for g in got] == [
        ["v1.c.io"], ["v2.b.io", "v1.b.io", "v1alpha1.b.io", "foo.b.io"], ["v1beta1.a.io"]]


def test_a_crd_group_is_listed_while_its_apiservice_exists(srv):
    """crd-autoregister's APIService puts a CRD's group in `/apis` (priority 1000, after the built-in groups);
    the CRD deleted, its APIService goes and the group with it."""
    group = f"{unique('crd')}.example.com"
    schema = {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": f"gizmos.{group}"},
           "spec": {"group": group, "scope": "Namespaced", "names": {"plural": "gizmos", "kind": "Gizmo"},
                    "versions": [{"name": "v1", "served": True, "storage": True, "schema": schema}]}}
    crds = srv.url + "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
    assert requests.post(crds, json=crd).status_code == 201
    until(lambda: group in _legacy(srv.url), "the CRD's group in /apis", timeout=10)
    assert requests.get(f"{srv.url}{APISERVICES}/v1.{group}").status_code == 200
    assert _legacy(srv.url).index(group) > _legacy(srv.url).index("flowcontrol.apiserver.k8s.io")  # 1000 < 16100
    assert requests.delete(f"{crds}/gizmos.{group}").status_code == 200
    until(lambda: group not in _legacy(srv.url), "the CRD's group gone from /apis", timeout=10)
    assert requests.get(f"{srv.url}{APISERVICES}/v1.{group}").status_code == 404
