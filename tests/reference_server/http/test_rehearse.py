"""A custom resource write whose validation may be long (a large value under rules or patterns) is rehearsed off
the event loop (http/rehearse.py, storage/rehearsal.py): while its validation runs, other clients are served; the
write itself stays all or nothing, in resourceVersion order, and optimistic concurrency holds (an update checked
against a state that changed meanwhile is refused 409, as upstream's GuaranteedUpdate, or, without a precondition,
validated again against the new state). No timing: the validation is held on an Event the test sets."""
from __future__ import annotations

from typing import Any

import pytest
import requests

from conformance.reference_server.embedded import RunningServer
from conformance.reference_server.registry import crschema

from ..conftest import unique
from ..holding import WAIT, Held, answers
from tests.reference_server.crds import api_version_of, create_crd
from tests.reference_server.ownserver import own_server

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
BIG = "a" * (64 * 1024)  # past registry/rehearsed.py's LARGE


srv = own_server()


@pytest.fixture()
def gadgets(srv: RunningServer) -> str:
    """A CRD whose string field has a pattern, and a namespace: its collection URL."""
    group = f"{unique('g')}.example.com"
    body = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"gadgets.{group}"},
            "spec": {"group": group, "scope": "Namespaced", "names": {"plural": "gadgets", "kind": "Gadget"},
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                         "type": "object", "properties": {"spec": {"type": "object", "properties": {
                             "s": {"type": "string", "pattern": "^a*$"}}}}}}}]}}
    assert create_crd(requests, srv.url, body).status_code == 201
    ns = unique("rehearse")
    assert requests.post(f"{srv.url}/api/v1/namespaces", json={"metadata": {"name": ns}}).status_code == 201
    return f"{srv.url}/apis/{group}/v1/namespaces/{ns}/gadgets"


def where(gadgets: str) -> tuple[str, str]:
    """The storage key of the gadgets (`gadgets.<group>`) and their namespace."""
    group = gadgets.split("/apis/", 1)[1].split("/")[0]
    return f"gadgets.{group}", gadgets.split("/namespaces/", 1)[1].split("/")[0]


def meanwhile(srv: RunningServer, gadgets: str, name: str) -> None:
    """A label written straight to the store: a change the held write did not see (the API's writes of this
    large object would wait for the rehearsal thread)."""
    def label(obj: dict[str, Any]) -> dict[str, Any]:
        obj["metadata"].setdefault("labels", {})["meanwhile"] = "yes"
        return obj
    srv.server.ctx.store.guaranteed_update(*where(gadgets), name, label)


def gadget(url: str, name: str, **meta: Any) -> dict[str, Any]:
    return {"apiVersion": api_version_of(url), "kind": "Gadget", "metadata": {"name": name, **meta}, "spec": {"s": BIG}}


def test_other_clients_are_served_while_a_long_validation_runs(srv, gadgets, monkeypatch):
    held = Held(monkeypatch, crschema, "validate_custom_resource")
    ns_url = f"{srv.url}/api/v1/namespaces/{where(gadgets)[1]}"
    listed = requests.get(f"{ns_url}/configmaps").json()["metadata"]["resourceVersion"]
    watch = requests.get(f"{ns_url}/configmaps", params={"watch": "1", "resourceVersion": listed}, stream=True,
                         timeout=WAIT)
    seen: dict[str, Any] = {}

    def meanwhile_others() -> None:  # the loop answers while the validation is held: a GET, a write, its event
        answers(srv.url)
        seen["cm"] = requests.post(f"{ns_url}/configmaps", json={"metadata": {"name": "meanwhile"}}, timeout=5)
        assert seen["cm"].status_code == 201
        line = next(watch.iter_lines())
        assert b'"ADDED"' in line and b'"meanwhile"' in line
        assert requests.get(f"{gadgets}/g1", timeout=5).status_code == 404  # nothing stored before the commit
    try:
        created = held.request("POST", gadgets, meanwhile_others, json=gadget(gadgets, "g1"))
    finally:
        watch.close()
    assert created.status_code == 201, created.text
    assert int(created.json()["metadata"]["resourceVersion"]) > int(seen["cm"].json()["metadata"]["resourceVersion"])
    assert held.calls == 1  # the commit reused the rehearsal's validation


def test_an_update_whose_object_changed_meanwhile_is_a_conflict(srv, gadgets, monkeypatch):
    first = requests.post(gadgets, json=gadget(gadgets, "g2")).json()
    body = gadget(gadgets, "g2", resourceVersion=first["metadata"]["resourceVersion"], labels={"put": "yes"})
    r = Held(monkeypatch, crschema, "validate_custom_resource").request(
        "PUT", f"{gadgets}/g2", lambda: meanwhile(srv, gadgets, "g2"), json=body)
    assert r.status_code == 409, r.text
    assert r.json()["reason"] == "Conflict"
    got = requests.get(f"{gadgets}/g2").json()
    assert got["metadata"]["labels"] == {"meanwhile": "yes"}


def test_a_patch_is_applied_again_to_the_state_written_meanwhile(srv, gadgets, monkeypatch):
    requests.post(gadgets, json=gadget(gadgets, "g3"))
    r = Held(monkeypatch, crschema, "validate_custom_resource").request(
        "PATCH", f"{gadgets}/g3", lambda: meanwhile(srv, gadgets, "g3"),
        json={"metadata": {"labels": {"patched": "yes"}}}, headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200, r.text
    assert r.json()["metadata"]["labels"] == {"meanwhile": "yes", "patched": "yes"}


def test_a_small_custom_resource_is_not_rehearsed(srv, gadgets, monkeypatch):
    calls = []
    from conformance.reference_server.http import rehearse

    original = rehearse._rehearse
    monkeypatch.setattr(rehearse, "_rehearse", lambda *a: calls.append(a) or original(*a))
    body = gadget(gadgets, "small")
    body["spec"]["s"] = "aaa"
    assert requests.post(gadgets, json=body).status_code == 201
    assert not calls
    assert requests.post(gadgets, json=gadget(gadgets, "large")).status_code == 201
    assert len(calls) == 1


def test_a_request_that_times_out_during_its_rehearsal_is_never_stored(srv, gadgets, monkeypatch):
    held = Held(monkeypatch, crschema, "validate_custom_resource")
    # the request's deadline answers while the rehearsal is held (WithRequestDeadline's 504): the response is
    # read before the function is released
    r = held.request("POST", gadgets, lambda: None, answered_first=True, params={"timeout": "1s"},
                     json=gadget(gadgets, "late"))
    assert r.status_code == 504, r.text
    assert r.json()["reason"] == "Timeout"
    # the rehearsal thread takes writes in turn: once the next rehearsed write is done, the held one is over too
    assert requests.post(gadgets, json=gadget(gadgets, "next")).status_code == 201
    assert requests.get(f"{gadgets}/late").status_code == 404


def test_a_large_crd_is_checked_off_the_loop(srv, monkeypatch):
    from conformance.reference_server.registry import crdrules

    group = f"{unique('g')}.example.com"
    rule = " && ".join(["self.s.size() >= 0"] * 250)  # a long rule: some 2,000 tokens for cel-go's parser
    body = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"gadgets.{group}"},
            "spec": {"group": group, "scope": "Namespaced", "names": {"plural": "gadgets", "kind": "Gadget"},
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                         "type": "object", "properties": {"spec": {
                             "type": "object", "properties": {"s": {"type": "string", "maxLength": 10}},
                             "x-kubernetes-validations": [{"rule": rule}]}}}}}]}}
    r = Held(monkeypatch, crdrules, "validate_crd_rules").request(
        "POST", srv.url + CRDS, lambda: answers(srv.url), json=body)
    assert r.status_code == 201, r.text
