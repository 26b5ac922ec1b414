"""Ratcheted CRD rules (registry/crdrules/validator.py, CRDValidationRatcheting): the error of a rule without
`oldSelf` on an unchanged node is sent as a warning (`warning.AddWarning(ctx, "", e.Error())` in
apiextensions-apiserver's `schema/cel/validation.go`): a `Warning: 299 - "<path>: <error body>"` header on the
answer, a success or an error alike, which kubectl prints as `Warning: <text>`."""
from __future__ import annotations

import json

import requests

from conformance.reference_server.registry import crdrules
from conformance.reference_server.registry.crdrules.validator import validator_for
from conformance.reference_server.warning import RECORDER

from .test_crd_rules import CRDS, MERGE, gadget, refused, served, spec_schema, srv  # noqa: F401 (srv: fixture)

WARNING_A = 'spec.a: Invalid value: "integer": failed rule: self < 5'


def _tighten(base: str, url: str, rules: dict[str, list[dict[str, str]]]) -> None:
    """Add rules to the stored CRD's spec properties, after objects were stored."""
    current = requests.get(url).json()
    spec = current["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    for name, added in rules.items():
        spec["properties"][name]["x-kubernetes-validations"] = added
    assert requests.put(url, json=current).status_code == 200


def _served_with_violation(srv) -> tuple[str, str]:  # noqa: F811
    coll = served(srv, spec_schema({"a": {"type": "integer"}, "b": {"type": "integer"}}))
    assert requests.post(coll, json=gadget(coll, "g1", {"a": 10, "b": 1})).status_code == 201
    group = coll.split("/apis/")[1].split("/")[0]
    crd_url = f"{srv.url}{CRDS}/gadgets.{group}"
    _tighten(srv.url, crd_url, {"a": [{"rule": "self < 5"}]})
    return coll, crd_url


def test_an_unchanged_violation_is_a_warning(srv):  # noqa: F811
    coll, _ = _served_with_violation(srv)
    r = requests.patch(f"{coll}/g1", data=json.dumps({"spec": {"b": 2}}), headers=MERGE)
    assert r.status_code == 200, r.text
    assert r.raw.headers.getlist("Warning") == ['299 - "spec.a: Invalid value: \\"integer\\": failed rule: self < 5"']
    put = requests.put(f"{coll}/g1", json={**r.json(), "spec": {"a": 10, "b": 3}})
    assert put.status_code == 200 and put.raw.headers.getlist("Warning") == r.raw.headers.getlist("Warning")
    # a changed violation is an error, and no warning
    message, _ = refused(bad := requests.patch(f"{coll}/g1", data=json.dumps({"spec": {"a": 11}}), headers=MERGE))
    assert message == WARNING_A and "Warning" not in bad.headers
    clean = requests.patch(f"{coll}/g1", data=json.dumps({"spec": {"a": 1}}), headers=MERGE)
    assert clean.status_code == 200 and "Warning" not in clean.headers


def test_the_warning_goes_out_with_an_error_too(srv):  # noqa: F811
    coll, crd_url = _served_with_violation(srv)
    _tighten(srv.url, crd_url, {"a": [{"rule": "self < 5"}], "b": [{"rule": "self < 100", "message": "b too big"}]})
    r = requests.patch(f"{coll}/g1", data=json.dumps({"spec": {"b": 200}}), headers=MERGE)
    message, _ = refused(r)
    assert message == 'spec.b: Invalid value: "integer": b too big'
    assert r.raw.headers.getlist("Warning") == ['299 - "spec.a: Invalid value: \\"integer\\": failed rule: self < 5"']


def test_transition_rules_are_not_ratcheted(srv):  # noqa: F811
    coll = served(srv, spec_schema({"a": {"type": "integer"}, "b": {"type": "integer"}}))
    assert requests.post(coll, json=gadget(coll, "g1", {"a": 10, "b": 1})).status_code == 201
    group = coll.split("/apis/")[1].split("/")[0]
    _tighten(srv.url, f"{srv.url}{CRDS}/gadgets.{group}", {"a": [{"rule": "self == oldSelf && self < 5"}]})
    r = requests.patch(f"{coll}/g1", data=json.dumps({"spec": {"b": 2}}), headers=MERGE)
    message, _ = refused(r)
    assert message == 'spec.a: Invalid value: "integer": failed rule: self == oldSelf && self < 5'
    assert "Warning" not in r.headers


def test_without_a_recorder_a_warning_goes_nowhere():
    """A controller's own write has no request: the ratcheted error is dropped, as upstream's warning is."""
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "a": {"type": "integer", "x-kubernetes-validations": [{"rule": "self < 5"}]}, "b": {"type": "integer"}}}}}
    crd = {"spec": {"names": {"kind": "Gadget"}}}
    node = validator_for(crd, schema)
    old = {"apiVersion": "x/v1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": {"a": 10, "b": 1}}
    new = {**old, "spec": {"a": 10, "b": 2}}
    assert crdrules.validate(node, schema, new, old, []) == []
    recorded: list[str] = []
    token = RECORDER.set(recorded)
    try:
        assert crdrules.validate(node, schema, new, old, []) == []
    finally:
        RECORDER.reset(token)
    assert recorded == [WARNING_A]



def test_a_warning_no_header_can_carry_is_dropped(srv):  # noqa: F811
    """A messageExpression may hold a carriage return: never written into a header (200 / 422, not a 500).
    (`format`, not `+ string(self)`: 1.33's cost estimate refuses concatenating an unbounded string.)"""
    coll = served(srv, spec_schema({"a": {"type": "integer"}, "b": {"type": "integer"}}))
    assert requests.post(coll, json=gadget(coll, "g1", {"a": 10, "b": 1})).status_code == 201
    group = coll.split("/apis/")[1].split("/")[0]
    _tighten(srv.url, f"{srv.url}{CRDS}/gadgets.{group}", {
        "a": [{"rule": "self < 5", "messageExpression": "'a is\\r%d'.format([self])"}],
        "b": [{"rule": "self < 100", "message": "b too big"}]})
    ok = requests.patch(f"{coll}/g1", data=json.dumps({"spec": {"b": 2}}), headers=MERGE)
    assert ok.status_code == 200 and "Warning" not in ok.headers
    message, _ = refused(bad := requests.patch(f"{coll}/g1", data=json.dumps({"spec": {"b": 200}}), headers=MERGE))
    assert message == 'spec.b: Invalid value: "integer": b too big' and "Warning" not in bad.headers
