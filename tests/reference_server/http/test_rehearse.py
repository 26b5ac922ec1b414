"""A custom resource write whose validation may be long (a large value under rules or patterns) is rehearsed off
the event loop (http/rehearse.py, storage/rehearsal.py): while its validation runs, other clients are served; the
write itself stays all or nothing, in resourceVersion order, and optimistic concurrency holds (an update checked
against a state that changed meanwhile is refused 409, as upstream's GuaranteedUpdate, or, without a precondition,
validated again against the new state). No timing: the validation is held on an Event the test sets."""
from __future__ import annotations

import threading
from typing import Any, Iterator

import pytest
import requests

from conformance.reference_server.embedded import RunningServer, start_embedded
from conformance.reference_server.registry import crschema

from ..conftest import unique

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
BIG = "a" * (64 * 1024)  # past registry/rehearsed.py's LARGE
WAIT = 30.0


@pytest.fixture(scope="module")
def srv() -> Iterator[RunningServer]:
    server = start_embedded()
    yield server
    server.stop()


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
    assert requests.post(srv.url + CRDS, json=body).status_code == 201
    ns = unique("rehearse")
    assert requests.post(f"{srv.url}/api/v1/namespaces", json={"metadata": {"name": ns}}).status_code == 201
    return f"{srv.url}/apis/{group}/v1/namespaces/{ns}/gadgets"


class Held:
    """The custom resource schema validation, held until `release` (once), noting that it started."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.entered, self.released = threading.Event(), threading.Event()
        self.calls = 0
        original = crschema.validate_custom_resource

        def held(*args: Any, **kw: Any) -> Any:
            self.calls += 1
            if self.calls == 1:
                self.entered.set()
                self.released.wait(WAIT)
            return original(*args, **kw)
        monkeypatch.setattr(crschema, "validate_custom_resource", held)


def background(method: str, url: str, **kw: Any) -> tuple[threading.Thread, dict[str, Any]]:
    out: dict[str, Any] = {}

    def run() -> None:
        out["response"] = requests.request(method, url, timeout=WAIT * 2, **kw)
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, out


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


def gadget(name: str, **meta: Any) -> dict[str, Any]:
    return {"apiVersion": "", "kind": "Gadget", "metadata": {"name": name, **meta}, "spec": {"s": BIG}}


def test_other_clients_are_served_while_a_long_validation_runs(srv, gadgets, monkeypatch):
    held = Held(monkeypatch)
    ns_url = f"{srv.url}/api/v1/namespaces/{where(gadgets)[1]}"
    listed = requests.get(f"{ns_url}/configmaps").json()["metadata"]["resourceVersion"]
    watch = requests.get(f"{ns_url}/configmaps", params={"watch": "1", "resourceVersion": listed}, stream=True,
                         timeout=WAIT)
    t, out = background("POST", gadgets, json=gadget("g1"))
    try:
        assert held.entered.wait(WAIT)
        # the loop answers while the validation is held: a GET, a write, and that write's watch event
        assert requests.get(srv.url + "/version", timeout=5).status_code == 200
        r = requests.post(f"{ns_url}/configmaps", json={"metadata": {"name": "meanwhile"}}, timeout=5)
        assert r.status_code == 201
        line = next(watch.iter_lines())
        assert b'"ADDED"' in line and b'"meanwhile"' in line
        assert requests.get(f"{gadgets}/g1", timeout=5).status_code == 404  # nothing stored before the commit
    finally:
        held.released.set()
        t.join(WAIT)
        watch.close()
    created = out["response"]
    assert created.status_code == 201, created.text
    assert int(created.json()["metadata"]["resourceVersion"]) > int(r.json()["metadata"]["resourceVersion"])
    assert held.calls == 1  # the commit reused the rehearsal's validation


def test_an_update_whose_object_changed_meanwhile_is_a_conflict(srv, gadgets, monkeypatch):
    first = requests.post(gadgets, json=gadget("g2")).json()
    held = Held(monkeypatch)
    body = gadget("g2", resourceVersion=first["metadata"]["resourceVersion"], labels={"put": "yes"})
    t, out = background("PUT", f"{gadgets}/g2", json=body)
    try:
        assert held.entered.wait(WAIT)
        meanwhile(srv, gadgets, "g2")
    finally:
        held.released.set()
        t.join(WAIT)
    r = out["response"]
    assert r.status_code == 409, r.text
    assert r.json()["reason"] == "Conflict"
    got = requests.get(f"{gadgets}/g2").json()
    assert got["metadata"]["labels"] == {"meanwhile": "yes"}


def test_a_patch_is_applied_again_to_the_state_written_meanwhile(srv, gadgets, monkeypatch):
    requests.post(gadgets, json=gadget("g3"))
    held = Held(monkeypatch)
    t, out = background("PATCH", f"{gadgets}/g3", json={"metadata": {"labels": {"patched": "yes"}}},
                        headers={"Content-Type": "application/merge-patch+json"})
    try:
        assert held.entered.wait(WAIT)
        meanwhile(srv, gadgets, "g3")
    finally:
        held.released.set()
        t.join(WAIT)
    r = out["response"]
    assert r.status_code == 200, r.text
    assert r.json()["metadata"]["labels"] == {"meanwhile": "yes", "patched": "yes"}


def test_a_small_custom_resource_is_not_rehearsed(srv, gadgets, monkeypatch):
    calls = []
    from conformance.reference_server.http import rehearse

    original = rehearse._rehearse
    monkeypatch.setattr(rehearse, "_rehearse", lambda *a: calls.append(a) or original(*a))
    body = gadget("small")
    body["spec"]["s"] = "aaa"
    assert requests.post(gadgets, json=body).status_code == 201
    assert not calls
    assert requests.post(gadgets, json=gadget("large")).status_code == 201
    assert len(calls) == 1


def test_a_request_that_times_out_during_its_rehearsal_is_never_stored(srv, gadgets, monkeypatch):
    held = Held(monkeypatch)
    t, out = background("POST", gadgets, params={"timeout": "1s"}, json=gadget("late"))
    try:
        assert held.entered.wait(WAIT)
        t.join(WAIT)  # the request's deadline answers while the rehearsal is held (WithRequestDeadline's 504)
        r = out["response"]
        assert r.status_code == 504, r.text
        assert r.json()["reason"] == "Timeout"
    finally:
        held.released.set()
    # the rehearsal thread takes writes in turn: once the next rehearsed write is done, the held one is over too
    assert requests.post(gadgets, json=gadget("next")).status_code == 201
    assert requests.get(f"{gadgets}/late").status_code == 404


def test_a_large_crd_is_checked_off_the_loop(srv, monkeypatch):
    from conformance.reference_server.registry import crdrules

    entered, released = threading.Event(), threading.Event()
    original = crdrules.validate_crd_rules

    def held(*args: Any, **kw: Any) -> Any:
        entered.set()
        released.wait(WAIT)
        return original(*args, **kw)
    monkeypatch.setattr(crdrules, "validate_crd_rules", held)
    group = f"{unique('g')}.example.com"
    rule = " && ".join(["self.s.size() >= 0"] * 250)  # a long rule: some 2,000 tokens for cel-go's parser
    body = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"gadgets.{group}"},
            "spec": {"group": group, "scope": "Namespaced", "names": {"plural": "gadgets", "kind": "Gadget"},
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                         "type": "object", "properties": {"spec": {
                             "type": "object", "properties": {"s": {"type": "string", "maxLength": 10}},
                             "x-kubernetes-validations": [{"rule": rule}]}}}}}]}}
    t, out = background("POST", srv.url + CRDS, json=body)
    try:
        assert entered.wait(WAIT)
        assert requests.get(srv.url + "/version", timeout=5).status_code == 200
    finally:
        released.set()
        t.join(WAIT)
    assert out["response"].status_code == 201, out["response"].text
