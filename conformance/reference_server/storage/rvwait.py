"""Waiting, on the event loop, for a store to reach a resourceVersion: kube-apiserver's watch cache
`waitUntilFreshAndBlock` (`staging/src/k8s.io/apiserver/pkg/storage/cacher/watch_cache.go`, 1.33), which holds a
GET or LIST at a resourceVersion the cache has not seen for up to `blockTimeout` (3 s), ending as soon as the
cache's resourceVersion reaches it.

Upstream blocks a goroutine on a condition variable; here a read awaits an asyncio future that the store's
writer (on the loop or in any thread) settles through `call_soon_threadsafe` once its resourceVersion passes
the one asked for, so no thread and no event-loop time is spent while waiting. A request's own deadline
cancels its task, and with it the wait (its entry is removed then, so a resourceVersion never reached leaves
nothing behind).
"""
from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

BLOCK_TIMEOUT = 3.0  # watch_cache.go `blockTimeout`


class RevisionWaiters:
    """The futures of reads waiting for a store's resourceVersion to reach theirs. `wake(rv)` is called by
    the store each time its resourceVersion moves (under its own lock); an empty set costs it one truth test."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: dict[asyncio.Future, tuple[int, asyncio.AbstractEventLoop]] = {}

    def __bool__(self) -> bool:
        return bool(self._waiting)

    def add(self, rv: int, loop: asyncio.AbstractEventLoop) -> asyncio.Future:
        fut = loop.create_future()
        with self._lock:
            self._waiting[fut] = (rv, loop)
        return fut

    def discard(self, fut: asyncio.Future) -> None:
        with self._lock:
            self._waiting.pop(fut, None)

    def wake(self, current: int) -> None:
        """The store has reached `current`: settle every wait for a resourceVersion at or below it."""
        with self._lock:
            reached = [(f, loop) for f, (rv, loop) in self._waiting.items() if rv <= current]
            for f, _ in reached:
                del self._waiting[f]
        for f, loop in reached:
            loop.call_soon_threadsafe(_settle, f)


def _settle(fut: asyncio.Future) -> None:
    if not fut.done():
        fut.set_result(None)


async def reach(store: Any, rv: int, timeout: float = BLOCK_TIMEOUT) -> tuple[bool, float]:
    """Wait until `store.current_rv()` is at least `rv` (a `Store`: its `when_rv` future), at most `timeout`
    seconds: (reached, seconds waited). At once when it is there already (no future, no timer)."""
    if store.current_rv() >= rv:
        return True, 0.0
    started = time.perf_counter()
    fut = store.when_rv(rv, asyncio.get_running_loop())
    try:
        if store.current_rv() < rv:  # (a write between the check and the registration settled nothing)
            await asyncio.wait_for(fut, timeout)
    except asyncio.TimeoutError:
        pass
    finally:
        store.forget_rv_wait(fut)
    return store.current_rv() >= rv, time.perf_counter() - started


__all__ = ["BLOCK_TIMEOUT", "RevisionWaiters", "reach"]
