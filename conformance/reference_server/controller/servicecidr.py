"""kube-apiserver's Service IP bookkeeping (MultiCIDRServiceAllocator, GA in 1.33): the `kubernetes` ServiceCIDR
of `--service-cluster-ip-range` and one IPAddress per allocated ClusterIP.

Upstream:
* `pkg/controlplane/controller/defaultservicecidr/default_servicecidr_controller.go`: the default ServiceCIDR
  created when missing, its `Ready` condition set True ("Kubernetes default Service CIDR is ready", no reason);
  kube-controller-manager's `pkg/controller/servicecidrs` adds `networking.k8s.io/service-cidr-finalizer` (and
  later sets its own Ready message: controller/servicecidrs.py);
* `pkg/registry/core/service/ipallocator/ipallocator.go` `createIPAddress` (name = the IP, labels
  `ipaddress.kubernetes.io/ip-family` and `.../managed-by: ipallocator.k8s.io`, `parentRef` the Service) and the
  release on delete; `pkg/registry/core/service/ipallocator/controller/repairip.go` recreates a missing one and
  removes one whose Service is gone.
The allocator's own writes are the Service storage's (registry/servicestore.py: the IPAddress before the Service,
released with it); this loop is the repair (`repairip.go`): it recreates a missing one, removes one whose
Service is gone (60 s after its creation: a Service being created holds its IPAddress before it is stored), and
follows a Service's update (becoming or leaving ExternalName) just after it is stored. Its writes are
kube-apiserver's loopback writes (`system:apiserver`, manager `kube-apiserver`), through the webhooks and policies.
kube-controller-manager's servicecidrs controller (every ServiceCIDR's finalizer and Ready condition, and
deletions) is controller/servicecidrs.py.
"""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from .. import apierrors as E
from ..admission.admitted import APISERVER_USER, AdmissionRefusal
from ..registry import Registry
from ..registry.meta import now, parse_time
from ..registry.servicecidr import (ALLOCATOR, DEFAULT_NAME, FINALIZER, GROUP, LABEL_MANAGED_BY,
                                    default_service_cidr, ip_address)
from ..registry.servicestore import cluster_ips
from ..registry.store import DeleteOptions
from .loop import Controller
from .reads import get_or_none

FIELD_MANAGER = "kube-apiserver"
# `syncIPAddress`: an IPAddress whose Service is not there is left alone this long after its creation ("the
# default timeout value on the kube-apiserver": its Service may still be being created)
LEAK_GRACE = 60.0
READY_MESSAGE = "Kubernetes default Service CIDR is ready"


def seed(registry: Registry, cidr: str) -> None:
    """A fresh store's `kubernetes` ServiceCIDR as the two controllers leave it: created by kube-apiserver, the
    finalizer added by kube-controller-manager, `Ready` set by the default-ServiceCIDR controller."""
    store = registry.group(GROUP, "servicecidrs")
    assert store is not None
    try:
        store.create(default_service_cidr(cidr), field_manager=FIELD_MANAGER)
    except E.StatusError as exc:
        if exc.code != 409:
            raise
        return

    def finalize(obj: dict[str, Any]) -> dict[str, Any]:
        return {**obj, "metadata": {**obj["metadata"], "finalizers": [FINALIZER]}}

    def ready(obj: dict[str, Any]) -> dict[str, Any]:
        return {**obj, "status": {"conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": now(),
                                                  "reason": "", "message": READY_MESSAGE}]}}
    store.update("", DEFAULT_NAME, transform=finalize, field_manager="kube-controller-manager")
    store.update("", DEFAULT_NAME, transform=ready, strategy=store.status_strategy,  # type: ignore[attr-defined]
                 field_manager="kubernetes-service-cidr-controller")


def _age(ipaddr: dict[str, Any] | None) -> float:
    """Seconds since the IPAddress was created (a gone one: past any grace)."""
    created = parse_time(((ipaddr or {}).get("metadata") or {}).get("creationTimestamp"))
    if created is None:
        return float("inf")
    return (datetime.now(timezone.utc) - created).total_seconds()


def _parent(ipaddr: dict[str, Any]) -> tuple[str, str] | None:
    ref = (ipaddr.get("spec") or {}).get("parentRef") or {}
    if ref.get("resource") != "services" or ref.get("group"):
        return None
    return ref.get("namespace") or "", ref.get("name") or ""


class IPAddressAllocations(Controller):
    """Keeps an allocator-managed IPAddress for each ClusterIP of each Service, and none for a gone Service."""

    name = "ipallocator-repair-controller"
    client_user = APISERVER_USER

    def __init__(self, registry: Registry):
        super().__init__()
        self.registry = registry
        self._services = self._queue()
        # the informer's index of the allocator's IPAddresses: Service → their names, and name → Service
        self._allocated: dict[tuple[str, str], set[str]] = {}
        self._parent_of: dict[str, tuple[str, str]] = {}

    def start(self) -> None:
        services = self.registry.content("services")
        ipaddresses = self.registry.group(GROUP, "ipaddresses")
        if services is None or ipaddresses is None:
            return
        self._inform(services, lambda ev: self._services.add((ev.namespace, ev.name)))
        self._inform(ipaddresses, self._on_ipaddress)
        self._work(self._services, self._sync)

    def _on_ipaddress(self, ev: Any) -> None:
        parent = _parent(ev.object) if ((ev.object.get("metadata") or {}).get("labels") or {}).get(
            LABEL_MANAGED_BY) == ALLOCATOR else None
        before = self._parent_of.pop(ev.name, None)
        if before is not None:
            self._allocated[before].discard(ev.name)
            if not self._allocated[before]:
                del self._allocated[before]
        if parent is None:
            return
        if ev.type != "DELETED":
            self._parent_of[ev.name] = parent
            self._allocated.setdefault(parent, set()).add(ev.name)
        self._services.add(parent)

    async def _sync(self, key: tuple[str, str]) -> None:
        try:
            self._reconcile(*key)
        except AdmissionRefusal as exc:
            self.refused(self._services, key, exc)
            return
        except E.StatusError as exc:  # changed or gone meanwhile: its own event queues it again
            if exc.code not in (404, 409):
                raise
            return
        self.forget(key)

    def _reconcile(self, namespace: str, name: str) -> None:
        services, store = self.registry.content("services"), self.registry.group(GROUP, "ipaddresses")
        assert services is not None and store is not None
        service = get_or_none(services, namespace, name)  # (a copy: its Service's own object for the write)
        wanted = cluster_ips(service)
        for ip in wanted:
            current = get_or_none(store, "", ip)
            if current is None:
                self.writes.create(store, ip_address(ip, service or {}), field_manager=FIELD_MANAGER)
        for ip in sorted(self._allocated.get((namespace, name), set()) - set(wanted)):
            if service is None:  # `syncIPAddress`: a Service may still be being created (its IPAddress comes first)
                left = LEAK_GRACE - _age(get_or_none(store, "", ip))
                if left >= 0:
                    self._services.add_after((namespace, name), left + 0.01)
                    continue
            self.writes.delete(store, "", ip, DeleteOptions())  # (a 404: released meanwhile)
