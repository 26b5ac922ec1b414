"""Blocking store calls off the event loop when the store is remote.

The registry and the stores are synchronous. The memory store answers in microseconds, so callers on the loop
call it directly; the etcd store waits for network round trips (a transaction, then its own watch cache catching
up), which must never stall the loop. So the HTTP handlers (each write) and the namespace deleter (each sync)
hand such calls to an `Offload`: inline for a local store, else in the Offload's one thread (calls keep the
order and the one-at-a-time execution they have on the loop; reads stay on the loop, served from the etcd
store's watch cache). The caller's context variables (the requesting user, ...) go along into the thread."""
from __future__ import annotations

import asyncio
import contextvars
import functools
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, TypeVar

T = TypeVar("T")


class Offload:
    def __init__(self, store: Any, name: str = "store-write"):
        self.remote = bool(getattr(store, "remote", False))
        self.name = name
        self._pool: ThreadPoolExecutor | None = None
        if self.remote:  # its thread starts with the server, not at some later first call
            self._pool = ThreadPoolExecutor(1, thread_name_prefix=name)
            self._pool.submit(lambda: None).result()
            store.on_close(self.shutdown)  # and ends when the store closes

    async def __call__(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        if not self.remote:
            return fn(*args, **kwargs)
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix=self.name)
        call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(self._pool, call)

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False)
