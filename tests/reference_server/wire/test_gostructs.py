"""wire/gostructs.py: each struct's fields in the Go struct's order (inlined structs flattened in place), TypeMeta
first at the root, unknown keys last; maps' keys and `JSON`/`RawExtension` values left as they are; nothing shared
is changed."""
from __future__ import annotations

import copy

from conformance.reference_server.wire import gostructs


def test_pod_structs_ordered_input_untouched() -> None:
    pod = {"spec": {"restartPolicy": "Always", "zzz": 1, "containers": [
                {"image": "i", "name": "c", "livenessProbe": {"periodSeconds": 3, "exec": {"command": ["a"]}},
                 "resources": {"limits": {"memory": "1Gi", "cpu": "1"}}}],
            "volumes": [{"configMap": {"name": "x"}, "name": "v"}]},
           "metadata": {"labels": {"b": "1"}, "name": "p"}, "apiVersion": "v1", "kind": "Pod",
           "status": {"phase": "Pending"}}
    before = copy.deepcopy(pod)
    out = gostructs.orderer("v1", "Pod")(pod)
    assert pod == before and list(pod) == ["spec", "metadata", "apiVersion", "kind", "status"]  # never changed
    assert list(out) == ["kind", "apiVersion", "metadata", "spec", "status"]
    assert list(out["metadata"]) == ["name", "labels"]
    assert list(out["spec"]) == ["volumes", "containers", "restartPolicy", "zzz"]  # unknown: last
    assert list(out["spec"]["volumes"][0]) == ["name", "configMap"]  # VolumeSource inlined after the name
    c = out["spec"]["containers"][0]
    assert list(c) == ["name", "image", "resources", "livenessProbe"]
    assert list(c["livenessProbe"]) == ["exec", "periodSeconds"]  # ProbeHandler inlined at Probe's head
    assert list(c["resources"]["limits"]) == ["memory", "cpu"]  # a map: gomaps' job, left as it is
    assert out["status"] is pod["status"]  # in order already: shared, not copied
    assert gostructs.orderer("v1", "Pod")(out) is out


def test_group_kinds_raw_extension_and_unknown_kinds() -> None:
    dep = {"kind": "Deployment", "apiVersion": "apps/v1", "metadata": {"name": "d"},
           "spec": {"template": {"spec": {"containers": []}, "metadata": {"labels": {"a": "x"}}}, "replicas": 1}}
    out = gostructs.orderer("apps/v1", "Deployment")(dep)
    assert list(out["spec"]) == ["replicas", "template"] and list(out["spec"]["template"]) == ["metadata", "spec"]
    rev = {"kind": "ControllerRevision", "apiVersion": "apps/v1", "revision": 1, "data": {"z": 1, "a": 2},
           "metadata": {}}
    out = gostructs.orderer("apps/v1", "ControllerRevision")(rev)
    assert list(out) == ["kind", "apiVersion", "metadata", "data", "revision"] and out["data"] is rev["data"]
    api = {"spec": {"versionPriority": 1, "version": "v1", "service": {"port": 443, "name": "s"}, "group": "x"},
           "kind": "APIService", "apiVersion": "apiregistration.k8s.io/v1", "metadata": {}}
    out = gostructs.orderer("apiregistration.k8s.io/v1", "APIService")(api)  # kube-aggregator's types
    assert list(out) == ["kind", "apiVersion", "metadata", "spec"]
    assert list(out["spec"]) == ["service", "group", "version", "versionPriority"]
    assert list(out["spec"]["service"]) == ["name", "port"]
    other = {"b": 1, "a": 2}
    assert gostructs.orderer("example.com/v1", "Other")(other) is other  # outside every table: as it is


def test_crd_structs_ordered_json_values_kept() -> None:
    crd = {"kind": "CustomResourceDefinition", "apiVersion": "apiextensions.k8s.io/v1", "status": {},
           "spec": {"versions": [{"schema": {"openAPIV3Schema": {
               "properties": {"s": {"type": "string", "description": "d", "default": {"z": 1, "a": 2}}},
               "items": [{"format": "f", "type": "string"}], "additionalProperties": {"title": "t", "type": "x"},
               "type": "object"}}, "name": "v1"}], "group": "g"},
           "metadata": {"name": "n"}}
    out = gostructs.orderer("apiextensions.k8s.io/v1", "CustomResourceDefinition")(crd)
    assert list(out) == ["kind", "apiVersion", "metadata", "spec", "status"]
    assert list(out["spec"]) == ["group", "versions"] and list(out["spec"]["versions"][0]) == ["name", "schema"]
    s = out["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    assert list(s) == ["type", "items", "properties", "additionalProperties"]
    assert list(s["properties"]["s"]) == ["description", "type", "default"]
    assert list(s["properties"]["s"]["default"]) == ["z", "a"]  # v1.JSON: its bytes as sent
    assert list(s["items"][0]) == ["type", "format"] and list(s["additionalProperties"]) == ["type", "title"]
    assert crd["spec"]["versions"][0]["name"] == "v1" and list(crd["spec"]) == ["versions", "group"]
