"""kube-controller-manager's EndpointSlice mirroring controller (`pkg/controller/endpointslicemirroring/`:
`endpointslicemirroring_controller.go`, `reconciler.go`, `utils.go`).

Endpoints a user writes for a Service **without a selector** get EndpointSlices: labelled with the Endpoints'
labels plus `kubernetes.io/service-name: <name>` and `endpointslice.kubernetes.io/managed-by:
endpointslicemirroring-controller.k8s.io`, its annotations but `endpoints.kubernetes.io/last-change-trigger-time`
and `kubectl.kubernetes.io/last-applied-configuration`, owned by the Endpoints (controller reference, v1
Endpoints), `generateName: <name>-`. Per subset and address type (an address that is neither IPv4 nor IPv6 is
skipped), `addresses` are ready endpoints and `notReadyAddresses` not ready ones (at most 1,000 per subset,
`--mirroring-max-endpoints-per-subset`), with their `targetRef`, `nodeName` and `hostname`; the subset's ports
(`name`, `port`, `protocol`, `appProtocol`). Subsets with the same ports and address type share slices of at
most 100 endpoints (`--mirroring-max-endpoints-per-slice`).

Nothing is mirrored (and mirrored slices are deleted) when the Service is gone or has a selector, when the
Endpoints is gone, is labelled `endpointslice.kubernetes.io/skip-mirror: "true"` or carries the
`control-plane.alpha.kubernetes.io/leader` annotation (`shouldMirror`). A mirrored slice someone else changes or
deletes is put back on the next sync (its event requeues the Endpoints).
"""
from __future__ import annotations

import asyncio
import ipaddress
import json
from typing import Any

from .. import apierrors as E
from ..admission.admitted import AdmissionRefusal
from ..registry import DeleteOptions, ListOptions, Registry
from .endpointslice import GROUP, MANAGED_BY, SERVICE_NAME
from .loop import Controller, WorkQueue
from .reads import get_or_none
from .service_endpoints import FIELD_MANAGER, TRIGGER_TIME, Key

CONTROLLER_NAME = "endpointslicemirroring-controller.k8s.io"
SKIP_MIRROR = "endpointslice.kubernetes.io/skip-mirror"
LEADER = "control-plane.alpha.kubernetes.io/leader"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
MAX_ENDPOINTS_PER_SUBSET = 1000
MAX_ENDPOINTS_PER_SLICE = 100


def address_type(ip: str) -> str | None:
    """`getAddressType`."""
    try:
        return "IPv6" if ipaddress.ip_address(ip).version == 6 else "IPv4"
    except ValueError:
        return None


def should_mirror(ep: dict[str, Any] | None) -> bool:
    """`shouldMirror`: not skip-mirror, not a leader-election lock."""
    if ep is None:
        return False
    meta = ep["metadata"]
    return (meta.get("labels") or {}).get(SKIP_MIRROR) != "true" and LEADER not in (meta.get("annotations") or {})


def _endpoint(address: dict[str, Any], ready: bool) -> dict[str, Any]:
    """`addressToEndpoint`."""
    out: dict[str, Any] = {"addresses": [address.get("ip", "")], "conditions": {"ready": ready}}
    if address.get("hostname"):
        out["hostname"] = address["hostname"]
    if address.get("nodeName"):
        out["nodeName"] = address["nodeName"]
    if address.get("targetRef"):
        out["targetRef"] = address["targetRef"]
    return out


def _ports(ports: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`epPortsToEpsPorts`."""
    out = []
    for p in ports or ():
        port = {"name": p.get("name", ""), "protocol": p.get("protocol", "TCP"), "port": p.get("port")}
        if p.get("appProtocol") is not None:
            port["appProtocol"] = p["appProtocol"]
        out.append(port)
    return out


def desired_endpoints(ep: dict[str, Any]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """(ports as JSON, address type) → endpoints, subsets with equal ports merged, in order."""
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for subset in ep.get("subsets") or ():
        ports = json.dumps(_ports(subset.get("ports") or []), sort_keys=True)
        taken = 0
        for key, ready in (("addresses", True), ("notReadyAddresses", False)):
            for address in subset.get(key) or ():
                if taken >= MAX_ENDPOINTS_PER_SUBSET:
                    break
                kind = address_type(address.get("ip", ""))
                if kind is None:
                    continue
                taken += 1
                out.setdefault((ports, kind), []).append(_endpoint(address, ready))
    return out


class EndpointSliceMirroringController(Controller):
    name = "endpointslice mirroring controller"
    service_account = "endpointslicemirroring-controller"

    def __init__(self, registry: Registry):
        super().__init__()
        self.registry = registry
        self.keys: WorkQueue[Key] = self._queue()

    def _store(self, group: str, plural: str) -> Any:
        return self.registry.group(group, plural) if group else self.registry.content(plural)

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        for group, plural, on_event in (("", "endpoints", self._on_endpoints), ("", "services", self._on_endpoints),
                                        (GROUP, "endpointslices", self._on_slice)):
            store = self._store(group, plural)
            if store is None:
                continue
            listed = store.list(None, ListOptions(), shared=True)
            if plural == "endpoints":
                for ep in listed["items"]:
                    self.keys.add((ep["metadata"]["namespace"], ep["metadata"]["name"]))
            _, watcher, _ = store.watch(None, ListOptions(resource_version=listed["metadata"]["resourceVersion"]),
                                        loop)
            self._follow(watcher, on_event)
        self._work(self.keys, self._sync)

    def _on_endpoints(self, ev: Any) -> None:
        """An Endpoints or Service event: its name is the key (both share it)."""
        self.keys.add((ev.namespace, ev.name))

    def _on_slice(self, ev: Any) -> None:
        labels = ev.object["metadata"].get("labels") or {}
        if labels.get(MANAGED_BY) == CONTROLLER_NAME and labels.get(SERVICE_NAME):
            self.keys.add((ev.namespace, labels[SERVICE_NAME]))

    async def _sync(self, key: Key) -> None:
        try:
            self.sync(*key)
        except AdmissionRefusal:  # a webhook or policy refused the write: `AddRateLimited`
            self.keys.add_after(key, self.backoff(key))
        except E.StatusError as exc:
            if exc.code == 409:
                self.keys.add_after(key, 1.0)
        else:
            self.forget(key)

    def _get(self, plural: str, ns: str, name: str) -> dict[str, Any] | None:
        return get_or_none(self._store("", plural), ns, name)

    def sync(self, ns: str, name: str) -> None:
        slices = self._store(GROUP, "endpointslices")
        if slices is None:
            return
        existing = [s for s in slices.list(ns, ListOptions(
            label_selector=f"{SERVICE_NAME}={name},{MANAGED_BY}={CONTROLLER_NAME}"))["items"]
            if not s["metadata"].get("deletionTimestamp")]
        svc = self._get("services", ns, name)
        ep = self._get("endpoints", ns, name)
        if ep is not None and not self._writable(ns):
            return  # the namespace controller deletes what is there; nothing new is written
        if svc is None or (svc.get("spec") or {}).get("selector") or not should_mirror(ep) or ep is None:
            for s in existing:
                self._delete(slices, s)
            return
        wanted = []
        for (ports, kind), endpoints in desired_endpoints(ep).items():
            for i in range(0, len(endpoints), MAX_ENDPOINTS_PER_SLICE):
                wanted.append(self._slice(ep, kind, json.loads(ports), endpoints[i:i + MAX_ENDPOINTS_PER_SLICE]))
        left = list(existing)
        for want in wanted:
            same = next((s for s in left if s.get("addressType") == want["addressType"]
                         and (s.get("ports") or []) == want["ports"]), None)
            if same is None:
                self.writes.create(slices, want, field_manager=FIELD_MANAGER)
                continue
            left.remove(same)
            meta = same["metadata"]
            if same.get("endpoints") == want["endpoints"] and (meta.get("labels") or {}) == want["metadata"]["labels"] \
                    and (meta.get("annotations") or {}) == want["metadata"].get("annotations", {}) \
                    and (meta.get("ownerReferences") or []) == want["metadata"]["ownerReferences"]:
                continue
            body = {**want, "metadata": {**want["metadata"], "name": meta["name"],
                                         "resourceVersion": meta["resourceVersion"]}}
            body["metadata"].pop("generateName", None)
            self.writes.update(slices, ns, meta["name"], body, field_manager=FIELD_MANAGER)
        for s in left:
            self._delete(slices, s)

    @staticmethod
    def _slice(ep: dict[str, Any], kind: str, ports: list[dict[str, Any]],
               endpoints: list[dict[str, Any]]) -> dict[str, Any]:
        """`newEndpointSlice`."""
        meta = ep["metadata"]
        labels = {**(meta.get("labels") or {}), SERVICE_NAME: meta["name"], MANAGED_BY: CONTROLLER_NAME}
        annotations = {k: v for k, v in (meta.get("annotations") or {}).items() if k not in (TRIGGER_TIME, LAST_APPLIED)}
        out_meta: dict[str, Any] = {"generateName": f'{meta["name"]}-', "namespace": meta["namespace"],
                                    "labels": labels, "ownerReferences": [{
                                        "apiVersion": "v1", "kind": "Endpoints", "name": meta["name"],
                                        "uid": meta["uid"], "controller": True, "blockOwnerDeletion": True}]}
        if annotations:
            out_meta["annotations"] = annotations
        return {"apiVersion": f"{GROUP}/v1", "kind": "EndpointSlice", "metadata": out_meta, "addressType": kind,
                "endpoints": endpoints, "ports": ports}

    def _writable(self, ns: str) -> bool:
        try:
            namespace = self.registry.namespaces.get("", ns)
        except E.StatusError:
            return False
        return not namespace["metadata"].get("deletionTimestamp")

    def _delete(self, store: Any, slice_: dict[str, Any]) -> None:
        try:
            self.writes.delete(store, slice_["metadata"]["namespace"], slice_["metadata"]["name"], DeleteOptions())
        except E.StatusError as exc:
            if exc.code != 404:
                raise
