"""Namespace deleter (`pkg/controller/namespace/deletion`, NS-70..NS-74), driven by watch events.

For a namespace with deletionTimestamp and `kubernetes` in spec.finalizers it waits `delay` seconds,
discovers the namespaced kinds (`discovery.py`: built-in, custom resources, failing aggregated APIs) on
every sync, deletes what it found, writes the five conditions through the status strategy, and — once a
re-list finds the namespace empty and discovery failed for no group — removes `kubernetes` through the
finalize strategy. While content with finalizers remains it waits for content events in that namespace;
while discovery fails it waits for APIService events (no polling). It never touches foreign finalizers
and never sends a final DELETE. With `ordered` (OrderedNamespaceDeletion, the flavour's) it deletes pods
first and nothing else while any pod remains (ordered_deletion.py); pods in their grace period bring the
namespace back after upstream's requeue delay, when the estimate may have run out.
"""
from __future__ import annotations

import asyncio
import logging
from typing import Any, Callable, Generator, Iterator

from .. import apierrors as E
from ..admission.admitted import AdmissionRefusal
from ..deviations import NONE, Deviations
from ..registry import DeleteOptions, ListOptions, Registry
from ..registry.apiservice import KEY as APISERVICES_KEY
from ..registry.crd import CRD_KEY
from ..storage.clone import clone
from .conditions import failure_conditions, update_conditions
from .crconversion import delete_collection_requests, unconvertible_content
from .discovery import discover, discovery_failed_message, qualified
from .ordered_deletion import deletion_phases, is_core_pods, pods_estimate, requeue_after, unexpected_items
from ..storage.offload import Offload
from .loop import Controller, WorkQueue
from .reads import get_or_none

log = logging.getLogger("nsconform.reference_server.controller")
FINALIZER = "kubernetes"


def _deleting(ns: dict[str, Any]) -> bool:
    """Whether the namespace `ns` is being deleted with its content still to delete (its `kubernetes` finalizer)."""
    return bool((ns.get("metadata") or {}).get("deletionTimestamp")) and \
        FINALIZER in ((ns.get("spec") or {}).get("finalizers") or [])


class NamespaceController(Controller):
    name = "namespace controller"
    service_account = "namespace-controller"

    def __init__(self, registry: Registry, *, delay: float | Callable[[], float] = 0.0,
                 deviations: Deviations = NONE, ordered: bool = True):
        super().__init__()
        self.registry = registry
        self.delay = delay
        self.ordered = ordered  # OrderedNamespaceDeletion: pods first (on by default since 1.33)
        self.deviations = deviations
        self._waiting: set[str] = set()      # namespaces blocked on content with finalizers
        self._blocked: set[str] = set()      # namespaces blocked on a discovery failure
        self._watched: set[str] = set()      # storage keys of custom resources followed
        self._loop: asyncio.AbstractEventLoop | None = None
        self._marked: set[str] = set()       # namespaces seen with a deletionTimestamp
        self._timers: list[asyncio.TimerHandle] = []  # requeues of namespaces whose pods are in their grace period
        self._names: WorkQueue[str] = self._queue()
        self._refused = False  # a webhook or policy refused a deletion in this pass
        self._offload = Offload(registry.store, "namespace-deleter")  # a remote store's syncs run off the loop

    def start(self) -> None:
        """Start watching; must be called on the server's event loop."""
        loop = asyncio.get_running_loop()
        self._inform(self.registry.namespaces, self._on_namespace_event)
        self._loop = loop
        for store in self.registry.namespaced():
            self._follow_content(store)
        rv = self.registry.store.current_rv()
        _, crds = self.registry.store.watch(CRD_KEY, None, rv, loop)
        self._follow(crds, self._on_crd_event)
        _, apiservices = self.registry.store.watch(APISERVICES_KEY, None, rv, loop)
        self._follow(apiservices, self._on_apiservice_event)
        self._work(self._names, self._sync_yielding)

    def _follow_content(self, store: Any) -> None:
        key = getattr(store, "storage_key", store.info.plural)
        if key in self._watched or self._loop is None:
            return
        if not self._on_loop():  # a sync running off the loop (remote store): watches start on the loop
            self._loop.call_soon_threadsafe(self._follow_content, store)
            return
        self._watched.add(key)
        _, cw, _ = store.watch(None, ListOptions(resource_version=str(self.registry.store.current_rv())), self._loop)
        self._follow(cw, self._on_content_event)

    # ---- event intake ----------------------------------------------------------------------------
    def _on_namespace_event(self, ev: Any) -> None:
        if ev.type == "DELETED":
            self._waiting.discard(ev.name)
            self._blocked.discard(ev.name)
            self._marked.discard(ev.name)
            return
        ns = ev.object
        meta = ns.get("metadata", {})
        if _deleting(ns):
            first = meta["name"] not in self._marked  # the delay is the controller's first look, not every event's
            self._marked.add(meta["name"])
            delay = (self.delay() if callable(self.delay) else self.delay) if first else 0.0
            self._names.add_after(meta["name"], delay)

    def _on_crd_event(self, ev: Any) -> None:
        """A new CRD: follow its resources' events too (the watch on a deleted CRD's key simply goes quiet)."""
        for store in self.registry.custom.stores():
            self._follow_content(store)

    def _on_apiservice_event(self, ev: Any) -> None:
        """Discovery may succeed now: re-sync every namespace a discovery failure held."""
        for name in list(self._blocked):
            self._blocked.discard(name)
            self._enqueue(name)

    def _on_content_event(self, ev: Any) -> None:
        if ev.namespace in self._waiting:
            self._waiting.discard(ev.namespace)
            self._enqueue(ev.namespace)

    def _enqueue(self, name: str) -> None:
        if self._loop is not None and not self._on_loop():
            self._loop.call_soon_threadsafe(self._names.add, name)
            return
        self._names.add(name)

    def _look_again(self, name: str, after: float) -> None:
        """Upstream's requeue of a namespace with content left (`AddAfter`), as a timer of its own: it does
        not hold back the syncs that content events start meanwhile."""
        loop = self._loop
        if loop is None:
            return

        def arm() -> None:
            self._timers = [t for t in self._timers if not t.cancelled() and t.when() > loop.time()]
            self._timers.append(loop.call_later(after, self._names.add, name))

        if self._on_loop():
            arm()
        else:
            loop.call_soon_threadsafe(arm)

    async def stop(self) -> None:
        for t in self._timers:
            t.cancel()
        self._timers.clear()
        await super().stop()

    def _on_loop(self) -> bool:
        try:
            return asyncio.get_running_loop() is self._loop
        except RuntimeError:  # a thread without a loop
            return False

    async def _sync_yielding(self, name: str) -> None:
        self._refused = False
        if self._deletes_content(name):
            delete_collection_requests(self.registry)
        unconvertible = await unconvertible_content(self.registry, name)
        if self._offload.remote:  # etcd: every deletion is a round trip, so the whole pass runs off the loop
            await self._offload(self.sync, name, unconvertible)
        else:
            for _ in self._sync_steps(name, unconvertible):  # a large namespace: let others in between batches
                await asyncio.sleep(0)
        if self._refused:  # upstream: the content error requeues the namespace with the rate limiter's backoff
            self._look_again(name, self.backoff(name))
        else:
            self.forget(name)

    def _deletes_content(self, name: str) -> bool:
        """Whether a pass for namespace `name` deletes its content (being deleted, the `kubernetes` finalizer
        left) with custom resources among what it deletes."""
        if self.deviations.active("deleter-skips-custom-resources"):
            return False
        return _deleting(get_or_none(self.registry.namespaces, "", name) or {})

    # ---- the deleter -----------------------------------------------------------------------------
    def sync(self, name: str, unconvertible: dict[str, str] | None = None) -> None:
        """One pass of `namespacedResourcesDeleter.Delete` for namespace `name`, without yielding."""
        for _ in self._sync_steps(name, unconvertible):
            pass

    def _sync_steps(self, name: str, unconvertible: dict[str, str] | None = None) -> Iterator[None]:
        """`sync` as steps: yields every `DELETE_BATCH` deletions. The emptiness re-check and the finalize
        run in one atomic block after the last step, so content created while the worker yielded is seen.
        `unconvertible`: custom resources whose conversion webhook failed (`unconvertible_content`)."""
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
        found = discover(self.registry, ignore_failures=self.deviations.active("deleter-ignores-discovery-failure"))
        if self.deviations.active("deleter-skips-custom-resources"):
            found.stores = [s for s in found.stores if not hasattr(s, "crd_name")]
        failure = discovery_failed_message(found.failed) if found.failed else ""
        remaining: dict[str, int] = {}
        finalizers: dict[str, int] = {}
        errors: list[str] = []
        grace = 0  # seconds the remaining pods' grace periods may still take
        phases = deletion_phases(found.stores, ordered=self.ordered)
        for i, stores in enumerate(phases):
            r, f, e, g = yield from self._delete_content(name, stores, ns["metadata"]["deletionTimestamp"],
                                                         unconvertible or {})
            remaining.update(r)
            for k, n in f.items():
                finalizers[k] = finalizers.get(k, 0) + n
            errors += e
            grace = max(grace, g)
            if i < len(phases) - 1 and any(r.values()):
                self._hold_for_pods(name, stores, errors, failure, found.failed, grace)
                return
        if grace:  # the estimate may run out before the pods go: look again then, as upstream's requeue
            self._look_again(name, requeue_after(grace))
        if not self.deviations.active("no-deletion-conditions"):
            self._write_status(name, lambda o: update_conditions(
                o["status"], failure_conditions(remaining, finalizers, errors, failure)))
        if found.failed:  # upstream: Delete returns the discovery error, the namespace stays; retried later
            self._blocked.add(name)
            return
        must_wait = not (self.deviations.active("vanish-with-content-finalizers")
                         or self.deviations.active("controller-skips-content"))
        with self.registry.store.atomic():  # no create can slip in between the re-check and finalize
            if must_wait and self._content_left(name, found.stores):
                self._waiting.add(name)
                if not any(remaining.values()):  # content created since the delete pass: go again
                    self._waiting.discard(name)
                    self._enqueue(name)
                return
            self._finalize(name)

    def _hold_for_pods(self, name: str, pods: list[Any], errors: list[str], failure: str,
                       failed: dict[str, str], grace: int) -> None:
        """Pods remain after the first pass of an ordered deletion: upstream writes the conditions it has (not
        the content totals) and returns; the namespace comes back when a pod changes or goes (or when their
        grace estimate may have run out)."""
        if not self.deviations.active("no-deletion-conditions"):
            self._write_status(name, lambda o: update_conditions(
                o["status"], failure_conditions({}, {}, errors, failure)))
        if failed:
            self._blocked.add(name)
        with self.registry.store.atomic():
            if self._content_left(name, pods):
                self._waiting.add(name)
            else:  # the pods went since the pass: go again
                self._enqueue(name)
                return
        if grace:
            self._look_again(name, requeue_after(grace))

    def _delete_content(self, ns: str, stores: list[Any], deleted_at: str = "",
                        unconvertible: dict[str, str] | None = None
                        ) -> Generator[None, None, tuple[dict[str, int], dict[str, int], list[str], int]]:
        """Delete the namespace's content (yielding between batches); returns (remaining by `<resource>.<group>`,
        finalizers, errors, the remaining pods' grace estimate)."""
        remaining: dict[str, int] = {}
        finalizers: dict[str, int] = {}
        errors: list[str] = []
        grace = 0
        for store in stores:
            self._follow_content(store)
            if not store.store.count(store.info.plural, ns):
                continue  # (nothing of this kind here: most kinds, in most namespaces; `_content_left` agrees)
            failed = (unconvertible or {}).get(getattr(store, "storage_key", ""))
            if failed is not None:  # its DeleteCollection fails (upstream: the error, retried with backoff)
                errors.append(failed)
                self._refused = True
                continue
            pods = is_core_pods(store)
            estimate = pods_estimate(store.list(ns, ListOptions(), shared=True)["items"], deleted_at) if pods else 0
            refused = None
            if not self.deviations.active("controller-skips-content") and self.writes.active():
                refused = self.writes.delete_items(store, store.list(ns, ListOptions(), shared=True)["items"],
                                                   DeleteOptions(propagation_policy="Background"))
            if refused is not None:  # a webhook or policy selects some item: each one's DELETE is reviewed
                errors += [exc.message for exc in refused[:1]]  # DeleteCollection answers its first error
                self._refused |= any(isinstance(exc, AdmissionRefusal) for exc in refused)
            elif not self.deviations.active("controller-skips-content"):
                try:
                    with self.writes.releasing(store):  # a Service's ClusterIPs: the loopback client's DELETEs
                        yield from store.delete_collection_steps(ns, ListOptions(),
                                                                 DeleteOptions(propagation_policy="Background"), None)
                except E.StatusError as exc:
                    errors.append(exc.message)
            items = store.list(ns, ListOptions(), shared=True)["items"]  # read only
            if items and not self.deviations.active("controller-skips-content"):
                key = qualified(store)
                if self.deviations.active("remaining-without-group") and hasattr(store, "crd_name"):
                    key = store.info.plural + "."
                remaining[key] = len(items)
                held = False
                for it in items:
                    for f in it["metadata"].get("finalizers") or []:
                        finalizers[f] = finalizers.get(f, 0) + 1
                        held = True
                if pods and estimate:
                    grace = max(grace, estimate)
                elif pods and not held:  # past their grace period and nothing holds them: upstream's error
                    errors.append(unexpected_items(ns, store))
        return remaining, finalizers, errors, grace

    def _content_left(self, ns: str, stores: list[Any]) -> bool:
        return any(s.store.count(s.info.plural, ns) for s in stores)

    def _write_status(self, name: str, mutate: Any) -> dict[str, Any] | None:
        nss = self.registry.namespaces

        def transform(cur: dict[str, Any]) -> dict[str, Any]:
            new = clone(cur)
            new.setdefault("status", {})
            mutate(new)
            return new

        try:
            return self.writes.update(nss, "", name, transform=transform, strategy=nss.status_strategy,
                                      field_manager="namespace-controller")
        except E.StatusError as exc:
            log.info("namespace controller: status update of %s: %s", name, exc.message)
            return None

    def _finalize(self, name: str) -> None:
        """PUT …/finalize without `kubernetes` (sorted, deduplicated); the registry removes the namespace."""
        nss = self.registry.namespaces

        def transform(cur: dict[str, Any]) -> dict[str, Any]:
            new = clone(cur)
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
            self.writes.update(nss, "", name, transform=transform, strategy=nss.finalize_strategy,
                               field_manager="namespace-controller")
        except E.StatusError as exc:
            if exc.code != 404:
                log.info("namespace controller: finalize of %s: %s", name, exc.message)
