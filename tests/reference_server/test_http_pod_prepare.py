"""What the pod strategy changes in a created pod (registry/podprepare.py), as a client reads it back over HTTP:
`resourceClaims` dropped (DynamicResourceAllocation is off in 1.33), matchLabelKeys merged into the affinity
selectors (MatchLabelKeysInPodAffinity, GA in 1.33), a gated pod's SchedulingGated condition, which
`kubectl get pods` shows as the pod's STATUS, and the AppArmor annotations synced with the fields (with
upstream's deprecation warning)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import requests

from .kubectl_run import run_kubectl

TERM = {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"tier": "web"}},
        "matchLabelKeys": ["app"]}
POD = {"metadata": {"name": "p", "labels": {"app": "shop", "tier": "web"}}, "spec": {
    "containers": [{"name": "c", "image": "nginx", "resources": {"claims": [{"name": "gpu"}]}}],
    "resourceClaims": [{"name": "gpu", "resourceClaimName": "gpu-claim"}],
    "schedulingGates": [{"name": "example.com/quota"}],
    "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [TERM]}}}}


def test_a_created_pod_as_upstream_stores_it(http: requests.Session, url: str, namespaces: Any,
                                             tmp_path: Path) -> None:
    ns = namespaces.create("podprep")["metadata"]["name"]
    r = http.post(f"{url}/api/v1/namespaces/{ns}/pods", json=POD)
    assert r.status_code == 201, r.text
    got = http.get(f"{url}/api/v1/namespaces/{ns}/pods/p").json()
    spec = got["spec"]
    assert "resourceClaims" not in spec and "claims" not in spec["containers"][0]["resources"]
    [term] = spec["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert term["labelSelector"] == {"matchLabels": {"tier": "web"},
                                     "matchExpressions": [{"key": "app", "operator": "In", "values": ["shop"]}]}
    [condition] = got["status"]["conditions"]
    assert (condition["type"], condition["status"], condition["reason"]) == \
        ("PodScheduled", "False", "SchedulingGated")
    proc = run_kubectl(url, tmp_path, "get", "pods", "-n", ns, "--no-headers")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[:3] == ["p", "0/1", "SchedulingGated"]


def test_apparmor_annotations_and_fields_over_http(http: requests.Session, url: str, namespaces: Any) -> None:
    ns = namespaces.create("podaa")["metadata"]["name"]
    key = "container.apparmor.security.beta.kubernetes.io/"
    body = {"metadata": {"name": "p", "annotations": {f"{key}b": "localhost/prof"}}, "spec": {"containers": [
        {"name": "a", "image": "nginx", "securityContext": {"appArmorProfile": {"type": "RuntimeDefault"}}},
        {"name": "b", "image": "nginx"}]}}
    r = http.post(f"{url}/api/v1/namespaces/{ns}/pods", json=body)
    assert r.status_code == 201, r.text
    assert r.headers["Warning"] == (f'299 - "metadata.annotations[{key}b]: deprecated since v1.30; use the '
                                    '\\"appArmorProfile\\" field instead"')
    got = r.json()
    assert got["metadata"]["annotations"] == {f"{key}b": "localhost/prof", f"{key}a": "runtime/default"}
    assert got["spec"]["containers"][1]["securityContext"]["appArmorProfile"] == {
        "type": "Localhost", "localhostProfile": "prof"}


def test_a_pod_status_write_drops_the_fields_of_disabled_gates(http: requests.Session, url: str,
                                                              namespaces: Any) -> None:
    """`podStatusStrategy.PrepareForUpdate` ends with `DropDisabledPodFields` (1.33, #130618): the status fields
    of DynamicResourceAllocation, ResourceHealthStatus and PodObservedGenerationTracking, all off in 1.33 (a
    container status's `allocatedResources`, InPlacePodVerticalScaling's, stays)."""
    ns = namespaces.create("podst")["metadata"]["name"]
    pod = f"{url}/api/v1/namespaces/{ns}/pods/p"
    r = http.post(f"{url}/api/v1/namespaces/{ns}/pods",
                  json={"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
    assert r.status_code == 201, r.text
    status = {"phase": "Pending", "observedGeneration": 1,
              "conditions": [{"type": "Ready", "status": "False", "observedGeneration": 1}],
              "resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "x"}],
              "containerStatuses": [{"name": "c", "image": "nginx", "imageID": "", "ready": False,
                                     "restartCount": 0, "allocatedResources": {"cpu": "100m"},
                                     "allocatedResourcesStatus": [{"name": "claim:gpu", "resources": []}]}]}
    r = http.patch(f"{pod}/status", data=json.dumps({"status": status}),
                   headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200, r.text
    got = r.json()["status"]
    assert "observedGeneration" not in got and "resourceClaimStatuses" not in got
    assert "observedGeneration" not in got["conditions"][0]
    assert "allocatedResourcesStatus" not in got["containerStatuses"][0]
    # kept: 1.33 guards it by InPlacePodVerticalScaling (beta, on), InPlacePodVerticalScalingAllocatedStatus being
    # deprecated and no longer used (kubernetes#130880, milestone v1.33)
    assert got["containerStatuses"][0]["allocatedResources"] == {"cpu": "100m"}
    assert got["qosClass"] == "BestEffort"
