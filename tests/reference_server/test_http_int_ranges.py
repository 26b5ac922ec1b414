"""Integers out of their Go type's range and the types with an `UnmarshalJSON` of their own (wire/gotypes.py):
a body's decoding refuses them with Go's words and the decoder's context (sigs.k8s.io/json `addErrorContext`),
a JSON or merge patch's result is the 422 `patch` Invalid in the same words, a strategic-merge patch's result
goes through the unstructured converter (`runtime/converter.go`: an int32 wraps, an int-or-string's
`UnmarshalJSON` speaks alone), and a server-side apply's merged object is upstream's 500."""
from __future__ import annotations

import json

from .conftest import status_of

NP = "/apis/networking.k8s.io/v1/namespaces/{ns}/networkpolicies"
PORT_ERROR = ("json: cannot unmarshal number 99999999999 into Go struct field NetworkPolicyPort.spec.ingress.ports.port "
              "of type int32")


def _np(port: object) -> dict:
    return {"metadata": {"name": "np"}, "spec": {"podSelector": {}, "ingress": [{"ports": [{"port": port}]}]}}


def test_an_int_or_string_out_of_range_is_refused_as_the_decoder_refuses_it(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    path = url + NP.format(ns=ns)
    st = status_of(http.post(path, json=_np(99999999999)))
    assert (st["code"], st["reason"]) == (400, "BadRequest"), st
    assert st["message"] == f'NetworkPolicy in version "v1" cannot be handled as a NetworkPolicy: {PORT_ERROR}'
    body = "metadata: {name: np}\nspec:\n  podSelector: {}\n  ingress: [{ports: [{port: 99999999999}]}]\n"
    st = status_of(http.post(path, data=body, headers={"Content-Type": "application/yaml"}))
    assert st["code"] == 400 and st["message"].endswith(PORT_ERROR), st
    st = status_of(http.post(path, json=_np(True)))
    assert st["message"].endswith("json: cannot unmarshal bool into Go struct field "
                                  "NetworkPolicyPort.spec.ingress.ports.port of type int32"), st
    st = status_of(http.post(f"{url}/api/v1/namespaces/{ns}/services", json={
        "metadata": {"name": "s"}, "spec": {"ports": [{"port": 80, "targetPort": 1.5}]}}))
    assert st["message"] == ('Service in version "v1" cannot be handled as a Service: json: cannot unmarshal number '
                             "1.5 into Go struct field ServicePort.spec.ports.targetPort of type int32"), st
    st = status_of(http.post(f"{url}/api/v1/namespaces/{ns}/configmaps",
                             json={"metadata": {"name": "c", "creationTimestamp": 5}}))
    assert st["message"] == ('ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal '
                             "number into Go struct field ObjectMeta.metadata.creationTimestamp of type string"), st
    assert http.post(path, json=_np(8080)).status_code == 201


def test_patches_refuse_or_wrap_as_upstreams_patch_paths(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    path = url + NP.format(ns=ns)
    assert http.post(path, json=_np(80)).status_code == 201
    merge = {"spec": {"ingress": [{"ports": [{"port": 99999999999}]}]}}
    st = status_of(http.patch(f"{path}/np", data=json.dumps(merge),
                              headers={"Content-Type": "application/merge-patch+json"}))
    assert (st["code"], st["reason"]) == (422, "Invalid") and st["details"]["causes"][0]["field"] == "patch", st
    assert st["message"].endswith(f": {PORT_ERROR}"), st
    # the patched JSON shown is the object in the endpoint's version (upstream encodes it with the request's codec),
    # as evanphx/json-patch's `MergePatch` writes it: the top-level object read, its keys sorted
    assert st["message"].startswith(' "" is invalid: patch: Invalid value: "{\\"apiVersion\\":\\"networking.k8s.io/v1\\",'
                                    '\\"kind\\":\\"NetworkPolicy\\",\\"metadata\\":{'), st
    st = status_of(http.patch(f"{path}/np", data=json.dumps(merge),
                              headers={"Content-Type": "application/strategic-merge-patch+json"}))
    assert st["code"] == 422 and st["message"] == (
        ' "" is invalid: patch: Invalid value: "map[spec:map[ingress:[map[ports:[map[port:99999999999]]]]]]": '
        "json: cannot unmarshal number 99999999999 into Go value of type int32"), st
    svc = f"{url}/api/v1/namespaces/{ns}/services"
    assert http.post(svc, json={"metadata": {"name": "s"}, "spec": {"ports": [{"port": 80}]}}).status_code == 201
    r = http.patch(f"{svc}/s", data=json.dumps({"spec": {"ports": [{"port": 80, "targetPort": 4294967376}]}}),
                   headers={"Content-Type": "application/strategic-merge-patch+json"})
    st = status_of(r)  # an int-or-string is no int32: refused, not wrapped
    assert st["message"].endswith("json: cannot unmarshal number 4294967376 into Go value of type int32"), st
    deploy = f"{url}/apis/apps/v1/namespaces/{ns}/deployments"
    assert http.post(deploy, json={"metadata": {"name": "d"}, "spec": {
        "selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}}, "spec": {
            "containers": [{"name": "c", "image": "i"}]}}}}).status_code == 201
    r = http.patch(f"{deploy}/d", data=json.dumps({"spec": {"replicas": 4294967299}}),
                   headers={"Content-Type": "application/strategic-merge-patch+json"})
    assert r.status_code == 200 and r.json()["spec"]["replicas"] == 3, r.text  # the converter wraps an int32
    r = http.patch(f"{deploy}/d", data=json.dumps({"spec": {"replicas": 4294967299}}),
                   headers={"Content-Type": "application/merge-patch+json"})
    assert status_of(r)["message"].endswith(  # the decoder does not
        "json: cannot unmarshal number 4294967299 into Go struct field DeploymentSpec.spec.replicas of type int32")
    apply = ("apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: np2}\n"
             "spec: {podSelector: {}, ingress: [{ports: [{port: 99999999999}]}]}\n")
    st = status_of(http.patch(f"{path}/np2", data=apply, params={"fieldManager": "m"},
                              headers={"Content-Type": "application/apply-patch+yaml"}))
    assert st["code"] == 500 and st["message"] == (
        "failed to convert new object (/np2; networking.k8s.io/v1, Kind=NetworkPolicy) to proper version: "
        "unable to convert unstructured object to networking.k8s.io/v1, Kind=NetworkPolicy: json: cannot unmarshal "
        "number 99999999999 into Go value of type int32"), st
