"""What the Endpoints and EndpointSlice controllers share: a work queue of Services fed by informers on
Services and Pods, and the pod helpers of `staging/src/k8s.io/endpointslice/util` (`ShouldPodBeInEndpoints`,
`IsPodReady`, `FindPort`, `ShouldSetHostname`, the `TriggerTimeTracker`).

A Service is queued when it changes, and when a Pod its selector matches (before or after the change) is
added, changed or deleted (`GetPodServiceMemberships`, `GetServicesToUpdateOnPodChange`). The selectors are kept
from the Service events (the informer's cache); a sync reads the Service and its Pods from the registry.
Nothing is created in a namespace that is gone or terminating (upstream's create meets NamespaceLifecycle's
403 there and drops the key). On a cluster without nodes no pod ever gets an IP, so every Service with a
selector has an empty Endpoints and a placeholder EndpointSlice; pods whose status a client wrote with an IP
are handled as upstream handles them.
"""
from __future__ import annotations

import asyncio
import ipaddress
from typing import Any

from .. import apierrors as E
from ..admission.admitted import AdmissionRefusal, Pending
from ..registry import ListOptions, Registry
from .loop import Controller, WorkQueue
from .reads import get_or_none

Key = tuple[str, str]
TRIGGER_TIME = "endpoints.kubernetes.io/last-change-trigger-time"
HEADLESS = "service.kubernetes.io/headless"
FIELD_MANAGER = "kube-controller-manager"


def is_service_ip_set(svc: dict[str, Any]) -> bool:
    """`helper.IsServiceIPSet`: neither headless (`None`) nor without a cluster IP."""
    ip = (svc.get("spec") or {}).get("clusterIP")
    return bool(ip) and ip != "None"


def is_pod_ready(pod: dict[str, Any]) -> bool:
    return any(c.get("type") == "Ready" and c.get("status") == "True"
               for c in (pod.get("status") or {}).get("conditions") or [] if isinstance(c, dict))


def pod_ips(pod: dict[str, Any]) -> list[str]:
    """`status.podIPs` (v1 conversion fills it from `podIP` when a client wrote only that)."""
    st = pod.get("status") or {}
    ips = [p.get("ip") for p in st.get("podIPs") or [] if isinstance(p, dict) and p.get("ip")]
    return ips or ([st["podIP"]] if st.get("podIP") else [])


def should_pod_be_in_endpoints(pod: dict[str, Any], include_terminating: bool) -> bool:
    """`ShouldPodBeInEndpoints`: not terminal, has an IP, not being deleted (unless terminating ones count)."""
    if (pod.get("status") or {}).get("phase") in ("Failed", "Succeeded"):
        return False
    if not pod_ips(pod):
        return False
    return include_terminating or not pod["metadata"].get("deletionTimestamp")


def is_ipv6(ip: str) -> bool:
    try:
        return ipaddress.ip_address(ip).version == 6
    except ValueError:
        return False


def find_port(pod: dict[str, Any], svc_port: dict[str, Any]) -> int | None:
    """`FindPort`: a numeric targetPort as is; a named one looked up in the containers' (and sidecars') ports."""
    target = svc_port.get("targetPort", svc_port.get("port"))
    if isinstance(target, int):
        return target
    if isinstance(target, str) and target.isdigit():
        return int(target)
    spec = pod.get("spec") or {}
    proto = svc_port.get("protocol", "TCP")
    containers = list(spec.get("containers") or []) + [c for c in spec.get("initContainers") or []
                                                        if isinstance(c, dict) and c.get("restartPolicy") == "Always"]
    for c in containers:
        for p in (c.get("ports") or []) if isinstance(c, dict) else []:
            if isinstance(p, dict) and p.get("name") == target and p.get("protocol", "TCP") == proto:
                return p.get("containerPort")
    return None


def should_set_hostname(pod: dict[str, Any], svc: dict[str, Any]) -> bool:
    spec = pod.get("spec") or {}
    return bool(spec.get("hostname")) and spec.get("subdomain") == svc["metadata"]["name"] and \
        svc["metadata"].get("namespace") == pod["metadata"].get("namespace")


def target_ref(pod: dict[str, Any]) -> dict[str, Any]:
    m = pod["metadata"]
    return {"kind": "Pod", "namespace": m.get("namespace", ""), "name": m.get("name", ""), "uid": m.get("uid", "")}


def _matches(selector: dict[str, str], labels: dict[str, str]) -> bool:
    """`labels.Set(selector).AsSelectorPreValidated()`: every key equal (a Service selector is a plain map)."""
    return all(labels.get(k) == v for k, v in selector.items())


class TriggerTimeTracker:
    """`TriggerTimeTracker.ComputeEndpointLastChangeTriggerTime`: a Service seen for the first time gives its
    creationTimestamp; later, the earliest pod Ready transition (or Service creation) newer than last time, or
    "" (the annotation is then removed on the next write)."""

    def __init__(self) -> None:
        self._state: dict[Key, tuple[str, dict[str, str]]] = {}

    def compute(self, key: Key, svc: dict[str, Any], pods: list[dict[str, Any]]) -> str:
        known = key in self._state
        last_svc, last_pods = self._state.get(key, ("", {}))
        changed: list[str] = []
        now_pods: dict[str, str] = {}
        for pod in pods:
            t = next((c.get("lastTransitionTime") or "" for c in (pod.get("status") or {}).get("conditions") or []
                      if isinstance(c, dict) and c.get("type") == "Ready"), "")
            if t:
                now_pods[pod["metadata"]["name"]] = t
                if t > last_pods.get(pod["metadata"]["name"], ""):
                    changed.append(t)
        svc_time = svc["metadata"].get("creationTimestamp") or ""
        if svc_time > last_svc:
            changed.append(svc_time)
        self._state[key] = (svc_time, now_pods)
        if not known:
            return svc_time
        return min(changed) if changed else ""

    def delete(self, key: Key) -> None:
        self._state.pop(key, None)

    def snapshot(self, key: Key) -> tuple[str, dict[str, str]] | None:
        return self._state.get(key)

    def restore(self, key: Key, state: tuple[str, dict[str, str]] | None) -> None:
        """A sync stopped before its write (admission pending) computes again from where it started."""
        if state is None:
            self._state.pop(key, None)
        else:
            self._state[key] = state


class ServiceEndpointsController(Controller):
    """Base: queue Services on Service and Pod events; subclasses write `sync` (and may follow their output)."""

    def __init__(self, registry: Registry):
        super().__init__()
        self.registry = registry
        self.services: WorkQueue[Key] = self._queue()
        self._selectors: dict[str, dict[str, dict[str, str]]] = {}  # namespace → service → selector (the cache)
        self.triggers = TriggerTimeTracker()

    def start(self) -> None:
        """List-then-watch Services and Pods, then start the worker; on the server's event loop."""
        loop = asyncio.get_running_loop()
        for resource, on_event in (("services", self._on_service), ("pods", self._on_pod)):
            store = self.registry.content(resource)
            if store is None:
                continue
            listed = store.list(None, ListOptions(), shared=True)
            if resource == "services":
                for svc in listed["items"]:
                    self._remember(svc)
                    self.services.add((svc["metadata"]["namespace"], svc["metadata"]["name"]))
            _, watcher, _ = store.watch(None, ListOptions(resource_version=listed["metadata"]["resourceVersion"]),
                                        loop)
            self._follow(watcher, on_event)
        self.follow_outputs(loop)
        self._work(self.services, self._sync)

    def follow_outputs(self, loop: asyncio.AbstractEventLoop) -> None:
        """Watch what this controller writes (to put back what others delete or change)."""

    # ---- informers ---------------------------------------------------------------------------------
    def _remember(self, svc: dict[str, Any]) -> None:
        m = svc["metadata"]
        selector = (svc.get("spec") or {}).get("selector")
        ns_selectors = self._selectors.setdefault(m["namespace"], {})
        if isinstance(selector, dict) and selector:
            ns_selectors[m["name"]] = selector
        else:
            ns_selectors.pop(m["name"], None)

    def _on_service(self, ev: Any) -> None:
        if ev.type == "DELETED":
            self._selectors.get(ev.namespace, {}).pop(ev.name, None)
        else:
            self._remember(ev.object)
        self.services.add((ev.namespace, ev.name))

    def _on_pod(self, ev: Any) -> None:
        selectors = self._selectors.get(ev.namespace)
        if not selectors:
            return
        labels = [ev.object["metadata"].get("labels") or {}]
        if ev.type == "MODIFIED" and ev.prev is not None:
            labels.append(ev.prev["metadata"].get("labels") or {})
        for name, selector in selectors.items():
            if any(_matches(selector, lab) for lab in labels):
                self.services.add((ev.namespace, name))

    # ---- sync helpers --------------------------------------------------------------------------------
    async def _sync(self, key: Key) -> None:
        before = self.triggers.snapshot(key)
        try:
            self.sync(*key)
        except Pending:
            self.triggers.restore(key, before)
            raise
        except AdmissionRefusal:  # a webhook or policy refused the write: `handleErr`'s `AddRateLimited`
            self.services.add_after(key, self.backoff(key))
        except E.StatusError as exc:  # a write raced another (409) or met a 422: the next event brings us back
            if exc.code == 409:
                self.services.add_after(key, 1.0)
        else:
            self.forget(key)

    def sync(self, namespace: str, name: str) -> None:
        raise NotImplementedError

    def service(self, namespace: str, name: str) -> dict[str, Any] | None:
        return get_or_none(self.registry.content("services"), namespace, name)

    def pods_of(self, svc: dict[str, Any]) -> list[dict[str, Any]]:
        """The Service's namespace's pods its selector matches (`podLister.List(selector)`)."""
        pods = self.registry.content("pods")
        selector = (svc.get("spec") or {}).get("selector") or {}
        if pods is None:
            return []
        return [p for p in pods.list(svc["metadata"]["namespace"], ListOptions(), shared=True)["items"]
                if _matches(selector, p["metadata"].get("labels") or {})]

    def namespace_writable(self, namespace: str) -> bool:
        """False for a namespace that is gone or terminating: creates there would be refused."""
        ns = get_or_none(self.registry.namespaces, "", namespace)
        return ns is not None and not ns["metadata"].get("deletionTimestamp")

