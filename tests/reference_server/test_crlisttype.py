"""Uniqueness of a custom resource's `x-kubernetes-list-type: set` items and `map` keys (registry/crlisttype.py,
upstream's `schema/listtype/validation.go`): `Duplicate value` at the first repeat, printed as apimachinery's
field errors print it; on update only checked when the old object passes (upstream's strategy)."""
from __future__ import annotations

import json

import pytest
import requests

from conformance.reference_server.registry import crlisttype

from .test_crd_rules import CRDS, MERGE, gadget, refused, served, spec_schema, srv  # noqa: F401 (srv: fixture)

ITEM = {"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}}
SCHEMA = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
    "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
    "nums": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "integer"}},
    "byName": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
               "items": ITEM},
    "byBoth": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name", "port"],
               "items": ITEM},
    "nested": {"type": "object", "additionalProperties": {
        "type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}}}}}}


@pytest.mark.parametrize("spec, errors", [
    ({"tags": ["a", "b", "a", "a"]}, ['spec.tags[2]: Duplicate value: "a"']),
    ({"nums": [1, 2, 1]}, ["spec.nums[2]: Duplicate value: 1"]),
    ({"byName": [{"name": "a", "port": 1}, {"name": "a", "port": 2}]},
     ['spec.byName[1]: Duplicate value: map[string]interface {}{"name":"a"}']),
    ({"byName": [{"port": 1}, {"port": 2}]}, ["spec.byName[1]: Duplicate value: map[string]interface {}{}"]),
    ({"byBoth": [{"name": "a", "port": 1}, {"name": "a", "port": 2}, {"port": 1, "name": "a"}]},
     ['spec.byBoth[2]: Duplicate value: map[string]interface {}{"name":"a", "port":1}']),
    ({"byName": ["x", {"name": "a"}]},
     ['spec.byName[0]: Invalid value: "x": must be an object for an array of list-type map']),
    ({"nested": {"k": ["x", "x"]}}, ['spec.nested[k][1]: Duplicate value: "x"']),
    ({"tags": ["a", "b"], "byName": [{"name": "a"}, {"name": "b"}]}, []),
])
def test_duplicates(spec, errors):
    obj = {"apiVersion": "x/v1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": spec}
    assert [str(e) for e in crlisttype.validate(obj, SCHEMA)] == errors


def test_over_http_and_ratcheted_as_a_whole(srv):  # noqa: F811
    coll = served(srv, spec_schema({"tags": {"type": "array", "items": {"type": "string"}},
                                    "size": {"type": "integer"}}))
    assert requests.post(coll, json=gadget(coll, "g1", {"tags": ["a", "a"], "size": 1})).status_code == 201
    group = coll.split("/apis/")[1].split("/")[0]
    crd_url = f"{srv.url}{CRDS}/gadgets.{group}"
    crd = requests.get(crd_url).json()
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["tags"][
        "x-kubernetes-list-type"] = "set"
    assert requests.put(crd_url, json=crd).status_code == 200
    message, causes = refused(requests.post(coll, json=gadget(coll, "g2", {"tags": ["b", "b"]})))
    assert message == 'spec.tags[1]: Duplicate value: "b"' and causes[0]["reason"] == "FieldValueDuplicate"
    # the stored object breaks the rule: its updates are not checked for it
    r = requests.patch(f"{coll}/g1", data=json.dumps({"spec": {"tags": ["a", "a", "c", "c"]}}), headers=MERGE)
    assert r.status_code == 200, r.text
    assert requests.patch(f"{coll}/g1", data=json.dumps({"spec": {"tags": ["a", "c"]}}),
                          headers=MERGE).status_code == 200
    message, _ = refused(requests.patch(f"{coll}/g1", data=json.dumps({"spec": {"tags": ["c", "c"]}}),
                                        headers=MERGE))
    assert message == 'spec.tags[1]: Duplicate value: "c"'
