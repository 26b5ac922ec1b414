"""Consistent reads from a watch cache: kube-apiserver's semantics for GET and LIST at resourceVersion "".

Upstream (apiserver `storage/cacher/delegator.go`, 1.33) serves a GET at resourceVersion "" from etcd, and a
LIST at "" (ConsistentListFromCache, on since 1.31) from the watch cache only once the cache has reached etcd's
current revision (`storage.GetCurrentResourceVersionFromStorage`, then the cacher's `waitUntilFreshAndBlock`,
3 s), falling back to etcd when it cannot. So a write acknowledged by any replica is seen by every later read
at "" on any other replica. A remote store's reads come from its own cache, which may lag another replica's
write by milliseconds: the HTTP layer awaits this gate before such a read.

One gate round is one cheap etcd round trip for the current revision, then the wait for the cache to reach
it; every read that arrived before a round was sent shares that round (single flight: a read never joins a
round already sent, whose revision may predate a write acknowledged before the read arrived). Rounds go one
at a time: the reads that arrive during one round trip all share the next, so under load a read costs a
fraction of a round trip of etcd work and at most two round trips of latency. The round trip is a
non-blocking HTTP call on the event loop (its own aiohttp session, never the write `Offload`'s thread): a
blocking call in a thread was measured slower, each round then waiting for the GIL held by the busy loop
(`sys.getswitchinterval()`, 5 ms, per hand-over). Only a lagging cache's wait, and the fallback reads, run
in the gate's threads. When the cache cannot
reach the revision in time (e.g. writes outside the prefix on a shared etcd and no progress notification
yet), the read runs off the loop from etcd at that revision (`read_at`), as upstream falls back.
A local store (memory) has nothing to wait for: the gate costs it nothing."""
from __future__ import annotations

import asyncio
import contextvars
import functools
import json
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, TypeVar


T = TypeVar("T")
FRESH_WAIT = 3.0  # seconds a read waits for the cache to reach etcd's revision (upstream's blockTimeout)
WAIT_THREADS = 4  # rounds whose cache lags, waiting at once (and fallback reads from etcd)

READ_AT: contextvars.ContextVar[int] = contextvars.ContextVar("nsconform_read_at", default=0)
"""Set (to a revision) only inside `FreshnessGate.read_at`: the store reads from etcd at it, not its cache."""


class FreshnessGate:
    """`await gate()` before a read at resourceVersion "": 0 when the cache may serve it now, else the revision
    the read must be made at in etcd (`await gate.read_at(rev, fn)`)."""

    def __init__(self, store: Any, timeout: float = FRESH_WAIT):
        self.remote = bool(getattr(store, "remote", False)) and hasattr(store, "revision_request")
        self.timeout = timeout
        self._store = store
        self._next: asyncio.Future | None = None  # the round not yet sent, which new reads join
        self._sending: asyncio.Future | None = None  # the round in flight
        self._session: Any = None
        self._tasks: set[asyncio.Task] = set()
        self._pool: ThreadPoolExecutor | None = None
        if self.remote:
            self._pool = ThreadPoolExecutor(WAIT_THREADS, thread_name_prefix="etcd-fresh")  # lags, fallbacks
            store.on_close(self.shutdown)

    async def __call__(self) -> int:
        return (await self.wait())[0]

    async def wait(self) -> tuple[int, float]:
        """As `__call__`, with the seconds its round waited for the cache to reach etcd's revision (upstream's
        `waitUntilFreshAndBlock`, the revision's round trip left out): 0 for a local store."""
        if not self.remote:
            return 0, 0.0
        r = self._next
        if r is None:  # a new round, sent once the one in flight (if any) is back
            r = self._next = asyncio.get_running_loop().create_future()
            task = asyncio.ensure_future(self._send(r, self._sending))
            self._tasks.add(task)  # held until done (the loop keeps only weak references to tasks)
            task.add_done_callback(self._tasks.discard)
        rev, fresh, waited = await asyncio.shield(r)
        return (0 if fresh else rev), waited

    async def read_at(self, rev: int, fn: Callable[[], T]) -> T:
        """`fn()` off the loop with the store reading from etcd at `rev` (the fallback)."""
        def call() -> T:
            READ_AT.set(rev)
            return fn()
        ctx = contextvars.copy_context()
        assert self._pool is not None
        return await asyncio.get_running_loop().run_in_executor(self._pool, functools.partial(ctx.run, call))

    async def _send(self, r: asyncio.Future, before: asyncio.Future | None) -> None:
        if before is not None:
            await asyncio.wait([before])
        if self._next is r:  # from here on no read joins this round
            self._next = None
        self._sending = r
        try:
            rev = await self.fetch_revision()
            started = time.perf_counter()
            fresh = self._store.wait_fresh(rev, 0)  # the common case: the cache is there already
            if not fresh:  # it lags: wait in a thread (the next round is not held up behind this one)
                self._sending = None
                loop = asyncio.get_running_loop()
                fresh = await loop.run_in_executor(self._pool, self._store.wait_fresh, rev, self.timeout)
            _settle(r, (rev, fresh, time.perf_counter() - started), None)
        except BaseException as e:  # noqa: BLE001 - handed to every read of the round
            _settle(r, None, e)
        finally:
            if self._sending is r:
                self._sending = None

    async def fetch_revision(self) -> int:
        """etcd's current revision (the store's `revision_request`), without blocking the loop."""
        import aiohttp

        from .etcdclient import EtcdUnavailable, parse_answer  # (urllib3 and the rest: not on the memory store)

        endpoints, path, body, ssl_context = self._store.revision_request()
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(ssl=ssl_context if ssl_context is not None else False),
                timeout=aiohttp.ClientTimeout(total=10), skip_auto_headers=("User-Agent",))
        data = json.dumps(body).encode()
        last: Exception | None = None
        for endpoint in endpoints:
            try:
                async with self._session.post(endpoint + path, data=data) as resp:
                    return int(parse_answer(resp.status, await resp.read())["header"]["revision"])
            except (aiohttp.ClientError, OSError, asyncio.TimeoutError) as e:
                last = e
        raise EtcdUnavailable(f"cannot reach etcd at {', '.join(endpoints)}: {last}")

    async def aclose(self) -> None:
        """Close the HTTP session on its loop (the server's cleanup; `shutdown` is the last resort)."""
        session, self._session = self._session, None
        if session is not None:
            await session.close()

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False)
        session, self._session = self._session, None
        if session is not None and not session.closed:
            try:
                session.connector._close()  # noqa: SLF001 - from any thread, without the (maybe closed) loop
            except Exception:  # noqa: BLE001
                pass


def _settle(fut: asyncio.Future, result: Any, exc: BaseException | None) -> None:
    if fut.done():
        return
    if exc is not None:
        fut.set_exception(exc)
    else:
        fut.set_result(result)
