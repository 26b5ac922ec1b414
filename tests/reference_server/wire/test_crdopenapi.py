"""wire/crdopenapi.py: apiextensions' OpenAPI builder for one CRD version (builder.go, v2/conversion.go)."""
from __future__ import annotations

from typing import Any

from conformance.reference_server.wire import crdopenapi, openapi, openapi_routes
from conformance.reference_server.wire.kinds import DEFAULT_KINDS, KindInfo

TYPE_META = {"apiVersion": {"type": "string"}, "kind": {"type": "string"}}


def _crd(schema: dict[str, Any] | None, kind: str = "Gadget", group: str = "my-team.example.com",
         **spec: Any) -> dict[str, Any]:
    version: dict[str, Any] = {"name": "v1alpha1", "served": True, "storage": True}
    if schema is not None:
        version["schema"] = {"openAPIV3Schema": schema}
    return {"metadata": {"name": f"x.{group}", "uid": "u", "resourceVersion": "7"},
            "spec": {"group": group, "scope": "Cluster", "names": {"plural": "gadgets", "kind": kind},
                     "versions": [version], **spec}}


def test_names_and_operation_ids_follow_the_rest_friendly_namer_and_get_operation_id_and_tags() -> None:
    assert crdopenapi.rest_friendly_name("stable.example.com", "v1", "CronTab") == "com.example.stable.v1.CronTab"
    assert openapi_routes.valid_operation_id("my-team.example_x.com", True) == "MyTeamExample_xCom"
    assert openapi_routes.valid_operation_id("v1alpha1", False) == "v1alpha1"
    paths = crdopenapi.paths(_crd(None), "v1alpha1", True, {})
    item = paths["/apis/my-team.example.com/v1alpha1/gadgets"]
    assert item["get"]["operationId"] == "listMyTeamExampleComV1alpha1Gadget"
    assert item["get"]["tags"] == ["myTeamExampleCom_v1alpha1"]
    assert item["delete"]["operationId"] == "deleteMyTeamExampleComV1alpha1CollectionGadget"
    assert item["delete"]["description"] == "delete collection of Gadget"
    assert item["post"]["description"] == "create a Gadget"
    k8s = crdopenapi.paths(_crd(None, group="widgets.k8s.io"), "v1alpha1", True, {})
    assert k8s["/apis/widgets.k8s.io/v1alpha1/gadgets"]["get"]["operationId"] == "listWidgetsV1alpha1Gadget"


def test_descriptions_take_upstreams_articles() -> None:
    paths = crdopenapi.paths(_crd(None, kind="Engine"), "v1alpha1", False, {})
    one = paths["/apis/my-team.example.com/v1alpha1/gadgets/{name}"]
    assert one["delete"]["description"] == "delete an Engine"
    many = crdopenapi.paths(_crd(None, kind="Settings"), "v1alpha1", False, {})
    assert many["/apis/my-team.example.com/v1alpha1/gadgets"]["post"]["description"] == "create Settings"


def test_a_version_without_a_schema_is_a_bare_object_with_its_kind() -> None:
    for v3 in (False, True):
        s = crdopenapi.kind_schema(_crd(None), "v1alpha1", v3, TYPE_META)
        assert s == {"type": "object", "x-kubernetes-group-version-kind": [
            {"group": "my-team.example.com", "kind": "Gadget", "version": "v1alpha1"}]}


def test_v2_publishes_a_root_preserving_unknown_fields_as_a_bare_object() -> None:
    schema = {"type": "object", "x-kubernetes-preserve-unknown-fields": True,
              "properties": {"spec": {"type": "object"}}}
    assert set(crdopenapi.kind_schema(_crd(schema), "v1alpha1", False, TYPE_META)) == {
        "type", "x-kubernetes-group-version-kind"}
    v3 = crdopenapi.kind_schema(_crd(schema), "v1alpha1", True, TYPE_META)
    assert set(v3["properties"]) == {"spec", "metadata", "apiVersion", "kind"}


def test_to_structural_openapi_v2() -> None:
    schema = {"type": "object", "required": ["a", "b"], "properties": {
        "a": {"type": "string", "nullable": True},
        "b": {"type": "integer", "oneOf": [{"minimum": 1}], "x-kubernetes-int-or-string": True},
        "c": {"type": "array", "x-kubernetes-preserve-unknown-fields": True, "items": {"type": "string"}},
        "d": {"type": "object", "x-kubernetes-preserve-unknown-fields": True,
              "properties": {"e": {"type": "string"}}},
        "m": {"type": "object", "required": ["k"], "additionalProperties": {"type": "string", "nullable": True}}}}
    s = crdopenapi.kind_schema(_crd(schema), "v1alpha1", False, TYPE_META)
    props = s["properties"]
    assert s["required"] == ["b"]  # a nullable property is not required
    assert props["a"] == {}  # nullable: untyped
    assert props["b"] == {"type": "integer", "x-kubernetes-int-or-string": True}  # junctors (and Unfold's) gone
    assert props["c"] == {"x-kubernetes-preserve-unknown-fields": True}
    assert props["d"] == {"x-kubernetes-preserve-unknown-fields": True}
    assert props["m"] == {"type": "object", "additionalProperties": {}}


def test_unfold_and_structural_keys_in_v3() -> None:
    schema = {"type": "object", "properties": {
        "p": {"x-kubernetes-int-or-string": True, "anyOf": [{"maximum": 3}], "example": 1},
        "q": {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]}}}
    s = crdopenapi.kind_schema(_crd(schema), "v1alpha1", True, TYPE_META)
    assert s["properties"]["p"] == {"x-kubernetes-int-or-string": True, "anyOf": [{"maximum": 3}],
                                    "allOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]}]}
    assert s["properties"]["q"]["anyOf"] == [{"type": "integer"}, {"type": "string"}]
    assert "allOf" not in s["properties"]["q"]


def test_an_unserved_version_and_builtin_documents_are_left_alone() -> None:
    crd = _crd({"type": "object"})
    crd["spec"]["versions"][0]["served"] = False
    k = KindInfo("Gadget", "gadgets", "gadget", False, group="my-team.example.com", version="v1alpha1", crd=crd)
    assert openapi.openapi_v3_documents([*DEFAULT_KINDS, k]) == openapi.openapi_v3_documents(DEFAULT_KINDS)
    assert openapi.openapi_v2([*DEFAULT_KINDS, k]) == openapi.openapi_v2(DEFAULT_KINDS)


def test_crds_of_one_group_version_share_its_v3_document_and_each_served_version_has_its_own() -> None:
    gadgets = _crd({"type": "object"})
    gadgets["spec"]["versions"].append({"name": "v1", "served": True, "storage": False,
                                        "schema": {"openAPIV3Schema": {"type": "object"}}})
    widgets = _crd({"type": "object"}, kind="Widget")
    widgets["spec"]["names"]["plural"] = "widgets"
    kinds = [KindInfo("Gadget", "gadgets", "gadget", False, group="my-team.example.com", version=v, crd=gadgets)
             for v in ("v1alpha1", "v1")]
    kinds.append(KindInfo("Widget", "widgets", "widget", False, group="my-team.example.com", version="v1alpha1",
                          crd=widgets))
    docs = openapi.openapi_v3_documents([*DEFAULT_KINDS, *kinds])
    alpha, v1 = docs["apis/my-team.example.com/v1alpha1"], docs["apis/my-team.example.com/v1"]
    assert alpha["openapi"] == "3.0.0" and alpha["info"] == {"title": "Kubernetes CRD Swagger", "version": "v0.1.0"}
    assert {"com.example.my-team.v1alpha1.Gadget", "com.example.my-team.v1alpha1.GadgetList",
            "com.example.my-team.v1alpha1.Widget", "com.example.my-team.v1alpha1.WidgetList"} <= set(
        alpha["components"]["schemas"])
    assert "/apis/my-team.example.com/v1alpha1/widgets/{name}" in alpha["paths"]
    assert "/apis/my-team.example.com/v1alpha1/gadgets/{name}" in alpha["paths"]
    assert set(v1["paths"]) == {"/apis/my-team.example.com/v1/gadgets", "/apis/my-team.example.com/v1/gadgets/{name}"}
    assert docs["api/v1"] == openapi.openapi_v3_documents(DEFAULT_KINDS)["api/v1"]
    v2 = openapi.openapi_v2([*DEFAULT_KINDS, *kinds])
    assert {"com.example.my-team.v1.Gadget", "com.example.my-team.v1alpha1.Widget"} <= set(v2["definitions"])
