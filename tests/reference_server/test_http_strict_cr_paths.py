"""A custom resource's strict decoding errors as apiextensions-apiserver words them (customresource_handler.go
`schemaCoercingDecoder`: `unknown field "%s"`, unescaped): its metadata's unknown fields (objectmeta/coerce.go, in
Go's sorted-key order), then every field its schema prunes, at any depth, sorted (pruning/algorithm.go
`PruneWithOptions`, paths as schema/options.go joins them)."""
from __future__ import annotations

import json
from typing import Iterator

import pytest

from .conftest import status_of
from .crds import create_crd, delete_crd, schemaless_crd
from .test_http_duplicate_fields import JSON_BODY, STRICT, warnings_of

SCHEMA = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
    "a": {"type": "integer"},
    "m": {"type": "object", "additionalProperties": {"type": "object", "properties": {"k": {"type": "string"}}}},
    "l": {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "string"}}}}}}}}
BODY = {"metadata": {"name": "t", "zz": 1, "bo\"gus": 1}, "top": 1,
        "spec": {"z": 1, "a\"b\\": 1, "a": 1, "m": {"x\"y": {"k": "v", "q": 2}}, "l": [{"k": "v"}, {"n": 1}]},
        "arr": [1]}
ERRORS = ['unknown field "metadata.bo"gus"', 'unknown field "metadata.zz"', 'unknown field "arr"',
          'unknown field "spec.a"b\\"', 'unknown field "spec.l[1].n"', 'unknown field "spec.m.x"y.q"',
          'unknown field "spec.z"', 'unknown field "top"']


NAME = "unkthings.unk.example.com"


@pytest.fixture
def unk_crd(http, url) -> Iterator[None]:
    """The CRD for the test, deleted after it (waited for on a watch: the session's server is shared, and its
    discovery must not keep the group)."""
    crd = schemaless_crd("unk.example.com", "unkthings", "UnkThing")
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = SCHEMA
    r = create_crd(http, url, crd)
    assert r.status_code in (201, 409), r.text
    yield
    delete_crd(http, url, NAME)


def test_create_strict_and_warn(http, url, namespaces, unk_crd):
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/apis/unk.example.com/v1/namespaces/{ns}/unkthings"
    st = status_of(http.post(base, params=STRICT, data=json.dumps(BODY), headers=JSON_BODY))
    assert st["code"] == 400
    assert st["message"] == ('UnkThing in version "v1" cannot be handled as a UnkThing: strict decoding error: '
                             + ", ".join(ERRORS))
    r = http.post(base, data=json.dumps(BODY), headers=JSON_BODY)
    assert r.status_code == 201, r.text
    assert warnings_of(r) == [e.replace("\\", "\\\\") for e in ERRORS]  # (the header's quoted-string escapes)
    assert r.json()["spec"] == {"a": 1, "m": {"x\"y": {"k": "v"}}, "l": [{"k": "v"}, {}]}


def test_patch_strict(http, url, namespaces, unk_crd):
    """A merge patch's result: the same errors, 422 on `patch` (patch.go `applyPatchToCurrentObject`)."""
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/apis/unk.example.com/v1/namespaces/{ns}/unkthings"
    assert http.post(base, json={"metadata": {"name": "p"}, "spec": {"a": 1}}).status_code == 201
    st = status_of(http.patch(f"{base}/p", params=STRICT, data='{"spec":{"l":[{"n\\\\":1}],"b":2}}',
                              headers={"Content-Type": "application/merge-patch+json"}))
    assert st["code"] == 422 and st["details"]["causes"][0]["field"] == "patch"
    assert st["message"].endswith('strict decoding error: unknown field "spec.b", unknown field "spec.l[0].n\\"'), \
        st["message"]
