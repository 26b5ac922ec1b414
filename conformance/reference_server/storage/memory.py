"""In-memory versioned store: one global resourceVersion, per-(resource, namespace) index, bounded history.

Writers never block on watchers: each event is handed to a watcher's asyncio queue through its loop's
`call_soon_threadsafe`, so a slow stream only grows its own queue. A lock makes every operation atomic,
so the store is safe from any thread; objects go in and out as deep copies.
"""
from __future__ import annotations

import asyncio
import copy
import threading
from collections import deque
from typing import Any, Callable

from .errors import KeyExistsError, KeyNotFoundError, TooOldResourceVersionError
from .interface import DELETE, Event, UpdateFn, object_key


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

    def matches(self, ev: Event) -> bool:
        return ev.resource == self.resource and (self.namespace is None or ev.namespace == self.namespace)

    def deliver(self, item: Event | None) -> None:
        try:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, item)
        except RuntimeError:  # loop closed: the watch is gone
            self.closed = True

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._store._unregister(self)


class MemoryStore:
    """The reference implementation of `storage.Store`."""

    def __init__(self, history_size: int = 10000, start_rv: int = 1):
        self._lock = threading.RLock()
        self._rv = start_rv
        self._index: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
        self._history: deque[Event] = deque()
        self._history_size = history_size
        self._compacted = 0
        self._watchers: list[MemoryWatcher] = []

    def atomic(self) -> threading.RLock:
        """The store lock (re-entrant), for check-then-write sequences spanning two keys."""
        return self._lock

    # ---- reads -------------------------------------------------------------------------------------
    def current_rv(self) -> int:
        with self._lock:
            return self._rv

    def compacted_rv(self) -> int:
        with self._lock:
            return self._compacted

    def get(self, resource: str, namespace: str, name: str) -> dict[str, Any]:
        with self._lock:
            obj = self._index.get((resource, namespace), {}).get(name)
            if obj is None:
                raise KeyNotFoundError(object_key(resource, namespace, name))
            return copy.deepcopy(obj)

    def list(self, resource: str, namespace: str | None) -> tuple[list[dict[str, Any]], int]:
        """Objects sorted by key; `namespace=None` lists every namespace."""
        with self._lock:
            if namespace is not None:
                bucket = self._index.get((resource, namespace), {})
                items = [bucket[n] for n in sorted(bucket)]
            else:
                items = []
                for (res, ns) in sorted(k for k in self._index if k[0] == resource):
                    bucket = self._index[(res, ns)]
                    items.extend(bucket[n] for n in sorted(bucket))
            return copy.deepcopy(items), self._rv

    def count(self, resource: str, namespace: str | None) -> int:
        with self._lock:
            if namespace is not None:
                return len(self._index.get((resource, namespace), {}))
            return sum(len(v) for k, v in self._index.items() if k[0] == resource)

    def check_rv(self, rv: int) -> None:
        """Raise `TooOldResourceVersionError` when history at `rv` has been compacted."""
        with self._lock:
            if 0 < rv < self._compacted:
                raise TooOldResourceVersionError(rv, self._compacted)

    # ---- writes ------------------------------------------------------------------------------------
    def create(self, resource: str, namespace: str, name: str, obj: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            bucket = self._index.setdefault((resource, namespace), {})
            if name in bucket:
                raise KeyExistsError(object_key(resource, namespace, name), copy.deepcopy(bucket[name]))
            stored = self._stamp(copy.deepcopy(obj))
            bucket[name] = stored
            self._emit("ADDED", resource, namespace, name, stored, None)
            return copy.deepcopy(stored)

    def guaranteed_update(self, resource: str, namespace: str, name: str,
                          fn: UpdateFn) -> tuple[dict[str, Any], bool]:
        """Apply `fn(copy_of_current)` atomically; it returns the new object or `DELETE`.

        Returns (object, deleted). An unchanged object is not rewritten (no new resourceVersion).
        """
        with self._lock:
            bucket = self._index.get((resource, namespace), {})
            current = bucket.get(name)
            if current is None:
                raise KeyNotFoundError(object_key(resource, namespace, name))
            new = fn(copy.deepcopy(current))
            if new is DELETE:
                return self._remove(resource, namespace, name), True
            if _same(new, current):
                return copy.deepcopy(current), False
            stored = self._stamp(copy.deepcopy(new))
            bucket[name] = stored
            self._emit("MODIFIED", resource, namespace, name, stored, current)
            return copy.deepcopy(stored), False

    def delete(self, resource: str, namespace: str, name: str,
               check: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
        """Remove the object (after `check(copy)` passes) and return its last state with the deletion RV."""
        with self._lock:
            current = self._index.get((resource, namespace), {}).get(name)
            if current is None:
                raise KeyNotFoundError(object_key(resource, namespace, name))
            if check is not None:
                check(copy.deepcopy(current))
            return self._remove(resource, namespace, name)

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
        with self._lock:
            w = MemoryWatcher(self, resource, namespace, loop)
            if from_rv <= 0:
                items, _ = self.list(resource, namespace)
                backlog = [Event("ADDED", resource, o["metadata"].get("namespace", ""), o["metadata"]["name"],
                                 int(o["metadata"]["resourceVersion"]), o, None) for o in items]
            else:
                if from_rv < self._compacted:
                    raise TooOldResourceVersionError(from_rv, self._compacted)
                backlog = [ev for ev in self._history if ev.rv > from_rv and w.matches(ev)]
            self._watchers.append(w)
            return backlog, w

    def close_watchers(self) -> None:
        """End every watch (server shutdown)."""
        with self._lock:
            watchers, self._watchers = self._watchers, []
        for w in watchers:
            w.deliver(None)
            w.closed = True

    def _unregister(self, w: MemoryWatcher) -> None:
        with self._lock:
            if w in self._watchers:
                self._watchers.remove(w)

    # ---- internals ---------------------------------------------------------------------------------
    def _stamp(self, obj: dict[str, Any]) -> dict[str, Any]:
        self._rv += 1
        obj.setdefault("metadata", {})["resourceVersion"] = str(self._rv)
        return obj

    def _remove(self, resource: str, namespace: str, name: str) -> dict[str, Any]:
        bucket = self._index[(resource, namespace)]
        last = bucket.pop(name)
        if not bucket:
            del self._index[(resource, namespace)]
        gone = self._stamp(copy.deepcopy(last))
        self._emit("DELETED", resource, namespace, name, gone, last)
        return copy.deepcopy(gone)

    def _emit(self, typ: str, resource: str, namespace: str, name: str, obj: dict, prev: dict | None) -> None:
        ev = Event(typ, resource, namespace, name, self._rv, copy.deepcopy(obj), prev)
        self._history.append(ev)
        while len(self._history) > self._history_size:
            self._compacted = self._history.popleft().rv
        for w in list(self._watchers):
            if w.closed:
                self._watchers.remove(w)
            elif w.matches(ev):
                w.deliver(ev)


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    ma, mb = dict(a.get("metadata", {})), dict(b.get("metadata", {}))
    ma.pop("resourceVersion", None)
    mb.pop("resourceVersion", None)
    return ma == mb and {k: v for k, v in a.items() if k != "metadata"} == \
        {k: v for k, v in b.items() if k != "metadata"}
