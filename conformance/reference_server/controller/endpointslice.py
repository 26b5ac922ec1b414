"""kube-controller-manager's EndpointSlice controller (`pkg/controller/endpointslice/endpointslice_controller.go`,
the reconciler `staging/src/k8s.io/endpointslice/reconciler.go` and `utils.go`).

For a Service with a selector (not ExternalName), per address type of its `ipFamilies`, the slices labelled
`kubernetes.io/service-name: <svc>` and `endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io`,
owned by the Service (`ownerReferences`: v1 Service, `controller` and `blockOwnerDeletion` true), named from
`generateName: <svc>-`, carry the Service's labels (reserved keys aside, plus `service.kubernetes.io/headless`
when it has no cluster IP) and the `endpoints.kubernetes.io/last-change-trigger-time` annotation. A pod is an
endpoint when it has an IP of that family and its node exists (or the Service publishes not-ready addresses);
on a cluster without nodes none is, so each Service gets the **placeholder** slice: `endpoints` and `ports` null
(upstream writes empty lists, which its protobuf storage reads back as null), kept as long as nothing changes.
A Service without a selector keeps whatever slices it had (the controller leaves it alone, as upstream).

Deleted Services: upstream's controller deletes nothing; the garbage collector removes the slices through their
ownerReference (Background propagation). Until this server has a garbage collector, this controller deletes the
slices a gone Service owned, once, as the GC would (the effect is the same; with a GC both race harmlessly: a
404 is fine). A managed slice someone else deletes or changes is put back (the slice tracker's expectations:
the controller knows the resourceVersions it wrote, and an event on another one requeues the Service after 1 s,
`endpointSliceChangeMinSyncDelay`).
"""
from __future__ import annotations

import asyncio
import copy
from typing import Any

from .. import apierrors as E
from ..registry import DeleteOptions, ListOptions
from .reads import get_or_none
from .service_endpoints import (FIELD_MANAGER, HEADLESS, TRIGGER_TIME, Key, ServiceEndpointsController, find_port,
                                is_ipv6, is_pod_ready, is_service_ip_set, pod_ips, should_pod_be_in_endpoints,
                                should_set_hostname, target_ref)

GROUP = "discovery.k8s.io"
SERVICE_NAME = "kubernetes.io/service-name"
MANAGED_BY = "endpointslice.kubernetes.io/managed-by"
CONTROLLER_NAME = "endpointslice-controller.k8s.io"
RESERVED = (SERVICE_NAME, MANAGED_BY, HEADLESS)
MAX_ENDPOINTS_PER_SLICE = 100  # --max-endpoints-per-slice
CHANGE_MIN_SYNC_DELAY = 1.0    # endpointSliceChangeMinSyncDelay


def address_types(svc: dict[str, Any]) -> list[str]:
    """`getAddressTypesForService`: from ipFamilies; else the cluster IP's family; headless: both."""
    spec = svc.get("spec") or {}
    types = [f for f in ("IPv4", "IPv6") if f in (spec.get("ipFamilies") or [])]
    if types:
        return types
    ip = spec.get("clusterIP")
    if ip and ip != "None":
        return ["IPv6" if is_ipv6(ip) else "IPv4"]
    return ["IPv4", "IPv6"]


def slice_labels(svc: dict[str, Any]) -> dict[str, str]:
    """`setEndpointSliceLabels`: the Service's labels but the reserved keys, then the reserved ones."""
    labels = {k: v for k, v in (svc["metadata"].get("labels") or {}).items() if k not in RESERVED}
    if not is_service_ip_set(svc):
        labels[HEADLESS] = ""
    labels[SERVICE_NAME] = svc["metadata"]["name"]
    labels[MANAGED_BY] = CONTROLLER_NAME
    return labels


def owner_reference(svc: dict[str, Any]) -> dict[str, Any]:
    """`metav1.NewControllerRef(service, v1 Service)`."""
    return {"apiVersion": "v1", "kind": "Service", "name": svc["metadata"]["name"], "uid": svc["metadata"]["uid"],
            "controller": True, "blockOwnerDeletion": True}


def owned_by(slice_: dict[str, Any], uid: str) -> bool:
    return any(o.get("uid") == uid and o.get("kind") == "Service" and o.get("apiVersion") == "v1"
               for o in slice_["metadata"].get("ownerReferences") or [])


def _prefix(name: str) -> str:
    """`getEndpointSlicePrefix`: `<svc>-` (a Service name always leaves room for it)."""
    return f"{name}-"


def endpoint_ports(svc: dict[str, Any], pod: dict[str, Any]) -> list[dict[str, Any]]:
    """`getEndpointPorts`: name, port, protocol (and appProtocol) per Service port the pod has."""
    spec = svc.get("spec") or {}
    out = []
    for sp in spec.get("ports") or []:
        num = find_port(pod, sp) if isinstance(sp, dict) else None
        if num is None:
            continue
        port = {"name": sp.get("name", ""), "port": num, "protocol": sp.get("protocol", "TCP")}
        if sp.get("appProtocol") is not None:
            port["appProtocol"] = sp["appProtocol"]
        out.append(port)
    return out


def pod_endpoint(pod: dict[str, Any], node: dict[str, Any] | None, svc: dict[str, Any],
                 address_type: str) -> dict[str, Any]:
    """`podToEndpoint`."""
    serving = is_pod_ready(pod)
    terminating = bool(pod["metadata"].get("deletionTimestamp"))
    publish = bool((svc.get("spec") or {}).get("publishNotReadyAddresses"))
    ep: dict[str, Any] = {
        "addresses": [ip for ip in pod_ips(pod) if is_ipv6(ip) == (address_type == "IPv6")],
        "conditions": {"ready": publish or (serving and not terminating), "serving": serving,
                       "terminating": terminating},
        "targetRef": target_ref(pod)}
    if should_set_hostname(pod, svc):
        ep["hostname"] = pod["spec"]["hostname"]
    if (pod.get("spec") or {}).get("nodeName"):
        ep["nodeName"] = pod["spec"]["nodeName"]
    zone = ((node or {}).get("metadata", {}).get("labels") or {}).get("topology.kubernetes.io/zone")
    if zone:
        ep["zone"] = zone
    return ep


class EndpointSliceController(ServiceEndpointsController):
    name = "endpointslice controller"
    service_account = "endpointslice-controller"

    def __init__(self, registry: Any):
        super().__init__(registry)
        self._written: dict[Key, str] = {}  # slice → the resourceVersion this controller last wrote
        self._owners: dict[Key, str] = {}   # service → uid, to delete the slices of a Service that is gone

    def _slices(self) -> Any:
        return self.registry.group(GROUP, "endpointslices")

    def follow_outputs(self, loop: asyncio.AbstractEventLoop) -> None:
        store = self._slices()
        if store is None:
            return
        rv = str(self.registry.store.current_rv())
        _, watcher, _ = store.watch(None, ListOptions(resource_version=rv), loop)
        self._follow(watcher, self._on_slice)

    def _on_slice(self, ev: Any) -> None:
        labels = ev.object["metadata"].get("labels") or {}
        if labels.get(MANAGED_BY) != CONTROLLER_NAME or not labels.get(SERVICE_NAME):
            return
        key = (ev.namespace, ev.name)
        if ev.type == "DELETED":
            expected = self._written.pop(key, None) == "deleted"
        else:
            expected = self._written.get(key) == ev.object["metadata"].get("resourceVersion")
        if not expected:
            self.services.add_after((ev.namespace, labels[SERVICE_NAME]), CHANGE_MIN_SYNC_DELAY)

    # ---- sync -------------------------------------------------------------------------------------
    def sync(self, namespace: str, name: str) -> None:
        store = self._slices()
        if store is None:
            return
        svc = self.service(namespace, name)
        if svc is None:
            self.triggers.delete((namespace, name))
            uid = self._owners.get((namespace, name))
            if uid:  # (forgotten only once done: a sync stopped by pending admission comes back for it)
                self._collect_garbage(store, namespace, name, uid)
            self._owners.pop((namespace, name), None)
            return
        self._owners[(namespace, name)] = svc["metadata"]["uid"]
        spec = svc.get("spec") or {}
        if spec.get("type") == "ExternalName" or spec.get("selector") is None:
            return
        selector = f"{SERVICE_NAME}={name},{MANAGED_BY}={CONTROLLER_NAME}"
        existing = [s for s in store.list(namespace, ListOptions(label_selector=selector))["items"]
                    if not s["metadata"].get("deletionTimestamp")]
        pods = self.pods_of(svc)
        trigger = self.triggers.compute((namespace, name), svc, pods)
        types = address_types(svc)
        for stale in [s for s in existing if s.get("addressType") not in types]:
            self._delete(store, stale)
        for address_type in types:
            self._reconcile(store, svc, pods, [s for s in existing if s.get("addressType") == address_type],
                            address_type, trigger)

    def _desired(self, svc: dict[str, Any], pods: list[dict[str, Any]], address_type: str
                 ) -> dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
        """Port map (as a key) → (ports, endpoints) of the pods that are endpoints."""
        nodes = self.registry.cluster("nodes")
        publish = bool((svc.get("spec") or {}).get("publishNotReadyAddresses"))
        out: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {}
        for pod in pods:
            if not should_pod_be_in_endpoints(pod, True):
                continue
            ports = endpoint_ports(svc, pod)
            node_name = (pod.get("spec") or {}).get("nodeName") or ""
            node = get_or_none(nodes, "", node_name) if node_name else None
            if node is None and not publish:  # upstream: "skipping Pod for Service, Node not found"
                continue
            ep = pod_endpoint(pod, node, svc, address_type)
            if ep["addresses"]:
                out.setdefault(repr(sorted(map(sorted, (p.items() for p in ports)))), (ports, []))[1].append(ep)
        return out

    def _reconcile(self, store: Any, svc: dict[str, Any], pods: list[dict[str, Any]], existing: list[dict[str, Any]],
                   address_type: str, trigger: str) -> None:
        """`reconcileByAddressType`, for the few endpoints a cluster without nodes can have: per port map, fill
        the slices owned by the Service in order (100 per slice), create what is missing, delete the rest; with
        no endpoint at all, one placeholder (kept as it is when it already exists)."""
        uid = svc["metadata"]["uid"]
        labels = slice_labels(svc)
        owned = [s for s in existing if owned_by(s, uid)]
        to_delete = [s for s in existing if not owned_by(s, uid)]
        desired = self._desired(svc, pods, address_type)
        writes: list[tuple[dict[str, Any] | None, dict[str, Any]]] = []  # (current or None, wanted)
        for ports, endpoints in desired.values():
            same_ports = [s for s in owned if (s.get("ports") or []) == ports]
            chunks = [endpoints[i:i + MAX_ENDPOINTS_PER_SLICE]
                      for i in range(0, len(endpoints), MAX_ENDPOINTS_PER_SLICE)]
            for i, chunk in enumerate(chunks):
                current = same_ports[i] if i < len(same_ports) else None
                writes.append((current, self._slice(svc, address_type, ports, chunk, labels, current)))
            owned = [s for s in owned if s not in same_ports[:len(chunks)]]
        to_delete += owned  # port maps no longer wanted, or slices past what the endpoints fill
        if not writes:
            placeholder = next((s for s in to_delete if owned_by(s, uid) and not s.get("endpoints")
                                and not s.get("ports") and _labels(s) == labels), None)
            if placeholder is not None:  # `placeholderSliceCompare`: kept, not deleted and made again
                to_delete.remove(placeholder)
            else:
                writes.append((None, self._slice(svc, address_type, None, None, labels, None)))
        for current, wanted in writes:
            if current is None:
                reuse = next((s for s in to_delete if owned_by(s, uid)), None)  # `finalize`: a create becomes an
                if reuse is not None:                                           # update of a slice to delete
                    to_delete.remove(reuse)
                    current = reuse
                    wanted = {**wanted, "metadata": {**copy.deepcopy(reuse["metadata"]), "labels": labels}}
            self._write(store, svc, current, wanted, trigger)
        for s in to_delete:
            self._delete(store, s)

    @staticmethod
    def _slice(svc: dict[str, Any], address_type: str, ports: list[dict[str, Any]] | None,
               endpoints: list[dict[str, Any]] | None, labels: dict[str, str],
               current: dict[str, Any] | None) -> dict[str, Any]:
        if current is not None:
            meta = {**copy.deepcopy(current["metadata"]), "labels": labels}
        else:
            meta = {"generateName": _prefix(svc["metadata"]["name"]), "namespace": svc["metadata"]["namespace"],
                    "labels": labels, "ownerReferences": [owner_reference(svc)]}
        return {"apiVersion": f"{GROUP}/v1", "kind": "EndpointSlice", "metadata": meta, "addressType": address_type,
                "endpoints": endpoints or None, "ports": ports or None}

    def _write(self, store: Any, svc: dict[str, Any], current: dict[str, Any] | None, wanted: dict[str, Any],
               trigger: str) -> None:
        unchanged = current is not None and all(current.get(k) == wanted.get(k)
                                                for k in ("addressType", "endpoints", "ports")) \
            and _labels(current) == wanted["metadata"]["labels"]
        if unchanged:
            return
        meta = wanted["metadata"]
        annotations = dict(meta.get("annotations") or {})
        if trigger:
            annotations[TRIGGER_TIME] = trigger
        else:
            annotations.pop(TRIGGER_TIME, None)
        if annotations:
            meta["annotations"] = annotations
        else:
            meta.pop("annotations", None)
        ns = svc["metadata"]["namespace"]
        if current is None:
            if svc["metadata"].get("deletionTimestamp") or not self.namespace_writable(ns):
                return  # no creates for a Service being deleted, nor in a terminating namespace
            out = self.writes.create(store, wanted, field_manager=FIELD_MANAGER)
        else:
            out = self.writes.update(store, ns, current["metadata"]["name"], wanted, field_manager=FIELD_MANAGER)
        self._written[(ns, out["metadata"]["name"])] = out["metadata"]["resourceVersion"]

    def _delete(self, store: Any, slice_: dict[str, Any]) -> None:
        ns, name = slice_["metadata"]["namespace"], slice_["metadata"]["name"]
        self._written[(ns, name)] = "deleted"
        try:
            self.writes.delete(store, ns, name, DeleteOptions())
        except E.StatusError as exc:
            if exc.code != 404:
                raise

    def _collect_garbage(self, store: Any, namespace: str, name: str, uid: str) -> None:
        """What the garbage collector does for a deleted Service: delete the slices it owned."""
        selector = f"{SERVICE_NAME}={name},{MANAGED_BY}={CONTROLLER_NAME}"
        for s in store.list(namespace, ListOptions(label_selector=selector))["items"]:
            if owned_by(s, uid):
                self._delete(store, s)


def _labels(slice_: dict[str, Any]) -> dict[str, str]:
    return dict(slice_["metadata"].get("labels") or {})
