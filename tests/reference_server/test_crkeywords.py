"""A custom resource schema's value keywords (registry/crkeywords.py: kube-openapi's string, number, slice and
object validators, their errors as apiextensions-apiserver's `kubeOpenAPIResultToFieldErrors` turns them into
field errors): maxLength is `Too long`, maxItems/maxProperties `Too many`, the others `Invalid value` with
kube-openapi's message; ratcheted on update as every schema error."""
from __future__ import annotations

import json

import pytest
import requests

from conformance.reference_server.registry import crschema
from conformance.reference_server.registry.crkeywords import go_v

from .test_crd_rules import CRDS, MERGE, gadget, refused, served, spec_schema, srv  # noqa: F401 (srv: fixture)

SCHEMA = {"type": "object", "properties": {
    "s": {"type": "string", "maxLength": 3, "minLength": 2, "pattern": "^a"},
    "n": {"type": "integer", "maximum": 10, "minimum": 2, "multipleOf": 3},
    "x": {"type": "integer", "maximum": 10, "exclusiveMaximum": True, "minimum": 0, "exclusiveMinimum": True},
    "f": {"type": "number", "maximum": 1.5, "exclusiveMaximum": True, "multipleOf": 0.5},
    "l": {"type": "array", "maxItems": 2, "minItems": 1, "uniqueItems": True, "items": {"type": "integer"}},
    "m": {"type": "object", "maxProperties": 1, "minProperties": 1, "additionalProperties": {"type": "string"}}}}


@pytest.mark.parametrize("obj, errors", [
    ({"s": "abcd"}, ["s: Too long: may not be more than 3 bytes"]),
    ({"s": "ab"}, []),
    ({"s": "b"}, ['s: Invalid value: "b": s in body should be at least 2 chars long',
                  "s: Invalid value: \"b\": s in body should match '^a'"]),
    ({"s": "äbc"}, ["s: Invalid value: \"äbc\": s in body should match '^a'"]),  # 3 runes: not too long
    ({"n": 12}, ["n: Invalid value: 12: n in body should be less than or equal to 10"]),
    ({"n": 1}, ["n: Invalid value: 1: n in body should be a multiple of 3",
                "n: Invalid value: 1: n in body should be greater than or equal to 2"]),
    ({"n": 9}, []),
    ({"x": 10}, ["x: Invalid value: 10: x in body should be less than 10"]),
    ({"x": 0}, ["x: Invalid value: 0: x in body should be greater than 0"]),
    ({"f": 1.5}, ["f: Invalid value: 1.5: f in body should be less than 1.5"]),
    ({"f": 0.7}, ["f: Invalid value: 0.7: f in body should be a multiple of 0.5"]),
    ({"l": [1, 2, 1]}, ["l: Too many: 3: must have at most 2 items",
                        'l: Invalid value: "": l in body shouldn\'t contain duplicates']),
    ({"l": []}, ["l: Invalid value: 0: l in body should have at least 1 items"]),
    ({"m": {"a": "1", "b": "2"}}, ["m: Too many: 1: must have at most 1 items"]),  # kube-openapi's value: the max
    ({"m": {}}, ["m: Invalid value: 1: m in body should have at least 1 properties"]),
])
def test_each_keyword_with_upstreams_message(obj, errors):
    assert [str(e) for e in crschema.validate(obj, SCHEMA)] == errors


def test_error_reasons():
    errs = crschema.validate({"s": "abcd", "l": [1, 2, 3], "n": 12}, SCHEMA)
    assert [e.type for e in errs] == ["FieldValueTooLong", "FieldValueTooMany", "FieldValueInvalid"]


@pytest.mark.parametrize("number, text", [(1.0, "1"), (0.5, "0.5"), (1e6, "1e+06"), (123456.0, "123456"),
                                          (1234567.0, "1.234567e+06"), (0.00001, "1e-05"), (-2.5, "-2.5"), (7, "7")])
def test_limits_print_as_gos_v(number, text):
    assert go_v(number) == text


def test_over_http_and_ratcheted(srv):  # noqa: F811
    coll = served(srv, spec_schema({"name": {"type": "string"}, "size": {"type": "integer"}}))
    assert requests.post(coll, json=gadget(coll, "g1", {"name": "toolong", "size": 1})).status_code == 201
    group = coll.split("/apis/")[1].split("/")[0]
    crd_url = f"{srv.url}{CRDS}/gadgets.{group}"
    crd = requests.get(crd_url).json()
    props = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
    props["name"]["maxLength"] = 4
    props["size"]["minimum"] = 2
    assert requests.put(crd_url, json=crd).status_code == 200
    message, causes = refused(requests.post(coll, json=gadget(coll, "g2", {"name": "toolong", "size": 2})))
    assert message == "spec.name: Too long: may not be more than 4 bytes"
    assert causes == [{"reason": "FieldValueTooLong", "message": "Too long: may not be more than 4 bytes",
                       "field": "spec.name"}]
    # g1 keeps its too-long name while it changes something else; its size must now meet the minimum
    message, _ = refused(requests.patch(f"{coll}/g1", data=json.dumps({"spec": {"size": 0}}), headers=MERGE))
    assert message == "spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 2"
    ok = requests.patch(f"{coll}/g1", data=json.dumps({"spec": {"size": 3}}), headers=MERGE)
    assert ok.status_code == 200 and ok.json()["spec"] == {"name": "toolong", "size": 3}


def test_patterns_are_gos_regexp():
    """kube-openapi's `validate.Pattern` with Go's regexp: `$` is the end of the text; a pattern Go refuses (only a
    stored CRD's can be) fails every value, naming Go's error."""
    assert crschema.validate({"s": "a\n"}, {"type": "object", "properties": {"s": {"type": "string",
                                                                             "pattern": "^a$"}}}) != []
    schema = {"type": "object", "properties": {"s": {"type": "string", "pattern": "a{1001}"}}}
    assert [str(e) for e in crschema.validate({"s": "a"}, schema)] == [
        "s: Invalid value: \"a\": s in body should match 'a{1001}, but pattern is invalid: error parsing regexp: "
        "invalid repeat count: `{1001}`'"]
