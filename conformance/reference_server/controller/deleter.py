"""Namespace deleter (`pkg/controller/namespace/deletion`, NS-70..NS-74), driven by watch events.

For a namespace with deletionTimestamp and `kubernetes` in spec.finalizers it waits `delay` seconds,
deletes every namespaced kind the registry declares, writes the five conditions through the status
strategy, and — once a re-list finds the namespace empty — removes `kubernetes` through the finalize
strategy. While content with finalizers remains it waits for content events in that namespace
(no polling). It never touches foreign finalizers and never sends a final DELETE.
"""
from __future__ import annotations

import asyncio
import copy
import logging
from typing import Any, Generator, Iterator

from .. import apierrors as E
from ..deviations import NONE, Deviations
from ..registry import DeleteOptions, ListOptions, Registry
from .conditions import failure_conditions, update_conditions

log = logging.getLogger("nsconform.reference_server.controller")
FINALIZER = "kubernetes"


class NamespaceController:
    def __init__(self, registry: Registry, *, delay: float = 0.0, deviations: Deviations = NONE):
        self.registry = registry
        self.delay = delay
        self.deviations = deviations
        self._queue: asyncio.Queue[str] = asyncio.Queue()
        self._queued: set[str] = set()
        self._waiting: set[str] = set()      # namespaces blocked on content with finalizers
        self._tasks: list[asyncio.Task] = []
        self._watchers: list[Any] = []
        self._timers: list[asyncio.TimerHandle] = []

    # ---- lifecycle -------------------------------------------------------------------------------
    def start(self) -> None:
        """Start watching; must be called on the server's event loop."""
        loop = asyncio.get_running_loop()
        backlog, w, _ = self.registry.namespaces.watch(None, ListOptions(), loop)
        self._watchers.append(w)
        for ev in backlog:
            self._on_namespace(ev.object)
        self._tasks.append(loop.create_task(self._pump_namespaces(w)))
        for store in self.registry.namespaced():
            _, cw, _ = store.watch(None, ListOptions(resource_version=str(self.registry.store.current_rv())), loop)
            self._watchers.append(cw)
            self._tasks.append(loop.create_task(self._pump_content(cw)))
        self._tasks.append(loop.create_task(self._worker()))

    async def stop(self) -> None:
        for t in self._timers:
            t.cancel()
        for w in self._watchers:
            w.close()
        for t in self._tasks:
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()

    # ---- event intake ----------------------------------------------------------------------------
    async def _pump_namespaces(self, w: Any) -> None:
        while True:
            ev = await w.queue.get()
            if ev is None:
                return
            if ev.type != "DELETED":
                self._on_namespace(ev.object)
            else:
                self._waiting.discard(ev.name)

    async def _pump_content(self, w: Any) -> None:
        while True:
            ev = await w.queue.get()
            if ev is None:
                return
            if ev.namespace in self._waiting:
                self._waiting.discard(ev.namespace)
                self._enqueue(ev.namespace)

    def _on_namespace(self, ns: dict[str, Any]) -> None:
        meta = ns.get("metadata", {})
        if meta.get("deletionTimestamp") and FINALIZER in ((ns.get("spec") or {}).get("finalizers") or []):
            name = meta["name"]
            if name in self._queued:
                return
            self._queued.add(name)
            if self.delay > 0:
                self._timers.append(asyncio.get_running_loop().call_later(self.delay, self._queue.put_nowait, name))
            else:
                self._queue.put_nowait(name)

    def _enqueue(self, name: str) -> None:
        if name not in self._queued:
            self._queued.add(name)
            self._queue.put_nowait(name)

    async def _worker(self) -> None:
        while True:
            name = await self._queue.get()
            self._queued.discard(name)
            try:
                for _ in self._sync_steps(name):  # a large namespace: let other requests in between batches
                    await asyncio.sleep(0)
            except Exception:  # a controller bug must not stop the loop; log and move on
                log.exception("namespace controller: sync of %s failed", name)

    # ---- the deleter -----------------------------------------------------------------------------
    def sync(self, name: str) -> None:
        """One pass of `namespacedResourcesDeleter.Delete` for namespace `name`, without yielding."""
        for _ in self._sync_steps(name):
            pass

    def _sync_steps(self, name: str) -> Iterator[None]:
        """`sync` as steps: yields every `DELETE_BATCH` deletions. The emptiness re-check and the finalize
        run in one atomic block after the last step, so content created while the worker yielded is seen."""
        nss = self.registry.namespaces
        try:
            ns = nss.get("", name)
        except E.StatusError:
            return
        if not ns["metadata"].get("deletionTimestamp"):
            return
        if ns.get("status", {}).get("phase") != "Terminating" and not self.deviations.active("delete-keeps-active"):
            ns = self._write_status(name, lambda o: o["status"].__setitem__("phase", "Terminating")) or ns
        if FINALIZER not in ((ns.get("spec") or {}).get("finalizers") or []):
            return
        remaining, finalizers, errors = yield from self._delete_content(name)
        if not self.deviations.active("no-deletion-conditions"):
            self._write_status(name, lambda o: update_conditions(o["status"],
                                                                 failure_conditions(remaining, finalizers, errors)))
        must_wait = not (self.deviations.active("vanish-with-content-finalizers")
                         or self.deviations.active("controller-skips-content"))
        with self.registry.store.atomic():  # no create can slip in between the re-check and finalize
            if must_wait and self._content_left(name):
                self._waiting.add(name)
                if not any(remaining.values()):  # content created since the delete pass: go again
                    self._waiting.discard(name)
                    self._enqueue(name)
                return
            self._finalize(name)

    def _delete_content(self, ns: str) -> Generator[None, None, tuple[dict[str, int], dict[str, int], list[str]]]:
        """Delete the namespace's content (yielding between batches); returns (remaining, finalizers, errors)."""
        remaining: dict[str, int] = {}
        finalizers: dict[str, int] = {}
        errors: list[str] = []
        for store in self.registry.namespaced():
            if not self.deviations.active("controller-skips-content"):
                try:
                    yield from store.delete_collection_steps(ns, ListOptions(),
                                                             DeleteOptions(propagation_policy="Background"), [])
                except E.StatusError as exc:
                    errors.append(exc.message)
            items = store.list(ns, ListOptions(), shared=True)["items"]  # read only
            if items and not self.deviations.active("controller-skips-content"):
                remaining[store.info.plural] = len(items)
                for it in items:
                    for f in it["metadata"].get("finalizers") or []:
                        finalizers[f] = finalizers.get(f, 0) + 1
        return remaining, finalizers, errors

    def _content_left(self, ns: str) -> bool:
        return any(self.registry.store.count(s.info.plural, ns) for s in self.registry.namespaced())

    def _write_status(self, name: str, mutate: Any) -> dict[str, Any] | None:
        nss = self.registry.namespaces

        def transform(cur: dict[str, Any]) -> dict[str, Any]:
            new = copy.deepcopy(cur)
            new.setdefault("status", {})
            mutate(new)
            return new

        try:
            return nss.update("", name, transform=transform, strategy=nss.status_strategy,
                              field_manager="namespace-controller")
        except E.StatusError as exc:
            log.info("namespace controller: status update of %s: %s", name, exc.message)
            return None

    def _finalize(self, name: str) -> None:
        """PUT …/finalize without `kubernetes` (sorted, deduplicated); the registry removes the namespace."""
        nss = self.registry.namespaces

        def transform(cur: dict[str, Any]) -> dict[str, Any]:
            new = copy.deepcopy(cur)
            old = (new.get("spec") or {}).get("finalizers") or []
            if self.deviations.active("controller-removes-foreign-finalizers"):
                keep: list[str] = []
            else:
                keep = sorted({f for f in old if f != FINALIZER})
            new.setdefault("spec", {})["finalizers"] = keep
            if not keep:
                new["spec"].pop("finalizers")
            return new

        try:
            nss.update("", name, transform=transform, strategy=nss.finalize_strategy,
                       field_manager="namespace-controller")
        except E.StatusError as exc:
            if exc.code != 404:
                log.info("namespace controller: finalize of %s: %s", name, exc.message)
