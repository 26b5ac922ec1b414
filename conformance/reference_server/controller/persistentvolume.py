"""kube-controller-manager's PersistentVolume controller on a cluster without nodes and without in-tree
provisioners (`pkg/controller/volume/persistentvolume/pv_controller.go`, `index.go`, `util/util.go`
`FindMatchingVolume`, `pkg/volume/util/storageclass.go`).

Claims (`syncClaim`):
* unbound, no `spec.volumeName`: the best `Available` volume (`findBestMatchForClaim`: access modes that
  contain the claim's, fewest modes first, then the smallest capacity ≥ the request, same class and
  volumeMode, label selector; a volume pre-bound to this claim wins at once) is bound: the volume gets
  `claimRef` (`GetReference` of the claim) and `pv.kubernetes.io/bound-by-controller`, phase `Bound`; the
  claim gets `spec.volumeName`, `pv.kubernetes.io/bind-completed` (+ `bound-by-controller`), phase `Bound`,
  `status.accessModes` and `status.capacity` from the volume. Without a match: a claim with no class at all
  gets the default class (`assignDefaultStorageClass`, 1.28+ retroactive default); a claim of a
  `WaitForFirstConsumer` class binds nothing (only a volume pre-bound to it) and gets the
  `WaitForFirstConsumer` Event (`WaitForPodScheduled` while pods using it wait for a node: always, here); a
  claim of another class is provisioned (`provisionClaim`): an external provisioner gets the
  `volume.kubernetes.io/storage-provisioner` (+ beta) annotations and the `ExternalProvisioning` Event, a
  `kubernetes.io/` one no in-tree plugin serves, or a missing class, the `ProvisioningFailed` Event; a claim
  without class gets `FailedBinding`. Every claim and volume is synced again every 15 s
  (`--pvclaimbinder-sync-period`), so these Events count up as upstream's do.
* unbound, naming a volume: bound when it is unclaimed and satisfies the claim (else `VolumeMismatch`), or
  pre-bound to it; `FailedBinding` when another claim holds it.
* bound: `Lost` (`ClaimLost`, `ClaimMisbound`) when its volume is gone or bound elsewhere.

Volumes (`syncVolume`): unclaimed or pre-bound (`claimRef` without uid) → `Available`; bound to a claim that
is gone → `Released`, then the reclaim policy: `Retain` keeps it; `Delete` of a volume an external
provisioner made (`pv.kubernetes.io/provisioned-by` outside `kubernetes.io/`) waits for that provisioner;
otherwise, with no deleter plugin here, `Failed` with the `VolumeFailedDelete` Event (a hostPath under
`/tmp/` is deleted, as the hostPath deleter would); `Recycle` of a hostPath or NFS volume waits for the
recycler pod (which never runs without nodes), of any other `Failed` (`VolumeFailedRecycle`).
A volume whose claim is bound to another volume is unbound (`unbindVolume`) and `Available` again.

Events come from `controller/events.py` as component `persistentvolume-controller`.
"""
from __future__ import annotations

import asyncio
import copy
import logging
import re
from typing import Any, Callable

from .. import apierrors as E
from ..admission.admitted import AdmissionRefusal
from ..admission.defaultclass import BETA_STORAGE_CLASS, claim_class, claim_has_class, default_storage_class
from ..quantity import parse_quantity
from ..registry import DeleteOptions, Registry
from ..registry.meta import now
from ..registry.workloads import selector_matches
from .events import NORMAL, WARNING, EventRecorder
from .loop import Controller
from .reads import get_or_none

log = logging.getLogger("nsconform.reference_server.controller")
COMPONENT = "persistentvolume-controller"
FIELD_MANAGER = "kube-controller-manager"
RESYNC_PERIOD = 15.0  # --pvclaimbinder-sync-period

BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
PROVISIONED_BY = "pv.kubernetes.io/provisioned-by"
STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner"
BETA_STORAGE_PROVISIONER = "volume.beta.kubernetes.io/storage-provisioner"
SELECTED_NODE = "volume.kubernetes.io/selected-node"
HOST_PATH = "kubernetes.io/host-path"  # the one in-tree plugin that provisions (when enabled) and deletes

Key = tuple[str, str, str]  # ("claim", namespace, name) | ("volume", "", name)


def _ann(obj: dict[str, Any]) -> dict[str, Any]:
    return (obj.get("metadata") or {}).get("annotations") or {}


def _spec(obj: dict[str, Any]) -> dict[str, Any]:
    return obj.get("spec") if isinstance(obj.get("spec"), dict) else {}


def volume_class(volume: dict[str, Any]) -> str:
    ann = _ann(volume)
    return ann[BETA_STORAGE_CLASS] if BETA_STORAGE_CLASS in ann else _spec(volume).get("storageClassName") or ""


def _storage(resources: Any) -> Any:
    try:
        return parse_quantity((resources or {}).get("storage", "0"))
    except Exception:  # noqa: BLE001 - refused when decoded; a zero never matches a real request
        return parse_quantity("0")


def _requested(claim: dict[str, Any]) -> Any:
    return _storage((_spec(claim).get("resources") or {}).get("requests"))


def _capacity(volume: dict[str, Any]) -> Any:
    return _storage(_spec(volume).get("capacity"))


def _mode(spec: dict[str, Any]) -> str:
    return spec.get("volumeMode") or "Filesystem"


def bound_to_claim(volume: dict[str, Any], claim: dict[str, Any]) -> bool:
    """`IsVolumeBoundToClaim`: claimRef names the claim (and its uid, when the ref has one)."""
    ref = _spec(volume).get("claimRef")
    meta = claim["metadata"]
    if not isinstance(ref, dict) or ref.get("name") != meta["name"] or ref.get("namespace") != meta["namespace"]:
        return False
    return not ref.get("uid") or ref["uid"] == meta.get("uid")


def _modes_contain(volume: dict[str, Any], claim: dict[str, Any]) -> bool:
    have = set(_spec(volume).get("accessModes") or [])
    return all(m in have for m in _spec(claim).get("accessModes") or [])


def find_matching_volume(claim: dict[str, Any], volumes: list[dict[str, Any]],
                         delay_binding: bool) -> dict[str, Any] | None:
    """`findBestMatchForClaim` (`index.go` `findByClaim` over `FindMatchingVolume`, node == nil)."""
    requested, cls, cspec = _requested(claim), claim_class(claim), _spec(claim)
    selector = cspec.get("selector") if isinstance(cspec.get("selector"), dict) else None
    groups: dict[int, list[dict[str, Any]]] = {}
    for v in volumes:
        if _modes_contain(v, claim):
            groups.setdefault(len(set(_spec(v).get("accessModes") or [])), []).append(v)
    for _, group in sorted(groups.items()):
        smallest = None
        for v in group:
            vspec = _spec(v)
            if vspec.get("claimRef") is not None and not bound_to_claim(v, claim):
                continue
            if _capacity(v).cmp(requested) < 0 or _mode(vspec) != _mode(cspec):
                continue
            if v["metadata"].get("deletionTimestamp"):
                continue
            if bound_to_claim(v, claim):
                return v
            if delay_binding:  # the scheduler binds unbound volumes of such a claim, with a node
                continue
            if (v.get("status") or {}).get("phase") != "Available":
                continue
            if selector is not None and not selector_matches(selector, v["metadata"].get("labels") or {}):
                continue
            if volume_class(v) != cls:
                continue
            if smallest is None or _capacity(smallest).cmp(_capacity(v)) > 0:
                smallest = v
        if smallest is not None:
            return smallest
    return None


def check_volume_satisfies_claim(volume: dict[str, Any], claim: dict[str, Any]) -> str:
    """`checkVolumeSatisfyClaim`'s error ("" when it does)."""
    if volume["metadata"].get("deletionTimestamp"):
        return f'the volume is marked for deletion "{volume["metadata"]["name"]}"'
    if _capacity(volume).int_value() < _requested(claim).int_value():
        return "requested PV is too small"
    if volume_class(volume) != claim_class(claim):
        return "storageClassName does not match"
    if _mode(_spec(volume)) != _mode(_spec(claim)):
        return "incompatible volumeMode"
    if not _modes_contain(volume, claim):
        return "incompatible accessMode"
    return ""


def claim_reference(claim: dict[str, Any]) -> dict[str, Any]:
    """`reference.GetReference` of a claim, in ObjectReference's field order."""
    meta = claim["metadata"]
    return {"kind": "PersistentVolumeClaim", "namespace": meta["namespace"], "name": meta["name"],
            "uid": meta.get("uid", ""), "apiVersion": "v1", "resourceVersion": meta.get("resourceVersion", "")}


def _external(provisioner: str) -> bool:
    return not provisioner.startswith("kubernetes.io/")


class PersistentVolumeController(Controller):
    name = COMPONENT
    service_account = "persistent-volume-binder"

    def __init__(self, registry: Registry, admission: Any = None, resync: float = RESYNC_PERIOD):
        super().__init__()
        self.registry = registry
        self.resync = resync
        self.recorder = EventRecorder(registry, COMPONENT, admission)
        self.keys = self._queue()

    # ---- stores ---------------------------------------------------------------------------------------
    @property
    def claims(self) -> Any:
        return self.registry.content("persistentvolumeclaims")

    @property
    def volumes(self) -> Any:
        return self.registry.cluster("persistentvolumes")

    def _all_volumes(self) -> list[dict[str, Any]]:
        return self.registry.store.list("persistentvolumes", None, shared=True)[0]

    def _class(self, name: str) -> dict[str, Any] | None:
        return get_or_none(self.registry.group("storage.k8s.io", "storageclasses"), "", name)

    # ---- informers ------------------------------------------------------------------------------------
    def start(self) -> None:
        if self.claims is None or self.volumes is None:
            return
        for kind, store in (("claim", self.claims), ("volume", self.volumes)):
            self._inform(store, lambda ev, k=kind: self._on(k, ev))
        self._work(self.keys, self._sync)
        if self.resync > 0:
            self._spawn(self._resync())

    def _on(self, kind: str, ev: Any) -> None:
        if ev.type != "DELETED":
            self.keys.add((kind, ev.namespace or "", ev.name))
            return
        spec = _spec(ev.object)
        if kind == "claim" and spec.get("volumeName"):  # `deleteClaim`: release its volume now
            self.keys.add(("volume", "", spec["volumeName"]))
        elif kind == "volume" and isinstance(spec.get("claimRef"), dict):  # `deleteVolume`: its claim is Lost
            ref = spec["claimRef"]
            self.keys.add(("claim", ref.get("namespace") or "", ref.get("name") or ""))

    async def _resync(self) -> None:
        while True:
            await asyncio.sleep(self.resync)
            for plural, kind in (("persistentvolumeclaims", "claim"), ("persistentvolumes", "volume")):
                for obj in self.registry.store.list(plural, None, shared=True)[0]:
                    meta = obj["metadata"]
                    self.keys.add((kind, meta.get("namespace", ""), meta["name"]))

    async def _sync(self, key: Key) -> None:
        kind, ns, name = key
        try:
            if kind == "claim":
                claim = get_or_none(self.claims, ns, name)
                if claim is not None:
                    self.sync_claim(claim)
            else:
                volume = get_or_none(self.volumes, "", name)
                if volume is not None:
                    self.sync_volume(volume)
        except AdmissionRefusal as exc:  # a webhook or policy refused a write: `AddRateLimited`
            log.info("%s: %s %s/%s: %s", self.name, kind, ns, name, exc.message)
            self.keys.add_after(key, self.backoff(key))
        except E.StatusError as exc:
            if exc.code == 409:  # a stale read: the next sync sees the new object
                self.keys.add_after(key, 0.05)
            elif exc.code != 404:
                log.info("%s: %s %s/%s: %s", self.name, kind, ns, name, exc.message)

    # ---- writes ---------------------------------------------------------------------------------------
    def _write(self, store: Any, obj: dict[str, Any], change: Callable[[dict[str, Any]], None], *,
               status: bool = False) -> dict[str, Any]:
        """An Update (or UpdateStatus) of `obj` as read: a 409 when it changed meanwhile, as upstream's."""
        meta = obj["metadata"]

        def apply(cur: dict[str, Any]) -> dict[str, Any]:
            new = copy.deepcopy(cur)
            new["metadata"]["resourceVersion"] = meta.get("resourceVersion")
            change(new)
            return new
        kw = {"strategy": store.status_strategy} if status else {}
        return self.writes.update(store, meta.get("namespace", ""), meta["name"], transform=apply,
                                  field_manager=FIELD_MANAGER, **kw)

    def _set_annotation(self, obj: dict[str, Any], key: str, value: str) -> None:
        obj["metadata"].setdefault("annotations", {})[key] = value

    def update_volume_phase(self, volume: dict[str, Any], phase: str, message: str = "") -> dict[str, Any]:
        """`updateVolumePhase`: nothing when the phase is already set; else phase, message and
        `lastPhaseTransitionTime`."""
        if (volume.get("status") or {}).get("phase") == phase:
            return volume

        def change(v: dict[str, Any]) -> None:
            status = {k: val for k, val in (v.get("status") or {}).items() if k != "message"}
            status.update(phase=phase, lastPhaseTransitionTime=now())
            if message:
                status["message"] = message
            v["status"] = status
        return self._write(self.volumes, volume, change, status=True)

    def update_volume_phase_with_event(self, volume: dict[str, Any], phase: str, type_: str, reason: str,
                                       message: str) -> dict[str, Any]:
        if (volume.get("status") or {}).get("phase") == phase:
            return volume
        out = self.update_volume_phase(volume, phase, message)
        self.recorder.event(out, type_, reason, message)
        return out

    def update_claim_status(self, claim: dict[str, Any], phase: str,
                            volume: dict[str, Any] | None) -> dict[str, Any]:
        """`updateClaimStatus`: phase; access modes and capacity from the volume (capacity only when the
        claim becomes Bound), or cleared without one."""
        status = claim.get("status") or {}
        new = dict(status)
        new["phase"] = phase
        if volume is None:
            new.pop("accessModes", None)
            new.pop("capacity", None)
        else:
            vspec = _spec(volume)
            new["accessModes"] = vspec.get("accessModes")
            if status.get("phase") != phase:
                cap = (vspec.get("capacity") or {}).get("storage")
                if cap is not None and (status.get("capacity") or {}).get("storage") != cap:
                    new["capacity"] = dict(vspec.get("capacity") or {})
        if new == status:
            return claim

        def change(c: dict[str, Any]) -> None:
            c["status"] = new
        return self._write(self.claims, claim, change, status=True)

    def update_claim_status_with_event(self, claim: dict[str, Any], phase: str, type_: str, reason: str,
                                       message: str) -> None:
        if (claim.get("status") or {}).get("phase") == phase:
            return
        out = self.update_claim_status(claim, phase, None)
        self.recorder.event(out, type_, reason, message)

    # ---- binding ----------------------------------------------------------------------------------------
    def bind(self, volume: dict[str, Any], claim: dict[str, Any]) -> None:
        """`bind`: volume → claim, volume Bound, claim → volume, claim Bound; each write only when needed."""
        volume = self._bind_volume_to_claim(volume, claim)
        volume = self.update_volume_phase(volume, "Bound")
        claim = self._bind_claim_to_volume(claim, volume)
        self.update_claim_status(claim, "Bound", volume)

    def _bind_volume_to_claim(self, volume: dict[str, Any], claim: dict[str, Any]) -> dict[str, Any]:
        by_controller = not bound_to_claim(volume, claim)
        ref, meta = _spec(volume).get("claimRef") or {}, claim["metadata"]
        set_ref = (ref.get("name"), ref.get("namespace"), ref.get("uid")) != (meta["name"], meta["namespace"],
                                                                              meta.get("uid"))
        set_ann = by_controller and BOUND_BY_CONTROLLER not in _ann(volume)
        if not set_ref and not set_ann:
            return volume

        def change(v: dict[str, Any]) -> None:
            if set_ref:
                v["spec"]["claimRef"] = claim_reference(claim)
            if set_ann:
                self._set_annotation(v, BOUND_BY_CONTROLLER, "yes")
        return self._write(self.volumes, volume, change)

    def _bind_claim_to_volume(self, claim: dict[str, Any], volume: dict[str, Any]) -> dict[str, Any]:
        name = volume["metadata"]["name"]
        set_name = _spec(claim).get("volumeName") != name
        ann = _ann(claim)
        set_by = set_name and BOUND_BY_CONTROLLER not in ann
        if not set_name and BIND_COMPLETED in ann:
            return claim

        def change(c: dict[str, Any]) -> None:
            if set_name:
                c["spec"]["volumeName"] = name
            if set_by:
                self._set_annotation(c, BOUND_BY_CONTROLLER, "yes")
            self._set_annotation(c, BIND_COMPLETED, "yes")
        return self._write(self.claims, claim, change)

    # ---- claims -------------------------------------------------------------------------------------------
    def sync_claim(self, claim: dict[str, Any]) -> None:
        if BIND_COMPLETED in _ann(claim):
            self._sync_bound_claim(claim)
        else:
            self._sync_unbound_claim(claim)

    def _delay_binding(self, claim: dict[str, Any]) -> bool:
        """`IsDelayBindingMode`: the claim's class (if it exists) binds `WaitForFirstConsumer`."""
        name = claim_class(claim)
        cls = self._class(name) if name else None
        return cls is not None and cls.get("volumeBindingMode") == "WaitForFirstConsumer"

    def _sync_unbound_claim(self, claim: dict[str, Any]) -> None:
        name = _spec(claim).get("volumeName")
        if not name:
            delay = self._delay_binding(claim)
            volume = find_matching_volume(claim, self._all_volumes(), delay)
            if volume is not None:
                self.bind(volume, claim)
                return
            if self._assign_default_class(claim):
                return
            if delay and SELECTED_NODE not in _ann(claim):
                self._wait_for_first_consumer(claim)
            elif claim_class(claim):
                self._provision(claim)
                return
            else:
                self.recorder.event(claim, NORMAL, "FailedBinding",
                                    "no persistent volumes available for this claim and no storage class is set")
            self.update_claim_status(claim, "Pending", None)
            return
        volume = get_or_none(self.volumes, "", name)
        if volume is None:
            self.update_claim_status(claim, "Pending", None)
        elif _spec(volume).get("claimRef") is None:
            err = check_volume_satisfies_claim(volume, claim)
            if err:
                self.recorder.event(claim, WARNING, "VolumeMismatch",
                                    f'Cannot bind to requested volume "{name}": {err}')
                self.update_claim_status(claim, "Pending", None)
            else:
                self.bind(volume, claim)
        elif bound_to_claim(volume, claim):
            self.bind(volume, claim)
        elif BOUND_BY_CONTROLLER not in _ann(claim):
            self.recorder.event(claim, WARNING, "FailedBinding", f'volume "{name}" already bound to a different claim.')
            self.update_claim_status(claim, "Pending", None)

    def _assign_default_class(self, claim: dict[str, Any]) -> bool:
        """`assignDefaultStorageClass`: a claim with no class at all gets today's default (retroactively)."""
        if claim_has_class(claim):
            return False
        default = default_storage_class(self.registry)
        if default is None:
            return False

        def change(c: dict[str, Any]) -> None:
            c["spec"]["storageClassName"] = default["metadata"]["name"]
        self._write(self.claims, claim, change)
        return True

    def _wait_for_first_consumer(self, claim: dict[str, Any]) -> None:
        """`emitEventForUnboundDelayBindingClaim`: which pods (not terminated, not scheduled) use the claim."""
        meta = claim["metadata"]
        waiting = sorted(p["metadata"]["name"] for p in self._pods_using(meta["namespace"], meta["name"])
                         if not _spec(p).get("nodeName"))
        if not waiting:
            reason, message = "WaitForFirstConsumer", "waiting for first consumer to be created before binding"
        elif len(waiting) == 1:
            reason, message = "WaitForPodScheduled", f"waiting for pod {waiting[0]} to be scheduled"
        else:
            reason, message = "WaitForPodScheduled", f"waiting for pods {','.join(waiting)} to be scheduled"
        self.recorder.event(claim, NORMAL, reason, message)

    def _pods_using(self, ns: str, claim: str) -> list[dict[str, Any]]:
        out = []
        for pod in self.registry.store.list("pods", ns, shared=True)[0]:
            if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
                continue
            pod_name = pod["metadata"]["name"]
            for v in _spec(pod).get("volumes") or []:
                if not isinstance(v, dict):
                    continue
                if (v.get("persistentVolumeClaim") or {}).get("claimName") == claim or \
                        (v.get("ephemeral") is not None and f"{pod_name}-{v.get('name', '')}" == claim):
                    out.append(pod)
                    break
        return out

    def _provision(self, claim: dict[str, Any]) -> None:
        """`provisionClaim` with `findProvisionablePlugin`: only external provisioners exist here."""
        name = claim_class(claim)
        cls = self._class(name)
        if cls is None:
            self.recorder.event(claim, WARNING, "ProvisioningFailed",
                                f'storageclass.storage.k8s.io "{name}" not found')
            return
        provisioner = str(cls.get("provisioner") or "")
        if not _external(provisioner):
            self.recorder.event(claim, WARNING, "ProvisioningFailed",
                                f"no volume plugin matched name: {provisioner}" if provisioner != HOST_PATH else
                                f'Failed to create provisioner: provisioning in volume plugin "{HOST_PATH}" is '
                                "disabled")
            return
        # provisionClaimOperationExternal: `setClaimProvisioner`, then the event
        if _ann(claim).get(STORAGE_PROVISIONER) != provisioner:
            def change(c: dict[str, Any]) -> None:
                self._set_annotation(c, BETA_STORAGE_PROVISIONER, provisioner)
                self._set_annotation(c, STORAGE_PROVISIONER, provisioner)
            claim = self._write(self.claims, claim, change)
        self.recorder.event(claim, NORMAL, "ExternalProvisioning",
                            f"Waiting for a volume to be created either by the external provisioner '{provisioner}' "
                            "or manually by the system administrator. If volume creation is delayed, please verify "
                            "that the provisioner is running and correctly registered.")

    def _sync_bound_claim(self, claim: dict[str, Any]) -> None:
        name = _spec(claim).get("volumeName")
        if not name:
            self.update_claim_status_with_event(claim, "Lost", WARNING, "ClaimLost",
                                                "Bound claim has lost reference to PersistentVolume. Data on the "
                                                "volume is lost!")
            return
        volume = get_or_none(self.volumes, "", name)
        if volume is None:
            self.update_claim_status_with_event(claim, "Lost", WARNING, "ClaimLost",
                                                "Bound claim has lost its PersistentVolume. Data on the volume is "
                                                "lost!")
        elif _spec(volume).get("claimRef") is None or \
                (_spec(volume)["claimRef"] or {}).get("uid") == claim["metadata"].get("uid"):
            self.bind(volume, claim)
        else:
            self.update_claim_status_with_event(claim, "Lost", WARNING, "ClaimMisbound",
                                                "Two claims are bound to the same volume, this one is bound "
                                                "incorrectly")

    # ---- volumes ------------------------------------------------------------------------------------------
    def sync_volume(self, volume: dict[str, Any]) -> None:
        ref = _spec(volume).get("claimRef")
        if not isinstance(ref, dict) or not ref.get("uid"):  # unused, or pre-bound and waiting for its claim
            self.update_volume_phase(volume, "Available")
            return
        claim = get_or_none(self.claims, ref.get("namespace") or "", ref.get("name") or "")
        if claim is not None and claim["metadata"].get("uid") != ref["uid"]:
            claim = None  # deleted, and another of the same name created
        if claim is None:
            if (volume.get("status") or {}).get("phase") not in ("Released", "Failed"):
                volume = self.update_volume_phase(volume, "Released")
            self.reclaim(volume)
            return
        claim_volume = _spec(claim).get("volumeName")
        if not claim_volume:  # the claim's sync finishes (or re-establishes) the binding
            self.keys.add(("claim", claim["metadata"]["namespace"], claim["metadata"]["name"]))
        elif claim_volume == volume["metadata"]["name"]:
            self.update_volume_phase(volume, "Bound")
        elif PROVISIONED_BY in _ann(volume) and _spec(volume).get("persistentVolumeReclaimPolicy") == "Delete":
            if (volume.get("status") or {}).get("phase") not in ("Released", "Failed"):
                volume = self.update_volume_phase(volume, "Released")
            self.reclaim(volume)
        else:
            self._unbind(volume)

    def _unbind(self, volume: dict[str, Any]) -> None:
        """`unbindVolume`: a controller's binding is undone, a user's pre-binding keeps the claim's name."""
        by_controller = BOUND_BY_CONTROLLER in _ann(volume)

        def change(v: dict[str, Any]) -> None:
            if by_controller:
                v["spec"].pop("claimRef", None)
            else:
                v["spec"]["claimRef"].pop("uid", None)
            (v["metadata"].get("annotations") or {}).pop(BOUND_BY_CONTROLLER, None)
            if v["metadata"].get("annotations") == {}:
                del v["metadata"]["annotations"]
        volume = self._write(self.volumes, volume, change)
        self.update_volume_phase(volume, "Available")

    def reclaim(self, volume: dict[str, Any]) -> None:
        """`reclaimVolume` by the volume's policy, with the plugins a cluster without nodes can use."""
        policy = _spec(volume).get("persistentVolumeReclaimPolicy")
        if policy == "Retain":
            return
        if policy == "Recycle":
            if _spec(volume).get("hostPath") is None and _spec(volume).get("nfs") is None:
                self.update_volume_phase_with_event(volume, "Failed", WARNING, "VolumeFailedRecycle",
                                                    "No recycler plugin found for the volume!")
            return  # hostPath/NFS: the recycler pod would need a node
        if policy == "Delete":
            err = self._delete_error(volume)
            if err is None:
                return
            if err:
                self.update_volume_phase_with_event(volume, "Failed", WARNING, "VolumeFailedDelete", err)
                return
            self.writes.delete(self.volumes, "", volume["metadata"]["name"], DeleteOptions())
            return
        self.update_volume_phase_with_event(volume, "Failed", WARNING, "VolumeUnknownReclaimPolicy",
                                            "Volume has unrecognized PersistentVolumeReclaimPolicy")

    @staticmethod
    def _delete_error(volume: dict[str, Any]) -> str | None:
        """`doDeleteVolume`: None when an external deleter is awaited, "" when the volume is deleted, else the
        deleter's error."""
        name, spec = volume["metadata"]["name"], _spec(volume)
        by = _ann(volume).get(PROVISIONED_BY) or ""
        if by:
            if _external(by):
                return None
            if by != HOST_PATH:
                return f"no volume plugin matched name: {by}"
        if spec.get("hostPath") is not None:
            path = str((spec["hostPath"] or {}).get("path") or "")
            if re.search("/tmp/.+", path):
                return ""  # the hostPath deleter removes the directory, then the volume is deleted
            return f"host_path deleter only supports /tmp/.+ but received provided {path}"
        plugin = "no deletable volume plugin matched" if spec.get("nfs") is not None else "no volume plugin matched"
        return f'error getting deleter volume plugin for volume "{name}": {plugin}'
