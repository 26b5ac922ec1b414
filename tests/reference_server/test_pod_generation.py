"""Pods' `metadata.generation` (registry/pod.py, registry/podupdates.py): 1 on create whatever the client sent,
one more for each write that changes the spec (the main resource, `pods/ephemeralcontainers`, `pods/resize`),
unchanged by metadata-only and status writes, as `pkg/registry/core/pod/strategy.go` 1.33 (`pod.Generation = 1`,
`updatePodGeneration`; KEP-5067 leaves it ungated)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import requests

from .kubectl_run import run_kubectl as _kubectl

MERGE = {"Content-Type": "application/merge-patch+json"}
STRATEGIC = {"Content-Type": "application/strategic-merge-patch+json"}
RES = {"requests": {"cpu": "100m", "memory": "64Mi"}, "limits": {"cpu": "1", "memory": "128Mi"}}
POD = {"metadata": {"name": "p", "generation": 7}, "spec": {
    "containers": [{"name": "c", "image": "nginx", "resources": RES}]}}


@pytest.fixture
def pod(http: requests.Session, url: str, namespaces: Any) -> str:
    ns = namespaces.create("podgen")["metadata"]["name"]
    r = http.post(f"{url}/api/v1/namespaces/{ns}/pods", json=POD)
    assert r.status_code == 201, r.text
    assert r.json()["metadata"]["generation"] == 1  # the client's 7 is not kept
    return f"{url}/api/v1/namespaces/{ns}/pods/p"


def _patch(http: requests.Session, path: str, body: dict[str, Any], headers: dict[str, str] = MERGE) -> int:
    r = http.patch(path, headers=headers, data=json.dumps(body))
    assert r.status_code == 200, r.text
    return r.json()["metadata"]["generation"]


def test_spec_changes_move_the_generation_and_nothing_else_does(http: requests.Session, pod: str) -> None:
    assert _patch(http, pod, {"metadata": {"labels": {"a": "b"}}}) == 1
    assert _patch(http, pod, {"metadata": {"generation": 40}}) == 1  # the stored one is kept
    assert _patch(http, pod, {"spec": {"activeDeadlineSeconds": 30}}) == 2
    assert _patch(http, pod, {"spec": {"activeDeadlineSeconds": 30}}) == 2  # the same spec
    assert _patch(http, f"{pod}/status", {"status": {"message": "m"}}) == 2
    got = http.get(pod).json()
    got["spec"]["containers"][0]["image"] = "nginx:2"
    r = http.put(pod, json=got)
    assert r.status_code == 200 and r.json()["metadata"]["generation"] == 3, r.text


def test_subresources_move_the_generation(http: requests.Session, pod: str) -> None:
    debug = {"name": "dbg", "image": "busybox", "targetContainerName": "c"}
    assert _patch(http, f"{pod}/ephemeralcontainers", {"spec": {"ephemeralContainers": [debug]}}, STRATEGIC) == 2
    resized = {"requests": {"cpu": "200m", "memory": "64Mi"}, "limits": {"cpu": "1", "memory": "128Mi"}}
    assert _patch(http, f"{pod}/resize",
                  {"spec": {"containers": [{"name": "c", "resources": resized}]}}, STRATEGIC) == 3
    assert _patch(http, f"{pod}/resize", {"metadata": {"labels": {"x": "y"}}}) == 3  # nothing of the spec


def test_kubectl_sees_the_generation_move(url: str, pod: str, tmp_path: Path) -> None:
    """`kubectl set image` (a strategic-merge patch of the spec) moves it; `kubectl label` does not."""
    ns = pod.split("/namespaces/")[1].split("/")[0]
    assert _kubectl(url, tmp_path, "label", "-n", ns, "pod", "p", "x=y").returncode == 0
    proc = _kubectl(url, tmp_path, "set", "image", "-n", ns, "pod/p", "c=nginx:2")
    assert proc.returncode == 0, proc.stderr
    proc = _kubectl(url, tmp_path, "get", "-n", ns, "pod", "p", "-o", "jsonpath={.metadata.generation}")
    assert proc.returncode == 0 and proc.stdout == "2", (proc.stdout, proc.stderr)
