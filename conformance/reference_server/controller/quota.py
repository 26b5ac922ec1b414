"""ResourceQuota controller (`pkg/controller/resourcequota`): keeps `status.hard`/`status.used` in step.

Driven by storage watch events, no polling: a quota is synced when it is created or its spec changes
(upstream: the quota informer), and every quota of a namespace is re-synced after a change to that
namespace's content — deletes above all (upstream: replenishment; admission never decrements, so
deleting frees quota only here, asynchronously). Upstream's periodic full resync (5 min) is not needed
because every write goes through this server's storage and produces an event.

The status write is the controller's service account's (`cmd/kube-controller-manager/app/core.go`
`ClientOrDie("resourcequota-controller")`): while any webhook configuration or policy binding exists it is a
`resourcequotas/status` UPDATE through admission/admitted.py (a refusal requeues the quota with the queue's
backoff); without one, the plain storage write.
"""
from __future__ import annotations

import asyncio
from typing import Any

from .. import apierrors as E
from ..deviations import NONE, Deviations
from ..registry import Registry
from ..storage import KeyNotFoundError
from ..admission import quota as Q
from ..admission.admitted import AdmissionRefusal
from .loop import log
from .loop import Controller, WorkQueue


class QuotaController(Controller):
    name = "quota controller"
    service_account = "resourcequota-controller"

    def __init__(self, registry: Registry, *, deviations: Deviations = NONE):
        super().__init__()
        self.registry = registry
        self.deviations = deviations
        self._quotas: WorkQueue[tuple[str, str]] = self._queue()
        # namespace -> its quotas' names, from this controller's own quota events (upstream: the quota lister):
        # a content event needs no storage read, so 10,000 deletions do not contend for the store's lock
        self._quota_names: dict[str, set[str]] = {}

    def start(self) -> None:
        """Start watching; must be called on the server's event loop."""
        loop = asyncio.get_running_loop()
        store = self.registry.store
        rv = store.current_rv()
        for q in store.list("resourcequotas", None)[0]:
            ns, name = q["metadata"].get("namespace", ""), q["metadata"]["name"]
            self._quota_names.setdefault(ns, set()).add(name)
            self._enqueue(ns, name)
        for plural in {s.info.plural for s in self.registry.namespaced()}:
            _, w = store.watch(plural, None, rv, loop)
            self._follow(w, self._on_event)
        self._work(self._quotas, self._sync_key)

    # ---- event intake ----------------------------------------------------------------------------
    def _on_event(self, ev: Any) -> None:
        if ev.resource == "resourcequotas":
            if ev.type == "DELETED":
                names = self._quota_names.get(ev.namespace)
                if names is not None:
                    names.discard(ev.name)
                    if not names:
                        del self._quota_names[ev.namespace]
                return
            self._quota_names.setdefault(ev.namespace, set()).add(ev.name)
            prev_spec = (ev.prev or {}).get("spec") if ev.prev is not None else None
            if ev.type == "ADDED" or prev_spec != ev.object.get("spec") or not ev.object.get("status"):
                self._enqueue(ev.namespace, ev.name)
            return
        if ev.type == "DELETED" and self.deviations.active("quota-not-released"):
            return
        if ev.type == "MODIFIED" and ev.resource != "pods":
            return  # only a pod's usage changes on update (phase Succeeded/Failed, resources)
        for name in self._quota_names.get(ev.namespace, ()):  # most namespaces have none
            self._enqueue(ev.namespace, name)

    def _enqueue(self, ns: str, name: str) -> None:
        self._quotas.add((ns, name))

    async def _sync_key(self, key: tuple[str, str]) -> None:
        try:
            self.sync(*key)
        except AdmissionRefusal as exc:  # the sync's error: `AddRateLimited`
            self.refused(self._quotas, key, exc)
            return
        self.forget(key)

    # ---- sync ------------------------------------------------------------------------------------
    def objects(self, ns: str) -> dict[str, list[dict[str, Any]]]:
        """The namespace's objects by plural (`<plural>.<group>` for a named group)."""
        out: dict[str, list[dict[str, Any]]] = {}
        for s in self.registry.namespaced():
            group = getattr(s, "group", "")
            key = f"{s.info.plural}.{group}" if group else s.info.plural
            out[key] = self.registry.store.list(s.info.plural, ns)[0]
        return out

    def sync(self, ns: str, name: str) -> None:
        """Recompute one quota's status and write it when it changed."""
        store = self.registry.store
        with store.atomic():  # no admission charge can interleave between the count and the write
            try:
                current = store.get("resourcequotas", ns, name)
            except KeyNotFoundError:
                return
            status = Q.sync_status(current, self.objects(ns))
            if self.deviations.active("quota-usage-not-tracked"):
                status["used"] = {k: "0" for k in status["hard"]}
            if current.get("status") == status:
                return

            def write(q: dict[str, Any]) -> dict[str, Any]:
                q["status"] = status
                return q
            try:
                if self.writes.active():  # an UpdateStatus the webhooks and policies may see
                    quotas = self.registry.content("resourcequotas")
                    self.writes.update(quotas, ns, name, transform=write,
                                       strategy=quotas.status_strategy,  # type: ignore[union-attr]
                                       field_manager="kube-controller-manager")
                else:
                    store.guaranteed_update("resourcequotas", ns, name, write)
            except KeyNotFoundError:
                pass
            except E.StatusError as exc:
                if exc.code == 404:
                    return
                if isinstance(exc, AdmissionRefusal):
                    raise
                log.info("%s: %s/%s: %s", self.name, ns, name, exc.message)  # a race: the next event resyncs
