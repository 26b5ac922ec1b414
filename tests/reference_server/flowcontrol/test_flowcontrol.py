"""flowcontrol/: limits from the bootstrap configuration, shuffle sharding, fair dispatch, rejection, the wait's
deadline, Retry-After (pure: no server, one event loop per test)."""
from __future__ import annotations

import asyncio
import copy

from conformance.reference_server.flowcontrol import (DroppedRequests, FlowControl, LevelLimits, QueueSet,
                                                      concurrency_limits, deal, flow_hash)
from conformance.reference_server.registry.flowcontrol_bootstrap import (MANDATORY_PRIORITY_LEVELS,
                                                                         SUGGESTED_PRIORITY_LEVELS)


def test_bootstrap_limits_are_a_real_clusters():
    """600 seats over the bootstrap levels: the `apiserver_flowcontrol_nominal_limit_seats` a default
    kube-apiserver reports; Go's rounding of lendable seats (49 × 50 % = 24.5 → 25, 245 × 90 % = 220.5 → 221)."""
    limits = concurrency_limits(copy.deepcopy(MANDATORY_PRIORITY_LEVELS + SUGGESTED_PRIORITY_LEVELS), 600)
    assert {n: lim.nominal for n, lim in limits.items()} == {
        "exempt": 0, "catch-all": 13, "global-default": 49, "leader-election": 25, "node-high": 98, "system": 74,
        "workload-high": 98, "workload-low": 245}
    assert limits["exempt"].exempt and not limits["catch-all"].exempt
    assert limits["global-default"].lendable == 25 and limits["workload-low"].lendable == 221
    assert (limits["global-default"].queues, limits["global-default"].hand_size,
            limits["global-default"].queue_length_limit) == (128, 6, 50)
    assert limits["catch-all"].queues == 0  # Reject


def test_missing_mandatory_level_is_imagined():
    fc = FlowControl(10)
    fc.configure([])
    assert fc.level("exempt").limits.exempt and not fc.level("catch-all").limits.exempt
    assert fc.level("catch-all").limit == 10  # the only shares
    exempt = fc.level("exempt")
    assert all(exempt.try_take() for _ in range(1000)) and exempt.in_use == 1000  # never limited


def test_deal_is_a_hand_of_distinct_queues():
    for name in ("a", "b", "global-default"):
        h = flow_hash(name, "alice")
        hand = deal(h, 128, 6)
        assert len(set(hand)) == 6 and all(0 <= i < 128 for i in hand)
        assert deal(h, 128, 6) == hand  # the same flow, the same hand
    assert flow_hash("fs", "alice") != flow_hash("fs", "bob")
    assert sorted(deal(12345, 4, 4)) == [0, 1, 2, 3]


def _limits(limit: int, queues: int = 0, hand: int = 0, qll: int = 0) -> LevelLimits:
    return LevelLimits("t", False, limit, 0, limit, queues, hand, qll)


def test_reject_level_refuses_at_once():
    async def run() -> None:
        qs = QueueSet(_limits(1))
        assert qs.try_take()
        assert await qs.wait(1, 10.0) is None  # no queue: no waiting
        assert qs.rejected == 1
        qs.release()
        release = await qs.wait(1, 10.0)
        assert release is not None and qs.in_use == 1
    asyncio.run(run())


def test_fair_dispatch_alternates_between_flows():
    """A flow with three requests waiting and one with one: the freed seats go to both in turn (one queue each),
    not in arrival order."""
    async def run() -> None:
        qs = QueueSet(_limits(1, queues=8, hand=1, qll=10))
        heavy, light = next((a, b) for a in range(100) for b in range(100)
                            if deal(a, 8, 1) != deal(b, 8, 1))
        assert qs.try_take()
        order: list[str] = []

        async def one(tag: str, h: int) -> None:
            release = await qs.wait(h, 10.0)
            assert release is not None
            order.append(tag)
            release()
        tasks = [asyncio.create_task(one("heavy", heavy)) for _ in range(3)]
        await asyncio.sleep(0)  # let the three queue first
        tasks.append(asyncio.create_task(one("light", light)))
        await asyncio.sleep(0)
        assert qs.waiting == 4
        qs.release()
        await asyncio.gather(*tasks)
        assert order[:2] in (["heavy", "light"], ["light", "heavy"]) and order.count("light") == 1
        assert order.index("light") <= 1 and qs.in_use == 0 and qs.waiting == 0
    asyncio.run(run())


def test_full_queue_rejects_and_wait_times_out():
    async def run() -> None:
        qs = QueueSet(_limits(1, queues=1, hand=1, qll=1))
        assert qs.try_take()
        waiter = asyncio.create_task(qs.wait(7, 0.05))
        await asyncio.sleep(0)
        assert qs.waiting == 1
        assert await qs.wait(8, 10.0) is None and qs.rejected == 1  # the queue holds queueLengthLimit already
        assert await waiter is None and qs.timed_out == 1 and qs.waiting == 0  # its deadline passed
        qs.release()
        assert qs.in_use == 0
    asyncio.run(run())


def test_cancelled_waiter_leaves_its_queue():
    async def run() -> None:
        qs = QueueSet(_limits(1, queues=2, hand=1, qll=5))
        assert qs.try_take()
        waiter = asyncio.create_task(qs.wait(3, 10.0))
        await asyncio.sleep(0)
        waiter.cancel()
        await asyncio.gather(waiter, return_exceptions=True)
        assert qs.waiting == 0 and qs.cancelled == 1
        qs.release()
        assert qs.in_use == 0 and qs.try_take()
    asyncio.run(run())


def test_retry_after_grows_with_drops_and_shrinks_after():
    now = [1000.0]
    dropped = DroppedRequests(lambda: now[0])
    assert dropped.retry_after("pl") == 1
    for _ in range(5):
        dropped.record("pl")
    now[0] += 1
    dropped.record("pl")  # a new second: 5 drops in the last 1 s ≥ 3 × 1
    assert dropped.retry_after("pl") == 2
    now[0] += 10
    dropped.record("pl")  # quiet since: one step down
    assert dropped.retry_after("pl") == 1 and dropped.retry_after("other") == 1


def _pl(name: str, shares: int, lendable: int = 0, borrowing: int | None = None) -> dict:
    limited = {"nominalConcurrencyShares": shares, "lendablePercent": lendable, "limitResponse": {"type": "Reject"}}
    if borrowing is not None:
        limited["borrowingLimitPercent"] = borrowing
    return {"metadata": {"name": name}, "spec": {"type": "Limited", "limited": limited}}


def test_borrowing_from_the_lendable_pool():
    """a: 2 seats, half lendable; b: 2 seats, none lendable. b borrows a's lendable seat once its own are taken,
    then a is down to its own one until b gives the borrowed seat back; with borrowingLimitPercent 0 no borrowing."""
    fc = FlowControl(4)
    fc.configure([_pl("a", 1, lendable=50), _pl("b", 1), _pl("exempt", 0), _pl("catch-all", 0)])
    a, b = fc.level("a"), fc.level("b")
    assert (a.limits.nominal, a.limits.lendable, b.limits.nominal) == (2, 1, 2)
    assert b.try_take() and b.try_take() and b.try_take()  # the third is a's lendable seat
    assert not b.try_take() and fc.pool.used == 1
    assert a.try_take() and not a.try_take()  # a's own seat; its other one is lent
    b.release()  # the borrowed seat comes back
    assert fc.pool.used == 0 and a.try_take()
    fc.configure([_pl("a", 1, lendable=50), _pl("b", 1, borrowing=0), _pl("exempt", 0), _pl("catch-all", 0)])
    b = fc.level("b")
    assert b.in_use == 2 and not b.try_take()  # at its nominal limit, may not borrow
    assert fc.pool.used == 1  # a holds its lendable seat itself
