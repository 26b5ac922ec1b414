"""OpenAPI documents: valid JSON, every served kind with its GVK, resolvable refs, patch metadata."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from conformance.reference_server.wire import kinds, openapi
from conformance.reference_server.wire.kinds import DEFAULT_KINDS, KindInfo

CORE = "io.k8s.api.core.v1"
META = "io.k8s.apimachinery.pkg.apis.meta.v1"


@pytest.fixture(scope="module")
def v3() -> dict[str, Any]:
    return json.loads(json.dumps(openapi.openapi_v3_group(DEFAULT_KINDS)))


@pytest.fixture(scope="module")
def v2() -> dict[str, Any]:
    return json.loads(json.dumps(openapi.openapi_v2(DEFAULT_KINDS)))


def refs(doc: Any) -> set[str]:
    return set(re.findall(r'"\$ref": "([^"]+)"', json.dumps(doc)))


def test_v3_has_every_kind_with_gvk(v3: dict[str, Any]) -> None:
    schemas = v3["components"]["schemas"]
    assert v3["openapi"].startswith("3.")
    for k in DEFAULT_KINDS:
        assert schemas[f"{CORE}.{k.kind}"]["x-kubernetes-group-version-kind"] == [
            {"group": "", "kind": k.kind, "version": "v1"}]
        assert schemas[f"{CORE}.{k.kind}List"]["x-kubernetes-group-version-kind"][0]["kind"] == f"{k.kind}List"
    assert {"apiVersion", "kind", "metadata", "spec", "status"} <= set(schemas[f"{CORE}.Namespace"]["properties"])
    labels = dict(schemas[f"{META}.ObjectMeta"]["properties"]["labels"])
    assert labels.pop("description").startswith("Map of string keys and values")  # upstream's words
    assert labels == {"type": "object", "additionalProperties": {"type": "string", "default": ""}}  # (v3 only)


def test_refs_resolve(v2: dict[str, Any], v3: dict[str, Any]) -> None:
    for ref in refs(v3):
        assert ref.removeprefix("#/components/schemas/") in v3["components"]["schemas"], ref
    for ref in refs(v2):
        if ref.startswith("#/parameters/"):  # a shared parameter (`deduplicateParameters`)
            assert ref.removeprefix("#/parameters/") in v2["parameters"], ref
        else:
            assert ref.removeprefix("#/definitions/") in v2["definitions"], ref


def test_patch_operations_advertise_field_validation(v3: dict[str, Any]) -> None:
    # kubectl's QueryParamVerifierV3 looks for exactly this before sending fieldValidation=Strict.
    for k in DEFAULT_KINDS:
        ops = [op["patch"] for op in v3["paths"].values() if "patch" in op
               and op["patch"]["x-kubernetes-group-version-kind"]["kind"] == k.kind]
        assert ops, k.kind
        assert any(p["name"] == "fieldValidation" and p["in"] == "query" for p in ops[0]["parameters"])


def test_paths_follow_verbs_and_scope(v3: dict[str, Any]) -> None:
    paths = v3["paths"]
    assert set(paths["/api/v1/namespaces"]) == {"parameters", "get", "post"}  # no deletecollection
    assert set(paths["/api/v1/namespaces/{name}"]) == {"parameters", "get", "put", "patch", "delete"}
    assert set(paths["/api/v1/namespaces/{name}/finalize"]) == {"parameters", "put"}
    assert set(paths["/api/v1/namespaces/{name}/status"]) == {"parameters", "get", "put", "patch"}
    assert set(paths["/api/v1/namespaces/{namespace}/configmaps"]) == {"parameters", "get", "post", "delete"}
    assert paths["/api/v1/configmaps"]["get"]["x-kubernetes-action"] == "list"
    assert paths["/api/v1/watch/namespaces/{name}"]["get"]["x-kubernetes-action"] == "watch"
    post = paths["/api/v1/namespaces"]["post"]  # the web service's Consumes("*/*"), Reads' required body
    assert post["requestBody"] == {"content": {"*/*": {"schema": {"$ref": f"#/components/schemas/{CORE}.Namespace"}}},
                                   "required": True}
    patch = paths["/api/v1/namespaces/{namespace}/configmaps/{name}"]["patch"]
    assert list(patch["requestBody"]["content"]) == [
        "application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json",
        "application/apply-patch+yaml"]
    assert patch["requestBody"]["required"] is True
    delete = paths["/api/v1/namespaces/{namespace}/configmaps/{name}"]["delete"]
    assert "required" not in delete["requestBody"]  # `.ParameterNamed("body").Required(false)`


def test_patch_strategy_metadata(v3: dict[str, Any]) -> None:
    schemas = v3["components"]["schemas"]
    containers = schemas[f"{CORE}.PodSpec"]["properties"]["containers"]
    assert containers["x-kubernetes-patch-merge-key"] == "name"
    assert containers["x-kubernetes-patch-strategy"] == "merge"
    assert containers["x-kubernetes-list-type"] == "map"
    assert schemas[f"{CORE}.ServiceSpec"]["properties"]["ports"]["x-kubernetes-list-map-keys"] == ["port", "protocol"]
    assert schemas[f"{META}.ObjectMeta"]["properties"]["finalizers"]["x-kubernetes-patch-strategy"] == "merge"
    assert schemas[f"{CORE}.NamespaceSpec"]["properties"]["finalizers"]["x-kubernetes-list-type"] == "atomic"


def test_inline_structs_are_flattened(v3: dict[str, Any]) -> None:
    schemas = v3["components"]["schemas"]
    assert "configMap" in schemas[f"{CORE}.Volume"]["properties"]
    assert "volumeSource" not in schemas[f"{CORE}.Volume"]["properties"]
    assert "httpGet" in schemas[f"{CORE}.Probe"]["properties"]
    assert "name" in schemas[f"{CORE}.ConfigMapKeySelector"]["properties"]


def test_scalar_like_types(v2: dict[str, Any], v3: dict[str, Any]) -> None:
    time_schema = dict(v3["components"]["schemas"][f"{META}.Time"])
    assert time_schema.pop("description").startswith("Time is a wrapper around time.Time")
    assert time_schema == {"type": "string", "format": "date-time"}
    assert v2["definitions"]["io.k8s.apimachinery.pkg.api.resource.Quantity"] == {"type": "string"}
    assert v3["components"]["schemas"]["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]["x-kubernetes-int-or-string"]


def test_v2_shape(v2: dict[str, Any]) -> None:
    assert v2["swagger"] == "2.0"
    post = v2["paths"]["/api/v1/namespaces"]["post"]
    assert {"name": "body", "in": "body", "required": True, "schema": {"$ref": f"#/definitions/{CORE}.Namespace"}} \
        in post["parameters"]
    assert v2["definitions"][f"{META}.DeleteOptions"]["x-kubernetes-group-version-kind"][0] == {
        "group": "", "kind": "DeleteOptions", "version": "v1"}


def test_v3_root_points_at_the_group_doc_with_its_hash() -> None:
    group = openapi.openapi_v3_group(DEFAULT_KINDS)
    root = openapi.openapi_v3_root(group_doc=group)
    url = root["paths"]["api/v1"]["serverRelativeURL"]
    assert url == f"/openapi/v3/api/v1?hash={openapi.group_hash(group)}"
    assert openapi.openapi_v3_root(DEFAULT_KINDS) == root


def test_custom_kind_list() -> None:
    only = [KindInfo("Namespace", "namespaces", "namespace", False, ("ns",), ("get", "list"))]
    doc = openapi.openapi_v3_group(only)
    assert set(doc["paths"]) == {"/api/v1/namespaces", "/api/v1/namespaces/{name}"}
    assert f"{CORE}.ConfigMap" not in doc["components"]["schemas"]
    assert kinds.by_kind(only)["Namespace"].group_version == "v1"


def test_known_fields() -> None:
    cm = openapi.known_fields("ConfigMap")
    assert set(cm) == {"apiVersion", "kind", "metadata", "data", "binaryData", "immutable"}
    assert cm["metadata"]["ownerReferences"]["uid"] is None
    pod = openapi.known_fields("Pod")
    assert pod["spec"]["containers"]["ports"]["containerPort"] is None
    assert "configMap" in pod["spec"]["volumes"]  # inlined VolumeSource
    cm["data"] = "mutated"
    assert openapi.known_fields("ConfigMap")["data"] is None
    with pytest.raises(KeyError):
        openapi.known_fields("Deployment")


def test_namespace_descriptions_for_kubectl_explain(v2: dict[str, Any], v3: dict[str, Any]) -> None:
    """`kubectl explain namespace` prints upstream's doc comments; without them it printed `<empty>`."""
    schemas = v3["components"]["schemas"]
    ns = schemas[f"{CORE}.Namespace"]
    assert ns["description"] == "Namespace provides a scope for Names. Use of multiple namespaces is optional."
    assert ns["properties"]["apiVersion"]["description"].startswith("APIVersion defines the versioned schema")
    assert ns["properties"]["kind"] == {"description": openapi.KIND_DOC, "type": "string"}
    assert schemas[f"{CORE}.ConfigMap"]["properties"]["kind"]["description"] == openapi.KIND_DOC  # every kind
    spec = ns["properties"]["spec"]  # v3: allOf-wrapped ref with its description beside it
    assert spec == {"description": "Spec defines the behavior of the Namespace. More info: https://git.k8s.io/"
                                   "community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status",
                    "allOf": [{"$ref": f"#/components/schemas/{CORE}.NamespaceSpec"}], "default": {}}
    phase = schemas[f"{CORE}.NamespaceStatus"]["properties"]["phase"]
    assert phase["type"] == "string" and phase["enum"] == ["Active", "Terminating"]
    assert phase["description"].endswith('\n - `"Terminating"` means the namespace is undergoing graceful termination')
    conditions = schemas[f"{CORE}.NamespaceStatus"]["properties"]["conditions"]
    assert conditions["x-kubernetes-patch-merge-key"] == "type" and conditions["description"].startswith("Represents")
    assert schemas[f"{CORE}.NamespaceCondition"]["description"] == ("NamespaceCondition contains details about "
                                                                    "state of namespace.")
    v2_spec = v2["definitions"][f"{CORE}.Namespace"]["properties"]["spec"]
    assert v2_spec["$ref"] == f"#/definitions/{CORE}.NamespaceSpec" and v2_spec["description"] == spec["description"]
