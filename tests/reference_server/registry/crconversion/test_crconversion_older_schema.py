"""An object an older storage version wrote, read as the CRD's storage codec decodes it (apiextensions-apiserver
v0.33 customresource_handler.go `crdConversionRESTOptionsGetter`; apimachinery versioning.go `codec.Decode`):
`schemaCoercingDecoder` prunes it by the schema of the version it was stored in (`structuralSchemas[gv.Version]`),
`unstructuredDefaulter` defaults it by that schema, and only then `schemaCoercingConverter` converts it (the
webhook is sent the pruned, defaulted object) and prunes the answer by the version asked for, without defaulting
it again. Here `v1beta1` stored `old`, then `v1` became the storage version and v1beta1's schema lost `gone` and
gained `mode` (default `fast`); v1's schema defaults `zone`."""
from __future__ import annotations

import json
from typing import Any

import requests

from conformance.reference_server.embedded import RunningServer
from tests.reference_server.registry.crconversion.test_crconversion_webhook import (  # noqa: F401
    CRDS, GROUP, ConversionHook, Widgets, hook, reviews_since, server, settle)

BETA = {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object", "properties": {
    "count": {"type": "integer"}, "gone": {"type": "string"}}}}}}
BETA_LATER = {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object", "properties": {
    "count": {"type": "integer"}, "mode": {"type": "string", "default": "fast"}}}}}}
V1_LATER = {"openAPIV3Schema": {"type": "object", "properties": {"spec": {
    "type": "object", "x-kubernetes-preserve-unknown-fields": True,
    "properties": {"zone": {"type": "string", "default": "z"}}}}}}


def _sent(hook: ConversionHook, start: int, uid: str) -> list[tuple[Any, str]]:
    """(the spec, desired version) of each review of object `uid` since `start`."""
    return [(o["spec"], b["request"]["desiredAPIVersion"].rpartition("/")[2])
            for _, b in reviews_since(hook, start, uid) for o in b["request"]["objects"]]


def test_an_older_storage_versions_object_is_decoded_by_its_schema_before_it_is_converted(
        server: RunningServer, hook: ConversionHook) -> None:
    w = Widgets(server, hook, storage="v1beta1", beta_schema=BETA)
    try:
        old = w.create("v1beta1", "old", {"count": 4, "gone": "x"}).json()["metadata"]["uid"]
        crd = requests.get(f"{server.url}{CRDS}/{w.name}").json()
        for v in crd["spec"]["versions"]:
            v["storage"] = v["name"] == "v1"
            v["schema"] = V1_LATER if v["name"] == "v1" else BETA_LATER
        r = requests.put(f"{server.url}{CRDS}/{w.name}", json=crd)
        assert r.status_code == 200, r.text
        settle(w)  # (the new caches convert the object as they fill)
        # a GET in the storage version: the webhook is sent the object as v1beta1's schema decodes it, and its
        # answer is pruned by v1's, not defaulted (`zone`)
        start = len(hook.reviews)
        got = requests.get(w.url("v1", "old")).json()
        assert got["spec"] == {"replicas": 4, "mode": "fast"}
        assert _sent(hook, start, old) == [({"count": 4, "mode": "fast"}, "v1")]
        # in its own version: decoded by its schema, no review
        start = len(hook.reviews)
        assert requests.get(w.url("v1beta1", "old")).json()["spec"] == {"count": 4, "mode": "fast"}
        assert _sent(hook, start, old) == []
        # a LIST storage serves, judging a selector on the converted objects
        rv = requests.get(w.url("v1")).json()["metadata"]["resourceVersion"]
        start = len(hook.reviews)
        r = requests.get(w.url("v1"), params={"labelSelector": "!nope", "resourceVersion": rv,
                                              "resourceVersionMatch": "Exact"})
        assert [i["spec"] for i in r.json()["items"]] == [{"replicas": 4, "mode": "fast"}], r.text
        assert _sent(hook, start, old) == [({"count": 4, "mode": "fast"}, "v1")]
        start = len(hook.reviews)  # through v1beta1: stored in it, no review
        r = requests.get(w.url("v1beta1"), params={"labelSelector": "!nope", "resourceVersion": rv,
                                                   "resourceVersionMatch": "Exact"})
        assert [i["spec"] for i in r.json()["items"]] == [{"count": 4, "mode": "fast"}], r.text
        assert _sent(hook, start, old) == []
        # a patch in the storage version converts the decoded object (once), then stores v1's, defaulted by v1
        start = len(hook.reviews)
        r = requests.patch(w.url("v1", "old"), data=json.dumps({"spec": {"replicas": 5}}),
                           headers={"Content-Type": "application/merge-patch+json"})
        assert r.status_code == 200 and r.json()["spec"] == {"replicas": 5, "mode": "fast", "zone": "z"}, r.text
        settle(w, r.json()["metadata"]["resourceVersion"])
        assert _sent(hook, start, old)[0] == ({"count": 4, "mode": "fast"}, "v1")
        assert [s for s in _sent(hook, start, old) if s[1] == "v1"] == [({"count": 4, "mode": "fast"}, "v1")]
    finally:
        requests.delete(f"{server.url}{CRDS}/{w.name}")


def test_a_webhooks_unknown_fields_are_pruned_when_the_versions_schemas_are_the_same(
        server: RunningServer, hook: ConversionHook) -> None:
    """`schemaCoercingConverter` prunes every converted object by the schema of the version asked for, whether or
    not it is the other version's too: a field the webhook adds at the root (`/junk`) is neither stored nor shown."""
    w = Widgets(server, hook, path="/junk")  # (v1 and v1beta1 share one schema)
    try:
        r = w.create("v1beta1", "j", {"count": 2})
        assert r.status_code == 201 and "junk" not in r.json(), r.text
        got = requests.get(w.url("v1", "j")).json()  # as stored: converted to v1 and pruned
        assert "junk" not in got and got["spec"] == {"replicas": 2}
        got = requests.get(w.url("v1beta1", "j")).json()
        assert "junk" not in got and got["spec"] == {"count": 2}
    finally:
        requests.delete(f"{server.url}{CRDS}/{w.name}")


def test_the_storage_versions_defaults_are_applied_as_storage_decodes_a_converted_write(
        server: RunningServer, hook: ConversionHook) -> None:
    """A write through v1beta1 is converted to v1 by the webhook and stored as it answers (encoding defaults
    nothing): v1's default (`zone`) is missing from what etcd holds, and every decoding of it adds it
    (`unstructuredDefaulter` runs on each read, whatever the CRD's generation), before it is converted for
    v1beta1: the create's answer (etcd3's `Create` decodes what it stored) and each read."""
    w = Widgets(server, hook, v1_schema=V1_LATER)
    try:
        r = w.create("v1beta1", "d", {"count": 2})
        assert r.status_code == 201 and r.json()["spec"] == {"count": 2, "zone": "z"}, r.text
        assert requests.get(w.url("v1", "d")).json()["spec"] == {"replicas": 2, "zone": "z"}
        assert requests.get(w.url("v1beta1", "d")).json()["spec"] == {"count": 2, "zone": "z"}
        assert [i["spec"] for i in requests.get(w.url("v1beta1")).json()["items"]] == [{"count": 2, "zone": "z"}]
    finally:
        requests.delete(f"{server.url}{CRDS}/{w.name}")
