"""kube-controller-manager's Endpoints controller (`pkg/controller/endpoint/endpoints_controller.go`): an
Endpoints object per Service with a selector, named as the Service.

`syncService`: a Service that is gone has its Endpoints deleted; an ExternalName Service or one without a
selector is left alone (its Endpoints, if any, are the user's: losing the selector deletes nothing); otherwise
the ready pods' addresses go in `addresses`, the others in `notReadyAddresses` (all in `addresses` with
`publishNotReadyAddresses`), one subset per port, repacked; pods without an IP are skipped, so on a cluster
without nodes the subsets are empty (and omitted). The object carries the Service's labels, plus
`service.kubernetes.io/headless: ""` when the Service has no cluster IP, and the
`endpoints.kubernetes.io/last-change-trigger-time` annotation (`TriggerTimeTracker`; removed when a write has
no new trigger). Nothing is written when subsets and labels already agree. A deleted Endpoints of a Service that
still selects pods is made again (`onEndpointsDelete`).
"""
from __future__ import annotations

import asyncio
import copy
from typing import Any

from .. import apierrors as E
from ..registry import DeleteOptions, ListOptions
from ..registry.endpoints import repack_subsets
from .reads import get_or_none
from .service_endpoints import (FIELD_MANAGER, HEADLESS, TRIGGER_TIME, ServiceEndpointsController, find_port,
                                is_ipv6, is_pod_ready, is_service_ip_set, pod_ips, should_pod_be_in_endpoints,
                                should_set_hostname, target_ref)

OVER_CAPACITY = "endpoints.kubernetes.io/over-capacity"
MAX_CAPACITY = 1000


def _address(svc: dict[str, Any], pod: dict[str, Any]) -> dict[str, Any] | None:
    """`podToEndpointAddressForService`: the pod IP of the Service's (first) IP family."""
    families = (svc.get("spec") or {}).get("ipFamilies") or []
    v6 = families[0] == "IPv6" if families else is_ipv6(str((svc.get("spec") or {}).get("clusterIP", "")))
    ip = next((ip for ip in pod_ips(pod) if is_ipv6(ip) == v6), None)
    if ip is None:
        return None
    addr: dict[str, Any] = {"ip": ip}
    if should_set_hostname(pod, svc):
        addr["hostname"] = pod["spec"]["hostname"]
    node = (pod.get("spec") or {}).get("nodeName")
    if node:
        addr["nodeName"] = node
    addr["targetRef"] = target_ref(pod)
    return addr


def desired_subsets(svc: dict[str, Any], pods: list[dict[str, Any]]) -> list[dict[str, Any]]:
    spec = svc.get("spec") or {}
    publish = bool(spec.get("publishNotReadyAddresses"))
    subsets: list[dict[str, Any]] = []
    for pod in pods:
        if not should_pod_be_in_endpoints(pod, publish):
            continue
        addr = _address(svc, pod)
        if addr is None:
            continue
        field = "addresses" if publish or is_pod_ready(pod) else "notReadyAddresses"
        ports = [p for p in spec.get("ports") or [] if isinstance(p, dict)]
        if not ports:
            if spec.get("clusterIP") == "None":  # a headless Service may have no ports
                subsets.append({field: [addr]})
            continue
        for sp in ports:
            num = find_port(pod, sp)
            if num is None:
                continue
            port = {"name": sp.get("name", ""), "port": num, "protocol": sp.get("protocol", "TCP")}
            if sp.get("appProtocol") is not None:
                port["appProtocol"] = sp["appProtocol"]
            subsets.append({field: [addr], "ports": [{k: v for k, v in port.items() if v != "" or k != "name"}]})
    return repack_subsets(subsets)


def _strip_rv(subsets: Any) -> Any:
    """Subsets without the targets' resourceVersion (`endpointSubsetsEqualIgnoreResourceVersion`)."""
    out = copy.deepcopy(subsets or [])
    for ss in out:
        for field in ("addresses", "notReadyAddresses"):
            for a in ss.get(field) or []:
                (a.get("targetRef") or {}).pop("resourceVersion", None)
    return out


class EndpointsController(ServiceEndpointsController):
    name = "endpoints controller"
    service_account = "endpoint-controller"

    def follow_outputs(self, loop: asyncio.AbstractEventLoop) -> None:
        store = self.registry.content("endpoints")
        if store is None:
            return
        listed = store.list(None, ListOptions(), shared=True)
        for ep in listed["items"]:  # `checkLeftoverEndpoints`: Endpoints whose Service is gone are deleted
            self.services.add((ep["metadata"]["namespace"], ep["metadata"]["name"]))
        _, watcher, _ = store.watch(None, ListOptions(resource_version=listed["metadata"]["resourceVersion"]), loop)
        self._follow(watcher, lambda ev: self.services.add((ev.namespace, ev.name)) if ev.type == "DELETED" else None)

    def sync(self, namespace: str, name: str) -> None:
        store = self.registry.content("endpoints")
        if store is None:
            return
        svc = self.service(namespace, name)
        if svc is None:  # the Service was deleted: so is its Endpoints (a user's too, as upstream)
            self.triggers.delete((namespace, name))
            if namespace == "default" and name == "kubernetes":  # never a controller's (it has no selector)
                return
            try:
                self.writes.delete(store, namespace, name, DeleteOptions())
            except E.StatusError as exc:
                if exc.code != 404:
                    raise
            return
        spec = svc.get("spec") or {}
        if spec.get("type") == "ExternalName" or spec.get("selector") is None:
            return
        pods = self.pods_of(svc)
        trigger = self.triggers.compute((namespace, name), svc, pods)
        subsets = desired_subsets(svc, pods)
        current = get_or_none(store, namespace, name)
        labels = dict(svc["metadata"].get("labels") or {})
        if current is not None:
            cur_labels = {k: v for k, v in (current["metadata"].get("labels") or {}).items() if k != HEADLESS}
            annotations = current["metadata"].get("annotations") or {}
            if _strip_rv(current.get("subsets")) == _strip_rv(subsets) and cur_labels == labels and \
                    OVER_CAPACITY not in annotations:
                return
        new = copy.deepcopy(current) if current is not None else {
            "apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": name, "namespace": namespace}}
        meta = new["metadata"]
        if subsets:
            new["subsets"] = subsets
        else:
            new.pop("subsets", None)
        annotations = dict(meta.get("annotations") or {})
        if trigger:
            annotations[TRIGGER_TIME] = trigger
        else:
            annotations.pop(TRIGGER_TIME, None)
        annotations.pop(OVER_CAPACITY, None)  # (truncation past 1000 addresses is not done here)
        if annotations:
            meta["annotations"] = annotations
        else:
            meta.pop("annotations", None)
        if not is_service_ip_set(svc):
            labels[HEADLESS] = ""
        if labels:
            meta["labels"] = labels
        else:
            meta.pop("labels", None)
        if current is None:
            if not self.namespace_writable(namespace):  # upstream: 403 NamespaceTerminating, the key dropped
                return
            self.writes.create(store, new, field_manager=FIELD_MANAGER)
        else:
            self.writes.update(store, namespace, name, new, field_manager=FIELD_MANAGER)
