"""kube-apiserver's identity Lease: `kube-system/apiserver-<hash>`, its heartbeat, renewed every 10 s by every API
server (not leader-elected), so `kubectl get lease -A` lists one per kube-apiserver as on any 1.26+ cluster.

Upstream: `pkg/controlplane/apiserver/server.go` (post-start hook `start-kube-apiserver-identity-lease-controller`:
`IdentityLeaseDurationSeconds = 3600`, `IdentityLeaseRenewIntervalPeriod = 10 * time.Second`, the holder
`<APIServerID>_<uuid>`, `labelAPIServerHeartbeatFunc`: labels `apiserver.kubernetes.io/identity: kube-apiserver` and
`kubernetes.io/hostname: <os.Hostname()>`), `staging/src/k8s.io/apiserver/pkg/server/config.go` (`APIServerID`:
`"apiserver-" + lower(base32, no padding, of sha256(cryptobyte(u16-prefixed hostname, u16-prefixed
"kube-apiserver"))[:16])`) and `staging/src/k8s.io/component-helpers/apimachinery/lease/controller.go` (`sync`:
update the Lease last written, else get-or-create it, then update; `newLease`: on create the name, holder and
duration, on every write `renewTime` now and the post-process labels; `wait.JitterUntil(sync, 10s, 0.04)`); both
read at their v0.33.1 tags (k8s.io/apiserver, k8s.io/component-helpers).

Its writes are the loopback client's (`system:apiserver`, manager `kube-apiserver`) through admission/admitted.py,
so webhooks and policies see them as they see upstream's; other servers' expired Leases are deleted by the
identity-lease garbage collector (controller/apiserver_leasegc.py). Not modelled: the peer-advertise annotation
(only with the alpha `UnknownVersionInteroperabilityProxy` gate).
"""
from __future__ import annotations

import asyncio
import base64
import hashlib
import logging
import random
import socket
import struct
import time
import uuid
from collections.abc import Callable
from typing import Any

from .. import apierrors as E
from ..admission.admitted import APISERVER_USER, admitted
from ..storage.offload import Offload
from .leader import micro_time
from .loop import Controller
from .reads import get_or_none

log = logging.getLogger("nsconform.reference_server.controller")
GROUP, NAMESPACE = "coordination.k8s.io", "kube-system"
FIELD_MANAGER = "kube-apiserver"
IDENTITY_LABEL = "apiserver.kubernetes.io/identity"  # IdentityLeaseComponentLabelKey
HOSTNAME_LABEL = "kubernetes.io/hostname"
LEASE_DURATION_SECONDS = 3600  # IdentityLeaseDurationSeconds
RENEW_INTERVAL = 10.0          # IdentityLeaseRenewIntervalPeriod
JITTER = 0.04                  # wait.JitterUntil's factor in the lease controller's Run
MAX_UPDATE_RETRIES = 5         # maxUpdateRetries


def apiserver_id(hostname: str, component: str = "kube-apiserver") -> str:
    """`APIServerID`: sha256 of the cryptobyte encoding (uint16 length-prefixed hostname, then component)."""
    data = b"".join(struct.pack(">H", len(p)) + p for p in (hostname.encode(), component.encode()))
    digest = hashlib.sha256(data).digest()[:16]
    return "apiserver-" + base64.b32encode(digest).decode().rstrip("=").lower()


class IdentityLeaseController(Controller):
    """The lease controller of one API server: `sync` is one heartbeat (synchronous; `Pending` when a webhook or
    policy must admit the write first), `start` runs it every `renew_interval` seconds with upstream's jitter."""

    name = "apiserver-identity-lease"
    client_user = APISERVER_USER

    def __init__(self, registry: Any, *, hostname: str | None = None, renew_interval: float = RENEW_INTERVAL,
                 clock: Callable[[], float] = time.time):
        super().__init__()
        self.registry = registry
        self.hostname = hostname if hostname is not None else socket.gethostname()
        self.lease_name = apiserver_id(self.hostname)
        self.holder_identity = f"{self.lease_name}_{uuid.uuid4()}"
        self.renew_interval, self.clock = renew_interval, clock
        self.latest: dict[str, Any] | None = None  # latestLease: the Lease this controller last wrote
        self._offload = Offload(registry.store, self.name)  # etcd: each heartbeat's round trips off the loop

    @property
    def _store(self) -> Any:
        return self.registry.group(GROUP, "leases")

    def _new_lease(self, base: dict[str, Any] | None, now: float) -> dict[str, Any]:
        """`newLease` + `labelAPIServerHeartbeatFunc`."""
        if base is None:
            lease: dict[str, Any] = {
                "apiVersion": f"{GROUP}/v1", "kind": "Lease",
                "metadata": {"name": self.lease_name, "namespace": NAMESPACE},
                "spec": {"holderIdentity": self.holder_identity, "leaseDurationSeconds": LEASE_DURATION_SECONDS}}
        else:
            lease = {**base, "metadata": dict(base["metadata"]), "spec": dict(base.get("spec") or {})}
        lease["spec"]["renewTime"] = micro_time(now)
        labels = dict(lease["metadata"].get("labels") or {})
        labels[IDENTITY_LABEL] = "kube-apiserver"
        labels[HOSTNAME_LABEL] = self.hostname
        lease["metadata"]["labels"] = labels
        return lease

    def _update(self, base: dict[str, Any], now: float) -> bool:
        """`retryUpdateLease`: a conflict reads the Lease again; True once written."""
        for _ in range(MAX_UPDATE_RETRIES):
            try:
                self.latest = self.writes.update(self._store, NAMESPACE, self.lease_name, self._new_lease(base, now),
                                                 field_manager=FIELD_MANAGER)
                return True
            except E.StatusError as exc:
                if exc.code != 409:
                    log.info("%s: failed to update lease: %s", self.name, exc.message)
                    continue
                current = get_or_none(self._store, NAMESPACE, self.lease_name)
                if current is None:
                    return False
                base = current
        return False

    def sync(self, now: float | None = None) -> None:
        """One heartbeat at `now` (default: the clock's; a sync stopped by a pending admission runs again with the
        same `now`, so the write it reaches is the one admitted): update the Lease last written; else get or
        create it (a fresh one is not updated)."""
        now = self.clock() if now is None else now
        store = self._store
        if store is None:  # coordination.k8s.io not served by this profile
            return
        if self.latest is not None and self._update(self.latest, now):
            return
        current = get_or_none(store, NAMESPACE, self.lease_name)
        if current is None:
            try:
                self.latest = self.writes.create(store, self._new_lease(None, now), field_manager=FIELD_MANAGER)
            except E.StatusError as exc:  # another replica on this host created it: next heartbeat updates
                if exc.code != 409:
                    raise
            return
        self.latest = current
        self._update(current, now)

    def start(self) -> None:
        async def heartbeat() -> None:
            while True:
                async def once(now: float = self.clock()) -> None:
                    await self._offload(self.sync, now)
                try:
                    await admitted(once)
                except E.StatusError as exc:  # a refusal: upstream logs it and tries at the next interval
                    log.info("%s: %s", self.name, exc.message)
                except Exception:  # a bug must not stop the heartbeat
                    log.exception("%s: sync failed", self.name)
                await asyncio.sleep(self.renew_interval * (1 + random.random() * JITTER))
        self._spawn(heartbeat())
