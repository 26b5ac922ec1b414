"""A mutating webhook's JSON patch runs on the object's JSON as the review shows it (admission/webhooks/
patchread.py; k8s.io/apiserver v0.33 `mutating/dispatcher.go` `callAttrMutatingHook`: `patchObj.Apply(objJS)` on
`runtime.Encode(jsonSerializer, attr.VersionedObject)`, the result decoded into a new object, `changed` as
`!apiequality.Semantic.DeepEqual`): a webhook that diffs the review's object and drops its nulls removes the
`"creationTimestamp": null` a new object's review shows, and that works on a cluster."""
from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from .crds import create_crd, schemaless_crd
from .test_admission_webhooks import Hook, ns, server  # noqa: F401 - the fixtures, per module
from .webhookconfig import MUTATING, configure, reviews, unconfigure

PATCHES: dict[str, list[dict[str, Any]]] = {
    "/dropnull": [{"op": "remove", "path": "/metadata/creationTimestamp"},
                  {"op": "add", "path": "/metadata/labels", "value": {"hooked": "yes"}}],
    "/testnull": [{"op": "test", "path": "/metadata/creationTimestamp", "value": None},
                  {"op": "add", "path": "/metadata/labels", "value": {"tested": "yes"}}],
    "/noop": [{"op": "remove", "path": "/metadata/creationTimestamp"}],
    "/emptymap": [{"op": "add", "path": "/metadata/annotations", "value": {}}],
    "/podnull": [{"op": "remove", "path": "/metadata/creationTimestamp"},
                 {"op": "test", "path": "/spec/containers/0/resources", "value": {}},
                 {"op": "add", "path": "/spec/containers/0/resources/limits", "value": {"cpu": "1"}}],
    "/crsorted": [{"op": "test", "path": "/spec", "value": {"a": 1, "b": {"x": "1", "y": "2"}}},
                  {"op": "remove", "path": "/spec/b/x"}],
}


class PatchHook(Hook):
    """`/<name>` answers the patch `PATCHES[name]`, `/addlabel-<key>` as the base hook."""

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        status, answer = super().answer(path, body)
        ops = PATCHES.get(path)
        if ops is not None and body["request"].get("object") is not None:
            answer["response"].update(patchType="JSONPatch",
                                      patch=base64.b64encode(json.dumps(ops).encode()).decode())
        return status, answer


@pytest.fixture(scope="module")
def hook() -> Iterator[PatchHook]:
    h = PatchHook()
    yield h
    h.stop()


def _configmap(server: Any, ns: str, name: str) -> requests.Response:
    return requests.post(f"{server.url}/api/v1/namespaces/{ns}/configmaps",
                         json={"metadata": {"name": name}, "data": {"a": "b"}})


@pytest.mark.parametrize("path,label", [("/dropnull", "hooked"), ("/testnull", "tested")])
def test_a_patch_on_the_reviews_null_creation_timestamp_applies(server, hook, ns, path, label):
    """`remove` and `test` of the review's `"creationTimestamp": null` (the Go type's JSON holds it; the object as
    this server held it did not: evanphx's `missing value` 500 before), the rest of the patch applied; the new
    ConfigMap's creationTimestamp is set by the store as always."""
    cfg = configure(server, MUTATING, ns, url=f"{hook.url}{path}", ca=hook.ca_bundle)
    try:
        r = _configmap(server, ns, f"cm{path[1:]}")
        assert r.status_code == 201, r.text
        got = r.json()
        assert got["metadata"]["labels"] == {label: "yes"} and got["metadata"]["creationTimestamp"]
        assert got["data"] == {"a": "b"}
        assert hook.reviews[-1][1]["request"]["object"]["metadata"]["creationTimestamp"] is None
    finally:
        unconfigure(server, MUTATING, cfg)


def test_a_pod_s_patch_runs_on_its_go_written_json(server, hook, ns):
    """A Pod: its review's `creationTimestamp: null` removed, a container's `resources: {}` (written by Go, never
    sent by the client) tested and added into."""
    cfg = configure(server, MUTATING, ns, url=f"{hook.url}/podnull", ca=hook.ca_bundle, resources=("pods",))
    try:
        pod = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
        r = requests.post(f"{server.url}/api/v1/namespaces/{ns}/pods", json=pod)
        assert r.status_code == 201, r.text
        got = r.json()
        assert got["spec"]["containers"][0]["resources"]["limits"] == {"cpu": "1"}
        assert got["metadata"]["creationTimestamp"] and got["metadata"]["name"] == "p"
    finally:
        unconfigure(server, MUTATING, cfg)


@pytest.mark.parametrize("noop", ["/noop", "/emptymap"])
def test_a_patch_that_changes_nothing_once_decoded_is_no_change(server, hook, ns, noop):
    """Webhook a (IfNeeded) then b, whose patch removes only the `creationTimestamp: null` the decode restores, or
    adds an empty `annotations` map (nil and empty are equal to `Semantic.DeepEqual`): no change, so a is not
    called again; a patch that does change the object (c's label) still reinvokes a."""
    names = [f"{ns}-1a", f"{ns}-2b"]
    configure(server, MUTATING, ns, names[0], f"{hook.url}/addlabel-a", hook.ca_bundle,
              reinvocationPolicy="IfNeeded")
    configure(server, MUTATING, ns, names[1], f"{hook.url}{noop}", hook.ca_bundle)
    try:
        hook.reviews.clear()
        r = _configmap(server, ns, "noop")
        assert r.status_code == 201, r.text
        assert r.json()["metadata"]["labels"] == {"a": "yes"}
        paths = [path.split("?")[0] for path, body in hook.reviews if body["request"].get("namespace") == ns]
        assert paths == ["/addlabel-a", noop]
        unconfigure(server, MUTATING, names[1])
        names[1] = f"{ns}-2c"
        configure(server, MUTATING, ns, names[1], f"{hook.url}/addlabel-c", hook.ca_bundle)
        hook.reviews.clear()
        r = _configmap(server, ns, "changed")
        assert r.status_code == 201 and r.json()["metadata"]["labels"] == {"a": "yes", "c": "yes"}, r.text
        paths = [path.split("?")[0] for path, body in hook.reviews if body["request"].get("namespace") == ns]
        assert paths == ["/addlabel-a", "/addlabel-c", "/addlabel-a"]
    finally:
        for name in names:
            unconfigure(server, MUTATING, name)


def test_a_custom_resource_s_patch_runs_on_its_sorted_map(server, hook, ns):
    """A custom resource's review object is its unstructured map, keys sorted at every level: the patch's `test`
    of the whole spec and its `remove` apply to that map."""
    group = f"wh{uuid.uuid4().hex[:6]}.example.com"
    crd = schemaless_crd(group, "sorts", "Sort")
    assert create_crd(requests, server.url, crd).status_code == 201
    cfg = configure(server, MUTATING, ns, url=f"{hook.url}/crsorted", ca=hook.ca_bundle, resources=("sorts",),
                    api_groups=(group,))
    try:
        body = {"apiVersion": f"{group}/v1", "kind": "Sort", "metadata": {"name": "s"},
                "spec": {"b": {"y": "2", "x": "1"}, "a": 1}}
        r = requests.post(f"{server.url}/apis/{group}/v1/namespaces/{ns}/sorts", json=body)
        assert r.status_code == 201, r.text
        assert r.json()["spec"] == {"a": 1, "b": {"y": "2"}}
        (sent,) = [q["object"] for q in reviews(hook, ns) if q["resource"]["resource"] == "sorts"]
        assert list(sent) == sorted(sent) and list(sent["spec"]["b"]) == ["x", "y"]
    finally:
        unconfigure(server, MUTATING, cfg)
        requests.delete(f"{server.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/sorts.{group}")
