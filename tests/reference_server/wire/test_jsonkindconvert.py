"""The unstructured converter over a CRD's and an APIService's Go types (wire/jsonkindconvert.py), in
`runtime/converter.go`'s words (and, inside marshal.go's custom `UnmarshalJSON`s, util/json's, with the context
of their own decoding of the sorted `json.Marshal`), and their decoder (wire/apiservicetypes.py)."""
from __future__ import annotations

from typing import Any

import pytest

from conformance.reference_server.wire import apiservicetypes
from conformance.reference_server.wire.jsonkindconvert import from_unstructured

CRD = "CustomResourceDefinition"


def crd(schema: Any = None, **spec: Any) -> dict[str, Any]:
    version = {"name": "v1", "served": True, "storage": True,
               "schema": {"openAPIV3Schema": schema or {"type": "object"}}}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": CRD, "metadata": {"name": "gadgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "gadgets", "kind": "Gadget"},
                     "versions": [version], **spec}}


def apiservice(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": "v1.example.com"},
            "spec": {"group": "example.com", "version": "v1", "groupPriorityMinimum": 100, "versionPriority": 10,
                     **spec}}


CRD_CASES = [
    (crd(scope=5), "cannot convert int64 to v1.ResourceScope"),
    (crd(group=1.5), "unrecognized type: string"),
    (crd(versions="v1"), "cannot restore slice from string"),
    (crd(names=["gadgets"]), "cannot restore struct from: slice"),
    (crd(preserveUnknownFields="yes"), "unrecognized type: bool"),
    (crd({"type": "object", "maxLength": 1.5}), "cannot convert float64 to int64"),
    (crd({"type": "object", "properties": "none"}), "cannot restore map from string"),
    # marshal.go: JSONSchemaPropsOrBool's own words, and an inner schema's error in its own decoding's context,
    # the first in the sorted order `json.Marshal` writes (`description` before `type`)
    (crd({"type": "object", "additionalProperties": "x"}), "boolean or JSON schema expected"),
    (crd({"type": "object", "additionalProperties": {"type": 5, "description": 6}}),
     "json: cannot unmarshal number into Go struct field JSONSchemaProps.description of type string"),
    (crd({"type": "array", "items": {"maxLength": 1e21}}),
     "json: cannot unmarshal number 1e+21 into Go struct field JSONSchemaProps.maxLength of type int64"),
    (crd({"type": "array", "items": [{"additionalProperties": {"type": 1}}]}),
     "json: cannot unmarshal number into Go struct field JSONSchemaProps.additionalProperties of type string"),
    (crd({"type": "object", "dependencies": {"a": ["b", 1]}}),
     "json: cannot unmarshal number into Go value of type string"),
]


@pytest.mark.parametrize("obj,expected", CRD_CASES, ids=[e[:50] for _, e in CRD_CASES])
def test_crd_converter_words(obj: dict[str, Any], expected: str) -> None:
    assert from_unstructured(obj, CRD) == expected


def test_crd_metadata_and_status_as_the_converter_reads_them() -> None:
    obj = crd()
    obj["metadata"]["labels"] = 5
    assert from_unstructured(obj, CRD) == "cannot restore map from int64"
    obj = crd()
    obj["status"] = {"conditions": [{"type": "Established", "status": "True", "lastTransitionTime": 5}]}
    assert from_unstructured(obj, CRD) == "json: cannot unmarshal number into Go value of type string"


def test_crd_integers_held_as_go_holds_them() -> None:
    obj = crd({"type": "object", "maxLength": 5.0, "items": {"maxLength": 2.0}, "default": 1.0})
    obj["spec"]["versions"][0]["additionalPrinterColumns"] = [
        {"name": "n", "type": "string", "jsonPath": ".x", "priority": 2 ** 32 + 3}]
    assert from_unstructured(obj, CRD) is None
    version = obj["spec"]["versions"][0]
    assert version["additionalPrinterColumns"][0]["priority"] == 3  # int32: wrapped
    schema = version["schema"]["openAPIV3Schema"]
    assert type(schema["maxLength"]) is int and schema["maxLength"] == 5


APISERVICE_CASES = [
    (apiservice(groupPriorityMinimum="100"), "unrecognized type: int32"),
    (apiservice(versionPriority=1.5), "cannot convert float64 to int32"),
    (apiservice(group=5), "cannot convert int64 to string"),
    (apiservice(insecureSkipTLSVerify=1), "unrecognized type: bool"),
    (apiservice(service="svc"), "cannot restore struct from: string"),
    (apiservice(service={"namespace": "a", "name": "b", "port": True}), "unrecognized type: int32"),
    (apiservice(caBundle="%%"), "error decoding from json: illegal base64 data at input byte 0"),
]


@pytest.mark.parametrize("obj,expected", APISERVICE_CASES, ids=[e for _, e in APISERVICE_CASES])
def test_apiservice_converter_words(obj: dict[str, Any], expected: str) -> None:
    assert from_unstructured(obj, "APIService") == expected


def test_apiservice_condition_type_and_wrapped_priority() -> None:
    obj = apiservice(groupPriorityMinimum=2 ** 32 + 100, versionPriority=10.0)
    obj["status"] = {"conditions": [{"type": 5, "status": "True"}]}
    assert from_unstructured(obj, "APIService") == "cannot convert int64 to v1.APIServiceConditionType"
    obj["status"] = {"conditions": [{"type": "Available", "status": "True"}]}
    assert from_unstructured(obj, "APIService") is None
    assert (obj["spec"]["groupPriorityMinimum"], obj["spec"]["versionPriority"]) == (100, 10)


DECODE_CASES = [
    (apiservice(groupPriorityMinimum="100"), "json: cannot unmarshal string into Go struct field "
     "APIServiceSpec.spec.groupPriorityMinimum of type int32"),
    (apiservice(versionPriority=2 ** 31), "json: cannot unmarshal number 2147483648 into Go struct field "
     "APIServiceSpec.spec.versionPriority of type int32"),
    (apiservice(service={"port": "443"}), "json: cannot unmarshal string into Go struct field "
     "ServiceReference.spec.service.port of type int32"),
    (apiservice(caBundle=5), "json: cannot unmarshal number into Go struct field APIServiceSpec.spec.caBundle of "
     "type []uint8"),
    ({**apiservice(), "status": {"conditions": {}}}, "json: cannot unmarshal object into Go struct field "
     "APIServiceStatus.status.conditions of type []v1.APIServiceCondition"),
    ({**apiservice(), "status": {"conditions": [{"type": 1}]}}, "json: cannot unmarshal number into Go struct "
     "field APIServiceCondition.status.conditions.type of type v1.APIServiceConditionType"),
    # metav1.Time's UnmarshalJSON: its inner error given the field's context; a bad time in its own words
    ({**apiservice(), "status": {"conditions": [{"lastTransitionTime": 1}]}}, "json: cannot unmarshal number "
     "into Go struct field APIServiceCondition.status.conditions.lastTransitionTime of type string"),
    ({**apiservice(), "status": {"conditions": [{"lastTransitionTime": "now"}]}},
     'parsing time "now" as "2006-01-02T15:04:05Z07:00": cannot parse "now" as "2006"'),
]


@pytest.mark.parametrize("obj,expected", DECODE_CASES, ids=[e[-60:] for _, e in DECODE_CASES])
def test_apiservice_decoder_words(obj: dict[str, Any], expected: str) -> None:
    assert apiservicetypes.type_error(obj) == expected


def test_apiservice_unknown_fields() -> None:
    obj = apiservice(typo=1, service={"namespace": "a", "name": "b", "path": "/x"})
    obj["status"] = {"conditions": [{"type": "Available", "extra": True}]}
    assert apiservicetypes.unknown_fields(obj, drop=True) == [
        "spec.typo", "spec.service.path", "status.conditions[0].extra"]
    assert apiservicetypes.unknown_fields(obj, drop=False) == []


def test_crd_condition_time_decoded_as_time_unmarshal_json() -> None:
    """A CRD condition's `lastTransitionTime` is a metav1.Time (its decoder is wire/crdtypes.py's, shared)."""
    from conformance.reference_server.wire.crdtypes import type_error
    obj = crd()
    obj["status"] = {"conditions": [{"type": "Established", "status": "True", "lastTransitionTime": True}]}
    assert type_error(obj) == ("json: cannot unmarshal bool into Go struct field CustomResourceDefinitionCondition."
                               "status.conditions.lastTransitionTime of type string")
    obj["status"]["conditions"][0]["lastTransitionTime"] = "2024-01-01T00:00:00Z"
    assert type_error(obj) is None
