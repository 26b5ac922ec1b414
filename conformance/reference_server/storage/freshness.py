"""Consistent reads from a watch cache: kube-apiserver's semantics for GET and LIST at resourceVersion "".

Upstream (apiserver `storage/cacher/delegator.go`, 1.33) serves a GET at resourceVersion "" from etcd, and a
LIST at "" (ConsistentListFromCache, on since 1.31) from the watch cache only once the cache has reached etcd's
current revision (`storage.GetCurrentResourceVersionFromStorage`, then the cacher's `waitUntilFreshAndBlock`,
3 s), falling back to etcd when it cannot. So a write acknowledged by any replica is seen by every later read
at "" on any other replica. A remote store's reads come from its own cache, which may lag another replica's
write by milliseconds: the HTTP layer awaits this gate before such a read.

One gate round is one cheap etcd round trip for the current revision, then the wait for the cache to reach
it; every read that arrived before a round was sent shares that round (single flight: a read never joins a
round already sent, whose revision may predate a write acknowledged before the read arrived). Rounds run in
the gate's own threads, never on the event loop nor in the write `Offload`'s thread. When the cache cannot
reach the revision in time (e.g. writes outside the prefix on a shared etcd and no progress notification
yet), the read runs off the loop from etcd at that revision (`read_at`), as upstream falls back.
A local store (memory) has nothing to wait for: the gate costs it nothing."""
from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, TypeVar

T = TypeVar("T")
FRESH_WAIT = 3.0  # seconds a read waits for the cache to reach etcd's revision (upstream's blockTimeout)
ROUND_THREADS = 4  # rounds in flight at once (one normally; more only while a cache lags)

READ_AT: contextvars.ContextVar[int] = contextvars.ContextVar("nsconform_read_at", default=0)
"""Set (to a revision) only inside `FreshnessGate.read_at`: the store reads from etcd at it, not its cache."""


class _Round:
    __slots__ = ("future", "sent")

    def __init__(self, future: asyncio.Future):
        self.future = future
        self.sent = False


class FreshnessGate:
    """`await gate()` before a read at resourceVersion "": 0 when the cache may serve it now, else the revision
    the read must be made at in etcd (`await gate.read_at(rev, fn)`)."""

    def __init__(self, store: Any, timeout: float = FRESH_WAIT):
        self.remote = bool(getattr(store, "remote", False)) and hasattr(store, "current_revision")
        self.timeout = timeout
        self._store = store
        self._lock = threading.Lock()
        self._next: _Round | None = None  # the round not yet sent, which new reads join
        self._pool: ThreadPoolExecutor | None = None
        if self.remote:
            self._pool = ThreadPoolExecutor(ROUND_THREADS, thread_name_prefix="etcd-fresh")
            store.on_close(self.shutdown)

    async def __call__(self) -> int:
        if not self.remote or self._pool is None:
            return 0
        loop = asyncio.get_running_loop()
        with self._lock:
            r = self._next
            if r is None or r.sent or r.future.get_loop() is not loop:
                r = self._next = _Round(loop.create_future())
                self._pool.submit(self._send, r)
        rev, fresh = await asyncio.shield(r.future)
        return 0 if fresh else rev

    async def read_at(self, rev: int, fn: Callable[[], T]) -> T:
        """`fn()` off the loop with the store reading from etcd at `rev` (the fallback)."""
        def call() -> T:
            READ_AT.set(rev)
            return fn()
        ctx = contextvars.copy_context()
        assert self._pool is not None
        return await asyncio.get_running_loop().run_in_executor(self._pool, functools.partial(ctx.run, call))

    def _send(self, r: _Round) -> None:
        with self._lock:  # from here on no read joins this round
            r.sent = True
            if self._next is r:
                self._next = None
        out: Any = None
        exc: BaseException | None = None
        try:
            rev = self._store.current_revision()
            out = (rev, self._store.wait_fresh(rev, self.timeout))
        except BaseException as e:  # noqa: BLE001 - handed to every read of the round
            exc = e
        try:
            r.future.get_loop().call_soon_threadsafe(_settle, r.future, out, exc)
        except RuntimeError:  # the loop has closed
            pass

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False)


def _settle(fut: asyncio.Future, result: Any, exc: BaseException | None) -> None:
    if fut.done():
        return
    if exc is not None:
        fut.set_exception(exc)
    else:
        fut.set_result(result)
