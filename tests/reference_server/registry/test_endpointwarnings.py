"""The IP-format warnings of an Endpoints' or an EndpointSlice's write (registry/endpointwarnings.py: 1.33's
`endpointsWarnings`, `warnOnDeprecatedAddressType`, `warnOnBadIPs`), an address in a legacy form accepted as
1.33's validation accepts it, and the Endpoints deprecation warning sent before them (upstream's wrapper adds it
before the handler runs)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import pytest
import requests

from conformance.reference_server.embedded import RunningServer
from conformance.reference_server.registry.endpointwarnings import endpoint_slice_warnings, endpoints_warnings
from tests.reference_server.registry.test_podwarnings import _header, _warnings, ns, srv  # noqa: F401 - fixtures
from tests.reference_server.test_real_clients import Kube, kube, serve_kube  # noqa: F401 - kube: a fixture

DEPRECATED = "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"
ZEROS = ('{}: non-standard IP address "010.1.1.1" will be considered invalid in a future Kubernetes release: use '
         '"10.1.1.1"')
UPPER = '{}: IPv6 address "2001:DB8::1" should be in RFC 5952 canonical format ("2001:db8::1")'
MERGE = {"Content-Type": "application/merge-patch+json"}


def test_endpoints_words_and_the_controllers_label() -> None:
    ep = {"subsets": [{"addresses": [{"ip": "010.1.1.1"}], "notReadyAddresses": [{"ip": "2001:DB8::1"}]},
                      {"addresses": [{"ip": "10.1.1.2"}]}]}
    assert endpoints_warnings(ep) == [ZEROS.format("subsets[0].addresses[0].ip"),
                                      UPPER.format("subsets[0].notReadyAddresses[0].ip")]
    ep["metadata"] = {"labels": {"endpoints.kubernetes.io/managed-by": "endpoint-controller"}}
    assert endpoints_warnings(ep) == []


def test_endpoint_slice_words() -> None:
    eps = {"addressType": "IPv6", "endpoints": [{"addresses": ["::1"]}, {"addresses": ["2001:db8::2", "2001:DB8::1"]}]}
    assert endpoint_slice_warnings(eps, create=True) == [UPPER.format("endpoints[1].addresses[1]")]
    fqdn = {"addressType": "FQDN", "endpoints": [{"addresses": ["a.example.com"]}]}
    assert endpoint_slice_warnings(fqdn, create=True) == ["spec.addressType: FQDN endpoints are deprecated"]
    assert endpoint_slice_warnings(fqdn, create=False) == []  # the update warns of the addresses only
    eps["metadata"] = {"labels": {"endpointslice.kubernetes.io/managed-by": "endpointslicemirroring-controller.k8s.io"}}
    assert endpoint_slice_warnings(eps, create=True) == []


def test_endpoints_with_a_leading_zero_are_created_and_warned(srv: RunningServer, ns: str) -> None:  # noqa: F811
    url = f"{srv.url}/api/v1/namespaces/{ns}/endpoints"
    r = requests.post(url, json={"metadata": {"name": "e"}, "subsets": [
        {"addresses": [{"ip": "010.1.1.1"}], "ports": [{"port": 80}]}]})
    assert r.status_code == 201, r.text
    assert r.json()["subsets"][0]["addresses"] == [{"ip": "010.1.1.1"}]  # kept as sent
    assert _warnings(r) == [_header(DEPRECATED), _header(ZEROS.format(
        "subsets[0].addresses[0].ip"))]
    r = requests.post(url, json={"metadata": {"name": "l"}, "subsets": [  # judged as the address it means
        {"addresses": [{"ip": "127.000.0.1"}], "ports": [{"port": 80}]}]})
    assert r.status_code == 422 and "may not be in the loopback range" in r.text, r.text


def test_endpoint_slices_are_warned_on_create_and_update(srv: RunningServer, ns: str) -> None:  # noqa: F811
    url = f"{srv.url}/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices"
    r = requests.post(url, json={"metadata": {"name": "s"}, "addressType": "IPv4",
                                 "endpoints": [{"addresses": ["010.1.1.1"]}]})
    assert r.status_code == 201, r.text
    assert _warnings(r) == [_header(ZEROS.format("endpoints[0].addresses[0]"))]
    r = requests.patch(f"{url}/s", data=json.dumps({"metadata": {"labels": {"a": "b"}}}), headers=MERGE)
    assert r.status_code == 200 and _warnings(r) == [
        _header(ZEROS.format("endpoints[0].addresses[0]"))]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    yield from serve_kube(tmp_path_factory, "endpointwarnings", flavor="bare")


def test_kubectl_prints_the_deprecation_first(kube: Kube, tmp_path: Path) -> None:  # noqa: F811
    name, proc = kube.create_in_new_namespace("ew", {
        "apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "e"},
        "subsets": [{"addresses": [{"ip": "2001:DB8::1"}], "ports": [{"port": 80}]}]}, tmp_path)
    assert proc.returncode == 0 and proc.stdout == "endpoints/e created\n", proc
    assert proc.stderr == f"Warning: {DEPRECATED}\nWarning: {UPPER.format('subsets[0].addresses[0].ip')}\n"
