"""A JSON or merge patch of a HorizontalPodAutoscaler whose result names the kind's other served version
(`autoscaling/v1` through the `autoscaling/v2` route, or the reverse): handlers/patch.go
`applyPatchToCurrentObject`'s `runtime.DecodeInto(p.codec, patchedObjJS, objToUpdate)` decodes the patched JSON
into *that* version's Go type (json.go `UseOrCreateObject`: `Scheme.New`), so its unknown fields are dropped (or,
under Strict and Warn, named as the strict decoder names them), its defaults and conversion are applied
(versioning.go `Decode`: `Default`, then `Convert` to the internal object), and the update stores what that gives:
a v2 HPA patched as v1 loses its `metrics` and `behavior` (v1's conversion gives it the CPU metric at 80%), and
reads v1's `targetCPUUtilizationPercentage`. Before: the result was read as the route's version's, its
`apiVersion` overwritten (http/handlers.py `_check_patched`, http/patch.py `refuse_patched_gvk`).
"""
from __future__ import annotations

import requests

MERGE_PATCH = {"Content-Type": "application/merge-patch+json"}
JSON_PATCH = {"Content-Type": "application/json-patch+json"}
V1, V2 = "autoscaling/v1", "autoscaling/v2"
REF = {"kind": "Deployment", "name": "web", "apiVersion": "apps/v1"}
MEMORY = {"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue",
                                                                        "averageValue": "100Mi"}}}
WARNINGS = ('299 - "unknown field \\"spec.metrics\\"", 299 - "unknown field \\"spec.behavior\\"", '
            '299 - "unknown field \\"status.currentMetrics\\""')
CPU = {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}


def _hpa(http: requests.Session, url: str, namespaces, version: str, spec: dict) -> tuple[str, str]:
    """A new HPA written through `version`; (its URL in v1, its URL in v2)."""
    ns = namespaces.create("pver")["metadata"]["name"]
    base = f"{url}/apis/%s/namespaces/{ns}/horizontalpodautoscalers"
    r = http.post(base % version, json={"metadata": {"name": "h"}, "spec": spec})
    assert r.status_code == 201, r.text
    return f"{base % V1}/h", f"{base % V2}/h"


def test_v2_patched_as_v1_is_decoded_as_v1(http, url, namespaces):
    """v1 has no `metrics` nor `behavior`: both dropped; no CPU target: v1's conversion's implicit CPU at 80%."""
    _, v2 = _hpa(http, url, namespaces, V2, {"scaleTargetRef": REF, "maxReplicas": 5, "metrics": [MEMORY],
                                             "behavior": {"scaleDown": {"stabilizationWindowSeconds": 30}}})
    r = http.patch(v2, data='{"apiVersion":"autoscaling/v1"}', headers=MERGE_PATCH)
    assert r.status_code == 200, r.text
    assert r.headers.get("Warning") == WARNINGS  # (the default `fieldValidation`: Warn)
    assert (r.json()["apiVersion"], r.json()["spec"]) == (V2, {"scaleTargetRef": REF, "minReplicas": 1,
                                                               "maxReplicas": 5, "metrics": [CPU]})
    assert http.get(v2).json()["spec"] == r.json()["spec"]


def test_v1_fields_are_read_and_v2_fields_dropped(http, url, namespaces):
    _, v2 = _hpa(http, url, namespaces, V2, {"scaleTargetRef": REF, "maxReplicas": 5, "metrics": [MEMORY]})
    r = http.patch(v2, data='[{"op":"replace","path":"/apiVersion","value":"autoscaling/v1"},'
                            '{"op":"add","path":"/spec/targetCPUUtilizationPercentage","value":50},'
                            '{"op":"remove","path":"/spec/minReplicas"}]', headers=JSON_PATCH)
    assert r.status_code == 200, r.text
    cpu50 = {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization",
                                                                        "averageUtilization": 50}}}
    assert r.json()["spec"] == {"scaleTargetRef": REF, "minReplicas": 1, "maxReplicas": 5, "metrics": [cpu50]}


def test_v1_round_trip_annotations_are_read(http, url, namespaces):
    """v1's conversion moves `autoscaling.alpha.kubernetes.io/metrics` into `metrics` (and off the object)."""
    _, v2 = _hpa(http, url, namespaces, V2, {"scaleTargetRef": REF, "maxReplicas": 5})
    patch = {"apiVersion": V1, "metadata": {"annotations": {
        "autoscaling.alpha.kubernetes.io/metrics":
            '[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"100Mi"}}]'}}}
    r = http.patch(v2, json=patch, headers=MERGE_PATCH)
    assert r.status_code == 200, r.text
    assert r.json()["spec"]["metrics"] == [MEMORY]
    assert "annotations" not in r.json()["metadata"]


def test_strict_names_the_other_versions_unknown_fields(http, url, namespaces):
    _, v2 = _hpa(http, url, namespaces, V2, {"scaleTargetRef": REF, "maxReplicas": 5, "metrics": [MEMORY],
                                             "behavior": {"scaleDown": {"stabilizationWindowSeconds": 30}}})
    before = http.get(v2).json()
    r = http.patch(f"{v2}?fieldValidation=Strict", data='{"apiVersion":"autoscaling/v1"}', headers=MERGE_PATCH)
    assert r.status_code == 422, r.text
    cause = r.json()["details"]["causes"][0]
    assert cause["field"] == "patch"
    # (v2's `currentMetrics` has no omitempty: the current object's JSON holds `"currentMetrics":null`)
    assert cause["message"].endswith(': strict decoding error: unknown field "spec.metrics", unknown field '
                                     '"spec.behavior", unknown field "status.currentMetrics"'), cause["message"]
    assert '\\"status\\":{\\"desiredReplicas\\":0,\\"currentMetrics\\":null}}' in cause["message"]
    assert http.get(v2).json() == before


def test_warn_names_them_and_drops_them(http, url, namespaces):
    _, v2 = _hpa(http, url, namespaces, V2, {"scaleTargetRef": REF, "maxReplicas": 5, "metrics": [MEMORY]})
    r = http.patch(f"{v2}?fieldValidation=Warn", data='{"apiVersion":"autoscaling/v1"}', headers=MERGE_PATCH)
    assert r.status_code == 200, r.text
    assert r.headers.get("Warning") == ('299 - "unknown field \\"spec.metrics\\"", '
                                        '299 - "unknown field \\"status.currentMetrics\\""')
    assert r.json()["spec"]["metrics"] == [CPU]


def test_v1_patched_as_v2_is_decoded_as_v2(http, url, namespaces):
    """Through the v1 route: the v1 JSON read as v2 (its CPU target unknown there: named under Strict, else
    dropped; v2's `metrics` read), answered in v1."""
    v1, v2 = _hpa(http, url, namespaces, V1, {"scaleTargetRef": REF, "maxReplicas": 5,
                                              "targetCPUUtilizationPercentage": 60})
    r = http.patch(f"{v1}?fieldValidation=Strict", json={"apiVersion": V2}, headers=MERGE_PATCH)
    assert r.status_code == 422, r.text
    assert r.json()["details"]["causes"][0]["message"].endswith(
        ': strict decoding error: unknown field "spec.targetCPUUtilizationPercentage"')
    r = http.patch(v1, json={"apiVersion": V2, "spec": {"metrics": [MEMORY]}}, headers=MERGE_PATCH)
    assert r.status_code == 200, r.text
    assert (r.json()["apiVersion"], r.json()["spec"]) == (V1, {"scaleTargetRef": REF, "minReplicas": 1,
                                                               "maxReplicas": 5})
    assert http.get(v2).json()["spec"]["metrics"] == [MEMORY]
