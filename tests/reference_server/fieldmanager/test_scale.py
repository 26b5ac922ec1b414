"""fieldmanager/scale.py: managedFields through `/scale` as `ScaleHandler` (apimachinery util/managedfields) and
`scaleUpdatedObjectInfo` (pkg/registry/apps/deployment/storage) handle them, unit and over HTTP."""
from __future__ import annotations

import json

from conformance.reference_server.fieldmanager.scale import to_parent, to_subresource

REPLICAS = {"f:spec": {"f:replicas": {}}}


def _entry(manager, op="Update", fields=None, api="apps/v1", sub=None, time="2026-01-01T00:00:00Z"):
    e = {"manager": manager, "operation": op, "apiVersion": api, "time": time, "fieldsType": "FieldsV1",
         "fieldsV1": fields if fields is not None else {"f:spec": {"f:replicas": {}, "f:paused": {}}}}
    if sub:
        e["subresource"] = sub
    return e


def test_to_subresource_keeps_only_replicas_owners():
    parent = [_entry("creator"), _entry("other", fields={"f:spec": {"f:paused": {}}}),
              _entry("old", api="extensions/v1beta1")]
    scale = to_subresource(parent)
    assert [(e["manager"], e["fieldsV1"]) for e in scale] == [("creator", REPLICAS)]


def test_to_parent_steals_keeps_and_adds():
    parent = [_entry("creator"), _entry("kept", op="Apply", fields=REPLICAS),
              _entry("only-replicas", fields=REPLICAS), _entry("other", fields={"f:spec": {"f:paused": {}}}),
              _entry("old", api="extensions/v1beta1")]
    scale = [_entry("kept", op="Apply", fields=REPLICAS, api="apps/v1"),
             _entry("scaler", op="Apply", fields=REPLICAS, api="autoscaling/v1", sub="scale")]
    out = {(e["manager"], e["operation"]): e for e in to_parent(parent, scale)}
    assert out[("creator", "Update")]["fieldsV1"] == {"f:spec": {"f:paused": {}}}  # replicas stolen
    assert ("only-replicas", "Update") not in out  # nothing left
    assert out[("kept", "Apply")] == _entry("kept", op="Apply", fields=REPLICAS)  # untouched, time included
    assert out[("other", "Update")]["fieldsV1"] == {"f:spec": {"f:paused": {}}}
    assert ("old", "Update") not in out  # an unknown apiVersion is dropped
    new = out[("scaler", "Apply")]  # at the parent's apiVersion, without a time (ToParent's parent times)
    assert new == {"manager": "scaler", "operation": "Apply", "apiVersion": "apps/v1", "fieldsType": "FieldsV1",
                   "fieldsV1": REPLICAS, "subresource": "scale"}


APPLY = {"Content-Type": "application/apply-patch+yaml"}
DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {
    "selector": {"matchLabels": {"app": "web"}},
    "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}


def _scale(replicas):
    return json.dumps({"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "web"},
                       "spec": {"replicas": replicas}})


def test_server_side_apply_through_scale(http, url, namespaces):
    """An Apply through /scale is recorded as an Apply with subresource `scale` that owns `.spec.replicas`; it
    conflicts with the creator (who owns the defaulted replicas) unless forced, and a later apply of the main
    resource conflicts with it."""
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/apis/apps/v1/namespaces/{ns}/deployments"
    assert http.post(base, json=DEPLOYMENT, params={"fieldManager": "creator"}).status_code == 201
    r = http.patch(f"{base}/web/scale", data=_scale(3), headers=APPLY, params={"fieldManager": "scaler"})
    assert r.status_code == 409, r.text
    assert r.json()["message"] == 'Apply failed with 1 conflict: conflict with "creator" using apps/v1: .spec.replicas'
    r = http.patch(f"{base}/web/scale", data=_scale(3), headers=APPLY,
                   params={"fieldManager": "scaler", "force": "true"})
    assert r.status_code == 200 and r.json()["kind"] == "Scale" and r.json()["spec"] == {"replicas": 3}, r.text
    dep = http.get(f"{base}/web").json()
    assert dep["spec"]["replicas"] == 3
    managed = {(m["manager"], m["operation"]): m for m in dep["metadata"]["managedFields"]}
    assert managed[("scaler", "Apply")] == {"manager": "scaler", "operation": "Apply", "apiVersion": "apps/v1",
                                            "fieldsType": "FieldsV1", "fieldsV1": REPLICAS, "subresource": "scale"}
    assert "f:replicas" not in managed[("creator", "Update")]["fieldsV1"]["f:spec"]
    r = http.patch(f"{base}/web/scale", data=_scale(4), headers=APPLY, params={"fieldManager": "scaler"})
    assert r.status_code == 200 and r.json()["spec"] == {"replicas": 4}, r.text
    main = json.dumps({**DEPLOYMENT, "spec": {**DEPLOYMENT["spec"], "replicas": 5}})
    r = http.patch(f"{base}/web", data=main, headers=APPLY, params={"fieldManager": "app"})
    assert r.status_code == 409 and r.json()["message"] == (
        'Apply failed with 1 conflict: conflict with "scaler" with subresource "scale": .spec.replicas'), r.text
    # an Update through /scale by a new manager takes replicas over as an Update with subresource scale
    r = http.patch(f"{base}/web/scale", data=json.dumps({"spec": {"replicas": 2}}),
                   headers={"Content-Type": "application/merge-patch+json"}, params={"fieldManager": "hpa"})
    assert r.status_code == 200, r.text
    managed = {(m["manager"], m["operation"]): m for m in http.get(f"{base}/web").json()["metadata"]["managedFields"]}
    assert ("scaler", "Apply") not in managed
    assert managed[("hpa", "Update")] == {"manager": "hpa", "operation": "Update", "apiVersion": "apps/v1",
                                          "fieldsType": "FieldsV1", "fieldsV1": REPLICAS, "subresource": "scale"}
