"""Every served kind's OpenAPI schema comes from the shared field model (`wire/schema.py` + `_proto_table`) with
upstream's markers (`wire/markers.py`): every field of upstream's Go type, its list/map/struct markers,
`required`, int-or-string and `x-kubernetes-group-version-kind`."""
from __future__ import annotations

from typing import Any

import pytest

from conformance.reference_server.wire import openapi, schema
from conformance.reference_server.wire.kinds import KindInfo

APPS = "io.k8s.api.apps.v1"
CORE = "io.k8s.api.core.v1"
META = "io.k8s.apimachinery.pkg.apis.meta.v1"


def served_group_kinds() -> list[KindInfo]:
    out = []
    for gv, (_, kinds) in schema.GROUP_KINDS.items():
        group, _, version = gv.rpartition("/")
        out += [KindInfo(k, k.lower() + "s", k.lower(), True, group=group, version=version) for k in kinds]
    return out


@pytest.fixture(scope="module")
def defs() -> dict[str, Any]:
    return openapi.openapi_v2(served_group_kinds())["definitions"]


@pytest.mark.parametrize("kind", served_group_kinds(), ids=lambda k: f"{k.group}/{k.kind}")
def test_every_named_group_kind_has_every_field_of_its_message(defs, kind):
    message = openapi.model_message(kind)
    assert message is not None
    name = f"{openapi.definition_prefix(kind)}.{kind.kind}"
    assert set(defs[name]["properties"]) == {"apiVersion", "kind", *schema.json_fields(message)}
    assert defs[name]["x-kubernetes-group-version-kind"] == [kind.gvk()]


def test_deployment_fields_the_hand_written_schema_left_out(defs):
    """`kubectl explain deployment.spec.strategy.rollingUpdate`, status conditions, retainKeys."""
    spec = defs[f"{APPS}.DeploymentSpec"]
    assert spec["required"] == ["selector", "template"]
    assert spec["properties"]["strategy"] == {"$ref": f"#/definitions/{APPS}.DeploymentStrategy",
                                              "x-kubernetes-patch-strategy": "retainKeys",
                                              "description": "The deployment strategy to use to replace existing "
                                                             "pods with new ones."}
    rolling = defs[f"{APPS}.RollingUpdateDeployment"]["properties"]
    assert rolling["maxSurge"]["$ref"] == "#/definitions/io.k8s.apimachinery.pkg.util.intstr.IntOrString"
    assert rolling["maxSurge"]["description"].startswith("The maximum number of pods that can be scheduled above")
    assert defs["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]["format"] == "int-or-string"
    conditions = defs[f"{APPS}.DeploymentStatus"]["properties"]["conditions"]
    assert conditions["x-kubernetes-list-map-keys"] == ["type"]
    assert conditions["x-kubernetes-patch-merge-key"] == "type" and conditions["x-kubernetes-list-type"] == "map"
    assert set(defs[f"{APPS}.DeploymentCondition"]["properties"]) >= {"lastUpdateTime", "lastTransitionTime"}


@pytest.mark.parametrize("definition, field, markers", [
    ("io.k8s.api.batch.v1.JobStatus", "conditions", {"x-kubernetes-list-type": "atomic",
                                                     "x-kubernetes-patch-merge-key": "type"}),
    ("io.k8s.api.batch.v1.UncountedTerminatedPods", "succeeded", {"x-kubernetes-list-type": "set"}),
    ("io.k8s.api.batch.v1.PodFailurePolicy", "rules", {"x-kubernetes-list-type": "atomic"}),
    ("io.k8s.api.rbac.v1.Role", "rules", {"x-kubernetes-list-type": "atomic"}),
    ("io.k8s.api.rbac.v1.PolicyRule", "verbs", {"x-kubernetes-list-type": "atomic"}),
    ("io.k8s.api.discovery.v1.Endpoint", "addresses", {"x-kubernetes-list-type": "set"}),
    ("io.k8s.api.policy.v1.PodDisruptionBudgetSpec", "selector", {"x-kubernetes-patch-strategy": "replace"}),
    ("io.k8s.api.networking.v1.NetworkPolicySpec", "ingress", {"x-kubernetes-list-type": "atomic"}),
    (f"{CORE}.PodSpec", "nodeSelector", {"x-kubernetes-map-type": "atomic"}),
    (f"{CORE}.ResourceRequirements", "claims", {"x-kubernetes-list-type": "map",
                                                "x-kubernetes-list-map-keys": ["name"]}),
    (f"{CORE}.ContainerPort", "protocol", {"default": "TCP"}),
])
def test_upstream_markers(defs, definition, field, markers):
    prop = defs[definition]["properties"][field]
    assert {k: prop.get(k) for k in markers} == markers


def test_atomic_structs_and_required(defs):
    assert defs[f"{META}.LabelSelector"]["x-kubernetes-map-type"] == "atomic"
    assert defs["io.k8s.api.rbac.v1.RoleRef"]["x-kubernetes-map-type"] == "atomic"
    assert defs["io.k8s.api.rbac.v1.RoleRef"]["required"] == ["apiGroup", "kind", "name"]
    assert defs["io.k8s.api.discovery.v1.EndpointSlice"]["required"] == ["addressType", "endpoints"]


def test_review_extra_is_a_map_of_string_lists():
    defs, _ = openapi.kind_schema("authorization.k8s.io", "v1", "SubjectAccessReview")
    extra = defs["io.k8s.api.authorization.v1.SubjectAccessReviewSpec"]["properties"]["extra"]
    assert extra == {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}}
    assert openapi.type_error("authorization.k8s.io", "v1", "SubjectAccessReview",
                              {"spec": {"user": "u", "extra": {"k": ["v"]}}}) is None


def test_a_kind_added_to_the_model_needs_no_other_step(monkeypatch):
    """A kind added to the model (its messages in `_proto_table`, its (group-version, kind) in
    `schema.OUTPUT_MESSAGES`, which `GROUP_KINDS` fills) gets its full schema: here a made-up apps/v1 kind."""
    monkeypatch.setitem(schema.MESSAGES, "apps.Gadget", "metadata=1:@meta.ObjectMeta spec=2:@apps.GadgetSpec")
    monkeypatch.setitem(schema.MESSAGES, "apps.GadgetSpec", "revision=1:i64 data=2:@runtime.RawExtension")
    monkeypatch.setitem(schema.OUTPUT_MESSAGES, ("apps/v1", "Gadget"), "apps.Gadget")
    defs = openapi.openapi_v2([KindInfo("Gadget", "gadgets", "gadget", True, group="apps")])["definitions"]
    assert set(defs[f"{APPS}.Gadget"]["properties"]) == {"apiVersion", "kind", "metadata", "spec"}
    assert defs[f"{APPS}.GadgetSpec"]["properties"]["revision"] == {"type": "integer", "format": "int64"}
    assert {k: v for k, v in defs["io.k8s.apimachinery.pkg.runtime.RawExtension"].items()
            if k != "description"} == {"type": "object"}
