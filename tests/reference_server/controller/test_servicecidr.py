"""controller/servicecidr.py: the `kubernetes` ServiceCIDR of the flavour's service range and an IPAddress per
allocated ClusterIP (MultiCIDRServiceAllocator, GA in 1.33), as `kubectl get servicecidrs,ipaddresses` shows
them on kind."""
from __future__ import annotations

import subprocess
from typing import Iterator

import pytest
import requests

from conformance.reference_server.embedded import RunningServer, start_embedded
from tests.reference_server.conftest import unique
from tests.reference_server.replicas import until

CIDRS = "/apis/networking.k8s.io/v1/servicecidrs"
IPS = "/apis/networking.k8s.io/v1/ipaddresses"


@pytest.fixture(scope="module")
def kind() -> Iterator[RunningServer]:
    server = start_embedded(flavor="kind")
    yield server
    server.stop()


def _ips(url: str) -> dict[str, dict]:
    return {i["metadata"]["name"]: i for i in requests.get(url + IPS).json()["items"]}


def test_the_default_service_cidr_is_kinds_range_and_ready(kind):
    # kube-apiserver's default-ServiceCIDR controller sets Ready first ("Kubernetes default Service CIDR is
    # ready"); kube-controller-manager's servicecidrs controller then applies its own (forced) condition
    def ready_by_kcm():
        got = requests.get(f"{kind.url}{CIDRS}/kubernetes").json()
        [ready] = got["status"]["conditions"]
        return got if ready["message"] == "Kubernetes Service CIDR is ready" else None
    got = until(ready_by_kcm, "the servicecidrs controller's Ready", timeout=10)
    assert got["spec"] == {"cidrs": ["10.96.0.0/16"]}
    assert got["metadata"]["finalizers"] == ["networking.k8s.io/service-cidr-finalizer"]
    [ready] = got["status"]["conditions"]
    assert (ready["type"], ready["status"], ready["reason"]) == ("Ready", "True", "")
    assert "service-cidr-controller" in {m["manager"] for m in got["metadata"]["managedFields"]}
    kubeadm = start_embedded(flavor="bare")
    try:
        assert requests.get(f"{kubeadm.url}{CIDRS}/kubernetes").json()["spec"] == {"cidrs": ["10.96.0.0/12"]}
    finally:
        kubeadm.stop()


def test_each_cluster_ip_has_an_ipaddress_until_its_service_goes(kind):
    ns = unique("ip")
    assert requests.post(f"{kind.url}/api/v1/namespaces", json={"metadata": {"name": ns}}).status_code == 201
    r = requests.post(f"{kind.url}/api/v1/namespaces/{ns}/services",
                      json={"metadata": {"name": "web"}, "spec": {"ports": [{"port": 80}]}})
    ip = r.json()["spec"]["clusterIP"]
    assert ip.startswith("10.96.") and int(ip.split(".")[2]) >= 1  # the dynamic (upper) part of the /16
    got = until(lambda: _ips(kind.url).get(ip), f"IPAddress {ip}", timeout=10)
    assert got["metadata"]["labels"] == {"ipaddress.kubernetes.io/ip-family": "IPv4",
                                         "ipaddress.kubernetes.io/managed-by": "ipallocator.k8s.io"}
    assert got["spec"] == {"parentRef": {"resource": "services", "namespace": ns, "name": "web"}}
    # deleted by hand, it comes back (the repair loop); the Service deleted, it goes
    assert requests.delete(f"{kind.url}{IPS}/{ip}").status_code == 200
    until(lambda: ip in _ips(kind.url), f"IPAddress {ip} again", timeout=10)
    assert requests.delete(f"{kind.url}/api/v1/namespaces/{ns}/services/web").status_code == 200
    until(lambda: ip not in _ips(kind.url), f"IPAddress {ip} released", timeout=10)
    assert _ips(kind.url)["10.96.0.1"]["spec"]["parentRef"] == {"resource": "services", "namespace": "default",
                                                                 "name": "kubernetes"}
    requests.delete(f"{kind.url}/api/v1/namespaces/{ns}")


def test_kubectl_prints_them_as_on_kind(kind, tmp_path):
    from tests.tools.kubectl import get_kubectl
    kubectl = get_kubectl()
    if kubectl is None:
        pytest.skip("kubectl 1.33 not available")
    kc = tmp_path / "kc"
    kind.write_kubeconfig(str(kc))

    def get(*args: str) -> list[list[str]]:
        out = subprocess.run([str(kubectl), "--kubeconfig", str(kc), "get", *args], capture_output=True, text=True,
                             timeout=60)
        assert out.returncode == 0, out.stderr
        return [line.split() for line in out.stdout.splitlines()]
    assert [r[:2] for r in get("servicecidrs")] == [["NAME", "CIDRS"], ["kubernetes", "10.96.0.0/16"]]
    assert get("ipaddress", "10.96.0.1") == [["NAME", "PARENTREF"], ["10.96.0.1", "services/default/kubernetes"]]
