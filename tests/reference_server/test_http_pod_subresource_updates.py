"""`pods/ephemeralcontainers` and `pods/resize` (registry/podupdates.py): only their part of the Pod changes,
with upstream's validation (`ValidatePodEphemeralContainersUpdate`, `ValidatePodResize`), through raw HTTP and
kubectl 1.33 (`kubectl debug`, `kubectl patch --subresource resize`)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import requests

from .conftest import status_of
from .kubectl_run import run_kubectl as _kubectl

STRATEGIC = {"Content-Type": "application/strategic-merge-patch+json"}
MERGE = {"Content-Type": "application/merge-patch+json"}
RES = {"requests": {"cpu": "100m", "memory": "64Mi"}, "limits": {"cpu": "1", "memory": "128Mi"}}
POD = {"metadata": {"name": "p", "labels": {"a": "b"}}, "spec": {
    "initContainers": [{"name": "i", "image": "busybox"}],
    "containers": [{"name": "c", "image": "nginx", "resources": RES}]}}
DEBUG = {"name": "dbg", "image": "busybox", "targetContainerName": "c"}


@pytest.fixture
def pod(http: requests.Session, url: str, namespaces: Any) -> str:
    ns = namespaces.create("podsub")["metadata"]["name"]
    r = http.post(f"{url}/api/v1/namespaces/{ns}/pods", json=POD)
    assert r.status_code == 201, r.text
    return f"{url}/api/v1/namespaces/{ns}/pods/p"


def _ephemeral(http: requests.Session, pod: str, *containers: dict, **more: Any) -> requests.Response:
    return http.patch(f"{pod}/ephemeralcontainers", headers=STRATEGIC,
                      data=json.dumps({"spec": {"ephemeralContainers": list(containers)}, **more}))


def _invalid(r: requests.Response, message: str) -> None:
    assert r.status_code == 422, r.text
    assert status_of(r)["message"] == f'Pod "p" is invalid: {message}'


def test_ephemeral_containers_are_added_defaulted_and_nothing_else_changes(http: requests.Session, pod: str) -> None:
    assert http.get(f"{pod}/ephemeralcontainers").json()["kind"] == "Pod"
    r = _ephemeral(http, pod, DEBUG, metadata={"labels": {"a": "changed"}})
    assert r.status_code == 200, r.text
    got = r.json()
    assert got["spec"]["ephemeralContainers"] == [{**DEBUG, "imagePullPolicy": "Always", "resources": {},
                                                   "terminationMessagePath": "/dev/termination-log",
                                                   "terminationMessagePolicy": "File"}]
    assert got["metadata"]["labels"] == {"a": "b"}  # ResetObjectMetaForStatus
    assert got["status"]["phase"] == "Pending"
    assert [m.get("subresource") for m in got["metadata"]["managedFields"]][-1] == "ephemeralcontainers"
    r = http.patch(f"{pod}/ephemeralcontainers", headers=MERGE, data=json.dumps(
        {"spec": {"containers": [{"name": "c", "image": "other"}]}}))
    assert r.status_code == 200 and r.json()["spec"]["containers"][0]["image"] == "nginx"  # dropped
    # the main resource may not change them
    r = http.patch(pod, headers=STRATEGIC, data=json.dumps({"spec": {"ephemeralContainers": [
        {"name": "two", "image": "busybox"}]}}))
    assert r.status_code == 422, r.text


def test_ephemeral_containers_validation(http: requests.Session, pod: str) -> None:
    path = "spec.ephemeralContainers"
    _invalid(_ephemeral(http, pod, {"name": "c", "image": "busybox"}), f'{path}[0].name: Duplicate value: "c"')
    _invalid(_ephemeral(http, pod, {**DEBUG, "targetContainerName": "nope"}),
             f'{path}[0].targetContainerName: Not found: "nope"')
    _invalid(_ephemeral(http, pod, {**DEBUG, "ports": [{"containerPort": 80}],
                                    "readinessProbe": {"exec": {"command": ["true"]}}}),
             f"[{path}[0].ports: Forbidden: cannot be set for an Ephemeral Container, "
             f"{path}[0].readinessProbe: Forbidden: cannot be set for an Ephemeral Container]")
    _invalid(_ephemeral(http, pod, {"name": "x"}), f"{path}[0].image: Required value")
    _invalid(_ephemeral(http, pod, {"name": "Dbg", "image": " busybox"}),
             f'[{path}[0].name: Invalid value: "Dbg": a lowercase RFC 1123 label must consist of lower case '
             "alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  "
             "or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), "
             f'{path}[0].image: Invalid value: " busybox": must not have leading or trailing whitespace]')
    # the common container rules (`validateContainerCommon`), which the pod spec path applies to them too
    _invalid(_ephemeral(http, pod, {**DEBUG, "volumeMounts": [{"name": "nope", "mountPath": "/x"}]}),
             f'{path}[0].volumeMounts[0].name: Not found: "nope"')
    _invalid(_ephemeral(http, pod, {**DEBUG, "terminationMessagePolicy": "Never"}),
             f'{path}[0].terminationMessagePolicy: Unsupported value: "Never": supported values: "File", '
             '"FallbackToLogsOnError"')
    assert _ephemeral(http, pod, DEBUG).status_code == 200
    r = http.patch(f"{pod}/ephemeralcontainers", headers=MERGE, data=json.dumps({"spec": {"ephemeralContainers": []}}))
    _invalid(r, f'{path}: Forbidden: existing ephemeral containers "dbg" may not be removed\n')


def test_resize_changes_only_resources(http: requests.Session, pod: str) -> None:
    new = {"requests": {"cpu": "200m", "memory": "64Mi"}, "limits": {"cpu": "1", "memory": "128Mi"}}
    r = http.patch(f"{pod}/resize", headers=STRATEGIC, data=json.dumps({
        "metadata": {"labels": {"a": "z"}},
        "spec": {"containers": [{"name": "c", "image": "ignored", "resources": new}]}}))
    assert r.status_code == 200, r.text
    c = r.json()["spec"]["containers"][0]
    assert (c["resources"], c["image"]) == (new, "nginx")
    assert r.json()["metadata"]["labels"] == {"a": "b"}
    assert r.json()["metadata"]["managedFields"][-1]["subresource"] == "resize"
    assert http.get(pod).json()["spec"]["containers"][0]["resources"] == new


def test_resize_validation(http: requests.Session, pod: str) -> None:
    r = http.patch(f"{pod}/resize", headers=MERGE, data=json.dumps({"spec": {"containers": [
        {"name": "c", "image": "nginx", "resources": {}}]}}))
    _invalid(r, 'spec: Invalid value: "Burstable": Pod QOS Class may not change as a result of resizing')
    r = http.patch(f"{pod}/resize", headers=STRATEGIC, data=json.dumps({"spec": {"containers": [
        {"name": "c", "resources": {"requests": {"ephemeral-storage": "1Gi"}}}]}}))
    assert r.status_code == 422 and "only cpu and memory resources are mutable" in status_of(r)["message"], r.text
    r = http.patch(f"{pod}/resize", headers=MERGE, data=json.dumps({"spec": {"containers": [
        {"name": "c", "image": "nginx", "resources": RES}, {"name": "d", "image": "x"}]}}))
    assert r.status_code == 422 and "containers cannot be added or removed" in status_of(r)["message"], r.text



def test_kubectl_debug_and_resize(http: requests.Session, url: str, pod: str, tmp_path: Path) -> None:
    ns = pod.split("/namespaces/")[1].split("/")[0]
    proc = _kubectl(url, tmp_path, "debug", "-n", ns, "p", "--image=busybox", "--profile=general")
    assert proc.returncode == 0, proc.stderr
    assert "ephemeral containers are disabled" not in proc.stderr
    names = [c["name"] for c in http.get(pod).json()["spec"]["ephemeralContainers"]]
    assert len(names) == 1 and names[0].startswith("debugger-")
    proc = _kubectl(url, tmp_path, "patch", "-n", ns, "pod", "p", "--subresource", "resize", "-p", json.dumps(
        {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "300m"}}}]}}))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "pod/p patched"
    assert http.get(pod).json()["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "300m"


def test_resize_meets_limit_ranges_and_quotas(http: requests.Session, url: str, pod: str) -> None:
    """LimitRanger's validation (`SupportsAttributes` admits `pods/resize` updates) and the pod quota evaluator
    (`Handles` an update through `resize`), charged by the growth."""
    base = pod.rsplit("/pods/", 1)[0]
    one = {"metadata": {"name": "r"}, "spec": {"containers": [{"name": "c", "image": "nginx", "resources": RES}]}}
    assert http.post(f"{base}/pods", json=one).status_code == 201
    r = http.post(f"{base}/limitranges", json={"metadata": {"name": "lr"}, "spec": {"limits": [
        {"type": "Container", "max": {"cpu": "2"}}]}})
    assert r.status_code == 201, r.text
    r = http.patch(f"{base}/pods/r/resize", headers=STRATEGIC, data=json.dumps({"spec": {"containers": [
        {"name": "c", "resources": {"limits": {"cpu": "3"}}}]}}))
    assert r.status_code == 403, r.text
    assert status_of(r)["message"] == 'pods "r" is forbidden: maximum cpu usage per Container is 2, but limit is 3'
    r = http.post(f"{base}/resourcequotas", json={"metadata": {"name": "q"}, "spec": {"hard": {"requests.cpu": "1"}}})
    assert r.status_code == 201, r.text
    r = http.patch(f"{base}/pods/r/resize", headers=STRATEGIC, data=json.dumps({"spec": {"containers": [
        {"name": "c", "resources": {"requests": {"cpu": "1500m"}, "limits": {"cpu": "2"}}}]}}))  # (valid: ≤ limit)
    assert r.status_code == 403, r.text
    assert status_of(r)["message"].startswith('pods "r" is forbidden: exceeded quota: q'), r.text
    r = http.patch(f"{base}/pods/r/resize", headers=STRATEGIC, data=json.dumps({"spec": {"containers": [
        {"name": "c", "resources": {"requests": {"cpu": "500m"}}}]}}))
    assert r.status_code == 200, r.text


def test_resize_gets_limit_range_defaults(http: requests.Session, url: str, pod: str) -> None:
    """LimitRanger's mutating half on `pods/resize` too (`PodMutateLimitFunc`, the same `SupportsAttributes`): a
    resource a container lacks takes the LimitRange's default; the resize strategy keeps only the containers'
    resources, so no `kubernetes.io/limit-ranger` annotation."""
    base = pod.rsplit("/pods/", 1)[0]
    burst = {"requests": {"cpu": "100m"}, "limits": {"cpu": "1"}}
    d = {"metadata": {"name": "d"}, "spec": {"containers": [{"name": "c", "image": "nginx", "resources": burst}]}}
    assert http.post(f"{base}/pods", json=d).status_code == 201
    r = http.post(f"{base}/limitranges", json={"metadata": {"name": "lr"}, "spec": {"limits": [
        {"type": "Container", "default": {"memory": "256Mi"}}]}})
    assert r.status_code == 201, r.text
    r = http.patch(f"{base}/pods/d/resize", headers=STRATEGIC, data=json.dumps({"spec": {"containers": [
        {"name": "c", "resources": {"requests": {"cpu": "200m"}}}]}}))
    assert r.status_code == 200, r.text
    got = r.json()
    assert got["spec"]["containers"][0]["resources"] == {"requests": {"cpu": "200m", "memory": "256Mi"},
                                                         "limits": {"cpu": "1", "memory": "256Mi"}}
    assert "kubernetes.io/limit-ranger" not in (got["metadata"].get("annotations") or {})
