"""A custom resource's field selector per served version (registry/crconversion/selection.py): each version
accepts its own `selectableFields` only (apiextensions-apiserver conversion/converter.go `ConvertFieldLabel`,
asked with the request's GroupVersionKind: `field label not supported: <label>` for another version's), and
judges the objects converted to it (customresource_handler.go: a storage per served version, whose codec
converts before `SelectionPredicate.Matches` runs, in the etcd3 store and the cacher alike). Here `v1` (stored)
selects on `.spec.a`, `v2` on `.spec.b`, and the conversion webhook moves `spec.a` (v1) to `spec.b` (v2)."""
from __future__ import annotations

import copy
import json
import uuid
from typing import Any, Iterator

import pytest
import requests

from conformance.reference_server.embedded import RunningServer
from conformance.reference_server.registry.crconversion.selection import selectable_fields
from tests.reference_server.crds import create_crd
from tests.reference_server.test_admission_webhooks import Hook, server  # noqa: F401 - a server per module

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
GROUP = "sel.example.com"


def _move(obj: dict[str, Any], desired: str) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    spec = out.setdefault("spec", {})
    if desired.endswith("/v2") and "a" in spec:
        spec["b"] = spec.pop("a")
    if desired.endswith("/v1") and "b" in spec:
        spec["a"] = spec.pop("b")
    out["apiVersion"] = desired
    out["metadata"]["labels"] = {"moved-to": desired.rpartition("/")[2]}  # (`restoreObjectMeta` keeps labels)
    return out


class MoveHook(Hook):
    """Answers ConversionReviews, moving `spec.a` (v1) to `spec.b` (v2) and back, and labelling the object with
    the version it was converted to."""

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        req = body["request"]
        return 200, {"apiVersion": body["apiVersion"], "kind": "ConversionReview", "response": {
            "uid": req["uid"], "result": {"status": "Success"},
            "convertedObjects": [_move(o, req["desiredAPIVersion"]) for o in req["objects"]]}}


@pytest.fixture(scope="module")
def hook() -> Iterator[MoveHook]:
    h = MoveHook()
    yield h
    h.stop()


def _version(name: str, field: str, storage: bool) -> dict[str, Any]:
    spec = {"type": "object", "properties": {field: {"type": "string"}, "c": {"type": "string"}}}
    return {"name": name, "served": True, "storage": storage, "selectableFields": [{"jsonPath": f".spec.{field}"}],
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": spec}}}}


def _crd(plural: str, conversion: dict[str, Any], storage: str = "v1") -> dict[str, Any]:
    return {"metadata": {"name": f"{plural}.{GROUP}"}, "spec": {
        "group": GROUP, "scope": "Namespaced", "names": {"plural": plural, "kind": "Mover"},
        "versions": [_version("v1", "a", storage == "v1"), _version("v2", "b", storage == "v2")],
        "conversion": conversion}}


class Movers:
    """One CRD of the module's server (a fresh plural per test) and its URLs."""

    def __init__(self, server: RunningServer, conversion: dict[str, Any], storage: str = "v1"):
        self.server = server
        self.plural = f"m{uuid.uuid4().hex[:8]}"
        self.name = f"{self.plural}.{GROUP}"
        r = create_crd(requests, server.url, _crd(self.plural, conversion, storage))
        assert r.status_code == 201, r.text

    def url(self, version: str, name: str = "") -> str:
        base = f"{self.server.url}/apis/{GROUP}/{version}/namespaces/default/{self.plural}"
        return f"{base}/{name}" if name else base

    def create(self, version: str, name: str, spec: dict[str, Any]) -> dict[str, Any]:
        r = requests.post(self.url(version), json={"apiVersion": f"{GROUP}/{version}", "kind": "Mover",
                                                   "metadata": {"name": name}, "spec": spec})
        assert r.status_code == 201, r.text
        return r.json()

    def names(self, version: str, selector: str, **params: str) -> list[str]:
        r = requests.get(self.url(version), params={"fieldSelector": selector, **params})
        assert r.status_code == 200, r.text
        return [i["metadata"]["name"] for i in r.json()["items"]]

    def refused(self, version: str, selector: str, **params: str) -> str:
        r = requests.get(self.url(version), params={"fieldSelector": selector, **params})
        assert r.status_code == 400 and r.json()["reason"] == "BadRequest", r.text
        return str(r.json()["message"])

    def delete(self) -> None:
        requests.delete(f"{self.server.url}{CRDS}/{self.name}")


def _webhook(hook: MoveHook) -> dict[str, Any]:
    return {"strategy": "Webhook", "webhook": {
        "clientConfig": {"url": f"{hook.url}/convert", "caBundle": hook.ca_bundle},
        "conversionReviewVersions": ["v1"]}}


@pytest.fixture
def webhooked(server: RunningServer, hook: MoveHook) -> Iterator[Movers]:
    m = Movers(server, _webhook(hook))
    yield m
    m.delete()


@pytest.fixture
def plain(server: RunningServer) -> Iterator[Movers]:
    m = Movers(server, {"strategy": "None"})
    yield m
    m.delete()


def test_each_version_has_its_own_field_labels() -> None:
    crd = _crd("movers", {"strategy": "None"})
    assert selectable_fields(crd, True, "v1") == ("metadata.name", "metadata.namespace", "spec.a")
    assert selectable_fields(crd, True, "v2") == ("metadata.name", "metadata.namespace", "spec.b")
    assert selectable_fields(crd, False, "v2") == ("metadata.name", "spec.b")


def test_another_versions_label_is_not_supported(plain: Movers) -> None:
    plain.create("v1", "x", {"a": "1", "b": "2"})
    assert plain.refused("v1", "spec.b=2") == "field label not supported: spec.b"
    assert plain.refused("v2", "spec.a=1") == "field label not supported: spec.a"
    assert plain.refused("v2", "spec.a=1", watch="1") == "field label not supported: spec.a"
    r = requests.delete(plain.url("v1"), params={"fieldSelector": "spec.b=2"})
    assert r.status_code == 400 and r.json()["message"] == "field label not supported: spec.b", r.text
    # without a webhook the stored object's fields are every version's (v2's schema keeps `b` only)
    assert plain.names("v1", "spec.a=1") == ["x"] and plain.names("v2", "spec.b=") == ["x"]


def test_a_list_selects_on_the_objects_converted_to_its_version(webhooked: Movers) -> None:
    webhooked.create("v1", "x", {"a": "1", "c": "k"})
    webhooked.create("v2", "y", {"b": "2", "c": "k"})  # stored in v1 as spec.a=2
    assert webhooked.names("v1", "spec.a=1") == ["x"] and webhooked.names("v1", "spec.a=2") == ["y"]
    assert webhooked.names("v2", "spec.b=1") == ["x"] and webhooked.names("v2", "spec.b=2") == ["y"]
    assert webhooked.names("v2", "spec.b!=1") == ["y"]
    assert webhooked.refused("v1", "spec.b=1") == "field label not supported: spec.b"
    assert webhooked.refused("v2", "spec.a=1") == "field label not supported: spec.a"
    # the labels a label selector sees are the converted object's too (x is stored as created, unlabelled)
    assert webhooked.names("v2", "", labelSelector="moved-to=v2") == ["x", "y"]
    assert webhooked.names("v1", "", labelSelector="moved-to") == ["y"]
    # a LIST storage serves (at an exact resourceVersion) judges the objects converted too, page by page
    rv = requests.get(webhooked.url("v1")).json()["metadata"]["resourceVersion"]
    assert webhooked.names("v2", "spec.b=2", resourceVersion=rv, resourceVersionMatch="Exact") == ["y"]
    r = requests.get(webhooked.url("v2"), params={"fieldSelector": "spec.b!=0", "limit": "1"})
    assert r.status_code == 200 and [i["metadata"]["name"] for i in r.json()["items"]] == ["x"], r.text
    token = r.json()["metadata"]["continue"]
    r = requests.get(webhooked.url("v2"), params={"fieldSelector": "spec.b!=0", "limit": "1", "continue": token})
    assert r.status_code == 200 and [i["spec"] for i in r.json()["items"]] == [{"b": "2", "c": "k"}], r.text


def test_a_delete_collection_selects_on_the_converted_objects(webhooked: Movers) -> None:
    webhooked.create("v1", "x", {"a": "1"})
    webhooked.create("v1", "y", {"a": "2"})
    r = requests.delete(webhooked.url("v2"), params={"fieldSelector": "spec.b=2"})
    assert r.status_code == 200, r.text
    assert [(i["metadata"]["name"], i["spec"]) for i in r.json()["items"]] == [("y", {"b": "2"})]
    assert webhooked.names("v1", "") == ["x"]


def _events(m: Movers, version: str, selector: str, rv: str, change: Any, count: int) -> list[tuple[str, str, Any]]:
    """The first `count` events of a watch of `version` from `rv` with `selector` while `change()` runs (or all
    it sends in 30 s)."""
    events: list[dict[str, Any]] = []
    with requests.get(m.url(version), params={"watch": "1", "fieldSelector": selector, "resourceVersion": rv,
                                              "timeoutSeconds": "30"}, stream=True, timeout=60) as w:
        assert w.status_code == 200, w.text
        change()
        for line in w.iter_lines():
            if line:
                events.append(json.loads(line))
            if len(events) == count:
                break
    return [(e["type"], e["object"]["metadata"]["name"], e["object"].get("spec")) for e in events]


def test_a_watch_selects_on_the_converted_objects(webhooked: Movers) -> None:
    created = webhooked.create("v1", "x", {"a": "1"})
    rv = created["metadata"]["resourceVersion"]

    def change() -> None:
        for spec in ({"a": "2"}, {"a": "1", "c": "k"}):
            r = requests.patch(webhooked.url("v1", "x"), data=json.dumps({"spec": spec}),
                               headers={"Content-Type": "application/merge-patch+json"})
            assert r.status_code == 200, r.text

    # the cache's objects: leaving the selection is a DELETED of the last state that matched, returning ADDED
    assert _events(webhooked, "v2", "spec.b=1", "0", change, 3) == [
        ("ADDED", "x", {"b": "1"}), ("DELETED", "x", {"b": "1"}), ("ADDED", "x", {"b": "1", "c": "k"})]
    assert _events(webhooked, "v2", "spec.b=2", rv, lambda: None, 2) == [
        ("ADDED", "x", {"b": "2"}), ("DELETED", "x", {"b": "2"})]
    assert webhooked.refused("v1", "spec.b=1", watch="1") == "field label not supported: spec.b"


def test_a_default_added_since_the_write_is_selected(plain: Movers) -> None:
    """The storage's codec decodes an object stored before its schema gained a default with that default
    (`unstructuredDefaulter`): the selectors see it (registry/crd.py `_decoded`)."""
    plain.create("v1", "x", {"c": "k"})
    crd_url = f"{plain.server.url}{CRDS}/{plain.name}"
    crd = requests.get(crd_url).json()
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["a"]["default"] = "d"
    r = requests.put(crd_url, json=crd)
    assert r.status_code == 200, r.text
    assert plain.names("v1", "spec.a=d") == ["x"] and plain.names("v1", "spec.a=") == []
    assert plain.names("v2", "spec.b=") == ["x"]
    assert _events(plain, "v1", "spec.a=d", "", lambda: None, 1) == [("ADDED", "x", {"a": "d", "c": "k"})]


def test_objects_an_older_storage_version_wrote_are_judged_converted(server: RunningServer, hook: MoveHook) -> None:
    """The storage version moves from v2 to v1: what v2 wrote is converted to v1 as v1's storage decodes it,
    before v1's selectors judge it (from the watch cache, and from storage)."""
    m = Movers(server, _webhook(hook), storage="v2")
    try:
        m.create("v2", "x", {"b": "1"})
        m.create("v2", "y", {"b": "2"})
        crd_url = f"{server.url}{CRDS}/{m.name}"
        crd = requests.get(crd_url).json()
        for v in crd["spec"]["versions"]:
            v["storage"] = v["name"] == "v1"
        r = requests.put(crd_url, json=crd)
        assert r.status_code == 200 and r.json()["status"]["storedVersions"] == ["v2", "v1"], r.text
        # (v2's own object is decoded under v2's schema, not the new storage version's: `structuralSchemas`)
        assert requests.get(m.url("v2", "y")).json()["spec"] == {"b": "2"}
        assert m.names("v1", "spec.a=2") == ["y"] and m.names("v2", "spec.b=2") == ["y"]
        rv = requests.get(m.url("v1")).json()["metadata"]["resourceVersion"]
        assert m.names("v1", "spec.a=1", resourceVersion=rv, resourceVersionMatch="Exact") == ["x"]
        r = requests.delete(m.url("v1"), params={"fieldSelector": "spec.a=1"})
        assert r.status_code == 200 and [i["spec"] for i in r.json()["items"]] == [{"a": "1"}], r.text
        assert m.names("v2", "") == ["y"]
    finally:
        m.delete()
