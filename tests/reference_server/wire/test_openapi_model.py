"""Every served kind's OpenAPI schema comes from the shared field model (`wire/schema.py` + `_proto_table`) with
upstream's markers (`wire/markers.py`): every field of upstream's Go type, its list/map/struct markers,
`required`, int-or-string and `x-kubernetes-group-version-kind`."""
from __future__ import annotations

from typing import Any

import pytest

from conformance.reference_server.wire import openapi, schema
from conformance.reference_server.wire.kinds import DEFAULT_KINDS, KindInfo

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
])
def test_upstream_markers(defs, definition, field, markers):
    prop = defs[definition]["properties"][field]
    assert {k: prop.get(k) for k in markers} == markers


def schema_defaults(schema: Any, where: str) -> list[str]:
    """Where a schema node (not a property that happens to be named `default`, as LimitRangeItem's) has a
    `default`: what kube-openapi's `handler.PruneDefaults` walks (properties, items, additionalProperties, allOf)."""
    if not isinstance(schema, dict):
        return []
    out = [where] if "default" in schema else []
    for name, sub in (schema.get("properties") or {}).items():
        out += schema_defaults(sub, f"{where}.{name}")
    for key in ("items", "additionalProperties"):
        out += schema_defaults(schema.get(key), f"{where}[{key}]")
    for i, sub in enumerate(schema.get("allOf") or []):
        out += schema_defaults(sub, f"{where}.allOf[{i}]")
    return out


def test_v2_definitions_carry_no_default(defs):
    """kube-apiserver 1.33 prunes every `default` from its v2 definitions (k8s.io/apiserver
    `pkg/server/routes/openapi.go` `InstallV2`: `handler.PruneDefaults`), the `+default="TCP"` of ports' protocols
    too; the field named `default` (LimitRangeItem's) stays."""
    core = openapi.openapi_v2(DEFAULT_KINDS)["definitions"]
    found = [w for d in (defs, core) for name, schema in d.items() for w in schema_defaults(schema, name)]
    assert found == []
    assert "protocol" in core[f"{CORE}.ContainerPort"]["properties"]
    assert "default" in core[f"{CORE}.LimitRangeItem"]["properties"]


@pytest.fixture(scope="module")
def core_v3() -> dict[str, Any]:
    kinds = [*DEFAULT_KINDS] + [KindInfo(k, k.lower() + "s", k.lower(), False) for k in ("ReplicationController",
                                                                                    "PersistentVolume")]
    return openapi.openapi_v3_group(kinds)["components"]["schemas"]


@pytest.mark.parametrize("definition, field, value", [
    ("ContainerPort", "protocol", "TCP"), ("ServicePort", "protocol", "TCP"), ("LocalObjectReference", "name", ""),
    ("GRPCAction", "service", ""), ("ReplicationControllerSpec", "replicas", 1),
    ("ReplicationControllerSpec", "minReadySeconds", 0), ("RBDVolumeSource", "keyring", "/etc/ceph/keyring"),
    ("AzureDiskVolumeSource", "cachingMode", "ReadWrite"), ("AzureDiskVolumeSource", "kind", "Shared"),
    ("AzureDiskVolumeSource", "readOnly", False), ("ScaleIOPersistentVolumeSource", "fsType", "xfs"),
    # openapi-gen's zero value of a field neither a pointer nor omitempty (upstream's v3: `"default": ""`, `0`)
    ("Container", "name", ""), ("ContainerPort", "containerPort", 0), ("NamespaceCondition", "type", ""),
    ("PodCondition", "status", ""), ("TopologySpreadConstraint", "maxSkew", 0),
])
def test_v3_keeps_the_default_markers(core_v3, definition, field, value):
    """v3 keeps openapi-gen's `Default:` from each `+default=` marker of k8s.io/api core/v1 (kube-openapi's
    `builder3` prunes nothing)."""
    prop = core_v3[f"{CORE}.{definition}"]["properties"][field]
    assert prop["default"] == value and type(prop["default"]) is type(value)


def test_v3_scalar_elements_default_to_their_zero(core_v3):
    """openapi-gen gives a list's or map's scalar element its zero value (upstream: `"items": {"default": "",
    "type": "string"}`); v2 prunes it."""
    assert core_v3[f"{CORE}.Container"]["properties"]["args"]["items"] == {"type": "string", "default": ""}
    assert core_v3[f"{CORE}.ConfigMap"]["properties"]["data"]["additionalProperties"] == {"type": "string",
                                                                                          "default": ""}


def test_v3_types_with_their_own_unmarshal_have_no_default(core_v3):
    """`mustEnforceDefault`: a type with its own `UnmarshalJSON` (Time, IntOrString, Quantity, ...) gets no
    `default: {}` (its zero value is null), where another struct held by value does."""
    meta = core_v3[f"{META}.ObjectMeta"]["properties"]
    assert meta["creationTimestamp"]["allOf"] == [{"$ref": f"#/components/schemas/{META}.Time"}]
    assert "default" not in meta["creationTimestamp"]
    assert "default" not in core_v3[f"{CORE}.ServicePort"]["properties"]["targetPort"]
    assert core_v3[f"{CORE}.Pod"]["properties"]["spec"]["default"] == {}


def test_v3_optional_scalars_have_no_default(core_v3):
    """`omitempty` (or a pointer): no `default`."""
    for definition, field in (("Container", "image"), ("ServicePort", "targetPort"), ("ServicePort", "name"),
                              ("PodCondition", "reason"), ("ReplicationControllerSpec", "selector")):
        assert "default" not in core_v3[f"{CORE}.{definition}"]["properties"][field], (definition, field)
