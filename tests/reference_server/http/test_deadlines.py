"""http/deadlines.py: one sweeping timer cuts requests off at --request-timeout, as asyncio.timeout did."""
from __future__ import annotations

import asyncio

import pytest

from conformance.reference_server.http.deadlines import Deadlines


class _Request:
    """aiohttp's request: `task` is the connection's task, which awaits the request's own."""
    def __init__(self) -> None:
        self.task = asyncio.current_task()


def _run(coro):
    return asyncio.run(coro)


async def _serve(d: Deadlines, handler, request, timeout: float | None = None):
    """What http/app.py's outermost filter does around a handler."""
    deadline = d.arm(request, timeout)
    try:
        return await handler(request)
    except asyncio.CancelledError:
        if d.timed_out(deadline):
            raise TimeoutError from None
        raise
    finally:
        d.disarm(deadline)


def test_a_quick_handler_answers_and_leaves_no_timer():
    async def main():
        d = Deadlines(0.2)

        async def handler(request):
            return "ok"

        assert await _serve(d, handler, _Request()) == "ok"
        await asyncio.sleep(d.tick * 1.5)  # the armed tick finds nothing in flight and stops
        return d._timer, d._live

    timer, live = _run(main())
    assert timer is None and not live


def test_a_slow_handler_times_out_within_a_tick_of_its_deadline():
    async def main():
        d = Deadlines(0.2)
        loop = asyncio.get_running_loop()

        async def handler(request):
            await asyncio.sleep(5)

        t0 = loop.time()
        with pytest.raises(TimeoutError):
            await _serve(d, handler, _Request())
        return loop.time() - t0, d.tick, asyncio.current_task().cancelling()

    took, tick, cancelling = _run(main())
    assert 0.2 <= took < 0.2 + tick + 0.5
    assert cancelling == 0  # our cancellation is taken back


def test_a_client_going_away_stays_a_cancellation():
    async def main():
        d = Deadlines(10)
        started = asyncio.Event()

        async def handler(request):
            started.set()
            await asyncio.sleep(5)

        async def request():
            return await _serve(d, handler, _Request())

        task = asyncio.ensure_future(request())
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return d._live

    assert not _run(main())


def test_a_handler_that_swallows_the_cancellation_is_uncancelled():
    async def main():
        d = Deadlines(0.1)

        async def handler(request):
            try:
                await asyncio.sleep(5)
            except asyncio.CancelledError:
                return "swallowed"

        out = await _serve(d, handler, _Request())
        return out, asyncio.current_task().cancelling()

    assert _run(main()) == ("swallowed", 0)


def test_the_requests_own_task_is_cancelled_not_the_connections():
    async def main():
        d = Deadlines(0.1)
        connection = asyncio.current_task()

        async def handler(request):
            await asyncio.sleep(5)

        async def request_task(request):
            with pytest.raises(TimeoutError):
                await _serve(d, handler, request)
            return asyncio.current_task().cancelling()

        request = _Request()
        inner = await asyncio.ensure_future(request_task(request))
        return inner, connection.cancelling()

    assert _run(main()) == (0, 0)


def test_a_shorter_requested_timeout_has_its_own_timer():
    """`?timeout=` shorter than the server's: cut at it (not a sweep tick later); a quick one leaves no timer."""
    async def main():
        d = Deadlines(60)
        loop = asyncio.get_running_loop()

        async def slow(request):
            await asyncio.sleep(5)

        async def quick(request):
            return "ok"

        t0 = loop.time()
        with pytest.raises(TimeoutError):
            await _serve(d, slow, _Request(), timeout=0.1)
        took = loop.time() - t0
        assert await _serve(d, quick, _Request(), timeout=0.1) == "ok"
        return took, d._live, d._timer, asyncio.current_task().cancelling()

    took, live, timer, cancelling = _run(main())
    assert 0.1 <= took < 1 and not live and timer is None and cancelling == 0


def test_a_longer_requested_timeout_keeps_the_servers():
    async def main():
        d = Deadlines(0.2)

        async def slow(request):
            await asyncio.sleep(5)

        loop = asyncio.get_running_loop()
        t0 = loop.time()
        with pytest.raises(TimeoutError):
            await _serve(d, slow, _Request(), timeout=30)
        return loop.time() - t0, d.tick

    took, tick = _run(main())
    assert 0.2 <= took < 0.2 + tick + 0.5
