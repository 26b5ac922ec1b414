"""Finalizer names under apimachinery's generic ObjectMeta validation (CRDs, custom resources, APIServices,
admissionregistration): any qualified name, where core kinds also ask an unqualified one to be standard
(`pkg/apis/core/validation.validateKubeFinalizerName`). A CRD carries apiextensions' own unqualified
`customresourcecleanup.apiextensions.k8s.io`, which its status writes must keep."""
from __future__ import annotations

import requests

from .conftest import unique
from .test_crd_rules import CRDS, gadget, served, spec_schema, srv  # noqa: F401 (srv: its module-scoped server)

UNQUALIFIED = "example-finalizer"
CLEANUP = "customresourcecleanup.apiextensions.k8s.io"
NEITHER = "name is neither a standard finalizer name nor is it fully qualified"


def test_a_custom_resource_may_carry_an_unqualified_finalizer(srv):
    coll = served(srv, spec_schema({"a": {"type": "integer"}}))
    body = gadget(coll, "g1", {"a": 1})
    body["metadata"]["finalizers"] = [UNQUALIFIED]
    r = requests.post(coll, json=body)
    assert r.status_code == 201, r.text
    assert r.json()["metadata"]["finalizers"] == [UNQUALIFIED]


def test_a_core_kind_may_not(srv):
    ns = unique("fin")
    assert requests.post(f"{srv.url}/api/v1/namespaces", json={"metadata": {"name": ns}}).status_code == 201
    r = requests.post(f"{srv.url}/api/v1/namespaces/{ns}/configmaps",
                      json={"metadata": {"name": "c", "finalizers": [UNQUALIFIED]}})
    assert r.status_code == 422 and NEITHER in r.json()["message"]


def test_a_webhook_configuration_may_carry_one(srv):
    r = requests.post(f"{srv.url}/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
                      json={"metadata": {"name": unique("vwc"), "finalizers": [UNQUALIFIED]}, "webhooks": []})
    assert r.status_code == 201, r.text


def test_a_crd_keeps_apiextensions_cleanup_finalizer_through_its_writes(srv):
    """Its REST delete adds `customresourcecleanup.apiextensions.k8s.io` (unqualified, not core-standard) and the
    CRD finalizer then writes the Terminating condition through `/status`: neither may be refused for it."""
    coll = served(srv, spec_schema({"a": {"type": "integer"}}))
    url = f"{srv.url}{CRDS}/gadgets.{coll.split('/apis/')[1].split('/')[0]}"
    crd = requests.get(url).json()
    crd["metadata"]["finalizers"] = [CLEANUP]
    r = requests.put(url, json=crd)
    assert r.status_code == 200, r.text
    r = requests.put(url + "/status", json=r.json())
    assert r.status_code == 200, r.text
    assert r.json()["metadata"]["finalizers"] == [CLEANUP]
