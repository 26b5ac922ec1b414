"""controller/apiserver_endpoints.py: the `default/kubernetes` EndpointSlice the API server writes at start
(pkg/controlplane/reconcilers/endpointsadapter.go), on both storage backends."""
from __future__ import annotations

import ipaddress

from conformance.reference_server.controller.apiserver_endpoints import advertise_address, reconcile
from conformance.reference_server.server import build_context


def test_kubernetes_endpoint_slice_points_at_the_api_server(http, url):
    r = http.get(f"{url}/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes")
    assert r.status_code == 200
    s = r.json()
    assert s["metadata"]["labels"] == {"kubernetes.io/service-name": "kubernetes"}
    assert s["addressType"] == "IPv4" and s["ports"] == [{"name": "https", "port": int(url.rsplit(":", 1)[1]), "protocol": "TCP"}]
    (ep,) = s["endpoints"]
    assert ep["conditions"] == {"ready": True} and len(ep["addresses"]) == 1
    assert ep["addresses"] == [advertise_address("127.0.0.1")]
    assert ipaddress.ip_address(ep["addresses"][0]).version == 4
    selected = http.get(f"{url}/apis/discovery.k8s.io/v1/namespaces/default/endpointslices",
                        params={"labelSelector": "kubernetes.io/service-name=kubernetes"}).json()["items"]
    assert [i["metadata"]["name"] for i in selected] == ["kubernetes"]


def test_advertise_address_is_the_bind_address_unless_loopback():
    assert advertise_address("10.1.2.3") == "10.1.2.3"
    assert advertise_address("0.0.0.0") == advertise_address("127.0.0.1")  # both: the default-route interface


def test_reconcile_resets_a_changed_slice_and_keeps_an_equal_one():
    registry = build_context().registry
    reconcile(registry, "10.0.0.5", 6443)
    store = registry.group("discovery.k8s.io", "endpointslices")
    first = store.get("default", "kubernetes")
    reconcile(registry, "10.0.0.5", 6443)  # equal: no write
    assert store.get("default", "kubernetes")["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]
    reconcile(registry, "10.0.0.5", 7443)  # another replica's port: the last writer's
    assert store.get("default", "kubernetes")["ports"][0]["port"] == 7443
