"""A custom resource read under its CRD's current schema (registry/crd.py `CustomResourceStore._finish` and
`present`, upstream's storage codec: in `customresource_handler.go` `unstructuredSchemaCoercer` prunes and
`unstructuredDefaulter` runs `structuraldefaulting.Default` as an object is decoded from etcd): an object stored
before a default was added shows it on GET, LIST and WATCH, one stored before a field was removed from the
schema no longer shows that field; the stored object is left as it was."""
from __future__ import annotations

import json
from typing import Any

import requests

from conformance.reference_server.registry import crschema
from conformance.reference_server.registry.crd import CustomResourceStore
from conformance.reference_server.storage import MemoryStore

from .test_crd_rules import CRDS, MERGE, gadget, served, spec_schema, srv  # noqa: F401 (srv: fixture)


def with_added_defaults(schema: dict[str, Any]) -> dict[str, Any]:
    """SCHEMA with defaults for `spec.mode` and `spec.ports[*].protocol` (changed in place)."""
    spec = schema["properties"]["spec"]
    spec["properties"]["mode"]["default"] = "auto"
    spec["properties"]["ports"]["items"]["properties"]["protocol"]["default"] = "TCP"
    return schema


def add_defaults(http: Any, crd_url: str) -> None:
    """Add the defaults to a stored CRD."""
    crd = http.get(crd_url).json()
    with_added_defaults(crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"])
    r = http.put(crd_url, json=crd)
    assert r.status_code == 200, r.text


SCHEMA = spec_schema({"size": {"type": "integer"}, "mode": {"type": "string"},
                      "ports": {"type": "array", "items": {"type": "object", "properties": {
                          "port": {"type": "integer"}, "protocol": {"type": "string"}}}}})
DEFAULTED = {"size": 1, "mode": "auto", "ports": [{"port": 80, "protocol": "TCP"}]}


def _stored_before_defaults(srv) -> tuple[str, str]:  # noqa: F811
    coll = served(srv, SCHEMA)
    assert requests.post(coll, json=gadget(coll, "g1", {"size": 1, "ports": [{"port": 80}]})).status_code == 201
    group = coll.split("/apis/")[1].split("/")[0]
    crd_url = f"{srv.url}{CRDS}/gadgets.{group}"
    return coll, crd_url


def test_get_and_list_show_defaults_added_after_the_write(srv):  # noqa: F811
    coll, crd_url = _stored_before_defaults(srv)
    assert requests.get(f"{coll}/g1").json()["spec"] == {"size": 1, "ports": [{"port": 80}]}
    before = requests.get(f"{coll}/g1").json()["metadata"]["resourceVersion"]
    add_defaults(requests, crd_url)
    got = requests.get(f"{coll}/g1").json()
    assert got["spec"] == DEFAULTED
    assert got["metadata"]["resourceVersion"] == before  # nothing was written
    assert [i["spec"] for i in requests.get(coll).json()["items"]] == [DEFAULTED]
    assert requests.get(coll, params={"limit": "1"}).json()["items"][0]["spec"] == DEFAULTED
    # a write of the object persists them; a value the client sets is kept
    r = requests.patch(f"{coll}/g1", data=json.dumps({"spec": {"size": 2}}), headers=MERGE)
    assert r.status_code == 200 and r.json()["spec"] == {**DEFAULTED, "size": 2}
    r = requests.patch(f"{coll}/g1", data=json.dumps({"spec": {"mode": "manual"}}), headers=MERGE)
    assert r.json()["spec"]["mode"] == "manual" and requests.get(f"{coll}/g1").json()["spec"]["mode"] == "manual"


def test_watch_events_show_them(srv):  # noqa: F811
    coll, crd_url = _stored_before_defaults(srv)
    add_defaults(requests, crd_url)
    with requests.get(coll, params={"watch": "1", "timeoutSeconds": "5"}, stream=True, timeout=30) as r:
        first = json.loads(next(r.iter_lines()))
    assert first["type"] == "ADDED" and first["object"]["spec"] == DEFAULTED
    rv = requests.get(coll).json()["metadata"]["resourceVersion"]
    requests.post(coll, json=gadget(coll, "g0", {"size": 0}))  # a later write, seen from an older resourceVersion too
    with requests.get(coll, params={"watch": "1", "timeoutSeconds": "5", "resourceVersion": rv}, stream=True,
                      timeout=30) as r:
        event = json.loads(next(r.iter_lines()))
    assert event["type"] == "ADDED" and event["object"]["spec"] == {"size": 0, "mode": "auto"}


def test_the_stored_object_is_not_changed_by_reading_it():
    skeleton = crschema.defaults_skeleton(with_added_defaults(json.loads(json.dumps(SCHEMA))))
    stored = {"apiVersion": "x/v1", "kind": "Gadget", "metadata": {"name": "g"},
              "spec": {"size": 1, "ports": [{"port": 80}, None]}}
    snapshot = json.loads(json.dumps(stored))
    shown = crschema.decoded(stored, SCHEMA, skeleton)
    assert stored == snapshot and shown is not stored
    assert shown["spec"] == {"size": 1, "mode": "auto", "ports": [{"port": 80, "protocol": "TCP"}, None]}
    assert crschema.decoded(shown, SCHEMA, skeleton) is shown  # nothing missing: no copy


def test_a_schema_without_defaults_reads_objects_as_stored():
    assert crschema.defaults_skeleton(SCHEMA) is None
    assert crschema.defaults_skeleton({"type": "object", "properties": {"a": {"type": "object", "properties": {
        "b": {"type": "string", "default": "x"}}}}}) == {"properties": {"a": {"properties": {"b": {"default": "x"}}}}}


def test_fields_a_changed_schema_no_longer_specifies_are_pruned_on_read(srv):  # noqa: F811
    coll, crd_url = _stored_before_defaults(srv)
    crd = requests.get(crd_url).json()
    spec = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    del spec["properties"]["size"]
    del spec["properties"]["ports"]["items"]["properties"]["port"]
    assert requests.put(crd_url, json=crd).status_code == 200
    assert requests.get(f"{coll}/g1").json()["spec"] == {"ports": [{}]}
    assert [i["spec"] for i in requests.get(coll).json()["items"]] == [{"ports": [{}]}]


def test_reads_of_a_crd_whose_schema_never_changed_are_not_decoded_again():
    """The GET/LIST fast path: a CRD at generation 1 holds only objects written under its schema."""
    crd = {"metadata": {"name": "gadgets.x.example.com", "resourceVersion": "5", "generation": 1},
           "spec": {"group": "x.example.com", "scope": "Namespaced", "names": {"plural": "gadgets", "kind": "Gadget"},
                    "versions": [{"name": "v1", "served": True, "storage": True,
                                  "schema": {"openAPIV3Schema": with_added_defaults(json.loads(json.dumps(SCHEMA)))}}]}}
    assert not hasattr(CustomResourceStore(crd, MemoryStore()), "present")
    crd["metadata"]["generation"] = 2
    assert CustomResourceStore(crd, MemoryStore()).present is not None
