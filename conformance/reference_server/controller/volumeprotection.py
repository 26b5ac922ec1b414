"""kube-controller-manager's storage-object protection controllers:

* `pvc-protection` (`pkg/controller/volume/pvcprotection/pvc_protection_controller.go`): a claim being deleted
  loses its `kubernetes.io/pvc-protection` finalizer once no pod uses it. `podUsesPVC` counts only pods bound
  to a node (the kubelet refuses to start a pod whose claim is being deleted), so on a cluster without nodes
  the finalizer goes at once and a namespace holding a claim still deletes.
* `pv-protection` (`pkg/controller/volume/pvprotection/pv_protection_controller.go`): a volume being deleted
  loses `kubernetes.io/pv-protection` unless it is `Bound`.

The PV controller (binding, phases, reclaim) is controller/persistentvolume.py.
"""
from __future__ import annotations

import asyncio
import copy
import logging
from typing import Any

from .. import apierrors as E
from ..admission.admitted import AdmissionRefusal, ControllerWrites
from ..admission.storageprotection import PV_PROTECTION, PVC_PROTECTION
from ..registry import ListOptions, Registry
from .loop import Controller

log = logging.getLogger("nsconform.reference_server.controller")
FIELD_MANAGER = "kube-controller-manager"
Key = tuple[str, str, str]  # (plural, namespace, name)


def pod_uses_claim(pod: dict[str, Any], claim: str) -> bool:
    """`podUsesPVC`: a pod bound to a node naming the claim in a volume (or its generic ephemeral volume's)."""
    spec = pod.get("spec") or {}
    if not spec.get("nodeName"):
        return False
    pod_name = pod["metadata"].get("name", "")
    for v in spec.get("volumes") or []:
        if not isinstance(v, dict):
            continue
        if (v.get("persistentVolumeClaim") or {}).get("claimName") == claim:
            return True
        if v.get("ephemeral") is not None and f"{pod_name}-{v.get('name', '')}" == claim \
                and (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed"):
            return True
    return False


class VolumeProtectionController(Controller):
    name = "volume protection controllers"
    service_account = "pvc-protection-controller"  # and the PV one's, `pv_writes`

    def __init__(self, registry: Registry):
        super().__init__()
        self.registry = registry
        self.keys = self._queue()
        self.pv_writes = self.writes

    def use_webhooks(self, hooks: Any, offload: Any = None) -> None:
        """Two controllers upstream, two clients: `pvc-protection-controller`, `pv-protection-controller`."""
        super().use_webhooks(hooks, offload)
        self.pv_writes = ControllerWrites(hooks, "pv-protection-controller", offload)

    def _store(self, plural: str) -> Any:
        return self.registry.content(plural) if plural == "persistentvolumeclaims" else self.registry.cluster(plural)

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        rv = str(self.registry.store.current_rv())
        for plural in ("persistentvolumeclaims", "persistentvolumes"):
            store = self._store(plural)
            if store is None:
                continue
            self._inform(store, lambda ev, p=plural: self._on(p, ev))
        pods = self.registry.content("pods")
        if pods is not None:
            _, pw, _ = pods.watch(None, ListOptions(resource_version=rv), loop)
            self._follow(pw, self._on_pod)
        self._work(self.keys, self._sync)

    def _on(self, plural: str, ev: Any) -> None:
        if ev.type != "DELETED":
            self.keys.add((plural, ev.namespace or "", ev.name))

    def _on_pod(self, ev: Any) -> None:
        """A pod's change may free the claims it names (`podAddedDeletedUpdated`)."""
        for v in (ev.object.get("spec") or {}).get("volumes") or []:
            claim = (v.get("persistentVolumeClaim") or {}).get("claimName") if isinstance(v, dict) else None
            if claim:
                self.keys.add(("persistentvolumeclaims", ev.namespace or "", claim))

    async def _sync(self, key: Key) -> None:
        plural, ns, name = key
        store = self._store(plural)
        try:
            obj = store.get(ns, name)
        except E.StatusError:
            return
        try:
            if plural == "persistentvolumeclaims":
                self._sync_claim(store, obj)
            else:
                self._sync_volume(store, obj)
        except AdmissionRefusal as exc:  # a webhook or policy refused the write: `AddRateLimited`
            log.info("%s: %s %s/%s: %s", self.name, plural, ns, name, exc.message)
            self.keys.add_after(key, self.backoff(key))
            return
        except E.StatusError as exc:
            if exc.code == 409:
                self.keys.add_after(key, 0.05)
            elif exc.code != 404:
                log.info("%s: %s %s/%s: %s", self.name, plural, ns, name, exc.message)

    def _remove_finalizer(self, store: Any, obj: dict[str, Any], finalizer: str) -> None:
        meta = obj["metadata"]

        def drop(cur: dict[str, Any]) -> dict[str, Any]:
            new = copy.deepcopy(cur)
            new["metadata"]["finalizers"] = [f for f in cur["metadata"].get("finalizers") or [] if f != finalizer]
            if not new["metadata"]["finalizers"]:
                del new["metadata"]["finalizers"]
            return new
        writes = self.writes if store.info.plural == "persistentvolumeclaims" else self.pv_writes
        writes.update(store, meta.get("namespace", ""), meta["name"], transform=drop, field_manager=FIELD_MANAGER)

    def _sync_claim(self, store: Any, claim: dict[str, Any]) -> None:
        meta = claim["metadata"]
        if not meta.get("deletionTimestamp") or PVC_PROTECTION not in (meta.get("finalizers") or []):
            return
        pods = self.registry.content("pods")
        items = pods.list(meta["namespace"], ListOptions(), shared=True)["items"] if pods is not None else []
        if not any(pod_uses_claim(p, meta["name"]) for p in items):
            self._remove_finalizer(store, claim, PVC_PROTECTION)

    def _sync_volume(self, store: Any, volume: dict[str, Any]) -> None:
        meta, status = volume["metadata"], volume.get("status") or {}
        if meta.get("deletionTimestamp"):
            if PV_PROTECTION in (meta.get("finalizers") or []) and status.get("phase") != "Bound":
                self._remove_finalizer(store, volume, PV_PROTECTION)
