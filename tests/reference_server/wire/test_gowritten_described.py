"""wire/gowritten_described.py: a CRD and an APIService as kube-apiserver answers them, `json.Marshal` of the Go
structs of apiextensions-apiserver `pkg/apis/apiextensions/v1` (types.go, types_jsonschema.go, marshal.go) and
kube-aggregator `pkg/apis/apiregistration/v1/types.go`, read back from JSON storage."""
from __future__ import annotations

import copy

from conformance.reference_server.wire import apiservicetypes, crdtypes
from conformance.reference_server.wire._godescribed_table import DESCRIBED_GO_KINDS
from conformance.reference_server.wire.gowritten import written_object

CRD = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
APISERVICE = "apiregistration.k8s.io/v1", "APIService"
_META = {"name": "as.g.io", "creationTimestamp": "2024-01-01T00:00:00Z"}
_EMPTY_STATUS = {"conditions": None, "acceptedNames": {"plural": "", "kind": ""}, "storedVersions": None}


def _crd(version: dict, **spec: object) -> dict:
    return {"apiVersion": CRD[0], "kind": CRD[1], "metadata": _META,
            "spec": {"group": "g.io", "names": {"plural": "as", "kind": "A"}, "scope": "Namespaced",
                     "versions": [{"name": "v1", "served": True, "storage": True, **version}], **spec}}


def test_every_descriptor_field_has_its_go_kind() -> None:
    """wire/crdtypes.py's and apiservicetypes.py's descriptors against the generated table: the same fields."""
    for kind, structs in (("CustomResourceDefinition", crdtypes.STRUCTS), ("APIService", apiservicetypes.STRUCTS)):
        for struct, fields in structs.items():
            assert set(fields) == set(DESCRIBED_GO_KINDS.get(f"{kind}.{struct}", {})), struct


def test_a_crd_s_zero_status_and_by_value_fields() -> None:
    """`Status CustomResourceDefinitionStatus` (a struct: written though `omitempty`), its `conditions` and
    `storedVersions` (slices, no `omitempty`) `null`, `acceptedNames` (by value) with `plural` and `kind` (no
    `omitempty`) ""; a version's `served` and `storage` (bools, no `omitempty`) false; a scale's paths ""."""
    body = _crd({"subresources": {"scale": {}}})
    body["spec"]["versions"][0].pop("served")
    before = copy.deepcopy(body)
    out = written_object(body, *CRD)
    assert out["status"] == _EMPTY_STATUS and body == before
    assert out["spec"]["versions"][0]["served"] is False
    assert out["spec"]["versions"][0]["subresources"]["scale"] == {"specReplicasPath": "", "statusReplicasPath": ""}


def test_a_crd_s_empty_and_zero_omitempty_fields_are_left_out() -> None:
    """`"shortNames": []`, `"deprecated": false`, `"preserveUnknownFields": false`, a schema's `"description": ""`,
    `"nullable": false`, `"enum": []`, a rule's `"message": ""` left out; a `conditions: []` (no `omitempty`) kept:
    stored as JSON, not nil when read back."""
    body = _crd({"deprecated": False, "additionalPrinterColumns": [], "schema": {"openAPIV3Schema": {
        "type": "object", "description": "", "nullable": False, "properties": {"x": {
            "type": "string", "enum": [], "x-kubernetes-validations": [{"rule": "true", "message": ""}]}}}}},
        preserveUnknownFields=False)
    body["spec"]["names"]["shortNames"] = []
    body["status"] = {"conditions": [], "storedVersions": ["v1"]}
    out = written_object(body, *CRD)
    assert "preserveUnknownFields" not in out["spec"] and out["spec"]["names"] == {"plural": "as", "kind": "A"}
    assert out["spec"]["versions"][0] == {"name": "v1", "served": True, "storage": True, "schema": {
        "openAPIV3Schema": {"type": "object", "properties": {"x": {
            "type": "string", "x-kubernetes-validations": [{"rule": "true"}]}}}}}
    assert out["status"] == {"conditions": [], "storedVersions": ["v1"], "acceptedNames": {"plural": "", "kind": ""}}


def test_marshal_go_s_own_marshalers() -> None:
    """marshal.go: `JSONSchemaPropsOrArray` writes `null` for `[]` (no items, no schema; as decoded from a body)
    and its schemas' zero fields left out; `JSONSchemaPropsOrStringArray` `null` for `[]`; `JSONSchemaPropsOrBool` its bool or schema;
    `JSON` (`default`) its bytes as they are."""
    schema = {"type": "object", "properties": {
        "a": {"type": "array", "items": []},
        "b": {"type": "array", "items": [{"type": "string", "format": ""}, None]},
        "c": {"type": "array", "items": {"type": "string", "title": ""}},
        "d": {"type": "object", "additionalProperties": {"type": "string", "pattern": ""},
              "dependencies": {"x": [], "y": ["z"], "w": {"type": "string", "nullable": False}}},
        "e": {"type": "object", "additionalProperties": False, "default": {"k": "", "n": []}}}}
    out = written_object(_crd({"schema": {"openAPIV3Schema": schema}}), *CRD, stored=False)
    props = out["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]
    assert props["a"] == {"type": "array", "items": None}
    # stored, that `null` is read back into the `*JSONSchemaPropsOrArray`: nil, left out
    stored = written_object(_crd({"schema": {"openAPIV3Schema": schema}}), *CRD)
    assert stored["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["a"] == {"type": "array"}
    assert props["b"]["items"] == [{"type": "string"}, {}]
    assert props["c"]["items"] == {"type": "string"}
    assert props["d"] == {"type": "object", "additionalProperties": {"type": "string"},
                          "dependencies": {"x": None, "y": ["z"], "w": {"type": "string"}}}
    assert props["e"] == schema["properties"]["e"]


def test_json_values_are_written_by_the_internal_interface() -> None:
    """apiextensions v1 conversion.go: `default`, `example` and `enum` are an `interface{}` in the internal
    version, written back by `json.Marshal`: a map's keys sorted, at every level."""
    schema = {"type": "object", "default": {"b": 1, "a": {"y": 2, "x": [{"q": 1, "p": 2}]}},
              "example": {"z": 0, "c": 0}, "enum": [{"k": 1, "j": 2}, "s"]}
    got = written_object(_crd({"schema": {"openAPIV3Schema": schema}}), *CRD)
    out = got["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    assert list(out["default"]) == ["a", "b"] and list(out["default"]["a"]) == ["x", "y"]
    assert list(out["default"]["a"]["x"][0]) == ["p", "q"] and list(out["example"]) == ["c", "z"]
    assert list(out["enum"][0]) == ["j", "k"] and out["enum"][1] == "s"


def test_an_apiservice_s_spec_and_status() -> None:
    """`GroupPriorityMinimum`/`VersionPriority int32` (no `omitempty`) 0 when left out; `caBundle: ""` (a `[]byte`),
    `insecureSkipTLSVerify: false`, a service's `namespace: ""` left out; `Status` (a struct) `{}`, an empty
    `conditions` (`omitempty`) left out."""
    body = {"apiVersion": APISERVICE[0], "kind": APISERVICE[1], "metadata": _META,
            "spec": {"group": "g.io", "version": "v1", "caBundle": "", "insecureSkipTLSVerify": False,
                     "groupPriorityMinimum": 10, "service": {"namespace": "", "name": "s", "port": 443}},
            "status": {"conditions": []}}
    out = written_object(body, *APISERVICE)
    assert out["spec"] == {"group": "g.io", "version": "v1", "groupPriorityMinimum": 10,
                           "service": {"name": "s", "port": 443}, "versionPriority": 0}
    assert out["status"] == {}
    del body["status"]
    assert written_object(body, *APISERVICE)["status"] == {}


def test_nothing_to_write_keeps_the_same_parts() -> None:
    """Copy on write: a stored object's parts are shared, so what needs nothing is the same object."""
    body = _crd({"schema": {"openAPIV3Schema": {"type": "object"}}})
    body["status"] = dict(_EMPTY_STATUS)
    out = written_object(body, *CRD)
    assert out["spec"] is body["spec"] and out["status"] is body["status"]


def test_a_crd_s_conversion_through_the_internal_version_and_v1beta1_storage() -> None:
    """apiextensions v1 conversion.go: a `webhook` with neither a client config nor review versions is not written
    (`"webhook": {}`); storage's v1beta1 leaves `conversionReviewVersions: []` out (`omitempty`), so the stored
    webhook is gone too, where the object decoded from the body (a webhook's review) keeps it."""
    none = {"strategy": "None", "webhook": {}}
    assert written_object(_crd({}, conversion=none), *CRD)["spec"]["conversion"] == {"strategy": "None"}
    empty = {"strategy": "None", "webhook": {"conversionReviewVersions": []}}
    assert written_object(_crd({}, conversion=empty), *CRD)["spec"]["conversion"] == {"strategy": "None"}
    assert written_object(_crd({}, conversion=empty), *CRD, stored=False)["spec"]["conversion"] == empty
    hook = {"strategy": "Webhook", "webhook": {"clientConfig": {"url": "https://h"},
                                               "conversionReviewVersions": ["v1"]}}
    assert written_object(_crd({}, conversion=hook), *CRD)["spec"]["conversion"] == hook
