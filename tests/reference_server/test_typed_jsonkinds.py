"""A CRD's and an APIService's writes judged by their Go types as kube-apiserver judges them: a create or update
body by the strict JSON decoder (400 in `encoding/json`'s words, unknown fields named), a strategic-merge patch's
result (422 `patch`) and a server-side apply's merged object (500 `failed to convert new object`) by the
unstructured converter (`unrecognized type: int32`), with integers held as Go holds them (wire/apiservicetypes.py,
wire/jsonkindconvert.py). kubectl shows what a user meets.

A server of its own: the APIServices here change `/apis`."""
from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import requests

from conformance.reference_server.embedded import RunningServer
from tests.reference_server.ownserver import own_server

from .crds import create_crd
from .test_real_clients import Kube, kube, served  # noqa: F401 - fixtures

APISERVICES = "/apis/apiregistration.k8s.io/v1/apiservices"
CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
STRATEGIC = {"Content-Type": "application/strategic-merge-patch+json"}
APPLY = {"Content-Type": "application/apply-patch+yaml"}


srv = own_server()


def apiservice(group: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": f"v1.{group}"},
            "spec": {"group": group, "version": "v1", "groupPriorityMinimum": 100, "versionPriority": 10, **spec}}


def crd(group: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"gadgets.{group}"},
            "spec": {"group": group, "scope": "Namespaced", "names": {"plural": "gadgets", "kind": "Gadget"},
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                         "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}], **spec}}


def group() -> str:
    return f"t{uuid.uuid4().hex[:8]}.example.com"


def test_apiservice_body_of_a_wrong_type_is_the_decoders_400(srv: RunningServer) -> None:
    g = group()
    r = requests.post(srv.url + APISERVICES, json=apiservice(g, groupPriorityMinimum="100"))
    assert r.status_code == 400, r.text
    assert r.json() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                        "reason": "BadRequest", "code": 400, "message": 'APIService in version "v1" cannot be handled '
                        "as a APIService: json: cannot unmarshal string into Go struct field "
                        "APIServiceSpec.spec.groupPriorityMinimum of type int32"}
    r = requests.post(srv.url + APISERVICES, json=apiservice(g, service={"namespace": "a", "name": "b", "port": "x"}))
    assert r.status_code == 400 and r.json()["message"].endswith(
        "json: cannot unmarshal string into Go struct field ServiceReference.spec.service.port of type int32"), r.text
    assert requests.get(f"{srv.url}{APISERVICES}/v1.{g}").status_code == 404
    # an update is decoded alike
    assert requests.post(srv.url + APISERVICES, json=apiservice(g)).status_code == 201
    body = requests.get(f"{srv.url}{APISERVICES}/v1.{g}").json()
    body["spec"]["versionPriority"] = 1.5
    r = requests.put(f"{srv.url}{APISERVICES}/v1.{g}", json=body)
    assert r.status_code == 400 and r.json()["message"].endswith(
        "json: cannot unmarshal number 1.5 into Go struct field APIServiceSpec.spec.versionPriority of type int32")


def test_apiservice_unknown_fields_named_by_the_strict_decoder(srv: RunningServer) -> None:
    body = apiservice(group(), typo=1, service={"namespace": "a", "name": "b", "path": "/x"})
    r = requests.post(srv.url + APISERVICES, json=body, params={"fieldValidation": "Strict"})
    assert r.status_code == 400, r.text
    assert r.json()["message"] == ('APIService in version "v1" cannot be handled as a APIService: strict decoding error: '
                                   'unknown field "spec.typo", unknown field "spec.service.path"')
    r = requests.post(srv.url + APISERVICES, json=body, params={"fieldValidation": "Warn"})
    assert r.status_code == 201, r.text
    assert r.headers["Warning"] == '299 - "unknown field \\"spec.typo\\"", 299 - "unknown field \\"spec.service.path\\""'
    assert r.json()["spec"]["service"] == {"namespace": "a", "name": "b", "port": 443}


def test_apiservice_strategic_patch_converted_as_upstream(srv: RunningServer) -> None:
    g = group()
    assert requests.post(srv.url + APISERVICES, json=apiservice(g)).status_code == 201
    path = f"{srv.url}{APISERVICES}/v1.{g}"
    r = requests.patch(path, data=json.dumps({"spec": {"groupPriorityMinimum": "5"}}), headers=STRATEGIC)
    assert r.status_code == 422, r.text
    assert r.json()["message"] == (' "" is invalid: patch: Invalid value: "map[spec:map[groupPriorityMinimum:5]]": '
                                   "unrecognized type: int32")
    r = requests.patch(path, data=json.dumps({"spec": {"versionPriority": 1.5}}), headers=STRATEGIC)
    assert r.status_code == 422 and r.json()["message"].endswith(": cannot convert float64 to int32"), r.text
    # an int32 past its range wraps in the conversion (the decoder would refuse it)
    r = requests.patch(path, data=json.dumps({"spec": {"groupPriorityMinimum": 2 ** 32 + 200}}), headers=STRATEGIC)
    assert r.status_code == 200, r.text
    assert r.json()["spec"]["groupPriorityMinimum"] == 200
    r = requests.patch(f"{path}/status", headers=STRATEGIC, data=json.dumps(
        {"status": {"conditions": [{"type": "Extra", "status": "True", "lastTransitionTime": 5}]}}))
    assert r.status_code == 422 and r.json()["message"].endswith(
        ": json: cannot unmarshal number into Go value of type string"), r.text


def test_apiservice_server_side_apply_converted_as_upstream(srv: RunningServer) -> None:
    g = group()
    path = f"{srv.url}{APISERVICES}/v1.{g}"
    r = requests.patch(path, data=json.dumps(apiservice(g, versionPriority=1.5)), headers=APPLY,
                       params={"fieldManager": "a"})
    assert r.status_code == 500, r.text
    assert r.json()["message"] == (
        f"failed to convert new object (/v1.{g}; apiregistration.k8s.io/v1, Kind=APIService) to proper version: "
        "unable to convert unstructured object to apiregistration.k8s.io/v1, Kind=APIService: cannot convert "
        "float64 to int32")
    # structured-merge-diff types the configuration by the Go types first (fieldmanager/jsonkinds.py `go_types`)
    typed = f"failed to create typed patch object (/v1.{g}; apiregistration.k8s.io/v1, Kind=APIService): "
    for spec, error in (({"groupPriorityMinimum": "100"}, ".spec.groupPriorityMinimum: expected numeric (int or "
                                                          "float), got string"),
                        ({"service": {"name": "a", "path": "/x"}}, ".spec.service.path: field not declared in schema")):
        r = requests.patch(path, data=json.dumps(apiservice(g, **spec)), headers=APPLY, params={"fieldManager": "a"})
        assert r.status_code == 500, r.text
        assert r.json()["message"] == typed + error
    r = requests.patch(path, data=json.dumps(apiservice(g, versionPriority=2.0)), headers=APPLY,
                       params={"fieldManager": "a"})
    assert r.status_code == 201, r.text
    assert r.json()["spec"]["versionPriority"] == 2


def test_crd_strategic_patch_and_apply_converted_as_upstream(srv: RunningServer) -> None:
    g = group()
    assert create_crd(requests, srv.url, crd(g)).status_code == 201
    path = f"{srv.url}{CRDS}/gadgets.{g}"
    r = requests.patch(path, data=json.dumps({"spec": {"scope": 5}}), headers=STRATEGIC)
    assert r.status_code == 422, r.text
    assert r.json()["message"] == (' "" is invalid: patch: Invalid value: "map[spec:map[scope:5]]": cannot convert '
                                   "int64 to v1.ResourceScope")
    schema = {"type": "object", "additionalProperties": {"type": 5, "description": 6}}
    body = crd(g)
    body["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = schema
    r = requests.patch(path, data=json.dumps({"spec": {"versions": body["spec"]["versions"]}}), headers=STRATEGIC)
    assert r.status_code == 422 and r.json()["message"].endswith(
        ": json: cannot unmarshal number into Go struct field JSONSchemaProps.description of type string"), r.text
    # server-side apply: typed by structured-merge-diff from the Go types first, then converted
    body = crd(g, preserveUnknownFields="no")
    r = requests.patch(path, data=json.dumps(body), headers=APPLY, params={"fieldManager": "a", "force": "true"})
    assert r.status_code == 500, r.text
    assert r.json()["message"] == (f"failed to create typed patch object (/gadgets.{g}; apiextensions.k8s.io/v1, "
                                   "Kind=CustomResourceDefinition): .spec.preserveUnknownFields: expected boolean, "
                                   "got &{no}")
    body = crd(g)
    body["spec"]["versions"][0]["additionalPrinterColumns"] = [
        {"name": "n", "type": "string", "jsonPath": ".x", "priority": 1.5}]
    r = requests.patch(path, data=json.dumps(body), headers=APPLY, params={"fieldManager": "a", "force": "true"})
    assert r.status_code == 500, r.text
    assert r.json()["message"].endswith("Kind=CustomResourceDefinition: cannot convert float64 to int32")
    # the decoder's words still answer a JSON merge patch
    r = requests.patch(path, data=json.dumps({"spec": {"scope": 5}}),
                       headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 422 and r.json()["message"].endswith(
        "json: cannot unmarshal number into Go struct field CustomResourceDefinitionSpec.spec.scope of type "
        "v1.ResourceScope"), r.text


def test_kubectl_apply_and_patch_of_a_wrongly_typed_apiservice(kube: Kube, tmp_path: Path) -> None:
    g = group()
    path = tmp_path / "apiservice.json"
    path.write_text(json.dumps(apiservice(g, groupPriorityMinimum="100")))
    err = kube.fails("apply", "-f", str(path))
    assert err == (f'Error from server (BadRequest): error when creating "{path}": APIService in version "v1" cannot '
                   "be handled as a APIService: json: cannot unmarshal string into Go struct field "
                   "APIServiceSpec.spec.groupPriorityMinimum of type int32\n"), err
    path.write_text(json.dumps(apiservice(g, service={"namespace": "default", "name": "api"})))
    assert kube.ok("apply", "-f", str(path)) == f"apiservice.apiregistration.k8s.io/v1.{g} created\n"
    assert kube.get(f"{APISERVICES}/v1.{g}").json()["spec"]["service"]["port"] == 443  # SetDefaults_ServiceReference
    err = kube.fails("patch", "apiservice", f"v1.{g}", "-p", '{"spec":{"groupPriorityMinimum":"5"}}')
    assert err == ('The request is invalid: patch: Invalid value: "map[spec:map[groupPriorityMinimum:5]]": '
                   "unrecognized type: int32\n"), err
    path.write_text(json.dumps(apiservice(g, versionPriority=1.5)))
    err = kube.fails("apply", "--server-side", "--force-conflicts", "-f", str(path))
    assert err == (f"Error from server: failed to convert new object (/v1.{g}; apiregistration.k8s.io/v1, "
                   "Kind=APIService) to proper version: unable to convert unstructured object to "
                   "apiregistration.k8s.io/v1, Kind=APIService: cannot convert float64 to int32\n"), err
