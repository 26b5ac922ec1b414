"""A custom resource patched to name another served version, its CRD converting by webhook (registry/crconversion/
patched.py): the field manager (`UpdateNoErrors`) asks the webhook to convert the patched object to the request's
version, without its managedFields; a failed conversion is dropped; the strategy then refuses the object as it
does without a webhook (registry/crtypemeta.py). Before, the webhook was not asked."""
from __future__ import annotations

import json

import requests

from tests.reference_server.registry.crconversion.test_crconversion_webhook import (  # noqa: F401 - fixtures
    GROUP, ConversionHook, Widgets, hook, reviews_since, server, settle, widgets)

MERGE_PATCH = {"Content-Type": "application/merge-patch+json"}


def test_the_field_manager_asks_the_webhook(widgets: Widgets, hook: ConversionHook) -> None:
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
