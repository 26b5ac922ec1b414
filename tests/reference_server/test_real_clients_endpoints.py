"""kubectl 1.33 and the official Python client on core/v1 Endpoints and on the Endpoints/EndpointSlice controllers:
`kubectl get endpoints` (with 1.33's deprecation warning), `kubectl get endpointslices`, the Endpoints line of
`kubectl describe svc` (read from the EndpointSlices), the typed `CoreV1Api`/`DiscoveryV1Api` and `watch`; the
client's PUT (`replace_namespaced_service`) that creates a Service."""
from __future__ import annotations

from typing import Any, Iterator

import pytest

from .test_real_clients import AGE, Kube, kube, names, served, table  # noqa: F401 - fixtures

WARNING = "Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice\n"


@pytest.fixture
def api(served: Kube) -> Iterator[Any]:
    from kubernetes import config

    api_client = config.new_client_from_config(config_file=str(served.kubeconfig))
    yield api_client
    api_client.close()


def _service_and_its_outputs(api: Any, ns: str, spec: dict[str, Any], pod_ip: str | None = None) -> tuple[Any, Any]:
    """Create the namespace and a Service `web`, then wait (with watches) for its Endpoints and EndpointSlice; with
    `pod_ip`, also a selected pod whose status carries that IP, and wait until both controllers show it."""
    from kubernetes import client, watch

    core, disc = client.CoreV1Api(api), client.DiscoveryV1Api(api)
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=ns)))
    rv = core.list_namespaced_endpoints(ns).metadata.resource_version
    core.create_namespaced_service(ns, {"metadata": {"name": "web", "labels": {"app": "web"}}, "spec": spec})
    if pod_ip:
        core.create_namespaced_pod(ns, {"metadata": {"name": "p", "labels": {"app": "web"}}, "spec": {"containers": [
            {"name": "c", "image": "nginx", "ports": [{"name": "http", "containerPort": 8080}]}]}})
        core.patch_namespaced_pod_status("p", ns, {"status": {"podIP": pod_ip, "podIPs": [{"ip": pod_ip}]}})

    def wait(list_fn: Any, done: Any, what: str) -> Any:
        for ev in watch.Watch().stream(list_fn, ns, resource_version=rv, timeout_seconds=20):
            if done(ev["object"]):
                return ev["object"]
        raise AssertionError(f"no {what} within 20 s")

    ep = wait(core.list_namespaced_endpoints, lambda o: bool(o.subsets) == bool(pod_ip), "Endpoints")
    sl = wait(disc.list_namespaced_endpoint_slice, lambda o: bool(o.endpoints) == bool(pod_ip), "EndpointSlice")
    return ep, sl


def test_kubectl_get_endpoints_and_endpointslices(kube: Kube, api: Any, names: Any) -> None:
    ns = names("kep")
    _service_and_its_outputs(api, ns, {"selector": {"app": "web"}, "ports": [{"port": 80}]})
    proc = kube.run("get", "endpoints", "-n", ns)
    assert (proc.returncode, proc.stderr) == (0, WARNING), proc.stderr
    header, rows = table(proc.stdout)
    assert header == ["NAME", "ENDPOINTS", "AGE"] and [r[:2] for r in rows] == [["web", "<none>"]]
    assert AGE.match(rows[0][2])
    header, rows = table(kube.ok("get", "endpointslices", "-n", ns, "-l", "kubernetes.io/service-name=web"))
    assert header == ["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"]
    assert len(rows) == 1 and rows[0][0].startswith("web-") and rows[0][1] == "IPv4"


def test_kubectl_describe_service_shows_the_slice_endpoints(kube: Kube, api: Any, names: Any) -> None:
    """A pod with an IP (written through /status: no kubelet here) behind a Service that publishes not-ready
    addresses is an endpoint even without a node, so `describe` (which reads the EndpointSlices) lists it."""
    ns = names("kdesc")
    _service_and_its_outputs(api, ns, {"selector": {"app": "web"}, "publishNotReadyAddresses": True,
                                       "ports": [{"name": "http", "port": 80, "targetPort": "http"}]},
                             pod_ip="10.244.0.5")
    lines = kube.ok("describe", "svc", "web", "-n", ns).splitlines()
    assert [ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("Endpoints:")] == ["10.244.0.5:8080"]
    header, rows = table(kube.run("get", "endpoints", "web", "-n", ns).stdout)
    assert rows[0][:2] == ["web", "10.244.0.5:8080"]


def test_official_client_reads_endpoints_and_slices(api: Any, names: Any) -> None:
    from kubernetes import client

    ns = names("pyep")
    ep, sl = _service_and_its_outputs(api, ns, {"clusterIP": "None", "selector": {"app": "web"},
                                                "ports": [{"port": 80}]})
    assert ep.metadata.name == "web" and ep.subsets is None
    assert ep.metadata.labels == {"app": "web", "service.kubernetes.io/headless": ""}
    assert sl.metadata.generate_name == "web-" and sl.address_type == "IPv4"
    (owner,) = sl.metadata.owner_references
    assert (owner.kind, owner.name, owner.controller, owner.block_owner_deletion) == ("Service", "web", True, True)
    core = client.CoreV1Api(api)
    created = core.create_namespaced_endpoints(ns, client.V1Endpoints(
        metadata=client.V1ObjectMeta(name="manual"), subsets=[client.V1EndpointSubset(
            addresses=[client.V1EndpointAddress(ip="192.0.2.10")], ports=[client.CoreV1EndpointPort(port=9000)])]))
    assert created.subsets[0].ports[0].protocol == "TCP"
    with pytest.raises(client.ApiException) as err:
        core.create_namespaced_endpoints(ns, client.V1Endpoints(
            metadata=client.V1ObjectMeta(name="bad"), subsets=[client.V1EndpointSubset(
                addresses=[client.V1EndpointAddress(ip="0.0.0.0")], ports=[client.CoreV1EndpointPort(port=9000)])]))
    assert err.value.status == 422 and "may not be unspecified (0.0.0.0)" in err.value.body
    assert sorted(e.metadata.name for e in core.list_namespaced_endpoints(ns).items) == ["manual", "web"]


def test_client_replace_of_a_missing_service_creates_it(kube: Kube, api: Any, names: Any) -> None:
    """`CoreV1Api.replace_namespaced_service` on a name that does not exist: 201 with an allocated cluster IP (the
    Service strategy's `AllowCreateOnUpdate`), which `kubectl get svc` then shows."""
    from kubernetes import client

    core = client.CoreV1Api(api)
    ns = names("kput")
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=ns)))
    body = client.V1Service(metadata=client.V1ObjectMeta(name="web"),
                            spec=client.V1ServiceSpec(ports=[client.V1ServicePort(port=80)]))
    svc, code, _ = core.replace_namespaced_service_with_http_info("web", ns, body)
    assert code == 201
    assert svc.spec.cluster_ip and svc.spec.cluster_ips == [svc.spec.cluster_ip]
    assert (svc.spec.type, svc.spec.ip_families, svc.spec.ports[0].target_port) == ("ClusterIP", ["IPv4"], 80)
    header, rows = table(kube.ok("get", "svc", "web", "-n", ns))
    assert header[:3] == ["NAME", "TYPE", "CLUSTER-IP"] and rows[0][:3] == ["web", "ClusterIP", svc.spec.cluster_ip]
    again, code, _ = core.replace_namespaced_service_with_http_info("web", ns, svc)
    assert code == 200 and again.spec.cluster_ip == svc.spec.cluster_ip
