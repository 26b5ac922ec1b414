"""A custom resource patched to name another served version, its CRD converting by webhook (registry/crconversion/
patched.py): the field manager (`UpdateNoErrors`) asks the webhook to convert the patched object to the request's
version, without its managedFields; a failed conversion is dropped; the strategy then refuses the object as it
does without a webhook (registry/crtypemeta.py). Before, the webhook was not asked."""
from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from conformance.reference_server.embedded import RunningServer
from tests.reference_server.registry.crconversion.test_crconversion_webhook import (  # noqa: F401 - fixtures
    GROUP, ConversionHook, Widgets, reviews_since, server, settle, widgets)
from tests.reference_server.webhookconfig import MUTATING, configure, unconfigure


class PatchingHook(ConversionHook):
    """`ConversionHook`, and an admission `/set-apiVersion=<v>` (a JSONPatch replacing the root `apiVersion`)."""

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        if body.get("kind") != "AdmissionReview" or not path.startswith("/set-apiVersion="):
            return super().answer(path, body)
        ops = [{"op": "replace", "path": "/apiVersion", "value": path.partition("=")[2]}]
        return 200, {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                     "response": {"uid": body["request"]["uid"], "allowed": True, "patchType": "JSONPatch",
                                  "patch": base64.b64encode(json.dumps(ops).encode()).decode()}}


@pytest.fixture(scope="module")
def hook() -> Iterator[PatchingHook]:
    h = PatchingHook()
    yield h
    h.stop()

MERGE_PATCH = {"Content-Type": "application/merge-patch+json"}


def test_the_field_manager_asks_the_webhook(widgets: Widgets, hook: ConversionHook) -> None:  # noqa: F811
    created = widgets.create("v1", "q", {"replicas": 1})
    assert created.status_code == 201
    uid = created.json()["metadata"]["uid"]
    settle(widgets, created.json()["metadata"]["resourceVersion"])
    start = len(hook.reviews)
    r = requests.patch(widgets.url("v1", "q"), data=json.dumps({"apiVersion": f"{GROUP}/v1beta1"}),
                       headers=MERGE_PATCH)
    assert r.status_code == 422, r.text
    assert r.json()["details"]["causes"] == [{"reason": "FieldValueInvalid", "field": "apiVersion", "message":
                                              f'Invalid value: "{GROUP}/v1beta1": must be {GROUP}/v1'}], r.text
    asked = [body["request"] for _, body in reviews_since(hook, start, uid)]
    assert [([(o["apiVersion"], o["spec"]) for o in a["objects"]], a["desiredAPIVersion"]) for a in asked] == \
        [([(f"{GROUP}/v1beta1", {"replicas": 1})], f"{GROUP}/v1")]
    assert "managedFields" not in asked[0]["objects"][0]["metadata"]
    # a failed conversion is dropped: the same refusal
    widgets.use("/failure")
    start = len(hook.reviews)
    r = requests.patch(widgets.url("v1", "q"), data=json.dumps({"apiVersion": f"{GROUP}/v1beta1"}),
                       headers=MERGE_PATCH)
    assert r.status_code == 422 and r.json()["details"]["causes"][0]["field"] == "apiVersion", r.text
    asked = [body["request"] for _, body in reviews_since(hook, start, uid)]
    assert [a["objects"][0]["apiVersion"] for a in asked if a["desiredAPIVersion"] == f"{GROUP}/v1"] == \
        [f"{GROUP}/v1beta1"]  # (the v1beta1 cache converts the stored object anew for the changed CRD)


def test_mutating_webhooks_are_sent_the_object_converted_by_the_webhook(
        server: RunningServer, widgets: Widgets, hook: PatchingHook) -> None:  # noqa: F811
    """`ConvertToGVK` converts with the CRD's converter: the conversion webhook is asked for the patched
    v1beta1 object in v1 (the mutating webhook is sent its answer), and for the mutating webhook's result back
    in v1beta1 (`Convert(VersionedObject, attr.GetObject())`); a mutating webhook's own patch to v1beta1 is
    converted back to v1 by the conversion webhook (the update made)."""
    created = widgets.create("v1", "q", {"replicas": 1})
    assert created.status_code == 201
    uid = created.json()["metadata"]["uid"]
    settle(widgets, created.json()["metadata"]["resourceVersion"])
    v1, beta = f"{GROUP}/v1", f"{GROUP}/v1beta1"
    cfg = configure(server, MUTATING, None, None, f"{hook.url}/label", hook.ca_bundle, [widgets.plural],
                    api_groups=[GROUP], operations=["UPDATE"])
    try:
        start = len(hook.reviews)
        r = requests.patch(widgets.url("v1", "q"), data=json.dumps({"apiVersion": beta}), headers=MERGE_PATCH)
        assert r.status_code == 422, r.text
        admitted = [b["request"]["object"] for _, b in hook.reviews[start:] if b.get("kind") == "AdmissionReview"]
        assert [(o["apiVersion"], o["kind"], o["spec"]) for o in admitted] == [(v1, "Widget", {"replicas": 1})]
        asked = [([(o["apiVersion"], o["spec"]) for o in b["request"]["objects"]], b["request"]["desiredAPIVersion"])
                 for _, b in reviews_since(hook, start, uid)]
        assert asked == [([(beta, {"replicas": 1})], v1),  # the field manager's
                         ([(beta, {"replicas": 1})], v1),  # the mutating webhooks' versioned object
                         ([(v1, {"replicas": 1})], beta)]  # the labelled object, back to v1beta1
    finally:
        unconfigure(server, MUTATING, cfg)
    cfg = configure(server, MUTATING, None, None, f"{hook.url}/set-apiVersion={beta}", hook.ca_bundle,
                    [widgets.plural], api_groups=[GROUP], operations=["UPDATE"])
    try:
        start = len(hook.reviews)
        r = requests.patch(widgets.url("v1", "q"), data=json.dumps({"spec": {"replicas": 2}}), headers=MERGE_PATCH)
        assert r.status_code == 200, r.text
        assert (r.json()["apiVersion"], r.json()["spec"]) == (v1, {"replicas": 2}), r.text
        asked = [([(o["apiVersion"], o["spec"]) for o in b["request"]["objects"]], b["request"]["desiredAPIVersion"])
                 for _, b in reviews_since(hook, start, uid)]
        assert asked[0] == ([(beta, {"replicas": 2})], v1), asked
    finally:
        unconfigure(server, MUTATING, cfg)
