"""Aggregated discovery (apidiscovery.k8s.io/v2) on `/api` and `/apis`: Accept selection, headers, ETag/304,
the unchanged legacy documents, and agreement with the legacy APIResourceLists for every group version."""
from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
import requests
import yaml

from conformance.reference_server.embedded import start_embedded
from tests.reference_server.ownserver import own_server

V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
V2BETA1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
V2_PB = "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
V2_YAML = "application/yaml;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
CLIENT_GO = f"{V2},{V2BETA1},application/json"  # client-go's acceptDiscoveryFormats (kubectl 1.33 sends it)


def get(http: requests.Session, url: str, accept: str | None, **headers: str) -> requests.Response:
    if accept is not None:
        headers["Accept"] = accept
    return http.get(url, headers=headers, timeout=10)


@pytest.mark.parametrize("accept,media", [
    (CLIENT_GO, "application/json"),
    (V2, "application/json"),
    (f"{V2_PB},{V2},application/json", "application/json"),  # protobuf first: skipped, JSON answered
    (f"{V2};profile=nopeer,{CLIENT_GO}", "application/json"),  # unknown parameters are ignored
    (V2_YAML, "application/yaml"),
    ("*/*;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", "application/json"),
    (f"application/json;q=0.5,{V2}", "application/json"),  # q orders the clauses
    # `DiscoveryEndpointRestrictions` refuses a clause without the aggregated conversion: the next one is taken
    (f"application/json,{V2}", "application/json"),
])
@pytest.mark.parametrize("path", ["/api", "/apis"])
def test_aggregated_selected(http, url, path, accept, media):
    r = get(http, url + path, accept)
    assert r.status_code == 200
    assert r.headers["Content-Type"] == f"{media};g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
    assert r.headers["Vary"] == "Accept" and r.headers["Cache-Control"] == "public"
    assert r.headers["ETag"] == get(http, url + path, V2).headers["ETag"]  # one ETag whatever the encoding
    body = r.json() if media == "application/json" else yaml.safe_load(r.text)
    assert (body["kind"], body["apiVersion"], body["metadata"]) == (
        "APIGroupDiscoveryList", "apidiscovery.k8s.io/v2", {})


@pytest.mark.parametrize("accept,media", [
    (None, "application/json"),
    ("application/json", "application/json"),
    ("application/json, */*", "application/json"),
    (f"{V2BETA1},application/json", "application/json"),  # v2beta1 is no longer served (1.33)
    (f"{V2_PB},application/json", "application/json"),
    ("application/yaml", "application/yaml"),
])
@pytest.mark.parametrize("path", ["/api", "/apis"])
def test_legacy_selected(http, url, path, accept, media):
    r = get(http, url + path, accept)
    assert r.status_code == 200 and r.headers["Content-Type"] == media
    assert "ETag" not in r.headers and "Vary" not in r.headers
    body = r.json() if media == "application/json" else yaml.safe_load(r.text)
    assert body["kind"] == ("APIVersions" if path == "/api" else "APIGroupList")
    if media == "application/json":
        assert r.content == get(http, url + path, None).content  # byte for byte the document served before


@pytest.mark.parametrize("accept", [V2_PB, V2BETA1, "application/json;as=Table;g=meta.k8s.io;v=v1", "text/html"])
@pytest.mark.parametrize("path", ["/api", "/apis"])
def test_nothing_acceptable_is_406(http, url, path, accept):
    r = get(http, url + path, accept)
    assert r.status_code == 406 and r.headers["Content-Type"] == "application/json"
    status = r.json()
    assert (status["kind"], status["code"], status["reason"]) == ("Status", 406, "NotAcceptable")


@pytest.mark.parametrize("path", ["/api", "/apis"])
def test_etag_and_304(http, url, path):
    r = get(http, url + path, V2)
    tag = r.headers["ETag"]
    go_json = json.dumps({"metadata": {}, "items": r.json()["items"]}, separators=(",", ":"))
    assert tag == '"' + hashlib.sha512(go_json.encode()).hexdigest().upper() + '"'  # calculateETag
    not_modified = get(http, url + path, V2, **{"If-None-Match": tag})
    assert not_modified.status_code == 304 and not_modified.content == b""
    assert (not_modified.headers["ETag"], not_modified.headers["Vary"]) == (tag, "Accept")
    for other in ('"0"', "W/" + tag, f"{tag}, \"0\"", tag.strip('"')):  # exact match only, as upstream
        assert get(http, url + path, V2, **{"If-None-Match": other}).status_code == 200
    legacy = get(http, url + path, "application/json", **{"If-None-Match": tag})
    assert legacy.status_code == 200 and "ETag" not in legacy.headers


def test_api_document(http, url):
    body = get(http, url + "/api", V2).json()
    assert len(body["items"]) == 1
    core = body["items"][0]
    assert core["metadata"] == {"creationTimestamp": None}  # Go ObjectMeta: empty name omitted
    assert [v["version"] for v in core["versions"]] == ["v1"] and core["versions"][0]["freshness"] == "Current"
    res = {r["resource"]: r for r in core["versions"][0]["resources"]}
    assert [r["resource"] for r in core["versions"][0]["resources"]] == sorted(res)
    assert res["namespaces"] == {
        "resource": "namespaces", "responseKind": {"group": "", "version": "v1", "kind": "Namespace"},
        "scope": "Cluster", "singularResource": "namespace",
        "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"], "shortNames": ["ns"],
        "subresources": [
            {"subresource": "finalize", "responseKind": {"group": "", "version": "v1", "kind": "Namespace"},
             "verbs": ["update"]},
            {"subresource": "status", "responseKind": {"group": "", "version": "v1", "kind": "Namespace"},
             "verbs": ["get", "patch", "update"]}]}
    assert res["configmaps"]["scope"] == "Namespaced" and "namespaces/status" not in res


# every group version the default server serves (kube-apiserver's built-in groups we declare)
BUILTIN = {"v1", "apps/v1", "authentication.k8s.io/v1", "authorization.k8s.io/v1", "batch/v1", "networking.k8s.io/v1", "policy/v1",
           "coordination.k8s.io/v1", "discovery.k8s.io/v1", "apiregistration.k8s.io/v1", "apiextensions.k8s.io/v1"}
BUILTIN |= {"scheduling.k8s.io/v1", "storage.k8s.io/v1", "node.k8s.io/v1"}  # registry/groupkinds.py
BUILTIN |= {"autoscaling/v2", "autoscaling/v1"}  # registry/autoscaling.py: one kind, two versions
BUILTIN |= {"certificates.k8s.io/v1", "events.k8s.io/v1"}  # registry/certificates.py, registry/eventsview.py
BUILTIN |= {"admissionregistration.k8s.io/v1"}  # registry/admissionregistration.py
BUILTIN |= {"rbac.authorization.k8s.io/v1"}  # auth/kinds.py, served in every authorization mode
BUILTIN |= {"flowcontrol.apiserver.k8s.io/v1"}  # registry/flowcontrol.py


def test_apis_document_order(http, url):
    body = get(http, url + "/apis", V2).json()
    legacy = get(http, url + "/apis", "application/json").json()
    assert [i["metadata"]["name"] for i in body["items"]] == [g["name"] for g in legacy["groups"]]
    assert body["items"][0]["metadata"] == {"name": "apiregistration.k8s.io", "creationTimestamp": None}


# ---- the two views agree, for every group version ---------------------------------------------------------------

def _from_legacy(resource_list: dict[str, Any]) -> dict[str, tuple]:
    return {r["name"]: (r["kind"], r["namespaced"], tuple(r["verbs"]), tuple(r.get("shortNames", ())),
                        tuple(r.get("categories", ())), r["singularName"]) for r in resource_list["resources"]}


def _from_aggregated(group: str, version: dict[str, Any]) -> dict[str, tuple]:
    out: dict[str, tuple] = {}
    for r in version.get("resources", []):
        kind = r["responseKind"]
        assert (kind["group"], kind["version"]) == (group, version["version"])
        namespaced = {"Namespaced": True, "Cluster": False}[r["scope"]]
        out[r["resource"]] = (kind["kind"], namespaced, tuple(r["verbs"]), tuple(r.get("shortNames", ())),
                              tuple(r.get("categories", ())), r["singularResource"])
        for sub in r.get("subresources", []):
            # a subresource of another group's kind keeps that group (serviceaccounts/token: TokenRequest,
            # pods/eviction: policy/v1 Eviction)
            assert sub["responseKind"] in ({**kind, "kind": sub["responseKind"]["kind"]},
                                           {"group": "", "version": "", "kind": ""},
                                           {"group": "authentication.k8s.io", "version": "v1", "kind": "TokenRequest"},
                                           {"group": "policy", "version": "v1", "kind": "Eviction"},
                                           {"group": "autoscaling", "version": "v1", "kind": "Scale"})
            out[f"{r['resource']}/{sub['subresource']}"] = (sub["responseKind"]["kind"], namespaced,
                                                            tuple(sub["verbs"]), (), (), "")
    return out


def assert_views_agree(url: str, headers: dict[str, str]) -> set[str]:
    """Every group version of the aggregated documents equals its legacy APIResourceList; the group versions
    themselves equal those of legacy `/api` + `/apis`. Returns the group versions compared."""
    with requests.Session() as s:
        s.headers.update(headers)
        return _compare(s, url)


def _compare(s: requests.Session, url: str) -> set[str]:
    legacy_gvs = list(s.get(f"{url}/api", timeout=10).json()["versions"])
    legacy_gvs += [v["groupVersion"] for g in s.get(f"{url}/apis", timeout=10).json()["groups"]
                   for v in g["versions"]]
    seen: list[str] = []
    for path in ("/api", "/apis"):
        for item in s.get(url + path, headers={"Accept": CLIENT_GO}, timeout=10).json()["items"]:
            group = item["metadata"].get("name", "")
            for version in item["versions"]:
                gv = f"{group}/{version['version']}" if group else version["version"]
                prefix = "/api/" if not group else "/apis/"
                legacy = s.get(f"{url}{prefix}{gv}", timeout=10).json()
                assert legacy["groupVersion"] == gv
                assert _from_aggregated(group, version) == _from_legacy(legacy), gv
                seen.append(gv)
    assert seen == legacy_gvs
    return set(seen)


default_server = own_server("the shared server holds the CRDs other tests leave, each a group version of its own")


def test_views_agree_default(default_server):
    assert assert_views_agree(default_server.url, {}) == BUILTIN


rbac_server = own_server(authorization="rbac")


def test_views_agree_rbac(rbac_server):
    gvs = assert_views_agree(rbac_server.url, {"Authorization": f"Bearer {rbac_server.token}"})
    assert gvs == BUILTIN | {"rbac.authorization.k8s.io/v1"}


def test_views_agree_under_discovery_deviations():
    """The aggregated view is derived from the legacy one, so discovery deviations show in both."""
    srv = start_embedded(deviations=["discovery-namespaces-no-short-name", "discovery-no-namespace-subresources",
                                     "discovery-content-without-watch"])
    try:
        assert_views_agree(srv.url, {})
        core = requests.get(srv.url + "/api", headers={"Accept": V2}, timeout=10).json()["items"][0]
        ns = next(r for r in core["versions"][0]["resources"] if r["resource"] == "namespaces")
        assert "shortNames" not in ns and "subresources" not in ns
    finally:
        srv.stop()
