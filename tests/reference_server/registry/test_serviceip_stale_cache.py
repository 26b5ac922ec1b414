"""registry/servicestore.py over a stale cache: two replicas on one etcd, the allocating one's watch cache held
behind etcd while the other writes the IPAddress of the very address its walk reaches first. 1.33's
`allocateFromRange` (pkg/registry/core/service/ipallocator/ipallocator.go) finds the address free in its informer
cache, fails to create its IPAddress (AlreadyExists) and goes on with the next address: the Service is created."""
from __future__ import annotations

import copy
import random

import pytest

from conformance.reference_server.apierrors import StatusError
from conformance.reference_server.registry.servicecidr import ip_address
from conformance.reference_server.server import build_context

from tests.reference_server.replicas import hold

G = "networking.k8s.io"


def _ipaddress(ip: str, namespace: str, name: str) -> dict:
    obj = ip_address(ip, {"metadata": {"namespace": namespace, "name": name}})
    obj["metadata"].update(uid=f"uid-{name}", creationTimestamp="2026-01-01T00:00:00Z")
    return obj


def _stale_then(a, b, registry, write):
    """`write()` on replica b while its cache has not seen the IPAddress replica a wrote for the address b's walk
    reaches first (the cache catches up once b writes an IPAddress itself: its own write waits for it); the
    address a took."""
    allocator = registry.content("services").strategy.allocator
    allocator.rng = random.Random(7)
    twin = copy.copy(allocator)  # the walk the write will take: the same draws, the same (current) cache
    twin.rng = random.Random()
    twin.rng.setstate(allocator.rng.getstate())
    first = next(twin.walk())
    release = hold(b)
    create = b.create

    def created(resource, *args, **kw):
        if resource == "ipaddresses":
            release.set()
        return create(resource, *args, **kw)
    try:
        a.create("ipaddresses", "", first, _ipaddress(first, "other", "elsewhere"))
        with pytest.raises(StatusError):  # this replica's view: free
            registry.group(G, "ipaddresses").get("", first)
        b.create = created
        return first, write()
    finally:
        b.create = create
        release.set()


def _check(a, first, svc):
    ip = svc["spec"]["clusterIP"]
    assert ip != first and svc["spec"]["clusterIPs"] == [ip], svc["spec"]
    held = a.get_from_storage("ipaddresses", "", ip)
    assert held["spec"]["parentRef"] == {"resource": "services", "namespace": "app", "name": "web"}
    assert a.get_from_storage("ipaddresses", "", first)["spec"]["parentRef"]["name"] == "elsewhere"


@pytest.fixture
def replicas(pair):
    """(a, b, b's registry): a the other replica's storage, b this one's (its reads from its watch cache)."""
    a, b = pair
    registry = build_context(flavor="kind", store=b).registry
    registry.namespaces.create({"metadata": {"name": "app"}})
    return a, b, registry


def test_a_create_goes_on_to_the_next_address(replicas):
    a, b, registry = replicas
    services = registry.content("services")
    first, svc = _stale_then(a, b, registry, lambda: services.create(
        {"metadata": {"name": "web", "namespace": "app"}, "spec": {"ports": [{"port": 80}]}}))
    _check(a, first, svc)
    assert registry.content("services").get("app", "web")["spec"]["clusterIP"] == svc["spec"]["clusterIP"]


def test_an_update_leaving_external_name_goes_on_to_the_next_address(replicas):
    """`updateClusterIPs` allocates through the same `AllocateNextService`."""
    a, b, registry = replicas
    services = registry.content("services")
    old = services.create({"metadata": {"name": "web", "namespace": "app"},
                           "spec": {"type": "ExternalName", "externalName": "db.example.com"}})
    body = {"metadata": {"name": "web", "namespace": "app", "resourceVersion": old["metadata"]["resourceVersion"]},
            "spec": {"type": "ClusterIP", "ports": [{"port": 80}]}}
    first, svc = _stale_then(a, b, registry, lambda: services.update("app", "web", body))
    _check(a, first, svc)
