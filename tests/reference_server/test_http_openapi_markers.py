"""Upstream's list/map markers as the merges see them over HTTP: server-side apply and strategic-merge patch read
them from the schemas the server publishes (`wire/markers.py`), so both merge a named-group kind's fields as
kube-apiserver does."""
from __future__ import annotations

import json
from typing import Any

import requests

APPLY = {"Content-Type": "application/apply-patch+yaml"}
SMP = {"Content-Type": "application/strategic-merge-patch+json"}


def apply(http: requests.Session, path: str, body: dict[str, Any], manager: str) -> requests.Response:
    return http.patch(path, data=json.dumps(body), headers=APPLY, params={"fieldManager": manager})


def deployment(node_selector: dict[str, str], env: list[dict[str, str]]) -> dict[str, Any]:
    labels = {"app": "d"}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"selector": {"matchLabels": labels}, "template": {"metadata": {"labels": labels}, "spec": {
                "nodeSelector": node_selector, "containers": [{"name": "c", "image": "busybox", "env": env}]}}}}


def test_apply_pod_template_node_selector_is_atomic_and_env_merges_by_name(http, url, namespaces):
    """`PodSpec.nodeSelector` is `+mapType=atomic`: a second manager setting another key conflicts (upstream's
    409 names the field); containers merge by name, their env by name."""
    ns = namespaces.create()["metadata"]["name"]
    path = f"{url}/apis/apps/v1/namespaces/{ns}/deployments/d"
    r = apply(http, path, deployment({"a": "1"}, [{"name": "A", "value": "1"}]), "one")
    assert r.status_code == 201, r.text
    r = apply(http, path, deployment({"a": "1", "b": "2"}, [{"name": "B", "value": "2"}]), "two")
    assert r.status_code == 409, r.text
    assert r.json()["details"]["causes"] == [
        {"reason": "FieldManagerConflict", "message": 'conflict with "one"',
         "field": ".spec.template.spec.nodeSelector"}]
    r = apply(http, path, deployment({"a": "1"}, [{"name": "B", "value": "2"}]), "two")
    assert r.status_code == 200, r.text
    spec = r.json()["spec"]["template"]["spec"]
    assert spec["nodeSelector"] == {"a": "1"}
    assert spec["containers"][0]["env"] == [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]


def test_apply_network_policy_selector_is_atomic(http, url, namespaces):
    """LabelSelector is `+structType=atomic` everywhere (here NetworkPolicy's podSelector), not only under the
    workloads' `spec.selector`."""
    ns = namespaces.create()["metadata"]["name"]
    path = f"{url}/apis/networking.k8s.io/v1/namespaces/{ns}/networkpolicies/np"

    def policy(labels: dict[str, str]) -> dict[str, Any]:
        return {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": {"name": "np"},
                "spec": {"podSelector": {"matchLabels": labels}}}

    assert apply(http, path, policy({"a": "1"}), "one").status_code == 201
    r = apply(http, path, policy({"b": "2"}), "two")
    assert r.status_code == 409, r.text
    assert r.json()["details"]["causes"][0]["field"] == ".spec.podSelector"


def test_strategic_merge_replaces_a_pdb_selector(http, url, namespaces):
    """`PodDisruptionBudgetSpec.selector` is `patchStrategy:"replace"`: a strategic patch replaces it whole."""
    ns = namespaces.create()["metadata"]["name"]
    coll = f"{url}/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets"
    body = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "p"},
            "spec": {"minAvailable": 1, "selector": {"matchLabels": {"a": "1"}}}}
    assert http.post(coll, json=body).status_code == 201
    r = http.patch(f"{coll}/p", data=json.dumps({"spec": {"selector": {"matchLabels": {"b": "2"}}}}), headers=SMP)
    assert r.status_code == 200, r.text
    assert r.json()["spec"]["selector"] == {"matchLabels": {"b": "2"}}
