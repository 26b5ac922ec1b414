"""What kube-apiserver's CRD status controllers share (`apiextensions-apiserver/pkg/controller/status`,
`establish`, `apiapproval`): an informer on the CRDs feeding a work queue of CRD names, one worker, and each
sync's `UpdateStatus` of the CRD it read (`customresourcedefinitions/status`, resourceVersion as read) by
kube-apiserver's loopback client: `system:apiserver`, manager `kube-apiserver`, through the webhooks and policies
(admission/admitted.py). A write that finds the CRD gone or changed (404, 409) is no error: the CRD's next event
syncs it again, as upstream's `IsNotFound(err) || IsConflict(err)`; any other error, a refusal included, requeues
the name with the queue's backoff (`AddRateLimited`)."""
from __future__ import annotations

import asyncio
import copy
from typing import Any, Callable

from .. import apierrors as E
from ..admission.admitted import APISERVER_USER, AdmissionRefusal
from ..registry import Registry
from ..registry.crd import CRD_INFO, CRD_KEY, GROUP, LOOPBACK_MANAGER
from ..storage import KeyNotFoundError
from .loop import Controller, WorkQueue


class CRDStatusController(Controller):
    """One of kube-apiserver's CRD status controllers: `on_event` queues names, `sync_crd` syncs one."""

    client_user = APISERVER_USER

    def __init__(self, registry: Registry):
        super().__init__()
        self.registry = registry
        self.crds: WorkQueue[str] = self._queue()
        self.seen: dict[str, Any] = {}  # what a sync remembers of a CRD, until its delete event

    def start(self) -> None:
        backlog, w = self.registry.store.watch(CRD_KEY, None, 0, asyncio.get_running_loop())
        for ev in backlog:  # the informer's initial list: ADDED events
            self.on_event(ev)
        self._follow(w, self.on_event)
        self._work(self.crds, self._sync)

    def on_event(self, ev: Any) -> None:
        """An add or update event queues the CRD; a delete forgets what was `seen` of it."""
        name = (ev.object.get("metadata") or {}).get("name")
        if ev.type == "DELETED":
            self.seen.pop(name, None)
        elif name:
            self.crds.add(name)

    def sync_crd(self, name: str) -> None:
        raise NotImplementedError

    async def _sync(self, name: str) -> None:
        try:
            self.sync_crd(name)
        except E.StatusError as exc:  # a refusal or another error: the sync's error
            self.refused(self.crds, name, exc)
            return
        self.forget(name)

    def read(self, name: str) -> dict[str, Any] | None:
        """The lister's CRD (None: not found)."""
        try:
            return self.registry.store.get(CRD_KEY, "", name)
        except KeyNotFoundError:
            return None

    def update_status(self, crd: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> bool:
        """`UpdateStatus` of `crd` changed by `change` (on a copy), over the resourceVersion it was read at.
        False: the CRD was gone or had changed meanwhile (nothing written)."""
        return update_crd_status(self.writes, self.registry, crd, change) is not None


def update_crd_status(writes: Any, registry: Registry, crd: dict[str, Any],
                      change: Callable[[dict[str, Any]], None]) -> dict[str, Any] | None:
    """The loopback client's `UpdateStatus` of `crd` changed by `change` (on a copy), over the resourceVersion it
    was read at, through `writes` (the controller's admitted writes). The CRD written, or None when it was gone or
    had changed meanwhile ("deleted or changed in the meantime, we'll get called again"): nothing written."""
    name, rv = crd["metadata"]["name"], crd["metadata"].get("resourceVersion")

    def transform(current: dict[str, Any]) -> dict[str, Any]:
        if current["metadata"].get("resourceVersion") != rv:  # the update's precondition
            raise E.conflict(CRD_INFO.plural, name, E.OPTIMISTIC_LOCK_MSG, GROUP)
        new = copy.deepcopy(current)
        change(new)
        return new
    crds = registry.custom.crds
    try:
        return writes.update(crds, "", name, transform=transform, strategy=crds.status_strategy,
                             field_manager=LOOPBACK_MANAGER)
    except AdmissionRefusal:
        raise
    except E.StatusError as exc:
        if exc.code in (404, 409):
            return None
        raise
