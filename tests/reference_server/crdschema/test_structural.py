"""CRD schemas refused for not being structural, or for breaking the OpenAPI restrictions of
`apis/apiextensions/validation/validation.go`, each with the errors a kube-apiserver 1.33 answers (the tables of
upstream's `TestValidateCustomResourceDefinition` where they exist, `spec.validation.openAPIV3Schema` being the path
of a v1 CRD whose versions share one schema); and schemas upstream accepts, real-world CRDs among them."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.reference_server.registry.crd import CRD_INFO, CRDStrategy
from conformance.reference_server.registry.crdschema import (is_structural, non_structural_condition,
                                                             validate_crd_schemas)
from conformance.reference_server.goport.goregexp import error_text as regexp_error

R = "spec.validation.openAPIV3Schema"
DATA = Path(__file__).parent / "data"


def crd(schema: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "gadgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "gadgets", "kind": "Gadget"},
                     "versions": [{"name": "v1", "served": True, "storage": True,
                                   "schema": {"openAPIV3Schema": schema}}], **spec}}


def errors(schema: dict[str, Any], old: dict[str, Any] | None = None, **spec: Any) -> list[str]:
    return [str(e) for e in validate_crd_schemas(crd(schema, **spec), old).errors]


def strategy_errors(obj: dict[str, Any]) -> list[str]:
    """The whole CRD write's errors (crdschema's and crdrules' together), as the registry answers them."""
    strategy = CRDStrategy(CRD_INFO)
    strategy.prepare_for_create(obj)
    return [str(e) for e in strategy.validate(obj)]


NESTED_FORBIDDEN = yaml.safe_load("""
type: object
properties:
 foo:
   type: string
not:
 type: string
 additionalProperties: true
 title: hello
 description: world
 nullable: true
allOf:
- properties:
   foo:
     type: string
     additionalProperties: true
     title: hello
     description: world
     nullable: true
anyOf:
- items:
   type: string
   additionalProperties: true
   title: hello
   description: world
   nullable: true
oneOf:
- properties:
   foo:
     type: string
     additionalProperties: true
     title: hello
     description: world
     nullable: true
""")

MISSING_TYPES = yaml.safe_load("""
properties:
 foo:
   properties:
     a: {}
 bar:
   items:
     additionalProperties:
       properties:
         a: {}
       items: {}
 abc:
   additionalProperties:
     properties:
       a:
         items:
           additionalProperties:
             items:
""")

INT_OR_STRING = yaml.safe_load("""
type: object
properties:
 a:
   x-kubernetes-int-or-string: true
 b:
   x-kubernetes-int-or-string: true
   anyOf:
   - type: integer
   - type: string
   allOf:
   - pattern: abc
 c:
   x-kubernetes-int-or-string: true
   allOf:
   - anyOf:
     - type: integer
     - type: string
   - pattern: abc
   - pattern: abc
 d:
   x-kubernetes-int-or-string: true
   anyOf:
   - type: integer
   - type: string
     pattern: abc
 e:
   x-kubernetes-int-or-string: true
   allOf:
   - anyOf:
     - type: integer
     - type: string
       pattern: abc
   - pattern: abc
 f:
   x-kubernetes-int-or-string: true
   anyOf:
   - type: integer
   - type: string
   - pattern: abc
 g:
   x-kubernetes-int-or-string: true
   anyOf:
   - type: string
   - type: integer
""")

NESTED_EXTENSIONS = yaml.safe_load("""
type: object
properties:
 int-or-string:
   x-kubernetes-int-or-string: true
 embedded-resource:
   type: object
   x-kubernetes-embedded-resource: true
   x-kubernetes-preserve-unknown-fields: true
not:
 properties:
   int-or-string:
     x-kubernetes-int-or-string: true
   embedded-resource:
     x-kubernetes-embedded-resource: true
     x-kubernetes-preserve-unknown-fields: true
allOf:
- properties:
   int-or-string:
     x-kubernetes-int-or-string: true
   embedded-resource:
     x-kubernetes-embedded-resource: true
     x-kubernetes-preserve-unknown-fields: true
""")


def _obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props}


REFUSED: list[tuple[str, dict[str, Any], list[str]]] = [
    ("forbidden in nested value validation", NESTED_FORBIDDEN, sorted([
        f"{R}.anyOf[0].items.type: Forbidden: must be empty to be structural",
        f"{R}.anyOf[0].items.additionalProperties: Forbidden: must be undefined to be structural",
        f"{R}.anyOf[0].items.title: Forbidden: must be empty to be structural",
        f"{R}.anyOf[0].items.description: Forbidden: must be empty to be structural",
        f"{R}.anyOf[0].items.nullable: Forbidden: must be false to be structural",
        f"{R}.allOf[0].properties[foo].type: Forbidden: must be empty to be structural",
        f"{R}.allOf[0].properties[foo].additionalProperties: Forbidden: must be undefined to be structural",
        f"{R}.allOf[0].properties[foo].title: Forbidden: must be empty to be structural",
        f"{R}.allOf[0].properties[foo].description: Forbidden: must be empty to be structural",
        f"{R}.allOf[0].properties[foo].nullable: Forbidden: must be false to be structural",
        f"{R}.oneOf[0].properties[foo].type: Forbidden: must be empty to be structural",
        f"{R}.oneOf[0].properties[foo].additionalProperties: Forbidden: must be undefined to be structural",
        f"{R}.oneOf[0].properties[foo].title: Forbidden: must be empty to be structural",
        f"{R}.oneOf[0].properties[foo].description: Forbidden: must be empty to be structural",
        f"{R}.oneOf[0].properties[foo].nullable: Forbidden: must be false to be structural",
        f"{R}.not.type: Forbidden: must be empty to be structural",
        f"{R}.not.additionalProperties: Forbidden: must be undefined to be structural",
        f"{R}.not.title: Forbidden: must be empty to be structural",
        f"{R}.not.description: Forbidden: must be empty to be structural",
        f"{R}.not.nullable: Forbidden: must be false to be structural",
        f"{R}.items: Required value: because it is defined in {R}.anyOf[0].items",
    ])),
    ("missing types without extensions", MISSING_TYPES, [
        f"{R}.properties[abc].additionalProperties.properties[a].items.additionalProperties.type: Required value: "
        "must not be empty for specified object fields",
        f"{R}.properties[abc].additionalProperties.properties[a].items.type: Required value: must not be empty for "
        "specified array items",
        f"{R}.properties[abc].additionalProperties.properties[a].type: Required value: must not be empty for "
        "specified object fields",
        f"{R}.properties[abc].additionalProperties.type: Required value: must not be empty for specified object "
        "fields",
        f"{R}.properties[abc].type: Required value: must not be empty for specified object fields",
        f"{R}.properties[bar].items.additionalProperties.items.type: Required value: must not be empty for "
        "specified array items",
        f"{R}.properties[bar].items.additionalProperties.properties[a].type: Required value: must not be empty for "
        "specified object fields",
        f"{R}.properties[bar].items.additionalProperties.type: Required value: must not be empty for specified "
        "object fields",
        f"{R}.properties[bar].items.type: Required value: must not be empty for specified array items",
        f"{R}.properties[bar].type: Required value: must not be empty for specified object fields",
        f"{R}.properties[foo].properties[a].type: Required value: must not be empty for specified object fields",
        f"{R}.properties[foo].type: Required value: must not be empty for specified object fields",
        f"{R}.type: Required value: must not be empty at the root",
    ]),
    ("int-or-string variants", INT_OR_STRING, [
        f"{R}.properties[d].anyOf[0].type: Forbidden: must be empty to be structural",
        f"{R}.properties[d].anyOf[1].type: Forbidden: must be empty to be structural",
        f"{R}.properties[e].allOf[0].anyOf[0].type: Forbidden: must be empty to be structural",
        f"{R}.properties[e].allOf[0].anyOf[1].type: Forbidden: must be empty to be structural",
        f"{R}.properties[f].anyOf[0].type: Forbidden: must be empty to be structural",
        f"{R}.properties[f].anyOf[1].type: Forbidden: must be empty to be structural",
        f"{R}.properties[g].anyOf[0].type: Forbidden: must be empty to be structural",
        f"{R}.properties[g].anyOf[1].type: Forbidden: must be empty to be structural",
    ]),
    ("forbidden vendor extensions in nested value validation", NESTED_EXTENSIONS, [
        f"{R}.allOf[0].properties[embedded-resource].x-kubernetes-embedded-resource: Forbidden: must be false to be "
        "structural",
        f"{R}.allOf[0].properties[embedded-resource].x-kubernetes-preserve-unknown-fields: Forbidden: must be false "
        "to be structural",
        f"{R}.allOf[0].properties[int-or-string].x-kubernetes-int-or-string: Forbidden: must be false to be "
        "structural",
        f"{R}.not.properties[embedded-resource].x-kubernetes-embedded-resource: Forbidden: must be false to be "
        "structural",
        f"{R}.not.properties[embedded-resource].x-kubernetes-preserve-unknown-fields: Forbidden: must be false to "
        "be structural",
        f"{R}.not.properties[int-or-string].x-kubernetes-int-or-string: Forbidden: must be false to be structural",
    ]),
    ("a type under anyOf (the brief's example)",
     _obj(spec={"type": "object", "anyOf": [{"type": "object"}]}),
     [f"{R}.properties[spec].anyOf[0].type: Forbidden: must be empty to be structural"]),
    ("rules, list and map types under a junctor",
     _obj(spec={"type": "object", "allOf": [{"x-kubernetes-validations": [{"rule": "true"}],
                                             "x-kubernetes-list-type": "atomic", "x-kubernetes-map-type": "atomic",
                                             "default": {}, "externalDocs": {"url": "x"}}]}),
     [f"{R}.properties[spec].allOf[0].default: Forbidden: must be undefined to be structural",
      f"{R}.properties[spec].allOf[0].externalDocs: Forbidden: must be undefined to be structural",
      f"{R}.properties[spec].allOf[0].x-kubernetes-list-type: Forbidden: must be undefined to be structural",
      f"{R}.properties[spec].allOf[0].x-kubernetes-map-type: Forbidden: must be undefined to be structural",
      f"{R}.properties[spec].allOf[0].x-kubernetes-validations: Forbidden: must be empty to be structural",
      # the OpenAPI checks walk the junctors too
      f"{R}.properties[spec].allOf[0].type: Required value: must be object if x-kubernetes-map-type is specified",
      f"{R}.properties[spec].allOf[0].type: Required value: must be array if x-kubernetes-list-type is specified"]),
    ("a field named only inside a junctor",
     {"type": "object", "properties": {"a": {"type": "string"}},
      "oneOf": [{"required": ["a"]}, {"properties": {"b": {"minLength": 1}}}]},
     [f"{R}.properties[b]: Required value: because it is defined in {R}.oneOf[1].properties[b]"]),
    ("metadata in a nested context",
     {"type": "object", "properties": {"metadata": {"type": "object"}}, "anyOf": [{"properties": {"metadata": {}}}]},
     [f"{R}.anyOf[0].properties[metadata]: Forbidden: must not be specified in a nested context"]),
    ("metadata restricted beyond name and generateName",
     _obj(metadata={"type": "object", "properties": {"name": {"type": "string"}, "labels": {"type": "object"}}}),
     [f"{R}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but "
      "metadata is implicitly specified"]),
    ("metadata of the wrong type, kind and apiVersion not strings",
     _obj(metadata={"type": "string"}, kind={"type": "integer"}, apiVersion={"type": "object"}),
     [f"{R}.properties[apiVersion].type: Invalid value: \"object\": must be string",
      f"{R}.properties[kind].type: Invalid value: \"integer\": must be string",
      f"{R}.properties[metadata].type: Invalid value: \"string\": must be object"]),
    ("a default in top-level metadata",
     _obj(metadata={"type": "object", "default": {"name": "x"}}),
     [f"{R}.properties[metadata].default: Forbidden: must not be set in top-level metadata"]),
    ("embedded resource without properties",
     _obj(e={"type": "object", "x-kubernetes-embedded-resource": True}),
     [f"{R}.properties[e].properties: Required value: must not be empty if x-kubernetes-embedded-resource is "
      "true without x-kubernetes-preserve-unknown-fields"]),
    ("embedded resource of the wrong type",
     _obj(e={"type": "array", "items": {"type": "string"}, "x-kubernetes-embedded-resource": True,
             "x-kubernetes-preserve-unknown-fields": True}),
     [f"{R}.properties[e].type: Invalid value: \"array\": must be object if x-kubernetes-embedded-resource is "
      "true"]),
    ("int-or-string and preserve-unknown-fields",
     _obj(i={"x-kubernetes-int-or-string": True, "x-kubernetes-preserve-unknown-fields": True}),
     [f"{R}.properties[i].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if "
      "x-kubernetes-int-or-string is true"]),
    ("additionalProperties at the root",
     {"type": "object", "additionalProperties": {"type": "string"}},
     [f"{R}.additionalProperties: Forbidden: must not be used at the root"]),
    ("an array without items", _obj(list={"type": "array"}),
     [f"{R}.properties[list].items: Required value: must be specified"]),
    ("a root that is not an object", {"type": "integer"},
     [f"{R}.type: Invalid value: \"integer\": must be object at the root"]),
    ("invalid regex pattern", _obj(foo={"type": "string", "pattern": "+"}),
     [f"{R}.properties[foo].pattern: Invalid value: \"+\": must be a valid regular expression, but isn't: error "
      "parsing regexp: missing argument to repetition operator: `+`"]),
    # ---- ValidateCustomResourceDefinitionOpenAPISchema -----------------------------------------------------------
    ("uniqueItems", _obj(tags={"type": "array", "items": {"type": "string"}, "uniqueItems": True}),
     [f"{R}.properties[tags].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity "
      "becomes quadratic"]),
    ("additionalProperties with properties",
     _obj(m={"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}}),
     [f"{R}.properties[m].additionalProperties: Forbidden: additionalProperties and properties are mutual "
      "exclusive"]),
    ("a type that is not OpenAPI's", _obj(n={"type": "null"}),
     [f"{R}.properties[n].type: Unsupported value: \"null\": supported values: \"array\", \"boolean\", "
      "\"integer\", \"number\", \"object\", \"string\"",
      f"{R}.properties[n].type: Forbidden: type cannot be set to null, use nullable as an alternative"]),
    ("JSON Schema that Kubernetes does not offer", _obj(r={"type": "string", "$ref": "#/definitions/x"}),
     [f"{R}.properties[r].$ref: Forbidden: $ref is not supported"]),
    ("$schema: only NewStructural refuses it", _obj(s={"type": "string", "$schema": "http://x"}),
     [f"{R}: Invalid value: \"\": OpenAPIV3Schema 'schema' is not supported"]),
    ("preserve-unknown-fields false", _obj(p={"type": "object", "x-kubernetes-preserve-unknown-fields": False}),
     [f"{R}.properties[p].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined"]),
    ("nullable at the root", {"type": "object", "nullable": True},
     [f"{R}.nullable: Forbidden: nullable cannot be true at the root"]),
    ("a map list without keys, and keys without a map list",
     _obj(a={"type": "array", "items": {"type": "object"}, "x-kubernetes-list-type": "map"},
          b={"type": "array", "items": {"type": "object", "properties": {"k": {"type": "string"}}},
             "x-kubernetes-list-map-keys": ["k"]}),
     [f"{R}.properties[a].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type "
      "is map",
      f"{R}.properties[b].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is "
      "non-empty"]),
    ("map list keys that are no property, not required nor defaulted",
     _obj(a={"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k", "z"],
             "items": {"type": "object", "properties": {"k": {"type": "string", "nullable": True}}}}),
     [f"{R}.properties[a].x-kubernetes-list-map-keys: Invalid value: []string{{\"k\", \"z\"}}: entries must all be "
      "names of item properties",
      f"{R}.properties[a].items.properties[k].default: Required value: this property is in "
      "x-kubernetes-list-map-keys, so it must have a default or be a required property",
      f"{R}.properties[a].items.properties[k].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, "
      "so it cannot be nullable"]),
    ("a set of granular objects, a list type on a string",
     _obj(s={"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object"}},
          t={"type": "string", "x-kubernetes-list-type": "bag"}),
     [f"{R}.properties[s].items.x-kubernetes-map-type: Invalid value: \"null\": must be atomic as item of a list with "
      "x-kubernetes-list-type=set",
      f"{R}.properties[t].type: Invalid value: \"string\": must be array if x-kubernetes-list-type is specified",
      f"{R}.properties[t].x-kubernetes-list-type: Unsupported value: \"bag\": supported values: \"atomic\", "
      "\"set\", \"map\""]),
    ("a map type on an array",
     _obj(m={"type": "array", "items": {"type": "string"}, "x-kubernetes-map-type": "atomic"}),
     [f"{R}.properties[m].type: Invalid value: \"array\": must be object if x-kubernetes-map-type is specified"]),
]


@pytest.mark.parametrize("schema,expected", [(s, e) for _, s, e in REFUSED], ids=[d for d, _, _ in REFUSED])
def test_refused_with_upstreams_errors(schema: dict[str, Any], expected: list[str]) -> None:
    assert errors(schema) == expected


ACCEPTED: list[tuple[str, dict[str, Any]]] = [
    ("int-or-string patterns", {"type": "object", "properties": {k: INT_OR_STRING["properties"][k] for k in "abc"}}),
    ("embedded resource with properties", yaml.safe_load("""
type: object
properties:
  template:
    type: object
    x-kubernetes-embedded-resource: true
    properties:
      apiVersion: {type: string}
      kind: {type: string}
      metadata: {type: object, properties: {labels: {type: object, additionalProperties: {type: string}}}}
""")),
    ("metadata restricting name and generateName", _obj(metadata={
        "type": "object",
        "properties": {"name": {"type": "string", "maxLength": 5}, "generateName": {"type": "string"}}})),
    # complete.go checks only the root's junctors against the structure
    ("a field named only inside a junctor below the root", _obj(spec={
        "type": "object", "properties": {"a": {"type": "string"}},
        "oneOf": [{"required": ["a"]}, {"properties": {"b": {"minLength": 1}}}]})),
    ("value validations in junctors", _obj(spec={
        "type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
        "oneOf": [{"required": ["a"]}, {"required": ["b"]}],
        "not": {"properties": {"a": {"pattern": "^x"}}}})),
    ("a preserve-unknown-fields object without a type", _obj(any={"x-kubernetes-preserve-unknown-fields": True})),
]


@pytest.mark.parametrize("schema", [s for _, s in ACCEPTED], ids=[d for d, _ in ACCEPTED])
def test_accepted(schema: dict[str, Any]) -> None:
    assert errors(schema) == []
    assert is_structural(schema)


def real_world_crds() -> list[tuple[str, dict[str, Any]]]:
    return [(f"{p.stem}/{d['metadata']['name']}", d) for p in sorted(DATA.glob("*.yaml"))
            for d in yaml.safe_load_all(p.read_text()) if d and d.get("kind") == "CustomResourceDefinition"]


@pytest.mark.parametrize("name,obj", real_world_crds(), ids=[n for n, _ in real_world_crds()])
def test_real_world_crds_are_accepted(name: str, obj: dict[str, Any]) -> None:
    assert strategy_errors(obj) == []


def test_a_rule_is_not_compiled_while_the_schema_is_not_structural() -> None:
    """Upstream builds no CEL context for a schema that is not structural: the rule's compile error is not shown."""
    schema = _obj(spec={"type": "object", "x-kubernetes-validations": [{"rule": "self.nope == 1"}],
                        "properties": {"a": {}}})
    assert strategy_errors(crd(schema)) == [
        f"{R}.properties[spec].properties[a].type: Required value: must not be empty for specified object fields"]
    schema["properties"]["spec"]["properties"]["a"]["type"] = "string"
    assert [e.split(": Invalid value")[0] for e in strategy_errors(crd(schema))] == [
        f"{R}.properties[spec].x-kubernetes-validations[0].rule"]


def test_versions_with_different_schemas_are_named_per_version() -> None:
    obj = crd({"type": "object"})
    obj["spec"]["versions"].append({"name": "v2", "served": True, "storage": False,
                                    "schema": {"openAPIV3Schema": {"type": "object", "properties": {"a": {}}}}})
    assert [str(e) for e in validate_crd_schemas(obj).errors] == [
        "spec.versions[1].schema.openAPIV3Schema.properties[a].type: Required value: must not be empty for "
        "specified object fields"]


# ---- ratcheting on update (requireStructuralSchema(oldSpec), validatePreserveUnknownFields) -------------------------
NON_STRUCTURAL = _obj(spec={"properties": {"a": {"type": "string"}}})


def test_preserve_unknown_fields_cannot_be_turned_on() -> None:
    assert errors({"type": "object"}, preserveUnknownFields=True) == [
        "spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields "
        "to true in spec.versions[*].schema instead"]


def test_a_stored_non_structural_crd_that_preserves_unknown_fields_may_be_updated() -> None:
    old = crd(NON_STRUCTURAL, preserveUnknownFields=True)
    assert errors(NON_STRUCTURAL, old, preserveUnknownFields=True) == []
    # pruning (preserveUnknownFields false), defaults and Kubernetes extensions all need a structural schema
    assert errors(NON_STRUCTURAL, old) == [
        f"{R}.properties[spec].type: Required value: must not be empty for specified object fields"]
    with_default = _obj(spec={"properties": {"a": {"type": "string", "default": "x"}}})
    assert errors(with_default, old, preserveUnknownFields=True) == [
        "spec.preserveUnknownFields: Invalid value: true: must be false in order to use defaults in the schema",
        f"{R}.properties[spec].type: Required value: must not be empty for specified object fields"]
    # a structural stored CRD gives no such leeway
    assert errors(NON_STRUCTURAL, crd({"type": "object"}, preserveUnknownFields=True),
                  preserveUnknownFields=True) == [
        f"{R}.properties[spec].type: Required value: must not be empty for specified object fields"]


def test_other_checks_ratchet_on_the_stored_schema() -> None:
    bad_set = _obj(s={"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object"}})
    assert errors(bad_set, crd(bad_set)) == []
    bad_type = _obj(n={"type": "nil"})
    assert errors(bad_type) == [f"{R}.properties[n].type: Unsupported value: \"nil\": supported values: \"array\", "
                                "\"boolean\", \"integer\", \"number\", \"object\", \"string\""]
    assert errors(bad_type, crd(bad_type)) == []


@pytest.mark.parametrize("pattern,expected", [
    ("+", "missing argument to repetition operator: `+`"),
    ("a|*?", "missing argument to repetition operator: `*?`"),
    ("a**", "invalid nested repetition operator: `**`"),
    ("[a-z", "missing closing ]: `[a-z`"),
    ("(ab", "missing closing ): `(ab`"),
    ("ab)", "unexpected ): `ab)`"),
    ("(?=a)", "invalid or unsupported Perl syntax: `(?=`"),
    ("\\1", "invalid escape sequence: `\\1`"),
    ("a\\", None),
])
def test_go_regexp_errors(pattern: str, expected: str | None) -> None:
    if expected is None:
        assert regexp_error(pattern) == "error parsing regexp: trailing backslash at end of expression: ``"
    else:
        assert regexp_error(pattern) == f"error parsing regexp: {expected}"


@pytest.mark.parametrize("pattern", ["^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", "(?i)abc", "(?P<n>a)+", "a{2,3}?",
                                     "^([0-9]{1,3}\\.){3}[0-9]{1,3}$", "[^\\]]+", "(a)(?:b)*?", "x{,3}"])
def test_go_regexp_accepts(pattern: str) -> None:
    assert regexp_error(pattern) is None


def test_the_non_structural_schema_condition() -> None:
    """`calculateCondition`: per v1 version, `Violations` with the aggregate, or `StructuralError`."""
    assert non_structural_condition(crd({"type": "object"})) is None
    assert non_structural_condition(crd(_obj(a={}))) == (
        "True", "Violations",
        "spec.versions[0].schema.openAPIV3Schema.properties[a].type: Required value: must not be empty for specified "
        "object fields")
    assert non_structural_condition(crd(_obj(a={"type": "string", "$schema": "x"}))) == (
        "Unknown", "StructuralError",
        "failed to check validation schema for version v1: OpenAPIV3Schema 'schema' is not supported")
