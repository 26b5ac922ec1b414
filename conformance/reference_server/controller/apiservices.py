"""APIService availability (kube-aggregator `controllers/status`): keeps each APIService's `Available`
condition in step with its service (`registry.apiservice.availability`), on APIService and Service events.

Its write is kube-apiserver's own, by the loopback client (`available_controller.go` `UpdateStatus` through
`apiregistrationclient`): an `apiservices/status` UPDATE as `system:apiserver`, which webhooks and policies see
(admission/admitted.py); a refusal requeues the APIService with the queue's backoff."""
from __future__ import annotations

import asyncio
import copy
from typing import Any

from .. import apierrors as E
from ..admission.admitted import APISERVER_USER, AdmissionRefusal
from ..registry import Registry
from ..registry.apiservice import KEY, availability
from ..registry.meta import now
from ..storage import KeyNotFoundError
from .loop import Controller, WorkQueue


class APIServiceAvailability(Controller):
    name = "apiservice availability"
    client_user = APISERVER_USER

    def __init__(self, registry: Registry):
        super().__init__()
        self.registry = registry
        self._names: WorkQueue[str] = self._queue()

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        backlog, w = self.registry.store.watch(KEY, None, 0, loop)
        for ev in backlog:
            self._names.add(ev.name)
        self._follow(w, lambda ev: ev.type != "DELETED" and self._names.add(ev.name))
        _, services = self.registry.store.watch("services", None, self.registry.store.current_rv(), loop)
        self._follow(services, self._on_service)
        self._work(self._names, self._sync)

    def _on_service(self, ev: Any) -> None:
        for a in self.registry.apiservices.all():
            svc = (a.get("spec") or {}).get("service") or {}
            if svc.get("namespace") == ev.namespace and svc.get("name") == ev.name:
                self._names.add(a["metadata"]["name"])

    def _get_service(self, ns: str, name: str) -> dict[str, Any] | None:
        try:
            return self.registry.store.get("services", ns, name, shared=True)
        except KeyNotFoundError:
            return None

    async def _sync(self, name: str) -> None:
        def write(obj: dict[str, Any]) -> dict[str, Any]:
            state, reason, message = availability(obj, self._get_service)
            obj = copy.deepcopy(obj)
            conds = obj.setdefault("status", {}).setdefault("conditions", [])
            old = next((c for c in conds if c.get("type") == "Available"), None)
            if old is None:
                conds.append({"type": "Available", "status": state, "lastTransitionTime": now(), "reason": reason,
                              "message": message})
                return obj
            if old.get("status") != state:
                old["lastTransitionTime"] = now()
            old.update(status=state, reason=reason, message=message)
            return obj
        store = self.registry.apiservices
        try:
            cur = self.registry.store.get(KEY, "", name, shared=True)
            if write(cur).get("status") != cur.get("status"):
                self.writes.update(store, "", name, transform=write, strategy=store.status_strategy,
                                   field_manager="kube-apiserver")
        except KeyNotFoundError:
            return
        except AdmissionRefusal as exc:  # the sync's error: `AddRateLimited`
            self.refused(self._names, name, exc)
            return
        except E.StatusError as exc:
            if exc.code not in (404, 409):  # gone, or changed meanwhile (its own event requeues it)
                raise
        self.forget(name)
