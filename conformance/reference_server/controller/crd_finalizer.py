"""CRD finalizer (`apiextensions-apiserver/pkg/controller/finalizer/crd_finalizer.go`).

A CRD being deleted carries `customresourcecleanup.apiextensions.k8s.io`: delete every instance (in every
namespace), wait — on the instances' events, not a timer — until none is left (instances with their own
finalizers hold the CRD, as upstream), then remove the finalizer, which removes the CRD and with it the
served resource. Condition `Terminating`: InstanceDeletionInProgress while instances remain.

The instances are deleted through the registry without admission (upstream: the served resource's storage,
`DeleteCollection` with `rest.ValidateAllObjectFunc`); the CRD's condition and the finalizer's removal are
`UpdateStatus` calls of kube-apiserver's loopback client: `customresourcedefinitions/status` UPDATEs as
`system:apiserver`, which webhooks and policies see (admission/admitted.py); a refusal requeues the CRD with the
queue's backoff.
"""
from __future__ import annotations

import asyncio
import copy
import logging
from typing import Any

from .. import apierrors as E
from ..admission.admitted import APISERVER_USER, AdmissionRefusal
from ..deviations import NONE, Deviations
from ..registry import DeleteOptions, ListOptions, Registry
from ..registry.crd import CLEANUP_FINALIZER, CRD_KEY, CustomResourceStore, set_condition
from ..storage import KeyNotFoundError
from .loop import Controller, WorkQueue

log = logging.getLogger("nsconform.reference_server.controller")
FIELD_MANAGER = "kube-apiserver"  # the loopback client's user agent (kube-apiserver hosts apiextensions)


class CRDFinalizer(Controller):
    name = "crd finalizer"
    client_user = APISERVER_USER

    def __init__(self, registry: Registry, *, deviations: Deviations = NONE):
        super().__init__()
        self.registry = registry
        self.deviations = deviations
        self._crds: WorkQueue[str] = self._queue()
        self._followed: dict[str, str] = {}  # storage key of instances → CRD name
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        backlog, w = self.registry.store.watch(CRD_KEY, None, 0, self._loop)
        for ev in backlog:
            self._on_crd(ev)
        self._follow(w, self._on_crd)
        self._work(self._crds, self._sync)

    def _on_crd(self, ev: Any) -> None:
        meta = ev.object.get("metadata") or {}
        if ev.type == "DELETED" or not meta.get("deletionTimestamp"):
            return
        if CLEANUP_FINALIZER in (meta.get("finalizers") or []):
            self._crds.add(meta["name"])

    def _follow_instances(self, key: str, crd_name: str) -> None:
        if key in self._followed or self._loop is None:
            return
        self._followed[key] = crd_name
        _, w = self.registry.store.watch(key, None, self.registry.store.current_rv(), self._loop)
        self._follow(w, lambda ev: ev.type == "DELETED" and self._crds.add(crd_name))

    async def _sync(self, name: str) -> None:
        try:
            await self._finalize(name)
        except AdmissionRefusal as exc:  # the sync's error: `AddRateLimited`
            self.refused(self._crds, name, exc)
            return
        self.forget(name)

    async def _finalize(self, name: str) -> None:
        try:
            crd = self.registry.store.get(CRD_KEY, "", name)
        except KeyNotFoundError:
            return
        meta = crd["metadata"]
        if not meta.get("deletionTimestamp") or CLEANUP_FINALIZER not in (meta.get("finalizers") or []):
            return
        try:
            instances = CustomResourceStore(crd, self.registry.store, self.deviations)
        except (KeyError, TypeError, AttributeError):
            instances = None
        if instances is not None:
            self._follow_instances(instances.storage_key, name)
            out: list[dict[str, Any]] = []
            try:
                for _ in instances.delete_collection_steps(None, ListOptions(), DeleteOptions(), out):
                    await asyncio.sleep(0)
            except E.StatusError as exc:
                log.info("crd finalizer: deleting instances of %s: %s", name, exc.message)
            if instances.store.count(instances.info.plural, None):
                self._set_terminating(name, "InstanceDeletionInProgress", "CustomResource deletion is in progress")
                return
        self._release(name)

    def _set_terminating(self, name: str, reason: str, message: str) -> None:
        def write(obj: dict[str, Any]) -> dict[str, Any]:
            obj = copy.deepcopy(obj)
            set_condition(obj.setdefault("status", {}), "Terminating", "True", reason, message)
            return obj
        crds = self.registry.custom.crds
        try:
            self.writes.update(crds, "", name, transform=write, strategy=crds.status_strategy,
                               field_manager=FIELD_MANAGER)
        except E.StatusError as exc:
            if exc.code != 404:
                raise

    def _release(self, name: str) -> None:
        """Remove the cleanup finalizer; with no other finalizer left the CRD is gone."""
        crds = self.registry.custom.crds

        def transform(cur: dict[str, Any]) -> dict[str, Any]:
            new = copy.deepcopy(cur)
            fins = [f for f in new["metadata"].get("finalizers") or [] if f != CLEANUP_FINALIZER]
            new["metadata"]["finalizers"] = fins
            if not fins:
                new["metadata"].pop("finalizers")
            return new
        try:
            self.writes.update(crds, "", name, transform=transform, strategy=crds.status_strategy,
                               field_manager=FIELD_MANAGER)
        except AdmissionRefusal:
            raise
        except E.StatusError as exc:
            if exc.code != 404:
                log.info("crd finalizer: release of %s: %s", name, exc.message)
