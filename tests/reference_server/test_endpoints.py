"""core/v1 Endpoints served (registry/endpoints.py) and the controllers that keep Endpoints and EndpointSlices for
Services (controller/endpoints.py, controller/endpointslice.py), over HTTP on both storage backends; the
controllers' refusal to write into a terminating namespace, on a bare registry."""
from __future__ import annotations

import ipaddress
import json
from typing import Any

from conformance.reference_server.controller.apiserver_endpoints import advertise_address
from conformance.reference_server.registry import DeleteOptions, ListOptions
from conformance.reference_server.server import build_context
from conformance.reference_server.wire.protobuf import decode_response

from .conftest import WatchReader, status_of

DEPRECATED = '299 - "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"'
SLICES = "/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"


def _endpoints(name: str, subsets: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": name}, "subsets": subsets}


def test_endpoints_are_served_with_upstream_validation_and_the_deprecation_warning(http, url, namespaces):
    ns = namespaces.create("ep")["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}/endpoints"
    r = http.post(base, json=_endpoints("ext", [
        {"addresses": [{"ip": "10.1.0.2"}], "ports": [{"port": 80}]},
        {"notReadyAddresses": [{"ip": "10.1.0.1"}], "addresses": [{"ip": "10.1.0.3"}], "ports": [{"port": 80}]}]))
    assert r.status_code == 201, r.text
    assert r.headers.get("Warning") == DEPRECATED
    # SetDefaults_Endpoints (protocol) and RepackSubsets (one subset per port set, addresses sorted)
    assert r.json()["subsets"] == [{"addresses": [{"ip": "10.1.0.2"}, {"ip": "10.1.0.3"}],
                                    "notReadyAddresses": [{"ip": "10.1.0.1"}],
                                    "ports": [{"port": 80, "protocol": "TCP"}]}]
    bad = http.post(base, json=_endpoints("bad", [{"ports": [{"port": 80}]},
                                                 {"addresses": [{"ip": "127.0.0.1"}], "ports": [{"port": 80}]}]))
    assert bad.status_code == 422 and bad.headers.get("Warning") == DEPRECATED
    assert status_of(bad)["message"] == (
        'Endpoints "bad" is invalid: [subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`, '
        'subsets[1].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range '
        '(127.0.0.0/8, ::1/128)]')
    two = http.post(base, json=_endpoints("two", [{"addresses": [{"ip": "10.1.0.9"}],
                                                  "ports": [{"port": 80}, {"port": 70000, "name": "b"}]}]))
    assert [c["field"] for c in status_of(two)["details"]["causes"]] == ["subsets[0].ports[0].name",
                                                                        "subsets[0].ports[1].port"]
    listed = http.get(base)
    assert listed.headers.get("Warning") == DEPRECATED and listed.json()["kind"] == "EndpointsList"
    table = http.get(base, headers={"Accept": TABLE}).json()
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Endpoints", "Age"]
    assert table["rows"][0]["cells"][:2] == ["ext", "10.1.0.2:80,10.1.0.3:80"]
    resources = {r["name"]: r for r in http.get(f"{url}/api/v1").json()["resources"]}
    assert resources["endpoints"]["shortNames"] == ["ep"] and resources["endpoints"]["kind"] == "Endpoints"


def test_the_api_server_writes_the_kubernetes_endpoints(http, url):
    r = http.get(f"{url}/api/v1/namespaces/default/endpoints/kubernetes")
    ip = advertise_address("127.0.0.1")
    if ipaddress.ip_address(ip).is_loopback:  # no default route: upstream's validation refuses the address too
        assert r.status_code == 404
        return
    ep = r.json()
    assert ep["metadata"]["labels"] == {"endpointslice.kubernetes.io/skip-mirror": "true"}
    assert ep["subsets"] == [{"addresses": [{"ip": ip}],
                              "ports": [{"name": "https", "port": int(url.rsplit(":", 1)[1]), "protocol": "TCP"}]}]


def _watch(url: str, path: str, rv: str, **params: str) -> WatchReader:
    return WatchReader(url + path, {"resourceVersion": rv, **params})


def _added(w: WatchReader, what: str) -> dict[str, Any]:
    return w.until(lambda e: e["type"] == "ADDED", what=what)[-1]["object"]


def test_a_service_with_a_selector_gets_endpoints_and_a_placeholder_slice(http, url, namespaces):
    ns = namespaces.create("eps")["metadata"]["name"]
    rv = http.get(f"{url}/api/v1/namespaces/{ns}/endpoints").json()["metadata"]["resourceVersion"]
    with _watch(url, f"/api/v1/namespaces/{ns}/endpoints", rv) as eps, \
            _watch(url, SLICES.format(ns=ns), rv) as slices:
        # without a selector, or ExternalName: nothing (queued first, so done before the next Service)
        for spec in ({"ports": [{"port": 80}]}, {"type": "ExternalName", "externalName": "x.example.com",
                                                 "selector": {"app": "web"}}):
            name = "none" if "type" not in spec else "ext"
            assert http.post(f"{url}/api/v1/namespaces/{ns}/services",
                             json={"metadata": {"name": name}, "spec": spec}).status_code == 201
        svc = http.post(f"{url}/api/v1/namespaces/{ns}/services", json={
            "metadata": {"name": "web", "labels": {"app": "web", "kubernetes.io/service-name": "spoof"}},
            "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}}).json()
        ep = _added(eps, "the Endpoints of web")
        sl = _added(slices, "the EndpointSlice of web")
    created = svc["metadata"]["creationTimestamp"]
    assert ep["metadata"]["name"] == "web" and "subsets" not in ep  # no pod has an IP: no subsets
    assert ep["metadata"]["labels"] == svc["metadata"]["labels"]
    assert ep["metadata"]["annotations"] == {"endpoints.kubernetes.io/last-change-trigger-time": created}
    assert sl["metadata"]["generateName"] == "web-" and sl["metadata"]["name"].startswith("web-")
    assert sl["metadata"]["labels"] == {"app": "web", "kubernetes.io/service-name": "web",
                                        "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io"}
    assert sl["metadata"]["ownerReferences"] == [{"apiVersion": "v1", "kind": "Service", "name": "web",
                                                  "uid": svc["metadata"]["uid"], "controller": True,
                                                  "blockOwnerDeletion": True}]
    assert sl["metadata"]["annotations"] == {"endpoints.kubernetes.io/last-change-trigger-time": created}
    assert (sl["addressType"], sl["endpoints"], sl["ports"]) == ("IPv4", None, None)
    assert [i["metadata"]["name"] for i in http.get(f"{url}/api/v1/namespaces/{ns}/endpoints").json()["items"]] \
        == ["web"]
    assert len(http.get(url + SLICES.format(ns=ns)).json()["items"]) == 1


def test_headless_pods_with_ips_and_deletion(http, url, namespaces):
    ns = namespaces.create("eph")["metadata"]["name"]
    pods = f"{url}/api/v1/namespaces/{ns}/pods"
    assert http.post(pods, json={"metadata": {"name": "p", "labels": {"app": "db"}}, "spec": {"containers": [
        {"name": "c", "image": "db", "ports": [{"name": "sql", "containerPort": 5432}]}]}}).status_code == 201
    rv = http.get(f"{url}/api/v1/namespaces/{ns}/endpoints").json()["metadata"]["resourceVersion"]
    with _watch(url, f"/api/v1/namespaces/{ns}/endpoints", rv) as eps, \
            _watch(url, SLICES.format(ns=ns), rv) as slices:
        svc = http.post(f"{url}/api/v1/namespaces/{ns}/services", json={"metadata": {"name": "db"}, "spec": {
            "clusterIP": "None", "selector": {"app": "db"}, "publishNotReadyAddresses": True,
            "ports": [{"name": "sql", "port": 5432, "targetPort": "sql"}]}}).json()
        ep = _added(eps, "the Endpoints of db")
        assert ep["metadata"]["labels"] == {"service.kubernetes.io/headless": ""} and "subsets" not in ep
        sl = _added(slices, "the EndpointSlice of db")
        assert sl["metadata"]["labels"]["service.kubernetes.io/headless"] == ""
        # a pod whose status a client wrote with an IP (no kubelet here): an address, as upstream
        r = http.patch(f"{pods}/p/status", data=json.dumps({"status": {"podIP": "10.244.1.7", "podIPs": [
            {"ip": "10.244.1.7"}]}}), headers={"Content-Type": "application/merge-patch+json"})
        assert r.status_code == 200, r.text
        ep = eps.until(lambda e: e["type"] == "MODIFIED", what="the pod's address")[-1]["object"]
        pod_uid = r.json()["metadata"]["uid"]
        target = {"kind": "Pod", "namespace": ns, "name": "p", "uid": pod_uid}
        assert ep["subsets"] == [{"addresses": [{"ip": "10.244.1.7", "targetRef": target}],
                                  "ports": [{"name": "sql", "port": 5432, "protocol": "TCP"}]}]
        sl = slices.until(lambda e: e["type"] == "MODIFIED", what="the pod's endpoint")[-1]["object"]
        assert sl["endpoints"] == [{"addresses": ["10.244.1.7"], "targetRef": target,
                                    "conditions": {"ready": True, "serving": False, "terminating": False}}]
        assert sl["ports"] == [{"name": "sql", "port": 5432, "protocol": "TCP"}]
        # the Service goes: so do its Endpoints (endpoints controller) and slices (what the GC does upstream)
        assert http.delete(f"{url}/api/v1/namespaces/{ns}/services/db").status_code == 200
        assert eps.until(lambda e: e["type"] == "DELETED", what="Endpoints deleted")[-1]["object"]["metadata"][
            "name"] == "db"
        slices.until(lambda e: e["type"] == "DELETED", what="slice deleted")
    assert svc["metadata"]["uid"]


def test_a_deleted_endpoints_is_made_again_and_a_changed_slice_put_back(http, url, namespaces):
    ns = namespaces.create("epr")["metadata"]["name"]
    rv = http.get(f"{url}/api/v1/namespaces/{ns}/endpoints").json()["metadata"]["resourceVersion"]
    with _watch(url, f"/api/v1/namespaces/{ns}/endpoints", rv) as eps, \
            _watch(url, SLICES.format(ns=ns), rv) as slices:
        assert http.post(f"{url}/api/v1/namespaces/{ns}/services", json={"metadata": {"name": "s"}, "spec": {
            "selector": {"app": "s"}, "ports": [{"port": 80}]}}).status_code == 201
        _added(eps, "Endpoints")
        name = _added(slices, "slice")["metadata"]["name"]
        assert http.delete(f"{url}/api/v1/namespaces/{ns}/endpoints/s").status_code == 200
        eps.until(lambda e: e["type"] == "ADDED", what="the Endpoints made again")
        r = http.patch(f"{url}{SLICES.format(ns=ns)}/{name}", data=json.dumps({"metadata": {"labels": {
            "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io", "extra": "x"}}}),
            headers={"Content-Type": "application/merge-patch+json"})
        assert r.status_code == 200, r.text
        back = slices.until(lambda e: e["type"] == "MODIFIED" and "extra" not in e["object"]["metadata"]["labels"],
                            what="the slice's labels put back")[-1]["object"]
    assert back["metadata"]["name"] == name


def test_no_controller_writes_into_a_terminating_namespace():
    from conformance.reference_server.controller.endpoints import EndpointsController
    from conformance.reference_server.controller.endpointslice import EndpointSliceController

    registry = build_context().registry
    registry.namespaces.create({"metadata": {"name": "going"}})
    registry.content("services").create({"metadata": {"name": "s", "namespace": "going"},
                                         "spec": {"selector": {"app": "s"}, "ports": [{"port": 80}]}})
    registry.namespaces.delete("", "going", DeleteOptions())  # Terminating: its `kubernetes` finalizer holds it
    assert registry.namespaces.get("", "going")["metadata"].get("deletionTimestamp")
    EndpointsController(registry).sync("going", "s")
    EndpointSliceController(registry).sync("going", "s")
    assert registry.content("endpoints").list("going", ListOptions())["items"] == []
    assert registry.group("discovery.k8s.io", "endpointslices").list("going", ListOptions())["items"] == []


def test_endpoints_in_protobuf(http, url):
    r = http.get(f"{url}/api/v1/namespaces/default/endpoints",
                 headers={"Accept": "application/vnd.kubernetes.protobuf"})
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/vnd.kubernetes.protobuf"
    assert decode_response(r.content)["kind"] == "EndpointsList"



def test_endpoints_of_a_service_without_selector_are_mirrored_to_a_slice(http, url, namespaces):
    ns = namespaces.create("epm")["metadata"]["name"]
    rv = http.get(f"{url}/api/v1/namespaces/{ns}/endpoints").json()["metadata"]["resourceVersion"]
    with _watch(url, SLICES.format(ns=ns), rv) as slices:
        assert http.post(f"{url}/api/v1/namespaces/{ns}/services", json={"metadata": {"name": "db"}, "spec": {
            "ports": [{"port": 5432}]}}).status_code == 201
        ep = http.post(f"{url}/api/v1/namespaces/{ns}/endpoints", json=_endpoints("db", [
            {"addresses": [{"ip": "10.1.0.9"}], "ports": [{"port": 5432}]}])).json()
        sl = _added(slices, "the mirrored slice")
        assert http.delete(f"{url}/api/v1/namespaces/{ns}/endpoints/db").status_code == 200
        slices.until(lambda e: e["type"] == "DELETED", what="the mirrored slice deleted with its Endpoints")
    assert sl["metadata"]["labels"] == {"kubernetes.io/service-name": "db", "endpointslice.kubernetes.io/managed-by":
                                        "endpointslicemirroring-controller.k8s.io"}
    assert sl["metadata"]["ownerReferences"][0]["uid"] == ep["metadata"]["uid"]
    assert (sl["addressType"], sl["endpoints"], sl["ports"]) == (
        "IPv4", [{"addresses": ["10.1.0.9"], "conditions": {"ready": True}}],
        [{"name": "", "protocol": "TCP", "port": 5432}])
