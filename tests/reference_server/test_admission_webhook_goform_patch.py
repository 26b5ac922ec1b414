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
    "/revgo": [{"op": "test", "path": "/metadata/creationTimestamp", "value": None},
               {"op": "test", "path": "/revision", "value": 0},
               {"op": "replace", "path": "/data", "value": {"k": 1}}],
    "/quantities": [{"op": "replace", "path": "/spec/containers/0/resources/limits/cpu", "value": "1000m"},
                    {"op": "replace", "path": "/spec/containers/0/resources/limits/memory", "value": "1024"}],
    "/sametime": [{"op": "replace", "path": "/metadata/creationTimestamp", "value": "SAME"}],
    "/rulesempty": [{"op": "test", "path": "/rules", "value": None},
                    {"op": "replace", "path": "/rules", "value": []}],
    "/crtest": [{"op": "test", "path": "/spec/a", "value": 1}],
    "/unknown": [{"op": "add", "path": "/bogus", "value": 1}, {"op": "add", "path": "/metadata/bogus", "value": {}}],
}


class PatchHook(Hook):
    """`/<name>` answers the patch `PATCHES[name]`, `/addlabel-<key>` as the base hook."""

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        status, answer = super().answer(path, body)
        ops = PATCHES.get(path)
        if path == "/sametime" and body["request"].get("object") is not None:  # the instant, in another zone
            stamp = body["request"]["object"]["metadata"]["creationTimestamp"]
            hour = int(stamp[11:13])
            ops = [{"op": "replace", "path": "/metadata/creationTimestamp",
                    "value": f"{stamp[:11]}{(hour + 1) % 24:02d}{stamp[13:19]}+01:00"}] if hour < 23 else []
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


def test_a_controller_revision_s_patch_runs_on_its_go_written_json(server, hook, ns):
    """A ControllerRevision (`data` a `runtime.RawExtension`) is patched like every other kind: on its review's
    JSON, where `data` with no bytes is `null` (`RawExtension.MarshalJSON`), a `revision` not sent `0` and
    `creationTimestamp` `null`: the `test`s hold and the `replace` of `data` finds the member (evanphx's `missing
    value` 500 before, on the object as this server held it); the bytes the patch wrote are kept."""
    cfg = configure(server, MUTATING, ns, url=f"{hook.url}/revgo", ca=hook.ca_bundle,
                    resources=("controllerrevisions",), operations=("CREATE",))
    try:
        path = f"{server.url}/apis/apps/v1/namespaces/{ns}/controllerrevisions"
        r = requests.post(path, data=b'{"metadata":{"name":"r"}}', headers={"Content-Type": "application/json"})
        assert r.status_code == 201, r.text
        assert r.json()["data"] == {"k": 1} and r.json()["revision"] == 0
        (sent,) = [q["object"] for q in reviews(hook, ns)]
        assert sent["data"] is None and sent["revision"] == 0
    finally:
        unconfigure(server, MUTATING, cfg)


def _reinvoked(server: Any, hook: PatchHook, ns: str, second: str, resources: tuple[str, ...],
               write: Any, first: str = "/addlabel-a", api_groups: tuple[str, ...] = ("", "apps")) -> list[str]:
    """Webhook 1 (`first`, `reinvocationPolicy: IfNeeded`) then 2 (`second`) on `resources`; `write()` made; the
    paths the hook was called at, in order."""
    names = [f"{ns}-1a", f"{ns}-2b"]
    configure(server, MUTATING, ns, names[0], f"{hook.url}{first}", hook.ca_bundle, resources,
              api_groups=api_groups, reinvocationPolicy="IfNeeded")
    configure(server, MUTATING, ns, names[1], f"{hook.url}{second}", hook.ca_bundle, resources,
              api_groups=api_groups)
    try:
        hook.reviews.clear()
        write()
        return [path.split("?")[0] for path, body in hook.reviews if body["request"].get("namespace") == ns]
    finally:
        for name in names:
            unconfigure(server, MUTATING, name)


def test_a_quantity_spelt_otherwise_is_no_change(server, hook, ns):
    """`Semantic.DeepEqual` compares a `resource.Quantity` by `Cmp`: `1000m` for `1` and `1024` for `1Ki` change
    nothing, so webhook 1 is not called again; the object is the decoded patched one all the same (its memory limit
    `1024`; the requests defaulted from the limits before keep `1Ki`). (A cluster answers the cpu limit `1`, the
    canonical form its storage writes; this server answers a quantity as it was given: README, Known gaps.)"""
    got: list[requests.Response] = []
    pod = {"metadata": {"name": "q"}, "spec": {"containers": [
        {"name": "c", "image": "busybox", "resources": {"limits": {"cpu": "1", "memory": "1Ki"}}}]}}
    paths = _reinvoked(server, hook, ns, "/quantities", ("pods",), lambda: got.append(
        requests.post(f"{server.url}/api/v1/namespaces/{ns}/pods", json=pod)))
    assert got[0].status_code == 201, got[0].text
    assert paths == ["/addlabel-a", "/quantities"]
    resources = got[0].json()["spec"]["containers"][0]["resources"]
    assert resources["limits"]["memory"] == "1024" and resources["limits"]["cpu"] in ("1", "1000m")
    assert resources["requests"] == {"cpu": "1", "memory": "1Ki"}


def test_a_time_spelt_in_another_zone_is_no_change(server, hook, ns):
    """`Semantic.DeepEqual` compares a `metav1.Time` by its instant (`a.UTC() == b.UTC()`): an update's
    `creationTimestamp` rewritten as the same instant at `+01:00` changes nothing (webhook 1 not called again)."""
    assert _configmap(server, ns, "t").status_code == 201
    got: list[requests.Response] = []
    paths = _reinvoked(server, hook, ns, "/sametime", ("configmaps",), lambda: got.append(requests.patch(
        f"{server.url}/api/v1/namespaces/{ns}/configmaps/t", json={"data": {"x": "y"}},
        headers={"Content-Type": "application/merge-patch+json"})), first="/allow")
    assert got[0].status_code == 200, got[0].text
    assert paths == ["/allow", "/sametime"]


def test_a_nil_slice_made_empty_is_no_change(server, hook, ns):
    """A Role's `rules` (no `omitempty`): a create without them shows `null`; a patch making them `[]` changes
    nothing (`Semantic.DeepEqual`: a nil and an empty slice are equal), so webhook 1 is not called again."""
    got: list[requests.Response] = []
    paths = _reinvoked(server, hook, ns, "/rulesempty", ("roles",), lambda: got.append(requests.post(
        f"{server.url}/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles", json={"metadata": {"name": "r"}})),
        first="/allow", api_groups=("rbac.authorization.k8s.io",))
    assert got[0].status_code == 201, got[0].text
    assert paths == ["/allow", "/rulesempty"]


def test_a_custom_resource_s_float_read_back_as_an_integer_is_a_change(server, hook, ns):
    """A custom resource is compared as its unstructured map (`Semantic.DeepEqual` of two
    `*unstructured.Unstructured`: interface values, whose types must match): `1.0` sent is a float64, written `1`
    in the review, and the patched JSON decodes it as an int64 (util/json), so even a patch that only `test`s it
    changes the object and webhook 1 is called again."""
    group = f"wh{uuid.uuid4().hex[:6]}.example.com"
    crd = schemaless_crd(group, "floats", "Float")
    assert create_crd(requests, server.url, crd).status_code == 201
    got: list[requests.Response] = []
    body = b'{"apiVersion":"%s/v1","kind":"Float","metadata":{"name":"f"},"spec":{"a":1.0}}' % group.encode()
    try:
        paths = _reinvoked(server, hook, ns, "/crtest", ("floats",), lambda: got.append(requests.post(
            f"{server.url}/apis/{group}/v1/namespaces/{ns}/floats", data=body,
            headers={"Content-Type": "application/json"})), first="/allow", api_groups=(group,))
        assert got[0].status_code == 201, got[0].text
        assert paths == ["/allow", "/crtest", "/allow"]
    finally:
        requests.delete(f"{server.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/floats.{group}")


def test_a_field_the_go_type_lacks_is_no_change(server, hook, ns):
    """The decode into the Go type drops a field it does not have (`jsonSerializer.Decode`, not strict): a patch
    adding only such fields leaves the object as it was (webhook 1 not called again) and they are not stored."""
    got: list[requests.Response] = []
    paths = _reinvoked(server, hook, ns, "/unknown", ("configmaps",), lambda: got.append(_configmap(server, ns, "u")),
                       first="/allow")
    assert got[0].status_code == 201, got[0].text
    assert "bogus" not in got[0].json() and "bogus" not in got[0].json()["metadata"]
    assert paths == ["/allow", "/unknown"]
