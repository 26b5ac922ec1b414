"""CRD conversion webhooks (registry/crconversion/, http/crconversion.py): a two-version CRD (`v1` stored,
`v1beta1` served) whose webhook (the admission tests' local HTTPS server, answering ConversionReviews here)
renames `spec.replicas` (v1) to `spec.count` (v1beta1). Checked: the ConversionReview the server sends, the
converted objects of get, list, watch, create, update and patch, and each failure's status and message as
`webhook_converter.go` words it."""
from __future__ import annotations

import copy
import json
import re
import uuid
from typing import Any, Iterator

import pytest
import requests

from conformance.reference_server.embedded import RunningServer
from tests.reference_server.test_admission_webhooks import Hook, server  # noqa: F401 - a server per module
from tests.reference_server.crds import create_crd

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
GROUP = "conv.example.com"
SCHEMA = {"openAPIV3Schema": {"type": "object", "properties": {
    "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}}


def _rename(obj: dict[str, Any], desired: str) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    spec = out.setdefault("spec", {})
    if desired.endswith("/v1beta1") and "replicas" in spec:
        spec["count"] = spec.pop("replicas")
    if desired.endswith("/v1") and "count" in spec:
        spec["replicas"] = spec.pop("count")
    out["apiVersion"] = desired
    return out


class ConversionHook(Hook):
    """Answers ConversionReviews: `/convert` (renames the field), `/labels` (also sets a label and changes
    metadata it may not: ignored), `/failure`, `/picky` (fails objects named `bad...`), `/empty`, `/wronguid`,
    `/wrongversion`, `/rename` (another name), `/junk` (adds a root field), `/broken` (HTTP 500), `/rejected`
    (400), `/status` (500 with a Status); AdmissionReviews as the admission tests' `Hook`."""

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        if body.get("kind") == "AdmissionReview":  # (the admission webhooks' paths)
            return super().answer(path, body)
        req = body["request"]
        if path == "/broken":
            return 500, {"oops": True}
        if path == "/rejected":
            return 400, {"oops": True}
        if path == "/status":
            return 500, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": "no converter here"}
        objects = [_rename(o, req["desiredAPIVersion"]) for o in req["objects"]]
        result: dict[str, Any] = {"status": "Success"}
        uid = req["uid"]
        if path == "/labels":
            for o in objects:
                o["metadata"]["labels"] = {"converted-to": req["desiredAPIVersion"].split("/")[1]}
                o["metadata"]["generation"] = 42
        if path == "/failure" or (path == "/picky" and any(o["metadata"]["name"].startswith("bad")
                                                            for o in req["objects"])):
            objects, result = [], {"status": "Failure", "message": "custom webhook conversion error"}
        if path == "/empty":
            objects = []
        if path == "/wronguid":
            uid = "nope"
        if path == "/wrongversion":
            objects = [{**o, "apiVersion": f"{GROUP}/v2"} for o in objects]
        if path == "/rename":
            for o in objects:
                o["metadata"]["name"] = "other"
        if path == "/junk":  # a field no schema specifies, at the root
            for o in objects:
                o["junk"] = True
        return 200, {"apiVersion": body["apiVersion"], "kind": "ConversionReview",
                     "response": {"uid": uid, "convertedObjects": objects, "result": result}}


@pytest.fixture(scope="module")
def hook() -> Iterator[ConversionHook]:
    h = ConversionHook()
    yield h
    h.stop()


class Widgets:
    """One CRD of the module's server (a fresh plural per test) and its URLs."""

    def __init__(self, server: RunningServer, hook: ConversionHook, path: str | None = "/convert",
                 review_versions: tuple[str, ...] = ("v1", "v1beta1"), storage: str = "v1",
                 beta_schema: dict[str, Any] = SCHEMA, v1_schema: dict[str, Any] = SCHEMA):
        self.server, self.hook = server, hook
        self.plural = f"w{uuid.uuid4().hex[:8]}"
        self.name = f"{self.plural}.{GROUP}"
        crd = {"metadata": {"name": self.name}, "spec": {
            "group": GROUP, "scope": "Namespaced", "names": {"plural": self.plural, "kind": "Widget"},
            "versions": [{"name": "v1", "served": True, "storage": storage == "v1", "schema": v1_schema},
                         {"name": "v1beta1", "served": True, "storage": storage == "v1beta1",
                          "schema": beta_schema}],
            "conversion": self.conversion(path, review_versions)}}
        r = create_crd(requests, server.url, crd)
        assert r.status_code == 201, r.text

    def conversion(self, path: str | None, review_versions: tuple[str, ...] = ("v1", "v1beta1"),
                   client_config: dict[str, Any] | None = None) -> dict[str, Any]:
        """The CRD's `spec.conversion`: by webhook at `path` (or `client_config`), or `None` (path None)."""
        if path is None and client_config is None:
            return {"strategy": "None"}
        cc = client_config or {"url": f"{self.hook.url}{path}", "caBundle": self.hook.ca_bundle}
        return {"strategy": "Webhook", "webhook": {"clientConfig": cc,
                                                   "conversionReviewVersions": list(review_versions)}}

    def use(self, path: str | None, **kw: Any) -> None:
        """Point the CRD's webhook at another path (or `client_config`)."""
        r = requests.patch(f"{self.server.url}{CRDS}/{self.name}", data=json.dumps(
            {"spec": {"conversion": self.conversion(path, **kw)}}),
            headers={"Content-Type": "application/merge-patch+json"})
        assert r.status_code == 200, r.text

    def url(self, version: str, name: str = "", ns: str = "default") -> str:
        base = f"{self.server.url}/apis/{GROUP}/{version}/namespaces/{ns}/{self.plural}"
        return f"{base}/{name}" if name else base

    def create(self, version: str, name: str, spec: dict[str, Any], ns: str = "default") -> requests.Response:
        return requests.post(self.url(version, ns=ns), json={"apiVersion": f"{GROUP}/{version}", "kind": "Widget",
                                                             "metadata": {"name": name}, "spec": spec})


@pytest.fixture
def widgets(server: RunningServer, hook: ConversionHook) -> Iterator[Widgets]:
    w = Widgets(server, hook)
    yield w
    requests.delete(f"{server.url}{CRDS}/{w.name}")


def reviews_since(hook: ConversionHook, start: int, *uids: str) -> list[tuple[str, dict[str, Any]]]:
    """The reviews since `start`; with `uids`, only those of these objects (the watch caches of other tests' CRDs
    may convert in the background: their deletion, say)."""
    return [(p, b) for p, b in hook.reviews[start:]
            if not uids or any(o["metadata"].get("uid") in uids for o in b["request"].get("objects") or [])]


def settle(w: Widgets, rv: str = "") -> None:
    """Wait until each served version's watch cache (registry/crconversion/cache.py) has converted the change at
    `rv` (a watch of the version from just before it gets that change from the cache, or its 410 when the cache,
    started by that watch, LISTed after it; without `rv`: until each cache has made its first LIST), so that what
    the webhook is asked next is a request's."""
    for version in ("v1", "v1beta1"):
        start = str(int(rv) - 1) if rv else "0"
        with requests.get(w.url(version), params={"watch": "1", "resourceVersion": start, "timeoutSeconds": "5"},
                          stream=True, timeout=30) as r:
            assert r.status_code == 200, r.text
            for line in r.iter_lines():
                ev = json.loads(line) if line else None
                if ev and (not rv or ev["type"] == "ERROR" or  # (410: the cache's first LIST came after `rv`)
                           int(ev["object"]["metadata"]["resourceVersion"]) >= int(rv)):
                    break


def test_create_in_served_version_stores_the_storage_version(widgets: Widgets, hook: ConversionHook) -> None:
    start = len(hook.reviews)
    r = widgets.create("v1beta1", "a", {"count": 3})
    assert r.status_code == 201, r.text
    assert r.json()["apiVersion"] == f"{GROUP}/v1beta1" and r.json()["spec"] == {"count": 3}
    uid = r.json()["metadata"]["uid"]
    sent = reviews_since(hook, start, uid)
    path, review = sent[0]
    assert path == "/convert?timeout=30s"
    assert (review["apiVersion"], review["kind"]) == ("apiextensions.k8s.io/v1", "ConversionReview")
    req = review["request"]
    assert req["desiredAPIVersion"] == f"{GROUP}/v1" and re.fullmatch(r"[0-9a-f-]{36}", req["uid"])
    assert [o["apiVersion"] for o in req["objects"]] == [f"{GROUP}/v1beta1"]
    sent_meta = req["objects"][0]["metadata"]  # as it is stored: uid and creationTimestamp set, no resourceVersion
    assert req["objects"][0]["spec"] == {"count": 3} and sent_meta["name"] == "a" and "resourceVersion" not in sent_meta
    assert sent_meta["uid"] == r.json()["metadata"]["uid"] and sent_meta["creationTimestamp"]
    # the answer went back through the webhook, to v1beta1
    assert sent[-1][1]["request"]["desiredAPIVersion"] == f"{GROUP}/v1beta1"
    # stored in v1: read in v1 (no webhook call) and in v1beta1 (one)
    settle(widgets, r.json()["metadata"]["resourceVersion"])  # (the v1beta1 cache's conversion of the change)
    start = len(hook.reviews)
    got = requests.get(widgets.url("v1", "a")).json()
    assert got["apiVersion"] == f"{GROUP}/v1" and got["spec"] == {"replicas": 3}
    assert reviews_since(hook, start, uid) == []
    got = requests.get(widgets.url("v1beta1", "a")).json()
    assert got["apiVersion"] == f"{GROUP}/v1beta1" and got["spec"] == {"count": 3}
    (_, read), = reviews_since(hook, start, uid)
    assert read["request"]["objects"][0]["spec"] == {"replicas": 3}


def test_list_watch_update_patch_are_converted(widgets: Widgets, hook: ConversionHook) -> None:
    for i, name in enumerate(("a", "b")):
        assert widgets.create("v1", name, {"replicas": i + 1}).status_code == 201
    listed = requests.get(widgets.url("v1beta1")).json()
    assert listed["apiVersion"] == f"{GROUP}/v1beta1"
    assert [(o["apiVersion"], o["spec"]) for o in listed["items"]] == [(f"{GROUP}/v1beta1", {"count": 1}),
                                                                       (f"{GROUP}/v1beta1", {"count": 2})]
    with requests.get(widgets.url("v1beta1"), params={"watch": "1", "resourceVersion": "0", "timeoutSeconds": "1"},
                      stream=True, timeout=30) as w:
        events = [json.loads(line) for line in w.iter_lines() if line]
    assert [(e["type"], e["object"]["apiVersion"], e["object"]["spec"]) for e in events] == [
        ("ADDED", f"{GROUP}/v1beta1", {"count": 1}), ("ADDED", f"{GROUP}/v1beta1", {"count": 2})]
    obj = requests.get(widgets.url("v1beta1", "a")).json()
    obj["spec"]["count"] = 5
    r = requests.put(widgets.url("v1beta1", "a"), json=obj)
    assert r.status_code == 200 and r.json()["spec"] == {"count": 5}, r.text
    assert requests.get(widgets.url("v1", "a")).json()["spec"] == {"replicas": 5}
    r = requests.patch(widgets.url("v1beta1", "b"), data=json.dumps({"spec": {"count": 7}}),
                       headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200 and r.json()["spec"] == {"count": 7}, r.text
    assert requests.get(widgets.url("v1", "b")).json()["spec"] == {"replicas": 7}
    r = requests.delete(widgets.url("v1beta1"))
    assert r.status_code == 200, r.text
    assert sorted((o["apiVersion"], o["spec"]["count"]) for o in r.json()["items"]) == [
        (f"{GROUP}/v1beta1", 5), (f"{GROUP}/v1beta1", 7)]


def test_webhook_sets_labels_not_other_metadata(widgets: Widgets) -> None:
    created = widgets.create("v1", "a", {"replicas": 1}).json()
    widgets.use("/labels")
    got = requests.get(widgets.url("v1beta1", "a")).json()
    assert got["metadata"]["labels"] == {"converted-to": "v1beta1"}
    assert got["metadata"]["generation"] == created["metadata"]["generation"] == 1


def test_v1beta1_review(widgets: Widgets, hook: ConversionHook) -> None:
    created = widgets.create("v1", "a", {"replicas": 1})
    assert created.status_code == 201
    widgets.use("/convert", review_versions=("v1beta1", "v1"))
    settle(widgets)
    got = requests.get(widgets.url("v1beta1", "a"))
    assert got.status_code == 200 and got.json()["spec"] == {"count": 1}
    assert reviews_since(hook, 0, created.json()["metadata"]["uid"])[-1][1]["apiVersion"] == \
        "apiextensions.k8s.io/v1beta1"


FAILURES = [
    ("/failure", "conversion webhook for {g}/v1, Kind=Widget failed: custom webhook conversion error"),
    ("/empty", "conversion webhook for {g}/v1, Kind=Widget returned 0 objects, expected 1"),
    ("/wronguid", 'conversion webhook for {g}/v1, Kind=Widget failed: expected response.uid="{uid}", got "nope"'),
    ("/wrongversion", "conversion webhook for {g}/v1, Kind=Widget returned invalid object at index 0: invalid "
                      "groupVersion (expected {g}/v1beta1, received {g}/v2)"),
    ("/rename", "conversion webhook for {g}/v1, Kind=Widget returned invalid object: must have the same name: "
                "a != other"),
    # the rest client's words (client-go rest/request.go): a JSON body that is no Status is "unknown"
    ("/broken", 'conversion webhook for {g}/v1, Kind=Widget failed: an error on the server ("unknown") has '
                "prevented the request from succeeding"),
    ("/rejected", "conversion webhook for {g}/v1, Kind=Widget failed: the server rejected our request for an "
                  "unknown reason"),
    ("/status", "conversion webhook for {g}/v1, Kind=Widget failed: no converter here"),
]


@pytest.mark.parametrize("path, message", FAILURES)
def test_failed_conversion(widgets: Widgets, hook: ConversionHook, path: str, message: str) -> None:
    """A GET, and a LIST with a limit and no selector (which a watch cache not ready leaves to storage:
    `shouldDelegateListOnNotReadyCache`), convert from storage and fail; any other LIST is the v1beta1 watch
    cache's, which cannot fill: 429 with its LIST's error (`cacher.go` `GetList`)."""
    assert widgets.create("v1", "a", {"replicas": 1}).status_code == 201
    widgets.use(path)
    for url, params in ((widgets.url("v1beta1", "a"), {}), (widgets.url("v1beta1"), {"limit": "10"})):
        r = requests.get(url, params=params)
        assert r.status_code == 500, r.text
        uid = m.group(1) if (m := re.search(r'expected response.uid="([^"]+)"', r.json()["message"])) else ""
        assert not uid or uid in {b["request"]["uid"] for _, b in hook.reviews}  # one the server sent
        assert r.json() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                            "message": message.format(g=GROUP, uid=uid), "code": 500}
    for params in ({}, {"resourceVersion": "0"}, {"limit": "10", "labelSelector": "x!=y"}):
        r = requests.get(widgets.url("v1beta1"), params=params)
        assert r.status_code == 429, r.text
        assert r.json()["message"].startswith(f"storage is (re)initializing: failed to list {GROUP}/v1beta1, "
                                              f"Kind=Widget: conversion webhook for {GROUP}/v1, Kind=Widget ")
        assert r.json()["details"] == {"retryAfterSeconds": 1}


def test_failed_conversion_writes_nothing(widgets: Widgets) -> None:
    widgets.use("/failure")
    r = widgets.create("v1beta1", "b", {"count": 1})
    assert r.status_code == 500
    assert r.json()["message"] == (f"conversion webhook for {GROUP}/v1beta1, Kind=Widget failed: custom webhook "
                                   "conversion error")
    assert requests.get(widgets.url("v1", "b")).status_code == 404


def test_failed_conversion_keeps_the_watch_cache_from_filling(widgets: Widgets) -> None:
    """The v1beta1 watch cache's LIST cannot convert the object: a watch of v1beta1 is answered 429 (cacher.go)
    where etcd3's watcher would have ended it with an InternalError event; v1's is served."""
    assert widgets.create("v1", "a", {"replicas": 1}).status_code == 201
    widgets.use("/failure")
    params = {"watch": "1", "resourceVersion": "0", "timeoutSeconds": "1"}
    r = requests.get(widgets.url("v1beta1"), params=params)
    assert r.status_code == 429 and r.json()["message"] == (
        f"storage is (re)initializing: failed to list {GROUP}/v1beta1, Kind=Widget: conversion webhook for "
        f"{GROUP}/v1, Kind=Widget failed: custom webhook conversion error"), r.text
    with requests.get(widgets.url("v1"), params=params, stream=True, timeout=30) as w:
        events = [json.loads(line) for line in w.iter_lines() if line]
    assert [(e["type"], e["object"]["spec"]) for e in events] == [("ADDED", {"replicas": 1})]


def test_service_reference_fails_as_on_a_cluster_without_endpoints(widgets: Widgets) -> None:
    assert widgets.create("v1", "a", {"replicas": 1}).status_code == 201
    widgets.use("", client_config={"url": None,  # (a merge patch: the URL removed)
                                   "service": {"name": "convert", "namespace": "default", "path": "/convert"}})
    r = requests.get(widgets.url("v1beta1", "a"))
    assert r.status_code == 500
    assert r.json()["message"] == (f"conversion webhook for {GROUP}/v1, Kind=Widget failed: Post "
                                   '"https://convert.default.svc:443/convert?timeout=30s": service "convert" not '
                                   "found")
    crd = requests.get(f"{widgets.server.url}{CRDS}/{widgets.name}").json()
    assert crd["spec"]["conversion"]["webhook"]["clientConfig"]["service"]["port"] == 443  # v1's default


def test_server_side_apply_in_a_converted_version(widgets: Widgets, hook: ConversionHook) -> None:
    """Apply through v1beta1: merged in v1beta1, stored in v1, each manager's entry in the version it wrote in."""
    assert widgets.create("v1", "a", {"replicas": 1}).status_code == 201
    body = {"apiVersion": f"{GROUP}/v1beta1", "kind": "Widget", "metadata": {"name": "a"},
            "spec": {"count": 2, "color": "red"}}
    r = requests.patch(widgets.url("v1beta1", "a"), params={"fieldManager": "applier"}, data=json.dumps(body),
                       headers={"Content-Type": "application/apply-patch+yaml"})
    assert r.status_code == 409, r.text  # spec.count is spec.replicas, the creator's: named in its version
    assert r.json()["message"] == ("Apply failed with 1 conflict: conflict with \"python-requests\" using "
                                   f"{GROUP}/v1: .spec.replicas")
    r = requests.patch(widgets.url("v1beta1", "a"), params={"fieldManager": "applier", "force": "true"},
                       data=json.dumps(body), headers={"Content-Type": "application/apply-patch+yaml"})
    assert r.status_code == 200, r.text
    assert r.json()["spec"] == {"count": 2, "color": "red"}
    stored = requests.get(widgets.url("v1", "a")).json()
    assert stored["spec"] == {"replicas": 2, "color": "red"}
    assert {(m["manager"], m["operation"], m["apiVersion"]) for m in stored["metadata"]["managedFields"]} == {
        ("python-requests", "Update", f"{GROUP}/v1"), ("applier", "Apply", f"{GROUP}/v1beta1")}


def test_namespace_deletion_waits_for_the_webhook(server: RunningServer, hook: ConversionHook) -> None:
    """The namespace controller deletes custom resources in their preferred version (v1 here, stored in v1beta1):
    while the webhook fails, the namespace stays Terminating with the error in its conditions."""
    w = Widgets(server, hook, "/failure", storage="v1beta1")
    ns = f"conv-{uuid.uuid4().hex[:8]}"
    try:
        assert requests.post(f"{server.url}/api/v1/namespaces", json={"metadata": {"name": ns}}).status_code == 201
        assert w.create("v1beta1", "a", {"count": 1}, ns=ns).status_code == 201
        assert requests.delete(f"{server.url}/api/v1/namespaces/{ns}").status_code == 200
        message = f"conversion webhook for {GROUP}/v1beta1, Kind=Widget failed: custom webhook conversion error"
        condition = wait_for_condition(server, ns, "NamespaceDeletionContentFailure")
        assert (condition["status"], condition["reason"], condition["message"]) == (
            "True", "ContentDeletionFailed", f"Failed to delete all resource types, 1 remaining: {message}")
        assert requests.get(w.url("v1beta1", "a", ns=ns)).status_code == 200
        w.use("/convert")
        wait_for_gone(server, ns)
    finally:
        requests.delete(f"{server.url}{CRDS}/{w.name}")


def _watch_namespace(server: RunningServer, ns: str, until: Any) -> None:
    """Watch namespace `ns` until `until(event)` holds (30 s at most)."""
    with requests.get(f"{server.url}/api/v1/namespaces", stream=True, timeout=40,
                      params={"watch": "1", "fieldSelector": f"metadata.name={ns}", "timeoutSeconds": "30"}) as r:
        for line in r.iter_lines():
            if line and until(json.loads(line)):
                return
    raise AssertionError(f"namespace {ns}: not seen in time")


def wait_for_condition(server: RunningServer, ns: str, typ: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = []

    def holds(ev: dict[str, Any]) -> bool:
        conds = (ev["object"].get("status") or {}).get("conditions") or []
        found[:] = [c for c in conds if c["type"] == typ and c["status"] == "True"]
        return bool(found)
    _watch_namespace(server, ns, holds)
    return found[0]


def wait_for_gone(server: RunningServer, ns: str) -> None:
    _watch_namespace(server, ns, lambda ev: ev["type"] == "DELETED")


def test_a_request_is_validated_in_its_version(server: RunningServer, hook: ConversionHook) -> None:
    """v1beta1's own schema (`count` at most 10, `unit` defaulted): validated and defaulted before the conversion
    to v1, so a refused object is never sent to the webhook."""
    beta = {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "count": {"type": "integer", "maximum": 10}, "unit": {"type": "string", "default": "pcs"}},
        "x-kubernetes-preserve-unknown-fields": True}}}}
    w = Widgets(server, hook, beta_schema=beta)
    try:
        start = len(hook.reviews)
        r = w.create("v1beta1", "big", {"count": 20})
        assert r.status_code == 422, r.text
        assert r.json()["details"]["causes"] == [{"reason": "FieldValueInvalid", "field": "spec.count",
                                                  "message": "Invalid value: 20: spec.count in body should be less "
                                                             "than or equal to 10"}]
        assert not [o for _, b in hook.reviews[start:] for o in b["request"].get("objects") or []
                    if o["metadata"]["name"] == "big"]  # (other tests' CRDs' caches may convert meanwhile)
        r = w.create("v1beta1", "small", {"count": 2})
        assert r.status_code == 201 and r.json()["spec"] == {"count": 2, "unit": "pcs"}, r.text
        sent = [o for _, b in hook.reviews[start:] for o in b["request"].get("objects") or []
                if o["metadata"]["name"] == "small"]
        assert sent[0]["spec"] == {"count": 2, "unit": "pcs"}
        assert requests.get(w.url("v1", "small")).json()["spec"] == {"replicas": 2, "unit": "pcs"}
        obj = r.json()
        obj["spec"]["count"] = 11
        r = requests.put(w.url("v1beta1", "small"), json=obj)
        assert r.status_code == 422 and r.json()["details"]["causes"][0]["field"] == "spec.count", r.text
    finally:
        requests.delete(f"{server.url}{CRDS}/{w.name}")


def test_admission_webhooks_around_a_converted_write(widgets: Widgets, hook: ConversionHook) -> None:
    """A mutating admission webhook patches the request's version; a validating one judges the object as it would
    be stored, in the request's version, and refuses it: the write is stored only when admitted."""
    hooks = {"sideEffects": "None", "admissionReviewVersions": ["v1"],
             "rules": [{"operations": ["CREATE"], "apiGroups": [GROUP], "apiVersions": ["*"],
                        "resources": [widgets.plural]}]}
    base = f"{widgets.server.url}/apis/admissionregistration.k8s.io/v1"
    cfg = {"metadata": {"name": widgets.plural}, "webhooks": [
        {"name": "label.example.com", "clientConfig": {"url": f"{hook.url}/label", "caBundle": hook.ca_bundle},
         **hooks}]}
    assert requests.post(f"{base}/mutatingwebhookconfigurations", json=cfg).status_code == 201
    try:
        start = len(hook.reviews)
        r = widgets.create("v1beta1", "a", {"count": 1})
        assert r.status_code == 201, r.text
        assert r.json()["metadata"]["labels"] == {"hooked": "yes"} and r.json()["spec"] == {"count": 1}
        # the request ran again after the conversion: its admission webhook was called once all the same
        assert [b["kind"] for _, b in hook.reviews[start:]].count("AdmissionReview") == 1
        admitted = [b for _, b in hook.reviews if b["kind"] == "AdmissionReview"][-1]["request"]["object"]
        assert (admitted["apiVersion"], admitted["spec"]) == (f"{GROUP}/v1beta1", {"count": 1})
        assert requests.get(widgets.url("v1", "a")).json()["spec"] == {"replicas": 1}
        deny = {**cfg, "metadata": {"name": f"{widgets.plural}-deny"}, "webhooks": [
            {**cfg["webhooks"][0], "name": "deny.example.com",
             "clientConfig": {"url": f"{hook.url}/deny", "caBundle": hook.ca_bundle}}]}
        assert requests.post(f"{base}/validatingwebhookconfigurations", json=deny).status_code == 201
        try:
            r = widgets.create("v1beta1", "b", {"count": 1})
            assert r.status_code == 403 and "denied the request" in r.json()["message"], r.text
            assert requests.get(widgets.url("v1", "b")).status_code == 404
            judged = [b for p, b in hook.reviews if p.startswith("/deny")][-1]["request"]["object"]
            assert (judged["apiVersion"], judged["spec"]) == (f"{GROUP}/v1beta1", {"count": 1})  # its version
        finally:
            requests.delete(f"{base}/validatingwebhookconfigurations/{widgets.plural}-deny")
    finally:
        requests.delete(f"{base}/mutatingwebhookconfigurations/{widgets.plural}")


def test_objects_an_older_storage_version_wrote(server: RunningServer, hook: ConversionHook) -> None:
    """The storage version moves from v1beta1 to v1: an object written before stays in v1beta1 until it is
    written again; a read in v1 converts it from v1beta1 (one review), a read in v1beta1 needs none, and an
    update through v1 converts the old object first and stores v1."""
    w = Widgets(server, hook, storage="v1beta1")
    try:
        old = w.create("v1beta1", "old", {"count": 4}).json()["metadata"]["uid"]
        older = w.create("v1beta1", "older", {"count": 1}).json()["metadata"]["uid"]
        crd = requests.get(f"{server.url}{CRDS}/{w.name}").json()
        for v in crd["spec"]["versions"]:
            v["storage"] = v["name"] == "v1"
        r = requests.put(f"{server.url}{CRDS}/{w.name}", json=crd)
        assert r.status_code == 200 and r.json()["status"]["storedVersions"] == ["v1beta1", "v1"], r.text
        settle(w)  # (the new v1 cache converts both objects as it fills)
        start = len(hook.reviews)
        got = requests.get(w.url("v1beta1", "old")).json()
        assert (got["apiVersion"], got["spec"]) == (f"{GROUP}/v1beta1", {"count": 4})
        assert reviews_since(hook, start, old, older) == []  # stored in the version asked for
        got = requests.get(w.url("v1", "old")).json()
        assert (got["apiVersion"], got["spec"]) == (f"{GROUP}/v1", {"replicas": 4})
        req = reviews_since(hook, start, old)[-1][1]["request"]
        assert ([o["apiVersion"] for o in req["objects"]], req["desiredAPIVersion"]) == (
            [f"{GROUP}/v1beta1"], f"{GROUP}/v1")
        listed = requests.get(w.url("v1")).json()["items"]
        assert [(o["apiVersion"], o["spec"]) for o in listed] == [(f"{GROUP}/v1", {"replicas": 4}),
                                                                   (f"{GROUP}/v1", {"replicas": 1})]
        r = requests.patch(w.url("v1", "old"), data=json.dumps({"spec": {"replicas": 5}}),
                           headers={"Content-Type": "application/merge-patch+json"})
        assert r.status_code == 200 and r.json()["spec"] == {"replicas": 5}, r.text
        assert r.json()["metadata"]["generation"] == 2
        settle(w, r.json()["metadata"]["resourceVersion"])
        start = len(hook.reviews)
        assert requests.get(w.url("v1", "old")).json()["spec"] == {"replicas": 5}
        assert reviews_since(hook, start, old) == []  # written again: stored in v1 now
        w.use("/failure")  # while the webhook fails, what is still stored in v1beta1 is read in v1beta1 only
        r = requests.get(w.url("v1", "older"))
        assert r.status_code == 500 and r.json()["message"] == (
            f"conversion webhook for {GROUP}/v1beta1, Kind=Widget failed: custom webhook conversion error")
        assert requests.get(w.url("v1beta1", "older")).json()["spec"] == {"count": 1}
        assert requests.get(w.url("v1", "old")).json()["spec"] == {"replicas": 5}
    finally:
        requests.delete(f"{server.url}{CRDS}/{w.name}")


def test_conversion_webhook_metrics(widgets: Widgets) -> None:
    """metrics/conversion.py: each call counted with its result and failure type, and timed per CRD and
    versions (conversion/metrics.go); a conversion asked for that needs no call (the create's object, already in
    the storage version) counts as a success, untimed per CRD (v0.33's converter has no early return). The watch
    caches count too: v1's decoding of the new object (no call), v1beta1's conversion of it (a call)."""
    def scrape() -> dict[str, float]:
        out: dict[str, float] = {}
        for line in requests.get(f"{widgets.server.url}/metrics").text.splitlines():
            if line.startswith(("apiserver_conversion_webhook_request_total",
                                "apiserver_crd_conversion_webhook_duration_seconds_count")):
                name, value = line.rsplit(" ", 1)
                out[name] = float(value)
        return out
    success = 'apiserver_conversion_webhook_request_total{failure_type="",result="success"}'
    timed = 'apiserver_crd_conversion_webhook_duration_seconds_count{{crd_name="{}",from_version="v1",' \
            'succeeded="{}",to_version="v1beta1"}}'
    before = scrape()
    created = widgets.create("v1", "a", {"replicas": 1})
    assert created.status_code == 201
    settle(widgets, created.json()["metadata"]["resourceVersion"])
    after = scrape()

    def grew(name: str) -> float:
        return after.get(name, 0) - before.get(name, 0)
    assert grew(success) >= 3 and grew(timed.format(widgets.name, "true")) == 1  # (other CRDs' caches count too)
    assert requests.get(widgets.url("v1beta1", "a")).status_code == 200
    widgets.use("/empty")
    assert requests.get(widgets.url("v1beta1", "a")).status_code == 500
    after = scrape()
    assert grew(success) >= 4  # and the read's call (the new v1 cache's LIST: a no-call success, maybe done)
    assert grew('apiserver_conversion_webhook_request_total{failure_type="conversion_webhook_partial_response_failure"'
                ',result="failure"}') >= 1  # the read's (and the v1beta1 cache's LISTs)
    assert grew(timed.format(widgets.name, "true")) == 2 and grew(timed.format(widgets.name, "false")) >= 1


def test_a_large_write_through_a_converted_version(server: RunningServer, hook: ConversionHook) -> None:
    """A large custom resource written in a non-storage version under that version's pattern: rehearsed off the
    event loop (http/rehearse.py) as a storage-version write is, judged by that version's schema, converted by the
    webhook (http/crconversion.py: both passes meet), stored once; its update too."""
    pattern = {"openAPIV3Schema": {"type": "object", "properties": {"spec": {
        "type": "object", "x-kubernetes-preserve-unknown-fields": True,
        "properties": {"note": {"type": "string", "pattern": "^[a-z]+$"}}}}}}
    w = Widgets(server, hook, beta_schema=pattern)
    try:
        note = "a" * 20_000
        r = w.create("v1beta1", "big", {"count": 2, "note": note})
        assert r.status_code == 201, r.text
        assert r.json()["spec"] == {"count": 2, "note": note}
        got = requests.get(w.url("v1", "big")).json()
        assert got["spec"] == {"replicas": 2, "note": note} and got["metadata"]["generation"] == 1
        bad = w.create("v1beta1", "bad-note", {"count": 1, "note": "A" * 20_000})
        assert bad.status_code == 422 and "spec.note in body should match '^[a-z]+$'" in bad.json()["message"]
        assert len(requests.get(w.url("v1")).json()["items"]) == 1
        patched = requests.patch(w.url("v1beta1", "big"), data=json.dumps({"spec": {"count": 5, "note": "b" * 20_000}}),
                                 headers={"Content-Type": "application/merge-patch+json"})
        assert patched.status_code == 200 and patched.json()["spec"] == {"count": 5, "note": "b" * 20_000}
        refused = requests.patch(w.url("v1beta1", "big"), data=json.dumps({"spec": {"note": "B" * 20_000}}),
                                 headers={"Content-Type": "application/merge-patch+json"})
        assert refused.status_code == 422
        assert requests.get(w.url("v1", "big")).json()["spec"] == {"replicas": 5, "note": "b" * 20_000}
    finally:
        requests.delete(f"{server.url}{CRDS}/{w.name}")


def test_scale_of_a_converted_version_reads_its_paths(widgets: Widgets, hook: ConversionHook) -> None:
    """`/scale` of the served, non-storage version (registry/crscale.py on the view): the object is converted by
    the webhook first, and that version's `specReplicasPath` (`.spec.count`) is read and written."""
    crd = requests.get(f"{widgets.server.url}{CRDS}/{widgets.name}").json()
    for v in crd["spec"]["versions"]:
        path = ".spec.replicas" if v["name"] == "v1" else ".spec.count"
        v["subresources"] = {"scale": {"specReplicasPath": path, "statusReplicasPath": ".status.ready"}}
    r = requests.put(f"{widgets.server.url}{CRDS}/{widgets.name}", json=crd)
    assert r.status_code == 200, r.text
    assert widgets.create("v1", "sc", {"replicas": 2}).status_code == 201
    start = len(hook.reviews)
    r = requests.get(f"{widgets.url('v1beta1', 'sc')}/scale")
    assert r.status_code == 200 and r.json()["spec"] == {"replicas": 2}, r.text
    assert len(hook.reviews) > start  # converted to v1beta1 by the webhook
    base = f"{widgets.server.url}/apis/admissionregistration.k8s.io/v1"  # a validating webhook sees the Scale
    cfg = {"metadata": {"name": f"{widgets.plural}-scale"}, "webhooks": [{
        "name": "scale.example.com", "sideEffects": "None", "admissionReviewVersions": ["v1"],
        "clientConfig": {"url": f"{hook.url}/allow", "caBundle": hook.ca_bundle},
        "rules": [{"operations": ["UPDATE"], "apiGroups": [GROUP], "apiVersions": ["*"],
                   "resources": [f"{widgets.plural}/scale"]}]}]}
    assert requests.post(f"{base}/validatingwebhookconfigurations", json=cfg).status_code == 201
    try:
        r = requests.put(f"{widgets.url('v1beta1', 'sc')}/scale", json={
            "apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "sc"}, "spec": {"replicas": 5}})
        assert r.status_code == 200 and r.json()["spec"] == {"replicas": 5}, r.text
        review = [b for p, b in hook.reviews if p.startswith("/allow")][-1]["request"]
        assert (review["object"]["spec"], review["oldObject"]["spec"]) == ({"replicas": 5}, {"replicas": 2})
    finally:
        requests.delete(f"{base}/validatingwebhookconfigurations/{widgets.plural}-scale")
    assert requests.get(widgets.url("v1", "sc")).json()["spec"] == {"replicas": 5}


def test_a_patch_sends_the_webhook_each_object_in_its_own_version(widgets: Widgets, hook: ConversionHook) -> None:
    """A merge patch through v1beta1 (not the storage version): the patched object is sent as v1beta1 (the version
    it was patched in; it came labelled "v1" before), the field manager sees it in v1beta1 already (it runs before
    the storage encoding: no conversion of it back from v1), and no object is sent for the version it is in. A patch
    through the storage version by the only manager asks nothing. The v1beta1 watch cache converts each stored
    change once more (the last review, which may come earlier)."""
    def asked(start: int) -> list[tuple[list[tuple[str, Any]], str]]:
        return [([(o["apiVersion"], o["spec"]) for o in body["request"]["objects"]],
                 body["request"]["desiredAPIVersion"])
                for _, body in reviews_since(hook, start, *uids)]
    uids: list[str] = []
    merge = {"Content-Type": "application/merge-patch+json"}
    created = widgets.create("v1beta1", "p", {"count": 1})
    assert created.status_code == 201
    uids.append(created.json()["metadata"]["uid"])
    settle(widgets, created.json()["metadata"]["resourceVersion"])
    start = len(hook.reviews)
    r = requests.patch(widgets.url("v1beta1", "p"), data=json.dumps({"spec": {"count": 2}}), headers=merge)
    assert r.status_code == 200 and r.json()["spec"] == {"count": 2}, r.text
    settle(widgets, r.json()["metadata"]["resourceVersion"])
    assert asked(start) == [([(f"{GROUP}/v1", {"replicas": 1})], f"{GROUP}/v1beta1"),  # the current object
                            ([(f"{GROUP}/v1beta1", {"count": 2})], f"{GROUP}/v1"),  # stored
                            ([(f"{GROUP}/v1", {"replicas": 2})], f"{GROUP}/v1beta1"),  # answered
                            ([(f"{GROUP}/v1", {"replicas": 2})], f"{GROUP}/v1beta1")]  # the v1beta1 cache's
    created = widgets.create("v1", "q", {"replicas": 1})
    assert created.status_code == 201
    uids.append(created.json()["metadata"]["uid"])
    settle(widgets, created.json()["metadata"]["resourceVersion"])
    start = len(hook.reviews)
    r = requests.patch(widgets.url("v1", "q"), data=json.dumps({"spec": {"replicas": 3}}), headers=merge)
    assert r.status_code == 200 and r.json()["spec"] == {"replicas": 3}, r.text
    settle(widgets, r.json()["metadata"]["resourceVersion"])
    assert asked(start) == [([(f"{GROUP}/v1", {"replicas": 3})], f"{GROUP}/v1beta1")]  # the v1beta1 cache's only
    # (it sent the patched object, labelled "v1", to be converted to v1)


def test_an_older_storage_versions_object_is_converted_once_for_a_write_through_another_version(
        server: RunningServer, hook: ConversionHook) -> None:
    """Stored as v1beta1 before the storage version became v1, patched through v1beta1: upstream's v1beta1
    storage decodes it as it is (no call), encodes the patched object to v1 (one) and decodes the stored one for
    the answer (one). It was first converted to v1 and back (two calls more)."""
    w = Widgets(server, hook, storage="v1beta1")
    try:
        old = w.create("v1beta1", "old", {"count": 4}).json()["metadata"]["uid"]
        crd = requests.get(f"{server.url}{CRDS}/{w.name}").json()
        for v in crd["spec"]["versions"]:
            v["storage"] = v["name"] == "v1"
        # the old storage's caches convert changes until their teardown, a second after the spec change (as
        # upstream's `tearDown`): its watch ending tells that they are gone (a second v1beta1 review else)
        old_storage = requests.get(w.url("v1beta1"), params={"watch": "1", "timeoutSeconds": "30"}, stream=True,
                                   timeout=60)
        assert requests.put(f"{server.url}{CRDS}/{w.name}", json=crd).status_code == 200
        with old_storage:
            for _ in old_storage.iter_lines():
                pass  # (its initial ADDED event, then the end)
        settle(w)  # (the new v1 cache converts the object as it fills)
        start = len(hook.reviews)
        r = requests.patch(w.url("v1beta1", "old"), data=json.dumps({"spec": {"count": 5}}),
                           headers={"Content-Type": "application/merge-patch+json"})
        assert r.status_code == 200 and r.json()["spec"] == {"count": 5}, r.text
        settle(w, r.json()["metadata"]["resourceVersion"])
        asked = [([(o["apiVersion"], o["spec"]) for o in body["request"]["objects"]],
                  body["request"]["desiredAPIVersion"])
                 for _, body in reviews_since(hook, start, old)]
        assert asked == [([(f"{GROUP}/v1beta1", {"count": 5})], f"{GROUP}/v1"),
                         ([(f"{GROUP}/v1", {"replicas": 5})], f"{GROUP}/v1beta1"),
                         ([(f"{GROUP}/v1", {"replicas": 5})], f"{GROUP}/v1beta1")]  # and the v1beta1 cache's
        assert requests.get(w.url("v1", "old")).json()["spec"] == {"replicas": 5}  # stored in v1 now
    finally:
        requests.delete(f"{server.url}{CRDS}/{w.name}")


def test_the_field_manager_asks_for_its_own_conversions(widgets: Widgets, hook: ConversionHook) -> None:
    """A patch through v1beta1 of an object another manager wrote in v1: structured-merge-diff compares that
    manager's fields in v1, converting the old and the new object there (`versionConverter.Convert`, its hub the
    request's version: one review each), and the storage encoding then sends the new object again."""
    created = widgets.create("v1", "q", {"replicas": 1})
    assert created.status_code == 201
    settle(widgets, created.json()["metadata"]["resourceVersion"])
    start = len(hook.reviews)
    r = requests.patch(widgets.url("v1beta1", "q"), params={"fieldManager": "patcher"},
                       data=json.dumps({"spec": {"count": 2}}), headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200 and r.json()["spec"] == {"count": 2}, r.text
    settle(widgets, r.json()["metadata"]["resourceVersion"])
    asked = [([(o["apiVersion"], o["spec"]) for o in body["request"]["objects"]], body["request"]["desiredAPIVersion"])
             for _, body in reviews_since(hook, start, created.json()["metadata"]["uid"])]
    v1, beta = f"{GROUP}/v1", f"{GROUP}/v1beta1"
    assert asked == [([(v1, {"replicas": 1})], beta),  # the current object, read in v1beta1
                     ([(beta, {"count": 1})], v1), ([(beta, {"count": 2})], v1),  # the field manager's
                     ([(beta, {"count": 2})], v1),  # stored
                     ([(v1, {"replicas": 2})], beta), ([(v1, {"replicas": 2})], beta)]  # answered; the cache's
    managers = {(m["manager"], m["apiVersion"]) for m in r.json()["metadata"]["managedFields"]}
    assert managers == {("python-requests", v1), ("patcher", beta)}
