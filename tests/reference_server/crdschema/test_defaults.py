"""A CRD schema's `default`s checked against the schema (`structuraldefaulting.ValidateDefaults`), with the errors a
kube-apiserver 1.33 answers: upstream's `TestValidateCustomResourceDefinition` cases "invalid defaults with enabled
feature gate, structural schema" and "invalid default with x-kubernetes-validations" (paths and error types there;
the words from kube-openapi, pruning and the CEL validator), the embedded resources' metadata, `default: null`, and
the update that keeps the unpruned defaults a stored CRD already had (`requirePrunedDefaults`)."""
from __future__ import annotations

import uuid
from typing import Any

import requests

from conformance.reference_server.embedded import RunningServer
from conformance.reference_server.registry import crschema
from conformance.reference_server.registry.crdschema import validate_crd_schemas

from tests.reference_server.crds import create_crd

from .test_structural import R, crd, errors

OBJ = {"type": "object", "properties": {"foo": {"type": "string"}}}


def _with(default: Any, **extra: Any) -> dict[str, Any]:
    return {**OBJ, **extra, "default": default}


INVALID_DEFAULTS = {"type": "object", "properties": {
    "a": _with({"foo": "abc", "bar": 42}),
    "b": _with({"foo": "abc"}),
    "c": _with({"foo": 42}),
    "d": {"type": "object", "properties": {"good": {"type": "string", "pattern": "a"},
                                           "bad": {"type": "string", "pattern": "b"}},
          "default": {"good": "a", "bad": "a"}},
    "e": {"type": "object", "x-kubernetes-preserve-unknown-fields": True, "properties": {
        "preserveUnknownFields": {"type": "object", "default": {"foo": "abc", "bar": 42}},
        "nestedProperties": _with({"foo": "abc", "bar": 42})}},
    "embedded-fine": _with({"foo": "abc", "apiVersion": "foo/v1", "kind": "v1", "metadata": {"name": "foo"}},
                           **{"x-kubernetes-embedded-resource": True}),
    "embedded-preserve": _with({"foo": "abc", "apiVersion": "foo/v1", "kind": "v1", "metadata": {"name": "foo"},
                                "bar": 42},
                               **{"x-kubernetes-embedded-resource": True,
                                  "x-kubernetes-preserve-unknown-fields": True}),
    "embedded-preserve-unpruned-objectmeta": _with(
        {"foo": "abc", "apiVersion": "foo/v1", "kind": "v1", "metadata": {"name": "foo", "unspecified": "bar"},
         "bar": 42},
        **{"x-kubernetes-embedded-resource": True, "x-kubernetes-preserve-unknown-fields": True}),
}}


def test_upstreams_invalid_defaults() -> None:
    assert errors(INVALID_DEFAULTS) == [
        f'{R}.properties[a].default: Invalid value: map[string]interface {{}}{{"bar":42, "foo":"abc"}}: must not have '
        "unknown fields",
        f'{R}.properties[c].default.foo: Invalid value: "integer": foo in body must be of type string: "integer"',
        f"{R}.properties[d].default.bad: Invalid value: \"a\": bad in body should match 'b'",
        f'{R}.properties[e].properties[preserveUnknownFields].default: Invalid value: map[string]interface {{}}'
        '{"bar":42, "foo":"abc"}: must not have unknown fields',
        f'{R}.properties[e].properties[nestedProperties].default: Invalid value: map[string]interface {{}}'
        '{"bar":42, "foo":"abc"}: must not have unknown fields']


def test_a_wrongly_typed_default_is_a_type_error() -> None:
    schema = {"type": "object", "properties": {"s": {"type": "string", "default": 5},
                                               "l": {"type": "array", "items": {"type": "integer"},
                                                     "default": [1, "a"]},
                                               "e": {"type": "string", "enum": ["x"], "default": "y"}}}
    errs = validate_crd_schemas(crd(schema)).errors
    assert [str(e) for e in errs] == [
        f'{R}.properties[s].default: Invalid value: "integer":  in body must be of type string: "integer"',
        f'{R}.properties[l].default.[1]: Invalid value: "string": [1] in body must be of type integer: "string"',
        f'{R}.properties[e].default: Unsupported value: "y": supported values: "x"']
    assert [e.type for e in errs] == ["FieldValueTypeInvalid", "FieldValueTypeInvalid", "FieldValueNotSupported"]


def test_upstreams_invalid_defaults_with_rules() -> None:
    schema = {"type": "object", "properties": {
        "embedded": {"type": "object", "properties": {"metadata": {
            "type": "object", "x-kubernetes-embedded-resource": True, "properties": {
                "name": {"type": "string", "x-kubernetes-validations": [{"rule": "self == 'singleton'"}],
                         "default": "nope"}}}}},
        "value": {"type": "string", "x-kubernetes-validations": [{"rule": "self.startsWith('kube')"}],
                  "default": "nope"},
        "object": {"type": "object", "properties": {"field1": {"type": "integer"}, "field2": {"type": "integer"}},
                   "x-kubernetes-validations": [{"rule": "self.field1 < self.field2"}],
                   "default": {"field1": 2, "field2": 1}},
        # CRDValidationRatcheting: checked as a create too, so an optionalOldSelf rule sees no oldSelf
        "optional": {"type": "string", "default": "x",
                     "x-kubernetes-validations": [{"rule": "oldSelf.hasValue()", "optionalOldSelf": True}]},
        "fine": {"type": "string", "x-kubernetes-validations": [{"rule": "self.startsWith('kube')"}],
                 "default": "kubelet"}}}
    assert errors(schema) == [
        f"{R}.properties[embedded].properties[metadata].properties[name].default: Invalid value: \"string\": failed "
        "rule: self == 'singleton'",
        f"{R}.properties[value].default: Invalid value: \"string\": failed rule: self.startsWith('kube')",
        f'{R}.properties[object].default: Invalid value: "object": failed rule: self.field1 < self.field2',
        f'{R}.properties[optional].default: Invalid value: "string": failed rule: oldSelf.hasValue()']


def test_embedded_resources_defaults_must_decode_and_validate() -> None:
    embedded = {"type": "object", "x-kubernetes-embedded-resource": True,
                "x-kubernetes-preserve-unknown-fields": True}
    schema = {"type": "object", "properties": {
        "k": {**embedded, "default": {"apiVersion": "v1", "kind": 5}},
        "l": {**embedded, "default": {"apiVersion": "v1", "kind": "X", "metadata": {"labels": [1]}}},
        "m": {**embedded, "default": {"metadata": {"name": "a"}}},
        "n": {"type": "object", "x-kubernetes-embedded-resource": True, "properties": {
            "apiVersion": {"type": "string"}, "kind": {"type": "string"},
            "metadata": {"type": "object", "properties": {"name": {"type": "string", "default": "a/b"}}}}}}}
    assert errors(schema) == [
        f"{R}.properties[k].default.kind: Invalid value: 5: must be a string",
        f'{R}.properties[l].default.metadata: Invalid value: map[string]interface {{}}{{"labels":[]interface '
        '{}{1}}: json: cannot unmarshal array into Go struct field ObjectMeta.labels of type map[string]string',
        f"{R}.properties[m].default.apiVersion: Required value: must not be empty",
        f"{R}.properties[m].default.kind: Required value: must not be empty",
        f'{R}.properties[n].properties[metadata].properties[name].default: Invalid value: "a/b": must result in '
        "valid metadata: metadata.name: Invalid value: \"a/b\": may not contain '/'"]


def test_a_null_default_is_no_default() -> None:
    assert errors({"type": "object", "properties": {"a": {"type": "string", "nullable": True, "default": None},
                                                    "b": {"type": "string", "default": None}}}) == []


def test_a_refused_default_keeps_the_rules_uncompiled() -> None:
    """Upstream builds no CEL context once ValidateDefaults fails: the broken rule is not reported."""
    schema = {"type": "object", "properties": {"a": {"type": "string", "default": 1,
                                                     "x-kubernetes-validations": [{"rule": "self +"}]}}}
    out = validate_crd_schemas(crd(schema))
    assert R in out.uncompiled
    assert len(out.errors) == 1 and out.errors[0].field == f"{R}.properties[a].default"


def test_an_update_may_keep_the_unpruned_defaults_it_had() -> None:
    old_schema = {"type": "object", "properties": {"a": _with({"foo": "abc", "bar": 1})}}
    new_schema = {"type": "object", "properties": {"a": _with({"foo": "abc", "bar": 1}), "b": {"type": "string"}}}
    assert validate_crd_schemas(crd(new_schema), crd(old_schema)).errors == []
    # a stored CRD with pruned defaults does not relax the rule; nor are other default errors relaxed
    pruned_old = crd({"type": "object", "properties": {"a": _with({"foo": "abc"})}})
    assert [str(e) for e in validate_crd_schemas(crd(new_schema), pruned_old).errors] == [
        f'{R}.properties[a].default: Invalid value: map[string]interface {{}}{{"bar":1, "foo":"abc"}}: must not '
        "have unknown fields"]
    wrong = {"type": "object", "properties": {"a": _with({"foo": 1, "bar": 1})}}
    assert [e.field for e in validate_crd_schemas(crd(wrong), crd(old_schema)).errors] == [
        f"{R}.properties[a].default.foo"]


def test_the_crd_write_answers_422_with_the_default_errors(srv: RunningServer) -> None:
    group = f"d{uuid.uuid4().hex[:8]}.example.com"
    obj = crd({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "size": {"type": "integer", "minimum": 1, "default": 0}}}}})
    obj["metadata"]["name"], obj["spec"]["group"] = f"gadgets.{group}", group
    r = create_crd(requests, srv.url, obj)
    assert r.status_code == 422, r.text
    body = r.json()
    # the default is the validator's root, whose name is empty: kube-openapi's message starts with it
    assert body["message"] == (
        f'CustomResourceDefinition.apiextensions.k8s.io "gadgets.{group}" is invalid: {R}.properties[spec]'
        ".properties[size].default: Invalid value: 0:  in body should be greater than or equal to 1")
    assert body["details"]["causes"] == [{"reason": "FieldValueInvalid", "message": "Invalid value: 0:  in body "
                                          "should be greater than or equal to 1",
                                          "field": f"{R}.properties[spec].properties[size].default"}]
    obj["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["size"]["default"] = 1
    assert create_crd(requests, srv.url, obj).status_code == 201


def test_defaults_need_pruning_on() -> None:
    """`validateCustomResourceDefinitionSpec`: a CRD that keeps `preserveUnknownFields: true` cannot add defaults."""
    schema = {"type": "object", "properties": {"a": {"type": "string", "default": "x"}}}
    old = crd({"type": "object", "properties": {"a": {"type": "string"}}}, preserveUnknownFields=True)
    assert errors(schema, old, preserveUnknownFields=True) == [
        "spec.preserveUnknownFields: Invalid value: true: must be false in order to use defaults in the schema"]


def test_an_embedded_resource_inside_a_default_keeps_its_type_and_object_meta() -> None:
    """pruning.go keeps `apiVersion`/`kind`/`metadata` of every embedded resource, not only the root's."""
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "template": {"type": "object", "x-kubernetes-embedded-resource": True,
                     "properties": {"spec": {"type": "string"}}}},
        "default": {"template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": "x"}}}}}
    assert errors(schema) == []
    # and a custom resource's embedded resource keeps them when it is pruned
    obj = {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"},
           "spec": {"template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "other": 1}}}
    assert crschema.prune(obj, schema, root=True)["spec"] == {
        "template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}}


def test_upstreams_metadata_defaults_of_an_embedded_resource() -> None:
    """"v1.15 era tests for metadata defaults", versions v3 and v4: a default inside an embedded resource's type
    and object meta is checked in the object it lands in."""
    v3 = {"type": "object", "properties": {"embedded": {
        "type": "object", "x-kubernetes-embedded-resource": True, "properties": {
            "apiVersion": {"type": "string", "default": "v1"}, "kind": {"type": "string", "default": "%"},
            "metadata": {"type": "object", "default": {"labels": {"bar": "x y"}}}}}}}
    at = f"{R}.properties[embedded].properties"
    assert errors(v3) == [
        f'{at}[kind].default: Invalid value: "%": must result in valid metadata: kind: Invalid value: "%": may have '
        "mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters "
        "or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
        "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
        f'{at}[metadata].default: Invalid value: map[string]interface {{}}{{"labels":map[string]interface {{}}'
        '{"bar":"x y"}}: must result in valid metadata: metadata.labels: Invalid value: "x y": a valid label must be '
        "an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"]
    v4 = {"type": "object", "properties": {"embedded": {
        "type": "object", "x-kubernetes-embedded-resource": True, "properties": {"metadata": {
            "type": "object", "properties": {
                "name": {"type": "string", "default": 42},
                "labels": {"type": "object", "properties": {"bar": {"type": "string", "default": 42}}}}}}}}}
    assert errors(v4) == [
        f"{at}[metadata].properties[name].default: Invalid value: 42: must result in valid metadata: metadata: "
        'Invalid value: map[string]interface {}{"name":42}: json: cannot unmarshal number into Go struct field '
        "ObjectMeta.name of type string",
        f"{at}[metadata].properties[labels].properties[bar].default: Invalid value: 42: must result in valid "
        'metadata: metadata: Invalid value: map[string]interface {}{"labels":map[string]interface {}{"bar":42}}: '
        "json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string"]
