"""The IP/CIDR format warnings kubernetes#128786 gave 1.33 outside a pod's spec, a Service's spec and the
endpoints (registry/ipfieldwarnings.py, registry/node.py): a NetworkPolicy's ipBlocks, `pods/status` and
`services/status` and `ingresses/status` IPs, a Node's `spec.podCIDRs`, sent as `Warning: 299` headers and printed by kubectl."""
from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from conformance.reference_server.embedded import RunningServer
from conformance.reference_server.registry.ipfieldwarnings import (
    ingress_status_warnings,
    network_policy_warnings,
    pod_status_warnings,
    service_status_warnings,
)
from conformance.reference_server.registry.node import convert_pod_cidrs, node_warnings
from tests.reference_server.gowritten_zeros import NODE_ZEROS
from tests.reference_server.registry.test_podwarnings import _header, _warnings, ns, srv  # noqa: F401 - fixtures
from tests.reference_server.test_real_clients import Kube, kube, serve_kube  # noqa: F401 - kube: a fixture

MERGE = {"Content-Type": "application/merge-patch+json"}
AMBIGUOUS = '{}: CIDR value "10.0.0.1/24" is ambiguous in this context (should be "10.0.0.0/24" or "10.0.0.1/32"?)'
ZEROS_CIDR = ('{}: non-standard CIDR value "10.1.0.0/016" will be considered invalid in a future Kubernetes release: '
              'use "10.1.0.0/16"')
UPPER_CIDR = '{}: IPv6 CIDR value "2001:DB8::/32" should be in RFC 5952 canonical format ("2001:db8::/32")'
ZEROS_IP = ('{}: non-standard IP address "010.1.1.1" will be considered invalid in a future Kubernetes release: use '
            '"10.1.1.1"')
MAPPED_IP = ('{}: non-standard IP address "::ffff:1.2.3.4" will be considered invalid in a future Kubernetes '
             'release: use "1.2.3.4"')
UPPER_IP = '{}: IPv6 address "2001:DB8::1" should be in RFC 5952 canonical format ("2001:db8::1")'
EXTERNAL_ID = "spec.externalID: this field is deprecated, and is unused by Kubernetes"


def _policy(name: str) -> dict[str, Any]:
    return {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": {"name": name},
            "spec": {"podSelector": {},
                     "ingress": [{"from": [{"ipBlock": {"cidr": "10.0.0.1/24", "except": ["10.0.0.0/28"]}}]},
                                 {"from": [{"podSelector": {}},
                                           {"ipBlock": {"cidr": "10.0.0.0/8", "except": ["10.1.0.0/016"]}}]}],
                     "egress": [{"to": [{"ipBlock": {"cidr": "2001:DB8::/32"}}]}]}}


POLICY_WARNINGS = [AMBIGUOUS.format("spec.ingress[0].from[0].ipBlock.cidr"),
                   ZEROS_CIDR.format("spec.ingress[1].from[1].ipBlock.except[0]"),
                   UPPER_CIDR.format("spec.egress[0].to[0].ipBlock.cidr")]


def test_network_policy_warnings_in_upstreams_order_and_paths() -> None:
    assert network_policy_warnings(_policy("p")) == POLICY_WARNINGS
    assert network_policy_warnings({"spec": {"ingress": [{"from": [{"ipBlock": {"cidr": "bogus"}}]}]}}) == []


def test_status_warnings_read_the_lists_only() -> None:
    pod = {"status": {"podIP": "010.1.1.1", "podIPs": [{"ip": "10.1.1.2"}, {"ip": "2001:DB8::1"}],
                      "hostIPs": [{"ip": "010.1.1.1"}]}}
    assert pod_status_warnings(pod) == [UPPER_IP.format("status.podIPs[1].ip"),
                                        ZEROS_IP.format("status.hostIPs[0].ip")]
    svc = {"status": {"loadBalancer": {"ingress": [{"hostname": "a.example.com"}, {"ip": "::ffff:1.2.3.4"}]}}}
    assert service_status_warnings(svc) == [MAPPED_IP.format("status.loadBalancer.ingress[1]")]  # no `.ip`
    ing = {"status": {"loadBalancer": {"ingress": [{"ip": "010.1.1.1", "ports": [{"port": 80, "protocol": "TCP"}]},
                                                   {"ip": ""}, {"ip": "2001:DB8::1"}]}}}
    assert ingress_status_warnings(ing) == [ZEROS_IP.format("status.loadBalancer.ingress[0]"),
                                            UPPER_IP.format("status.loadBalancer.ingress[2]")]


def test_node_warnings_and_the_pod_cidr_conversion() -> None:
    spec: dict[str, Any] = {"podCIDR": "10.0.0.1/24"}
    convert_pod_cidrs(spec)  # Convert_v1_NodeSpec_To_core_NodeSpec and back
    assert spec == {"podCIDR": "10.0.0.1/24", "podCIDRs": ["10.0.0.1/24"]}
    spec = {"podCIDR": "10.0.0.1/24", "podCIDRs": ["10.9.0.0/24", "fd00::/64"]}
    convert_pod_cidrs(spec)  # a differing podCIDR is authoritative
    assert spec == {"podCIDR": "10.0.0.1/24", "podCIDRs": ["10.0.0.1/24"]}
    spec = {"podCIDRs": ["fd00::/64"]}
    convert_pod_cidrs(spec)
    assert spec == {"podCIDR": "fd00::/64", "podCIDRs": ["fd00::/64"]}
    node = {"spec": {"configSource": {}, "externalID": "x", "podCIDRs": ["10.0.0.1/24", "2001:DB8::/32"]}}
    assert node_warnings(node) == ["spec.configSource: the feature is removed", EXTERNAL_ID,
                                   AMBIGUOUS.format("spec.podCIDRs[0]"), UPPER_CIDR.format("spec.podCIDRs[1]")]


def test_network_policies_are_warned_on_create_and_update(srv: RunningServer, ns: str) -> None:  # noqa: F811
    url = f"{srv.url}/apis/networking.k8s.io/v1/namespaces/{ns}/networkpolicies"
    r = requests.post(url, json=_policy("p"))
    assert r.status_code == 201, r.text
    assert r.json()["spec"]["ingress"][0]["from"][0]["ipBlock"]["cidr"] == "10.0.0.1/24"  # kept as sent
    assert _warnings(r) == [_header(w) for w in POLICY_WARNINGS]
    r = requests.patch(f"{url}/p", data=json.dumps({"metadata": {"labels": {"a": "b"}}}), headers=MERGE)
    assert r.status_code == 200 and _warnings(r) == [_header(w) for w in POLICY_WARNINGS]
    assert "status" not in r.json()  # v1 NetworkPolicy has none, an update does not add one
    r = requests.patch(f"{url}/p", data=json.dumps({"spec": {"ingress": None, "egress": None}}), headers=MERGE)
    assert r.status_code == 200 and _warnings(r) == []


def test_pod_status_is_warned_and_the_pod_update_is_not(srv: RunningServer, ns: str) -> None:  # noqa: F811
    pods = f"{srv.url}/api/v1/namespaces/{ns}/pods"
    r = requests.post(pods, json={"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "i"}]}})
    assert r.status_code == 201, r.text
    status = {"podIP": "010.1.1.1", "podIPs": [{"ip": "010.1.1.1"}], "hostIP": "2001:DB8::1",
              "hostIPs": [{"ip": "2001:DB8::1"}]}
    r = requests.patch(f"{pods}/p/status", data=json.dumps({"status": status}), headers=MERGE)
    assert r.status_code == 200, r.text  # legacy forms pass 1.33's validation
    assert r.json()["status"]["podIP"] == "010.1.1.1"
    assert _warnings(r) == [_header(ZEROS_IP.format("status.podIPs[0].ip")),
                            _header(UPPER_IP.format("status.hostIPs[0].ip"))]
    r = requests.patch(f"{pods}/p", data=json.dumps({"metadata": {"labels": {"a": "b"}}}), headers=MERGE)
    assert r.status_code == 200 and _warnings(r) == []  # podStrategy.WarningsOnUpdate: none


def test_service_status_ingress_ips_are_warned(srv: RunningServer, ns: str) -> None:  # noqa: F811
    services = f"{srv.url}/api/v1/namespaces/{ns}/services"
    r = requests.post(services, json={"metadata": {"name": "lb"},
                                      "spec": {"type": "LoadBalancer", "ports": [{"port": 80}]}})
    assert r.status_code == 201 and _warnings(r) == [], r.text
    ingress = [{"hostname": "a.example.com"}, {"ip": "::ffff:1.2.3.4"}]
    r = requests.patch(f"{services}/lb/status", data=json.dumps({"status": {"loadBalancer": {"ingress": ingress}}}),
                       headers=MERGE)
    assert r.status_code == 200, r.text
    assert _warnings(r) == [_header(MAPPED_IP.format("status.loadBalancer.ingress[1]"))]


def test_ingress_status_ips_are_warned_and_the_ingress_update_is_not(srv: RunningServer,  # noqa: F811
                                                                     ns: str) -> None:  # noqa: F811
    """`ingressStatusStrategy.WarningsOnUpdate` (1.33, KEP-4858's alpha): each `status.loadBalancer.ingress[i]`
    with an IP, as a Service's; `ingressStrategy.WarningsOnUpdate` warns of nothing (and keeps the status)."""
    ingresses = f"{srv.url}/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses"
    backend = {"service": {"name": "s", "port": {"number": 80}}}
    r = requests.post(ingresses, json={"metadata": {"name": "i"}, "spec": {"defaultBackend": backend}})
    assert r.status_code == 201 and _warnings(r) == [], r.text
    ingress = [{"hostname": "a.example.com"}, {"ip": "::ffff:1.2.3.4"}, {"ip": "010.1.1.1"}]
    r = requests.patch(f"{ingresses}/i/status", data=json.dumps({"status": {"loadBalancer": {"ingress": ingress}}}),
                       headers=MERGE)
    assert r.status_code == 200, r.text  # legacy forms pass 1.33's validation
    assert r.json()["status"]["loadBalancer"]["ingress"] == ingress
    assert _warnings(r) == [_header(MAPPED_IP.format("status.loadBalancer.ingress[1]")),
                            _header(ZEROS_IP.format("status.loadBalancer.ingress[2]"))]
    r = requests.patch(f"{ingresses}/i", data=json.dumps({"metadata": {"labels": {"a": "b"}}}), headers=MERGE)
    assert r.status_code == 200 and _warnings(r) == [], r.text


def test_nodes_are_warned_and_keep_their_status(srv: RunningServer) -> None:  # noqa: F811
    name = f"n-{uuid.uuid4().hex[:8]}"
    nodes = f"{srv.url}/api/v1/nodes"
    r = requests.post(nodes, json={"metadata": {"name": name},
                                   "spec": {"podCIDR": "10.0.0.1/24", "externalID": "x",
                                            "configSource": {"configMap": {"name": "c", "namespace": "n",
                                                                           "kubeletConfigKey": "k"}}},
                                   "status": {"capacity": {"cpu": "4"}, "config": {}}})
    assert r.status_code == 201, r.text
    got = r.json()  # configSource and status.config dropped on create, the rest of the status kept
    assert got["spec"] == {"podCIDR": "10.0.0.1/24", "podCIDRs": ["10.0.0.1/24"], "externalID": "x"}
    assert got["status"] == {"capacity": {"cpu": "4"}, **NODE_ZEROS}
    assert _warnings(r) == [_header(EXTERNAL_ID), _header(AMBIGUOUS.format("spec.podCIDRs[0]"))]
    got["status"] = {"capacity": {"cpu": "8"}}
    r = requests.put(f"{nodes}/{name}", json=got)
    assert r.status_code == 200, r.text
    assert r.json()["status"] == {"capacity": {"cpu": "4"}, **NODE_ZEROS}  # only nodes/status writes it
    assert _warnings(r) == [_header(EXTERNAL_ID), _header(AMBIGUOUS.format("spec.podCIDRs[0]"))]
    r = requests.patch(f"{nodes}/{name}/status", data=json.dumps({"status": {"capacity": {"cpu": "8"}, "config": {}}}),
                       headers=MERGE)
    assert r.status_code == 200 and _warnings(r) == []  # nodeStatusStrategy warns of nothing
    assert r.json()["status"] == {"capacity": {"cpu": "8"}, **NODE_ZEROS}  # status.config dropped: the stored Node has none
    assert requests.delete(f"{nodes}/{name}").status_code == 200


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    yield from serve_kube(tmp_path_factory, "ipfieldwarnings", flavor="bare")


def test_kubectl_prints_the_warnings(kube: Kube, tmp_path: Path) -> None:  # noqa: F811
    name, proc = kube.create_in_new_namespace("iw", _policy("p"), tmp_path)
    assert proc.returncode == 0 and proc.stdout == "networkpolicy.networking.k8s.io/p created\n", proc
    assert proc.stderr == "".join(f"Warning: {w}\n" for w in POLICY_WARNINGS)
    kube.ok("run", "p", "--image=i", "-n", name)
    proc = kube.run("patch", "pod", "p", "-n", name, "--subresource=status", "--type=merge",
                    "-p", json.dumps({"status": {"podIP": "010.1.1.1", "podIPs": [{"ip": "010.1.1.1"}]}}))
    assert proc.returncode == 0 and proc.stdout == "pod/p patched\n", proc
    assert proc.stderr == f"Warning: {ZEROS_IP.format('status.podIPs[0].ip')}\n"
    node = tmp_path / "node.json"
    node.write_text(json.dumps({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
                                "spec": {"podCIDRs": ["10.0.0.1/24"]}}))
    proc = kube.run("create", "-f", str(node))
    assert proc.returncode == 0 and proc.stdout == f"node/{name} created\n", proc
    assert proc.stderr == f"Warning: {AMBIGUOUS.format('spec.podCIDRs[0]')}\n"
    kube.ok("delete", "node", name)
