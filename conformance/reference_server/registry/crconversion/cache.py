"""Each served version's watch cache of a CRD with a conversion webhook, as kube-apiserver 1.33 keeps one
(`apiextensions-apiserver/pkg/apiserver/customresource_handler.go`: a storage per served version, each decorated
with a cacher; `apiserver/pkg/storage/cacher/cacher.go`: the cacher's reflector LISTs then WATCHes etcd through
that version's codec, so every stored change is decoded, and converted by the webhook, once per served version,
whether or not anyone watches; `client-go/tools/cache/reflector.go`: its watch loop).

What a webhook author sees, and what this module does the same way:
- the caches start with the first request for the CRD's resources (`getOrCreateServingInfoFor` makes its
  storages, one per served version, and `NewCacherFromConfig` starts each cacher's reflector at once): a client's
  (http/handlers.py), the namespace deleter's DeleteCollection of every namespaced resource it discovered
  (controller/crconversion.py `delete_collection_requests`), or, in a kind cluster, the garbage collector's (and
  resource quota controller's) informers' LIST of a resource their discovery sync found new, every 30 s
  (controller/garbagecollector.py `_discovery_sync`), and their re-watch right after a spec change ended the
  old caches' watches (`Caches.start_all` with the CRDs they watch). Each makes a LIST whose objects are
  converted one review each (`etcd3/store.go` `GetList` decodes item by item, and stops at the first failure),
  then one review per change (`etcd3/watcher.go` decodes an ADDED/MODIFIED event's object and a DELETED event's
  last state); a spec change of the CRD retires them (`updateCustomResourceDefinition`: no request reaches them
  any more, new ones start at the next) and a second later ends them and their watches (`tearDown`);
- a watch of that version is served from its cache: every watcher gets the cache's conversion, none asks again
  (one at resourceVersion "0" begins with the cache's own state, `getAllEventsSinceLocked(0)`: http/watch.py
  `_cache_state`; each ends at its `timeoutSeconds`, whatever change the cache is still converting); a
  watch resuming from before the cache's LIST is answered the 410 `too old resource version: <rv> (<list rv>)`
  (`watch_cache.go` `getAllEventsSinceLocked`, an ERROR event on a 200 stream);
- a LIST that 1.33 serves from the cache (http/cacheread.py `from_cache`), and a GET at a resourceVersion
  (`delegator.go` `Get`), answer the cache's own state, at its resourceVersion (`watchCache.list`,
  `WaitUntilFreshAndGet`: `CACHE_STATE`, read by the registry's `list` and `get`), in its conversions (`SERVING`,
  read by the versions' `list` and `_finish`): no review is sent, once the cache has converted every change up to
  that resourceVersion (a progress mark through its watch, as `waitUntilFreshAndBlock` waits; at "0" at once, so
  a cache still converting a change, or stalled on one, answers what it held before it); a cache not ready answers
  such a LIST 429 as it answers a watch (`cacher.GetList`), but leaves a LIST with a limit and no selector, and a
  GET, to storage (`shouldDelegateListOnNotReadyCache`, `ResilientWatchCacheInitialization`);
- a change the webhook fails to convert ends etcd3's watch with an `InternalError` event; the reflector retries
  the watch from its last resourceVersion at once (the same change, converted again: `reflector.go` `watch`
  `continue`s without a backoff) for `MaxInternalErrorRetryDuration` (30 s); then `ListAndWatch` returns, the
  cache is not ready (a new watch is answered 429 `storage is (re)initializing`, `retryAfterSeconds` 1:
  `cacher.Watch`), and a second later `startCaching` ends every watch of that cache (`terminateAllWatchers`: the
  stream closes, no error event) and LISTs again, every second until the LIST converts.

Events this cache passed without converting them (while a watch waited on it) are converted by the watch itself
(http/crconversion.py `present_event`)."""
from __future__ import annotations

import asyncio
import contextlib
import contextvars
import math
import time
from typing import Any, Callable, Collection, Iterator

from ... import apierrors as E
from ...aiotime import within
from ...storage import Progress
from ...storage.interface import Event
from ...storage.memory import key_order
from ..store import CACHE_STATE, ListOptions
from ..versions import Presented
from .watches import Attached, PlainCache, Watches
from .webhook import GetService, presented

RETRY_SECONDS = 30.0  # cacher.go: `reflector.MaxInternalErrorRetryDuration = time.Second * 30`
REWATCH_SECONDS = 0.001  # ours: the round trip of the new etcd watch each of the reflector's retries opens
RELIST_SECONDS = 1.0  # cacher.go: `wait.Until(startCaching, time.Second)`
FIRST_LIST_SECONDS = 5.0  # ours: how long a watch or LIST waits for a new cache's first LIST before its 429
# customresource_handler.go `tearDown`: `time.Sleep(time.Second)` lets in-flight requests register, then waits for
# them to drain (a watch is not one of them) before `DestroyFunc`
TEARDOWN_SECONDS = 1.0
FRESH_SECONDS = 3.0  # watch_cache.go `blockTimeout`: how long a LIST waits for the cache to reach its revision
REINITIALIZING = "storage is (re)initializing"


class Terminated(Exception):
    """The cache ended its watches (`terminateAllWatchers`): the stream closes without an event."""


# the cache a LIST is served from (set by the HTTP layer around the registry's LIST: http/crconversion.py)
SERVING: contextvars.ContextVar[VersionCache | None] = contextvars.ContextVar("crcache_serving", default=None)

_PASSED = object()  # a future's answer: the cache is past this event without converting it (look again)


def reinitializing(last_error: str | None, downtime: float) -> E.StatusError:
    """cacher.go `Watch` on a cache not ready: `errors.NewTooManyRequests` of ready.go's error (the last LIST's
    error after it) and `calculateRetryAfterForUnreadyCache(downtime)`."""
    message = f"{REINITIALIZING}: {last_error}" if last_error else REINITIALIZING
    retry = int(min(30.0, max(1.0, math.exp(0.06 * downtime))))
    return E.StatusError(E.status_dict(429, "TooManyRequests", message, {"retryAfterSeconds": retry}))


class VersionCache(Watches):
    """One served version's cache (`store`: that version's store, whose `present` decodes a stored object)."""

    def __init__(self, store: Any, get_service: GetService, loop: asyncio.AbstractEventLoop):
        super().__init__()
        self.store, self.get_service, self.loop = store, get_service, loop
        self.key = "conversion:" + str(getattr(store, "present_key", store.api_version))
        self.ready = False  # ready.go's state: Pending until a LIST converts, Pending again when the watch gives up
        self.last_error: str | None = None  # ready.go `lastErr`: what the last LIST and WATCH ended with
        self.changed_at = time.monotonic()  # `lastStateChangeTime`
        self.synced_rv = 0  # every change up to here is converted (or was listed past)
        # (resourceVersion, converted, stored) of each object the cache holds, by (namespace, name)
        self.objects: dict[tuple[str, str], tuple[int, Any, dict[str, Any]]] = {}
        self.pending: list[tuple[int, asyncio.Future]] = []
        self._watcher: Any = None
        self.listed = asyncio.Event()  # the first LIST is over (converted or not)
        # a context of its own: the request that starts it must not lend it its context variables (a pinned read,
        # a deadline, a memo)
        self.task = contextvars.Context().run(loop.create_task, self._run())

    # ---- the reflector ----------------------------------------------------------------------------
    async def _run(self) -> None:
        while not self.stopped:
            self._terminate_all()
            error: str | None = None
            try:
                error = await self._list_and_watch()
            except Exception as exc:  # noqa: BLE001 - the storage failed (closed, unreachable): LIST again
                error = str(exc)
            finally:
                self._set(False, error)  # startCaching: `c.ready.setError(err)`
                if self._watcher is not None:
                    self._watcher.close()
                    self._watcher = None
            await asyncio.sleep(RELIST_SECONDS)

    def _set(self, ok: bool, error: str | None = None) -> None:
        """ready.go `set`: the error kept, the time of a change of state noted."""
        self.last_error = error
        if ok != self.ready:
            self.ready, self.changed_at = ok, time.monotonic()

    async def _list_and_watch(self) -> str | None:
        """The reflector's `ListAndWatch`: the LIST's error (`failed to list <gvk>: ...`), or None when its watch
        gave up or ended."""
        base = getattr(self.store, "base", self.store)  # a served version's view reads the storage version's store
        items, rv = base.store.list(base.info.plural, None, shared=True)
        backlog, self._watcher, _ = base.watch(None, ListOptions(resource_version=str(rv)), self.loop)
        objects: dict[tuple[str, str], tuple[int, Any, dict[str, Any]]] = {}
        try:
            for obj in items:  # GetList: one decoding (review) per object; the first failure ends the LIST
                try:
                    shown = await self._decode(obj)
                except E.StatusError as exc:
                    gvk = f"{self.store.api_version}, Kind={self.store.info.kind}"  # (GroupVersionKind.String())
                    return f"failed to list {gvk}: {exc.status.get('message', '')}"
                meta = obj.get("metadata") or {}
                objects[(meta.get("namespace") or "", meta.get("name") or "")] = (_rv(obj), shown, obj)
            self.objects, self.list_rv = objects, int(rv)
            self._set(True)
        finally:
            self.listed.set()
        self._advance(int(rv))
        queue = self._watcher.queue
        for ev in backlog:
            if not await self._process(ev):
                return None
        while not self.stopped:
            ev = await queue.get()
            if ev is None:
                return None
            if isinstance(ev, Progress):  # every change before it is converted (asked for by `reach`)
                self._advance(ev.rv)
                continue
            if not await self._process(ev):
                return None
        return None

    async def _process(self, ev: Any) -> bool:
        """One change converted (retried at once for RETRY_SECONDS while the webhook fails: `retry.ShouldRetry`);
        False when given up."""
        first = 0.0
        while True:
            try:
                shown = await self._decode(ev.object)
                break
            except E.StatusError:
                now = time.monotonic()
                first = first or now
                if now - first > RETRY_SECONDS or self.stopped:
                    return False
                await asyncio.sleep(REWATCH_SECONDS)  # (a failure without I/O, a missing Service, must not spin)
        key = (ev.namespace, ev.name)
        prev = self.objects.get(key)
        if ev.type == "DELETED":
            self.objects.pop(key, None)
        else:
            self.objects[key] = (ev.rv, shown, ev.object)
        fut = ev.encoded.get(self.key)
        if fut is None:
            fut = ev.encoded[self.key] = self.loop.create_future()
        if not fut.done():
            fut.set_result((shown, prev[1] if prev is not None else None))
        self._advance(ev.rv)
        return True

    async def _decode(self, obj: dict[str, Any]) -> Any:
        """`obj` decoded in this version (a review when it is in another; in this one, the converter's no-call
        success in the metrics: `crConverter.ConvertToVersion` has no early return)."""
        converter = getattr(self.store, "converter", None)
        if converter is not None and obj.get("apiVersion") == self.store.api_version and \
                getattr(self.store, "base", None) is None:  # (a served version's converter counts it itself)
            converter.no_call(obj, self.store.api_version)
        return await presented(self.store.present, obj, self.get_service)

    def _advance(self, rv: int) -> None:
        self.synced_rv = max(self.synced_rv, rv)
        waiting = []
        for at, fut in self.pending:
            if at <= self.synced_rv:
                if not fut.done():
                    fut.set_result(_PASSED)
            else:
                waiting.append((at, fut))
        self.pending = waiting

    def _terminate_all(self) -> None:
        """`terminateAllWatchers`: every watch of this cache ends, and what they wait for."""
        self._end_watches()
        for _, fut in self.pending:
            if not fut.done():
                fut.set_exception(Terminated())
                fut.exception()  # (marked retrieved: a watch that went away meanwhile is not an error to log)
        self.pending = []

    def stop(self) -> None:
        """The cache ends (the server stops, or it retires); a watch still waiting on it converts itself."""
        self.stopped = True
        self.task.cancel()
        for _, fut in self.pending:
            if not fut.done():
                fut.set_result(_PASSED)
        self.pending = []
        if self._watcher is not None:
            self._watcher.close()
            self._watcher = None

    # ---- the watches it serves ---------------------------------------------------------------------
    async def attach(self, queue: asyncio.Queue) -> Attached:
        """A new watch of this version (429 while the cache is not ready, as `cacher.Watch` answers; a new cache's
        first LIST is waited for, as long as upstream's LIST of etcd would take)."""
        await self.first_list()
        refused = self.not_ready()
        if refused is not None:
            raise refused
        return await super().attach(queue)

    async def first_list(self) -> None:
        """A new cache's first LIST, waited for as long as upstream's LIST of etcd would take."""
        if not self.listed.is_set():
            try:
                await within(self.listed.wait(), FIRST_LIST_SECONDS)
            except asyncio.TimeoutError:
                pass

    def not_ready(self) -> E.StatusError | None:
        """The 429 of a cache not ready (`ready.check`), or None."""
        if not self.ready and not self.stopped:
            return reinitializing(self.last_error, time.monotonic() - self.changed_at)
        return None

    async def reach(self, want: int, timeout: float = FRESH_SECONDS) -> bool:
        """Whether every change up to `want` is converted within `timeout` (`waitUntilFreshAndBlock`; a progress
        mark asked of the cache's watch moves it past other resources' writes, as etcd's progress notify)."""
        end = self.loop.time() + timeout
        while self.synced_rv < want:
            if not self.ready or self.stopped or self._watcher is None:
                return False
            fut = self.loop.create_future()
            self.pending.append((want, fut))
            self._watcher.request_progress()
            try:
                await within(asyncio.shield(fut), max(0.0, end - self.loop.time()))
            except (asyncio.TimeoutError, Terminated):
                return False
        return True

    def converted(self, item: dict[str, Any]) -> Any | None:
        """A stored object (or a LIST's item) as this cache converted it, its top-level and metadata dicts new
        (as a store's `_finish` makes them), or None when the cache holds it at another resourceVersion."""
        meta = item.get("metadata") or {}
        hit = self.objects.get((meta.get("namespace") or "", meta.get("name") or ""))
        if hit is None or str(hit[0]) != str(meta.get("resourceVersion")):
            return None
        shown = hit[1]
        out = type(shown)(shown)
        if isinstance(shown, Presented):
            out.stored = shown.stored
        if isinstance(out.get("metadata"), dict):
            out["metadata"] = dict(out["metadata"])
        return out

    def held_list(self, storage: Any, namespace: str | None) -> tuple[list[dict[str, Any]], int] | None:
        """The stored objects this cache holds (of `namespace`, or all), sorted by key, and the resourceVersion it
        has reached (`watchCache.list`: its store, `w.resourceVersion`); None for another storage (registry/
        store.py `CacheState`)."""
        if storage is not self._storage():
            return None
        keys = sorted((k for k in self.objects if namespace is None or k[0] == namespace), key=key_order)
        return [self.objects[k][2] for k in keys], self.synced_rv

    def held_one(self, storage: Any, namespace: str, name: str) -> tuple[dict[str, Any] | None] | None:
        """(the stored object this cache holds under `namespace`/`name`, or None): `WaitUntilFreshAndGet`'s
        answer; None for another storage."""
        if storage is not self._storage():
            return None
        hit = self.objects.get((namespace or "", name))
        return (hit[2] if hit is not None else None,)

    def initial_events(self, namespace: str | None) -> tuple[list[Event], int] | None:
        """A watch at resourceVersion "0" (`getAllEventsSinceLocked(0)`): an ADDED event per object this cache
        holds (of `namespace`, or all), each with the cache's conversion, and the resourceVersion its changes
        follow from; None while the cache is not ready."""
        if not self.ready or self.stopped:
            return None
        out: list[Event] = []
        for key in sorted(k for k in self.objects if namespace is None or k[0] == namespace):
            rv, shown, stored = self.objects[key]
            ev = Event("ADDED", self.store.info.plural, key[0], key[1], rv, stored, None)
            fut = ev.encoded[self.key] = self.loop.create_future()  # (read by `shown`)
            fut.set_result((shown, None))
            out.append(ev)
        return out, self.synced_rv

    def _storage(self) -> Any:
        return getattr(self.store, "base", self.store).store

    async def shown(self, ev: Any, att: Attached) -> tuple[Any, Any] | None:
        """(the event's object, the object's previous state or None) as this cache converted them, or None when
        it did not (the caller converts); `Terminated` once the cache has ended its watches."""
        while True:
            if att.generation != self.generation and not self.stopped:
                raise Terminated()
            fut = ev.encoded.get(self.key)
            if fut is None:
                if self.stopped or ev.rv <= self.synced_rv:
                    hit = self.objects.get((ev.namespace, ev.name))
                    if hit is not None and hit[0] == ev.rv and ev.type != "DELETED" and not self.stopped:
                        return hit[1], None
                    return None
                fut = ev.encoded[self.key] = self.loop.create_future()
                self.pending.append((ev.rv, fut))
            got = await asyncio.shield(fut)
            if got is not _PASSED:
                return got
            if fut is ev.encoded.get(self.key):
                del ev.encoded[self.key]


class Caches:
    """The running caches, by CRD: started by a CRD's first request (the garbage collector's, or a client's),
    replaced when its spec or accepted names change. A CRD with a conversion webhook has a `VersionCache` per
    served version, one without a `PlainCache` (watches.py: only its LIST's resourceVersion and its watches)."""

    def __init__(self, get_service: GetService):
        self.get_service = get_service
        self._by_crd: dict[str, tuple[Any, dict[str, Watches]]] = {}
        self._retiring: set[Watches] = set()  # replaced caches whose watches end a second later

    def ensure(self, crd_name: str, key: Any, stores: Callable[[], list[Any]],
               current: Callable[[str], Any], webhook: bool = True) -> None:
        """The caches of `crd_name`'s served versions (`stores()`), under `key` (registry/crd.py `crd_key`);
        `current(name)`: a CRD's key now (None when gone), to retire the caches of CRDs changed since."""
        kept = self._by_crd.get(crd_name)
        if kept is not None and kept[0] == key:
            return
        self._sweep(current, crd_name)
        loop = asyncio.get_running_loop()
        made: dict[str, Watches] = {}
        for s in stores():
            if webhook:
                made[s.api_version] = VersionCache(s, self.get_service, loop)
            else:  # (its LIST: storage's resourceVersion now)
                made[s.api_version] = PlainCache(getattr(s, "base", s).store.current_rv())
        self._by_crd[crd_name] = (key, made)

    def start(self, custom: Any, store: Any) -> None:
        """The caches of the CRD `store` (a served version's) serves (`custom`: registry/crd.py's
        `CustomResources`), unless they run."""
        base = getattr(store, "base", store)
        key = getattr(base, "crd_key", None)
        if key is not None:
            converter = getattr(base, "converter", None)
            self.ensure(base.crd_name, key, lambda: custom.served(base.crd_name), custom.crd_key,
                        webhook=converter is not None and bool(converter.webhook))

    def start_all(self, custom: Any, names: Collection[str] | None = None) -> None:
        """The caches of every Established CRD, or of those named in `names` (the CRDs a kind cluster's
        controllers make requests for: their first starts the caches), unless they run; the caches of a CRD
        changed or deleted since they started end (`updateCustomResourceDefinition`, `removeDeadStorage`)."""
        self._sweep(custom.crd_key)
        for store in custom.stores():
            if names is None or store.crd_name in names:
                self.start(custom, store)

    def sweep(self, custom: Any) -> None:
        """The caches of every CRD changed or deleted since they started retire (a new request starts others)."""
        self._sweep(custom.crd_key)

    def _sweep(self, current: Callable[[str], Any], also: str = "") -> None:
        """Retire the caches of `also` and of every CRD changed or gone since they started: no request reaches
        them any more (`removeStorage_locked`), their watches end `TEARDOWN_SECONDS` later (`tearDown`)."""
        for name, (old_key, caches) in list(self._by_crd.items()):
            if name == also or current(name) != old_key:
                loop = asyncio.get_running_loop()
                for cache in caches.values():
                    self._retiring.add(cache)
                    loop.call_later(TEARDOWN_SECONDS, self._retire, cache)
                del self._by_crd[name]

    def _retire(self, cache: Watches) -> None:
        self._retiring.discard(cache)
        cache.retire()

    def running(self, crd_name: str) -> bool:
        """Whether the CRD's conversion caches run (a request for its resources has made its storages)."""
        kept = self._by_crd.get(crd_name)
        return kept is not None and any(isinstance(c, VersionCache) for c in kept[1].values())

    def watches_of(self, store: Any) -> Watches | None:
        """The running cache, of either kind, of a served version's store, if any."""
        kept = self._by_crd.get(getattr(store, "crd_name", ""))
        cache = kept[1].get(getattr(store, "api_version", "")) if kept is not None else None
        return cache if cache is not None and not cache.stopped else None

    def of(self, store: Any) -> VersionCache | None:
        """The running conversion cache of a served version's store, if any."""
        cache = self.watches_of(store)
        return cache if isinstance(cache, VersionCache) else None

    def stop(self) -> None:
        for _, caches in self._by_crd.values():
            for cache in caches.values():
                cache.stop()
        for cache in self._retiring:
            cache.stop()
        self._retiring.clear()
        self._by_crd.clear()


@contextlib.contextmanager
def serving(cache: VersionCache) -> Iterator[None]:
    """A read the version's `cache` serves: its objects as the cache holds and converted them."""
    token, state = SERVING.set(cache), CACHE_STATE.set(cache)
    try:
        yield
    finally:
        CACHE_STATE.reset(state)
        SERVING.reset(token)


def served_items(store: Any, items: list[Any]) -> list[Any | None]:
    """Each of a LIST's items as the cache it is served from (`SERVING`) converted it, when that is `store`'s;
    None for an item it holds at another resourceVersion (the caller converts it)."""
    cache = SERVING.get()
    if cache is None or cache.store is not store:
        return [None] * len(items)
    return [cache.converted(i) for i in items]


def served_item(store: Any, obj: dict[str, Any]) -> Any | None:
    """A stored object read by a GET or LIST served from `store`'s cache (`SERVING`), as the cache converted it;
    None otherwise (the caller converts it)."""
    cache = SERVING.get()
    return cache.converted(obj) if cache is not None and cache.store is store else None


def _rv(obj: dict[str, Any]) -> int:
    try:
        return int((obj.get("metadata") or {}).get("resourceVersion") or 0)
    except (TypeError, ValueError):
        return 0
