"""kube-controller-manager's garbage collector (`pkg/controller/garbagecollector`: graph_builder.go,
garbagecollector.go, operations.go), for every kind the server serves, custom resources included.

Monitors: one storage watch per deletable resource (`GetDeletableResources`: delete, list and watch; events are
ignored as upstream's `DefaultIgnoredResources`), re-synced when CRDs change. Their informers' requests, which
start a CRD's watch caches (registry/crconversion/cache.py), come at upstream's discovery sync (`Sync`, every 30 s):
`_discovery_sync`. Each event updates the graph (gc_graph.py) and queues work:

* `attemptToDeleteItem` for an object whose owners may be gone: each reference is resolved to its kind (an
  unknown kind is retried with backoff, as a `restMappingError`), read in the dependent's namespace (or cluster
  scope for a cluster-scoped owner; a cluster-scoped object naming a namespaced owner is left alone), and
  classified solid / dangling (absent, or another UID) / waiting (owner in foreground deletion). With a solid
  owner the dangling and waiting references are removed; otherwise the object is deleted (Foreground when it
  has dependents and waits for an owner; else the policy its own finalizers name; else Background), with its
  UID and resourceVersion as preconditions.
* foreground deletion (`processDeletingDependentsItem`): an owner with `deletionTimestamp` and the
  `foregroundDeletion` finalizer keeps it until no dependent with `blockOwnerDeletion: true` is left; its
  dependents are deleted meanwhile.
* orphaning (`attemptToOrphanWorker`): an owner with `deletionTimestamp` and `orphan` gets its references
  removed from every dependent, then the finalizer removed.

Writes go through the registry (an `Offload` on etcd, as the namespace deleter's), by the manager
`kube-controller-manager`.

Events (graph_builder.go `reportInvalidNamespaceOwnerRef`, component `garbage-collector-controller`): a Warning
`OwnerRefInvalidNamespace` on a dependent whose reference names, by UID, an observed namespaced object of
another namespace (`ownerRef [<apiVersion>/<kind>, namespace: <the dependent's>, name: ..., uid: ...] does not
exist in namespace "<the dependent's>"`), whichever of the two is seen first: when the dependent's reference
is added (`addDependentToOwners`: its first such reference only) or when the owner is first observed
(`processGraphChanges`: each dependent of another namespace).
"""
from __future__ import annotations

import asyncio
import copy
import logging
from typing import Any

from .. import apierrors as E
from ..admission.admitted import admitted
from ..goport.gonet.strconv import quote
from ..registry import DeleteOptions, Registry
from ..registry.crconversion.cache import TEARDOWN_SECONDS
from ..registry.crd import CRD_KEY
from ..registry.propagation import FOREGROUND, ORPHAN
from ..storage import KeyNotFoundError
from ..storage.offload import Offload
from ..wire.legacyscheme import parse_group_version
from .events import WARNING, EventRecorder
from .gc_graph import Graph, ObjKey
from .loop import Controller, WorkQueue

log = logging.getLogger("nsconform.reference_server.controller")
KCM = "kube-controller-manager"
COMPONENT = "garbage-collector-controller"
IGNORED = frozenset({("", "events"), ("events.k8s.io", "events")})  # DefaultIgnoredResources
# kube-controller-manager core.go: `go garbageCollector.Sync(ctx, discoveryClient, 30*time.Second)` (the resource
# quota controller's `Sync` has the same period, from the same start)
DISCOVERY_SYNC_SECONDS = 30.0
RETRY_FIRST, RETRY_MAX = 0.05, 30.0  # backoff of an item whose sync failed (upstream: 5 ms .. 1000 s)


class _Retry(Exception):
    """The item cannot be decided now (an owner's kind is not served yet, a write conflicted): requeue."""


class _Skip(Exception):
    """Nothing to write (the object changed or went away since it was read)."""


def storage_key(store: Any) -> str:
    return getattr(store, "storage_key", None) or store.info.plural


def _finalizers(meta: dict[str, Any]) -> list[str]:
    return [f for f in meta.get("finalizers") or [] if isinstance(f, str)]


class GarbageCollector(Controller):
    name = "garbage collector"
    service_account = "generic-garbage-collector"

    def __init__(self, registry: Registry, admission: Any = None, discovery_period: float | None = None):
        super().__init__()
        self.discovery_period = DISCOVERY_SYNC_SECONDS if discovery_period is None else discovery_period
        self._informed: set[str] = set()  # the CRDs (by name) whose resources the monitors' informers watch
        self.registry = registry
        self.recorder = EventRecorder(registry, COMPONENT, admission)
        self.graph = Graph()
        self._attempt_delete: WorkQueue[ObjKey] = self._queue()
        self._attempt_orphan: WorkQueue[ObjKey] = self._queue()
        self._monitors: dict[str, Any] = {}   # storage key → the watcher feeding the graph
        self._failures: dict[ObjKey, int] = {}
        self._offload = Offload(registry.store, "garbage-collector")
        self._loop: asyncio.AbstractEventLoop | None = None

    # ---- monitors ------------------------------------------------------------------------------------
    def start(self) -> None:
        """Start watching; must be called on the server's event loop."""
        self._loop = asyncio.get_running_loop()
        self._sync_monitors()
        _, w = self.registry.store.watch(CRD_KEY, None, self.registry.store.current_rv(), self._loop)
        self._follow(w, lambda _ev: self._sync_monitors())
        self._work(self._attempt_delete, self._sync_delete)
        self._work(self._attempt_orphan, self._sync_orphan)
        self._spawn(self._discovery_sync())

    def _deletable(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for s in self.registry.cluster_stores() + self.registry.namespaced():
            verbs = s.info.verbs
            if "delete" in verbs and "list" in verbs and "watch" in verbs and \
                    (getattr(s, "group", ""), s.info.plural) not in IGNORED:
                out.setdefault(storage_key(s), s)
        return out

    def _sync_monitors(self) -> None:
        """`resyncMonitors`: watch every deletable resource (new CRDs' too); a resource no longer served is
        dropped (its objects are gone with it)."""
        if self._loop is None:
            return
        wanted = self._deletable()
        for key in set(self._monitors) - set(wanted):
            self._monitors.pop(key).close()
        for key in wanted:
            if key in self._monitors:
                continue
            backlog, w = self.registry.store.watch(key, None, 0, self._loop)
            self._monitors[key] = w
            for ev in backlog:
                self._on_event(key, ev)
            self._follow(w, lambda ev, key=key: self._on_event(key, ev))
        # a spec change of a CRD retires its caches, whose watches end a second later: the informers watching its
        # resources watch again at once, a request, which starts new caches (a CRD no informer watches yet keeps
        # none until a request or the next sync)
        self.registry.custom.caches.sweep(self.registry.custom)
        self._loop.call_later(TEARDOWN_SECONDS, self._rewatch)

    def _rewatch(self) -> None:
        try:
            self.registry.custom.caches.start_all(self.registry.custom, self._informed)
        except Exception:  # a controller bug must not stop the loop
            log.exception("%s: re-watch failed", self.name)

    async def _discovery_sync(self) -> None:
        """`GarbageCollector.Sync`: at once, then every `discovery_period` seconds (`wait.UntilWithContext`), the
        deletable resources are discovered and the monitors of new ones started, their informers' LIST and WATCH
        being the first requests for a new CRD's resources (`customresource_handler.go`
        `getOrCreateServingInfoFor` makes its storages then: their watch caches start, registry/crconversion/
        cache.py). The graph's own watches above follow every resource at once (upstream's monitors of a new
        resource wait for that sync too)."""
        while True:
            try:
                custom = self.registry.custom
                self._informed = {store.crd_name for store in custom.stores()}
                custom.caches.start_all(custom, self._informed)
            except Exception:  # a controller bug must not stop the loop
                log.exception("%s: discovery sync failed", self.name)
            await asyncio.sleep(self.discovery_period)

    # ---- graph changes (`processGraphChanges`) -------------------------------------------------------
    def _on_event(self, resource: str, ev: Any) -> None:
        key = ObjKey(resource, ev.namespace, ev.name)
        meta = ev.object.get("metadata") or {}
        uid = str(meta.get("uid") or "")
        if ev.type == "DELETED":
            self.graph.namespace_of.pop(uid, None)
            refs = self.graph.forget(key)
            for dep in self.graph.dependents_of(uid):  # their owner is gone
                self._attempt_delete.add(dep)
            for ref in refs:  # an owner waiting for its dependents looks again
                owner = self._owner_key(key, ref)
                if owner is not None:
                    self._attempt_delete.add(owner)
            return
        first_seen = bool(uid) and uid not in self.graph.namespace_of
        if uid:
            self.graph.namespace_of[uid] = key.namespace
        refs = [r for r in meta.get("ownerReferences") or [] if isinstance(r, dict)]
        if refs or key in self.graph.owned:
            added, unblocked = self.graph.observe(key, uid, refs)
            if added:  # a new owner may not exist: `addDependentToOwners` queues the (virtual) owner
                self._attempt_delete.add(key)
                self._report_added(key, ev.object, added)
            for ref in unblocked:
                owner = self._owner_key(key, ref)
                if owner is not None:
                    self._attempt_delete.add(owner)
        if first_seen and key.namespace:
            self._report_observed(key, uid)
        if not meta.get("deletionTimestamp"):
            return
        prev = (ev.prev or {}).get("metadata") or {}
        fins = _finalizers(meta)
        if ORPHAN in fins and not (prev.get("deletionTimestamp") and ORPHAN in _finalizers(prev)):
            self._attempt_orphan.add(key)  # `startsWaitingForDependentsOrphaned`
        elif FOREGROUND in fins and not (prev.get("deletionTimestamp") and FOREGROUND in _finalizers(prev)):
            for dep in self.graph.dependents_of(uid):  # `startsWaitingForDependentsDeleted`
                self._attempt_delete.add(dep)
            self._attempt_delete.add(key)

    # ---- OwnerRefInvalidNamespace (graph_builder.go) ----------------------------------------------------
    def _report_added(self, key: ObjKey, obj: dict[str, Any], added: list[dict[str, Any]]) -> None:
        """`addDependentToOwners`: the first added reference whose observed owner lives in another namespace."""
        for ref in added:
            owner_ns = self.graph.namespace_of.get(str(ref.get("uid") or ""))
            if owner_ns and owner_ns != key.namespace:
                self._report(obj, ref)
                return

    def _report_observed(self, key: ObjKey, uid: str) -> None:
        """`processGraphChanges`: an owner observed for the first time, named by dependents of other namespaces."""
        for dep in self.graph.dependents_of(uid):
            if dep.namespace == key.namespace:
                continue
            ref = next((r for r in self.graph.refs_of(dep) if str(r.get("uid")) == uid), None)
            live = self._live(dep)
            if ref is not None and live is not None:
                self._report(live, ref)

    def _report(self, dependent: dict[str, Any], ref: dict[str, Any]) -> None:
        """`reportInvalidNamespaceOwnerRef`: a Warning on the dependent (kind, apiVersion, namespace, name, uid)."""
        meta = dependent.get("metadata") or {}
        ns = str(meta.get("namespace") or "")
        identity = (f"[{ref.get('apiVersion') or ''}/{ref.get('kind') or ''}, namespace: {ns}, "
                    f"name: {ref.get('name') or ''}, uid: {ref.get('uid') or ''}]")
        involved = {"kind": dependent.get("kind", ""), "apiVersion": dependent.get("apiVersion", ""),
                    "metadata": {"namespace": ns, "name": meta.get("name", ""), "uid": meta.get("uid", "")}}
        self.recorder.event(involved, WARNING, "OwnerRefInvalidNamespace",
                            f"ownerRef {identity} does not exist in namespace {quote(ns)}")

    # ---- reference resolution (the REST mapper) ------------------------------------------------------
    def _resolve(self, api_version: str, kind: str) -> Any | None:
        """The store serving `kind` in `api_version`, or None (`restMappingError`)."""
        group, version = parse_group_version(api_version)
        if not version or not kind:
            return None
        if not group:
            if version != "v1":
                return None
            return next((s for s in self.registry.cluster_stores() + self.registry.namespaced()
                         if not getattr(s, "group", "") and s.info.kind == kind), None)
        for s in self.registry.group_stores(group):
            if s.info.kind != kind:
                continue
            if version == getattr(s, "version", None) or version in self._served_versions(s):
                return s
        return None

    def _served_versions(self, store: Any) -> set[str]:
        crd_name = getattr(store, "crd_name", None)
        if not crd_name:
            return set()
        try:
            crd = self.registry.store.get(CRD_KEY, "", crd_name, shared=True)
        except KeyNotFoundError:
            return set()
        return {v.get("name") for v in (crd.get("spec") or {}).get("versions") or []
                if isinstance(v, dict) and v.get("served")}

    def _owner_key(self, dependent: ObjKey, ref: dict[str, Any]) -> ObjKey | None:
        store = self._resolve(str(ref.get("apiVersion") or ""), str(ref.get("kind") or ""))
        if store is None or not ref.get("name"):
            return None
        if store.info.namespaced and not dependent.namespace:
            return None
        return ObjKey(storage_key(store), dependent.namespace if store.info.namespaced else "", str(ref["name"]))

    def _store_of(self, key: ObjKey) -> Any | None:
        return self._deletable().get(key.resource)

    def _live(self, key: ObjKey) -> dict[str, Any] | None:
        try:
            return self.registry.store.get(key.resource, key.namespace, key.name, shared=True)
        except KeyNotFoundError:
            return None

    # ---- attemptToDelete -----------------------------------------------------------------------------
    async def _sync_delete(self, key: ObjKey) -> None:
        try:
            await self._attempt_to_delete(key)
        except _Done:
            pass
        except _Retry as exc:
            self._requeue(self._attempt_delete, key, str(exc))
            return
        self._failures.pop(key, None)

    def _requeue(self, queue: WorkQueue[ObjKey], key: ObjKey, why: str) -> None:
        n = self._failures.get(key, 0)
        self._failures[key] = n + 1
        delay = min(RETRY_FIRST * (2 ** n), RETRY_MAX)
        log.debug("garbage collector: %s/%s/%s again in %.2fs: %s", *key, delay, why)
        queue.add_after(key, delay)

    async def _attempt_to_delete(self, key: ObjKey) -> None:
        live = self._live(key)
        if live is None:
            return
        meta = live["metadata"]
        fins = _finalizers(meta)
        if meta.get("deletionTimestamp"):
            if FOREGROUND in fins:
                await self._process_deleting_dependents(key, live)
            return  # "being deleted" is a one-way trip: its dependents are handled once it is gone
        refs = [r for r in meta.get("ownerReferences") or [] if isinstance(r, dict)]
        if not refs:
            return
        solid, dangling, waiting = self._classify(key, refs)
        uid = str(meta.get("uid") or "")
        if solid:
            if dangling or waiting:
                gone = {str(r.get("uid")) for r in dangling + waiting}
                await self._write(self._remove_references, key, uid, gone)
            return
        if waiting and self.graph.dependents_of(uid):
            for dep in self.graph.dependents_of(uid):  # a possible cycle: stop blocking our owners first
                dep_live = self._live(dep)
                dmeta = (dep_live or {}).get("metadata") or {}
                if dmeta.get("deletionTimestamp") and FOREGROUND in _finalizers(dmeta):
                    await self._write(self._unblock_references, key, uid)
                    break
            policy = "Foreground"
        elif ORPHAN in fins:
            policy = "Orphan"
        elif FOREGROUND in fins:
            policy = "Foreground"
        else:
            policy = "Background"
        await self._write(self._delete, key, uid, str(meta.get("resourceVersion") or ""), policy)

    def _classify(self, key: ObjKey, refs: list[dict[str, Any]]
                  ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
        """`classifyReferences` (with `isDangling`): solid, dangling, waitingForDependentsDeletion."""
        solid: list[dict[str, Any]] = []
        dangling: list[dict[str, Any]] = []
        waiting: list[dict[str, Any]] = []
        for ref in refs:
            store = self._resolve(str(ref.get("apiVersion") or ""), str(ref.get("kind") or ""))
            if store is None:
                raise _Retry(f"owner kind {ref.get('kind')} in {ref.get('apiVersion')} is not served")
            if store.info.namespaced and not key.namespace:
                # a cluster-scoped object naming a namespaced owner: never resolvable, left alone
                raise _Done()
            ns = key.namespace if store.info.namespaced else ""
            try:
                owner = self.registry.store.get(storage_key(store), ns, str(ref.get("name") or ""), shared=True)
            except KeyNotFoundError:
                dangling.append(ref)
                continue
            ometa = owner.get("metadata") or {}
            if ometa.get("uid") != ref.get("uid"):
                dangling.append(ref)
            elif ometa.get("deletionTimestamp") and FOREGROUND in _finalizers(ometa):
                waiting.append(ref)
            else:
                solid.append(ref)
        return solid, dangling, waiting

    async def _process_deleting_dependents(self, key: ObjKey, live: dict[str, Any]) -> None:
        uid = str(live["metadata"].get("uid") or "")
        blocking = self.graph.blocking_dependents(uid)
        if not blocking:
            await self._write(self._remove_finalizer, key, uid, FOREGROUND)
            return
        for dep in blocking:
            self._attempt_delete.add(dep)

    # ---- attemptToOrphan -----------------------------------------------------------------------------
    async def _sync_orphan(self, key: ObjKey) -> None:
        try:
            live = self._live(key)
            if live is None:
                return
            uid = str(live["metadata"].get("uid") or "")
            for dep in self.graph.dependents_of(uid):
                dep_uid = self.graph.owned[dep].uid if dep in self.graph.owned else ""
                await self._write(self._remove_references, dep, dep_uid, {uid})
            await self._write(self._remove_finalizer, key, uid, ORPHAN)
        except _Retry as exc:
            self._requeue(self._attempt_orphan, key, str(exc))
            return
        self._failures.pop(key, None)

    # ---- writes (operations.go) ----------------------------------------------------------------------
    async def _write(self, fn: Any, *args: Any) -> None:
        try:
            await admitted(self._offload, fn, *args)  # a write waiting for the webhooks: settled, then again
        except (_Skip, _Done):
            pass
        except E.StatusError as exc:
            if exc.code == 404:
                return
            raise _Retry(exc.message) from None

    def _update(self, key: ObjKey, uid: str, change: Any) -> None:
        store = self._store_of(key)
        if store is None:
            raise _Skip()

        def transform(cur: dict[str, Any]) -> dict[str, Any]:
            if uid and (cur.get("metadata") or {}).get("uid") != uid:  # the UID precondition of the patch
                raise _Skip()
            new = copy.deepcopy(cur)
            if not change(new["metadata"]):
                raise _Skip()
            return new
        self.writes.update(store, key.namespace, key.name, transform=transform, field_manager=KCM)

    def _remove_references(self, key: ObjKey, uid: str, owner_uids: set[str]) -> None:
        """`GenerateDeleteOwnerRefStrategicMergeBytes`: drop the references to `owner_uids`."""
        def change(meta: dict[str, Any]) -> bool:
            refs = meta.get("ownerReferences") or []
            kept = [r for r in refs if not (isinstance(r, dict) and str(r.get("uid")) in owner_uids)]
            if len(kept) == len(refs):
                return False
            if kept:
                meta["ownerReferences"] = kept
            else:
                meta.pop("ownerReferences", None)
            return True
        self._update(key, uid, change)

    def _unblock_references(self, key: ObjKey, uid: str) -> None:
        """`unblockOwnerReferencesStrategicMergePatch`: blockOwnerDeletion=false on every reference."""
        def change(meta: dict[str, Any]) -> bool:
            changed = False
            for r in meta.get("ownerReferences") or []:
                if isinstance(r, dict) and r.get("blockOwnerDeletion") is True:
                    r["blockOwnerDeletion"] = False
                    changed = True
            return changed
        self._update(key, uid, change)

    def _remove_finalizer(self, key: ObjKey, uid: str, finalizer: str) -> None:
        """`removeFinalizer`: the last finalizer gone, the registry removes the object."""
        def change(meta: dict[str, Any]) -> bool:
            fins = meta.get("finalizers") or []
            if finalizer not in fins:
                return False
            kept = [f for f in fins if f != finalizer]
            if kept:
                meta["finalizers"] = kept
            else:
                meta.pop("finalizers", None)
            return True
        self._update(key, uid, change)

    def _delete(self, key: ObjKey, uid: str, rv: str, policy: str) -> None:
        """`deleteObject`: UID and resourceVersion preconditions; a conflict is tried again from the top."""
        store = self._store_of(key)
        if store is None:
            raise _Skip()
        self.writes.delete(store, key.namespace, key.name,
                           DeleteOptions(propagation_policy=policy, uid=uid, resource_version=rv or None))


class _Done(Exception):
    """The item needs nothing (`namespacedOwnerOfClusterScopedObjectErr`): forget it."""
