"""The CRD write over HTTP: a schema that is not structural is answered 422 `Invalid` with every error as a cause,
on create and on update, and the real-world CRDs are created and serve their custom resources."""
from __future__ import annotations

import uuid
from typing import Any

import pytest
import requests
import yaml

from conformance.reference_server.embedded import RunningServer

from .conftest import CRDS
from .test_structural import DATA, crd
from tests.reference_server.crds import create_crd

R = "spec.validation.openAPIV3Schema"


def _named(schema: dict[str, Any]) -> dict[str, Any]:
    group = f"s{uuid.uuid4().hex[:8]}.example.com"
    obj = crd(schema)
    obj["metadata"]["name"] = f"gadgets.{group}"
    obj["spec"]["group"] = group
    return obj


def test_create_is_refused_with_every_error(srv: RunningServer) -> None:
    obj = _named({"type": "object", "properties": {"spec": {"properties": {"a": {"type": "string"}}},
                                                   "tags": {"type": "array", "uniqueItems": True,
                                                            "items": {"type": "string"}}}})
    r = create_crd(requests, srv.url, obj)
    assert r.status_code == 422, r.text
    body = r.json()
    name = obj["metadata"]["name"]
    assert body["reason"] == "Invalid"
    assert body["message"] == (
        f'CustomResourceDefinition.apiextensions.k8s.io "{name}" is invalid: ['
        f"{R}.properties[spec].type: Required value: must not be empty for specified object fields, "
        f"{R}.properties[tags].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime "
        "complexity becomes quadratic]")
    assert body["details"] == {"name": name, "group": "apiextensions.k8s.io", "kind": "CustomResourceDefinition",
                               "causes": [
        {"reason": "FieldValueRequired", "message": "Required value: must not be empty for specified object fields",
         "field": f"{R}.properties[spec].type"},
        {"reason": "FieldValueForbidden", "message": "Forbidden: uniqueItems cannot be set to true since the runtime "
         "complexity becomes quadratic", "field": f"{R}.properties[tags].uniqueItems"}]}
    assert requests.get(f"{srv.url}{CRDS}/{name}").status_code == 404


def test_update_to_a_non_structural_schema_is_refused(srv: RunningServer) -> None:
    obj = _named({"type": "object", "properties": {"spec": {"type": "object"}}})
    r = create_crd(requests, srv.url, obj)
    assert r.status_code == 201, r.text
    stored = requests.get(f"{srv.url}{CRDS}/{obj['metadata']['name']}").json()  # after the controllers' writes
    stored["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["oneOf"] = [
        {"properties": {"x": {"x-kubernetes-int-or-string": True}}}]
    r = requests.put(f"{srv.url}{CRDS}/{obj['metadata']['name']}", json=stored)
    assert r.status_code == 422, r.text
    assert r.json()["message"].endswith(
        f"is invalid: {R}.properties[spec].oneOf[0].properties[x].x-kubernetes-int-or-string: Forbidden: must be "
        "false to be structural")


def test_real_world_crds_are_created_and_serve(srv: RunningServer) -> None:
    created = []
    for path in sorted(DATA.glob("*.yaml")):
        for obj in yaml.safe_load_all(path.read_text()):
            r = create_crd(requests, srv.url, obj)
            assert r.status_code == 201, (path.name, r.text)
            created.append(obj)
    grant = {"apiVersion": "gateway.networking.k8s.io/v1beta1", "kind": "ReferenceGrant",
             "metadata": {"name": "g"}, "spec": {"from": [{"group": "", "kind": "Service", "namespace": "a"}],
                                                 "to": [{"group": "", "kind": "Service"}]}}
    assert requests.post(f"{srv.url}/api/v1/namespaces", json={"metadata": {"name": "grants"}}).status_code == 201
    r = requests.post(f"{srv.url}/apis/gateway.networking.k8s.io/v1beta1/namespaces/grants/referencegrants",
                      json=grant)
    assert r.status_code == 201, r.text
    for obj in created:
        requests.delete(f"{srv.url}{CRDS}/{obj['metadata']['name']}")


def test_a_spec_change_increments_the_generation(srv: RunningServer) -> None:
    """strategy.go `PrepareForUpdate` (the NonStructuralSchema controller works once per generation)."""
    obj = _named({"type": "object"})
    assert create_crd(requests, srv.url, obj).json()["metadata"]["generation"] == 1
    stored = requests.get(f"{srv.url}{CRDS}/{obj['metadata']['name']}").json()  # after the controllers' writes
    stored["metadata"]["labels"] = {"a": "b"}
    stored = requests.put(f"{srv.url}{CRDS}/{obj['metadata']['name']}", json=stored).json()
    assert stored["metadata"]["generation"] == 1
    stored["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"] = {"spec": {"type": "object"}}
    r = requests.put(f"{srv.url}{CRDS}/{obj['metadata']['name']}", json=stored)
    assert r.status_code == 200, r.text
    assert r.json()["metadata"]["generation"] == 2


@pytest.mark.parametrize("schema,code", [
    ({"type": "object", "properties": {"a": {"type": "array", "items": [{"type": "string"}]}}}, 422),
    # values of the wrong JSON type are upstream's decoding error (wire/crdtypes.py)
    ({"type": "object", "properties": {"a": {"type": "array", "x-kubernetes-list-type": "map",
                                             "x-kubernetes-list-map-keys": [{}], "items": {"type": "object",
                                                                                       "required": [{}]}}}}, 400),
    ({"type": 5, "anyOf": "x", "allOf": [5], "not": [], "additionalProperties": "no"}, 400),
])
def test_hostile_schemas_are_refused_not_failed(srv: RunningServer, schema: dict[str, Any], code: int) -> None:
    r = create_crd(requests, srv.url, _named(schema))
    assert r.status_code == code, r.text
