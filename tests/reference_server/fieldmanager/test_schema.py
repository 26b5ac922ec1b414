"""`fieldmanager/schema.py`: server-side apply's list and map types of a built-in kind are read from the v3 schema
the server publishes (upstream's markers, `wire/markers.py`), as kube-openapi's `schemaconv` reads them."""
from __future__ import annotations

import pytest

from conformance.reference_server.fieldmanager.schema import ATOMIC, MAP, SET, ListType, Schema

TCP = (("protocol", "TCP"),)
NAMED, TYPED = (("name", ""),), (("type", ""),)
CONTAINER = ("spec", "template", "spec", "containers")


@pytest.mark.parametrize("kind, api_version, names, expected", [
    # a key's v3 `default`: a `+default=` marker's value, or the zero value of a required (non-omitempty) field
    ("Pod", "v1", ("spec", "containers"), ListType(MAP, ("name",), NAMED)),
    ("Pod", "v1", ("spec", "containers", "ports"), ListType(MAP, ("containerPort", "protocol"),
                                                            (("containerPort", 0), *TCP))),
    ("Pod", "v1", ("spec", "containers", "env"), ListType(MAP, ("name",), NAMED)),
    ("Pod", "v1", ("spec", "containers", "resources", "claims"), ListType(MAP, ("name",), NAMED)),
    ("Pod", "v1", ("spec", "tolerations"), ListType(ATOMIC)),
    ("Pod", "v1", ("spec", "volumes"), ListType(MAP, ("name",), NAMED)),
    ("Pod", "v1", ("spec", "imagePullSecrets"), ListType(MAP, ("name",), NAMED)),  # LocalObjectReference's marker
    ("Pod", "v1", ("status", "containerStatuses"), ListType(ATOMIC)),
    ("Pod", "v1", ("metadata", "finalizers"), ListType(SET)),
    ("Service", "v1", ("spec", "ports"), ListType(MAP, ("port", "protocol"), (("port", 0), *TCP))),
    ("ServiceAccount", "v1", ("secrets",), ListType(MAP, ("name",))),
    ("ServiceAccount", "v1", ("imagePullSecrets",), ListType(ATOMIC)),
    ("Deployment", "apps/v1", CONTAINER + ("volumeMounts",), ListType(MAP, ("mountPath",), (("mountPath", ""),))),
    ("Deployment", "apps/v1", ("status", "conditions"), ListType(MAP, ("type",), TYPED)),
    ("StatefulSet", "apps/v1", ("spec", "volumeClaimTemplates"), ListType(ATOMIC)),
    ("Job", "batch/v1", ("status", "conditions"), ListType(ATOMIC)),  # +listType=atomic beside patchMergeKey
    ("Job", "batch/v1", ("status", "uncountedTerminatedPods", "failed"), ListType(SET)),
    ("CronJob", "batch/v1", ("spec", "jobTemplate", "spec") + CONTAINER[1:], ListType(MAP, ("name",), NAMED)),
    ("Role", "rbac.authorization.k8s.io/v1", ("rules",), ListType(ATOMIC)),
    ("RoleBinding", "rbac.authorization.k8s.io/v1", ("subjects",), ListType(ATOMIC)),
    ("EndpointSlice", "discovery.k8s.io/v1", ("endpoints", "addresses"), ListType(SET)),
    ("PodDisruptionBudget", "policy/v1", ("status", "conditions"), ListType(MAP, ("type",), TYPED)),
])
def test_list_types(kind, api_version, names, expected):
    assert Schema(kind, api_version=api_version).list_type(names) == expected


@pytest.mark.parametrize("kind, api_version, names, atomic", [
    ("Service", "v1", ("spec", "selector"), True),
    ("Pod", "v1", ("spec", "nodeSelector"), True),
    ("Pod", "v1", ("metadata", "labels"), False),
    ("Pod", "v1", ("metadata", "ownerReferences"), True),  # each reference is +structType=atomic
    ("Pod", "v1", ("spec", "containers", "env", "valueFrom", "configMapKeyRef"), True),
    ("Deployment", "apps/v1", ("spec", "selector"), True),
    ("Deployment", "apps/v1", ("spec", "template", "spec", "nodeSelector"), True),
    ("Deployment", "apps/v1", ("spec", "strategy"), False),
    ("NetworkPolicy", "networking.k8s.io/v1", ("spec", "podSelector"), True),
    ("RoleBinding", "rbac.authorization.k8s.io/v1", ("roleRef",), True),
    ("ConfigMap", "v1", ("data",), False),
])
def test_atomic_maps(kind, api_version, names, atomic):
    assert Schema(kind, api_version=api_version).atomic_map(names) is atomic


def test_custom_resources_keep_their_crd_schema():
    crd = {"type": "object", "properties": {"spec": {"type": "object", "properties": {"items": {
        "type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["id"],
        "items": {"type": "object", "properties": {"id": {"type": "string"}}}}}}}}
    s = Schema("Widget", builtin=False, crd_schema=crd, api_version="example.com/v1")
    assert s.list_type(("spec", "items")) == ListType(MAP, ("id",))
    assert s.list_type(("metadata", "finalizers")) == ListType(SET)
    assert s.list_type(("spec", "other")) == ListType(ATOMIC)
