"""wire/gomaps.py: the keys of Go maps sorted as `encoding/json` writes them, a CRD's `JSON` values (`default`,
`example`, `enum`: the internal type's `interface{}`) at every level; struct fields and `RawExtension`s left as
they are; nothing shared is changed."""
from __future__ import annotations

import copy

from conformance.reference_server.wire import gomaps


def test_typed_maps_sorted_structs_kept_input_untouched() -> None:
    pod = {"kind": "Pod", "apiVersion": "v1",
           "metadata": {"name": "p", "labels": {"b": "1", "a": "2"}, "annotations": {"é": "1", "z": "2"}},
           "spec": {"restartPolicy": "Always", "nodeSelector": {"y": "1", "x": "2"},
                    "containers": [{"name": "c", "image": "i",
                                    "resources": {"limits": {"memory": "1Gi", "cpu": "1"}}}],
                    "volumes": [{"name": "v", "csi": {"driver": "d", "volumeAttributes": {"k2": "1", "k1": "2"}}}]},
           "status": {"phase": "Pending"}}
    before = copy.deepcopy(pod)
    out = gomaps.sorter("v1", "Pod")(pod)
    assert pod == before and list(pod["metadata"]["labels"]) == ["b", "a"]  # the input is never changed
    assert list(out["metadata"]["labels"]) == ["a", "b"] and list(out["metadata"]["annotations"]) == ["z", "é"]
    assert list(out["metadata"]) == ["name", "labels", "annotations"]  # struct fields keep their order
    assert list(out["spec"]) == ["restartPolicy", "nodeSelector", "containers", "volumes"]
    assert list(out["spec"]["nodeSelector"]) == ["x", "y"]
    assert list(out["spec"]["containers"][0]["resources"]["limits"]) == ["cpu", "memory"]
    assert list(out["spec"]["volumes"][0]["csi"]["volumeAttributes"]) == ["k1", "k2"]
    assert out["status"] is pod["status"]  # nothing to sort there: shared, not copied
    assert gomaps.sorter("v1", "Pod")(out) is out  # already in order: the same object


def test_group_kinds_and_secret_maps() -> None:
    sc = {"metadata": {"name": "s"}, "provisioner": "p", "parameters": {"b": "1", "a": "2"}}
    assert list(gomaps.sorter("storage.k8s.io/v1", "StorageClass")(sc)["parameters"]) == ["a", "b"]
    dep = {"metadata": {"name": "d"}, "spec": {"selector": {"matchLabels": {"b": "1", "a": "1"}}, "template": {
        "metadata": {"labels": {"b": "1", "a": "1"}}, "spec": {"nodeSelector": {"z": "", "m": ""}}}}}
    out = gomaps.sorter("apps/v1", "Deployment")(dep)
    assert list(out["spec"]["selector"]["matchLabels"]) == ["a", "b"]
    assert list(out["spec"]["template"]["metadata"]["labels"]) == ["a", "b"]
    assert list(out["spec"]["template"]["spec"]["nodeSelector"]) == ["m", "z"]
    secret = {"metadata": {"name": "s"}, "data": {"b": "MQ==", "a": "Mg=="}}
    assert list(gomaps.sorter("v1", "Secret")(secret)["data"]) == ["a", "b"]
    rq = {"metadata": {}, "spec": {"hard": {"pods": "1", "cpu": "1"}}, "status": {"used": {"pods": "0", "cpu": "0"}}}
    out = gomaps.sorter("v1", "ResourceQuota")(rq)
    assert list(out["spec"]["hard"]) == ["cpu", "pods"] and list(out["status"]["used"]) == ["cpu", "pods"]


def test_raw_extension_and_unknown_kinds() -> None:
    rev = {"metadata": {"labels": {"b": "", "a": ""}}, "data": {"z": 1, "a": 2}, "revision": 1}
    out = gomaps.sorter("apps/v1", "ControllerRevision")(rev)
    assert list(out["data"]) == ["z", "a"] and list(out["metadata"]["labels"]) == ["a", "b"]  # RawExtension: bytes
    api = {"metadata": {"name": "v1.x", "annotations": {"b": "", "a": ""}}, "spec": {"group": "x", "version": "v1"}}
    assert list(gomaps.sorter("apiregistration.k8s.io/v1", "APIService")(api)["metadata"]["annotations"]) == ["a", "b"]


def test_crd_schema_maps_sorted() -> None:
    schema = {"type": "object", "properties": {
        "spec": {"type": "object", "default": {"z": 1, "a": [{"y": 1, "x": 2}]}, "example": {"d": 1, "c": 2},
                 "enum": [{"f": 1, "e": 2}, 3], "properties": {
            "b": {"type": "string"}, "a": {"type": "array", "items": {"type": "object", "properties": {
                "y": {"type": "string"}, "x": {"type": "string"}}}}},
            "additionalProperties": False},
        "data": {"type": "object", "additionalProperties": {"type": "object", "properties": {
            "n": {"type": "string"}, "m": {"type": "string"}}}},
        "any": {"anyOf": [{"properties": {"q": {}, "p": {}}}], "x-kubernetes-int-or-string": True}}}
    crd = {"metadata": {"name": "a.b"}, "spec": {"group": "b", "versions": [{"name": "v1", "schema": {
        "openAPIV3Schema": schema}}]}}
    before = copy.deepcopy(crd)
    out = gomaps.sorter("apiextensions.k8s.io/v1", "CustomResourceDefinition")(crd)
    assert crd == before and list(schema["properties"]) == ["spec", "data", "any"]
    got = out["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    assert list(got["properties"]) == ["any", "data", "spec"]
    spec = got["properties"]["spec"]
    assert list(spec) == ["type", "default", "example", "enum", "properties", "additionalProperties"]  # struct
    # apiextensions `JSON` values are not this walk's: wire/gowritten_described.py writes them as the internal
    # `interface{}` (test_gowritten_described.py)
    assert list(spec["properties"]) == ["a", "b"] and list(spec["properties"]["a"]["items"]["properties"]) == \
        ["x", "y"]
    assert list(got["properties"]["data"]["additionalProperties"]["properties"]) == ["m", "n"]
    assert list(got["properties"]["any"]["anyOf"][0]["properties"]) == ["p", "q"]


def test_unstructured_sorted_everywhere() -> None:
    obj = {"kind": "W", "apiVersion": "x/v1", "metadata": {"name": "n", "labels": {"b": "", "a": ""}},
           "spec": {"list": [{"d": 1, "c": {"f": 1, "e": 2}}, 3], "b": None}, "abc": 1}
    out = gomaps.sort_unstructured(obj)
    assert list(out) == ["abc", "apiVersion", "kind", "metadata", "spec"]
    assert list(out["metadata"]) == ["labels", "name"] and list(out["metadata"]["labels"]) == ["a", "b"]
    assert list(out["spec"]) == ["b", "list"] and list(out["spec"]["list"][0]) == ["c", "d"]
    assert list(out["spec"]["list"][0]["c"]) == ["e", "f"] and list(obj) == ["kind", "apiVersion", "metadata",
                                                                            "spec", "abc"]
    assert gomaps.sort_unstructured(out) is out
    assert list(gomaps.sort_unstructured({"é": 1, "z": 2, "Z": 3, "": 4})) == ["", "Z", "z", "é"]  # byte order
