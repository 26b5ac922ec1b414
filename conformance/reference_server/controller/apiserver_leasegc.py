"""kube-apiserver's identity-lease garbage collector: every API server deletes, once an hour, the expired identity
Leases in kube-system (those labelled `apiserver.kubernetes.io/identity=kube-apiserver`): a server that went away
stops renewing its `apiserver-<hash>` Lease (controller/apiserver_identity.py) and, an hour later, the others remove
it, so `kubectl get lease -n kube-system` does not keep a Lease per server that ever ran.

Upstream: `pkg/controlplane/apiserver/server.go` (post-start hook
`start-kube-apiserver-identity-lease-garbage-collector`: `NewAPIServerLeaseGC(client, IdentityLeaseGCPeriod = 3600 s,
kube-system, "apiserver.kubernetes.io/identity=kube-apiserver")`, the loopback client), `pkg/controlplane/apiserver/
apiserverleasegc/gc_controller.go` (`gc`, run by `wait.Until` at once and then every period: for each Lease the
informer holds that `isLeaseExpired` (no `renewTime`, no `leaseDurationSeconds`, or `renewTime + duration` before
now), read it again from the server and delete it if it is still expired; a Lease already gone is no error).
Its writes are the loopback client's (`system:apiserver`) through admission/admitted.py. `period` and `clock` are
parameters so tests need not wait an hour.
"""
from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from .. import apierrors as E
from ..admission.admitted import APISERVER_USER, admitted
from ..registry.store import DeleteOptions, ListOptions
from ..storage.offload import Offload
from .apiserver_identity import GROUP, IDENTITY_LABEL, NAMESPACE
from .leader import parse_micro_time
from .loop import Controller
from .reads import get_or_none

log = logging.getLogger("nsconform.reference_server.controller")
GC_PERIOD = 3600.0  # IdentityLeaseGCPeriod
SELECTOR = f"{IDENTITY_LABEL}=kube-apiserver"


def lease_expired(lease: dict[str, Any], now: float) -> bool:
    """`isLeaseExpired`: no renew time or duration (invalid, collected too), or renewed longer ago than the duration."""
    spec = lease.get("spec") or {}
    renew, duration = spec.get("renewTime"), spec.get("leaseDurationSeconds")
    if not renew or duration is None:
        return True
    return parse_micro_time(renew) + float(duration) < now


class IdentityLeaseGC(Controller):
    """One API server's collector: `gc` is one pass (synchronous), `start` runs it now and every `period` seconds."""

    name = "apiserver-lease-gc"
    client_user = APISERVER_USER

    def __init__(self, registry: Any, *, period: float = GC_PERIOD, clock: Callable[[], float] = time.time):
        super().__init__()
        self.registry, self.period, self.clock = registry, period, clock
        self._offload = Offload(registry.store, self.name)  # etcd: the pass's round trips off the loop

    def gc(self) -> list[str]:
        """`gc`: delete each expired identity Lease, checked again just before; returns the names deleted."""
        store = self.registry.group(GROUP, "leases")
        if store is None:  # coordination.k8s.io not served by this profile
            return []
        deleted: list[str] = []
        for lease in store.list(NAMESPACE, ListOptions(label_selector=SELECTOR))["items"]:
            if not lease_expired(lease, self.clock()):
                continue
            name = lease["metadata"]["name"]
            current = get_or_none(store, NAMESPACE, name)  # the latest from the server, not the cache
            if current is None or not lease_expired(current, self.clock()):
                continue
            try:
                self.writes.delete(store, NAMESPACE, name, DeleteOptions())
                deleted.append(name)
            except E.StatusError as exc:
                if exc.code != 404:  # gone already: another server's collector was first
                    log.error("%s: error deleting lease %s: %s", self.name, name, exc.message)
        return deleted

    def start(self) -> None:
        async def run() -> None:
            while True:
                async def once() -> None:
                    await self._offload(self.gc)
                try:
                    await admitted(once)
                except E.StatusError as exc:  # a refusal: tried again at the next period
                    log.info("%s: %s", self.name, exc.message)
                except Exception:  # a bug must not stop the collector
                    log.exception("%s: gc failed", self.name)
                await asyncio.sleep(self.period)
        self._spawn(run())
