"""A custom resource's embedded resources' `metadata` (`x-kubernetes-embedded-resource`) as apiextensions-apiserver
answers it: decoded into a metav1.ObjectMeta through encoding/json and written back by the unstructured converter
(schema/objectmeta/coerce.go `GetObjectMetaWithOptions` + `SetObjectMeta`): numbers Go writes as integers are
integers, times are RFC 3339 in UTC with second precision, nulls are Go's zero values; what does not decode is the
decoder's error, in Go's words (registry/crobjectmeta.py, gotime.py)."""
from __future__ import annotations

from typing import Iterator

import pytest

from .conftest import status_of
from .crds import CRDS
from .test_http_strict_cr_paths import EMB_SCHEMA, TYPE, _crd

GROUP = "embmeta.example.com"
MERGE = {"Content-Type": "application/merge-patch+json"}
JSON = {"Content-Type": "application/json"}


@pytest.fixture
def base(http, url, namespaces) -> Iterator[str]:
    gen = _crd(http, url, GROUP, "embmetas", "EmbMeta", EMB_SCHEMA)
    next(gen)
    ns = namespaces.create()["metadata"]["name"]
    yield f"{url}/apis/{GROUP}/v1/namespaces/{ns}/embmetas"
    next(gen, None)


SENT = ('{"apiVersion": "embmeta.example.com/v1", "kind": "EmbMeta", "metadata": {"name": "r"}, "spec": {"t": {"apiVersion": "v1", "kind": "Pod", "metadata": {'
        '"name": "p", "generation": 1.0, "deletionGracePeriodSeconds": 0, "resourceVersion": null,'
        '"creationTimestamp": "2020-01-02T03:04:05.5+01:00", "deletionTimestamp": "0001-01-01T00:00:00Z",'
        '"labels": {"b": null, "a": "x"}, "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", '
        '"name": "o", "uid": "u1", "controller": null, "blockOwnerDeletion": false}],'
        '"managedFields": [{"manager": "m", "operation": "Update", "time": "2020-01-01T00:00:00-01:00",'
        '"fieldsType": "FieldsV1", "fieldsV1": {"f:a": 1e0}}]}},'
        '"l": [{"apiVersion": "v1", "kind": "Pod", "metadata": null}]}}')
SHOWN = {"creationTimestamp": "2020-01-02T02:04:05Z", "deletionGracePeriodSeconds": 0, "generation": 1,
         "labels": {"a": "x", "b": ""}, "name": "p",
         "managedFields": [{"fieldsType": "FieldsV1", "fieldsV1": {"f:a": 1}, "manager": "m",
                            "operation": "Update", "time": "2020-01-01T01:00:00Z"}],
         "ownerReferences": [{"apiVersion": "v1", "blockOwnerDeletion": False, "kind": "ConfigMap", "name": "o",
                              "uid": "u1"}]}


def test_embedded_metadata_reprinted(http, base) -> None:
    r = http.post(base, data=SENT, headers=JSON)
    assert r.status_code == 201, r.text
    spec = r.json()["spec"]
    assert spec["t"]["metadata"] == SHOWN
    assert list(spec["t"]["metadata"]) == sorted(SHOWN)  # a Go map, written with sorted keys
    assert '"generation":1,' in r.text and '"f:a":1}' in r.text
    assert spec["l"] == [{**TYPE, "metadata": {}}]  # a null metadata is the zero ObjectMeta
    assert http.get(f"{base}/r").json()["spec"] == spec
    # a merge patch's result is decoded so too
    r = http.patch(f"{base}/r", headers=MERGE, data='{"spec": {"t": {"metadata": {'
                   '"generation": 2e0, "creationTimestamp": "2020-06-01T00:00:00.999-02:00"}}}}')
    assert r.status_code == 200, r.text
    meta = r.json()["spec"]["t"]["metadata"]
    assert (meta["generation"], meta["creationTimestamp"]) == (2, "2020-06-01T02:00:00Z")


@pytest.mark.parametrize("meta,error", [
    ('{"generation": 1e20}', "json: cannot unmarshal number 100000000000000000000 into Go struct field "
                             "ObjectMeta.generation of type int64"),
    ('{"generation": 1.50}', "json: cannot unmarshal number 1.5 into Go struct field ObjectMeta.generation "
                             "of type int64"),
    ('{"creationTimestamp": "2020-01-02T03:04:05"}',
     'parsing time "2020-01-02T03:04:05" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00"'),
    ('{"deletionTimestamp": "2020-02-30T00:00:00Z"}', 'parsing time "2020-02-30T00:00:00Z": day out of range'),
])
def test_embedded_metadata_that_does_not_decode(http, base, meta: str, error: str) -> None:
    body = ('{"apiVersion": "embmeta.example.com/v1", "kind": "EmbMeta", "metadata": {"name": "d"}, "spec": {"t": {"apiVersion": "v1", "kind": "Pod", "metadata": %s}}}'
            % meta)
    st = status_of(http.post(base, data=body, headers=JSON))
    assert st["code"] == 400 and st["reason"] == "BadRequest", st
    assert st["message"].startswith('EmbMeta in version "v1" cannot be handled as a EmbMeta: spec.t.metadata: '
                                    'Invalid value: map[string]interface {}{'), st["message"]
    assert st["message"].endswith(f"}}: {error}"), st["message"]


def test_root_metadata_decoded_so_too(http, base) -> None:
    """`unstructuredSchemaCoercer.apply` decodes the root's metadata with the same `GetObjectMetaWithOptions` and
    writes it back with `SetObjectMeta`: a null label or annotation value is "", a null owner reference pointer is
    gone, `generation: 1.0` decodes; what does not decode is the error itself, worded for the ObjectMeta alone."""
    body = ('{"apiVersion": "embmeta.example.com/v1", "kind": "EmbMeta", "metadata": {"name": "root", "generation": 1.0, "labels": {"a": null}, "annotations": {"k": null}},'
            '"spec": {"t": {"apiVersion": "v1", "kind": "Pod"}}}')
    r = http.post(base, data=body, headers=JSON)
    assert r.status_code == 201, r.text
    assert (r.json()["metadata"]["labels"], r.json()["metadata"]["annotations"]) == ({"a": ""}, {"k": ""})
    listed = http.get(base, params={"labelSelector": "a="}).json()["items"]
    assert [o["metadata"]["name"] for o in listed] == ["root"]
    owned = ('{"apiVersion": "embmeta.example.com/v1", "kind": "EmbMeta", "metadata": {"name": "owned", "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", '
             '"name": "o", "uid": "u1", "controller": null}]}}')  # (the garbage collector deletes it later)
    r = http.post(base, data=owned, headers=JSON)
    assert r.status_code == 201, r.text
    assert r.json()["metadata"]["ownerReferences"] == [{"apiVersion": "v1", "kind": "ConfigMap", "name": "o",
                                                        "uid": "u1"}]
    st = status_of(http.post(base, data='{"apiVersion": "embmeta.example.com/v1", "kind": "EmbMeta", "metadata": {"name": 5}}', headers=JSON))
    assert st["code"] == 400 and st["message"] == (
        'EmbMeta in version "v1" cannot be handled as a EmbMeta: json: cannot unmarshal number into Go struct field '
        'ObjectMeta.name of type string'), st
    st = status_of(http.post(base, data='{"apiVersion": "embmeta.example.com/v1", "kind": "EmbMeta", "metadata": {"name": "g", "generation": 1e20}}', headers=JSON))
    assert st["message"].endswith(': json: cannot unmarshal number 100000000000000000000 into Go struct field '
                                  'ObjectMeta.generation of type int64'), st
    r = http.patch(f"{base}/root", data='[{"op": "add", "path": "/metadata/labels/b", "value": null}]',
                   headers={"Content-Type": "application/json-patch+json"})
    assert r.status_code == 200, r.text
    assert r.json()["metadata"]["labels"] == {"a": "", "b": ""}


def test_spec_of_the_wrong_type_is_the_schemas_business(http, base) -> None:
    """A custom resource has no Go type for its `spec`: one that is no object is refused by its schema (422), not
    by a decoder."""
    st = status_of(http.post(base, data='{"apiVersion": "embmeta.example.com/v1", "kind": "EmbMeta", "metadata": {"name": "s"}, "spec": 5}', headers=JSON))
    assert st["code"] == 422 and st["details"]["causes"] == [
        {"reason": "FieldValueTypeInvalid", "message": 'Invalid value: "integer": spec in body must be of type '
                                                       'object: "integer"', "field": "spec"}], st


def test_admission_sees_the_root_metadata_as_decoded(http, url, base) -> None:
    """The decoder writes the root's metadata back before admission: a policy reads a null label value as ""."""
    name = f"embmeta-{base.rsplit('/', 2)[-2]}"
    ar = f"{url}/apis/admissionregistration.k8s.io/v1"
    rules = [{"apiGroups": [GROUP], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["embmetas"]}]
    r = http.post(f"{ar}/validatingadmissionpolicies", json={"metadata": {"name": name}, "spec": {
        "matchConstraints": {"resourceRules": rules}, "validations": [
            {"expression": "!has(object.metadata.labels) || !('a' in object.metadata.labels) || "
                           "object.metadata.labels['a'] == ''", "message": "not decoded"}]}})
    assert r.status_code == 201, r.text
    r = http.post(f"{ar}/validatingadmissionpolicybindings", json={"metadata": {"name": name}, "spec": {
        "policyName": name, "validationActions": ["Deny"]}})
    assert r.status_code == 201, r.text
    try:
        r = http.post(base, data='{"apiVersion": "embmeta.example.com/v1", "kind": "EmbMeta", "metadata": {"name": "adm", "labels": {"a": null}}}', headers=JSON)
        assert r.status_code == 201, r.text
        assert status_of(http.post(base, json={"apiVersion": "embmeta.example.com/v1", "kind": "EmbMeta", "metadata": {"name": "adm2", "labels": {"a": "x"}}}))["code"] == 422
    finally:
        http.delete(f"{ar}/validatingadmissionpolicybindings/{name}")
        http.delete(f"{ar}/validatingadmissionpolicies/{name}")


def test_stored_object_read_under_a_schema_that_marks_it_embedded(http, url, namespaces) -> None:
    """The storage codec coerces what it reads under the current schema (invalid fields dropped, not refused:
    `DropInvalidFields`): an object stored before its field became `x-kubernetes-embedded-resource` is read with
    that field's metadata written back, its fields that do not decode alone dropped."""
    group = "embread.example.com"
    loose = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {"t": loose}}}}
    gen = _crd(http, url, group, "embreads", "EmbRead", schema)
    next(gen)
    try:
        ns = namespaces.create()["metadata"]["name"]
        base = f"{url}/apis/{group}/v1/namespaces/{ns}/embreads"
        stored = {"kind": 5, "metadata": {"name": "p", "creationTimestamp": "2020-01-01T01:00:00+01:00", "x": 1,
                                          "generation": "bad"}}
        r = http.post(base, json={"apiVersion": f"{group}/v1", "kind": "EmbRead", "metadata": {"name": "r"}, "spec": {"t": stored}})
        assert r.status_code == 201 and r.json()["spec"]["t"] == stored, r.text
        crd = http.get(f"{url}{CRDS}/embreads.{group}").json()
        crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["t"] = {
            **loose, "x-kubernetes-embedded-resource": True}
        assert http.put(f"{url}{CRDS}/embreads.{group}", json=crd).status_code == 200
        want = {"metadata": {"creationTimestamp": "2020-01-01T00:00:00Z", "name": "p"}}
        assert http.get(f"{base}/r").json()["spec"]["t"] == want
        assert http.get(base).json()["items"][0]["spec"]["t"] == want
    finally:
        next(gen, None)
