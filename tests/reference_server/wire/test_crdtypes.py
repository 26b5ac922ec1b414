"""A CRD body whose schema holds a value of the wrong JSON type is refused as kube-apiserver's decoder refuses it:
400 `BadRequest`, `json: cannot unmarshal ... into Go struct field <Struct>.<json path> of type <Go type>` for the
Go types of apiextensions/v1 (types.go, types_jsonschema.go), and the custom `UnmarshalJSON`s of marshal.go (their
own words, or the outer field's place)."""
from __future__ import annotations

import uuid
from typing import Any

import pytest
import requests

from conformance.reference_server.embedded import RunningServer
from conformance.reference_server.wire.crdtypes import type_error
from tests.reference_server.crds import create_crd
from tests.reference_server.ownserver import own_server

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
S = "spec.versions.schema.openAPIV3Schema"


def crd(schema: Any, group: str = "example.com", **version: Any) -> dict[str, Any]:
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"gadgets.{group}"},
            "spec": {"group": group, "scope": "Namespaced", "names": {"plural": "gadgets", "kind": "Gadget"},
                     "versions": [{"name": "v1", "served": True, "storage": True,
                                   "schema": {"openAPIV3Schema": schema}, **version}]}}


CASES = [
    ({"type": "object", "properties": {"a": "string"}},
     f"json: cannot unmarshal string into Go struct field JSONSchemaProps.{S}.properties of type v1.JSONSchemaProps"),
    ({"type": 5}, f"json: cannot unmarshal number into Go struct field JSONSchemaProps.{S}.type of type string"),
    ({"type": "object", "required": [{}]},
     f"json: cannot unmarshal object into Go struct field JSONSchemaProps.{S}.required of type string"),
    ({"type": "object", "required": "a"},
     f"json: cannot unmarshal string into Go struct field JSONSchemaProps.{S}.required of type []string"),
    ({"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"maxLength": 1.5}}}}},
     f"json: cannot unmarshal number 1.5 into Go struct field JSONSchemaProps.{S}.properties.properties.maxLength of "
     "type int64"),
    ({"type": "object", "x-kubernetes-validations": [{"rule": True}]},
     f"json: cannot unmarshal bool into Go struct field ValidationRule.{S}.x-kubernetes-validations.rule of type "
     "string"),
    ({"type": "object", "allOf": {}},
     f"json: cannot unmarshal object into Go struct field JSONSchemaProps.{S}.allOf of type []v1.JSONSchemaProps"),
    # JSONSchemaPropsOrBool: its own words, even after an earlier mismatch (a custom unmarshaler's error is fatal)
    ({"type": 5, "additionalProperties": "x"}, "boolean or JSON schema expected"),
    # an error inside its (or JSONSchemaPropsOrArray's) schema takes the outer field's place
    ({"type": "object", "additionalProperties": {"type": 5}},
     f"json: cannot unmarshal number into Go struct field JSONSchemaProps.{S}.additionalProperties of type string"),
    ({"type": "array", "items": {"properties": {"a": 1}}},
     f"json: cannot unmarshal number into Go struct field JSONSchemaProps.{S}.items of type v1.JSONSchemaProps"),
]


@pytest.mark.parametrize("schema,expected", CASES, ids=[e.split(" of type")[0][-40:] for _, e in CASES])
def test_go_decode_errors(schema: dict[str, Any], expected: str) -> None:
    assert type_error(crd(schema)) == expected


def test_values_any_json_takes_and_fields_it_ignores() -> None:
    assert type_error(crd({"type": "object", "default": [1, {}], "enum": [1, "a", {}], "example": "x",
                           "dependencies": {"a": "ignored by JSONSchemaPropsOrStringArray"}})) is None
    assert type_error(crd({"type": "object"}, served="yes")) == (
        "json: cannot unmarshal string into Go struct field CustomResourceDefinitionVersion.spec.versions.served of "
        "type bool")


srv = own_server()


def test_the_crd_write_answers_400(srv: RunningServer) -> None:
    group = f"t{uuid.uuid4().hex[:8]}.example.com"
    r = create_crd(requests, srv.url, crd({"type": "object", "properties": {"a": "string"}}, group))
    assert r.status_code == 400, r.text
    assert r.json() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "reason":
                        "BadRequest", "code": 400, "message": 'CustomResourceDefinition in version "v1" cannot be '
                        'handled as a CustomResourceDefinition: json: cannot unmarshal string into Go struct field '
                        f'JSONSchemaProps.{S}.properties of type v1.JSONSchemaProps'}
    assert requests.get(f"{srv.url}{CRDS}/gadgets.{group}").status_code == 404


def test_a_patch_that_breaks_the_schema_is_refused_422(srv: RunningServer) -> None:
    """`handlers/patch.go`: the patched JSON no longer decodes, `patch: Invalid value: <json>: <error>`."""
    group = f"t{uuid.uuid4().hex[:8]}.example.com"
    assert create_crd(requests, srv.url, crd({"type": "object"}, group)).status_code == 201
    patch = {"spec": {"versions": [{"name": "v1", "served": True, "storage": True,
                                    "schema": {"openAPIV3Schema": {"type": "object", "properties": {"a": 1}}}}]}}
    r = requests.patch(f"{srv.url}{CRDS}/gadgets.{group}", json=patch,
                       headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 422, r.text
    assert r.json()["message"].startswith(' "" is invalid: patch: Invalid value: "{')
    assert r.json()["message"].endswith(
        f"json: cannot unmarshal number into Go struct field JSONSchemaProps.{S}.properties of type v1.JSONSchemaProps")


def test_unknown_fields_are_named_as_the_strict_decoder_names_them() -> None:
    from conformance.reference_server.wire.crdtypes import unknown_fields
    obj = crd({"type": "object", "properties": {"spec": {
        "type": "object", "typo": 1, "x-kubernetes-validations": [{"rule": "true", "extra": 1}],
        "additionalProperties": {"type": "string", "inner": 2}}}}, served=True, bogus=3)
    assert unknown_fields(obj, drop=False) == [
        f"spec.versions[0].schema.openAPIV3Schema.properties.spec.{k}" for k in
        ("typo", "x-kubernetes-validations[0].extra")] + ["spec.versions[0].bogus"]
    # a custom UnmarshalJSON decodes without strictness: its unknown fields are dropped without a word
    assert obj["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["additionalProperties"] == {
        "type": "string"}
    assert unknown_fields(obj, drop=True) and unknown_fields(obj, drop=False) == []


def test_field_validation_of_a_crd_schema(srv: RunningServer) -> None:
    group = f"t{uuid.uuid4().hex[:8]}.example.com"
    typo = {"type": "object", "x-kubernetes-preserve-unknown-field": True}
    obj = crd({"type": "object", "properties": {"spec": typo}}, group)
    r = requests.post(f"{srv.url}{CRDS}?fieldValidation=Strict", json=obj)
    assert r.status_code == 400, r.text
    assert r.json()["message"] == ('CustomResourceDefinition in version "v1" cannot be handled as a '
                                   'CustomResourceDefinition: strict decoding error: unknown field '
                                   '"spec.versions[0].schema.openAPIV3Schema'
                                   '.properties.spec.x-kubernetes-preserve-unknown-field"')
    r = requests.post(f"{srv.url}{CRDS}?fieldValidation=Warn", json=obj)
    assert r.status_code == 201, r.text
    assert r.headers["Warning"] == ('299 - "unknown field \\"spec.versions[0].schema.openAPIV3Schema.properties.spec'
                                    '.x-kubernetes-preserve-unknown-field\\""')
    assert r.json()["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"] == {"type": "object"}
