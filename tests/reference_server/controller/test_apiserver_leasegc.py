"""controller/apiserver_leasegc.py: kube-apiserver's identity-lease garbage collector (apiserverleasegc/
gc_controller.go): expired `apiserver.kubernetes.io/identity=kube-apiserver` Leases in kube-system are deleted by the
loopback client, live ones, other components' Leases and other namespaces' are kept; the server runs it."""
from __future__ import annotations

import time

import requests

from conformance.reference_server.admission.admitted import ControllerWrites
from conformance.reference_server.controller.apiserver_leasegc import (
    GC_PERIOD,
    IdentityLeaseGC,
    lease_expired,
)
from conformance.reference_server.controller.leader import micro_time
from conformance.reference_server.embedded import start_embedded
from conformance.reference_server.registry.store import ListOptions
from conformance.reference_server.server import build_context
from tests.reference_server.replicas import until

NOW = 1_800_000_000.0
IDENTITY = {"apiserver.kubernetes.io/identity": "kube-apiserver"}


def lease(name: str, renewed: float | None, labels: dict | None = None, ns: str = "kube-system",
          duration: int | None = 3600) -> dict:
    spec: dict = {"holderIdentity": f"{name}_x"}
    if renewed is not None:
        spec["renewTime"] = micro_time(renewed)
    if duration is not None:
        spec["leaseDurationSeconds"] = duration
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": name, "namespace": ns, "labels": labels if labels is not None else IDENTITY},
            "spec": spec}


def test_what_expired_means():
    assert not lease_expired(lease("a", NOW - 3599), NOW)
    assert lease_expired(lease("a", NOW - 3601), NOW)
    assert lease_expired(lease("a", None), NOW)  # invalid: collected too
    assert lease_expired(lease("a", NOW, duration=None), NOW)
    assert GC_PERIOD == 3600


def test_gc_deletes_only_expired_identity_leases():
    registry = build_context().registry
    leases = registry.group("coordination.k8s.io", "leases")
    registry.namespaces.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "other"}})
    for obj in (lease("apiserver-gone", NOW - 4000), lease("apiserver-live", NOW - 10),
                lease("apiserver-invalid", None), lease("kube-scheduler", NOW - 4000, labels={}),
                lease("apiserver-elsewhere", NOW - 4000, ns="other")):
        leases.create(obj)
    gc = IdentityLeaseGC(registry, clock=lambda: NOW)
    gc.writes = ControllerWrites(None, "")
    assert sorted(gc.gc()) == ["apiserver-gone", "apiserver-invalid"]
    left = {(o["metadata"]["namespace"], o["metadata"]["name"]) for o in leases.list(None, ListOptions())["items"]}
    assert left == {("kube-system", "apiserver-live"), ("kube-system", "kube-scheduler"),
                    ("other", "apiserver-elsewhere")}
    assert gc.gc() == []


def test_the_server_collects_another_servers_expired_lease():
    srv = start_embedded(flavor="bare")
    try:
        url = f"{srv.url}/apis/coordination.k8s.io/v1/namespaces/kube-system/leases"
        r = requests.post(url, json=lease("apiserver-stale", time.time() - 7200), timeout=10)
        assert r.status_code == 201, r.text
        gc = next(c for c in srv.server.apiserver_controllers if isinstance(c, IdentityLeaseGC))
        srv._loop.call_soon_threadsafe(gc.gc)  # the hourly pass, now, on the server's loop
        until(lambda: requests.get(f"{url}/apiserver-stale", timeout=10).status_code == 404, "the lease collected")
        own = requests.get(url, params={"labelSelector": "apiserver.kubernetes.io/identity=kube-apiserver"},
                           timeout=10).json()["items"]
        assert len(own) == 1  # this server's own, renewed, stays
    finally:
        srv.stop()
