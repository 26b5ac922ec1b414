"""The root of a schema whose version has the status subresource on (`validateCustomResourceDefinitionValidation`'s
`allowedFieldsAtRootSchema`): only `object` as its type, and only the allowed fields, the error printing the internal
`apiextensions.JSONSchemaProps` with Go's `%#v` (upstream's `TestValidateCustomResourceDefinition` "status
subresource" cases: `invalid(spec.validation.openAPIV3Schema)` and `...openAPIV3Schema.type`)."""
from __future__ import annotations

from typing import Any

from conformance.reference_server.registry.crdschema.statusroot import ALLOWED, go_schema

from .test_structural import R, errors

STATUS_ON = {"status": {}}
NOT_ALLOWED = f"only [{' '.join(ALLOWED)}] fields are allowed at the root of the schema if the status subresource " \
    "is enabled"


def _versions(schema: dict[str, Any], *subresources: dict[str, Any] | None) -> list[dict[str, Any]]:
    return [{"name": f"v{i + 1}", "served": True, "storage": i == 0, "schema": {"openAPIV3Schema": schema},
             **({"subresources": s} if s is not None else {})} for i, s in enumerate(subresources)]


def test_a_root_junctor_is_refused_with_the_schema_printed() -> None:
    schema = {"type": "object", "properties": {"spec": {"type": "object"}}, "anyOf": [{"required": ["spec"]}]}
    assert errors(schema, versions=_versions(schema, STATUS_ON)) == [
        f"{R}: Invalid value: {go_schema(schema)}: {NOT_ALLOWED}"]
    printed = go_schema(schema)
    assert printed.startswith('apiextensions.JSONSchemaProps{ID:"", Schema:"", Ref:(*string)(nil), Description:"", '
                              'Type:"object", Nullable:false, ')
    assert 'AnyOf:[]apiextensions.JSONSchemaProps{apiextensions.JSONSchemaProps{ID:"", ' in printed
    assert 'Required:[]string{"spec"}, ' in printed
    assert 'Properties:map[string]apiextensions.JSONSchemaProps{"spec":apiextensions.JSONSchemaProps{' in printed
    assert printed.endswith("XMapType:(*string)(nil), XValidations:apiextensions.ValidationRules(nil)}")


def test_other_fields_and_types_at_the_root() -> None:
    base = {"type": "object", "properties": {"spec": {"type": "object"}}}
    for extra in ({"maxProperties": 3}, {"x-kubernetes-embedded-resource": True}, {"enum": []}):
        schema = {**base, **extra}
        assert errors(schema, versions=_versions(schema, STATUS_ON))[0] == \
            f"{R}: Invalid value: {go_schema(schema)}: {NOT_ALLOWED}", extra
    assert "MaxProperties:(*int64)(0xc" in go_schema({"maxProperties": 3})
    # the type check comes first in struct order and stops the check
    schema = {"type": "array", "items": {"type": "string"}, "maxProperties": 2}
    assert errors(schema, versions=_versions(schema, STATUS_ON))[0] == (
        f'{R}.type: Invalid value: "array": only "object" is allowed as the type at the root of the schema if the '
        "status subresource is enabled")


def test_allowed_fields_and_versions_without_status() -> None:
    schema = {"type": "object", "description": "d", "required": ["spec"], "x-kubernetes-preserve-unknown-fields": True,
              "x-kubernetes-validations": [{"rule": "true"}], "properties": {"spec": {"type": "object"}}}
    assert errors(schema, versions=_versions(schema, STATUS_ON)) == []
    junctor = {"type": "object", "properties": {"spec": {"type": "object"}}, "oneOf": [{"required": ["spec"]}]}
    assert errors(junctor, versions=_versions(junctor, None)) == []
    # per-version schemas: only the version with the status subresource is checked
    other = {"type": "object", "properties": {"spec": {"type": "object"}, "x": {"type": "string"}}}
    versions = _versions(junctor, None, None, STATUS_ON)
    versions[1]["schema"]["openAPIV3Schema"] = other
    versions[2]["schema"]["openAPIV3Schema"] = {**junctor, "description": "status on"}
    assert [e.split(": ")[0] for e in errors(junctor, versions=versions)] == \
        ["spec.versions[2].schema.openAPIV3Schema"]
