"""Ratcheting of a custom resource's schema validation (registry/crschema.py, upstream's
`apiserver/validation/ratcheting.go` under CRDValidationRatcheting, GA in 1.33): on update and status update, an
error under a node equal to the old value it correlates with is dropped, without a warning; a changed value is
refused. Properties correlate by name, `x-kubernetes-list-type: map` items by their keys, other list items not."""
from __future__ import annotations

import json
from typing import Any

import requests

from conformance.reference_server.registry import crschema

from .test_crd_rules import CRDS, MERGE, gadget, refused, served, spec_schema, srv  # noqa: F401 (srv: fixture)

ITEM = {"type": "object", "properties": {"name": {"type": "string"}, "ip": {"type": "string"}}}
SCHEMA: dict[str, Any] = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
    "size": {"type": "integer"},
    "mode": {"type": "string"},
    "byName": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
               "items": ITEM},
    "atomic": {"type": "array", "items": {"type": "string"}},
    "labels": {"type": "object", "additionalProperties": {"type": "string"}}}}}}


def _tight() -> dict[str, Any]:
    """SCHEMA after a tightening: formats and enums that the stored values break."""
    tight = json.loads(json.dumps(SCHEMA))
    spec = tight["properties"]["spec"]["properties"]
    spec["mode"]["enum"] = ["A", "B"]
    spec["byName"]["items"]["properties"]["ip"]["format"] = "ipv4"
    spec["atomic"]["items"]["format"] = "ipv4"
    spec["labels"]["additionalProperties"]["format"] = "date"
    return tight


OLD = {"apiVersion": "x/v1", "kind": "Gadget", "metadata": {"name": "g", "resourceVersion": "1"}, "spec": {
    "size": 1, "mode": "C", "byName": [{"name": "a", "ip": "bad"}, {"name": "b", "ip": "bad"}],
    "atomic": ["bad"], "labels": {"x": "bad"}}}


def _errs(new_spec: dict[str, Any], old: dict[str, Any] | None = OLD) -> list[str]:
    new = {**OLD, "spec": new_spec}
    return [str(e) for e in crschema.validate_custom_resource(new, _tight(), old)]


def test_unchanged_invalid_values_are_kept():
    assert _errs({**OLD["spec"], "size": 2}) == []


def test_without_the_old_object_every_error_counts():
    assert len(_errs(OLD["spec"], None)) == 5


def test_a_changed_value_is_refused():
    assert _errs({**OLD["spec"], "mode": "D"}) == ['spec.mode: Unsupported value: "D": supported values: "A", "B"']
    assert _errs({**OLD["spec"], "labels": {"x": "bad", "y": "worse"}}) == [
        'spec.labels.y: Invalid value: "worse": spec.labels.y in body must be of type date: "worse"']


def test_map_list_items_correlate_by_their_keys():
    # reordered and one changed: only the changed item's error; a new key is not correlated
    spec = {**OLD["spec"], "byName": [{"name": "b", "ip": "bad"}, {"name": "a", "ip": "changed"},
                                      {"name": "c", "ip": "new"}]}
    assert _errs(spec) == [
        'spec.byName[1].ip: Invalid value: "changed": spec.byName[1].ip in body must be of type ipv4: "changed"',
        'spec.byName[2].ip: Invalid value: "new": spec.byName[2].ip in body must be of type ipv4: "new"']


def test_atomic_list_items_do_not_correlate():
    # an unchanged item of a changed atomic list is validated again
    assert _errs({**OLD["spec"], "atomic": ["bad", "1.2.3.4"]}) == [
        'spec.atomic[0]: Invalid value: "bad": spec.atomic[0] in body must be of type ipv4: "bad"']


def test_a_newly_required_field_is_ratcheted_only_while_its_parent_is_unchanged():
    tight = _tight()
    tight["properties"]["spec"]["required"] = ["replicas"]
    old = {**OLD, "spec": {"size": 1}}
    assert crschema.validate_custom_resource({**old, "metadata": {"name": "g", "labels": {"a": "b"}}}, tight,
                                             old) == []
    assert [str(e) for e in crschema.validate_custom_resource({**old, "spec": {"size": 2}}, tight, old)] == [
        "spec.replicas: Required value"]


def _stored_then_tightened(srv) -> tuple[str, str]:  # noqa: F811
    coll = served(srv, spec_schema({"mode": {"type": "string"}, "size": {"type": "integer"},
                                    "when": {"type": "string"}}, status={"type": "object", "properties": {
                                        "phase": {"type": "string"}, "at": {"type": "string"}}}))
    made = requests.post(coll, json=gadget(coll, "g1", {"mode": "C", "size": 1, "when": "later"}))
    assert made.status_code == 201, made.text
    assert requests.put(f"{coll}/g1/status", json={**made.json(), "status": {"phase": "x", "at": "soon"}}
                        ).status_code == 200
    group = coll.split("/apis/")[1].split("/")[0]
    crd_url = f"{srv.url}{CRDS}/gadgets.{group}"
    crd = requests.get(crd_url).json()
    schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    schema["properties"]["spec"]["properties"]["mode"]["enum"] = ["A", "B"]
    schema["properties"]["spec"]["properties"]["when"]["format"] = "date-time"
    schema["properties"]["status"]["properties"]["at"]["format"] = "date-time"
    assert requests.put(crd_url, json=crd).status_code == 200
    return coll, crd_url


def test_an_update_leaving_invalid_values_alone_is_accepted_without_a_warning(srv):  # noqa: F811
    coll, _ = _stored_then_tightened(srv)
    r = requests.patch(f"{coll}/g1", data=json.dumps({"spec": {"size": 2}}), headers=MERGE)
    assert r.status_code == 200, r.text
    assert r.json()["spec"] == {"mode": "C", "size": 2, "when": "later"}
    assert "Warning" not in r.headers
    message, _ = refused(requests.patch(f"{coll}/g1", data=json.dumps({"spec": {"when": "sooner"}}),
                                        headers=MERGE))
    assert message == 'spec.when: Invalid value: "sooner": spec.when in body must be of type date-time: "sooner"'
    message, _ = refused(requests.patch(f"{coll}/g1", data=json.dumps({"spec": {"mode": "D"}}), headers=MERGE))
    assert message == 'spec.mode: Unsupported value: "D": supported values: "A", "B"'
    # a new object is not ratcheted
    message, _ = refused(requests.post(coll, json=gadget(coll, "g2", {"mode": "C"})))
    assert message == 'spec.mode: Unsupported value: "C": supported values: "A", "B"'


def test_the_status_subresource_ratchets_too(srv):  # noqa: F811
    coll, _ = _stored_then_tightened(srv)
    status = f"{coll}/g1/status"
    r = requests.patch(status, data=json.dumps({"status": {"phase": "y"}}), headers=MERGE)
    assert r.status_code == 200, r.text
    assert "Warning" not in r.headers
    message, _ = refused(requests.patch(status, data=json.dumps({"status": {"at": "never"}}), headers=MERGE))
    assert message == 'status.at: Invalid value: "never": status.at in body must be of type date-time: "never"'
