"""A Service write's warnings (registry/servicewarnings.py: 1.33's `GetWarningsForService`, with
apimachinery's `GetWarningsForCIDR` in registry/ipwarnings.py), its `trafficDistribution` validation
(registry/service.py: `validateServiceTrafficDistribution`, PreferSameTrafficDistribution off) and a required node
affinity term's label values (registry/podvalidation/affinity.py: kubernetes#128212)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest
import requests

from conformance.reference_server.embedded import RunningServer
from conformance.reference_server.registry.ipwarnings import cidr_warnings
from conformance.reference_server.registry.servicewarnings import service_warnings
from tests.reference_server.registry.test_podwarnings import _header, _warnings, ns, srv  # noqa: F401 - fixtures
from tests.reference_server.test_real_clients import Kube, kube, serve_kube  # noqa: F401 - kube: a fixture

MERGE = {"Content-Type": "application/merge-patch+json"}
HINTS = ("annotation service.kubernetes.io/topology-aware-hints is deprecated, please use "
         "service.kubernetes.io/topology-mode instead")
LEADING_ZERO = ('spec.externalIPs[0]: non-standard IP address "010.1.1.1" will be considered invalid in a future '
                'Kubernetes release: use "10.1.1.1"')
NOT_A_LABEL_VALUE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
                     "and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
                     "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")


def test_cidr_warnings_in_apimachinerys_words() -> None:
    assert cidr_warnings("p", "10.0.0.0/8") == [] and cidr_warnings("p", "bogus") == []
    assert cidr_warnings("p", "10.0.0.1/8") == [
        'p: CIDR value "10.0.0.1/8" is ambiguous in this context (should be "10.0.0.0/8" or "10.0.0.1/32"?)']
    assert cidr_warnings("p", "010.0.0.0/08") == [
        'p: non-standard CIDR value "010.0.0.0/08" will be considered invalid in a future Kubernetes release: use '
        '"10.0.0.0/8"']
    assert cidr_warnings("p", "::ffff:1.2.3.4/120") == [  # both: ambiguous and mapped, IPv4 as net.IP writes it
        'p: CIDR value "::ffff:1.2.3.4/120" is ambiguous in this context (should be "1.2.3.0/120" or '
        '"1.2.3.4/128"?)',
        'p: non-standard CIDR value "::ffff:1.2.3.4/120" will be considered invalid in a future Kubernetes release: '
        'use "1.2.3.0/120"']
    assert cidr_warnings("p", "2001:DB8::/32") == [
        'p: IPv6 CIDR value "2001:DB8::/32" should be in RFC 5952 canonical format ("2001:db8::/32")']
    assert cidr_warnings("p", "2001:DB8::1/32") == [  # the canonical-form warning only when no other was given
        'p: CIDR value "2001:DB8::1/32" is ambiguous in this context (should be "2001:db8::/32" or '
        '"2001:db8::1/128"?)']


def test_service_warnings_in_upstreams_order() -> None:
    svc = {"metadata": {"annotations": {"service.kubernetes.io/topology-aware-hints": "Auto"}},
           "spec": {"type": "LoadBalancer", "clusterIP": "10.96.0.010", "externalIPs": ["010.1.1.1", "2001:DB8::1"],
                    "loadBalancerIP": "::ffff:1.2.3.4", "loadBalancerSourceRanges": ["1.2.3.4/24"],
                    "externalName": "x.example.com", "trafficDistribution": "PreferClose"}}
    assert service_warnings(svc) == [
        HINTS,
        'spec.clusterIPs[0]: non-standard IP address "10.96.0.010" will be considered invalid in a future '
        'Kubernetes release: use "10.96.0.10"',
        LEADING_ZERO,
        'spec.externalIPs[1]: IPv6 address "2001:DB8::1" should be in RFC 5952 canonical format ("2001:db8::1")',
        'spec.loadBalancerIP: non-standard IP address "::ffff:1.2.3.4" will be considered invalid in a future '
        'Kubernetes release: use "1.2.3.4"',
        'spec.loadBalancerSourceRanges[0]: CIDR value "1.2.3.4/24" is ambiguous in this context (should be '
        '"1.2.3.0/24" or "1.2.3.4/32"?)',
        'spec.externalName is ignored when spec.type is not "ExternalName"',
    ]
    # a headless Service's ignored fields and PreferClose are warned of from 1.34 only
    headless = {"spec": {"clusterIP": "None", "sessionAffinity": "ClientIP", "loadBalancerIP": "1.2.3.4",
                         "trafficDistribution": "PreferClose"}}
    assert service_warnings(headless) == []
    external = {"spec": {"type": "ExternalName", "externalName": "x.example.com", "externalIPs": ["1.1.1.1"]}}
    assert service_warnings(external) == ['spec.externalIPs is ignored when spec.type is "ExternalName"']


def _svc(name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
            "spec": {"ports": [{"port": 80}], **spec}}


def test_a_service_create_and_update_are_warned(srv: RunningServer, ns: str) -> None:  # noqa: F811
    services = f"{srv.url}/api/v1/namespaces/{ns}/services"
    r = requests.post(services, json=_svc("a", externalIPs=["010.1.1.1"]))
    assert r.status_code == 201, r.text
    assert _warnings(r) == [_header(LEADING_ZERO)]
    r = requests.patch(f"{services}/a", data=json.dumps({"metadata": {"annotations": {
        "service.kubernetes.io/topology-aware-hints": "Auto"}}}), headers=MERGE)
    assert r.status_code == 200, r.text
    assert _warnings(r) == [_header(HINTS), _header(LEADING_ZERO)]  # WarningsOnUpdate: the whole new Service
    r = requests.post(services, json=_svc("h", clusterIP="None"))  # 1.33 says nothing of a headless Service
    assert r.status_code == 201 and _warnings(r) == [], r.text
    r = requests.get(f"{services}/a")
    assert r.status_code == 200 and _warnings(r) == []


def test_a_legacy_form_cluster_ip_is_allocated_and_warned(srv: RunningServer, ns: str) -> None:  # noqa: F811
    """`allocIPs` parses a requested ClusterIP sloppily: the address it means is allocated (its IPAddress named
    canonically, held against the same address written plainly), the Service keeps the text as sent."""
    services = f"{srv.url}/api/v1/namespaces/{ns}/services"
    r = requests.post(services, json=_svc("z", clusterIP="10.96.0.077"))
    assert r.status_code == 201, r.text
    assert r.json()["spec"]["clusterIPs"] == ["10.96.0.077"] and r.json()["spec"]["ipFamilies"] == ["IPv4"]
    assert _warnings(r) == [_header('spec.clusterIPs[0]: non-standard IP address "10.96.0.077" will be considered '
                                    'invalid in a future Kubernetes release: use "10.96.0.77"')]
    address = f"{srv.url}/apis/networking.k8s.io/v1/ipaddresses/10.96.0.77"
    assert requests.get(address).json()["spec"]["parentRef"]["name"] == "z"
    r = requests.post(services, json=_svc("y", clusterIP="10.96.0.77"))
    assert r.status_code == 422 and r.json()["message"] == (
        'Service "y" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.77"}: failed to allocate IP '
        "10.96.0.77: provided IP is already allocated")
    r = requests.post(services, json=_svc("x", clusterIP="::ffff:10.96.0.78"))  # IPv4-mapped: the IPv4 family
    assert r.status_code == 201 and r.json()["spec"]["ipFamilies"] == ["IPv4"], r.text
    assert requests.delete(f"{services}/z").status_code == 200
    assert requests.get(address).status_code == 404  # released by the address it means


def test_traffic_distribution_accepts_prefer_close_only(srv: RunningServer, ns: str) -> None:  # noqa: F811
    services = f"{srv.url}/api/v1/namespaces/{ns}/services"
    for value in ("PreferSameZone", ""):
        r = requests.post(services, json=_svc("t", trafficDistribution=value))
        assert r.status_code == 422, r.text
        body = r.json()
        assert body["message"] == (f'Service "t" is invalid: spec.trafficDistribution: Unsupported value: '
                                   f'"{value}": supported values: "PreferClose"')
        assert body["details"]["causes"] == [{"reason": "FieldValueNotSupported", "field": "spec.trafficDistribution",
                                              "message": f'Unsupported value: "{value}": supported values: '
                                                         '"PreferClose"'}]
    r = requests.post(services, json=_svc("t", trafficDistribution="PreferClose"))
    assert r.status_code == 201 and _warnings(r) == [], r.text
    r = requests.patch(f"{services}/t", data=json.dumps({"spec": {"trafficDistribution": "PreferSameNode"}}),
                       headers=MERGE)
    assert r.status_code == 422 and "spec.trafficDistribution: Unsupported value" in r.text


def _affinity(kind: str, values: list[str]) -> dict[str, Any]:
    term = {"matchExpressions": [{"key": "k", "operator": "In", "values": values}]}
    if kind == "required":
        return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}
    return {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": term}]}}


def _pod(name: str, affinity: dict[str, Any]) -> dict[str, Any]:
    return {"metadata": {"name": name}, "spec": {"containers": [{"name": "c", "image": "nginx"}],
                                                  "affinity": affinity}}


def test_a_required_node_affinity_value_must_be_a_label_value(srv: RunningServer, ns: str) -> None:  # noqa: F811
    pods = f"{srv.url}/api/v1/namespaces/{ns}/pods"
    r = requests.post(pods, json=_pod("req", _affinity("required", ["ok", "-bad"])))
    assert r.status_code == 422, r.text
    field = ("spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
             ".matchExpressions[0].values[1]")
    assert r.json()["message"] == f'Pod "req" is invalid: {field}: Invalid value: "-bad": {NOT_A_LABEL_VALUE}'
    r = requests.post(pods, json=_pod("pref", _affinity("preferred", ["-bad"])))  # a preferred one: warned of
    assert r.status_code == 201, r.text
    assert _warnings(r) == [_header(
        "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference"
        f".matchExpressions[0].values[0]: -bad is invalid, {NOT_A_LABEL_VALUE}")]
    deployment = {"metadata": {"name": "d"}, "spec": {
        "selector": {"matchLabels": {"a": "b"}},
        "template": {"metadata": {"labels": {"a": "b"}}, "spec": _pod("", _affinity("required", ["a b"]))["spec"]}}}
    r = requests.post(f"{srv.url}/apis/apps/v1/namespaces/{ns}/deployments", json=deployment)
    assert r.status_code == 422, r.text
    assert ("spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
            '.nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: "a b"') in r.json()["message"]


def test_an_old_pods_invalid_required_value_may_stay() -> None:
    """`AllowInvalidLabelValueInRequiredNodeAffinity`: an update of a pod stored with such a value (before 1.33)
    is not refused for it."""
    from conformance.reference_server.registry.podvalidation import validate_pod

    spec = _pod("p", _affinity("required", ["-bad"]))["spec"]
    spec.update(restartPolicy="Always", dnsPolicy="ClusterFirst", terminationGracePeriodSeconds=30)
    spec["containers"][0].update(imagePullPolicy="Always", terminationMessagePolicy="File")
    assert [e.field for e in validate_pod(spec)] == [
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
        ".matchExpressions[0].values[0]"]
    assert validate_pod(spec, old_spec=spec) == []


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    yield from serve_kube(tmp_path_factory, "servicewarnings", flavor="bare")


def test_kubectl_prints_a_services_warnings(kube: Kube, tmp_path: Path) -> None:  # noqa: F811
    name, proc = kube.create_in_new_namespace("sw", _svc("web", type="ExternalName", externalName="db.example.com",
                                                         externalIPs=["1.2.3.4"], ports=[]), tmp_path)
    assert proc.returncode == 0 and proc.stdout == "service/web created\n", proc
    assert proc.stderr == 'Warning: spec.externalIPs is ignored when spec.type is "ExternalName"\n'
