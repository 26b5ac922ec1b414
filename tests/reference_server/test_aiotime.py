"""aiotime.within: a time-out that never drops its caller's cancel (Python 3.11's `wait_for` did, gh-86296)."""
from __future__ import annotations

import asyncio
import sys

import pytest

from conformance.reference_server.aiotime import within


def test_a_cancel_arriving_as_the_awaitable_finishes_reaches_the_caller():
    async def scenario():
        loop = asyncio.get_running_loop()
        result = loop.create_future()
        caller = loop.create_task(within(result, 5))
        await asyncio.sleep(0)  # the caller now waits on `result`
        result.set_result("renewed")
        caller.cancel()  # in the same loop step: 3.11's wait_for returns "renewed" here
        with pytest.raises(asyncio.CancelledError):
            await caller

    if sys.version_info < (3, 11):
        pytest.skip("Python 3.10 has no asyncio.timeout; its wait_for keeps the race")
    asyncio.run(scenario())


def test_it_times_out_with_asyncio_timeouterror():
    async def scenario():
        with pytest.raises(asyncio.TimeoutError):
            await within(asyncio.Event().wait(), 0.01)
        assert await within(asyncio.sleep(0, "done"), 1) == "done"

    asyncio.run(scenario())
