"""Writes whose validation may be long, rehearsed in a worker thread and then done on the event loop
(storage/rehearsal.py has the why and the guarantees).

The handler decides (the kind's strategy's `may_stall`, registry/rehearsed.py) and awaits `Rehearse(fn, ...)`
instead of calling `fn` (a store's `create` or `update`): the rehearsal runs `fn` in this server's rehearsal thread
with the store in rehearsal mode (no lock held across the write, nothing stored), its warnings and admission trace
apart from the request's; then `fn` runs on the loop, as any write, answering the long computations from what the
rehearsal remembered. A commit that meets a value the rehearsal did not see (a write in between changed the object
it validates against) is rehearsed again; after `ATTEMPTS` the write is done inline, as before.

While the rehearsal runs the loop serves everyone else: Python's GIL hands the loop the interpreter every switch
interval (5 ms), so a rehearsal costs other requests latency of that order, not its whole run. A request that times
out meanwhile (`?timeout=`, --request-timeout: http/deadlines.py cancels the handler) never commits; its
rehearsal finishes in the thread and is dropped, as upstream's `asyncFinisher`
(`staging/src/k8s.io/apiserver/pkg/endpoints/handlers/finisher/finisher.go`) answers the timeout while the
write's goroutine runs on, its storage call then refused by the expired context."""
from __future__ import annotations

import asyncio
import contextvars
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, TypeVar

from ..admission.chain import TRACE
from ..storage.rehearsal import REHEARSAL, Rehearsal, Rehearsed, Unforeseen
from ..warning import RECORDER

T = TypeVar("T")
ATTEMPTS = 3


def _rehearse(rehearsal: Rehearsal, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """In the thread, in a copy of the request's context: `fn` with the store in rehearsal mode; whatever it
    raises is the commit's to raise again (or not, if the world changed meanwhile)."""
    REHEARSAL.set(rehearsal)
    RECORDER.set([])  # the commit adds the warnings it recalls
    TRACE.set(None)  # the commit notes admission's steps once
    try:
        fn(*args, **kwargs)
    except Rehearsed:
        pass
    except Exception:  # noqa: BLE001 - a refusal (422, 409, 404...): the commit on the loop answers it
        pass


class Rehearse:
    """One server's rehearsal thread (started on first use) and the rehearse-then-commit loop."""

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None

    async def __call__(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        loop = asyncio.get_running_loop()
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="write-rehearsal")
            weakref.finalize(self, self._pool.shutdown, wait=False)  # the thread ends with the server's handlers
        for _ in range(ATTEMPTS):
            rehearsal = Rehearsal()
            await loop.run_in_executor(self._pool, contextvars.copy_context().run, _rehearse, rehearsal, fn, args,
                                       kwargs)
            rehearsal.rehearsing = False
            token = REHEARSAL.set(rehearsal)
            try:
                return fn(*args, **kwargs)
            except Unforeseen:
                continue
            finally:
                REHEARSAL.reset(token)
        return fn(*args, **kwargs)


__all__ = ["ATTEMPTS", "Rehearse"]
