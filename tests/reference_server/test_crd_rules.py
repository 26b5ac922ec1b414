"""CRDs' `x-kubernetes-validations`: compiled when the CRD is written (a bad rule is refused with
apiextensions-apiserver's path and words), enforced on custom resource writes (root, nested objects, list items,
map values; transition rules on update only; messageExpression, reason, fieldPath; /status; ratcheting), and seen
by the official `kubernetes` client as a 422 with the rule's message."""
from __future__ import annotations

import copy
import json
from typing import Any

import pytest
import requests

from conformance.reference_server import apierrors
from conformance.reference_server.embedded import RunningServer
from conformance.reference_server.registry import crdrules

from .conftest import unique
from .crds import api_version_of
from tests.reference_server.crds import create_crd
from tests.reference_server.ownserver import own_server

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
MERGE = {"Content-Type": "application/merge-patch+json"}
ROOT = "spec.validation.openAPIV3Schema"
NIL_REASON = "Reason:(*apiextensions.FieldValueErrorReason)(nil)"


srv = own_server()


def crd(group: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"gadgets.{group}"},
            "spec": {"group": group, "scope": "Namespaced", "names": {"plural": "gadgets", "kind": "Gadget"},
                     "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
                                   "schema": {"openAPIV3Schema": schema}}]}}


def spec_schema(props: dict[str, Any], rules: list[dict[str, Any]] | None = None,
                root_rules: list[dict[str, Any]] | None = None, status: dict[str, Any] | None = None) -> dict:
    spec: dict[str, Any] = {"type": "object", "properties": props}
    if rules:
        spec["x-kubernetes-validations"] = rules
    schema: dict[str, Any] = {"type": "object", "properties": {"spec": spec}}
    if status:
        schema["properties"]["status"] = status
    if root_rules:
        schema["x-kubernetes-validations"] = root_rules
    return schema


def write_crd(srv: RunningServer, schema: dict[str, Any]) -> requests.Response:
    return create_crd(requests, srv.url, crd(f"{unique('g')}.example.com", schema))


def served(srv: RunningServer, schema: dict[str, Any]) -> str:
    """A CRD with `schema` and a namespace: the collection URL of its gadgets."""
    r = write_crd(srv, schema)
    assert r.status_code == 201, r.text
    group = r.json()["spec"]["group"]
    ns = unique("cel")
    assert requests.post(f"{srv.url}/api/v1/namespaces", json={"metadata": {"name": ns}}).status_code == 201
    return f"{srv.url}/apis/{group}/v1/namespaces/{ns}/gadgets"


def gadget(coll: str, name: str, spec: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"apiVersion": api_version_of(coll), "kind": "Gadget", "metadata": {"name": name}, "spec": spec, **extra}


def refused(r: requests.Response) -> tuple[str, list[dict[str, str]]]:
    """The Status of a 422: its message after `is invalid: `, and its causes."""
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["reason"] == "Invalid"
    return body["message"].split(" is invalid: ", 1)[1], body["details"].get("causes", [])


# ---- the CRD write --------------------------------------------------------------------------------------
def test_a_rule_naming_an_undefined_field_is_refused_with_upstreams_rendering(srv):
    schema = spec_schema({"replicas": {"type": "integer"}}, [{"rule": "self.replicas2 > 0"}])
    message, causes = refused(write_crd(srv, schema))
    assert message == (
        f'{ROOT}.properties[spec].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{{'
        f'Rule:"self.replicas2 > 0", Message:"", MessageExpression:"", {NIL_REASON}, FieldPath:"", '
        "OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:5: undefined field 'replicas2'\n"
        " | self.replicas2 > 0\n | ....^")
    assert causes[0]["reason"] == "FieldValueInvalid"


def test_a_rule_with_a_syntax_error_is_refused_in_cel_gos_words(srv):
    """cel-go's parser's words (cel/syntax.py; cel-rust said `no viable alternative at input '.true'`)."""
    schema = spec_schema({"replicas": {"type": "integer"}}, [{"rule": "self.true == 1"}])
    message, causes = refused(write_crd(srv, schema))
    assert message == (
        f'{ROOT}.properties[spec].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{{'
        f'Rule:"self.true == 1", Message:"", MessageExpression:"", {NIL_REASON}, FieldPath:"", '
        "OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:6: Syntax error: mismatched input "
        "'true' expecting IDENTIFIER\n | self.true == 1\n | .....^")
    assert causes[0]["reason"] == "FieldValueInvalid"


@pytest.mark.parametrize("rule, at, detail", [
    ({"rule": "self.replicas"}, "rule", "cel expression must evaluate to a bool"),
    ({"rule": "self.replicas +"}, "rule", "compilation failed: ERROR: <input>:1:16: Syntax error"),
    ({"rule": "self.replicas > 'a'"}, "rule",
     "compilation failed: ERROR: <input>:1:15: found no matching overload for '_>_' applied to '(int, string)'"),
    ({"rule": "self.replicas > 0", "messageExpression": "self.replicas"}, "messageExpression",
     "messageExpression must evaluate to a string"),
    ({"rule": "self.replicas > 0", "messageExpression": "self.nope"}, "messageExpression",
     "messageExpression compilation failed: ERROR: <input>:1:5: undefined field 'nope'"),
    # the base environment's AST validators (environment/base.go, since 1.29) judge CRD rules' literals too
    ({"rule": "string(self.replicas).matches('[')"}, "rule",
     "compilation failed: ERROR: <input>:1:31: invalid matches argument"),
    ({"rule": "duration('1x') > duration('1s')"}, "rule",
     "compilation failed: ERROR: <input>:1:10: invalid duration argument"),
    ({"rule": "self.replicas in [1, 'a']"}, "rule",
     "compilation failed: ERROR: <input>:1:22: expected type 'int' but found 'string'"),
])
def test_rules_that_do_not_compile_are_refused(srv, rule, at, detail):
    message, _ = refused(write_crd(srv, spec_schema({"replicas": {"type": "integer"}}, [rule])))
    prefix = f"{ROOT}.properties[spec].x-kubernetes-validations[0].{at}: Invalid value: apiextensions.ValidationRule{{"
    assert message.startswith(prefix), message
    assert detail in message


@pytest.mark.parametrize("props, rules, expected", [
    ({"a": {"type": "integer"}}, [{"rule": "  "}],
     f"{ROOT}.properties[spec].x-kubernetes-validations[0].rule: Required value: rule is not specified"),
    ({"a": {"type": "integer"}}, [{"rule": "true", "reason": "Nope"}],
     f'{ROOT}.properties[spec].x-kubernetes-validations[0].reason: Unsupported value: "Nope": supported values: '
     '"FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"'),
    ({"a": {"type": "integer"}}, [{"rule": "true", "fieldPath": ".b"}],
     f'{ROOT}.properties[spec].x-kubernetes-validations[0].fieldPath: Invalid value: ".b": fieldPath must be a '
     "valid path"),
    ({"a": {"type": "integer"}}, [{"rule": "true", "optionalOldSelf": True}],
     f"{ROOT}.properties[spec].x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be set if "
     "oldSelf is not used in rule"),
    ({"a": {"type": "array", "maxItems": 10, "items": {"type": "string", "maxLength": 10,
                                                       "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}},
     None,
     f'{ROOT}.properties[spec].properties[a].items.x-kubernetes-validations[0].rule: Invalid value: '
     f'"self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within '
     f"{ROOT}.properties[spec].properties[a]"),
])
def test_rule_fields_are_checked(srv, props, rules, expected):
    message, _ = refused(write_crd(srv, spec_schema(props, rules)))
    assert message == expected


def test_a_crd_update_adding_a_bad_rule_is_refused(srv):
    r = write_crd(srv, spec_schema({"a": {"type": "integer"}}))
    assert r.status_code == 201
    # read again: the naming and establishing controllers' status writes came after the create
    body = requests.get(f"{srv.url}{CRDS}/{r.json()['metadata']['name']}").json()
    body["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["x-kubernetes-validations"] = [
        {"rule": "self.b > 1"}]
    message, _ = refused(requests.put(f"{srv.url}{CRDS}/{body['metadata']['name']}", json=body))
    assert message.endswith("compilation failed: ERROR: <input>:1:5: undefined field 'b'\n | self.b > 1\n | ....^")


# ---- custom resources -----------------------------------------------------------------------------------
def test_root_rule_sees_metadata_name_and_fails_at_nil(srv):
    coll = served(srv, spec_schema({"a": {"type": "integer"}}, root_rules=[
        {"rule": "self.metadata.name.startsWith('g')", "message": "name must start with g"}]))
    message, causes = refused(requests.post(coll, json=gadget(coll, "x", {"a": 1})))
    assert message == '<nil>: Invalid value: "object": name must start with g'
    assert causes == [{"reason": "FieldValueInvalid", "message": 'Invalid value: "object": name must start with g',
                       "field": "<nil>"}]
    assert requests.post(coll, json=gadget(coll, "g1", {"a": 1})).status_code == 201


def test_nested_list_item_and_map_value_rules(srv):
    coll = served(srv, spec_schema({
        "replicas": {"type": "integer", "x-kubernetes-validations": [{"rule": "self >= 0"}]},
        "ports": {"type": "array", "items": {"type": "object", "properties": {"port": {"type": "integer"}},
                                             "x-kubernetes-validations": [{"rule": "self.port < 65536",
                                                                           "message": "port too large"}]}},
        "labels": {"type": "object", "additionalProperties": {
            "type": "string", "x-kubernetes-validations": [{"rule": "self.size() <= 3"}]}},
    }, [{"rule": "!has(self.ports) || size(self.ports) <= 2", "message": "at most two ports"}]))
    spec = {"replicas": -1, "ports": [{"port": 80}, {"port": 70000}, {"port": 1}], "labels": {"a": "long", "b": "ok"}}
    message, causes = refused(requests.post(coll, json=gadget(coll, "g1", spec)))
    # (the schema's properties in the stored CRD's order: a Go map's, sorted; upstream's follow Go's map order)
    assert message == ('[spec: Invalid value: "object": at most two ports, '
                       'spec.labels[a]: Invalid value: "string": failed rule: self.size() <= 3, '
                       'spec.ports[1]: Invalid value: "object": port too large, '
                       'spec.replicas: Invalid value: "integer": failed rule: self >= 0]')
    assert [c["field"] for c in causes] == ["spec", "spec.labels[a]", "spec.ports[1]", "spec.replicas"]
    ok = {"replicas": 1, "ports": [{"port": 80}], "labels": {"a": "ok"}}
    assert requests.post(coll, json=gadget(coll, "g1", ok)).status_code == 201


def test_message_expression_reason_and_field_path(srv):
    coll = served(srv, spec_schema({"min": {"type": "integer"}, "max": {"type": "integer"}}, [
        {"rule": "self.min <= self.max", "messageExpression": "'min %d exceeds max'.format([self.min])",
         "reason": "FieldValueForbidden", "fieldPath": ".min"},
        {"rule": "self.max < 100", "reason": "FieldValueRequired", "message": "max must be small"},
        {"rule": "self.max != 50", "reason": "FieldValueDuplicate"},
    ]))
    message, causes = refused(requests.post(coll, json=gadget(coll, "g1", {"min": 5, "max": 1})))
    assert message == "spec.min: Forbidden: min 5 exceeds max"
    assert causes[0]["reason"] == "FieldValueForbidden"
    message, causes = refused(requests.post(coll, json=gadget(coll, "g1", {"min": 5, "max": 500})))
    assert message == "spec: Required value: max must be small"
    message, causes = refused(requests.post(coll, json=gadget(coll, "g1", {"min": 5, "max": 50})))
    assert message == 'spec: Duplicate value: "object"' and causes[0]["reason"] == "FieldValueDuplicate"


def test_evaluation_error_is_reported_with_the_rule(srv):
    coll = served(srv, spec_schema({"a": {"type": "integer"}, "b": {"type": "integer"}}, [{"rule": "self.b > 0"}]))
    message, _ = refused(requests.post(coll, json=gadget(coll, "g1", {"a": 1})))
    assert message == 'spec: Invalid value: "object": no such key: b evaluating rule: self.b > 0'


def test_transition_rule_runs_on_update_only(srv):
    coll = served(srv, spec_schema({"name": {"type": "string", "x-kubernetes-validations": [
        {"rule": "self == oldSelf", "message": "name is immutable"}]}, "size": {"type": "integer"}}))
    assert requests.post(coll, json=gadget(coll, "g1", {"name": "a", "size": 1})).status_code == 201
    ok = requests.patch(f"{coll}/g1", data=json.dumps({"spec": {"size": 2}}), headers=MERGE)
    assert ok.status_code == 200, ok.text
    message, _ = refused(requests.patch(f"{coll}/g1", data=json.dumps({"spec": {"name": "b"}}), headers=MERGE))
    assert message == 'spec.name: Invalid value: "string": name is immutable'
    # a value that was absent has no oldSelf: the rule does not run
    assert requests.post(coll, json=gadget(coll, "g2", {"size": 1})).status_code == 201
    assert requests.patch(f"{coll}/g2", data=json.dumps({"spec": {"name": "x"}}), headers=MERGE).status_code == 200


def test_optional_old_self_rule_runs_on_create_too(srv):
    coll = served(srv, spec_schema({"n": {"type": "integer"}}, [
        {"rule": "!oldSelf.hasValue() ? self.n == 1 : self.n >= oldSelf.value().n", "optionalOldSelf": True,
         "message": "starts at 1 and never decreases"}]))
    message, _ = refused(requests.post(coll, json=gadget(coll, "g1", {"n": 2})))
    assert message == 'spec: Invalid value: "object": starts at 1 and never decreases'
    assert requests.post(coll, json=gadget(coll, "g1", {"n": 1})).status_code == 201
    assert requests.patch(f"{coll}/g1", data=json.dumps({"spec": {"n": 3}}), headers=MERGE).status_code == 200
    refused(requests.patch(f"{coll}/g1", data=json.dumps({"spec": {"n": 2}}), headers=MERGE))


def test_status_writes_run_the_status_rules(srv):
    coll = served(srv, spec_schema({"a": {"type": "integer"}}, status={
        "type": "object", "properties": {"ready": {"type": "integer"}},
        "x-kubernetes-validations": [{"rule": "self.ready <= 3", "message": "at most 3 ready"}]}))
    created = requests.post(coll, json=gadget(coll, "g1", {"a": 1}))
    assert created.status_code == 201
    obj = created.json()
    obj["status"] = {"ready": 4}
    message, _ = refused(requests.put(f"{coll}/g1/status", json=obj))
    assert message == 'status: Invalid value: "object": at most 3 ready'
    obj["status"] = {"ready": 2}
    assert requests.put(f"{coll}/g1/status", json=obj).status_code == 200


def test_schema_errors_block_the_rules(srv):
    coll = served(srv, spec_schema({"a": {"type": "integer"}}, [{"rule": "self.a > 5"}]))
    message, causes = refused(requests.post(coll, json=gadget(coll, "g1", {"a": "x"})))
    assert message == ('[spec.a: Invalid value: "string": spec.a in body must be of type integer: "string", <nil>: '
                       'Invalid value: "null": some validation rules were not checked because the object was invalid; '
                       "correct the existing errors to complete validation]")
    assert causes[0]["reason"] == "FieldValueTypeInvalid"


def test_ratcheting_keeps_an_unchanged_violation(srv):
    """A rule added after the object was stored: an update that leaves the violating value alone passes
    (CRDValidationRatcheting, GA in 1.33), one that changes it must satisfy the rule."""
    schema = spec_schema({"a": {"type": "integer"}, "b": {"type": "integer"}})
    coll = served(srv, schema)
    assert requests.post(coll, json=gadget(coll, "g1", {"a": 10, "b": 1})).status_code == 201
    group = coll.split("/apis/")[1].split("/")[0]
    url = f"{srv.url}{CRDS}/gadgets.{group}"
    current = requests.get(url).json()
    spec = current["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    spec["properties"]["a"]["x-kubernetes-validations"] = [{"rule": "self < 5"}]
    assert requests.put(url, json=current).status_code == 200
    assert requests.patch(f"{coll}/g1", data=json.dumps({"spec": {"b": 2}}), headers=MERGE).status_code == 200
    message, _ = refused(requests.patch(f"{coll}/g1", data=json.dumps({"spec": {"a": 11}}), headers=MERGE))
    assert message == 'spec.a: Invalid value: "integer": failed rule: self < 5'


def test_escaped_property_names_and_numbers_as_doubles(srv):
    coll = served(srv, spec_schema({"max-size": {"type": "number"}}, [
        {"rule": "self.max__dash__size == 2.0", "message": "must be 2"}]))
    assert requests.post(coll, json=gadget(coll, "g1", {"max-size": 2})).status_code == 201
    message, _ = refused(requests.post(coll, json=gadget(coll, "g2", {"max-size": 3})))
    assert message == 'spec: Invalid value: "object": must be 2'


def test_the_official_client_sees_the_422_and_the_message(srv):
    from kubernetes import client
    coll = served(srv, spec_schema({"replicas": {"type": "integer", "x-kubernetes-validations": [
        {"rule": "self <= 10", "message": "replicas must be at most 10"}]}}))
    group, ns = coll.split("/apis/")[1].split("/")[0], coll.split("/namespaces/")[1].split("/")[0]
    config = client.Configuration(host=srv.url)
    with client.ApiClient(config) as api_client:
        api = client.CustomObjectsApi(api_client)
        with pytest.raises(client.ApiException) as exc:
            api.create_namespaced_custom_object(group, "v1", ns, "gadgets", {
                "apiVersion": f"{group}/v1", "kind": "Gadget", "metadata": {"name": "g1"},
                "spec": {"replicas": 11}})
        assert exc.value.status == 422
        body = json.loads(exc.value.body)
        assert body["message"] == (f'Gadget.{group} "g1" is invalid: spec.replicas: Invalid value: "integer": '
                                   "replicas must be at most 10")
        made = api.create_namespaced_custom_object(group, "v1", ns, "gadgets", {
            "apiVersion": f"{group}/v1", "kind": "Gadget", "metadata": {"name": "g1"}, "spec": {"replicas": 3}})
        assert made["spec"] == {"replicas": 3}


# ---- units ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, escaped", [
    ("foo", "foo"), ("namespace", "__namespace__"), ("a-b.c/d", "a__dash__b__dot__c__slash__d"),
    ("a__b", "a__underscores__b"), ("1a", None), ("a b", None)])
def test_escape(name, escaped):
    assert crdrules.escape(name) == escaped


def test_valid_field_path():
    schema = {"type": "object", "properties": {
        "a": {"type": "object", "properties": {"b.c": {"type": "string"}}},
        "m": {"type": "object", "additionalProperties": {"type": "string"}}}}
    assert crdrules.valid_field_path(".a['b.c']", schema) == "a.b.c"
    assert crdrules.valid_field_path(".m.key", schema) == "m[key]"
    assert crdrules.valid_field_path(".z", schema) is None
    assert crdrules.valid_field_path("a", schema) is None


def test_validators_are_built_once_per_crd_generation():
    schema = spec_schema({"a": {"type": "integer"}}, [{"rule": "self.a > 0"}])
    first = {"metadata": {"uid": unique("u"), "resourceVersion": "1"}}
    built = crdrules.validator_for(first, schema)
    assert built is not None and crdrules.validator_for(first, schema) is built
    later = {"metadata": {**first["metadata"], "resourceVersion": "2"}}
    assert crdrules.validator_for(later, schema) is not built
    errs = crdrules.validate(built, schema, {"metadata": {"name": "x"}, "spec": {"a": 0}}, None, [])
    assert [str(e) for e in errs] == ['spec: Invalid value: "object": failed rule: self.a > 0']
    blocked = crdrules.validate(built, schema, {"spec": {}}, None, [apierrors.field_required("spec.a")])
    assert blocked[0].field == "<nil>"


def test_map_list_items_correlate_by_key_for_transition_rules(srv):
    coll = served(srv, spec_schema({"ports": {
        "type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
        "items": {"type": "object", "required": ["name"],
                  "properties": {"name": {"type": "string"}, "port": {"type": "integer"}},
                  "x-kubernetes-validations": [{"rule": "self.port == oldSelf.port",
                                                "message": "port is immutable"}]}}}))
    assert requests.post(coll, json=gadget(coll, "g1", {"ports": [{"name": "a", "port": 1}]})).status_code == 201
    reordered = {"spec": {"ports": [{"name": "b", "port": 9}, {"name": "a", "port": 1}]}}
    assert requests.patch(f"{coll}/g1", data=json.dumps(reordered), headers=MERGE).status_code == 200
    changed = {"spec": {"ports": [{"name": "b", "port": 9}, {"name": "a", "port": 2}]}}
    message, _ = refused(requests.patch(f"{coll}/g1", data=json.dumps(changed), headers=MERGE))
    assert message == 'spec.ports[1]: Invalid value: "object": port is immutable'


def test_formatted_strings_are_cel_timestamps_durations_and_bytes(srv):
    coll = served(srv, spec_schema({
        "at": {"type": "string", "format": "date-time"}, "day": {"type": "string", "format": "date"},
        "every": {"type": "string", "format": "duration"}, "blob": {"type": "string", "format": "byte"}}, [
        {"rule": "self.at > timestamp('2020-01-01T00:00:00Z')", "message": "at is too early"},
        {"rule": "self.day < timestamp('2030-01-01T00:00:00Z')", "message": "day is too late"},
        {"rule": "self.every <= duration('1h')", "message": "every is too long"},
        {"rule": "size(self.blob) == 3", "message": "blob is not 3 bytes"}]))
    good = {"at": "2021-05-01T10:00:00Z", "day": "2025-01-01", "every": "30m", "blob": "YWJj"}
    assert requests.post(coll, json=gadget(coll, "g1", good)).status_code == 201
    bad = {"at": "2019-05-01T10:00:00Z", "day": "2031-01-01", "every": "2h", "blob": "YWJjZA=="}
    message, _ = refused(requests.post(coll, json=gadget(coll, "g2", bad)))
    assert message == ('[spec: Invalid value: "object": at is too early, spec: Invalid value: "object": day is too '
                       'late, spec: Invalid value: "object": every is too long, spec: Invalid value: "object": blob is '
                       "not 3 bytes]")
    refused(write_crd(srv, spec_schema({"at": {"type": "string", "format": "date-time"}},
                                       [{"rule": "self.at == 'x'"}])))


def test_schema_defaults_are_applied_before_the_rules(srv):
    """Gateway API's rules read defaulted fields (`kind: Service` by default): without the defaults they fail with
    `no such key`."""
    tags = {"type": "object", "additionalProperties": {"type": "string", "default": "none"}}
    coll = served(srv, spec_schema({"refs": {"type": "array", "items": {
        "type": "object", "properties": {"name": {"type": "string"}, "kind": {"type": "string", "default": "Service"},
                                         "port": {"type": "integer"}, "tags": tags},
        "x-kubernetes-validations": [{"rule": "self.kind == 'Service' ? has(self.port) : true",
                                      "message": "Must have port for Service reference"}]}}}))
    made = requests.post(coll, json=gadget(coll, "g1", {"refs": [{"name": "a", "port": 80, "tags": {"t": None}}]}))
    assert made.status_code == 201, made.text
    assert made.json()["spec"]["refs"] == [{"name": "a", "kind": "Service", "port": 80, "tags": {"t": "none"}}]
    message, _ = refused(requests.post(coll, json=gadget(coll, "g2", {"refs": [{"name": "a"}]})))
    assert message == 'spec.refs[0]: Invalid value: "object": Must have port for Service reference'


def test_runtime_errors_in_cel_gos_words(srv):
    coll = served(srv, spec_schema({"n": {"type": "integer"}, "l": {"type": "array", "items": {"type": "integer"}}}, [
        {"rule": "self.n + 9223372036854775807 > 0"}, {"rule": "self.l[3] > 0", "message": "third item positive"}]))
    message, _ = refused(requests.post(coll, json=gadget(coll, "g1", {"n": 1, "l": [1]})))
    assert message == ('[spec: Invalid value: "object": integer overflow evaluating rule: self.n + '
                       '9223372036854775807 > 0, spec: Invalid value: "object": index out of bounds: 3 evaluating '
                       "rule: third item positive]")


# ---- estimated cost at write (registry/crdrules/cost.py; validation_test.go's cases) ----------------------------
HINT = ("(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings "
        "are declared)")


def _keyword_rules(max_items: int) -> dict[str, Any]:
    """validation_test.go "forbid validation rules where cost total exceeds total limit", maxItems as given."""
    keyword = [{"rule": "self.contains('keyword')"}]
    return {"type": "object", "properties": {
        "list": {"type": "array", "maxItems": max_items,
                 "items": {"type": "string", "maxLength": 5000, "x-kubernetes-validations": keyword}},
        "map": {"type": "object", "maxProperties": 1000, "additionalProperties": {
            "type": "string", "maxLength": 5000, "x-kubernetes-validations": keyword}},
        "field": {"type": "integer", "x-kubernetes-validations": [{"rule": "self > 50 && self < 100"}]}}}


def test_rules_over_the_estimated_cost_budgets_are_refused(srv):
    r = create_crd(requests, srv.url, crd(f"{unique('g')}.example.com", _keyword_rules(100000)))
    message, causes = refused(r)
    rule = f"{ROOT}.properties[list].items.x-kubernetes-validations[0].rule"
    contributed = "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"
    assert [(c["field"], c["reason"], c["message"]) for c in causes] == [
        (rule, "FieldValueForbidden", f"Forbidden: estimated rule cost exceeds budget by factor of 20.0x {HINT}"),
        (rule, "FieldValueForbidden", f"Forbidden: {contributed}"),
        (f"{ROOT}.properties[map].additionalProperties.x-kubernetes-validations[0].rule", "FieldValueForbidden",
         f"Forbidden: {contributed}"),
        (ROOT, "FieldValueForbidden", "Forbidden: x-kubernetes-validations estimated rule cost total for entire "
                                      f"OpenAPIv3 schema exceeds budget by factor of 2.0x {HINT}")]
    assert message.startswith(f"[{rule}: Forbidden: estimated rule cost exceeds budget by factor of 20.0x")


def test_bounded_cardinality_and_lengths_keep_rules_within_budget(srv):
    assert create_crd(requests, srv.url, crd(f"{unique('g')}.example.com", _keyword_rules(1000))
                         ).status_code == 201
    nested = {"type": "array", "items": {"type": "object", "additionalProperties": {
        "type": "object", "required": ["key"], "properties": {"key": {"type": "string"}}}},
        "x-kubernetes-validations": [{"rule": "self.all(x, x.all(y, x[y].key == x[y].key))"}]}
    schema = {"type": "object", "properties": {"value": nested}}
    message, causes = refused(create_crd(requests, srv.url, crd(f"{unique('g')}.example.com", schema)))
    assert [c["field"] for c in causes] == [f"{ROOT}.properties[value].x-kubernetes-validations[0].rule"] * 2 + [ROOT]
    bounded = copy.deepcopy(schema)
    bounded["properties"]["value"].update(maxItems=10)
    bounded["properties"]["value"]["items"].update(maxProperties=10)
    bounded["properties"]["value"]["items"]["additionalProperties"]["properties"]["key"].update(maxLength=10)
    assert create_crd(requests, srv.url, crd(f"{unique('g')}.example.com", bounded)).status_code == 201


def test_message_expression_cost_is_checked_without_cardinality(srv):
    """validation_test.go: a messageExpression concatenating unbounded strings."""
    schema = {"type": "object", "properties": {"f": {"type": "array", "items": {"type": "string"},
              "x-kubernetes-validations": [{"rule": "true", "messageExpression":
                                            "self[0] + self[1] + self[2] + self[3] + self[4] + self[5] + self[6] + "
                                            "self[7]"}]}}}
    _, causes = refused(create_crd(requests, srv.url, crd(f"{unique('g')}.example.com", schema)))
    assert [(c["field"], c["message"]) for c in causes] == [
        (f"{ROOT}.properties[f].x-kubernetes-validations[0].messageExpression",
         f"Forbidden: estimated messageExpression cost exceeds budget by factor of 1.101006x {HINT}")]


def test_an_unchanged_schema_is_not_held_to_the_per_expression_limit():
    """`suppressPerExpressionCost`: an update that leaves a version's schema as it was (a CRD written before the
    limit, or by a server that estimates lower) keeps only the per-schema total."""
    old = crd("g.example.com", _keyword_rules(40000))
    new = copy.deepcopy(old)
    new["metadata"]["labels"] = {"touched": "yes"}
    assert [e.field for e in crdrules.validate_crd_rules(new)] == [
        f"{ROOT}.properties[list].items.x-kubernetes-validations[0].rule"]
    assert crdrules.validate_crd_rules(new, old) == []
    changed = copy.deepcopy(new)
    changed["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["field"]["maximum"] = 5
    assert len(crdrules.validate_crd_rules(changed, old)) == 1


def test_per_version_schemas_are_costed_and_spared_each_on_its_own():
    """Versions with different schemas: each its own total, at `spec.versions[i]`; an update spares only the
    version whose schema it leaves unchanged."""
    old = crd("g.example.com", _keyword_rules(40000))
    old["spec"]["versions"].append({**copy.deepcopy(old["spec"]["versions"][0]), "name": "v2", "storage": False})
    old["spec"]["versions"][1]["schema"]["openAPIV3Schema"]["properties"]["field"]["minimum"] = 0
    rule = "schema.openAPIV3Schema.properties[list].items.x-kubernetes-validations[0].rule"
    assert [e.field for e in crdrules.validate_crd_rules(old)] == [f"spec.versions[0].{rule}",
                                                                   f"spec.versions[1].{rule}"]
    new = copy.deepcopy(old)
    new["spec"]["versions"][1]["schema"]["openAPIV3Schema"]["properties"]["field"]["minimum"] = 1
    assert [e.field for e in crdrules.validate_crd_rules(new, old)] == [f"spec.versions[1].{rule}"]


def test_conversions_of_field_values_read_as_cel_go(srv):
    """`duration()`, `timestamp()`, `uint()` of a string field are Go's `time.ParseDuration`, `time.Parse(RFC3339)`
    and `strconv.ParseUint` (cel-go `common/types/string.go`), their failures `type conversion error`;
    `string(double)` is Go's `%g` (cel-rust read `1µs` and `T1:04:05` as errors and `33hmhh9`, `+1` as values,
    and printed 1e21 in full)."""
    coll = served(srv, spec_schema({"every": {"type": "string"}, "at": {"type": "string"},
                                    "count": {"type": "string"}, "ratio": {"type": "number"}}, [
        {"rule": "!has(self.every) || duration(self.every) > duration('0s')"},
        {"rule": "!has(self.at) || timestamp(self.at) > timestamp('2000-01-01T00:00:00Z')"},
        {"rule": "!has(self.count) || uint(self.count) > 0u"},
        {"rule": "!has(self.ratio) || self.ratio < 1.0", "messageExpression": "string(self.ratio)"}]))
    good = {"every": "1µs", "at": "2006-01-02T1:04:05Z", "count": "3"}
    made = requests.post(coll, json=gadget(coll, "g1", good))
    assert made.status_code == 201, made.text
    message, _ = refused(requests.post(coll, json=gadget(coll, "g2", {"every": "33hmhh9", "count": "+1",
                                                                "ratio": 1e21})))
    assert message == ("[spec: Invalid value: \"object\": type conversion error from 'string' to "
                       "'google.protobuf.Duration' evaluating rule: !has(self.every) || duration(self.every) > "
                       "duration('0s'), spec: Invalid value: \"object\": type conversion error from 'string' to 'uint' "
                       "evaluating rule: !has(self.count) || uint(self.count) > 0u, spec: Invalid value: \"object\": "
                       "1e+21]")
    message, _ = refused(requests.post(coll, json=gadget(coll, "g3", {"at": "2006-01-02t15:04:05z"})))
    assert message == ("spec: Invalid value: \"object\": type conversion error from 'string' to "
                       "'google.protobuf.Timestamp' evaluating rule: !has(self.at) || timestamp(self.at) > "
                       "timestamp('2000-01-01T00:00:00Z')")


def test_date_time_and_duration_fields_keep_their_nanoseconds(srv):
    """cel-go reads a `date-time` field with `strfmt.ParseDateTime` and a `duration` one with
    `strfmt.ParseDuration` (apiserver `pkg/cel/common/values.go`), nanoseconds kept: two times 500 ns apart are
    ordered, `1ns` is `duration('1ns')`, and `string()` prints every digit (Python's datetime would stop at the
    microsecond), in lists and maps and through the macros' variables too."""
    coll = served(srv, spec_schema({
        "t1": {"type": "string", "format": "date-time"}, "t2": {"type": "string", "format": "date-time"},
        "d": {"type": "string", "format": "duration"},
        "ts": {"type": "array", "maxItems": 4, "items": {"type": "string", "format": "date-time"}},
        "ds": {"type": "object", "maxProperties": 4,
               "additionalProperties": {"type": "string", "format": "duration"}}}, [
        {"rule": "self.t2 > self.t1", "message": "t2 is not after t1"},
        {"rule": "self.t2 - self.t1 == duration('500ns')", "message": "not 500ns apart"},
        {"rule": "self.d == duration('1ns')", "message": "d is not 1ns"},
        {"rule": "self.ts.all(t, t < self.t2)", "message": "a time is not before t2"},
        {"rule": "self.ds.all(k, self.ds[k] < duration('2us'))", "message": "a duration is too long"}]))
    good = {"t1": "2024-01-01T00:00:00.000000100Z", "t2": "2024-01-01T00:00:00.000000600Z", "d": "1ns",
            "ts": ["2024-01-01T00:00:00.000000599Z"], "ds": {"a": "1999ns"}}
    made = requests.post(coll, json=gadget(coll, "g1", good))
    assert made.status_code == 201, made.text
    bad = {"t1": "2024-01-01T00:00:00.000000600Z", "t2": "2024-01-01T00:00:00.000000100Z", "d": "2ns",
           "ts": ["2024-01-01T00:00:00.000000100Z"], "ds": {"a": "2001ns"}}
    message, _ = refused(requests.post(coll, json=gadget(coll, "g2", bad)))
    assert message == ('[spec: Invalid value: "object": t2 is not after t1, spec: Invalid value: "object": not 500ns '
                       'apart, spec: Invalid value: "object": d is not 1ns, spec: Invalid value: "object": a time is '
                       'not before t2, spec: Invalid value: "object": a duration is too long]')


def test_a_date_time_field_rule_prints_its_nanoseconds(srv):
    """`string(self.at)` of a `date-time` field is Go's RFC3339Nano of the parsed time, every digit kept."""
    coll = served(srv, spec_schema({"at": {"type": "string", "format": "date-time"}}, [
        {"rule": "string(self.at) == '2024-01-01T00:00:00.123456789Z'", "messageExpression": "string(self.at)"}]))
    assert requests.post(coll, json=gadget(coll, "g1", {"at": "2024-01-01T00:00:00.123456789Z"})).status_code == 201
    message, _ = refused(requests.post(coll, json=gadget(coll, "g2", {"at": "2024-01-01T00:00:00.123456780Z"})))
    assert message == 'spec: Invalid value: "object": 2024-01-01T00:00:00.12345678Z'


def test_a_map_is_indexed_by_a_number_of_another_numeric_type(srv):
    """cel-go's map `Find` (`common/types/map.go`) finds a double or uint key as the int it equals (and the reverse);
    a double with a fraction is `no such key`."""
    coll = served(srv, spec_schema({"n": {"type": "number"}}, [
        {"rule": "{1: 'a', 2: 'b'}[dyn(self.n)] == 'b'", "message": "not b"},
        {"rule": "dyn(self.n) in {2u: true} && dyn(uint(self.n)) in {2: true}", "message": "not in"}]))
    assert requests.post(coll, json=gadget(coll, "g1", {"n": 2})).status_code == 201
    message, _ = refused(requests.post(coll, json=gadget(coll, "g2", {"n": 2.5})))
    assert message == ('[spec: Invalid value: "object": no such key: 2.5 evaluating rule: not b, '
                       'spec: Invalid value: "object": not in]')


def test_an_optional_old_self_transition_rule_sees_nanoseconds(srv):
    """`optionalOldSelf: true`: `oldSelf.value().at` is the old time to the nanosecond, so moving `at` back 100 ns
    breaks `self.at >= oldSelf.value().at` (Python's microseconds saw the two as equal)."""
    coll = served(srv, spec_schema({"at": {"type": "string", "format": "date-time"}}, [
        {"rule": "!oldSelf.hasValue() || self.at >= oldSelf.value().at", "optionalOldSelf": True,
         "message": "at moved back"}]))
    assert requests.post(coll, json=gadget(coll, "g1", {"at": "2024-01-01T00:00:00.000000200Z"})).status_code == 201
    message, _ = refused(requests.patch(f"{coll}/g1", json={"spec": {"at": "2024-01-01T00:00:00.000000100Z"}},
                                        headers=MERGE))
    assert message == 'spec: Invalid value: "object": at moved back'


def test_an_object_holding_a_nanosecond_time_compares_whole_as_cel_go(srv):
    """`self == oldSelf` over an object with a `date-time` field: cel-go compares the parsed times (the same instant
    at another offset is equal), not the texts this server hands cel-rust for values finer than a microsecond."""
    coll = served(srv, spec_schema({"at": {"type": "string", "format": "date-time"}, "n": {"type": "integer"}}, [
        {"rule": "self == oldSelf", "message": "spec is immutable"}]))
    assert requests.post(coll, json=gadget(coll, "g1", {"at": "2024-01-01T00:00:00.000000100Z", "n": 1})).status_code \
        == 201
    same = requests.patch(f"{coll}/g1", json={"spec": {"at": "2024-01-01T01:00:00.000000100+01:00"}},
                          headers=MERGE)
    assert same.status_code == 200, same.text
    message, _ = refused(requests.patch(f"{coll}/g1", json={"spec": {"at": "2024-01-01T00:00:00.000000200Z"}},
                                        headers=MERGE))
    assert message == 'spec: Invalid value: "object": spec is immutable'


def test_a_message_expression_formats_a_duration_field_to_the_nanosecond(srv):
    """`'%s'.format([self.d])` prints cel-go's `string()` of the duration (`ext/formatting.go`), every digit."""
    coll = served(srv, spec_schema({"d": {"type": "string", "format": "duration"}}, [
        {"rule": "self.d < duration('1us')", "messageExpression": "'d is %s'.format([self.d])"}]))
    message, _ = refused(requests.post(coll, json=gadget(coll, "g1", {"d": "1000001ns"})))
    assert message == 'spec: Invalid value: "object": d is 0.001000001s'
