"""Custom resources' `/scale` (registry/crscale.py, upstream `customresource/etcd.go` `ScaleREST`): discovery and
OpenAPI list it, kubectl 1.33 (`scale`, `get --raw`) and the official client's `*_custom_object_scale` use it, the
replicas are read and written at the CRD version's paths (each served version its own), managedFields are mapped
between Scale and object, and the errors are upstream's (absent path, wrong type, empty replicas, strategic merge,
a patched Scale that no longer decodes, a version without the subresource)."""
from __future__ import annotations

import json
import uuid
from typing import Any, Iterator

import pytest

from tests.reference_server.test_real_clients import Kube, serve_kube
from tests.tools import kubectl as kubectl_tool
from tests.reference_server.crds import create_crd

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
GROUP = "scale.example.com"
MERGE = {"Content-Type": "application/merge-patch+json"}
OPEN = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
SCHEMA = {"openAPIV3Schema": {"type": "object", "properties": {"spec": OPEN, "status": OPEN}}}
V1_SCALE = {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas",
            "labelSelectorPath": ".status.selector"}
V2_SCALE = {"specReplicasPath": ".spec.count", "statusReplicasPath": ".status.ready"}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    yield from serve_kube(tmp_path_factory, "crscale", flavor="bare")


@pytest.fixture(scope="module")
def plural(served: Kube) -> Iterator[str]:
    """A CRD whose v1 (stored) scales `.spec.replicas`, v2 `.spec.count`, v3 has no scale subresource."""
    plural = f"w{uuid.uuid4().hex[:8]}"
    versions = [{"name": "v1", "served": True, "storage": True, "schema": SCHEMA,
                 "subresources": {"status": {}, "scale": V1_SCALE}},
                {"name": "v2", "served": True, "storage": False, "schema": SCHEMA,
                 "subresources": {"scale": V2_SCALE}},
                {"name": "v3", "served": True, "storage": False, "schema": SCHEMA}]
    body = {"metadata": {"name": f"{plural}.{GROUP}"},
            "spec": {"group": GROUP, "scope": "Namespaced", "versions": versions,
                     "names": {"plural": plural, "kind": "Widget", "singular": plural}}}
    r = create_crd(served.http, served.server.url, body, timeout=10)
    assert r.status_code == 201, r.text
    yield plural
    served.http.delete(f"{served.server.url}{CRDS}/{plural}.{GROUP}", timeout=10)


def _base(served: Kube, plural: str, version: str = "v1") -> str:
    return f"{served.server.url}/apis/{GROUP}/{version}/namespaces/default/{plural}"


def _create(served: Kube, plural: str, name: str, spec: dict[str, Any], status: dict[str, Any] | None = None) -> None:
    r = served.http.post(_base(served, plural), json={"apiVersion": f"{GROUP}/v1", "kind": "Widget",
                                                      "metadata": {"name": name}, "spec": spec}, timeout=10)
    assert r.status_code == 201, r.text
    if status is not None:
        r = served.http.patch(f"{_base(served, plural)}/{name}/status", data=json.dumps({"status": status}),
                              headers=MERGE, timeout=10)
        assert r.status_code == 200, r.text


def test_discovery_and_openapi_list_scale_per_version(served: Kube, plural: str) -> None:
    for version, listed in (("v1", True), ("v2", True), ("v3", False)):
        resources = served.get(f"/apis/{GROUP}/{version}").json()["resources"]
        scale = [r for r in resources if r["name"] == f"{plural}/scale"]
        assert scale == ([{"name": f"{plural}/scale", "singularName": "", "namespaced": True, "group": "autoscaling",
                           "version": "v1", "kind": "Scale", "verbs": ["get", "patch", "update"]}] if listed else [])
    r = served.http.get(f"{served.server.url}/apis", timeout=10,
                        headers={"Accept": "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"})
    group = next(g for g in r.json()["items"] if g["metadata"]["name"] == GROUP)
    v1 = next(v for v in group["versions"] if v["version"] == "v1")
    res = next(x for x in v1["resources"] if x["resource"] == plural)
    assert {"subresource": "scale", "responseKind": {"group": "autoscaling", "version": "v1", "kind": "Scale"},
            "verbs": ["get", "patch", "update"]} in res["subresources"]
    paths = served.get(f"/openapi/v3/apis/{GROUP}/v1").json()["paths"]
    assert f"/apis/{GROUP}/v1/namespaces/{{namespace}}/{plural}/{{name}}/scale" in paths


def test_get_reads_the_paths(served: Kube, plural: str) -> None:
    _create(served, plural, "read", {"replicas": 2}, {"replicas": 1, "selector": "app=w"})
    r = served.http.get(f"{_base(served, plural)}/read/scale", timeout=10)
    assert r.status_code == 200, r.text
    scale = r.json()
    obj = served.get(f"/apis/{GROUP}/v1/namespaces/default/{plural}/read").json()
    assert (scale["kind"], scale["apiVersion"]) == ("Scale", "autoscaling/v1")
    assert scale["metadata"] == {k: obj["metadata"][k] for k in ("name", "namespace", "uid", "resourceVersion",
                                                                  "creationTimestamp")}
    assert scale["spec"] == {"replicas": 2} and scale["status"] == {"replicas": 1, "selector": "app=w"}
    # v2's paths: `.spec.count` absent → GET is upstream's 500; `.status.ready` absent reads as 0
    r = served.http.get(f"{_base(served, plural, 'v2')}/read/scale", timeout=10)
    assert r.status_code == 500 and r.json()["reason"] == "InternalError", r.text
    assert r.json()["message"] == 'Internal error occurred: the spec replicas field ".spec.count" does not exist'
    # v3 has no scale subresource
    assert served.http.get(f"{_base(served, plural, 'v3')}/read/scale", timeout=10).status_code == 404


def test_kubectl_scale_and_get_raw(served: Kube, plural: str) -> None:
    """kubectl is told the version: its preferred one here (v3) has no `/scale`."""
    if served.binary is None:
        pytest.skip(f"kubectl 1.33 unavailable: {kubectl_tool.LAST_ERROR}")
    _create(served, plural, "kc", {"replicas": 1})
    assert served.ok("scale", f"{plural}.v1.{GROUP}", "kc", "--replicas=4") == f"widget.{GROUP}/kc scaled\n"
    obj = served.get(f"/apis/{GROUP}/v1/namespaces/default/{plural}/kc").json()
    assert obj["spec"]["replicas"] == 4
    # the Scale's writer owns the replicas (ScaleHandler.ToParent), in the parent's version
    entry = next(e for e in obj["metadata"]["managedFields"] if e.get("subresource") == "scale")
    assert (entry["manager"], entry["operation"], entry["apiVersion"]) == ("kubectl", "Update", f"{GROUP}/v1")
    assert entry["fieldsV1"] == {"f:spec": {"f:replicas": {}}}
    raw = json.loads(served.ok("get", "--raw", f"/apis/{GROUP}/v1/namespaces/default/{plural}/kc/scale"))
    assert raw["spec"] == {"replicas": 4} and raw["kind"] == "Scale"
    # `get --subresource=scale` asks for a Table: the custom resource's own columns (crdHandler's scale scope keeps
    # its TableConvertor), not the built-in Scale printer's DESIRED/AVAILABLE
    table = served.ok("get", f"{plural}.v1.{GROUP}", "kc", "--subresource=scale")
    assert table.split("\n")[0].split() == ["NAME", "AGE"] and table.split("\n")[1].split()[0] == "kc"


def test_official_client_scale(served: Kube, plural: str) -> None:
    from kubernetes import client, config

    _create(served, plural, "oc", {"replicas": 3}, {"replicas": 3})
    api_client = config.new_client_from_config(config_file=str(served.kubeconfig))
    try:
        api = client.CustomObjectsApi(api_client)
        scale = api.get_namespaced_custom_object_scale(GROUP, "v1", "default", plural, "oc")
        assert scale["spec"] == {"replicas": 3} and scale["status"] == {"replicas": 3}
        out = api.patch_namespaced_custom_object_scale(GROUP, "v1", "default", plural, "oc",
                                                       {"spec": {"replicas": 5}})
        assert out["spec"] == {"replicas": 5}
    finally:
        api_client.close()
    assert served.get(f"/apis/{GROUP}/v1/namespaces/default/{plural}/oc").json()["spec"]["replicas"] == 5


def test_each_version_writes_its_own_path(served: Kube, plural: str) -> None:
    _create(served, plural, "mv", {"replicas": 1, "count": 7})
    r = served.http.get(f"{_base(served, plural, 'v2')}/mv/scale", timeout=10)
    assert r.status_code == 200 and r.json()["spec"] == {"replicas": 7}, r.text
    r = served.http.put(f"{_base(served, plural, 'v2')}/mv/scale", timeout=10, json={
        "apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "mv"}, "spec": {"replicas": 9}})
    assert r.status_code == 200 and r.json()["spec"] == {"replicas": 9}, r.text
    obj = served.get(f"/apis/{GROUP}/v1/namespaces/default/{plural}/mv").json()
    assert obj["spec"] == {"replicas": 1, "count": 9}


def test_errors_are_upstreams(served: Kube, plural: str) -> None:
    base = _base(served, plural)
    _create(served, plural, "empty", {})
    # an update starting from an absent path must set the replicas
    r = served.http.patch(f"{base}/empty/scale", data=json.dumps({"metadata": {"labels": {"a": "b"}}}),
                          headers=MERGE, timeout=10)
    assert r.status_code == 400 and r.json()["reason"] == "BadRequest", r.text
    assert r.json()["message"] == 'the spec replicas field ".spec.replicas" cannot be empty'
    r = served.http.patch(f"{base}/empty/scale", data=json.dumps({"spec": {"replicas": 2}}), headers=MERGE,
                          timeout=10)
    assert r.status_code == 200 and r.json()["spec"] == {"replicas": 2}, r.text
    # every write of the custom resource checks the paths (ValidateScaleSpec, ValidateScaleStatus)
    r = served.http.post(base, timeout=10, json={"apiVersion": f"{GROUP}/v1", "kind": "Widget",
                                                 "metadata": {"name": "typed"}, "spec": {"replicas": "two"}})
    assert r.status_code == 422, r.text
    assert [(c["field"], c["message"]) for c in r.json()["details"]["causes"]] == [
        (".spec.replicas", "Invalid value: 0: .spec.replicas accessor error: two is of the type string, expected "
                           "int64")]
    r = served.http.patch(f"{base}/empty/status", data=json.dumps({"status": {"replicas": -1, "selector": 3}}),
                          headers=MERGE, timeout=10)
    assert r.status_code == 422, r.text
    assert [(c["field"], c["message"]) for c in r.json()["details"]["causes"]] == [
        (".status.replicas", "Invalid value: -1: should be a non-negative integer"),
        (".status.selector", 'Invalid value: "": .status.selector accessor error: 3 is of the type int64, '
                             "expected string")]
    # written through v3 (no scale there), read through v2: NestedInt64's error, unwrapped (500, no reason)
    r = served.http.post(_base(served, plural, "v3"), timeout=10, json={
        "apiVersion": f"{GROUP}/v3", "kind": "Widget", "metadata": {"name": "typed"}, "spec": {"count": "two"}})
    assert r.status_code == 201, r.text
    r = served.http.get(f"{_base(served, plural, 'v2')}/typed/scale", timeout=10)
    assert r.status_code == 500 and "reason" not in r.json(), r.text
    assert r.json()["message"] == ".spec.count accessor error: two is of the type string, expected int64"
    # custom resources take no strategic merge patch, through /scale neither
    r = served.http.patch(f"{base}/empty/scale", data=json.dumps({"spec": {"replicas": 1}}), timeout=10,
                          headers={"Content-Type": "application/strategic-merge-patch+json"})
    assert r.status_code == 415, r.text
    assert r.json()["message"] == ("the body of the request was in an unknown format - accepted media types "
                                   "include: application/json-patch+json, application/merge-patch+json, "
                                   "application/apply-patch+yaml")
    # a patched Scale whose replicas are not an int32: 422 on `patch`; a PUT of one: 400 from decoding
    r = served.http.patch(f"{base}/empty/scale", data=json.dumps({"spec": {"replicas": "x"}}), headers=MERGE,
                          timeout=10)
    assert r.status_code == 422, r.text
    assert r.json()["message"].endswith("json: cannot unmarshal string into Go struct field ScaleSpec.spec.replicas "
                                        "of type int32")
    r = served.http.put(f"{base}/empty/scale", timeout=10, json={
        "apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "empty"}, "spec": {"replicas": 1.5}})
    assert r.status_code == 400, r.text
    assert r.json()["message"] == ('Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal '
                                   "number 1.5 into Go struct field ScaleSpec.spec.replicas of type int32")
    assert served.get(f"/apis/{GROUP}/v1/namespaces/default/{plural}/empty").json()["spec"] == {"replicas": 2}
    # a stale resourceVersion in the Scale is a precondition: 409
    r = served.http.put(f"{base}/empty/scale", timeout=10, json={
        "apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "empty", "resourceVersion": "1"},
        "spec": {"replicas": 3}})
    assert r.status_code == 409 and r.json()["reason"] == "Conflict", r.text


def test_crd_scale_paths_are_validated(served: Kube) -> None:
    """`ValidateCustomResourceDefinitionSubresources`: replicas paths required, simple, under .spec / .status."""
    plural = f"bad{uuid.uuid4().hex[:6]}"
    scale = {"specReplicasPath": ".status.replicas", "labelSelectorPath": "status.selector"}
    body = {"metadata": {"name": f"{plural}.{GROUP}"},
            "spec": {"group": GROUP, "scope": "Namespaced", "names": {"plural": plural, "kind": "Bad"},
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": SCHEMA,
                                   "subresources": {"scale": scale}}]}}
    r = create_crd(served.http, served.server.url, body, timeout=10)
    assert r.status_code == 422, r.text
    where = "spec.versions[0].subresources.scale"
    assert [(c["field"], c["message"]) for c in r.json()["details"]["causes"]] == [
        (f"{where}.specReplicasPath", 'Invalid value: ".status.replicas": should be a json path under .spec'),
        (f"{where}.statusReplicasPath", "Required value"),
        (f"{where}.labelSelectorPath", 'Invalid value: "status.selector": must be a simple json path starting '
                                       "with ."),
    ]


def test_negative_replicas_through_scale_are_the_objects_error(served: Kube, plural: str) -> None:
    """No ValidateScale for custom resources: the object's own validation (ValidateScaleSpec) refuses them."""
    _create(served, plural, "neg", {"replicas": 1})
    r = served.http.patch(f"{_base(served, plural)}/neg/scale", data=json.dumps({"spec": {"replicas": -1}}),
                          headers=MERGE, timeout=10)
    assert r.status_code == 422, r.text
    assert r.json()["details"]["kind"] == "Widget"
    assert [(c["field"], c["message"]) for c in r.json()["details"]["causes"]] == [
        (".spec.replicas", "Invalid value: -1: should be a non-negative integer")]


def test_server_side_apply_through_scale_owns_the_replicas(served: Kube, plural: str) -> None:
    """Apply of a Scale (the Scale's field manager, then ScaleHandler.ToParent): the applier owns the CR's replicas
    path; another manager's apply of a different value conflicts (409) unless forced."""
    _create(served, plural, "ssa", {"replicas": 1})
    url = f"{_base(served, plural)}/ssa/scale"
    apply = {"Content-Type": "application/apply-patch+yaml"}
    body = "apiVersion: autoscaling/v1\nkind: Scale\nmetadata: {name: ssa}\nspec: {replicas: %d}\n"
    r = served.http.patch(url, params={"fieldManager": "a"}, data=body % 2, headers=apply, timeout=10)
    assert r.status_code == 409, r.text  # the creator's Update owns the replicas, seen on the Scale
    assert r.json()["message"] == (f'Apply failed with 1 conflict: conflict with "python-requests" using {GROUP}/v1: '
                                   ".spec.replicas")
    r = served.http.patch(url, params={"fieldManager": "a", "force": "true"}, data=body % 2, headers=apply,
                          timeout=10)
    assert r.status_code == 200 and r.json()["spec"] == {"replicas": 2}, r.text
    obj = served.get(f"/apis/{GROUP}/v1/namespaces/default/{plural}/ssa").json()
    owners = {(e["manager"], e["operation"], e.get("subresource")) for e in obj["metadata"]["managedFields"]
              if e["fieldsV1"].get("f:spec", {}).get("f:replicas") is not None}
    assert owners == {("a", "Apply", "scale")}
    r = served.http.patch(url, params={"fieldManager": "b"}, data=body % 3, headers=apply, timeout=10)
    assert r.status_code == 409 and r.json()["reason"] == "Conflict", r.text
    r = served.http.patch(url, params={"fieldManager": "b", "force": "true"}, data=body % 3, headers=apply,
                          timeout=10)
    assert r.status_code == 200 and r.json()["spec"] == {"replicas": 3}, r.text
    # replicas that are not numeric fail the typed patch object, a plain error upstream (500, no reason)
    r = served.http.patch(url, params={"fieldManager": "b"}, headers=apply, timeout=10,
                          data="apiVersion: autoscaling/v1\nkind: Scale\nmetadata: {name: ssa}\nspec: {replicas: x}\n")
    assert r.status_code == 500 and "reason" not in r.json(), r.text
    assert r.json()["message"] == ("failed to create typed patch object (/ssa; autoscaling/v1, Kind=Scale): "
                                   ".spec.replicas: expected numeric (int or float), got string")
    assert served.get(f"/apis/{GROUP}/v1/namespaces/default/{plural}/ssa").json()["spec"] == {"replicas": 3}


def test_cluster_scoped_custom_resource_scale(served: Kube) -> None:
    plural = f"c{uuid.uuid4().hex[:8]}"
    body = {"metadata": {"name": f"{plural}.{GROUP}"},
            "spec": {"group": GROUP, "scope": "Cluster", "names": {"plural": plural, "kind": "Cog"},
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": SCHEMA,
                                   "subresources": {"scale": V1_SCALE}}]}}
    assert create_crd(served.http, served.server.url, body, timeout=10).status_code == 201
    try:
        base = f"{served.server.url}/apis/{GROUP}/v1/{plural}"
        r = served.http.post(base, json={"apiVersion": f"{GROUP}/v1", "kind": "Cog", "metadata": {"name": "c"},
                                         "spec": {"replicas": 1}}, timeout=10)
        assert r.status_code == 201, r.text
        r = served.http.patch(f"{base}/c/scale", data=json.dumps({"spec": {"replicas": 2}}), headers=MERGE,
                              timeout=10)
        assert r.status_code == 200 and r.json()["spec"] == {"replicas": 2} and "namespace" not in r.json()["metadata"]
        assert served.http.delete(f"{base}/c/scale", timeout=10).status_code == 405
    finally:
        served.http.delete(f"{served.server.url}{CRDS}/{plural}.{GROUP}", timeout=10)
