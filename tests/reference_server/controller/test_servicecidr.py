"""controller/servicecidr.py: the `kubernetes` ServiceCIDR of the flavour's service range and an IPAddress per
allocated ClusterIP (MultiCIDRServiceAllocator, GA in 1.33), as `kubectl get servicecidrs,ipaddresses` shows
them on kind; controller/servicecidrs.py: kube-controller-manager's servicecidrs controller (finalizer, Ready,
deletion held while an IPAddress only it contains is left, then the finalizer removed 10 s after the deletion
timestamp), and a Service given a ClusterIP from an added ServiceCIDR, as kubectl sees them."""
from __future__ import annotations

import subprocess
import time
from datetime import datetime

import pytest
import requests

from conformance.reference_server.controller import servicecidr as servicecidr_controller
from conformance.reference_server.embedded import start_embedded
from tests.reference_server.conftest import unique
from tests.reference_server.kubectl_run import run_kubectl
from tests.reference_server.ownserver import own_server
from tests.reference_server.replicas import until

CIDRS = "/apis/networking.k8s.io/v1/servicecidrs"
IPS = "/apis/networking.k8s.io/v1/ipaddresses"
FINALIZER = "networking.k8s.io/service-cidr-finalizer"


kind = own_server(flavor="kind")


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


@pytest.fixture()
def kubectl(kind, tmp_path):
    def run(*args: str) -> subprocess.CompletedProcess:
        return run_kubectl(kind.url, tmp_path, *args)
    return run


def test_kubectl_prints_them_as_on_kind(kubectl):
    def get(*args: str) -> list[list[str]]:
        out = kubectl("get", *args)
        assert out.returncode == 0, out.stderr
        return [line.split() for line in out.stdout.splitlines()]
    assert [r[:2] for r in get("servicecidrs")] == [["NAME", "CIDRS"], ["kubernetes", "10.96.0.0/16"]]
    assert get("ipaddress", "10.96.0.1") == [["NAME", "PARENTREF"], ["10.96.0.1", "services/default/kubernetes"]]


def _cidr(url: str, name: str) -> dict | None:
    r = requests.get(f"{url}{CIDRS}/{name}")
    return r.json() if r.status_code == 200 else None


def _ready(obj: dict | None) -> dict | None:
    return next((c for c in ((obj or {}).get("status") or {}).get("conditions") or [] if c["type"] == "Ready"), None)


def test_an_added_service_cidr_gets_the_finalizer_and_ready(kind, kubectl):
    name = unique("cidr")
    r = requests.post(kind.url + CIDRS, json={"metadata": {"name": name}, "spec": {"cidrs": ["10.110.0.0/24"]}})
    assert r.status_code == 201 and "finalizers" not in r.json()["metadata"]
    got = until(lambda: (o := _cidr(kind.url, name)) and _ready(o) and o, "finalizer and Ready", timeout=10)
    assert got["metadata"]["finalizers"] == [FINALIZER]
    ready = _ready(got)
    assert (ready["status"], ready["reason"], ready["message"]) == ("True", "", "Kubernetes Service CIDR is ready")
    managers = {(m["manager"], m.get("subresource", "")) for m in got["metadata"]["managedFields"]}
    assert ("service-cidr-controller", "status") in managers
    out = kubectl("get", "servicecidrs", name)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[1].split()[:2] == [name, "10.110.0.0/24"]
    requests.delete(f"{kind.url}{CIDRS}/{name}")


def test_a_service_takes_an_ip_of_an_added_range_and_holds_its_deletion(kind, kubectl):
    name, ns = unique("cidr"), unique("svc")
    assert requests.post(kind.url + CIDRS, json={"metadata": {"name": name},
                                                 "spec": {"cidrs": ["10.120.0.0/24"]}}).status_code == 201
    until(lambda: _ready(_cidr(kind.url, name)), "Ready", timeout=10)
    assert kubectl("create", "namespace", ns).returncode == 0
    out = kubectl("create", "service", "clusterip", "web", "--tcp=80:80", "--clusterip=10.120.0.10", "-n", ns)
    assert out.returncode == 0, out.stderr
    # the IPAddress is the reservation: there when the create answers
    ip = requests.get(f"{kind.url}{IPS}/10.120.0.10").json()
    assert ip["spec"]["parentRef"] == {"resource": "services", "namespace": ns, "name": "web"}
    out = kubectl("create", "service", "clusterip", "other", "--tcp=80:80", "--clusterip=10.130.0.10", "-n", ns)
    assert out.returncode != 0
    assert "failed to allocate IP 10.130.0.10: the provided network does not match the current range" in out.stderr
    # deleted while the address is in use: kept, Ready False/Terminating
    assert requests.delete(f"{kind.url}{CIDRS}/{name}").status_code == 200
    held = until(lambda: (o := _cidr(kind.url, name)) and (_ready(o) or {}).get("reason") == "Terminating" and o,
                 "Terminating", timeout=10)
    cond = _ready(held)
    assert (cond["status"], cond["message"]) == ("False", "There are still IPAddresses referencing the ServiceCIDR, "
                                                          "please remove them or create a new ServiceCIDR")
    assert held["metadata"]["finalizers"] == [FINALIZER]
    # a deleting range allocates nothing more
    out = kubectl("create", "service", "clusterip", "late", "--tcp=80:80", "--clusterip=10.120.0.11", "-n", ns)
    assert out.returncode != 0 and "does not match the current range" in out.stderr
    # the Service gone (its IPAddress released at once), the finalizer goes 10 s after the deletion timestamp
    assert kubectl("delete", "service", "web", "-n", ns).returncode == 0
    assert requests.get(f"{kind.url}{IPS}/10.120.0.10").status_code == 404
    deleted_at = datetime.fromisoformat(held["metadata"]["deletionTimestamp"].replace("Z", "+00:00")).timestamp()
    until(lambda: _cidr(kind.url, name) is None, "the ServiceCIDR gone", timeout=30)
    assert time.time() >= deleted_at + 9  # deletionGracePeriod (the timestamp is whole seconds)
    kubectl("delete", "namespace", ns, "--wait=false")


def test_a_range_inside_another_is_deleted_despite_its_addresses(kind):
    """`canDeleteCIDR`: a ServiceCIDR contained in another leaves no IPAddress orphaned."""
    name, ns = unique("cidr"), unique("svc")
    assert requests.post(kind.url + CIDRS, json={"metadata": {"name": name},
                                                 "spec": {"cidrs": ["10.96.200.0/24"]}}).status_code == 201
    until(lambda: _ready(_cidr(kind.url, name)), "Ready", timeout=10)
    assert requests.post(f"{kind.url}/api/v1/namespaces", json={"metadata": {"name": ns}}).status_code == 201
    r = requests.post(f"{kind.url}/api/v1/namespaces/{ns}/services",
                      json={"metadata": {"name": "web"}, "spec": {"clusterIP": "10.96.200.7", "ports": [{"port": 80}]}})
    assert r.status_code == 201, r.text
    assert requests.delete(f"{kind.url}{CIDRS}/{name}").status_code == 200
    seen: list[str] = []

    def gone() -> bool:
        obj = _cidr(kind.url, name)
        seen.append((_ready(obj) or {}).get("reason", ""))
        return obj is None
    until(gone, "the contained ServiceCIDR gone", timeout=30)
    assert "Terminating" not in seen
    assert requests.get(f"{kind.url}{IPS}/10.96.200.7").status_code == 200  # the default range holds it
    requests.delete(f"{kind.url}/api/v1/namespaces/{ns}")


def test_a_refused_ready_write_is_a_warning_event(kind):
    """`KubernetesServiceCIDRError` when the status apply fails (here a policy denies it); the finalizer still came."""
    ar = "/apis/admissionregistration.k8s.io/v1"
    pol = unique("deny-cidr-status")
    body = {"metadata": {"name": pol}, "spec": {
        "matchConstraints": {"resourceRules": [{"apiGroups": ["networking.k8s.io"], "apiVersions": ["v1"],
                                                "operations": ["UPDATE"], "resources": ["servicecidrs/status"]}]},
        "validations": [{"expression": "!object.metadata.name.startsWith('refused-')"}]}}
    assert requests.post(f"{kind.url}{ar}/validatingadmissionpolicies", json=body).status_code == 201
    assert requests.post(f"{kind.url}{ar}/validatingadmissionpolicybindings", json={
        "metadata": {"name": pol}, "spec": {"policyName": pol, "validationActions": ["Deny"]}}).status_code == 201
    name = unique("refused")
    try:
        assert requests.post(kind.url + CIDRS, json={"metadata": {"name": name},
                                                     "spec": {"cidrs": ["10.140.0.0/24"]}}).status_code == 201

        def event():
            items = requests.get(f"{kind.url}/api/v1/events", params={
                "fieldSelector": f"involvedObject.name={name}"}).json()["items"]
            return [e for e in items if e["reason"] == "KubernetesServiceCIDRError"]
        [ev] = until(event, "the Warning event", timeout=10)[:1]
        assert (ev["type"], ev["message"], ev["source"]["component"]) == (
            "Warning", "The ServiceCIDR Status can not be set to Ready=True", "service-cidr-controller")
        got = _cidr(kind.url, name)
        assert got["metadata"]["finalizers"] == [FINALIZER] and _ready(got) is None
    finally:
        requests.delete(f"{kind.url}{ar}/validatingadmissionpolicybindings/{pol}")
        requests.delete(f"{kind.url}{ar}/validatingadmissionpolicies/{pol}")
        requests.delete(f"{kind.url}{CIDRS}/{name}")


def test_an_allocator_ipaddress_whose_service_is_gone_is_removed(kind, monkeypatch):
    """The repair loop (`repairip.go` `syncIPAddress`): an `ipallocator.k8s.io` IPAddress naming no Service is
    deleted once it is older than the grace period (60 s: its Service may still be being created); one a client
    labelled otherwise is left alone."""
    monkeypatch.setattr(servicecidr_controller, "LEAK_GRACE", 1.5)

    def ipaddr(ip: str, managed: str) -> dict:
        return {"apiVersion": "networking.k8s.io/v1", "kind": "IPAddress",
                "metadata": {"name": ip, "labels": {"ipaddress.kubernetes.io/managed-by": managed}},
                "spec": {"parentRef": {"resource": "services", "namespace": "default", "name": unique("ghost")}}}
    assert requests.post(kind.url + IPS, json=ipaddr("10.96.77.78", "someone-else")).status_code == 201
    r = requests.post(kind.url + IPS, json=ipaddr("10.96.77.77", "ipallocator.k8s.io"))
    assert r.status_code == 201
    created = datetime.fromisoformat(r.json()["metadata"]["creationTimestamp"].replace("Z", "+00:00"))
    until(lambda: "10.96.77.77" not in _ips(kind.url), "the orphan IPAddress removed", timeout=10)
    gone = datetime.now(created.tzinfo)
    assert (gone - created).total_seconds() >= 1.0  # not before the grace (the timestamp has whole seconds)
    assert "10.96.77.78" in _ips(kind.url)
    assert requests.delete(f"{kind.url}{IPS}/10.96.77.78").status_code == 200
