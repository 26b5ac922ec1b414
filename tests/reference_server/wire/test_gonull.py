"""A JSON null as Go's decoder holds it (wire/gonull.py): by-value fields keep their value, pointers become nil."""
from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

from conformance.reference_server.wire import dupkeys, gonull
from conformance.reference_server.wire._gobyvalue_table import BY_VALUE, ITEMS, VALUES
from conformance.reference_server.wire.openapi_schemas import known_fields

ROOT = pathlib.Path(__file__).resolve().parents[3]
MIRRORS = pathlib.Path("/work/.mirror")


def test_table_knows_pointers_from_values():
    """types.go: `Name string` and `metav1.ObjectMeta` by value; `*int64`, `*metav1.Time`, `*bool` pointers;
    `[]string` items and `map[string]string` values by value, `map[string]ExtraValue` values slices."""
    assert {"name", "generateName", "creationTimestamp"} <= BY_VALUE["meta.ObjectMeta"]
    assert not {"deletionTimestamp", "deletionGracePeriodSeconds", "labels"} & BY_VALUE["meta.ObjectMeta"]
    assert {"metadata", "spec", "status"} <= BY_VALUE["core.Pod"]
    assert "terminationGracePeriodSeconds" not in BY_VALUE["core.PodSpec"]
    assert "immutable" not in BY_VALUE.get("core.ConfigMap", ())
    assert {"labels", "annotations"} <= VALUES["meta.ObjectMeta"] and "finalizers" in ITEMS["meta.ObjectMeta"]
    assert "limits" in VALUES["core.ResourceRequirements"]  # `ResourceList`: a named map of Quantity
    assert "extra" not in VALUES.get("authentication.UserInfo", ())  # its values are `ExtraValue []string`
    assert "data" not in VALUES.get("core.Secret", ())  # `map[string][]byte`


def test_settle_single_nulls_as_zero_values():
    obj = {"metadata": {"name": None, "generateName": "g-", "labels": {"a": None}, "finalizers": [None],
                        "deletionTimestamp": None, "creationTimestamp": None},
           "spec": {"restartPolicy": None, "priority": None, "nodeSelector": {"k": None},
                    "containers": [None, {"name": "c", "args": [None], "resources": {"limits": {"cpu": None}},
                                          "ports": [{"containerPort": 1, "hostIP": None}]}]}}
    gonull.settle(obj, "core.Pod")
    assert obj == {"metadata": {"generateName": "g-", "labels": {"a": ""}, "finalizers": [""],  # nil: omitempty
                                "creationTimestamp": None},  # a zero Time, which Go writes `null`
                   "spec": {"nodeSelector": {"k": ""},
                            "containers": [{}, {"name": "c", "args": [""], "resources": {"limits": {"cpu": "0"}},
                                                "ports": [{"containerPort": 1}]}]}}


def test_settle_keeps_a_nil_go_writes_as_null():
    """`Rules []PolicyRule json:"rules"` (no omitempty): nil is written `null`, so the null stays."""
    obj = {"metadata": {"name": "r"}, "rules": None}
    gonull.settle(obj, "rbac.Role")
    assert obj == {"metadata": {"name": "r"}, "rules": None}


def _typed(body: str, message: str, kind: str) -> dict:
    return dupkeys.typed_value(dupkeys.json_pairs(body.encode()), known_fields(kind, message), message=message)


def test_repeated_null_keeps_a_by_value_field():
    got = _typed('{"metadata":{"name":"a","name":null,"labels":{"x":"1"},"labels":null},"data":{"k":"v"},'
                 '"immutable":true,"immutable":null}', "core.ConfigMap", "ConfigMap")
    assert got == {"metadata": {"name": "a", "labels": None}, "data": {"k": "v"}, "immutable": None}
    got = _typed('{"metadata":{"name":"a"},"metadata":null,"spec":{"containers":[{"name":"c","image":"i"}]},'
                 '"spec":{"containers":[null]}}', "core.Pod", "Pod")
    assert got["metadata"] == {"name": "a"}
    assert got["spec"]["containers"] == [{"name": "c", "image": "i"}]  # the item decoded into the first one's


def test_repeated_null_into_types_with_their_own_unmarshal_json():
    """`Time` and `Quantity` zeroed, `IntOrString` an int keeping its int, `RawExtension` unchanged."""
    got = _typed('{"metadata":{"name":"a","creationTimestamp":"2024-01-01T00:00:00Z","creationTimestamp":null},'
                 '"spec":{"ports":[{"port":1,"targetPort":8080,"targetPort":null},'
                 '{"port":2,"targetPort":"http","targetPort":null},'
                 '{"port":3,"targetPort":7,"targetPort":"x","targetPort":null}],'
                 '"ports":[{"targetPort":"y"},{},{"targetPort":null}]}}', "core.Service", "Service")
    assert got["metadata"] == {"name": "a", "creationTimestamp": None}
    # `IntVal` kept through a string: 8080, 0 (absent), 7 -- and in a repeated list's item decoded into the old
    assert [p.get("targetPort") for p in got["spec"]["ports"]] == ["y", None, 7]
    got = _typed('{"metadata":{"name":"r"},"data":{"a":1},"data":null,"revision":1}', "apps.ControllerRevision",
                 "ControllerRevision")
    assert got["data"] == {"a": 1}


_REPOS = {"api": "kubernetes+api", "apimachinery": "kubernetes+apimachinery",
          "apiextensions": "kubernetes+apiextensions-apiserver", "aggregator": "kubernetes+kube-aggregator"}


@pytest.mark.skipif(not all((MIRRORS / m / "repo").is_dir() for m in _REPOS.values()),
                    reason="no mirror of k8s.io/api and the others (the `fetch` tool's)")
def test_generated_table_is_current(tmp_path):
    out = tmp_path / "table.py"
    mirrors = [a for flag, m in _REPOS.items() for a in (f"--{flag}", str(MIRRORS / m / "repo"))]
    subprocess.run([sys.executable, str(ROOT / "tools/goconvert/byvalue.py"), *mirrors, "--out", str(out)],
                   check=True, capture_output=True)
    assert out.read_text() == (ROOT / "conformance/reference_server/wire/_gobyvalue_table.py").read_text()
    kinds = tmp_path / "_gokinds_table.py"  # (written beside it: every field's Go kind, wire/gowritten.py's)
    assert kinds.read_text() == (ROOT / "conformance/reference_server/wire/_gokinds_table.py").read_text()
    described = tmp_path / "_godescribed_table.py"  # (a CRD's and an APIService's, wire/gowritten_described.py's)
    assert described.read_text() == (ROOT / "conformance/reference_server/wire/_godescribed_table.py").read_text()


def test_repeated_null_in_a_crd_by_its_go_types():
    """apiextensions v1 types.go: `Scope ResourceScope`, `Type string` by value (kept), `MaxLength *int64` a
    pointer (nil); a slice's null item decoded into the old item (kept)."""
    from conformance.reference_server.wire import crdtypes
    body = ('{"metadata":{"name":"a"},"metadata":null,"spec":{"group":"g","scope":"Namespaced","scope":null,'
            '"versions":[{"name":"v1","schema":{"openAPIV3Schema":{"type":"object","type":null,"maxLength":5,'
            '"maxLength":null}}}],"versions":[null]},"spec":null}')
    got = dupkeys.go_typed_value(dupkeys.json_pairs(body.encode()), known_fields("Namespace")["metadata"],
                                 "CustomResourceDefinition", crdtypes.STRUCTS)
    assert got["metadata"] == {"name": "a"}
    assert (got["spec"]["group"], got["spec"]["scope"]) == ("g", "Namespaced")
    assert got["spec"]["versions"] == [{"name": "v1", "schema": {"openAPIV3Schema": {"type": "object",
                                                                                     "maxLength": None}}}]


def test_a_third_longer_list_decodes_into_the_items_the_first_left():
    """decode.go `array`: the second, shorter `containers` is cut from the first's array (`SetLen`), the first's
    second item left past its length; the third, longer, decodes its second item into that one (its `image`
    kept, its `name` given again) and its `null` item keeps it; an empty list (`MakeSlice(0, 0)`) or `null`
    (a nil slice) leaves nothing to decode into, and items past all that were ever decoded are fresh."""
    def containers(*lists: str) -> list:
        spec = ",".join(f'"spec":{{"containers":{c}}}' for c in lists)
        return _typed('{"metadata":{"name":"p"},' + spec + "}", "core.Pod", "Pod")["spec"]["containers"]
    first = '[{"name":"a","image":"i"},{"name":"b","image":"j"}]'
    assert containers(first, '[{"name":"x"}]', '[{"name":"y"},{"name":"z"},{"name":"w"}]') == [
        {"name": "y", "image": "i"}, {"name": "z", "image": "j"}, {"name": "w"}]
    assert containers(first, '[{"name":"x"}]', "[null,null]") == [{"name": "x", "image": "i"},
                                                                  {"name": "b", "image": "j"}]
    assert containers(first, "[]", '[{"name":"y"},null]') == [{"name": "y"}, None]
    assert containers(first, "null", '[{"name":"y"},{"name":"z"}]') == [{"name": "y"}, {"name": "z"}]
    got = _typed('{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","args":["1","2","3"],'
                 '"args":["4"],"args":["5",null,null]}]}}', "core.Pod", "Pod")
    assert got["spec"]["containers"][0]["args"] == ["5", "2", "3"]  # (a string item held by value: `null` keeps)


def test_a_third_longer_list_in_a_crd_by_its_go_types():
    from conformance.reference_server.wire import crdtypes
    body = ('{"spec":{"versions":[{"name":"v1","served":true},{"name":"v2","served":false}]},'
            '"spec":{"versions":[{"name":"v3"}]},"spec":{"versions":[{"name":"v4"},null]}}')
    got = dupkeys.go_typed_value(dupkeys.json_pairs(body.encode()), {}, "CustomResourceDefinition",
                                 crdtypes.STRUCTS)
    assert got["spec"]["versions"] == [{"name": "v4", "served": True}, {"name": "v2", "served": False}]
