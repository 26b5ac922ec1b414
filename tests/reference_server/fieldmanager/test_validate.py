"""An applied configuration that does not type: structured-merge-diff's words (typed/validate.go, helpers.go)
through the field manager, as `structuredMergeManager.Apply` answers them (500, no reason)."""
from __future__ import annotations

from typing import Any

import pytest

from conformance.reference_server.apierrors import StatusError
from conformance.reference_server.fieldmanager import FieldManager
from conformance.reference_server.fieldmanager.validate import go_sprintf, to_string

CM = FieldManager("ConfigMap", "v1")
POD = FieldManager("Pod", "v1")
DEPLOY = FieldManager("Deployment", "apps/v1", zero={"spec": {}, "status": {}})
SCHEMA = {"type": "object", "properties": {
    "spec": {"type": "object", "properties": {
        "size": {"type": "integer"}, "port": {"x-kubernetes-int-or-string": True},
        "items": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
                  "items": {"type": "object", "properties": {"k": {"type": "string"}, "v": {"type": "boolean"}}}},
        "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True,
                 "properties": {"n": {"type": "number"}}},
        "child": {"type": "object", "x-kubernetes-embedded-resource": True, "x-kubernetes-preserve-unknown-fields": True},
    }}}}
WIDGET = FieldManager("Widget", "example.com/v1", builtin=False, crd_schema=SCHEMA)


def refusal(fm: FieldManager, config: dict[str, Any]) -> str:
    with pytest.raises(StatusError) as err:
        fm.apply(None, config, "m", False)
    status = err.value.status
    assert status["code"] == 500 and "reason" not in status
    return status["message"]


def pod(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ns"}, "spec": spec}


def test_a_string_field_given_a_number_or_a_map_shows_the_value_as_go_prints_it() -> None:
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": 1}}
    assert refusal(CM, config) == ("failed to create typed patch object (/c; /v1, Kind=ConfigMap): .data.a: "
                                   "expected string, got &value.valueUnstructured{Value:1}")
    config["data"] = {"a": {"x": 1.5, "b": [True, "s"]}}
    assert refusal(CM, config).endswith(
        '.data.a: expected string, got &value.valueUnstructured{Value:map[string]interface {}{"b":[]interface '
        '{}{true, "s"}, "x":1.5}}')


def test_an_unknown_field_is_not_declared_in_schema() -> None:
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "n"}, "foo": "bar"}
    assert refusal(CM, config) == ("failed to create typed patch object (n/c; /v1, Kind=ConfigMap): .foo: field "
                                   "not declared in schema")


def test_mistypings_inside_lists_name_the_item_and_are_joined() -> None:
    config = pod(containers=[{"name": "c", "image": 1, "ports": [{"containerPort": "x"}],
                              "args": ["a", 2]}, {"image": "i"}])
    assert refusal(POD, config) == (
        "failed to create typed patch object (ns/p; /v1, Kind=Pod): errors:\n"
        '  .spec.containers[name="c"].image: expected string, got &value.valueUnstructured{Value:1}\n'
        '  .spec.containers[name="c"].ports[containerPort="x",protocol="TCP"].containerPort: expected numeric '
        "(int or float), got string\n"
        '  .spec.containers[name="c"].args[1]: expected string, got &value.valueUnstructured{Value:2}')
    # (the second container, without a name, is keyed by Container.name's v3 default: "")


def test_duplicate_keys_wrong_shapes_and_quantities() -> None:
    config = pod(containers=[{"name": "c", "ports": [{"containerPort": 80}, {"containerPort": 80}],
                              "resources": {"limits": {"cpu": ["1"]}}}],
                 tolerations=[1], nodeSelector="x", hostNetwork="yes")
    assert refusal(POD, config).split("\n")[1:] == [
        '  .spec.containers[name="c"].ports: duplicate entries for key [containerPort=80,protocol="TCP"]',
        '  .spec.containers[name="c"].resources.limits.cpu: expected any scalar, got &{[1]}',
        "  .spec.tolerations[0]: expected map, got &{1}",
        "  .spec.nodeSelector: expected map, got &{x}",
        "  .spec.hostNetwork: expected boolean, got &{yes}"]


def test_a_number_is_a_float64_and_a_percent_is_read_as_a_verb() -> None:
    config = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
              "spec": {"replicas": "2", "strategy": 1000000, "selector": "50%"}}
    assert refusal(DEPLOY, config).split("\n")[1:] == [
        "  .spec.replicas: expected numeric (int or float), got string",
        "  .spec.strategy: expected map, got &{1e+06}",
        "  .spec.selector: expected map, got &{50%!}(MISSING)"]


def test_what_types_is_merged_as_before() -> None:
    config = pod(containers=[{"name": "c", "image": "i", "ports": [{"containerPort": 80}],
                              "resources": {"limits": {"cpu": 1}}}], priority=None)
    assert POD.apply(None, config, "m", False)["spec"]["containers"][0]["image"] == "i"


def test_a_kind_the_endpoint_does_not_serve_is_refused_before_typing() -> None:
    """versioncheck.go, outside structured-merge: a 400, never smd's `no corresponding type`."""
    config = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "c"}}
    with pytest.raises(StatusError) as err:
        CM.apply(None, config, "m", False)
    assert (err.value.status["code"], err.value.status["message"]) == (400, "invalid object type: /v1, Kind=Secret")


def test_a_custom_resource_types_by_its_structural_schema() -> None:
    base = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
    ok = {**base, "spec": {"size": 1, "port": {"any": ["thing"]}, "tags": ["a"], "free": {"x": {"y": 1}},
                           "child": {"apiVersion": "v1", "kind": "X", "metadata": {"name": "n"}, "extra": 1}}}
    assert WIDGET.apply(None, ok, "m", False)["spec"]["size"] == 1
    bad = {**base, "spec": {"size": "one", "items": [{"k": "a", "v": "no"}, {"k": "a"}], "tags": [{"a": 1}],
                            "free": {"n": "x"}, "child": {"metadata": {"name": 1}}, "other": 1},
           "status": {}}
    assert refusal(WIDGET, bad) == (
        "failed to create typed patch object (/w; example.com/v1, Kind=Widget): errors:\n"
        "  .spec.size: expected numeric (int or float), got string\n"
        '  .spec.items[k="a"].v: expected boolean, got &{no}\n'
        '  .spec.items: duplicate entries for key [k="a"]\n'
        "  .spec.tags: element 0: associative list without keys has an element that's a map type\n"
        "  .spec.free.n: expected numeric (int or float), got string\n"
        "  .spec.child.metadata.name: expected string, got &value.valueUnstructured{Value:1}\n"
        "  .spec.other: field not declared in schema\n"
        "  .status: field not declared in schema")  # each map stops at its first undeclared field


def test_value_to_string_and_sprintf_without_arguments() -> None:
    assert to_string({"a": 1, "b": "x"}) == 'a=1b="x"' and to_string([1.5, None, True]) == "[1.5,null,true]"
    assert go_sprintf("100%% of %d, 5%") == "100% of %!d(MISSING), 5%!(NOVERB)"
