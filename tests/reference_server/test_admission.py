"""NamespaceLifecycle (NS-53, NS-60..NS-65)."""
from __future__ import annotations

import json

from .conftest import status_of


def test_create_in_missing_namespace_ns60(http, url):
    st = status_of(http.post(f"{url}/api/v1/namespaces/nope-zz/configmaps", json={"metadata": {"name": "c"}}))
    assert st == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                  "message": 'namespaces "nope-zz" not found', "reason": "NotFound",
                  "details": {"name": "nope-zz", "kind": "namespaces"}, "code": 404}


def test_create_in_terminating_namespace_ns61(http, url, namespaces):
    ns = namespaces.create(finalizers=["example.com/hold"])["metadata"]["name"]
    http.post(f"{url}/api/v1/namespaces/{ns}/configmaps",
              json={"metadata": {"name": "stay", "finalizers": ["example.com/keep"]}})
    http.delete(f"{url}/api/v1/namespaces/{ns}")
    r = http.post(f"{url}/api/v1/namespaces/{ns}/configmaps", json={"metadata": {"name": "cm1"}})
    assert r.status_code == 403
    assert r.json() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": f'configmaps "cm1" is forbidden: unable to create new content in namespace {ns} because it is '
                   "being terminated",
        "reason": "Forbidden",
        "details": {"name": "cm1", "kind": "configmaps",
                    "causes": [{"reason": "NamespaceTerminating", "message": f"namespace {ns} is being terminated",
                                "field": "metadata.namespace"}]},
        "code": 403}
    st = status_of(http.post(f"{url}/api/v1/namespaces/{ns}/configmaps", json={"metadata": {"generateName": "g-"}}))
    assert st["details"]["name"] == "g-"
    # NS-62: updates of existing content still work
    r = http.patch(f"{url}/api/v1/namespaces/{ns}/configmaps/stay",
                   data=json.dumps({"metadata": {"labels": {"a": "b"}}}),
                   headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200


def test_lifecycle_runs_before_validation_ns23(http, url):
    st = status_of(http.post(f"{url}/api/v1/namespaces/nope-zz/configmaps", json={"metadata": {"name": "BAD"}}))
    assert st["code"] == 404


def test_namespace_creation_not_blocked_ns64(http, url, namespaces):
    namespaces.create()
