"""A `field.Error` whose bad value is a Go struct, or a slice of them, prints it as Go's `%#v` does
(apimachinery field/errors.go `ErrorBody`; wire/gosyntax.py): owner references (apimachinery
api/validation/objectmeta.go `ValidateOwnerReferences`) and a CRD's versions (apiextensions-apiserver
validation.go `ValidateCustomResourceDefinitionSpec`, the internal versions after the v1 conversion's hoisting)."""
from __future__ import annotations

from typing import Any

import requests

from .conftest import unique

ADDR = "0xc000000000"  # a set pointer's address: a stand-in, upstream's differs per request
CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


def _cause(r: requests.Response, field: str) -> str:
    assert r.status_code == 422, r.text
    return next(c["message"] for c in r.json()["details"]["causes"] if c["field"] == field)


def test_event_owner_printed_as_the_go_struct(http: requests.Session, url: str, namespaces) -> None:
    ns = namespaces.create()["metadata"]["name"]
    ref = {"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "u-1", "blockOwnerDeletion": False}
    r = http.post(f"{url}/api/v1/namespaces/{ns}/configmaps",
                  json={"metadata": {"name": "cm", "ownerReferences": [ref]}})
    assert _cause(r, "metadata.ownerReferences") == (
        'Invalid value: v1.OwnerReference{APIVersion:"v1", Kind:"Event", Name:"e", UID:"u-1", '
        f'Controller:(*bool)(nil), BlockOwnerDeletion:(*bool)({ADDR})}}: '
        "/v1, Kind=Event is disallowed from being an owner")


def test_two_controllers_print_the_go_slice(http: requests.Session, url: str, namespaces) -> None:
    ns = namespaces.create()["metadata"]["name"]
    refs = [{"apiVersion": "v1", "kind": "ConfigMap", "name": "a", "uid": "u", "controller": True},
            {"apiVersion": "apps/v1", "kind": "Deployment", "name": "b", "uid": "v", "controller": True,
             "blockOwnerDeletion": True}]
    r = http.post(f"{url}/api/v1/namespaces/{ns}/configmaps",
                  json={"metadata": {"name": "cm", "ownerReferences": refs}})
    assert r.json()["message"] == (
        'ConfigMap "cm" is invalid: metadata.ownerReferences: Invalid value: []v1.OwnerReference{'
        'v1.OwnerReference{APIVersion:"v1", Kind:"ConfigMap", Name:"a", UID:"u", '
        f'Controller:(*bool)({ADDR}), BlockOwnerDeletion:(*bool)(nil)}}, '
        'v1.OwnerReference{APIVersion:"apps/v1", Kind:"Deployment", Name:"b", UID:"v", '
        f'Controller:(*bool)({ADDR}), BlockOwnerDeletion:(*bool)({ADDR})}}}}: '
        'Only one reference can have Controller set to true. Found "true" in references for ConfigMap/a and '
        'Deployment/b')


def _crd(versions: list[dict[str, Any]]) -> dict[str, Any]:
    group = f"{unique('g')}.example.com"
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"things.{group}"},
            "spec": {"group": group, "scope": "Namespaced", "names": {"plural": "things", "kind": "Thing"},
                     "versions": versions}}


SCHEMA = {"openAPIV3Schema": {"type": "object"}}
OTHER = {"openAPIV3Schema": {"type": "object", "properties": {"a": {"type": "string"}}}}


def test_crd_versions_with_identical_schemas_print_them_hoisted(http: requests.Session, url: str) -> None:
    """The v1 conversion moves a schema every version has alike to `spec.validation`: the versions' are nil."""
    body = _crd([{"name": "v1", "served": True, "storage": True, "schema": SCHEMA},
                 {"name": "v2", "served": False, "storage": True, "schema": SCHEMA}])
    r = http.post(url + CRDS, json=body)
    zero = ("Deprecated:false, DeprecationWarning:(*string)(nil), "
            "Schema:(*apiextensions.CustomResourceValidation)(nil), "
            "Subresources:(*apiextensions.CustomResourceSubresources)(nil), "
            "AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil), "
            "SelectableFields:[]apiextensions.SelectableField(nil)")
    assert _cause(r, "spec.versions") == (
        "Invalid value: []apiextensions.CustomResourceDefinitionVersion{"
        f'apiextensions.CustomResourceDefinitionVersion{{Name:"v1", Served:true, Storage:true, {zero}}}, '
        f'apiextensions.CustomResourceDefinitionVersion{{Name:"v2", Served:false, Storage:true, {zero}}}}}: '
        "must have exactly one version marked as storage version")


def test_crd_versions_that_differ_keep_their_fields(http: requests.Session, url: str) -> None:
    column = {"name": "A", "type": "string", "jsonPath": ".a", "priority": 1}
    body = _crd([{"name": "v1", "served": True, "storage": False, "schema": SCHEMA,
                  "subresources": {"status": {}}},
                 {"name": "v2", "served": True, "storage": False, "schema": OTHER, "deprecated": True,
                  "deprecationWarning": "old", "additionalPrinterColumns": [column],
                  "subresources": {"status": {}}}])
    r = http.post(url + CRDS, json=body)
    assert _cause(r, "spec.versions") == (
        "Invalid value: []apiextensions.CustomResourceDefinitionVersion{"
        'apiextensions.CustomResourceDefinitionVersion{Name:"v1", Served:true, Storage:false, Deprecated:false, '
        f"DeprecationWarning:(*string)(nil), Schema:(*apiextensions.CustomResourceValidation)({ADDR}), "
        "Subresources:(*apiextensions.CustomResourceSubresources)(nil), "
        "AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil), "
        "SelectableFields:[]apiextensions.SelectableField(nil)}, "
        'apiextensions.CustomResourceDefinitionVersion{Name:"v2", Served:true, Storage:false, Deprecated:true, '
        f"DeprecationWarning:(*string)({ADDR}), Schema:(*apiextensions.CustomResourceValidation)({ADDR}), "
        "Subresources:(*apiextensions.CustomResourceSubresources)(nil), "
        "AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition{"
        'apiextensions.CustomResourceColumnDefinition{Name:"A", Type:"string", Format:"", Description:"", '
        'Priority:1, JSONPath:".a"}}, SelectableFields:[]apiextensions.SelectableField(nil)}}: '
        "must have exactly one version marked as storage version")


def test_crd_without_versions(http: requests.Session, url: str) -> None:
    r = http.post(url + CRDS, json=_crd([]))
    assert _cause(r, "spec.versions") == ("Invalid value: []apiextensions.CustomResourceDefinitionVersion{}: "
                                          "must have exactly one version marked as storage version")
