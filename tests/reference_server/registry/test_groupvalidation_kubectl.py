"""kubectl 1.33 against registry/groupvalidation/: `create ingress` with a wildcard host is accepted and one with an
IP host refused, `create quota --scopes` accepted for pod resources and refused (with upstream's printed scope list)
for a resource the scope does not apply to, as on a kind cluster."""
from __future__ import annotations

import json
from typing import Any, Iterator

import pytest

from tests.reference_server.test_real_clients import Kube, kube, names, serve_kube  # noqa: F401 - fixtures


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    yield from serve_kube(tmp_path_factory, "groupvalidation", flavor="bare")


@pytest.fixture
def ns(kube: Kube, names: Any) -> str:
    """A fresh namespace (`names` deletes it after the test)."""
    name = names("gv")
    kube.ok("create", "namespace", name)
    return name


def test_create_ingress_wildcard_host(kube: Kube, ns: str) -> None:
    assert kube.ok("create", "ingress", "web", "-n", ns, "--rule=*.example.com/api*=web:80") == (
        "ingress.networking.k8s.io/web created\n")
    rules = json.loads(kube.ok("get", "ingress", "web", "-n", ns, "-o", "json"))["spec"]["rules"]
    assert rules[0]["host"] == "*.example.com"
    assert rules[0]["http"]["paths"][0]["pathType"] == "Prefix"


def test_create_ingress_ip_host_refused(kube: Kube, ns: str) -> None:
    err = kube.fails("create", "ingress", "ip", "-n", ns, "--rule=10.1.2.3/=web:80")
    assert err == ('error: failed to create ingress: Ingress.networking.k8s.io "ip" is invalid: spec.rules[0].host: '
                   'Invalid value: "10.1.2.3": must be a DNS name, not an IP address\n')


def test_create_quota_scopes(kube: Kube, ns: str) -> None:
    assert kube.ok("create", "quota", "be", "-n", ns, "--hard=pods=2", "--scopes=BestEffort") == (
        "resourcequota/be created\n")
    err = kube.fails("create", "quota", "bad", "-n", ns, "--hard=cpu=1,pods=2", "--scopes=BestEffort")
    assert err == ('error: failed to create quota: ResourceQuota "bad" is invalid: spec.scopes: Invalid value: '
                   '[]core.ResourceQuotaScope{"BestEffort"}: unsupported scope applied to resource\n')
