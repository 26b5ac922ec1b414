"""Discovery and version documents (NS-110..NS-114), health endpoints."""
from __future__ import annotations


def test_api(http, url):
    body = http.get(f"{url}/api").json()
    host = url.split("//")[1]
    assert body == {"kind": "APIVersions", "versions": ["v1"],
                    "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": host}]}


def test_api_v1(http, url):
    body = http.get(f"{url}/api/v1").json()
    assert body["kind"] == "APIResourceList" and body["groupVersion"] == "v1" and "apiVersion" not in body
    res = {r["name"]: r for r in body["resources"]}
    assert [r["name"] for r in body["resources"]] == sorted(res)
    assert res["namespaces"] == {"name": "namespaces", "singularName": "namespace", "namespaced": False,
                                 "kind": "Namespace",
                                 "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"],
                                 "shortNames": ["ns"], "storageVersionHash": "Q3oi5N2YM8M="}
    assert res["namespaces/finalize"] == {"name": "namespaces/finalize", "singularName": "", "namespaced": False,
                                          "kind": "Namespace", "verbs": ["update"]}
    assert res["namespaces/status"]["verbs"] == ["get", "patch", "update"]
    assert res["configmaps"]["storageVersionHash"] == "qFsyl6wFWjQ="
    assert res["configmaps"]["shortNames"] == ["cm"] and "deletecollection" in res["configmaps"]["verbs"]
    assert {"configmaps", "secrets", "services", "serviceaccounts", "pods", "resourcequotas", "limitranges",
            "events"} <= set(res)


def test_apis_and_version(http, url):
    authz = {"groupVersion": "authorization.k8s.io/v1", "version": "v1"}
    groups = http.get(f"{url}/apis").json()
    assert (groups["kind"], groups["apiVersion"]) == ("APIGroupList", "v1")
    assert groups["groups"][4] == {"name": "authorization.k8s.io", "versions": [authz], "preferredVersion": authz}
    # kube-aggregator's priorities (apiVersionPriorities): apiregistration first, apps 17800, events 17750,
    # authentication 17700, authorization 17600, autoscaling 17500, batch 17400, certificates 17300, ..., storage
    # 16800, admissionregistration and apiextensions 16700 (then by name), scheduling 16600, coordination 16500,
    # node 16300, discovery 16200, flowcontrol 16100; rbac (17000) is served whatever the authorization mode
    assert [g["name"] for g in groups["groups"]] == ["apiregistration.k8s.io", "apps", "events.k8s.io",
                                                     "authentication.k8s.io", "authorization.k8s.io", "autoscaling",
                                                     "batch", "certificates.k8s.io", "networking.k8s.io", "policy",
                                                     "rbac.authorization.k8s.io", "storage.k8s.io", "admissionregistration.k8s.io",
                                                     "apiextensions.k8s.io", "scheduling.k8s.io",
                                                     "coordination.k8s.io", "node.k8s.io", "discovery.k8s.io",
                                                     "flowcontrol.apiserver.k8s.io"]
    v = http.get(f"{url}/version").json()
    assert v["major"] == "1" and v["minor"] == "33" and v["gitVersion"] == "v1.33.0-nsconform"
    assert {"gitCommit", "gitTreeState", "buildDate", "goVersion", "compiler", "platform"} <= set(v)


def test_health(http, url):
    for p in ("/healthz", "/readyz", "/livez"):
        r = http.get(url + p)
        assert r.status_code == 200 and r.text == "ok"


def test_openapi_hooks(http, url):
    r = http.get(f"{url}/openapi/v2")
    assert r.status_code in (200, 404)
    if r.status_code == 200:
        assert r.json()["swagger"] == "2.0"
        root = http.get(f"{url}/openapi/v3").json()
        assert "api/v1" in root["paths"]
        assert http.get(f"{url}/openapi/v3/api/v1").json()["openapi"].startswith("3.")


def test_table_output_hook(http, url):
    r = http.get(f"{url}/api/v1/namespaces", headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})
    assert r.status_code in (200, 406)
    if r.status_code == 200:
        body = r.json()
        assert body["kind"] == "Table" and [c["name"] for c in body["columnDefinitions"]][:2] == ["Name", "Status"]
