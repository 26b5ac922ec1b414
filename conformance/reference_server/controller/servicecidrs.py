"""kube-controller-manager's `service-cidr-controller`: every ServiceCIDR gets the protection finalizer and a Ready
condition; one being deleted keeps its finalizer while an IPAddress only it contains is left (Ready False,
reason Terminating), then loses it `deletionGracePeriod` (10 s) after its deletion timestamp, so that the
allocators (registry/serviceip.py) have stopped using it.

Upstream: `pkg/controller/servicecidrs/servicecidrs_controller.go` (`sync`, `canDeleteCIDR`,
`addServiceCIDRFinalizerIfNeeded` / `removeServiceCIDRFinalizerIfNeeded` as strategic-merge patches, the status
as a forced apply by `service-cidr-controller`; its informer handlers: a ServiceCIDR's own events, the ones it
overlaps when added, and the ServiceCIDRs containing an allocator-managed IPAddress added or deleted),
`pkg/api/servicecidr/servicecidr.go` (`ContainsPrefix`, `ContainsAddress`, `OverlapsPrefix`), and
`cmd/kube-controller-manager/app/networking.go` (client `service-cidrs-controller`). Its one Event: the Warning
`KubernetesServiceCIDRError` when the Ready status cannot be written (here: a webhook or policy refused it), the
sync retried.
"""
from __future__ import annotations

import datetime as _dt
import ipaddress
from typing import Any

from .. import apierrors as E
from ..admission.admitted import AdmissionRefusal
from ..registry import ListOptions, Registry
from ..registry.meta import now, parse_time
from ..registry.servicecidr import ALLOCATOR, FINALIZER, GROUP, LABEL_MANAGED_BY, VERSION
from .events import WARNING, EventRecorder
from .loop import Controller
from .reads import get_or_none

CONTROLLER_NAME = "service-cidr-controller"  # its status applies' field manager
PATCH_MANAGER = "kube-controller-manager"  # its patches' (the client's user agent)
DELETION_GRACE_PERIOD = 10.0  # deletionGracePeriod
READY_MESSAGE = "Kubernetes Service CIDR is ready"
TERMINATING_MESSAGE = ("There are still IPAddresses referencing the ServiceCIDR, please remove them or create a new "
                       "ServiceCIDR")


def _networks(cidr: dict[str, Any]) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    out = []
    for text in (cidr.get("spec") or {}).get("cidrs") or []:
        try:
            out.append(ipaddress.ip_network(text))
        except (TypeError, ValueError):
            continue
    return out


def _name(obj: dict[str, Any]) -> str:
    return (obj.get("metadata") or {}).get("name") or ""


def contains_prefix(cidrs: list[dict[str, Any]], prefix: Any) -> list[str]:
    """`ContainsPrefix`: the ServiceCIDRs with a CIDR holding `prefix` (equal included)."""
    return [_name(c) for c in cidrs if any(n.version == prefix.version and prefix.subnet_of(n) for n in _networks(c))]


def contains_address(cidrs: list[dict[str, Any]], address: Any) -> list[str]:
    """`ContainsAddress`: the ServiceCIDRs with a CIDR holding `address`."""
    return [_name(c) for c in cidrs if any(address in n for n in _networks(c))]


def overlapping(cidrs: list[dict[str, Any]], cidr: dict[str, Any]) -> list[str]:
    """`OverlapsPrefix` for each CIDR of `cidr`."""
    mine = _networks(cidr)
    return [_name(c) for c in cidrs if any(n.version == m.version and n.overlaps(m) for n in _networks(c) for m in mine)]


def can_delete(cidrs: list[dict[str, Any]], ipaddresses: list[dict[str, Any]], cidr: dict[str, Any]) -> bool:
    """`canDeleteCIDR`: contained in another ServiceCIDR, or no allocator-managed IPAddress of its families has it
    as its only ServiceCIDR."""
    name = _name(cidr)
    has_parent = True
    for net in _networks(cidr):
        holders = contains_prefix(cidrs, net)
        if not holders or holders == [name]:
            has_parent = False
    if has_parent:
        return True
    families = {n.version for n in _networks(cidr)}
    for ip in ipaddresses:
        if ((ip.get("metadata") or {}).get("labels") or {}).get(LABEL_MANAGED_BY) != ALLOCATOR:
            continue
        try:
            address = ipaddress.ip_address(_name(ip))
        except ValueError:
            continue
        if address.version in families and contains_address(cidrs, address) == [name]:
            return False
    return True


def _ready(status: str, reason: str, message: str) -> dict[str, Any]:
    return {"type": "Ready", "status": status, "lastTransitionTime": now(), "reason": reason, "message": message}


class ServiceCIDRsController(Controller):
    """The finalizer, Ready condition and deletion of every ServiceCIDR."""

    name = CONTROLLER_NAME
    service_account = "service-cidrs-controller"

    def __init__(self, registry: Registry, admission: Any = None):
        super().__init__()
        self.registry = registry
        self.recorder = EventRecorder(registry, CONTROLLER_NAME, admission)
        self.keys = self._queue()

    def _cidrs(self) -> list[dict[str, Any]]:
        return self.registry.store.list("servicecidrs", None, shared=True)[0]

    def start(self) -> None:
        cidrs, ips = self.registry.group(GROUP, "servicecidrs"), self.registry.group(GROUP, "ipaddresses")
        if cidrs is None or ips is None:
            return
        self._inform(cidrs, self._on_cidr)
        self._inform(ips, self._on_ipaddress)
        self._work(self.keys, self._sync)

    def _on_cidr(self, ev: Any) -> None:
        self.keys.add(ev.name)
        if ev.type == "ADDED":  # `addServiceCIDR`: the ones it overlaps may now be deletable
            for name in overlapping(self._cidrs(), ev.object):
                self.keys.add(name)

    def _on_ipaddress(self, ev: Any) -> None:
        if ev.type == "MODIFIED":
            return
        if ((ev.object.get("metadata") or {}).get("labels") or {}).get(LABEL_MANAGED_BY) != ALLOCATOR:
            return
        try:
            address = ipaddress.ip_address(ev.name)
        except ValueError:
            return
        for name in contains_address(self._cidrs(), address):
            self.keys.add(name)

    async def _sync(self, name: str) -> None:
        try:
            self._reconcile(name)
        except AdmissionRefusal as exc:
            self.refused(self.keys, name, exc)
            return
        except E.StatusError as exc:
            if exc.code not in (404, 409):
                raise
            if exc.code == 409:  # changed meanwhile: again
                self.keys.add_after(name, self.backoff(name))
            return
        self.forget(name)

    def _reconcile(self, name: str) -> None:
        store = self.registry.group(GROUP, "servicecidrs")
        ips = self.registry.group(GROUP, "ipaddresses")
        assert store is not None and ips is not None
        cidr = get_or_none(store, "", name)
        if cidr is None:
            return
        meta = cidr.get("metadata") or {}
        if meta.get("deletionTimestamp"):
            items = ips.list(None, ListOptions(), shared=True)["items"]
            if not can_delete(self._cidrs(), items, cidr):
                self._apply_ready(store, cidr, _ready("False", "Terminating", TERMINATING_MESSAGE))
                return
            since = parse_time(meta["deletionTimestamp"])
            elapsed = (_dt.datetime.now(_dt.timezone.utc) - since).total_seconds() if since else DELETION_GRACE_PERIOD
            if elapsed < DELETION_GRACE_PERIOD:
                self.keys.add_after(name, DELETION_GRACE_PERIOD - elapsed)
                return
            if FINALIZER in (meta.get("finalizers") or []):
                self.writes.update(store, "", name, transform=_without_finalizer, field_manager=PATCH_MANAGER)
            return
        if FINALIZER not in (meta.get("finalizers") or []):
            cidr = self.writes.update(store, "", name, transform=_with_finalizer, field_manager=PATCH_MANAGER)
        try:
            self._apply_ready(store, cidr, _ready("True", "", READY_MESSAGE))
        except AdmissionRefusal:
            self.recorder.event(cidr, WARNING, "KubernetesServiceCIDRError",
                                "The ServiceCIDR Status can not be set to Ready=True")
            raise

    def _apply_ready(self, store: Any, cidr: dict[str, Any], cond: dict[str, Any]) -> None:
        """The forced status apply of the Ready condition; nothing written when it would change nothing (the
        same condition within the same second: upstream's apply is then a no-op)."""
        current = next((c for c in (cidr.get("status") or {}).get("conditions") or []
                        if isinstance(c, dict) and c.get("type") == "Ready"), None)
        if current is not None and all(current.get(k, "") == cond[k] for k in
                                       ("status", "reason", "message", "lastTransitionTime")):
            return
        applied = {k: v for k, v in cond.items() if v != ""}  # the apply configuration sets no empty reason
        config = {"apiVersion": f"{GROUP}/{VERSION}", "kind": "ServiceCIDR", "metadata": {"name": _name(cidr)},
                  "status": {"conditions": [applied]}}
        fm = store.field_manager

        def transform(live: dict[str, Any]) -> dict[str, Any]:
            out = fm.apply(live, config, CONTROLLER_NAME, True, "status")
            for c in (out.get("status") or {}).get("conditions") or []:
                c.setdefault("reason", "")  # a Go string without omitempty
            return out
        self.writes.update(store, "", _name(cidr), transform=transform, strategy=store.status_strategy,
                           manage=lambda _live, new: new)


def _with_finalizer(obj: dict[str, Any]) -> dict[str, Any]:
    """The strategic-merge patch `{"metadata":{"finalizers":[F]}}`: merged into the list."""
    finalizers = list((obj.get("metadata") or {}).get("finalizers") or [])
    if FINALIZER not in finalizers:
        finalizers.append(FINALIZER)
    return {**obj, "metadata": {**obj["metadata"], "finalizers": finalizers}}


def _without_finalizer(obj: dict[str, Any]) -> dict[str, Any]:
    """`$deleteFromPrimitiveList/finalizers`."""
    meta = dict(obj["metadata"])
    finalizers = [f for f in meta.get("finalizers") or [] if f != FINALIZER]
    if finalizers:
        meta["finalizers"] = finalizers
    else:
        meta.pop("finalizers", None)
    return {**obj, "metadata": meta}
