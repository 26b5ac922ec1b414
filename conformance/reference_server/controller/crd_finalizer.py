"""CRD finalizer (`apiextensions-apiserver/pkg/controller/finalizer/crd_finalizer.go` `sync`).

A CRD being deleted carries `customresourcecleanup.apiextensions.k8s.io`. Its sync, as upstream's:
1. condition `Terminating` True `InstanceDeletionInProgress` written (an `UpdateStatus` over the CRD as read: a
   CRD gone or changed meanwhile ends the sync, its next event syncs it again);
2. an Established CRD's instances deleted (every namespace; upstream: the served resource's storage, made then
   if no request had made it, so its watch caches start; `DeleteCollection` with `rest.ValidateAllObjectFunc`,
   so without admission), then waited for: upstream polls
   every 5 s for a minute, here the instances' DELETED events wake the sync, and a minute on it writes
   `InstanceDeletionCheck` and retries with the queue's backoff (instances with their own finalizers hold the
   CRD, as upstream); a CRD never Established skips this (`NeverEstablished`), and so does one whose resource
   overlaps a built-in one (`OverlappingBuiltInResource`);
3. the outcome's `Terminating` condition and the finalizer's removal in one `UpdateStatus` over step 1's CRD,
   which removes the CRD (no other finalizer left) and with it the served resource.

The writes are kube-apiserver's loopback client's: `customresourcedefinitions/status` UPDATEs as
`system:apiserver`, which webhooks and policies see (admission/admitted.py); a refusal requeues the CRD with the
queue's backoff.
"""
from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Callable, NoReturn

from .. import apierrors as E
from ..admission.admitted import APISERVER_USER
from ..deviations import NONE, Deviations
from ..registry import DeleteOptions, ListOptions, Registry
from ..registry.crd import CLEANUP_FINALIZER, CRD_KEY, CustomResourceStore, is_established, set_condition
from ..storage import KeyNotFoundError
from .crd_status import update_crd_status
from .loop import Controller, WorkQueue

log = logging.getLogger("nsconform.reference_server.controller")
INSTANCE_WAIT = 60.0  # `deleteInstances`: `wait.PollImmediate(5*time.Second, 1*time.Minute, ...)`
# `OverlappingBuiltInResources`: stored where a CRD of the same group and plural would be
OVERLAPPING_BUILT_IN_RESOURCES = {("apiregistration.k8s.io", "apiservices"),
                                  ("apiextensions.k8s.io", "customresourcedefinitions")}


class CRDFinalizer(Controller):
    name = "crd finalizer"
    client_user = APISERVER_USER

    def __init__(self, registry: Registry, *, deviations: Deviations = NONE):
        super().__init__()
        self.registry = registry
        self.deviations = deviations
        self._crds: WorkQueue[str] = self._queue()
        self._minute_ends: WorkQueue[str] = self._queue()  # apart: `add_after` here holds back no event's `add`
        self._followed: dict[str, str] = {}  # storage key of instances → CRD name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._since: dict[str, float] = {}  # CRD name → when its instances were first deleted (the poll's start)

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        backlog, w = self.registry.store.watch(CRD_KEY, None, 0, self._loop)
        for ev in backlog:
            self._on_crd(ev)
        self._follow(w, self._on_crd)
        self._work(self._crds, self._sync)
        self._work(self._minute_ends, self._wake)

    async def _wake(self, name: str) -> None:
        self._crds.add(name)

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
        except E.StatusError as exc:  # a refusal or another error: the sync's error, `AddRateLimited`
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
        crd = update_crd_status(self.writes, self.registry, crd, terminating(
            "True", "InstanceDeletionInProgress", "CustomResource deletion is in progress"))
        if crd is None:  # deleted or changed in the meantime: its event syncs it again
            return
        spec = crd.get("spec") or {}
        if (spec.get("group"), (spec.get("names") or {}).get("plural")) in OVERLAPPING_BUILT_IN_RESOURCES:
            outcome = terminating("False", "OverlappingBuiltInResource",
                                  "instances overlap with built-in resources in storage")
        elif is_established(crd):
            done = await self._delete_instances(crd)
            if done is None:
                return  # instances remain: their DELETED events (or the minute's end) sync it again
            outcome = done
        else:
            outcome = terminating("False", "NeverEstablished", "resource was never established")
        self._since.pop(name, None)

        def release(new: dict[str, Any]) -> None:
            outcome(new)
            fins = [f for f in new["metadata"].get("finalizers") or [] if f != CLEANUP_FINALIZER]
            new["metadata"]["finalizers"] = fins
            if not fins:
                new["metadata"].pop("finalizers")
        update_crd_status(self.writes, self.registry, crd, release)

    async def _delete_instances(self, crd: dict[str, Any]) -> Callable[[dict[str, Any]], None] | None:
        """`deleteInstances`: the `Terminating` outcome once none is left, None while some remain (within the
        minute upstream polls for); a failed delete or the minute's end writes its condition and is the sync's
        error."""
        name = crd["metadata"]["name"]
        try:
            instances = CustomResourceStore(crd, self.registry.store, self.deviations)
        except (KeyError, TypeError, AttributeError) as exc:
            return self._failed(crd, "InstanceDeletionFailed", f"could not list instances: {exc}")
        self._follow_instances(instances.storage_key, name)
        # `GetCustomResourceListerCollectionDeleter` asks `getOrCreateServingInfoFor`: the CRD's storages are made,
        # so its watch caches start if no request had started them (registry/crconversion/cache.py)
        self.registry.custom.caches.start_all(self.registry.custom, {name})
        out: list[dict[str, Any]] = []
        try:
            for _ in instances.delete_collection_steps(None, ListOptions(), DeleteOptions(), out):
                await asyncio.sleep(0)
        except E.StatusError as exc:
            return self._failed(crd, "InstanceDeletionFailed", f"could not issue all deletes: {exc.message}")
        if not instances.store.count(instances.info.plural, None):
            return terminating("False", "InstanceDeletionCompleted", "removed all instances")
        since = self._since.setdefault(name, time.monotonic())
        left = since + INSTANCE_WAIT - time.monotonic()
        if left > 0:
            self._minute_ends.add_after(name, left)  # the poll's end, should no DELETED event come first
            return None
        self._since.pop(name, None)
        return self._failed(crd, "InstanceDeletionCheck",
                            "could not confirm zero CustomResources remaining: timed out waiting for the condition")

    def _failed(self, crd: dict[str, Any], reason: str, message: str) -> NoReturn:
        """The failed step's condition written (its error only logged, as upstream's `HandleError`), then the
        sync's error."""
        try:
            update_crd_status(self.writes, self.registry, crd, terminating("True", reason, message))
        except E.StatusError as exc:
            log.info("crd finalizer: %s: %s", crd["metadata"]["name"], exc.message)
        raise E.internal(message)


def terminating(state: str, reason: str, message: str) -> Callable[[dict[str, Any]], None]:
    """`SetCRDCondition` of the `Terminating` condition, as a change to a CRD."""
    return lambda crd: set_condition(crd.setdefault("status", {}), "Terminating", state, reason, message)
