"""kube-controller-manager's validatingadmissionpolicy-status-controller
(`pkg/controller/validatingadmissionpolicystatus/controller.go`).

Every ValidatingAdmissionPolicy whose `metadata.generation` is ahead of `status.observedGeneration` gets, by a
forced server-side apply of its status (field manager `validatingadmissionpolicy-status-controller`),
`observedGeneration` = its generation and `typeChecking` with the type checker's warnings. This server does not
compile CEL (registry/admissionregistration.py), so the type checker finds nothing: `typeChecking` is always `{}`
(upstream lists a warning for an expression that does not type-check against the matched kinds).
"""
from __future__ import annotations

from typing import Any

from .. import apierrors as E
from ..registry import Registry
from ..storage import KeyNotFoundError
from .loop import Controller, WorkQueue

GROUP, PLURAL = "admissionregistration.k8s.io", "validatingadmissionpolicies"
FIELD_MANAGER = "validatingadmissionpolicy-status-controller"


class PolicyStatusController(Controller):
    name = "validatingadmissionpolicy status"

    def __init__(self, registry: Registry):
        super().__init__()
        self.registry = registry
        self._names: WorkQueue[str] = self._queue()

    def start(self) -> None:
        """Start watching; must be called on the server's event loop."""
        store = self.registry.group(GROUP, PLURAL)
        if store is None:
            return
        self._inform(store, self._on_event)
        self._work(self._names, self._sync)

    def _on_event(self, ev: Any) -> None:
        if ev.type in ("ADDED", "MODIFIED"):
            self._names.add(ev.name)

    async def _sync(self, name: str) -> None:
        store = self.registry.group(GROUP, PLURAL)
        if store is None:
            return
        try:
            policy = self.registry.store.get(PLURAL, "", name, shared=True)
        except KeyNotFoundError:
            return
        generation = (policy.get("metadata") or {}).get("generation") or 0
        if generation <= ((policy.get("status") or {}).get("observedGeneration") or 0):
            return
        config = {"apiVersion": f"{GROUP}/v1", "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name},
                  "status": {"observedGeneration": generation, "typeChecking": {}}}
        fm = store.field_manager
        try:
            store.update("", name, transform=lambda live: fm.apply(live, config, FIELD_MANAGER, True, "status"),
                         strategy=store.status_strategy,  # type: ignore[attr-defined]
                         manage=lambda _live, new: new)
        except E.StatusError as exc:
            if exc.code not in (404, 409):  # deleted meanwhile, or changed again (its own event requeues it)
                raise
