"""kube-apiserver's CRD naming, establishing and API-approval controllers (controller/crd_naming.py,
crd_establishing.py, crd_apiapproval.py): a CRD is answered and stored with its empty status, the controllers'
writes come after, each a `customresourcedefinitions/status` UPDATE of the loopback client (`system:apiserver`)
that webhooks and policies see and may refuse; its resources are served once its names are accepted
(`customresource_handler.go` ServeHTTP) and listed by discovery once it is Established
(`customresource_discovery_controller.go`)."""
from __future__ import annotations

import uuid
from typing import Any

import requests

from conformance.reference_server.registry import Registry
from conformance.reference_server.storage import MemoryStore
from tests.reference_server.ownserver import own_server

from ..crds import CRDS, condition, create_crd, established, settle_crd, wait_crd
from ..replicas import until
from ..test_admission_webhooks import Hook, hook  # noqa: F401 - the webhook, per module

AR = "/apis/admissionregistration.k8s.io/v1"
APISERVER_GROUPS = ["system:authenticated", "system:masters"]


server = own_server("A server of its own: its webhook configurations and policies must not reach other modules' CRDs.")


def crd(group: str, tag: str) -> dict[str, Any]:
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"widgets.{group}", "labels": {"crdctl": tag}},
            "spec": {"group": group, "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                         "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}}


def status_rule(tag: str) -> dict[str, Any]:
    return {"apiGroups": ["apiextensions.k8s.io"], "apiVersions": ["v1"], "operations": ["UPDATE"],
            "resources": ["customresourcedefinitions/status"]}


def test_a_crd_in_a_bare_registry_is_neither_named_nor_served_until_the_controllers_sync() -> None:
    """The create writes nothing but the CRD (strategy.go's empty status); the resources wait for the names."""
    reg = Registry(MemoryStore())
    body = crd("example.com", "unit")
    created = reg.custom.crds.create(body)
    stored = reg.custom.crds.get("", "widgets.example.com")
    assert created["status"] == stored["status"] == {"conditions": None, "acceptedNames": {"plural": "", "kind": ""},
                                                     "storedVersions": ["v1"]}
    assert stored["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    assert reg.group("example.com", "widgets", "v1") is None
    settled = settle_crd(reg, "widgets.example.com")
    assert established(settled) and reg.group("example.com", "widgets", "v1") is not None


def test_the_naming_write_meets_a_webhook_as_the_apiserver_and_nothing_is_served_before(server, hook):
    tag = uuid.uuid4().hex[:8]
    group, name = f"n{tag}.example.com", f"widgets.n{tag}.example.com"
    cfg = f"crdctl-{tag}"
    webhook = {"metadata": {"name": cfg}, "webhooks": [{
        "name": f"{cfg}.example.com", "sideEffects": "None", "admissionReviewVersions": ["v1"],
        "clientConfig": {"url": f"{hook.url}/deny", "caBundle": hook.ca_bundle}, "rules": [status_rule(tag)],
        "objectSelector": {"matchLabels": {"crdctl": tag}}}]}
    assert requests.post(f"{server.url}{AR}/validatingwebhookconfigurations", json=webhook).status_code == 201
    created = requests.post(server.url + CRDS, json=crd(group, tag))
    assert created.status_code == 201, created.text
    assert created.json()["status"] == {"conditions": None, "acceptedNames": {"plural": "", "kind": ""},
                                        "storedVersions": ["v1"]}

    def mine() -> list[dict[str, Any]]:
        return [b["request"] for _, b in hook.reviews if b["request"].get("name") == name]
    review = until(mine, "the naming controller's write at the webhook", timeout=30)[0]
    assert (review["operation"], review["subResource"], review["resource"]["resource"]) == (
        "UPDATE", "status", "customresourcedefinitions")
    assert (review["userInfo"]["username"], review["userInfo"]["groups"]) == ("system:apiserver", APISERVER_GROUPS)
    assert review["oldObject"]["status"]["conditions"] is None
    written = review["object"]["status"]
    assert written["acceptedNames"] == {"plural": "widgets", "singular": "widget", "kind": "Widget",
                                        "listKind": "WidgetList"}
    assert [(c["type"], c["status"], c["reason"]) for c in written["conditions"]] == [
        ("NamesAccepted", "True", "NoConflicts"), ("Established", "False", "Installing")]
    # refused: no names accepted, so the resources are the not-found handler's and discovery has no such version
    assert requests.get(f"{server.url}{CRDS}/{name}").json()["status"]["conditions"] is None
    r = requests.get(f"{server.url}/apis/{group}/v1/namespaces/default/widgets")
    assert (r.status_code, r.text) == (404, "404 page not found\n")
    assert requests.get(f"{server.url}/apis/{group}/v1").status_code == 404
    # the webhook gone, the controllers' next tries are made: names, then establishment, separate writes
    assert requests.delete(f"{server.url}{AR}/validatingwebhookconfigurations/{cfg}").status_code == 200
    got = wait_crd(requests, server.url, name)
    assert int(got["metadata"]["resourceVersion"]) > int(created.json()["metadata"]["resourceVersion"])
    status = [e for e in got["metadata"]["managedFields"] if e.get("subresource") == "status"]
    assert [(e["manager"], e["operation"]) for e in status] == [("kube-apiserver", "Update")]
    assert requests.post(f"{server.url}/apis/{group}/v1/namespaces/default/widgets",
                         json={"apiVersion": f"{group}/v1", "kind": "Widget", "metadata": {"name": "w"}}
                         ).status_code == 201


def test_names_accepted_serve_the_resources_while_discovery_waits_for_established(server):
    """A policy refusing only the establishing write: served (NamesAccepted), not discovered (not Established)."""
    tag = uuid.uuid4().hex[:8]
    group, name, policy = f"e{tag}.example.com", f"widgets.e{tag}.example.com", f"crdctl-{tag}"
    assert requests.post(f"{server.url}{AR}/validatingadmissionpolicies", json={
        "metadata": {"name": policy},
        "spec": {"failurePolicy": "Fail",
                 "matchConstraints": {"resourceRules": [status_rule(tag)],
                                      "objectSelector": {"matchLabels": {"crdctl": tag}}},
                 "validations": [{"expression": "request.userInfo.username != 'system:apiserver' || "
                                                "!object.status.conditions.exists(c, c.type == 'Established' && "
                                                "c.status == 'True')",
                                  "message": "not yet"}]}}).status_code == 201
    binding = {"metadata": {"name": policy}, "spec": {"policyName": policy, "validationActions": ["Deny"]}}
    assert requests.post(f"{server.url}{AR}/validatingadmissionpolicybindings", json=binding).status_code == 201
    assert requests.post(server.url + CRDS, json=crd(group, tag)).status_code == 201
    named = wait_crd(requests, server.url, name, lambda o: condition(o, "NamesAccepted") is not None)
    assert (condition(named, "Established") or {}).get("reason") == "Installing"
    widgets = f"{server.url}/apis/{group}/v1/namespaces/default/widgets"
    r = requests.post(widgets, json={"apiVersion": f"{group}/v1", "kind": "Widget", "metadata": {"name": "w"}})
    assert r.status_code == 201, r.text
    assert requests.get(f"{server.url}/apis/{group}/v1").status_code == 404
    assert not established(requests.get(f"{server.url}{CRDS}/{name}").json())
    assert requests.delete(f"{server.url}{AR}/validatingadmissionpolicybindings/{policy}").status_code == 200
    wait_crd(requests, server.url, name)
    discovered = requests.get(f"{server.url}/apis/{group}/v1")
    assert discovered.status_code == 200 and [r["name"] for r in discovered.json()["resources"]] == ["widgets"]


def test_an_invalid_conversion_ca_bundle_keeps_the_crd_from_being_established(server):
    """establishing_controller.go: names accepted, but Established False `InvalidCABundle` (a bundle without a
    certificate is allowed on create: validation.go `allowInvalidCABundle`)."""
    tag = uuid.uuid4().hex[:8]
    group, name = f"c{tag}.example.com", f"widgets.c{tag}.example.com"
    body = crd(group, tag)
    v1 = body["spec"]["versions"][0]
    body["spec"]["versions"] = [{**v1, "storage": False}, {**v1, "name": "v2"}]
    body["spec"]["conversion"] = {"strategy": "Webhook", "webhook": {
        "conversionReviewVersions": ["v1"],
        "clientConfig": {"url": "https://127.0.0.1:1/convert", "caBundle": "bm90IGEgY2VydGlmaWNhdGU="}}}
    r = requests.post(server.url + CRDS, json=body)
    assert r.status_code == 201, r.text
    got = wait_crd(requests, server.url, name,
                   lambda o: (condition(o, "Established") or {}).get("reason") == "InvalidCABundle")
    assert (condition(got, "NamesAccepted") or {}).get("status") == "True"
    assert (condition(got, "Established") or {}).get("message") == "The conversion webhook CABundle is invalid"
    assert requests.get(f"{server.url}/apis/{group}/v2").status_code == 404


def test_resources_are_served_and_discovered_under_the_accepted_names(server):
    """getOrCreateServingInfoFor and the discovery controller use `status.acceptedNames`: a custom `listKind` is
    the lists' kind, and a short name another CRD of the group holds stays out of discovery (NamesAccepted False
    `ShortNamesConflict`, still Established, the old short names served)."""
    tag = uuid.uuid4().hex[:8]
    group = f"a{tag}.example.com"
    first = crd(group, tag)
    first["spec"]["names"]["shortNames"] = ["aa"]
    second = crd(group, tag)
    second["metadata"]["name"] = f"gadgets.{group}"
    second["spec"]["names"] = {"plural": "gadgets", "kind": "Gadget", "listKind": "GadgetCollection",
                               "shortNames": ["bb"]}
    for body in (first, second):
        assert create_crd(requests, server.url, body).status_code == 201
    listed = requests.get(f"{server.url}/apis/{group}/v1/namespaces/default/gadgets")
    assert listed.status_code == 200 and listed.json()["kind"] == "GadgetCollection", listed.text
    # the OpenAPI builder names the list's definition after `spec.names.listKind` too (builder.go newBuilder)
    schemas = requests.get(f"{server.url}/openapi/v3/apis/{group}/v1").json()["components"]["schemas"]
    lists = [name for name in schemas if name.endswith((".v1.GadgetCollection", ".v1.GadgetList"))]
    assert len(lists) == 1 and lists[0].endswith(".GadgetCollection"), lists
    assert schemas[lists[0]]["x-kubernetes-group-version-kind"][0]["kind"] == "GadgetCollection"
    r = requests.patch(f"{server.url}{CRDS}/gadgets.{group}", data='{"spec":{"names":{"shortNames":["aa"]}}}',
                       headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200, r.text
    got = wait_crd(requests, server.url, f"gadgets.{group}",
                   lambda o: (condition(o, "NamesAccepted") or {}).get("reason") == "ShortNamesConflict")
    assert established(got) and got["status"]["acceptedNames"]["shortNames"] == ["bb"]
    resources = {r["name"]: r for r in requests.get(f"{server.url}/apis/{group}/v1").json()["resources"]}
    assert resources["gadgets"]["shortNames"] == ["bb"]
