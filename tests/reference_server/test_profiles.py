"""The `design` profile: finalize by POST, cross-namespace list at /api/v1/list/{resource}."""
from __future__ import annotations

import requests

from tests.reference_server.ownserver import own_server

from .conftest import status_of


design = own_server(profile="design", flavor="bare")


def test_finalize_is_post(design):
    s = requests.Session()
    ns = s.post(f"{design.url}/api/v1/namespaces", json={"metadata": {"name": "d1"}}).json()
    ns["spec"]["finalizers"] = ["kubernetes", "example.com/x"]
    r = s.post(f"{design.url}/api/v1/namespaces/d1/finalize", json=ns)
    assert r.status_code == 200 and r.json()["spec"]["finalizers"] == ["kubernetes", "example.com/x"]
    for method in ("PUT", "PATCH", "GET", "DELETE"):
        assert status_of(s.request(method, f"{design.url}/api/v1/namespaces/d1/finalize", json=ns))["code"] == 405
    fin = [r for r in s.get(f"{design.url}/api/v1").json()["resources"] if r["name"] == "namespaces/finalize"]
    assert fin[0]["verbs"] == ["create"]


def test_list_path(design):
    s = requests.Session()
    s.post(f"{design.url}/api/v1/namespaces", json={"metadata": {"name": "d2"}})
    s.post(f"{design.url}/api/v1/namespaces/d2/configmaps", json={"metadata": {"name": "c"}})
    items = s.get(f"{design.url}/api/v1/list/configmaps").json()["items"]
    # every namespace's: d2's, and (once its controller ran) kube-apiserver's own in kube-system
    listed = [(i["metadata"]["namespace"], i["metadata"]["name"]) for i in items]
    assert listed[0] == ("d2", "c") and listed[1:] in (
        [], [("kube-system", "kube-apiserver-legacy-service-account-token-tracking")])
    assert s.get(f"{design.url}/api/v1/list/namespaces").json()["kind"] == "NamespaceList"
    assert status_of(s.get(f"{design.url}/api/v1/list/foos"))["code"] == 404
    assert status_of(s.post(f"{design.url}/api/v1/list/configmaps", json={}))["code"] == 405
    r = s.get(f"{design.url}/api/v1/list/configmaps", params={"watch": "1", "timeoutSeconds": "1"})
    assert r.status_code == 200 and '"ADDED"' in r.text
    r = s.get(f"{design.url}/api/v1/watch/configmaps", params={"timeoutSeconds": "1"})
    assert r.status_code == 200 and '"ADDED"' in r.text


def test_controller_finalizes_in_design_profile(design):
    s = requests.Session()
    s.post(f"{design.url}/api/v1/namespaces", json={"metadata": {"name": "d3"}})
    rv = s.delete(f"{design.url}/api/v1/namespaces/d3").json()["metadata"]["resourceVersion"]
    r = s.get(f"{design.url}/api/v1/watch/namespaces/d3", params={"resourceVersion": rv, "timeoutSeconds": "5"},
              stream=True)
    for line in r.iter_lines():
        if b'"DELETED"' in line:
            break
    r.close()
    assert s.get(f"{design.url}/api/v1/namespaces/d3").status_code == 404
