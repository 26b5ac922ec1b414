"""The Service REST storage's allocation transaction: a ClusterIP's IPAddress is the reservation, written before
the Service is stored, removed again when the Service's create fails, and released when the Service is deleted.

Upstream: `pkg/registry/core/service/storage/alloc.go` (`txnAllocClusterIPs`: the allocation, with a revert that
releases what it took; dry run takes nothing) and `storage.go` (`beginCreate` commits or reverts the transaction
with the create's outcome; `afterDelete` releases the deleted Service's ClusterIPs), over `ipallocator.go`
(`createIPAddress`; `Release` deletes the IPAddress by name, its error ignored).

Upstream's allocator writes the IPAddress through kube-apiserver's loopback client, so admission webhooks and
policies see that write; here it is a plain registry write inside the Service's (README: Known gaps).
On an update (a Service becoming or leaving ExternalName) the new ClusterIP's IPAddress is written just after the
Service, in the same atomic step; controller/servicecidr.py's repair loop mends what is left over.
"""
from __future__ import annotations

from typing import Any

from .. import apierrors as E
from ..storage import KeyExistsError, KeyNotFoundError
from .servicecidr import ALLOCATOR, LABEL_MANAGED_BY, ip_address
from .serviceip import ERR_ALLOCATED
from .store import DeleteOptions, GenericStore

FIELD_MANAGER = "kube-apiserver"  # the loopback client's user agent, cut at its first "/"


def cluster_ips(service: dict[str, Any] | None) -> list[str]:
    """The ClusterIPs a Service holds (none for ExternalName or headless ones)."""
    spec = (service or {}).get("spec") or {}
    if not isinstance(spec, dict) or spec.get("type") == "ExternalName":
        return []
    return [ip for ip in spec.get("clusterIPs") or [] if isinstance(ip, str) and ip and ip != "None"]


def _refused(service: dict[str, Any], ip: str) -> E.StatusError:
    """`allocIPs`' error for a requested IP whose IPAddress exists (`ErrAllocated`)."""
    ips = cluster_ips(service)
    shown = "[]string{" + ", ".join(f'"{i}"' for i in ips) + "}"
    return E.invalid("Service", (service.get("metadata") or {}).get("name", ""), [E.FieldError(
        "FieldValueInvalid", "spec.clusterIPs", f"Invalid value: {shown}: failed to allocate IP {ip}: {ERR_ALLOCATED}")])


class ServiceStore(GenericStore):
    """Services, with `ipaddresses` (the networking.k8s.io IPAddress store) set by the registry."""

    ipaddresses: GenericStore | None = None

    def _store_create(self, obj: dict[str, Any], dry_run: bool) -> dict[str, Any]:
        if dry_run or self.ipaddresses is None:
            return super()._store_create(obj, dry_run)
        reserved: list[str] = []
        try:
            for ip in cluster_ips(obj):
                try:
                    self.ipaddresses.create(ip_address(ip, obj), field_manager=FIELD_MANAGER)
                except E.StatusError as exc:
                    if exc.code == 409:
                        raise _refused(obj, ip) from None
                    raise
                reserved.append(ip)
            return super()._store_create(obj, dry_run)
        except BaseException:
            self._release(reserved, obj)  # the transaction's revert
            raise

    def update(self, ns: str, name: str, body: dict[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
        """`allocateUpdate` / `releaseIPs`: a ClusterIP an update adds (a Service leaving ExternalName) is
        reserved, one it drops released, within the same atomic step as the update (upstream reserves before
        the write; here just after it, before the answer)."""
        if kw.get("dry_run") or self.ipaddresses is None:
            return super().update(ns, name, body, **kw)
        with self.store.atomic():
            try:
                before = cluster_ips(self.store.get(self.info.plural, ns, name, shared=True))
            except KeyNotFoundError:
                before = []
            out = super().update(ns, name, body, **kw)
            try:
                now = self.store.get(self.info.plural, ns, name, shared=True)
            except KeyNotFoundError:  # the update removed it (its last finalizer)
                now = None
            after = cluster_ips(now)
            for ip in after:
                if ip not in before:
                    try:
                        self.ipaddresses.create(ip_address(ip, out), field_manager=FIELD_MANAGER)
                    except E.StatusError:  # held already: the repair loop's business
                        pass
            self._release([ip for ip in before if ip not in after], out)
            return out

    def delete(self, ns: str, name: str, opts: DeleteOptions, **kw: Any) -> tuple[dict[str, Any], bool]:
        out, removed = super().delete(ns, name, opts, **kw)
        if removed and not opts.dry_run and out.get("kind") == "Service":
            self._release(cluster_ips(out), out)  # `afterDelete`
        return out, removed

    def _release(self, ips: list[str], service: dict[str, Any]) -> None:
        """`Release`: each IPAddress deleted by name, errors ignored (only the allocator's own for this
        Service: one a client wrote by hand stays)."""
        if self.ipaddresses is None:
            return
        meta = service.get("metadata") or {}
        for ip in ips:
            try:
                current = self.ipaddresses.get("", ip, shared=True)
                ref = (current.get("spec") or {}).get("parentRef") or {}
                labels = (current.get("metadata") or {}).get("labels") or {}
                if labels.get(LABEL_MANAGED_BY) != ALLOCATOR or (ref.get("namespace"), ref.get("name")) != (
                        meta.get("namespace"), meta.get("name")):
                    continue
                self.ipaddresses.delete("", ip, DeleteOptions())
            except (E.StatusError, KeyNotFoundError, KeyExistsError):
                continue
