"""A CRD's and an APIService's answers as kube-apiserver writes them: `json.Marshal` of the Go structs
(apiextensions-apiserver `pkg/apis/apiextensions/v1/types.go`, `types_jsonschema.go`; kube-aggregator
`pkg/apis/apiregistration/v1/types.go`) decoded from JSON storage (wire/gowritten_described.py): a zero or empty
`omitempty` field the body gave is left out, a by-value struct or a scalar without `omitempty` written as its zero,
in the create's answer, GET, LIST and watch alike.

A server of its own: the objects here change `/apis`."""
from __future__ import annotations

from typing import Any

import requests

from tests.reference_server.ownserver import own_server

from .conftest import WatchReader, unique
from .crds import CRDS

APISERVICES = "/apis/apiregistration.k8s.io/v1/apiservices"

srv = own_server()


def _answers(srv: Any, collection: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """The create's answer, the watch's ADDED event, the GET and the LIST's item of the object `body` creates."""
    name = body["metadata"]["name"]
    with WatchReader(srv.url + collection, {"fieldSelector": f"metadata.name={name}"}) as w:
        r = requests.post(srv.url + collection, json=body)
        assert r.status_code == 201, r.text
        [added] = w.until(lambda e: e["type"] == "ADDED", what="ADDED")
    got = requests.get(f"{srv.url}{collection}/{name}").json()
    [listed] = [o for o in requests.get(srv.url + collection).json()["items"] if o["metadata"]["name"] == name]
    return [r.json(), added["object"], got, listed]


def test_a_crd_s_zero_and_empty_omitempty_fields_are_left_out(srv):
    """types.go: `ShortNames []string json:"shortNames,omitempty"` (`[]` left out), `Deprecated bool
    json:"deprecated,omitempty"`, `PreserveUnknownFields bool json:"preserveUnknownFields,omitempty"`, a column's
    `Priority int32 json:"priority,omitempty"` and `Format string json:"format,omitempty"`; types_jsonschema.go:
    `Description string json:"description,omitempty"`, `Nullable bool json:"nullable,omitempty"`, a rule's
    `Message string json:"message,omitempty"`."""
    group = f"{unique('g')}.example.com"
    schema = {"type": "object", "description": "", "nullable": False, "properties": {"spec": {
        "type": "string", "x-kubernetes-validations": [{"rule": "self != 'x'", "message": ""}]}}}
    body = {"metadata": {"name": f"widgets.{group}"}, "spec": {
        "group": group, "scope": "Namespaced", "preserveUnknownFields": False,
        "names": {"plural": "widgets", "kind": "Widget", "shortNames": [], "categories": []},
        "versions": [{"name": "v1", "served": True, "storage": True, "deprecated": False,
                      "schema": {"openAPIV3Schema": schema},
                      "additionalPrinterColumns": [{"name": "S", "type": "string", "jsonPath": ".spec",
                                                    "priority": 0, "format": "", "description": ""}]}]}}
    for crd in _answers(srv, CRDS, body):
        spec = crd["spec"]
        assert "preserveUnknownFields" not in spec
        assert spec["names"] == {"plural": "widgets", "singular": "widget", "kind": "Widget",
                                 "listKind": "WidgetList"}
        (version,) = spec["versions"]
        assert "deprecated" not in version
        assert version["additionalPrinterColumns"] == [{"name": "S", "type": "string", "jsonPath": ".spec"}]
        assert version["schema"]["openAPIV3Schema"] == {"type": "object", "properties": {"spec": {
            "type": "string", "x-kubernetes-validations": [{"rule": "self != 'x'"}]}}}


def test_an_apiservice_s_zero_fields(srv):
    """types.go: `InsecureSkipTLSVerify bool json:"insecureSkipTLSVerify,omitempty"` and `CABundle []byte
    json:"caBundle,omitempty"` left out when false and empty; `Status APIServiceStatus json:"status,omitempty"` (a
    struct) written `{}`."""
    group = f"{unique('g')}.example.com"
    body = {"metadata": {"name": f"v1.{group}"}, "spec": {
        "group": group, "version": "v1", "insecureSkipTLSVerify": False, "caBundle": "",
        "service": {"namespace": "default", "name": "s", "port": 443},
        "groupPriorityMinimum": 100, "versionPriority": 10}}
    answers = _answers(srv, APISERVICES, body)
    assert answers[0]["status"] == {}
    for apiservice in answers:
        assert apiservice["spec"] == {"service": {"namespace": "default", "name": "s", "port": 443}, "group": group,
                                      "version": "v1", "groupPriorityMinimum": 100, "versionPriority": 10}
    requests.delete(f"{srv.url}{APISERVICES}/v1.{group}")
