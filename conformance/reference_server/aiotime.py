"""An awaitable bounded by a time-out, without losing a cancellation.

Python 3.11's `asyncio.wait_for` runs its awaitable as a task of its own and, when its caller is cancelled just as
that task finishes, returns the result and drops the cancel (CPython gh-86296, fixed in 3.12 by reimplementing it
on `asyncio.timeout`). A loop stopped at that moment runs on, and whoever awaits its end waits for ever: the
leader elector's renew loop did, once in a CI run. `asyncio.timeout` (3.11+) is a timer on the caller's own task,
with no task in between, so a cancel always reaches the caller.
"""
from __future__ import annotations

import asyncio
from typing import Awaitable, TypeVar

T = TypeVar("T")

if hasattr(asyncio, "timeout"):  # Python 3.11+
    async def within(aw: Awaitable[T], timeout: float) -> T:
        """`await aw`, raising `asyncio.TimeoutError` after `timeout` seconds."""
        async with asyncio.timeout(timeout):
            return await aw
else:  # pragma: no cover - Python 3.10, whose wait_for has the same race: callers keep their own stop flags
    async def within(aw: Awaitable[T], timeout: float) -> T:
        """`await aw`, raising `asyncio.TimeoutError` after `timeout` seconds."""
        return await asyncio.wait_for(aw, timeout)
