"""In-memory versioned store: one global resourceVersion, per-(resource, namespace) index, bounded history.

Writers never block on watchers: each event is put on a watcher's asyncio queue (directly when the write
runs on the watcher's loop, else through `call_soon_threadsafe`), so a slow stream only grows its own queue.
A lock makes every operation atomic, so the store is safe from any thread.

Stored objects are immutable by convention: a write stores a fresh copy and never edits a stored dict in
place (it replaces it). So watch events and the history share the stored objects, and callers get copies
(`clone`, a deep copy specialised to JSON data): nothing a caller does to what it got reaches the store.
The `shared=True` reads hand out the stored objects themselves, for callers that only read (serialise)
them and promise never to mutate them.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections import deque
from time import perf_counter
from typing import Any, Callable

from .clone import clone
from .errors import FUTURE_REVISION, BackendError, KeyExistsError, KeyNotFoundError, TooOldResourceVersionError
from .keys import object_key as stored_key
from .interface import DELETE, NO_OBSERVER, Event, Progress, StorageObserver, UpdateFn, object_key
from .leases import REUSE_DURATION_SECONDS, LeaseManager
from .memoryleases import MemoryLeases
from .rehearsal import Rehearsed, rehearsing
from .rvwait import RevisionWaiters


class MemoryWatcher:
    """A subscription to one resource (optionally one namespace)."""

    def __init__(self, store: "MemoryStore", resource: str, namespace: str | None,
                 loop: asyncio.AbstractEventLoop):
        self._store = store
        self.resource = resource
        self.namespace = namespace
        self.loop = loop
        self.queue: asyncio.Queue = asyncio.Queue()
        self.closed = False
        self._pending: list[Event | None] = []  # delivered from another thread, not yet on the loop
        self._pending_lock = threading.Lock()

    def matches(self, ev: Event) -> bool:
        return ev.resource == self.resource and (self.namespace is None or ev.namespace == self.namespace)

    def deliver(self, item: Event | None) -> None:
        # None in a thread without a loop (the etcd reflector's): no exception raised and caught per event
        on_loop = asyncio._get_running_loop() is self.loop
        with self._pending_lock:
            if on_loop and not self._pending:  # the write runs on the watcher's loop: no wake-up needed
                self.queue.put_nowait(item)
                return
            self._pending.append(item)
            if len(self._pending) > 1:  # a hand-over to the loop is already on its way: it takes this too
                return
        try:  # one wake-up of the loop per run of events (the etcd cache's reflector sends thousands)
            self.loop.call_soon_threadsafe(self._hand_over)
        except RuntimeError:  # loop closed: the watch is gone
            self.closed = True

    def _hand_over(self) -> None:
        with self._pending_lock:
            items, self._pending = self._pending, []
        for item in items:
            self.queue.put_nowait(item)

    def request_progress(self) -> None:
        with self._store.atomic():  # no write can slip between reading the RV and queueing the mark
            self.deliver(Progress(self._store.current_rv()))

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._store._unregister(self)


def key_order(namespace_name: str | tuple[str, str]) -> str:
    """The sort key of a namespace (or a (namespace, name)) that orders objects as etcd orders their keys, bytewise
    (`<namespace>/<name>`; a name or namespace holds no `/`, and for these ASCII strings code points are bytes)."""
    if isinstance(namespace_name, str):
        return namespace_name + "/"
    return f"{namespace_name[0]}/{namespace_name[1]}"


class BucketIndex(dict):
    """`{(resource, namespace): {name: object}}` that also keeps each resource's namespaces, so that reading one
    resource across namespaces visits that resource's buckets only, not every resource's in every namespace
    (with 10,000 namespaces, every create looked through 30,000 keys to list the CRDs)."""

    def __init__(self) -> None:
        super().__init__()
        self.namespaces: dict[str, set[str]] = {}

    def __setitem__(self, key: tuple[str, str], value: dict[str, Any]) -> None:
        super().__setitem__(key, value)
        self.namespaces.setdefault(key[0], set()).add(key[1])

    def setdefault(self, key: tuple[str, str], default: Any = None) -> Any:  # type: ignore[override]
        if key not in self:
            self[key] = {} if default is None else default
        return self[key]

    def __delitem__(self, key: tuple[str, str]) -> None:
        super().__delitem__(key)
        left = self.namespaces.get(key[0])
        if left is not None:
            left.discard(key[1])
            if not left:
                del self.namespaces[key[0]]

    def clear(self) -> None:
        super().clear()
        self.namespaces.clear()

    def buckets(self, resource: str) -> list[tuple[str, dict[str, Any]]]:
        """(namespace, bucket) of `resource`, in etcd's key order: by `<namespace>/` (`a-b/x` before `a/x`)."""
        return [(ns, self[(resource, ns)]) for ns in sorted(self.namespaces.get(resource, ()), key=key_order)]


class MemoryStore:
    """The reference implementation of `storage.Store`. As kube-apiserver's etcd and watch cache in one, it
    reports each write as an etcd request (its transaction: `create`, also when the key exists, `update`,
    `delete`) and each change as one the watch cache received (`StorageObserver`); its reads are the cache's."""

    observer: StorageObserver = NO_OBSERVER

    def __init__(self, history_size: int = 10000, start_rv: int = 1,
                 lease_reuse_seconds: int = REUSE_DURATION_SECONDS):
        self._lock = threading.RLock()
        self._rv = start_rv
        self._index = BucketIndex()
        self._history: deque[Event] = deque()
        self._history_size = history_size
        self._compacted = 0
        self._watchers: list[MemoryWatcher] = []
        self._watching: dict[str, list[MemoryWatcher]] = {}  # resource → its watchers: an event visits only those
        self._rv_waiters = RevisionWaiters()  # reads at a resourceVersion not reached yet (rvwait.py)
        self._leases = MemoryLeases(self._revoke)  # TTL'd objects (Events) expire as etcd's leases remove them
        self._lease_manager = LeaseManager(self._leases.grant, lambda n: self.observer.lease_objects(n),
                                           lease_reuse_seconds)

    def observe(self, observer: StorageObserver) -> None:
        self.observer = observer

    def atomic(self) -> Any:
        """The store lock (re-entrant), for check-then-write sequences spanning two keys; not held by a write's
        rehearsal off the loop (storage/rehearsal.py), which never commits: its write is redone under the lock."""
        return contextlib.nullcontext() if rehearsing() else self._lock

    # ---- reads -------------------------------------------------------------------------------------
    def current_rv(self) -> int:
        return self._rv  # one attribute read (atomic): the lock would only order it with writes it cannot see

    def when_rv(self, rv: int, loop: asyncio.AbstractEventLoop) -> asyncio.Future:
        """A future settled (on `loop`) once the store's resourceVersion reaches `rv` (`rvwait.reach`)."""
        return self._rv_waiters.add(rv, loop)

    def forget_rv_wait(self, fut: asyncio.Future) -> None:
        self._rv_waiters.discard(fut)

    def compacted_rv(self) -> int:
        with self._lock:
            return self._compacted

    def db_size(self) -> int | None:
        """What the revisions this store keeps would take as etcd keys and JSON values, in bytes: each live object
        and each one its history still holds (etcd's keyspace until compaction). There is no database file, so
        this stands for `apiserver_storage_size_bytes`; each object is encoded once (stored objects are
        immutable: the memo, keyed by identity, holds them)."""
        with self._lock:
            kept = [(r, ns, o) for (r, ns), bucket in self._index.items() for o in bucket.values()]
            for ev in self._history:
                kept.append((ev.resource, ev.namespace, ev.object))
                if ev.prev is not None:
                    kept.append((ev.resource, ev.namespace, ev.prev))
        memo, sizes = getattr(self, "_sizes", {}), {}
        total = 0
        for resource, ns, obj in kept:
            if id(obj) in sizes:
                continue  # one revision, counted once
            hit = memo.get(id(obj))
            if hit is None or hit[0] is not obj:
                key = stored_key("/registry", resource, ns, obj["metadata"]["name"])
                hit = (obj, len(key) + len(json.dumps(obj, separators=(",", ":")).encode()))
            sizes[id(obj)] = hit
            total += hit[1]
        self._sizes = sizes
        return total

    def get(self, resource: str, namespace: str, name: str, *, shared: bool = False) -> dict[str, Any]:
        """A copy of the object; `shared=True`: the stored object itself, which the caller must not mutate."""
        with self._lock:
            obj = self._index.get((resource, namespace), {}).get(name)
            if obj is None:
                raise KeyNotFoundError(object_key(resource, namespace, name))
            return obj if shared else clone(obj)

    def list(self, resource: str, namespace: str | None, *,
             shared: bool = False) -> tuple[list[dict[str, Any]], int]:
        """Objects sorted by key; `namespace=None` lists every namespace. `shared` as for `get`."""
        with self._lock:
            if namespace is not None:
                bucket = self._index.get((resource, namespace), {})
                items = [bucket[n] for n in sorted(bucket)]
            else:
                items = []
                for _, bucket in self._index.buckets(resource):
                    items.extend(bucket[n] for n in sorted(bucket))
            return (items if shared else clone(items)), self._rv

    def list_at(self, resource: str, namespace: str | None, rv: int, *,
                shared: bool = False) -> tuple[list[dict[str, Any]], int]:
        """The objects as they were at `rv` (etcd's range read at a revision), sorted by key, and `rv`;
        `TooOldResourceVersionError` when the history back to `rv` has been compacted. An `rv` at or past
        the newest write reads the current state; one past it is etcd's refusal (`BackendError`). Reported as the
        etcd `list` it stands for (kube-apiserver 1.33 sends a LIST at a resourceVersion, or a continued one, to
        etcd; a compacted one fails), the range's objects fetched, evaluated and returned alike."""
        start = perf_counter()
        try:
            out = self._list_at(resource, namespace, rv, shared)
        except TooOldResourceVersionError:  # etcd's "required revision has been compacted": a failed request
            self.observer.request("list", resource, perf_counter() - start, True)
            raise
        self.observer.request("list", resource, perf_counter() - start, False)
        self.observer.listed(resource, len(out[0]), len(out[0]), len(out[0]))
        return out

    def _list_at(self, resource: str, namespace: str | None, rv: int,
                 shared: bool) -> tuple[list[dict[str, Any]], int]:
        with self._lock:
            if rv > self._rv:  # what etcd answers a range at a revision it has not made (a forged continue token)
                raise BackendError(FUTURE_REVISION)
            if rv == self._rv:
                return self.list(resource, namespace, shared=shared)
            if rv < self._compacted:
                raise TooOldResourceVersionError(rv, self._compacted)
            items, _ = self.list(resource, namespace, shared=True)
            state = {(o["metadata"].get("namespace", ""), o["metadata"]["name"]): o for o in items}
            for ev in reversed(self._history):  # undo every change made after `rv`, newest first
                if ev.rv <= rv:
                    break
                if ev.resource != resource or (namespace is not None and ev.namespace != namespace):
                    continue
                if ev.type == "ADDED":
                    state.pop((ev.namespace, ev.name), None)
                elif ev.prev is not None:
                    state[(ev.namespace, ev.name)] = ev.prev
            out = [state[k] for k in sorted(state, key=key_order)]
            return (out if shared else clone(out)), rv

    def count(self, resource: str, namespace: str | None) -> int:
        with self._lock:
            if namespace is not None:
                return len(self._index.get((resource, namespace), {}))
            return sum(len(bucket) for _, bucket in self._index.buckets(resource))

    def check_rv(self, rv: int) -> None:
        """Raise `TooOldResourceVersionError` when history at `rv` has been compacted."""
        with self._lock:
            if 0 < rv < self._compacted:
                raise TooOldResourceVersionError(rv, self._compacted)

    # ---- writes ------------------------------------------------------------------------------------
    def create(self, resource: str, namespace: str, name: str, obj: dict[str, Any],
               ttl: int = 0) -> dict[str, Any]:
        """`ttl` > 0: attached to the lease manager's lease (granted before the transaction, as upstream's
        `ttlOpts`), removed when it expires."""
        if rehearsing():
            raise Rehearsed
        start = perf_counter()
        lease = self._lease_manager.lease(ttl) if ttl else 0
        try:
            with self._lock:
                bucket = self._index.setdefault((resource, namespace), {})
                if name in bucket:
                    raise KeyExistsError(object_key(resource, namespace, name), clone(bucket[name]))
                stored = self._stamp(clone(obj))
                bucket[name] = stored
                self._leases.attach((resource, namespace, name), lease)
                self._emit("ADDED", resource, namespace, name, stored, None)
                return clone(stored)
        finally:  # a refused create was a transaction too (its compare failed)
            self.observer.request("create", resource, perf_counter() - start, False)

    def guaranteed_update(self, resource: str, namespace: str, name: str,
                          fn: UpdateFn, ttl: int = 0) -> tuple[dict[str, Any], bool]:
        """Apply `fn(copy_of_current)` atomically; it returns the new object or `DELETE`. A write with `ttl` > 0
        is attached to the lease manager's lease (a new or reused one: the expiry starts again), one without
        leaves its lease.

        Returns (object, deleted). An unchanged object is not rewritten (no new resourceVersion). Rehearsed
        (storage/rehearsal.py): `fn` runs on a copy of the current state outside the lock, and nothing is written.
        """
        if rehearsing():
            with self._lock:
                current = self._index.get((resource, namespace), {}).get(name)
            if current is None:
                raise KeyNotFoundError(object_key(resource, namespace, name))
            fn(clone(current))
            raise Rehearsed
        start = perf_counter()
        with self._lock:
            bucket = self._index.get((resource, namespace), {})
            current = bucket.get(name)
            if current is None:
                raise KeyNotFoundError(object_key(resource, namespace, name))
            new = fn(clone(current))
            if new is DELETE:
                gone = self._remove(resource, namespace, name)
                self.observer.request("delete", resource, perf_counter() - start, False)
                return gone, True
            if _same(new, current):  # no transaction (upstream returns before it, too)
                return clone(current), False
            stored = self._stamp(clone(new))
            bucket[name] = stored
            self._leases.attach((resource, namespace, name), self._lease_manager.lease(ttl) if ttl else 0)
            self._emit("MODIFIED", resource, namespace, name, stored, current)
            out = clone(stored)
        self.observer.request("update", resource, perf_counter() - start, False)
        return out, False

    def delete(self, resource: str, namespace: str, name: str,
               check: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
        """Remove the object (after `check(stored)` passes) and return its last state with the deletion RV.

        `check` gets the stored object itself (read-only: it must not mutate it) and raises to refuse."""
        if rehearsing():
            raise Rehearsed
        start = perf_counter()
        with self._lock:
            current = self._index.get((resource, namespace), {}).get(name)
            if current is None:
                raise KeyNotFoundError(object_key(resource, namespace, name))
            if check is not None:
                check(current)
            gone = self._remove(resource, namespace, name)
        self.observer.request("delete", resource, perf_counter() - start, False)
        return gone

    def create_many(self, items: list[tuple[str, str, str, dict[str, Any]]]) -> list[dict[str, Any] | Exception]:
        """`create` of each (resource, namespace, name, object) in turn: the stored object or the exception."""
        out: list[dict[str, Any] | Exception] = []
        for resource, ns, name, obj in items:
            try:
                out.append(self.create(resource, ns, name, obj))
            except Exception as e:  # noqa: BLE001 - handed back to the caller, item by item
                out.append(e)
        return out

    def delete_many(self, resource: str, items: list[tuple[str, str]],
                    check: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any] | Exception]:
        """`delete` of each (namespace, name) in turn: the last state, or the exception `delete` raised."""
        out: list[dict[str, Any] | Exception] = []
        for ns, name in items:
            try:
                out.append(self.delete(resource, ns, name, check))
            except Exception as e:  # noqa: BLE001 - handed back to the caller, item by item
                out.append(e)
        return out

    def compact(self, rv: int | None = None) -> None:
        """Drop history up to `rv` (default: everything), as etcd compaction does."""
        with self._lock:
            rv = self._rv if rv is None else rv
            while self._history and self._history[0].rv <= rv:
                self._history.popleft()
            self._compacted = max(self._compacted, rv)

    # ---- watch -------------------------------------------------------------------------------------
    def watch(self, resource: str, namespace: str | None, from_rv: int,
              loop: asyncio.AbstractEventLoop) -> tuple[list[Event], MemoryWatcher]:
        """Subscribe; returns the backlog (initial ADDED for rv 0, else history after rv) and the watcher."""
        self._leases.bind(loop)
        with self._lock:
            w = MemoryWatcher(self, resource, namespace, loop)
            if from_rv <= 0:
                items, _ = self.list(resource, namespace, shared=True)
                backlog = [Event("ADDED", resource, o["metadata"].get("namespace", ""), o["metadata"]["name"],
                                 int(o["metadata"]["resourceVersion"]), o, None) for o in items]
            else:
                if from_rv < self._compacted:
                    raise TooOldResourceVersionError(from_rv, self._compacted)
                backlog = []  # the history is in RV order: walk back from the newest event only as far as from_rv
                for ev in reversed(self._history):
                    if ev.rv <= from_rv:
                        break
                    if w.matches(ev):
                        backlog.append(ev)
                backlog.reverse()
            self._watchers.append(w)
            self._watching.setdefault(resource, []).append(w)
            return backlog, w

    def close_watchers(self) -> None:
        """End every watch (server shutdown), and the leases' expiry timer."""
        self._leases.close()
        with self._lock:
            watchers, self._watchers = self._watchers, []
            self._watching.clear()
        for w in watchers:
            w.deliver(None)
            w.closed = True

    def _unregister(self, w: MemoryWatcher) -> None:
        with self._lock:
            if w in self._watchers:
                self._watchers.remove(w)
            same = self._watching.get(w.resource)
            if same is not None and w in same:
                same.remove(w)
                if not same:
                    del self._watching[w.resource]

    def _revoke(self, lease_id: int) -> None:
        """An expired lease's keys deleted in one transaction (etcd's lessor revokes a lease so): one revision, a
        DELETED event per key at it."""
        with self._lock:
            present = [k for k in self._leases.take(lease_id) if k[2] in self._index.get((k[0], k[1]), {})]
            if not present:
                return
            self._rv += 1
            for resource, namespace, name in present:
                bucket = self._index[(resource, namespace)]
                last = bucket.pop(name)
                if not bucket:
                    del self._index[(resource, namespace)]
                gone = {**last, "metadata": {**(last.get("metadata") or {}), "resourceVersion": str(self._rv)}}
                self._emit("DELETED", resource, namespace, name, gone, last)

    # ---- internals ---------------------------------------------------------------------------------
    def _stamp(self, obj: dict[str, Any]) -> dict[str, Any]:
        """Set the next RV on `obj` (a fresh copy, not yet stored)."""
        self._rv += 1
        obj.setdefault("metadata", {})["resourceVersion"] = str(self._rv)
        return obj

    def _remove(self, resource: str, namespace: str, name: str) -> dict[str, Any]:
        bucket = self._index[(resource, namespace)]
        last = bucket.pop(name)
        self._leases.detach((resource, namespace, name))
        if not bucket:
            del self._index[(resource, namespace)]
        # the last state with the deletion RV: new top-level and metadata dicts, the rest shared with `last`
        # (which nothing mutates: stored objects are immutable by convention)
        gone = self._stamp({**last, "metadata": dict(last.get("metadata") or {})})
        self._emit("DELETED", resource, namespace, name, gone, last)
        return clone(gone)

    def _emit(self, typ: str, resource: str, namespace: str, name: str, obj: dict, prev: dict | None,
              rv: int | None = None) -> None:
        """Record and deliver one change at `rv` (default: the store's own newest resourceVersion; the etcd
        watch cache passes etcd's revision)."""
        # events share the stored (immutable-by-convention) objects: no copy per event or per watcher
        ev = Event(typ, resource, namespace, name, self._rv if rv is None else rv, obj, prev)
        self.observer.event(resource, ev.rv)
        self._history.append(ev)
        while len(self._history) > self._history_size:
            self._compacted = self._history.popleft().rv
        if self._rv_waiters:
            self._rv_waiters.wake(self._rv)
        watchers = self._watching.get(resource)
        if not watchers:
            return
        for w in list(watchers):
            if w.closed:
                self._unregister(w)
            elif namespace == w.namespace or w.namespace is None:
                w.deliver(ev)


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    ma, mb = dict(a.get("metadata", {})), dict(b.get("metadata", {}))
    ma.pop("resourceVersion", None)
    mb.pop("resourceVersion", None)
    return ma == mb and {k: v for k, v in a.items() if k != "metadata"} == \
        {k: v for k, v in b.items() if k != "metadata"}
