"""Schemas accept real-looking objects from the behaviour catalogue and reject broken ones, naming the JSON path."""

from __future__ import annotations

import copy
import json
from typing import Any, Iterator

import pytest

from conformance import schemas
from conformance.schemas import SCHEMA_NAMES, errors, fast, schema, validate, validate_against_openapi

NS = {"kind": "Namespace", "apiVersion": "v1",
      "metadata": {"name": "foo", "uid": "0c8b3a5e-1d2f-4a9e-8f73-0b9d8f2b9c11", "resourceVersion": "812",
                   "creationTimestamp": "2026-11-21T23:50:01Z", "labels": {"kubernetes.io/metadata.name": "foo"},
                   "managedFields": [{"manager": "kubectl", "operation": "Update", "apiVersion": "v1",
                                      "time": "2026-11-21T23:50:01Z", "fieldsType": "FieldsV1", "fieldsV1": {}}]},
      "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}}
TERMINATING = {**NS, "metadata": {**NS["metadata"], "deletionTimestamp": "2026-11-21T23:51:00Z"},
               "status": {"phase": "Terminating", "conditions": [
                   {"type": "NamespaceDeletionDiscoveryFailure", "status": "False",
                    "lastTransitionTime": "2026-11-21T23:51:05Z", "reason": "ResourcesDiscovered",
                    "message": "All resources successfully discovered"}]}}
NOT_FOUND = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
             "message": 'namespaces "foo" not found', "reason": "NotFound",
             "details": {"name": "foo", "kind": "namespaces"}, "code": 404}
INVALID = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
           "message": 'Namespace "Foo" is invalid: metadata.name: Invalid value: "Foo": a lowercase RFC 1123 label',
           "reason": "Invalid", "details": {"name": "Foo", "kind": "Namespace", "causes": [
               {"reason": "FieldValueInvalid", "message": 'Invalid value: "Foo": a lowercase RFC 1123 label',
                "field": "metadata.name"}]}, "code": 422}
DELETED_OK = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
              "details": {"name": "cm", "kind": "configmaps", "uid": "0c8b3a5e"}}
CM = {"kind": "ConfigMap", "apiVersion": "v1",
      "metadata": {"name": "cm", "namespace": "foo", "resourceVersion": "900"}, "data": {"a": "1"},
      "binaryData": {"b": "AAE="}, "immutable": False}

GOOD: list[tuple[str, Any]] = [
    ("Namespace", NS),
    ("Namespace", TERMINATING),
    ("NamespaceList", {"kind": "NamespaceList", "apiVersion": "v1",
                       "metadata": {"resourceVersion": "913", "continue": "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ",
                                    "remainingItemCount": 3},
                       "items": [{"metadata": NS["metadata"], "spec": NS["spec"], "status": NS["status"]}]}),
    ("NamespaceList", {"kind": "NamespaceList", "apiVersion": "v1", "metadata": {"resourceVersion": "1"}, "items": []}),
    ("Status", NOT_FOUND),
    ("Status", INVALID),
    ("Status", DELETED_OK),
    ("Status", {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": "the server does not allow this method on the requested resource",
                "reason": "MethodNotAllowed", "details": {}, "code": 405}),
    ("WatchEvent", {"type": "ADDED", "object": NS}),
    ("WatchEvent", {"type": "DELETED", "object": TERMINATING}),
    ("WatchEvent", {"type": "ERROR", "object": {"kind": "Status", "apiVersion": "v1", "metadata": {},
                                                "status": "Failure", "message": "too old resource version: 123 (456)",
                                                "reason": "Expired", "code": 410}}),
    ("WatchEvent", {"type": "BOOKMARK", "object": {"kind": "Namespace", "apiVersion": "v1",
                                                   "metadata": {"resourceVersion": "12746",
                                                                "annotations": {"k8s.io/initial-events-end": "true"}}}}),
    ("APIVersions", {"kind": "APIVersions", "versions": ["v1"],
                     "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "10.0.0.7:6443"}]}),
    ("APIResourceList", {"kind": "APIResourceList", "groupVersion": "v1", "resources": [
        {"name": "namespaces", "singularName": "namespace", "namespaced": False, "kind": "Namespace",
         "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"], "shortNames": ["ns"],
         "storageVersionHash": "Q3oi5N2YM8M="},
        {"name": "namespaces/finalize", "singularName": "", "namespaced": False, "kind": "Namespace",
         "verbs": ["update"]},
        {"name": "namespaces/status", "singularName": "", "namespaced": False, "kind": "Namespace",
         "verbs": ["get", "patch", "update"]}]}),
    ("ConfigMap", CM),
    ("ConfigMapList", {"kind": "ConfigMapList", "apiVersion": "v1", "metadata": {"resourceVersion": "5"},
                       "items": [{"metadata": CM["metadata"], "data": CM["data"]}]}),
]


def _set(obj: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """Copy of obj with a dotted path set (value DELETE removes the key)."""
    out = copy.deepcopy(obj)
    node = out
    keys = path.split(".")
    for k in keys[:-1]:
        node = node[int(k)] if isinstance(node, list) else node[k]
    if value == "DELETE":
        del node[keys[-1]]
    else:
        node[keys[-1]] = value
    return out


BAD: list[tuple[str, dict[str, Any], str]] = [
    ("Namespace", _set(NS, "metadata.name", "DELETE"), "$.metadata.name"),
    ("Namespace", _set(NS, "kind", "DELETE"), "$.kind"),
    ("Namespace", _set(NS, "kind", "Namespaces"), "$.kind"),
    ("Namespace", _set(NS, "apiVersion", "v2"), "$.apiVersion"),
    ("Namespace", _set(NS, "status.phase", "Deleting"), "$.status.phase"),
    ("Namespace", _set(NS, "spec.finalizers", "kubernetes"), "$.spec.finalizers"),
    ("Namespace", _set(NS, "metadata.labels", {"a": 1}), "$.metadata.labels.a"),
    ("Namespace", _set(NS, "metadata.resourceVersion", 812), "$.metadata.resourceVersion"),
    ("Namespace", _set(TERMINATING, "status.conditions.0.status", "Maybe"), "$.status.conditions[0].status"),
    ("NamespaceList", {"kind": "NamespaceList", "apiVersion": "v1", "metadata": {},
                       "items": [{"metadata": {"name": "a"}}, {"metadata": {}}]}, "$.items[1].metadata.name"),
    ("NamespaceList", {"kind": "NamespaceList", "apiVersion": "v1", "metadata": {}}, "$.items"),
    ("Status", _set(NOT_FOUND, "code", "404"), "$.code"),
    ("Status", _set(NOT_FOUND, "code", "DELETE"), "$.code"),
    ("Status", _set(NOT_FOUND, "kind", "Error"), "$.kind"),
    ("Status", _set(INVALID, "details.causes.0.field", 3), "$.details.causes[0].field"),
    ("WatchEvent", {"type": "CHANGED", "object": NS}, "$.type"),
    ("WatchEvent", {"type": "ERROR", "object": _set(NOT_FOUND, "code", "DELETE")}, "$.object.code"),
    ("WatchEvent", {"type": "BOOKMARK", "object": {"kind": "Namespace", "apiVersion": "v1", "metadata": {}}},
     "$.object.metadata.resourceVersion"),
    ("WatchEvent", {"type": "MODIFIED", "object": _set(NS, "metadata.name", "DELETE")}, "$.object.metadata.name"),
    ("APIVersions", {"kind": "APIVersions", "versions": []}, "$."),
    ("APIResourceList", {"kind": "APIResourceList", "groupVersion": "v1",
                         "resources": [{"name": "namespaces", "namespaced": "no", "kind": "Namespace", "verbs": []}]},
     "$.resources[0]."),
    ("ConfigMap", _set(CM, "data", {"a": 1}), "$.data.a"),
    ("ConfigMapList", {"kind": "ConfigMapList", "apiVersion": "v1", "metadata": {}, "items": [{"data": {}}]},
     "$.items[0].metadata"),
]


@pytest.mark.parametrize(("name", "body"), GOOD, ids=[f"{n}-{i}" for i, (n, _) in enumerate(GOOD)])
def test_accepts_real_objects(name: str, body: Any) -> None:
    validate(body, name)
    assert errors(body, name) == []


@pytest.mark.parametrize(("name", "body", "path"), BAD, ids=[f"{n}-{p}" for n, _, p in BAD])
def test_rejects_broken_objects_naming_the_path(name: str, body: Any, path: str) -> None:
    with pytest.raises(AssertionError) as exc:
        validate(body, name, clause="NS-XX-001")
    message = str(exc.value)
    assert message.startswith(path), message
    assert f"(schema {name}, clause NS-XX-001)" in message


def test_extra_fields_are_allowed() -> None:
    validate({**NS, "x-extension": {"anything": True}, "spec": {"finalizers": [], "future": 1}}, "Namespace")


def test_every_contract_name_has_a_schema() -> None:
    for name in ("Namespace", "NamespaceList", "Status", "WatchEvent", "APIResourceList", "APIVersions",
                 "ConfigMap", "ConfigMapList"):
        assert name in SCHEMA_NAMES
        assert schema(name)["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    with pytest.raises(KeyError, match="known:"):
        schema("Pod")


# --- the target's own OpenAPI ----------------------------------------------------------------------------------

_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
_NS = "io.k8s.api.core.v1.Namespace"


def _v2() -> dict[str, Any]:
    return {"swagger": "2.0", "info": {"title": "Kubernetes", "version": "v1.33.0"}, "paths": {}, "definitions": {
        _META: {"type": "object", "properties": {"name": {"type": "string"},
                                                 "labels": {"type": "object", "additionalProperties": {"type": "string"}}}},
        "io.k8s.apimachinery.pkg.util.intstr.IntOrString": {"type": "string", "format": "int-or-string"},
        _NS: {"type": "object", "properties": {
            "apiVersion": {"type": "string"}, "kind": {"type": "string"},
            "metadata": {"$ref": f"#/definitions/{_META}"},
            "spec": {"$ref": "#/definitions/io.k8s.api.core.v1.NamespaceSpec"},
            "port": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.util.intstr.IntOrString"}},
              "x-kubernetes-group-version-kind": [{"group": "", "kind": "Namespace", "version": "v1"}]},
        "io.k8s.api.core.v1.NamespaceSpec": {"type": "object", "properties": {
            "finalizers": {"type": "array", "items": {"type": "string"}}}},
    }}


def _v3() -> dict[str, Any]:
    return {"openapi": "3.0.0", "info": {"title": "Kubernetes", "version": "v1.33.0"}, "paths": {},
            "components": {"schemas": {
                _META: {"type": "object", "properties": {"name": {"type": "string"},
                                                         "deletionTimestamp": {"type": "string", "nullable": True}}},
                _NS: {"type": "object", "required": ["metadata"], "properties": {
                    "apiVersion": {"type": "string"}, "kind": {"type": "string"},
                    "metadata": {"allOf": [{"$ref": f"#/components/schemas/{_META}"}], "default": {}},
                    "spec": {"type": "object", "properties": {"finalizers": {"type": "array",
                                                                             "items": {"type": "string"}}}}},
                      "x-kubernetes-group-version-kind": [{"group": "", "kind": "Namespace", "version": "v1"}]}}}}


@pytest.mark.parametrize("doc", [_v2, _v3], ids=["v2", "v3"])
def test_openapi_accepts_and_rejects(doc: Any) -> None:
    d = doc()
    validate_against_openapi(NS, d, ("", "v1", "Namespace"))
    validate_against_openapi(NS, d, "v1/Namespace")
    with pytest.raises(AssertionError, match=r"^\$\.spec\.finalizers\[0\]: 7 is not of type 'string' \(schema "
                                             + _NS.replace(".", r"\.") + " from the target's OpenAPI, clause C-1\\)"):
        validate_against_openapi(_set(NS, "spec.finalizers", [7]), d, {"version": "v1", "kind": "Namespace"},
                                 clause="C-1")
    with pytest.raises(LookupError):
        validate_against_openapi(NS, d, "apps/v1/Deployment")


def test_openapi_dialect_int_or_string_and_nullable() -> None:
    validate_against_openapi({**NS, "port": 8080}, _v2(), "v1/Namespace")
    validate_against_openapi({**NS, "port": "http"}, _v2(), "v1/Namespace")
    validate_against_openapi(_set(NS, "metadata.deletionTimestamp", None), _v3(), "v1/Namespace")
    with pytest.raises(AssertionError, match=r"^\$\.metadata\.deletionTimestamp"):
        validate_against_openapi(_set(NS, "metadata.deletionTimestamp", 5), _v3(), "v1/Namespace")


# --- the compiled check (conformance/schemas/fast.py): jsonschema's verdict, on real objects, the broken ones
# above and every single-value mutation of the real ones

_REPLACEMENTS = ("DELETE", None, 0, 1.5, "x", True, [], {})


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(node, dict):
        for k, v in node.items():
            yield prefix + (k,)
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield prefix + (i,)
            yield from _paths(v, prefix + (i,))


def _mutations(body: Any) -> Iterator[Any]:
    for path in _paths(body):
        for value in _REPLACEMENTS:
            out = copy.deepcopy(body)
            node = out
            for k in path[:-1]:
                node = node[k]
            if value == "DELETE" and isinstance(node, dict):
                del node[path[-1]]
            elif value != "DELETE":
                node[path[-1]] = copy.deepcopy(value)
            yield out


def _jsonschema_valid(body: Any, name: str) -> bool:
    return next(iter(schemas._validator(name).iter_errors(body)), None) is None


def test_every_package_schema_compiles() -> None:
    assert [n for n in schemas.SCHEMA_NAMES if schemas._fast(n) is None] == []


@pytest.mark.parametrize(("name", "body"), GOOD, ids=[f"{n}-{i}" for i, (n, _) in enumerate(GOOD)])
def test_same_verdict_as_jsonschema_on_every_mutation(name: str, body: Any) -> None:
    check = schemas._fast(name)
    assert check is not None and check(body)
    verdicts = [(m, check(m), _jsonschema_valid(m, name)) for m in _mutations(body)]
    assert [m for m, fast_ok, ok in verdicts if fast_ok and not ok] == []  # never "valid" where jsonschema is not
    # and the other way only for a date-time that is not RFC 3339 (jsonschema checks none without rfc3339-validator)
    assert [m for m, fast_ok, ok in verdicts if ok and not fast_ok and not _bad_date_time(m)] == []


def _bad_date_time(body: Any) -> bool:
    """Does `body` hold a string that is not a date-time where the schemas want one? (Every mutation that writes
    "x" into creationTimestamp, deletionTimestamp, a condition's lastTransitionTime or a managedFields time.)"""
    text = json.dumps(body)
    keys = ("creationTimestamp", "deletionTimestamp", "lastTransitionTime", "time")
    return any(f'"{k}": "x"' in text for k in keys)


def test_broken_objects_are_left_to_jsonschema() -> None:
    assert [(n, p) for n, body, p in BAD if schemas._fast(n)(body)] == []


def _check(schema: dict[str, Any]) -> Any:
    doc = {"$id": "urn:t", "$schema": "https://json-schema.org/draft/2020-12/schema", **schema}
    return fast.compile_schema(doc, fast.Documents({"urn:t": doc}, "urn:t"))


def fast_resource(doc: dict[str, Any]) -> Any:
    from referencing.jsonschema import DRAFT202012
    return DRAFT202012.create_resource(doc)


def test_unimplemented_keywords_are_not_compiled() -> None:
    for doc in ({"pattern": "^a"}, {"properties": {"a": {"oneOf": [{"type": "string"}]}}},
                   {"prefixItems": [{"type": "string"}], "items": False}, {"format": "ipv4"}, {"type": "int"}):
        with pytest.raises(fast.NotCompilable):
            _check(doc)


def test_keywords_match_jsonschema_on_edge_values() -> None:
    """bool is not an integer, 1.0 is not a string, const 1 is not True, if/then/else, a recursive $ref."""
    cases = [({"type": "integer"}, [1, True, 1.0, "1", None]),
             ({"type": ["string", "null"]}, ["a", None, 1]),
             ({"const": 1}, [1, True, 1.0, "1"]),
             ({"enum": [False, "a"]}, [0, False, "a", None]),
             ({"minimum": 2, "maximum": 3}, [1, 2, 3, 4, True, "9"]),
             ({"minLength": 2, "minItems": 1}, ["a", "ab", [], [1], 5]),
             ({"if": {"properties": {"t": {"const": "E"}}}, "then": {"required": ["c"]}, "else": {"required": ["d"]}},
              [{"t": "E"}, {"t": "E", "c": 1}, {"t": "F"}, {"t": "F", "d": 1}, {}, 3]),
             ({"additionalProperties": {"type": "string"}, "properties": {"n": {"type": "integer"}}},
              [{"n": 1, "x": "y"}, {"n": 1, "x": 2}, {"n": "1"}]),
             ({"$defs": {"t": {"type": "object", "properties": {"c": {"$ref": "#/$defs/t"}}}}, "$ref": "#/$defs/t"},
              [{"c": {"c": {}}}, {"c": {"c": 1}}, 3]),
             ({"const": {"a": [1, {"b": False}]}}, [{"a": [1, {"b": False}]}, {"a": [1, {"b": 0}]}, {"a": [True]}]),
             ({"type": "number"}, [1, 1.5, True, "1"])]
    import jsonschema
    for doc, values in cases:
        check = _check(doc)
        v = jsonschema.Draft202012Validator(doc, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
        assert [check(x) for x in values] == [v.is_valid(x) for x in values], doc


def test_date_time_is_strict_rfc3339() -> None:
    """Valid only where rfc3339-validator (jsonschema's date-time checker, when installed) would agree;
    anything narrower is left to jsonschema, which then decides."""
    check = _check({"format": "date-time"})
    good = ["2026-11-23T21:53:34Z", "2024-02-29T00:00:00.123456+05:30", "1999-12-31t23:59:59z", 5, None]
    bad = ["2026-11-23 21:53:34Z", "2026-13-01T00:00:00Z", "2023-02-29T00:00:00Z", "2026-11-23T24:00:00Z",
           "2026-11-23T21:53:34", "2026-11-23T21:53:34+25:00", "x"]
    assert [check(x) for x in good] == [True] * len(good)
    assert [check(x) for x in bad] == [False] * len(bad)


def test_suites_import_no_jsonschema() -> None:
    """A run whose bodies are valid never imports jsonschema or referencing (a quarter second of start-up)."""
    import subprocess
    import sys

    code = ("import sys, conformance.suites, conformance.schemas as s; "
            "s.validate({'kind': 'Status', 'apiVersion': 'v1', 'metadata': {}, 'status': 'Failure', 'code': 404}, "
            "'Status'); print(sorted(m for m in ('jsonschema', 'referencing') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
