"""A CRD whose schema is `{type: object, x-kubernetes-preserve-unknown-fields: true}` (no properties: many
operators' CRDs): every top-level field of its custom resources is kept, as upstream's pruning keeps them, while
`metadata` is still ObjectMeta (an unknown field there is refused under `fieldValidation=Strict`). Before, the
decoder took "no properties" for "nothing known" and dropped `spec` on every write."""
from __future__ import annotations

from typing import Iterator

import pytest
import requests

from conformance.reference_server.embedded import RunningServer, start_embedded
from tests.reference_server.crds import create_crd

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


@pytest.fixture(scope="module")
def things() -> Iterator[str]:
    srv: RunningServer = start_embedded(flavor="bare")
    crd = {"metadata": {"name": "things.free.example.com"}, "spec": {
        "group": "free.example.com", "scope": "Namespaced", "names": {"plural": "things", "kind": "Thing"},
        "versions": [{"name": "v1", "served": True, "storage": True, "schema": {
            "openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}}
    assert create_crd(requests, srv.url, crd).status_code == 201
    url = f"{srv.url}/apis/free.example.com/v1/namespaces/default/things"
    for _ in range(200):  # the CRD is served once Established
        if requests.get(url).status_code == 200:
            break
    yield url
    srv.stop()


def test_every_top_level_field_is_kept_on_create_and_patch(things: str) -> None:
    body = {"apiVersion": "free.example.com/v1", "kind": "Thing", "metadata": {"name": "a"},
            "spec": {"replicas": 1, "nested": {"x": [1, 2]}}, "data": "y"}
    created = requests.post(things, json=body)
    assert created.status_code == 201, created.text
    assert created.json()["spec"] == {"replicas": 1, "nested": {"x": [1, 2]}} and created.json()["data"] == "y"
    patched = requests.patch(f"{things}/a", data='{"more":{"z":2}}',
                             headers={"Content-Type": "application/merge-patch+json"})
    assert patched.status_code == 200 and patched.json()["more"] == {"z": 2} and patched.json()["data"] == "y"
    assert requests.get(f"{things}/a").json()["spec"] == {"replicas": 1, "nested": {"x": [1, 2]}}


def test_strict_validation_still_knows_object_meta(things: str) -> None:
    body = {"apiVersion": "free.example.com/v1", "kind": "Thing", "metadata": {"name": "b", "bogus": 1},
            "spec": {"anything": True}}
    r = requests.post(things, json=body, params={"fieldValidation": "Strict"})
    assert r.status_code == 400 and r.json()["message"] == (
        'Thing in version "v1" cannot be handled as a Thing: strict decoding error: unknown field "metadata.bogus"')
    r = requests.post(things, json={**body, "metadata": {"name": "b"}}, params={"fieldValidation": "Strict"})
    assert r.status_code == 201 and r.json()["spec"] == {"anything": True}
