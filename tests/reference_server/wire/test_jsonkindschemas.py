"""The CustomResourceDefinition, APIService and Binding definitions of the OpenAPI documents, against upstream's.

v2: every `apiextensions/v1`, `apiregistration/v1` and core `Binding` definition equals kube-apiserver 1.33's
(`data/openapi_v2_golden_1.33.json` `definitions`, from `swagger.json` as the kubernetes client v33.1.0 ships it).
v3: the shapes openapi-gen writes in apiextensions-apiserver's and kube-aggregator's `zz_generated.openapi.go`
(v0.33.x) with kube-openapi's builder3 (`WrapRefs`: a `$ref` with siblings under `allOf`)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.reference_server.wire import descriptions, jsonkindschemas, openapi

GOLDEN = json.loads((Path(__file__).parent / "data" / "openapi_v2_golden_1.33.json").read_text())["definitions"]
EXT = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1"
AGG = "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1"
META = "io.k8s.apimachinery.pkg.apis.meta.v1"


@pytest.fixture(scope="module")
def v2(kinds: list[Any]) -> dict[str, Any]:
    return json.loads(json.dumps(openapi.openapi_v2(kinds)))["definitions"]


@pytest.fixture(scope="module")
def v3(kinds: list[Any]) -> dict[str, dict[str, Any]]:
    docs = json.loads(json.dumps(openapi.openapi_v3_documents(kinds)))
    return {key: doc["components"]["schemas"] for key, doc in docs.items()}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_v2_definition_is_upstreams(v2: dict[str, Any], name: str) -> None:
    """Types, refs, required, list markers, descriptions: no `default` and no enum paragraph in v2."""
    assert v2[name] == GOLDEN[name]


def test_v3_crd_version_and_schema_props(v3: dict[str, dict[str, Any]]) -> None:
    schemas = v3["apis/apiextensions.k8s.io/v1"]
    version = schemas[f"{EXT}.CustomResourceDefinitionVersion"]
    assert version["required"] == ["name", "served", "storage"]
    props = version["properties"]
    assert {k: v for k, v in props["served"].items() if k != "description"} == {"default": False, "type": "boolean"}
    assert props["schema"] == {
        "description": "schema describes the schema used for validation, pruning, and defaulting of this version of "
                       "the custom resource.",
        "allOf": [{"$ref": f"#/components/schemas/{EXT}.CustomResourceValidation"}]}
    assert props["additionalPrinterColumns"]["items"] == {
        "allOf": [{"$ref": f"#/components/schemas/{EXT}.CustomResourceColumnDefinition"}], "default": {}}
    assert props["additionalPrinterColumns"]["x-kubernetes-list-type"] == "atomic"
    jsp = schemas[f"{EXT}.JSONSchemaProps"]["properties"]
    rules = jsp["x-kubernetes-validations"]
    assert {k: rules[k] for k in rules if k.startswith("x-")} == {
        "x-kubernetes-list-map-keys": ["rule"], "x-kubernetes-list-type": "map",
        "x-kubernetes-patch-merge-key": "rule", "x-kubernetes-patch-strategy": "merge"}
    assert jsp["items"] == {"$ref": f"#/components/schemas/{EXT}.JSONSchemaPropsOrArray"}
    assert jsp["enum"] == {"type": "array", "items": {"$ref": f"#/components/schemas/{EXT}.JSON"},
                           "x-kubernetes-list-type": "atomic"}
    assert jsp["properties"] == {"type": "object", "additionalProperties": {
        "allOf": [{"$ref": f"#/components/schemas/{EXT}.JSONSchemaProps"}], "default": {}}}
    assert jsp["required"]["items"] == {"default": "", "type": "string"}
    assert schemas[f"{EXT}.JSON"] == {"description": "JSON represents any valid JSON value. These types are supported: "
                                      "bool, int64, float64, string, []interface{}, map[string]interface{} and nil."}
    reason = schemas[f"{EXT}.ValidationRule"]["properties"]["reason"]
    assert reason["enum"] == ["FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"]
    assert "\n\nPossible enum values:\n - `\"FieldValueDuplicate\"`" in reason["description"]
    crd = schemas[f"{EXT}.CustomResourceDefinition"]
    assert crd["required"] == ["spec"] and "x-kubernetes-preserve-unknown-fields" not in crd
    assert crd["properties"]["spec"]["allOf"] == [{"$ref": f"#/components/schemas/{EXT}.CustomResourceDefinitionSpec"}]
    assert crd["properties"]["spec"]["default"] == {}
    assert schemas[f"{EXT}.CustomResourceDefinitionList"]["properties"]["items"]["items"] == {
        "allOf": [{"$ref": f"#/components/schemas/{EXT}.CustomResourceDefinition"}], "default": {}}


def test_v3_apiservice(v3: dict[str, dict[str, Any]]) -> None:
    schemas = v3["apis/apiregistration.k8s.io/v1"]
    spec = schemas[f"{AGG}.APIServiceSpec"]
    assert spec["required"] == ["groupPriorityMinimum", "versionPriority"]
    assert {k: v for k, v in spec["properties"]["groupPriorityMinimum"].items() if k != "description"} == {
        "default": 0, "type": "integer", "format": "int32"}
    assert {k: v for k, v in spec["properties"]["caBundle"].items() if k != "description"} == {
        "type": "string", "format": "byte", "x-kubernetes-list-type": "atomic"}
    conditions = schemas[f"{AGG}.APIServiceStatus"]["properties"]["conditions"]
    assert {k: v for k, v in conditions.items() if k != "description"} == {
        "type": "array", "items": {"allOf": [{"$ref": f"#/components/schemas/{AGG}.APIServiceCondition"}],
                                   "default": {}},
        "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"],
        "x-kubernetes-patch-merge-key": "type", "x-kubernetes-patch-strategy": "merge"}
    assert schemas[f"{AGG}.APIServiceCondition"]["properties"]["lastTransitionTime"] == {
        "description": "Last time the condition transitioned from one status to another.",
        "allOf": [{"$ref": f"#/components/schemas/{META}.Time"}]}
    assert schemas[f"{AGG}.ServiceReference"].get("required") is None  # kube-aggregator's: all optional


def test_v3_binding(v3: dict[str, dict[str, Any]]) -> None:
    binding = v3["api/v1"]["io.k8s.api.core.v1.Binding"]
    assert binding["required"] == ["target"]
    assert binding["x-kubernetes-group-version-kind"] == [{"group": "", "kind": "Binding", "version": "v1"}]
    assert binding["properties"]["target"]["allOf"] == [
        {"$ref": "#/components/schemas/io.k8s.api.core.v1.ObjectReference"}]
    assert "io.k8s.api.core.v1.BindingList" not in v3["api/v1"]  # create-only: no list type
    assert "io.k8s.api.authorization.v1.SubjectAccessReviewList" not in v3["apis/authorization.k8s.io/v1"]


def test_builder_leaves_other_kinds_alone() -> None:
    assert jsonkindschemas.definitions("ConfigMap", "io.k8s.api.core.v1", v3=True) == {}
    assert not jsonkindschemas.described("stable.example.com", "CustomResourceDefinition")


def test_describe_wraps_a_described_v3_ref_and_drops_v2_enum_words() -> None:
    data = descriptions.Descriptions(types={"d": {"a": "words\n\nPossible enum values:\n - `\"x\"`"}})
    v3 = descriptions.describe({"d": {"properties": {"a": {"$ref": "#/components/schemas/x"}}}}, True, data)
    assert v3["d"]["properties"]["a"] == {"description": "words\n\nPossible enum values:\n - `\"x\"`",
                                          "allOf": [{"$ref": "#/components/schemas/x"}]}
    v2 = descriptions.describe({"d": {"properties": {"a": {"$ref": "#/definitions/x"}}}}, False, data)
    assert v2["d"]["properties"]["a"] == {"description": "words", "$ref": "#/definitions/x"}
