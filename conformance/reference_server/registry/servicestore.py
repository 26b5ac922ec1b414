"""The Service REST storage's allocation transaction: a ClusterIP's IPAddress is the reservation, written before
the Service is stored, removed again when the Service's create fails (also when its validation refuses it: the
strategy allocates before validating, as `store.go` `create` runs `BeginCreate` before `BeforeCreate`), and
released when the Service is deleted.

Upstream: `pkg/registry/core/service/storage/alloc.go` (`txnAllocClusterIPs`: the allocation, with a revert that
releases what it took; dry run takes nothing; `txnUpdateClusterIPs`: an update leaving ExternalName allocates
before the write) and `storage.go` (`beginCreate` / `beginUpdate` commit or revert the transaction with the
write's outcome; `afterDelete` releases the deleted Service's ClusterIPs), over `ipallocator.go`
(`createIPAddress`; `Release` deletes the IPAddress by name, its error ignored).

Upstream's allocator writes the IPAddress through kube-apiserver's loopback client. While admission webhooks or
policies are configured, a request's create does that through admission/serviceips.py before this store runs, and
this store only takes those reservations (registry/draws.py `reserved`); without any, the IPAddress is the plain
registry write made here, which is what admission would let through untouched; a dynamic ClusterIP whose
IPAddress cannot be written (another replica took it unseen by this one's cache) is followed by the next address of
the allocator's walk (`allocateFromRange`), which the Service then holds. A controller's releases go
through admission too when its sync collects them (admission/admitted.py `ControllerWrites.releasing`). An update's new ClusterIP is
reserved before the Service is stored (the update computed once as a dry run, its draws pinned, then made).
"""
from __future__ import annotations

from typing import Any

from .. import apierrors as E
from ..goport.gofmt import sharp_v_strings
from ..storage import BackendError, KeyExistsError, KeyNotFoundError
from .draws import Allocated, allocation, pinned, release_sink, reserved
from .draws import allocated as current_allocated
from .servicecidr import ALLOCATOR, LABEL_MANAGED_BY, ip_address
from .serviceip import ERR_ALLOCATED, ERR_FULL, canonical_ip
from .store import DeleteOptions, GenericStore

FIELD_MANAGER = "kube-apiserver"  # the loopback client's user agent, cut at its first "/"


def cluster_ips(service: dict[str, Any] | None) -> list[str]:
    """The ClusterIPs a Service holds (none for ExternalName or headless ones)."""
    spec = (service or {}).get("spec") or {}
    if not isinstance(spec, dict) or spec.get("type") == "ExternalName":
        return []
    return [canonical_ip(ip) for ip in _ips_as_sent(spec)]


def _ips_as_sent(spec: dict[str, Any]) -> list[str]:
    return [ip for ip in spec.get("clusterIPs") or [] if isinstance(ip, str) and ip and ip != "None"]


def refused_ip(service: dict[str, Any], ip: str, why: str = ERR_ALLOCATED) -> E.StatusError:
    """`allocIPs`' error for a requested IP whose IPAddress could not be written (`ErrAllocated`: it exists)."""
    ips = _ips_as_sent((service or {}).get("spec") or {})
    return E.invalid("Service", (service.get("metadata") or {}).get("name", ""), [E.FieldError(
        "FieldValueInvalid", "spec.clusterIPs",
        f"Invalid value: {sharp_v_strings(ips)}: failed to allocate IP {ip}: {why}")])


def ip_taken(exc: E.StatusError) -> bool:
    """Whether a refusal is `refused_ip`'s for an address another Service (or replica) already holds."""
    return exc.code == 422 and "failed to allocate IP " in exc.message and exc.message.endswith(ERR_ALLOCATED)


class ServiceStore(GenericStore):
    """Services, with `ipaddresses` (the networking.k8s.io IPAddress store) set by the registry."""

    ipaddresses: GenericStore | None = None

    def create(self, obj: dict[str, Any], *, dry_run: bool = False, **kw: Any) -> dict[str, Any]:
        """`store.go` `create`: `BeginCreate` allocates before `BeforeCreate` validates, so a create refused
        after the allocation (validation, a NodePort, the validating admission, the storage's AlreadyExists)
        writes the ClusterIP's IPAddress and deletes it again (`txn.Revert`), as upstream."""
        with allocation(dry_run) as allocated:  # the strategy allocates as the request does (registry/draws.py)
            try:
                return super().create(obj, dry_run=dry_run, **kw)
            except E.StatusError:
                if not dry_run:
                    self._revert_unwritten(allocated)
                raise

    def _revert_unwritten(self, allocated: Allocated | None) -> None:
        """The allocation a failed create made and did not write yet: written, then released (a request's own
        reservations, written through admission, are the request's to revert)."""
        if self.ipaddresses is None or allocated is None:
            return
        held = reserved()
        for ip, service in allocated.ips.items():
            if ip in allocated.written or ip in held:
                continue
            try:
                self.ipaddresses.create(ip_address(ip, service), field_manager=FIELD_MANAGER)
            except E.StatusError:  # (held by another: `ErrAllocated`, the create had failed anyway)
                continue
            self._release([ip], service)

    def _store_create(self, obj: dict[str, Any], dry_run: bool) -> dict[str, Any]:
        if dry_run or self.ipaddresses is None:
            return super()._store_create(obj, dry_run)
        reserved_already, wrote, record = reserved(), [], current_allocated()
        try:
            for ip in cluster_ips(obj):
                if ip in reserved_already:  # written through admission by the request (admission/serviceips.py)
                    continue
                ip = self._write_ip(obj, ip, record)
                wrote.append(ip)
                if record is not None:
                    record.written.add(ip)
            return super()._store_create(obj, dry_run)
        except BaseException:
            self._release(wrote, obj)  # the transaction's revert (the request reverts its own reservations)
            raise

    def _write_ip(self, obj: dict[str, Any], ip: str, record: Allocated | None) -> str:
        """`createIPAddress` for one of `obj`'s ClusterIPs; the address written. A requested one that exists is
        `ErrAllocated` (the 422 of `allocIPs`); a dynamic one whose create fails, whatever the error (another
        replica wrote it since this one's cache showed it free; storage itself failed, etcd unreachable: the
        loopback client's 500), goes on with the next free address of its walk, as 1.33's `allocateFromRange`
        does (`if err != nil { klog.Infof("can not create IPAddress %s: %v", name, err); continue }`), which
        `obj` then holds; the walk's end is `ErrFull` (`allocIPs`' 500 `failed to allocate a serviceIP: range is
        full`). (A write's storage runs off the loop with a remote store, storage/offload.py: a request whose
        deadline passes first is answered its time-out while the walk goes on, as upstream's goroutine does.)"""
        walk = record.walks.pop(ip, None) if record is not None else None
        while True:
            try:
                self.ipaddresses.create(ip_address(ip, obj), field_manager=FIELD_MANAGER)  # type: ignore[union-attr]
                return ip
            except E.StatusError as exc:
                if walk is None:
                    if exc.code == 409:
                        raise refused_ip(obj, ip) from None
                    raise
            except BackendError as exc:  # (the loopback client's 500 carries its text)
                if walk is None:  # a requested one: `allocIPs`' 422 `failed to allocate IP <ip>: <err>`
                    raise refused_ip(obj, ip, str(exc)) from None
            following = next(walk, None)
            if record is not None:
                record.ips.pop(ip, None)
            if following is None:
                raise E.internal(f"failed to allocate a serviceIP: {ERR_FULL}")
            spec = obj["spec"]
            spec["clusterIPs"] = [following if x == ip else x for x in spec["clusterIPs"]]
            if spec.get("clusterIP") == ip:
                spec["clusterIP"] = following
            if record is not None:
                record.ips[following] = obj
            ip = following

    def update(self, ns: str, name: str, body: dict[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
        """`allocateUpdate` / `releaseIPs`: a ClusterIP an update adds (a Service leaving ExternalName) is
        reserved before the Service is stored, one it drops released after it, in one atomic step."""
        dry_run = bool(kw.get("dry_run"))
        if dry_run or self.ipaddresses is None:
            with allocation(dry_run):
                return super().update(ns, name, body, **kw)
        with self.store.atomic(), pinned(False) as session, allocation(False):
            try:
                current = self.store.get(self.info.plural, ns, name, shared=True)
            except KeyNotFoundError:
                current = None
            before = cluster_ips(current)
            wrote: list[str] = []
            if current is not None and ((current.get("spec") or {}).get("type") == "ExternalName"):
                try:
                    planned = super().update(ns, name, body, **{**kw, "dry_run": True})  # its draws pinned
                except E.StatusError:  # refused after `beginUpdate` allocated (validation, ...): reverted
                    self._revert_unwritten(current_allocated())
                    raise
                record = current_allocated()
                try:
                    for ip in cluster_ips(planned):
                        if ip in before or ip in reserved():
                            continue
                        if record is not None and ip in record.walks:  # a dynamic one: `allocateFromRange`
                            got = self._write_ip(planned, ip, record)
                            wrote.append(got)
                            if got != ip:  # the update takes the address written
                                session.repin("cluster-ip", ip, got)
                            continue
                        try:
                            self.ipaddresses.create(ip_address(ip, planned), field_manager=FIELD_MANAGER)
                            wrote.append(ip)
                        except E.StatusError:  # held already: the repair loop's business
                            pass
                except BaseException:
                    self._release(wrote, planned)
                    raise
            try:
                out = super().update(ns, name, body, **kw)
            except BaseException:
                self._release(wrote, current or {})
                raise
            try:
                now = self.store.get(self.info.plural, ns, name, shared=True)
            except KeyNotFoundError:  # the update removed it (its last finalizer)
                now = None
            after = cluster_ips(now)
            held = reserved()
            for ip in after:  # (one an update of a Service stored without its ClusterIP gave it: just after)
                if ip not in before and ip not in wrote and ip not in held:
                    try:
                        self.ipaddresses.create(ip_address(ip, out), field_manager=FIELD_MANAGER)
                    except E.StatusError:
                        pass
            self._release([ip for ip in before if ip not in after], out)
            return out

    def reservations(self, service: dict[str, Any], old: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """The IPAddresses a create of `service`, or its update over `old` (as it would be stored), writes that
        the request does not hold yet (admission/serviceips.py writes them through admission)."""
        if self.ipaddresses is None:
            return []
        held = set(reserved()) | set(cluster_ips(old))
        return [ip_address(ip, service) for ip in cluster_ips(service) if ip not in held]

    def delete(self, ns: str, name: str, opts: DeleteOptions, **kw: Any) -> tuple[dict[str, Any], bool]:
        out, removed = super().delete(ns, name, opts, **kw)
        if removed and not opts.dry_run and out.get("kind") == "Service":
            self._release(cluster_ips(out), out)  # `afterDelete`
        return out, removed

    def _release(self, ips: list[str], service: dict[str, Any]) -> None:
        """`Release`: each IPAddress deleted by name, errors ignored (only the allocator's own for this
        Service: one a client wrote by hand stays); left to the request (admission/serviceips.py
        `release_deferred`) or the controller (admission/admitted.py) that deletes them through admission, when
        one collects them (registry/draws.py `release_sink`)."""
        if self.ipaddresses is None:
            return
        meta = service.get("metadata") or {}
        sink = release_sink()
        for ip in ips:
            try:
                current = self.ipaddresses.get("", ip, shared=True)
                ref = (current.get("spec") or {}).get("parentRef") or {}
                labels = (current.get("metadata") or {}).get("labels") or {}
                if labels.get(LABEL_MANAGED_BY) != ALLOCATOR or (ref.get("namespace"), ref.get("name")) != (
                        meta.get("namespace"), meta.get("name")):
                    continue
                if sink is not None:
                    sink.append(ip)
                    continue
                self.ipaddresses.delete("", ip, DeleteOptions())
            except (E.StatusError, KeyNotFoundError, KeyExistsError):
                continue
