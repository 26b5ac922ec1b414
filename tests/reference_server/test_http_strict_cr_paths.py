"""A custom resource's strict decoding errors as apiextensions-apiserver words them (customresource_handler.go
`schemaCoercingDecoder`: `unknown field "%s"`, unescaped): its metadata's unknown fields (objectmeta/coerce.go, in
Go's sorted-key order), then every field its schema prunes, at any depth, sorted (pruning/algorithm.go
`PruneWithOptions`, paths as schema/options.go joins them)."""
from __future__ import annotations

import json
from typing import Iterator

import pytest

from .conftest import status_of
from .crds import api_version_of, create_crd, delete_crd, schemaless_crd
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


def _crd(http, url, group: str, plural: str, kind: str, schema: dict, status: bool = False) -> Iterator[None]:
    """The CRD for the test, deleted after it (waited for on a watch: the session's server is shared, and its
    discovery must not keep the group)."""
    crd = schemaless_crd(group, plural, kind)
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = schema
    if status:
        crd["spec"]["versions"][0]["subresources"] = {"status": {}}
    r = create_crd(http, url, crd)
    assert r.status_code in (201, 409), r.text
    yield
    delete_crd(http, url, f"{plural}.{group}")


@pytest.fixture
def unk_crd(http, url) -> Iterator[None]:
    yield from _crd(http, url, "unk.example.com", "unkthings", "UnkThing", SCHEMA)


def _strict_then_warn(http, base: str, kind: str, body: dict, errors: list[str]):
    """POST `body` (named `kind`, as a custom resource's body must be) under Strict (a 400 naming `errors`, in
    order), then under Warn (created, one warning each)."""
    body = {"apiVersion": api_version_of(base), "kind": kind, **body}
    st = status_of(http.post(base, params=STRICT, data=json.dumps(body), headers=JSON_BODY))
    assert st["code"] == 400
    assert st["message"] == (f'{kind} in version "v1" cannot be handled as a {kind}: strict decoding error: '
                             + ", ".join(errors))
    r = http.post(base, data=json.dumps(body), headers=JSON_BODY)
    assert r.status_code == 201, r.text
    assert warnings_of(r) == [e.replace("\\", "\\\\") for e in errors]  # (the header's quoted-string escapes)
    return r


def test_create_strict_and_warn(http, url, namespaces, unk_crd):
    ns = namespaces.create()["metadata"]["name"]
    r = _strict_then_warn(http, f"{url}/apis/unk.example.com/v1/namespaces/{ns}/unkthings", "UnkThing", BODY, ERRORS)
    assert r.json()["spec"] == {"a": 1, "m": {"x\"y": {"k": "v"}}, "l": [{"k": "v"}, {}]}


def test_patch_strict(http, url, namespaces, unk_crd):
    """A merge patch's result: the same errors, 422 on `patch` (patch.go `applyPatchToCurrentObject`)."""
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/apis/unk.example.com/v1/namespaces/{ns}/unkthings"
    assert http.post(base, json={"apiVersion": "unk.example.com/v1", "kind": "UnkThing", "metadata": {"name": "p"}, "spec": {"a": 1}}).status_code == 201
    st = status_of(http.patch(f"{base}/p", params=STRICT, data='{"spec":{"l":[{"n\\\\":1}],"b":2}}',
                              headers={"Content-Type": "application/merge-patch+json"}))
    assert st["code"] == 422 and st["details"]["causes"][0]["field"] == "patch"
    assert st["message"].endswith('strict decoding error: unknown field "spec.b", unknown field "spec.l[0].n\\"'), \
        st["message"]


# embedded resources (`x-kubernetes-embedded-resource`): their `metadata` is coerced to a metav1.ObjectMeta
# (objectmeta/coerce.go `CoerceWithOptions`, after pruning), its unknown fields named last, sorted, at the path
# `field.Path` prints (an `additionalProperties` key as `[k]`), and dropped
EMBEDDED = {"type": "object", "x-kubernetes-embedded-resource": True, "x-kubernetes-preserve-unknown-fields": True}
EMB_SCHEMA = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
    "t": EMBEDDED,
    "m": {"type": "object", "additionalProperties": {
        "type": "object", "x-kubernetes-embedded-resource": True,
        "properties": {"spec": {"type": "object", "properties": {"k": {"type": "string"}}}}}},
    "l": {"type": "array", "items": EMBEDDED}}}}}
OWNER = {"apiVersion": "v1", "kind": "ConfigMap", "name": "o", "uid": "u1"}
TYPE = {"apiVersion": "v1", "kind": "Pod"}  # (an embedded resource must have both: validateEmbeddedResource)
EMB_BODY = {"metadata": {"name": "e", "zz": 1}, "spec": {
    "z": 1,
    "t": {"apiVersion": "v1", "kind": "Pod", "metadata": {
        "name": "p", "bogus": 1, "creationTimestamp": None, "labels": {"a": "b"}, "annotations": {},
        "ownerReferences": [{**OWNER, "extra": 1}]}, "spec": {"x": 1}},
    "m": {"k.y": {**TYPE, "metadata": {"q": 1, "name": "n"}, "spec": {"k": "v", "x": 1}}},
    "l": [{**TYPE, "metadata": {"b": 1}}, {**TYPE, "metadata": {"Name": "x", "a": 1}}]}}
EMB_ERRORS = ['unknown field "metadata.zz"',  # the root's metadata (its own GetObjectMetaWithOptions) first
              'unknown field "spec.m.k.y.spec.x"', 'unknown field "spec.z"',  # then what pruning drops
              'unknown field "spec.l[0].metadata.b"', 'unknown field "spec.l[1].metadata.Name"',
              'unknown field "spec.l[1].metadata.a"', 'unknown field "spec.m[k.y].metadata.q"',
              'unknown field "spec.t.metadata.bogus"', 'unknown field "spec.t.metadata.ownerReferences[0].extra"']


@pytest.fixture
def emb_crd(http, url) -> Iterator[None]:
    yield from _crd(http, url, "emb.example.com", "embthings", "EmbThing", EMB_SCHEMA)


def test_embedded_metadata_strict_warn_and_dropped(http, url, namespaces, emb_crd):
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/apis/emb.example.com/v1/namespaces/{ns}/embthings"
    r = _strict_then_warn(http, base, "EmbThing", EMB_BODY, EMB_ERRORS)
    spec = r.json()["spec"]
    # SetObjectMeta: unknown fields, empty `omitempty` fields and the zero creationTimestamp gone
    assert spec["t"]["metadata"] == {"name": "p", "labels": {"a": "b"}, "ownerReferences": [OWNER]}
    assert spec["t"]["spec"] == {"x": 1}  # (preserved: the embedded resource keeps unknown fields)
    assert spec["m"] == {"k.y": {**TYPE, "metadata": {"name": "n"}, "spec": {"k": "v"}}}
    assert spec["l"] == [{**TYPE, "metadata": {}}, {**TYPE, "metadata": {}}]
    assert http.get(f"{base}/e").json()["spec"] == spec


def test_embedded_metadata_patch_strict(http, url, namespaces, emb_crd):
    """A merge patch's result: the embedded metadata's unknown fields after the pruned ones, 422 on `patch`."""
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/apis/emb.example.com/v1/namespaces/{ns}/embthings"
    assert http.post(base, json={"apiVersion": "emb.example.com/v1", "kind": "EmbThing", "metadata": {"name": "p"}, "spec": {"t": {**TYPE, "metadata": {"name": "a"}}}}
                     ).status_code == 201
    st = status_of(http.patch(f"{base}/p", params=STRICT, data='{"spec":{"t":{"metadata":{"x":1}},"b":2}}',
                              headers={"Content-Type": "application/merge-patch+json"}))
    assert st["code"] == 422 and st["details"]["causes"][0]["field"] == "patch"
    assert st["message"].endswith('strict decoding error: unknown field "spec.b", '
                                  'unknown field "spec.t.metadata.x"'), st["message"]


def test_root_metadata_nested_unknown_fields(http, url, namespaces, unk_crd):
    """The root's metadata is decoded strictly into a metav1.ObjectMeta too (GetObjectMetaWithOptions): an owner
    reference's unknown field is named at its depth, and dropped."""
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/apis/unk.example.com/v1/namespaces/{ns}/unkthings"
    body = {"apiVersion": "unk.example.com/v1", "kind": "UnkThing", "metadata": {"name": "o", "ownerReferences": [{**OWNER, "x": 1}]}, "spec": {"a": 1}}
    st = status_of(http.post(base, params=STRICT, data=json.dumps(body), headers=JSON_BODY))
    assert st["message"].endswith('strict decoding error: unknown field "metadata.ownerReferences[0].x"'), st
    r = http.post(base, data=json.dumps(body), headers=JSON_BODY)
    assert r.status_code == 201, r.text
    assert warnings_of(r) == ['unknown field "metadata.ownerReferences[0].x"']
    assert r.json()["metadata"]["ownerReferences"] == [OWNER]


def test_embedded_resource_validated(http, url, namespaces, emb_crd):
    """customresource/strategy.go: `schemaobjectmeta.Validate` of every embedded resource (apiVersion and kind
    required, the metadata a valid ObjectMeta whose name is a path segment), a 422 with the others' errors."""
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/apis/emb.example.com/v1/namespaces/{ns}/embthings"
    body = {"apiVersion": "emb.example.com/v1", "kind": "EmbThing", "metadata": {"name": "v"}, "spec": {"t": {"kind": "Pod", "metadata": {"name": "a/b"}}}}
    st = status_of(http.post(base, json=body))
    assert st["code"] == 422 and st["reason"] == "Invalid", st
    assert [(c["reason"], c["field"]) for c in st["details"]["causes"]] == [
        ("FieldValueRequired", "spec.t.apiVersion"), ("FieldValueInvalid", "spec.t.metadata.name")], st
    assert 'spec.t.apiVersion: Required value: must not be empty' in st["message"], st["message"]


@pytest.fixture
def emb_status_crd(http, url) -> Iterator[None]:
    crd_schema = {"type": "object", "properties": {"status": {"type": "object", "properties": {"t": EMBEDDED}}}}
    yield from _crd(http, url, "embst.example.com", "embstats", "EmbStat", crd_schema, status=True)


def test_embedded_resource_not_validated_on_status(http, url, namespaces, emb_status_crd):
    """status_strategy.go's ValidateUpdate does not call `schemaobjectmeta.Validate`: an embedded resource without
    `apiVersion` is taken on `/status` (its metadata still coerced), refused on the main resource."""
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/apis/embst.example.com/v1/namespaces/{ns}/embstats"
    made = http.post(base, json={"apiVersion": "embst.example.com/v1", "kind": "EmbStat", "metadata": {"name": "s"}})
    assert made.status_code == 201, made.text
    status = {"t": {"kind": "Pod", "metadata": {"name": "p", "x": 1}}}
    r = http.put(f"{base}/s/status", json={**made.json(), "status": status})
    assert r.status_code == 200, r.text
    assert r.json()["status"] == {"t": {"kind": "Pod", "metadata": {"name": "p"}}}
    assert warnings_of(r) == ['unknown field "status.t.metadata.x"']
    st = status_of(http.put(f"{base}/s", json=r.json()))
    assert st["code"] == 422 and [c["field"] for c in st["details"]["causes"]] == ["status.t.apiVersion"], st


def test_embedded_metadata_that_does_not_decode(http, url, namespaces, emb_crd):
    """`CoerceWithOptions` (invalid fields not dropped) makes a `metadata` that is no ObjectMeta the decoder's error,
    before any strict one: create.go's 400 `cannot be handled as`, a patch's 422 on `patch` (patch.go)."""
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/apis/emb.example.com/v1/namespaces/{ns}/embthings"
    body = {"apiVersion": "emb.example.com/v1", "kind": "EmbThing", "metadata": {"name": "d"}, "spec": {"z": 1, "t": {**TYPE, "metadata": {"name": 5, "x": 1}}}}
    st = status_of(http.post(base, params=STRICT, json=body))
    assert st["code"] == 400 and st["reason"] == "BadRequest", st
    assert st["message"] == ('EmbThing in version "v1" cannot be handled as a EmbThing: spec.t.metadata: Invalid '
                             'value: map[string]interface {}{"name":5, "x":1}: json: cannot unmarshal number into '
                             'Go struct field ObjectMeta.name of type string'), st["message"]
    assert http.post(base, json={"apiVersion": "emb.example.com/v1", "kind": "EmbThing", "metadata": {"name": "d"}, "spec": {"t": TYPE}}).status_code == 201
    st = status_of(http.patch(f"{base}/d", data='{"spec":{"t":{"kind":3}}}',
                              headers={"Content-Type": "application/merge-patch+json"}))
    assert st["code"] == 422 and st["details"]["causes"][0]["field"] == "patch", st
    assert st["message"].endswith(': spec.t.kind: Invalid value: 3: must be a string'), st["message"]
