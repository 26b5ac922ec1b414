"""registry/servicestore.py over a storage that fails IPAddress creates (etcd unreachable). 1.33's
`allocateFromRange` (pkg/registry/core/service/ipallocator/ipallocator.go, kind's v1.33.1) goes on with the next
address after any failed create (`if err != nil { klog.Infof("can not create IPAddress %s: %v", name, err);
continue }`) and answers `ErrFull` (`range is full`) when the range is walked, which `allocIPs` (alloc.go) makes the
500 `failed to allocate a serviceIP: range is full`; a requested IP's failure is its 422 `failed to allocate IP <ip>:
<err>`. Before, the walk ended at the first failed create, answering storage's error."""
from __future__ import annotations

import ipaddress
import random
from typing import Any

import pytest

from conformance.reference_server.apierrors import StatusError
from conformance.reference_server.server import build_context
from conformance.reference_server.storage import BackendError, MemoryStore

UNREACHABLE = "cannot reach etcd at http://127.0.0.1:1: connection refused"


class _Failing:
    """Fails the first `times` IPAddress creates as an unreachable etcd does; counts the attempts."""

    def __init__(self, store: MemoryStore, times: int):
        self.store, self.times, self.tried = store, times, []
        self.create = store.create
        store.create = self  # type: ignore[method-assign]

    def __call__(self, resource: str, *args: Any, **kw: Any) -> Any:
        if resource == "ipaddresses":
            self.tried.append(args[1])
            if len(self.tried) <= self.times:
                raise BackendError(UNREACHABLE)
        return self.create(resource, *args, **kw)


@pytest.fixture()
def registry() -> Any:
    """kind's registry whose only range is 10.96.0.0/29 (six addresses, walked from a fixed draw)."""
    reg = build_context(flavor="kind", store=MemoryStore()).registry
    reg.namespaces.create({"metadata": {"name": "app"}})
    allocator = reg.content("services").strategy.allocator
    allocator._service_cidrs = lambda: [{"metadata": {"name": "kubernetes"}, "spec": {"cidrs": ["10.96.0.0/29"]}}]
    allocator.rng = random.Random(3)
    return reg


def _create(registry: Any, ip: str | None = None) -> dict[str, Any]:
    spec = {"ports": [{"port": 80}], **({"clusterIP": ip} if ip else {})}
    return registry.content("services").create({"metadata": {"name": "web", "namespace": "app"}, "spec": spec})


def test_a_failed_create_is_followed_by_the_next_address(registry: Any) -> None:
    failing = _Failing(registry.store, 2)
    svc = _create(registry)
    assert len(failing.tried) == 3 and len(set(failing.tried)) == 3
    assert svc["spec"]["clusterIPs"] == [svc["spec"]["clusterIP"]] == [failing.tried[-1]]
    assert registry.store.get("ipaddresses", "", failing.tried[-1])["spec"]["parentRef"]["name"] == "web"


def test_a_range_whose_every_create_fails_is_full(registry: Any) -> None:
    failing = _Failing(registry.store, 100)
    with pytest.raises(StatusError) as err:
        _create(registry)
    full = "Internal error occurred: failed to allocate a serviceIP: range is full"
    assert (err.value.code, err.value.message) == (500, full)
    # every free address once (10.96.0.1 is the `kubernetes` Service's)
    assert sorted(failing.tried, key=ipaddress.ip_address) == [f"10.96.0.{i}" for i in range(2, 7)]
    with pytest.raises(StatusError):
        registry.content("services").get("app", "web")


def test_a_requested_ips_failure_is_its_422(registry: Any) -> None:
    _Failing(registry.store, 1)
    with pytest.raises(StatusError) as err:
        _create(registry, "10.96.0.3")
    assert err.value.code == 422
    [cause] = err.value.status["details"]["causes"]
    assert cause["message"] == f'Invalid value: []string{{"10.96.0.3"}}: failed to allocate IP 10.96.0.3: {UNREACHABLE}'
