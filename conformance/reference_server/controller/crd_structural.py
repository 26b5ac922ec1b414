"""The NonStructuralSchema condition of CRDs
(`apiextensions-apiserver/pkg/controller/nonstructuralschema/nonstructuralschema_controller.go`).

A CRD written through v1 is structural (`registry/crdschema`), but one stored before that rule held (by an older
server, or kept non-structural through the update ratchet) is not: this controller sets the condition
`NonStructuralSchema` (`True`/`Violations` with `ValidateStructural`'s errors, or `Unknown`/`StructuralError`) on
such a CRD and removes it once the schema is structural, once per generation, as upstream's `ConditionController`.
Its writes are `customresourcedefinitions/status` UPDATEs of kube-apiserver's loopback client."""
from __future__ import annotations

import asyncio
import copy
from typing import Any

from .. import apierrors as E
from ..admission.admitted import APISERVER_USER, AdmissionRefusal
from ..registry import Registry
from ..registry.crd import CRD_KEY, LOOPBACK_MANAGER, condition, set_condition
from ..registry.crdschema import non_structural_condition
from ..storage import KeyNotFoundError
from .loop import Controller, WorkQueue

CONDITION = "NonStructuralSchema"


class NonStructuralSchemaController(Controller):
    name = "non structural schema condition"
    client_user = APISERVER_USER

    def __init__(self, registry: Registry):
        super().__init__()
        self.registry = registry
        self._crds: WorkQueue[str] = self._queue()
        self._last_seen_generation: dict[str, int] = {}

    def start(self) -> None:
        backlog, w = self.registry.store.watch(CRD_KEY, None, 0, asyncio.get_running_loop())
        for ev in backlog:
            self._on_crd(ev)
        self._follow(w, self._on_crd)
        self._work(self._crds, self._sync)

    def _on_crd(self, ev: Any) -> None:
        name = (ev.object.get("metadata") or {}).get("name")
        if ev.type == "DELETED":
            self._last_seen_generation.pop(name, None)
        elif name:
            self._crds.add(name)

    async def _sync(self, name: str) -> None:
        try:
            self._update(name)
        except AdmissionRefusal as exc:
            self.refused(self._crds, name, exc)
            return
        self.forget(name)

    def _update(self, name: str) -> None:
        try:
            crd = self.registry.store.get(CRD_KEY, "", name)
        except KeyNotFoundError:
            return
        generation = int((crd.get("metadata") or {}).get("generation") or 0)
        if name in self._last_seen_generation and generation <= self._last_seen_generation[name]:
            return
        want, old = non_structural_condition(crd), condition(crd, CONDITION)
        if want is None and old is None:
            return
        if want is not None and old is not None and (old.get("status"), old.get("reason"), old.get("message")) == want:
            return

        def write(obj: dict[str, Any]) -> dict[str, Any]:
            obj = copy.deepcopy(obj)
            status = obj.setdefault("status", {})
            if want is None:
                status["conditions"] = [c for c in status.get("conditions") or [] if c.get("type") != CONDITION]
            else:
                set_condition(status, CONDITION, *want)
            return obj
        crds = self.registry.custom.crds
        try:
            self.writes.update(crds, "", name, transform=write, strategy=crds.status_strategy,
                               field_manager=LOOPBACK_MANAGER)
        except E.StatusError as exc:
            if exc.code in (404, 409):  # deleted or changed meanwhile: we are called again
                return
            raise
        self._last_seen_generation[name] = generation
