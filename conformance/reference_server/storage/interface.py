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


class Watcher(Protocol):
    """A live subscription; events arrive on `queue` (None = the store closed the watch)."""

    queue: asyncio.Queue

    def close(self) -> None: ...


UpdateFn = Callable[[dict[str, Any]], Any]


class Store(Protocol):
    def current_rv(self) -> int: ...

    def create(self, resource: str, namespace: str, name: str, obj: dict[str, Any]) -> dict[str, Any]: ...

    def get(self, resource: str, namespace: str, name: str, *, shared: bool = False) -> dict[str, Any]:
        """A copy; `shared=True` may return the stored object itself, which the caller must never mutate."""
        ...

    def list(self, resource: str, namespace: str | None, *,
             shared: bool = False) -> tuple[list[dict[str, Any]], int]: ...

    def count(self, resource: str, namespace: str | None) -> int: ...

    def guaranteed_update(self, resource: str, namespace: str, name: str,
                          fn: UpdateFn) -> tuple[dict[str, Any], bool]: ...

    def delete(self, resource: str, namespace: str, name: str,
               check: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]: ...

    def watch(self, resource: str, namespace: str | None, from_rv: int,
              loop: asyncio.AbstractEventLoop) -> tuple[list[Event], Watcher]: ...

    def check_rv(self, rv: int) -> None: ...

    def atomic(self) -> ContextManager[Any]:
        """Hold off every other write while a caller checks one key and writes another
        (admission's namespace check + content create; the controller's emptiness check + finalize)."""
        ...
