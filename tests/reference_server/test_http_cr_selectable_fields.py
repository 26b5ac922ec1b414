"""A custom resource's field selector (CustomResourceFieldSelectors, GA in 1.32): `metadata.name`, a namespaced
one's `metadata.namespace`, and each `selectableFields` JSONPath of the CRD, compared with `fmt.Sprint` of the
value at its path ("" when unset; apiextensions-apiserver customresource/strategy.go `selectableFields`); any other
label is conversion/converter.go `ConvertFieldLabel`'s 400 `field label not supported: <label>`."""
from __future__ import annotations

import json
import uuid
from typing import Any

import requests

from .crds import create_crd


def _crd(group: str, plural: str, kind: str, scope: str = "Namespaced") -> dict[str, Any]:
    spec_schema = {"type": "object", "properties": {
        "color": {"type": "string"}, "size": {"type": "integer"}, "on": {"type": "boolean"}}}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.{group}"},
            "spec": {"group": group, "scope": scope, "names": {"plural": plural, "kind": kind},
                     "versions": [{"name": "v1", "served": True, "storage": True,
                                   "selectableFields": [{"jsonPath": ".spec.color"}, {"jsonPath": ".spec.size"},
                                                        {"jsonPath": ".spec.on"}],
                                   "schema": {"openAPIV3Schema": {"type": "object",
                                                                  "properties": {"spec": spec_schema}}}}]}}


def _names(r: requests.Response) -> list[str]:
    assert r.status_code == 200, r.text
    return sorted(i["metadata"]["name"] for i in r.json()["items"])


def test_a_list_selects_on_the_declared_fields(http: requests.Session, url: str) -> None:
    group = f"s{uuid.uuid4().hex[:8]}.example.com"
    assert create_crd(http, url, _crd(group, "paints", "Paint")).status_code == 201
    base = f"{url}/apis/{group}/v1/namespaces/default/paints"
    try:
        for name, spec in (("red", {"color": "red", "size": 3, "on": True}), ("blue", {"color": "blue", "size": 30}),
                           ("bare", {})):
            r = http.post(base, json={"apiVersion": f"{group}/v1", "kind": "Paint", "metadata": {"name": name},
                                      "spec": spec})
            assert r.status_code == 201, r.text
        assert _names(http.get(base, params={"fieldSelector": "spec.color=red"})) == ["red"]
        assert _names(http.get(base, params={"fieldSelector": "spec.size=30"})) == ["blue"]
        assert _names(http.get(base, params={"fieldSelector": "spec.on=true"})) == ["red"]
        assert _names(http.get(base, params={"fieldSelector": "spec.color="})) == ["bare"]  # unset: ""
        assert _names(http.get(base, params={"fieldSelector": "spec.color!=red,metadata.namespace=default"})) == \
            ["bare", "blue"]
        assert _names(http.get(f"{url}/apis/{group}/v1/paints", params={"fieldSelector": "spec.size=3"})) == ["red"]
        r = http.get(base, params={"fieldSelector": "spec.shade=x"})
        assert r.status_code == 400 and r.json()["message"] == "field label not supported: spec.shade", r.text
        with http.get(base, params={"watch": "1", "fieldSelector": "spec.color=blue", "timeoutSeconds": "1"},
                      stream=True) as w:
            events = [json.loads(line) for line in w.iter_lines() if line]
        assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [("ADDED", "blue")]
    finally:
        http.delete(f"{url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/paints.{group}")


def test_a_cluster_scoped_resource_has_no_namespace_label(http: requests.Session, url: str) -> None:
    group = f"c{uuid.uuid4().hex[:8]}.example.com"
    assert create_crd(http, url, _crd(group, "globes", "Globe", scope="Cluster")).status_code == 201
    try:
        r = http.get(f"{url}/apis/{group}/v1/globes", params={"fieldSelector": "metadata.namespace=x"})
        assert r.status_code == 400 and r.json()["message"] == "field label not supported: metadata.namespace", \
            r.text
        assert http.get(f"{url}/apis/{group}/v1/globes", params={"fieldSelector": "spec.on=false"}).status_code == 200
    finally:
        http.delete(f"{url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/globes.{group}")
