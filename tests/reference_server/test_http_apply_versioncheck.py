"""A server-side apply's configuration of another group, version or kind than the endpoint's is refused first by
apimachinery v0.33 `managedfields/internal/versioncheck.go` (the outermost manager `NewDefaultFieldManager` and
`NewDefaultCRDFieldManager` stack): 400 `invalid object type: <group>/<version>, Kind=<kind>`, the configuration's
`Unstructured.GroupVersionKind()` printed (a non-string field reads as "", an `apiVersion` `ParseGroupVersion`
refuses empties the whole kind). structured-merge's `Incorrect version specified in apply patch` is never reached.
(fieldmanager/versioncheck.py.)"""
from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from .crds import create_crd, delete_crd, schemaless_crd

APPLY = {"Content-Type": "application/apply-patch+yaml"}
GROUP = "applyver.example.com"


def _bad(message: str) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
            "reason": "BadRequest", "code": 400}


def _apply(http: Any, path: str, body: Any, **params: str) -> Any:
    data = body if isinstance(body, str) else json.dumps(body)
    return http.patch(path, data=data, headers=APPLY, params={"fieldManager": "m", **params})


@pytest.mark.parametrize("head, shown", [
    ({"apiVersion": "v2", "kind": "ConfigMap"}, "/v2, Kind=ConfigMap"),  # a version the scheme does not register
    ({"apiVersion": "apps/v1", "kind": "ConfigMap"}, "apps/v1, Kind=ConfigMap"),
    ({"apiVersion": "v1", "kind": "Secret"}, "/v1, Kind=Secret"),  # another kind
    ({"apiVersion": "v1"}, "/v1, Kind="),  # no kind
    ({"kind": "ConfigMap"}, "/, Kind=ConfigMap"),  # no apiVersion
    ({"apiVersion": "/", "kind": "ConfigMap"}, "/, Kind=ConfigMap"),  # ParseGroupVersion: none
    ({"apiVersion": 1, "kind": True}, "/, Kind="),  # not strings: NestedString's ""
    ({"apiVersion": "a/b/c", "kind": "ConfigMap"}, "/, Kind="),  # ParseGroupVersion errs: no kind at all
    ({"apiVersion": "v1", "kind": "configmap"}, "/v1, Kind=configmap"),
])
def test_a_configmap_apply_of_another_kind_or_version(http, url, namespaces, head: dict[str, Any],
                                                      shown: str) -> None:
    ns = namespaces.create()["metadata"]["name"]
    path = f"{url}/api/v1/namespaces/{ns}/configmaps/c"
    r = _apply(http, path, {**head, "metadata": {"name": "c"}, "data": {"a": "1"}})
    assert (r.status_code, r.json()) == (400, _bad(f"invalid object type: {shown}")), r.text
    assert http.get(path).status_code == 404
    assert http.post(f"{url}/api/v1/namespaces/{ns}/configmaps", json={"metadata": {"name": "c"}}).status_code == 201
    r = _apply(http, path, {**head, "metadata": {"name": "c"}, "data": {"a": "1"}})  # (on an existing object too)
    assert (r.status_code, r.json()) == (400, _bad(f"invalid object type: {shown}")), r.text


def test_slash_v1_is_core_v1(http, url, namespaces) -> None:
    """`ParseGroupVersion("/v1")` is the empty group's v1: the check passes and the apply is an apply."""
    ns = namespaces.create()["metadata"]["name"]
    r = _apply(http, f"{url}/api/v1/namespaces/{ns}/configmaps/c",
               {"apiVersion": "/v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "1"}})
    assert r.status_code == 201, r.text
    assert (r.json()["apiVersion"], r.json()["data"]) == ("v1", {"a": "1"})


def test_the_check_comes_before_the_configuration_s_metadata(http, url, namespaces) -> None:
    """versionCheckManager runs before structured-merge's `metadata.managedFields must be nil` and typing."""
    ns = namespaces.create()["metadata"]["name"]
    path = f"{url}/api/v1/namespaces/{ns}/configmaps/c"
    for meta in ({"name": "c", "managedFields": []}, [], "x"):
        r = _apply(http, path, {"apiVersion": "v2", "kind": "ConfigMap", "metadata": meta})
        assert (r.status_code, r.json()) == (400, _bad("invalid object type: /v2, Kind=ConfigMap")), r.text
    r = _apply(http, path, "kind: Pod\napiVersion: v1\nmetadata: {name: c}\nspec: {containers: 3}\n")
    assert (r.status_code, r.json()) == (400, _bad("invalid object type: /v1, Kind=Pod")), r.text


def test_a_named_group_kind_of_another_version(http, url, namespaces) -> None:
    """autoscaling serves HorizontalPodAutoscaler in v2 and v1: each endpoint takes its own version only."""
    ns = namespaces.create()["metadata"]["name"]
    hpa = {"kind": "HorizontalPodAutoscaler", "metadata": {"name": "h"},
           "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "d", "apiVersion": "apps/v1"},
                    "maxReplicas": 3}}
    for served, sent in (("v2", "v1"), ("v1", "v2")):
        r = _apply(http, f"{url}/apis/autoscaling/{served}/namespaces/{ns}/horizontalpodautoscalers/h",
                   {**hpa, "apiVersion": f"autoscaling/{sent}"})
        assert (r.status_code, r.json()) == (
            400, _bad(f"invalid object type: autoscaling/{sent}, Kind=HorizontalPodAutoscaler")), r.text
    dep = {"apiVersion": "v1", "kind": "Deployment", "metadata": {"name": "d"}}
    r = _apply(http, f"{url}/apis/apps/v1/namespaces/{ns}/deployments/d", dep)
    assert (r.status_code, r.json()) == (400, _bad("invalid object type: /v1, Kind=Deployment")), r.text


def test_scale_takes_autoscaling_v1_scale_only(http, url, namespaces) -> None:
    """`/scale`'s field manager is autoscaling/v1 Scale's (the installer's `GroupVersionKindProvider`)."""
    ns = namespaces.create()["metadata"]["name"]
    path = f"{url}/apis/apps/v1/namespaces/{ns}/deployments/d"
    dep = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
           "spec": {"selector": {"matchLabels": {"app": "d"}}, "template": {
               "metadata": {"labels": {"app": "d"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
    assert _apply(http, path, dep).status_code == 201
    for head, shown in (({"apiVersion": "apps/v1", "kind": "Scale"}, "apps/v1, Kind=Scale"),
                        ({"apiVersion": "autoscaling/v1", "kind": "Deployment"}, "autoscaling/v1, Kind=Deployment")):
        r = _apply(http, f"{path}/scale", {**head, "metadata": {"name": "d"}, "spec": {"replicas": 2}})
        assert (r.status_code, r.json()) == (400, _bad(f"invalid object type: {shown}")), r.text
    r = _apply(http, f"{path}/scale", {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "d"},
                                       "spec": {"replicas": 2}})
    assert r.status_code == 200 and r.json()["spec"] == {"replicas": 2}, r.text


@pytest.fixture(scope="module")
def widgets(http, url) -> Iterator[str]:
    crd = schemaless_crd(GROUP, "widgets", "Widget")
    crd["spec"]["versions"].append({**crd["spec"]["versions"][0], "name": "v2", "storage": False})
    r = create_crd(http, url, crd)
    assert r.status_code == 201, r.text
    yield f"{url}/apis/{GROUP}/{{}}/namespaces/default/widgets"
    delete_crd(http, url, f"widgets.{GROUP}")


@pytest.mark.parametrize("served, head, shown", [
    ("v1", {"apiVersion": f"{GROUP}/v2", "kind": "Widget"}, f"{GROUP}/v2, Kind=Widget"),  # another served version
    ("v2", {"apiVersion": f"{GROUP}/v1", "kind": "Widget"}, f"{GROUP}/v1, Kind=Widget"),
    ("v1", {"apiVersion": f"{GROUP}/v9", "kind": "Widget"}, f"{GROUP}/v9, Kind=Widget"),  # one not served
    ("v1", {"apiVersion": f"{GROUP}/v1", "kind": "Gadget"}, f"{GROUP}/v1, Kind=Gadget"),
    ("v1", {"apiVersion": "v1", "kind": "Widget"}, "/v1, Kind=Widget"),
    ("v1", {"apiVersion": f"{GROUP}/v1"}, f"{GROUP}/v1, Kind="),
    ("v1", {"kind": "Widget"}, "/, Kind=Widget"),
])
def test_a_custom_resource_apply_of_another_kind_or_version(http, widgets: str, served: str,
                                                            head: dict[str, Any], shown: str) -> None:
    path = f"{widgets.format(served)}/w-{served}"
    r = _apply(http, path, {**head, "metadata": {"name": f"w-{served}"}, "spec": {"a": 1}})
    assert (r.status_code, r.json()) == (400, _bad(f"invalid object type: {shown}")), r.text
    assert http.get(path).status_code == 404
    r = _apply(http, path, {"apiVersion": f"{GROUP}/{served}", "kind": "Widget", "metadata": {"name": f"w-{served}"}})
    assert r.status_code == 201, r.text
    r = _apply(http, path, {**head, "metadata": {"name": f"w-{served}"}, "spec": {"a": 1}})
    assert (r.status_code, r.json()) == (400, _bad(f"invalid object type: {shown}")), r.text
    assert http.delete(path).status_code == 200
