"""kube-apiserver's ClusterIP allocator as an API client: while admission webhooks or policies are configured, the
IPAddress of a Service's ClusterIP is written through admission as the loopback client (`system:apiserver`),
within the Service's create (or the update that needs it), after its mutating admission and before its validating
admission, and deleted the same way when the write fails afterwards, when the Service is deleted and when an update
drops it.

Upstream: `pkg/registry/core/service/ipallocator/ipallocator.go` (`createIPAddress`: `a.client.IPAddresses().Create`,
an AlreadyExists answer being `ErrAllocated`; `Release`: `a.client.IPAddresses().Delete`, its error only logged;
`allocateFromRange` in 1.33 (kind's v1.33.1) goes on with the next free address after any failed create, and
answers `ErrFull` when none is left; later releases stop at a refusal other than AlreadyExists, kubernetes#135333;
`calculateRangeOffset` in bitmap.go), `pkg/registry/core/service/storage/alloc.go` (`allocIPs`: a requested IP's
failure is a 422 on `spec.clusterIPs`, `failed to allocate IP <ip>: <error>`; a dynamic one's a 500
`failed to allocate a serviceIP: <error>`), and `staging/src/k8s.io/apiserver/pkg/registry/generic/registry/
store.go` `Create` (`BeginCreate`, then `BeforeCreate`, then the validating admission, then the storage; the
transaction reverted when any of them fails). The loopback client's writes pass the webhooks and policies as any
client's (admission/admitted.py `ControllerWrites` as `APISERVER_USER`).

The request's draws (registry/draws.py) hold what was reserved, so the Service's preview and its write take the
same address; registry/servicestore.py skips writing those again.
"""
from __future__ import annotations

from typing import Any, Awaitable, Callable

from .. import apierrors as E
from ..registry.draws import current as current_draws
from ..storage import BackendError
from ..registry.serviceip import ERR_ALLOCATED, canonical_ip
from ..registry.servicecidr import ip_address
from ..registry.servicestore import FIELD_MANAGER, refused_ip
from .admitted import APISERVER_USER, ControllerWrites, Unadmitted, admitted, release_ips



def _requested(service: dict[str, Any]) -> set[str]:
    """The ClusterIPs the client asked for (their failure is the client's 422, not the allocator's 500)."""
    spec = service.get("spec") if isinstance(service.get("spec"), dict) else {}
    ips = [spec.get("clusterIP")] + list(spec.get("clusterIPs") or [])
    return {canonical_ip(ip) for ip in ips if isinstance(ip, str) and ip and ip != "None"}


class ClusterIPReservation:
    """One request's ClusterIP reservations (`store`: the ServiceStore; `preview(obj)`: the create as a dry run,
    its draws pinned)."""

    def __init__(self, hooks: Any, store: Any, preview: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]],
                 old: dict[str, Any] | None = None):
        self.hooks = hooks
        self.store = store
        self.preview = preview
        self.old = old  # an update's stored Service (its ClusterIPs are held already)
        self.writes = ControllerWrites(hooks, "", user=APISERVER_USER)

    async def begin(self, obj: dict[str, Any]) -> None:
        """`BeginCreate`'s (`beginUpdate`'s) ClusterIP allocation, on the Service as the mutating admission left
        it: each IPAddress the registry allocates written through admission, before the Service's validation,
        so a Service that validation then refuses has its IPAddress written and reverted (the caller's
        `release`), as upstream's `store.go` `create` does (`BeginCreate`, then `BeforeCreate`)."""
        session = current_draws()
        if session is None or session.dry_run:
            return  # a dry run writes no IPAddress
        if self.old is not None and ((self.old.get("spec") or {}).get("type") != "ExternalName"):
            return  # `updateClusterIPs`: only an update leaving ExternalName allocates (single-stack)
        requested = _requested(obj)
        while True:  # every free address of every ready range, as 1.33's `allocateFromRange`: the walk's end is
            # the preview's `range is full`; a large range outlasts the request's deadline (http/deadlines.py
            # cancels the walk and answers its time-out, where upstream's goroutine walks on unseen)
            session.allocated.clear()
            session.collided.clear()
            failure: Exception | None = None
            try:
                planned = await self.preview(obj)
                wanted = self.store.reservations(planned, self.old)
            except (E.StatusError, Unadmitted) as exc:  # refused after the allocation (validation, ...)?
                failure, planned = exc, {}
                wanted = [ip_address(ip, service) for ip, service in session.allocated.items()
                          if ip not in session.reserved]
                if not wanted and session.collided:  # a requested IP held: its create is still admitted
                    failure = None  # (storage's AlreadyExists the answer; or, held no more, allocated)
                    wanted = [ip_address(ip, service) for ip, service in session.collided.items()]
                if not wanted:
                    raise  # refused before it (`initIPFamilyFields`, the requested IP's range, range full)
            refused = await self._reserve(wanted, requested, planned)
            if refused is None:
                if failure is not None:
                    raise failure
                if wanted and not planned:
                    continue  # a collided IP was free after all: the Service previewed again
                return
            session.forget("cluster-ip")  # `allocateFromRange`: on with the next free address

    async def _reserve(self, wanted: list[dict[str, Any]], requested: set[str],
                       planned: dict[str, Any]) -> str | None:
        """Each IPAddress of `wanted` written through admission; the first refused dynamic address (None: all
        written). A requested one refused is the Service's 422 (`allocIPs`)."""
        session = current_draws()
        assert session is not None
        for address in wanted:
            ip = address["metadata"]["name"]
            try:
                await admitted(self._create, address)
            except (E.StatusError, BackendError) as exc:  # (storage's own failure: the loopback client's 500)
                if ip not in requested:
                    return ip
                why = str(exc) if isinstance(exc, BackendError) else ERR_ALLOCATED if exc.code == 409 else \
                    exc.message
                service = planned or {"metadata": {"name": (address["spec"]["parentRef"] or {}).get("name")},
                                      "spec": {"clusterIPs": [ip]}}
                raise refused_ip(service, ip, why) from None
            session.reserved.add(ip)
        return None

    async def _create(self, address: dict[str, Any]) -> dict[str, Any]:
        return self.writes.create(self.store.ipaddresses, address, field_manager=FIELD_MANAGER)

    async def release(self) -> None:
        """The transaction's revert: each reserved IPAddress deleted through admission, errors ignored."""
        session = current_draws()
        if session is None:
            return
        session.released += sorted(session.reserved)
        session.reserved.clear()
        await release_deferred(self.hooks, self.store)


async def release_deferred(hooks: Any, store: Any) -> None:
    """`Release` after the request's write (a deleted Service's ClusterIPs, `afterDelete`; an update's dropped
    ones): each IPAddress deleted as the loopback client, through admission, errors ignored."""
    session = current_draws()
    ipaddresses = getattr(store, "ipaddresses", None)
    if session is None or not session.released or ipaddresses is None:
        return
    ips, session.released = session.released, []
    await release_ips(hooks, ipaddresses, ips)


def reservation(hooks: Any, store: Any, preview: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]],
                old: dict[str, Any] | None = None, sub: str = "") -> ClusterIPReservation | None:
    """The reservation step of a create (an update over `old`) of `store`'s kind (None: the kind allocates
    nothing through a client, or the write is a subresource's)."""
    if sub or getattr(store, "ipaddresses", None) is None or not hasattr(store, "reservations"):
        return None
    return ClusterIPReservation(hooks, store, preview, old)


__all__ = ["ClusterIPReservation", "release_deferred", "reservation"]
