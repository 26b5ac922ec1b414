"""storage/rvwait.py: a read's wait, on the event loop, for a store to reach a resourceVersion (upstream's watch
cache `waitUntilFreshAndBlock`), on both backends and across two stores sharing one etcd (two replicas)."""
from __future__ import annotations

import asyncio
import threading

from conformance.reference_server.storage.rvwait import reach

from .test_consistent_reads import CM, hold


async def one_turn() -> None:
    """Let the tasks already scheduled run up to their first wait (one turn of the loop; no time passes)."""
    turned = asyncio.get_running_loop().create_future()
    asyncio.get_running_loop().call_soon(turned.set_result, None)
    await turned


def test_a_write_from_another_thread_ends_the_wait(make_store):
    store = make_store()

    async def main():
        want = store.current_rv() + 1
        waiting = asyncio.ensure_future(reach(store, want, 30))
        await one_turn()  # (it registers)
        writer = threading.Thread(target=store.create, args=("configmaps", "x", "c", CM))
        writer.start()
        reached, waited = await waiting
        writer.join()
        assert reached and waited < 30
        assert store.current_rv() >= want
        assert not getattr(store, "cache", store)._rv_waiters
    asyncio.run(main())


def test_a_resource_version_never_reached_times_out_and_leaves_nothing(make_store):
    store = make_store()
    waiters = getattr(store, "cache", store)._rv_waiters

    async def main():
        reached, waited = await reach(store, store.current_rv() + 1000, 0.05)
        assert not reached and waited >= 0.05
        task = asyncio.ensure_future(reach(store, store.current_rv() + 1000, 30))
        await one_turn()
        assert waiters
        task.cancel()  # the request's deadline
        try:
            await task
        except asyncio.CancelledError:
            pass
        assert not waiters
    asyncio.run(main())


def test_a_replica_waits_for_its_cache_to_reach_anothers_write(pair):
    """A LIST at a resourceVersion another replica just wrote (upstream: the cacher waits up to 3 s for it)."""
    a, b = pair
    release = hold(b)
    created = a.create("configmaps", "x", "c", CM)
    rv = int(created["metadata"]["resourceVersion"])
    assert b.current_rv() < rv

    async def main():
        waiting = asyncio.ensure_future(reach(b, rv, 30))
        await one_turn()
        assert not waiting.done()
        release.set()
        reached, _ = await waiting
        assert reached
        items, _ = b.list("configmaps", "x")
        assert [o["metadata"]["name"] for o in items] == ["c"]
    asyncio.run(main())
