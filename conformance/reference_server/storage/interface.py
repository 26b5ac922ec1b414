"""The small explicit storage interface (an etcd backend can implement it later)."""
from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Callable, ContextManager, Protocol


class _Delete:
    """Sentinel an update function returns to delete the object instead of writing it."""

    def __repr__(self) -> str:
        return "DELETE"


DELETE = _Delete()


def object_key(resource: str, namespace: str, name: str) -> str:
    """`/registry/{resource}/{namespace}/{name}`; cluster-scoped objects have no namespace segment."""
    return f"/registry/{resource}/{namespace}/{name}" if namespace else f"/registry/{resource}/{name}"


@dataclass(frozen=True)
class Event:
    """One change: `object` is the new state (for DELETED: the last state with the deletion RV).

    `object` and `prev` may be the stored objects themselves, shared by every watcher: read them, never
    mutate them."""

    type: str  # ADDED | MODIFIED | DELETED
    resource: str
    namespace: str
    name: str
    rv: int
    object: dict[str, Any]
    prev: dict[str, Any] | None
    encoded: dict[str, bytes] = field(default_factory=dict, compare=False, repr=False)
    """Encodings of `{"type": t, "object": object}` lines by `t`, made by the first watcher that sends
    one, shared by the others (the http layer's cache; the store never reads it)."""


@dataclass(frozen=True)
class Progress:
    """etcd's progress notification: every change up to `rv` that the watcher matches is before this in its
    queue, so `rv` is a resourceVersion a client can resume from (what a BOOKMARK carries)."""

    rv: int


class Watcher(Protocol):
    """A live subscription; events (and `Progress` marks) arrive on `queue` (None = the store closed it)."""

    queue: asyncio.Queue

    def request_progress(self) -> None:
        """Queue a `Progress` behind every change delivered so far."""
        ...

    def close(self) -> None: ...


UpdateFn = Callable[[dict[str, Any]], Any]


class StorageObserver:
    """What a store reports as it works, for kube-apiserver's etcd and watch-cache metrics (the metrics layer
    hands a store its own through `Store.observe`; storage knows nothing above it). Resources are the store's
    (plurals, or `plural.group` for the group-qualified ones). Every method here does nothing."""

    def request(self, operation: str, resource: str, seconds: float, failed: bool) -> None:
        """One etcd request (upstream's `RecordEtcdRequest`): a write's transaction (`create`, `update`,
        `delete`), a read that went to etcd (`get`, `list`); `failed` when etcd did not answer it."""

    def listed(self, resource: str, fetched: int, evaluated: int, returned: int) -> None:
        """A list read from etcd, not the watch cache (`RecordStorageListMetrics`)."""

    def cache_listed(self, resource: str, index: str, fetched: int, returned: int, seconds: float) -> None:
        """An API LIST of the store's current state (the watch cache's, `RecordListCacheMetrics`): the objects
        under its key prefix, the ones left after its selectors and limit; `index` the cache index it used ("" for
        none); `seconds` the store's read. Reported by the registry's LIST, which filters what the store lists."""

    def bookmark(self, rv: int) -> None:
        """The watch cache's etcd watch received a progress notification at `rv` (`RecordEtcdBookmark`)."""

    def event(self, resource: str, rv: int) -> None:
        """One change the watch cache received (and dispatched to the resource's watchers) at `rv`."""

    def reloaded(self) -> None:
        """The watch cache was filled again from a full list (a relist after a compaction or an outage)."""

    def lease_objects(self, count: int) -> None:
        """The lease manager granted a new lease; `count` objects were attached to the previous one
        (`UpdateLeaseObjectCount`, storage/leases.py)."""


NO_OBSERVER = StorageObserver()


class Store(Protocol):
    def current_rv(self) -> int: ...

    def when_rv(self, rv: int, loop: Any) -> Any:
        """An asyncio future settled once `current_rv()` reaches `rv` (storage/rvwait.py)."""
        ...

    def forget_rv_wait(self, fut: Any) -> None: ...

    def create(self, resource: str, namespace: str, name: str, obj: dict[str, Any],
               ttl: int = 0) -> dict[str, Any]:
        """`ttl` > 0: the object expires `ttl` seconds (and the lease manager's extra, storage/leases.py) after
        this write, as an etcd lease removes it: a DELETED event (the registry's TTLFunc: Events)."""
        ...

    def get(self, resource: str, namespace: str, name: str, *, shared: bool = False) -> dict[str, Any]:
        """A copy; `shared=True` may return the stored object itself, which the caller must never mutate."""
        ...

    def list(self, resource: str, namespace: str | None, *,
             shared: bool = False) -> tuple[list[dict[str, Any]], int]: ...

    def list_at(self, resource: str, namespace: str | None, rv: int, *,
                shared: bool = False) -> tuple[list[dict[str, Any]], int]:
        """The objects as they were at `rv`; `TooOldResourceVersionError` once compacted."""
        ...

    def count(self, resource: str, namespace: str | None) -> int: ...

    def guaranteed_update(self, resource: str, namespace: str, name: str,
                          fn: UpdateFn, ttl: int = 0) -> tuple[dict[str, Any], bool]:
        """`ttl` as for `create`: a write that changes the object attaches it to a (new or reused) lease; an
        unchanged object is not written, and keeps its lease."""
        ...

    def delete(self, resource: str, namespace: str, name: str,
               check: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]: ...

    def create_many(self, items: list[tuple[str, str, str, dict[str, Any]]]) -> list[dict[str, Any] | Exception]:
        """`create` of each (resource, namespace, name, object), each its own write (own resourceVersion, own
        ADDED event); per item the stored object or the exception `create` raised (`KeyExistsError`). A remote
        store may send them together."""
        ...

    def delete_many(self, resource: str, items: list[tuple[str, str]],
                    check: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any] | Exception]:
        """`delete` of each (namespace, name), each its own write (own resourceVersion, own DELETED event);
        the objects returned may share values below metadata with the store (read them, never mutate);
        per item the last state or the exception `delete` raised. A remote store may run them concurrently."""
        ...

    def watch(self, resource: str, namespace: str | None, from_rv: int,
              loop: asyncio.AbstractEventLoop) -> tuple[list[Event], Watcher]: ...

    def check_rv(self, rv: int) -> None: ...

    def compacted_rv(self) -> int:
        """The resourceVersion history has been compacted up to (older ones are answered 410)."""
        ...

    def compact(self, rv: int | None = None) -> None: ...

    def observe(self, observer: StorageObserver) -> None:
        """Report to `observer` from now on."""
        ...

    def atomic(self) -> ContextManager[Any]:
        """Hold off every other write while a caller checks one key and writes another
        (admission's namespace check + content create; the controller's emptiness check + finalize)."""
        ...
