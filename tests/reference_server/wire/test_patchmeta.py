"""The strategic-merge metadata the server merges with is the one its OpenAPI publishes (what kubectl diffs with)."""
from __future__ import annotations

from conformance.reference_server.wire.kinds import KindInfo
from conformance.reference_server.wire.openapi import openapi_v3_group
from conformance.reference_server.wire.patchmeta import for_kind


def _published(group: str, kind: str, *path: str) -> dict:
    doc = openapi_v3_group([KindInfo(kind, "", "", True, group=group, version="v1")])
    schemas = doc["components"]["schemas"]
    prefix = f"io.k8s.api.{group.split('.')[0] if group else 'core'}.v1"
    node = schemas[f"{prefix}.{kind}"]
    for name in path:
        ref = next((s["$ref"] for s in node.get("allOf", []) if "$ref" in s), node.get("$ref"))
        if ref:
            node = schemas[ref.rsplit("/", 1)[-1]]
        node = node["properties"][name] if name != "[]" else node["items"]
    return node


def test_merge_keys_are_read_from_the_published_schema() -> None:
    cases = [("", "Pod", ("spec", "containers"), "name", ("merge",)),
             ("", "Pod", ("spec", "volumes"), "name", ("merge", "retainKeys")),
             ("", "Service", ("spec", "ports"), "port", ("merge",)),
             ("", "Pod", ("spec", "tolerations"), "", ()),
             ("apps", "Deployment", ("spec", "strategy"), "", ("retainKeys",))]
    for group, kind, path, key, strategies in cases:
        node = for_kind(group, "v1", kind)
        for name in path:
            node = node.field(name)
        assert (node.merge_key, node.strategies) == (key, strategies), (kind, path)
        published = _published(group, kind, *path)
        assert published.get("x-kubernetes-patch-merge-key", "") == key
        assert tuple(filter(None, published.get("x-kubernetes-patch-strategy", "").split(","))) == strategies


def test_list_items_and_map_values_have_their_own_nodes() -> None:
    env = for_kind("", "v1", "Pod").field("spec").field("containers").items().field("env")
    assert (env.merge_key, env.strategies) == ("name", ("merge",))
    template = for_kind("batch", "v1", "CronJob").field("spec").field("jobTemplate").field("spec").field("template")
    assert template.field("spec").field("containers").merge_key == "name"
    assert for_kind("", "v1", "ConfigMap").field("data").field("any-key").strategies == ()
