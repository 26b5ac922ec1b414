"""flowcontrol/: limits from the bootstrap configuration, shuffle sharding, fair dispatch, rejection, the wait's
deadline, Retry-After (pure: no server, one event loop per test)."""
from __future__ import annotations

import asyncio
import copy

from conformance.reference_server.flowcontrol import (ONE_SEAT, AllocItem, DemandStats, DroppedRequests, FlowControl,
                                                      LevelLimits, QueueSet, SeatDemand, WorkEstimate, allocate,
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
    assert fc.level("catch-all").current_cl == 10  # the only shares
    exempt = fc.level("exempt")
    assert all(exempt.start(ONE_SEAT) for _ in range(1000)) and exempt.executing == 1000  # never limited


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
        first = qs.start(ONE_SEAT)
        assert first is not None and qs.running(first)
        assert qs.start(ONE_SEAT) is None  # no queue: no waiting
        assert qs.rejected == 1
        qs.finish(first)
        again = qs.start(ONE_SEAT)
        assert again is not None and qs.running(again) and qs.in_use == 1
    asyncio.run(run())


def _flows(queues: int, n: int = 2) -> list[str]:
    """`n` distinguishers whose one-queue hands differ."""
    found: dict[int, str] = {}
    for d in map(str, range(1000)):
        found.setdefault(deal(flow_hash("fs", d), queues, 1)[0], d)
        if len(found) == n:
            return list(found.values())
    raise AssertionError("no such flows")


class _Clock:
    """A stand-in for the `time` module in flowcontrol/queueset.py: time moves only when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now

    def time_ns(self) -> int:
        return int(self.now * 1e9)


def test_fair_dispatch_alternates_between_flows(monkeypatch):
    """A flow with three requests waiting and one with one: the freed seats go to both in turn (one queue each),
    not in arrival order (time stands still: the requests' work is equal)."""
    from conformance.reference_server.flowcontrol import queueset as queueset_module

    monkeypatch.setattr(queueset_module, "time", _Clock())

    async def run() -> None:
        qs = QueueSet(_limits(1, queues=8, hand=1, qll=10))
        heavy, light, other = _flows(8, 3)
        holder = qs.start(ONE_SEAT, "fs", other)
        order: list[str] = []

        async def one(tag: str) -> None:
            req = qs.start(ONE_SEAT, "fs", heavy if tag == "heavy" else light)
            assert req is not None and await qs.wait(req, 10.0)
            order.append(tag)
            await asyncio.sleep(0)
            qs.finish(req)
        tasks = [asyncio.create_task(one("heavy")) for _ in range(3)]
        await asyncio.sleep(0)  # let the three queue first
        tasks.append(asyncio.create_task(one("light")))
        await asyncio.sleep(0)
        assert qs.waiting == 4
        qs.finish(holder)
        await asyncio.gather(*tasks)
        assert order[:2] in (["heavy", "light"], ["light", "heavy"]) and order.count("light") == 1
        assert order.index("light") <= 1 and qs.in_use == 0 and qs.waiting == 0
    asyncio.run(run())


def test_shuffle_sharding_weighs_waiting_seat_seconds():
    """A hand of two queues: one holds a waiting 3-seat request, the other two 1-seat ones. The newcomer joins the
    second (2 × 3 ms of work against 9 ms), though it holds more requests."""
    async def run() -> None:
        qs = QueueSet(_limits(1, queues=2, hand=2, qll=10))
        a, b = _flows(2, 2)
        holder = qs.start(ONE_SEAT, "fs", a)
        qs._hands = {("fs", a): [0], ("fs", b): [1], ("fs", "new"): [0, 1]}  # hands fixed for the test
        wide = qs.start(WorkEstimate(3), "fs", a)
        narrow = [qs.start(ONE_SEAT, "fs", b) for _ in range(2)]
        assert wide.queue.index == 0 and {r.queue.index for r in narrow} == {1}
        newcomer = qs.start(ONE_SEAT, "fs", "new")
        assert newcomer.queue.index == 1
        rows = {row[0]: row for row in qs.queue_rows()}
        assert rows[0][5:] == (3, 3, 900_000) and rows[1][5:] == (3, 3, 900_000)  # sums: initial, most, work
        qs.finish(holder)
    asyncio.run(run())


def test_fair_queuing_counts_seat_seconds(monkeypatch):
    """Two seats; a flow of 2-seat requests and one of 1-seat requests, queued behind two held seats; every
    request runs 3 ms (the estimated service time). The next dispatch goes to the queue whose head would finish
    first in virtual time, each dispatch advancing its queue by the head's seat-seconds, so the wide flow gets a
    dispatch for every two narrow ones (seat for seat, an equal share) instead of one for one."""
    from conformance.reference_server.flowcontrol import queueset as queueset_module

    clock = _Clock()
    monkeypatch.setattr(queueset_module, "time", clock)

    async def run() -> None:
        qs = QueueSet(_limits(2, queues=8, hand=1, qll=10))
        wide_flow, narrow_flow, other = _flows(8, 3)
        running = [qs.start(ONE_SEAT, "fs", other) for _ in range(2)]
        pending = [("W", qs.start(WorkEstimate(2), "fs", wide_flow)) for _ in range(3)]
        pending += [("N", qs.start(ONE_SEAT, "fs", narrow_flow)) for _ in range(6)]
        rounds: list[str] = []
        while running:
            clock.now += 0.003
            finishing, running = running, []
            started = ""
            for r in finishing:
                qs.finish(r)
                for tag, p in list(pending):
                    if qs.running(p):
                        started += tag
                        pending.remove((tag, p))
                        running.append(p)
            rounds.append(started)
        assert "".join(rounds) == "NWNNWNNWN"
        assert rounds[:4] == ["N", "W", "NN", "W"], rounds
    asyncio.run(run())


def test_wide_request_is_not_overtaken_and_runs_alone_when_wider_than_the_level():
    async def run() -> None:
        qs = QueueSet(_limits(2, queues=1, hand=1, qll=10))
        held = qs.start(ONE_SEAT)
        wide = qs.start(WorkEstimate(2))  # one seat free: not enough, it waits
        assert wide is not None and not qs.running(wide)
        narrow = qs.start(ONE_SEAT)  # behind it: it may not take the free seat
        assert narrow is not None and not qs.running(narrow) and qs.in_use == 1
        qs.finish(held)
        assert qs.running(wide) and qs.in_use == 2 and not qs.running(narrow)
        qs.finish(wide)
        assert qs.running(narrow)
        qs.finish(narrow)
        huge = qs.start(WorkEstimate(10))  # wider than the level: alone
        assert huge is not None and qs.running(huge) and qs.in_use == 10
        assert qs.start(ONE_SEAT) is not None and qs.waiting == 1
        qs.finish(huge)
        assert qs.waiting == 0 and qs.executing == 1
    asyncio.run(run())


def test_final_seats_linger_for_the_additional_latency():
    async def run() -> None:
        qs = QueueSet(_limits(4))
        req = qs.start(WorkEstimate(1, 3, 1_000_000))  # 1 seat running, 3 kept 1 ms after
        assert req is not None and qs.in_use == 3  # the most of both, from the start
        qs.finish(req)
        assert qs.executing == 0 and qs.in_use == 3
        deadline = asyncio.get_running_loop().time() + 5
        while qs.in_use and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.001)
        assert qs.in_use == 0
    asyncio.run(run())


def test_full_queue_rejects_and_wait_times_out():
    async def run() -> None:
        qs = QueueSet(_limits(1, queues=1, hand=1, qll=1))
        holder = qs.start(ONE_SEAT)
        queued = qs.start(ONE_SEAT)
        assert queued is not None and qs.waiting == 1
        assert qs.start(ONE_SEAT) is None and qs.rejected == 1  # the queue holds queueLengthLimit already
        assert await qs.wait(queued, 0.05) is False and qs.waiting == 0  # its deadline passed
        assert (qs.rejected, qs.cancelled, qs.timed_out) == (2, 1, 0)  # upstream's count of a time-out
        qs.finish(holder)
        assert qs.in_use == 0
    asyncio.run(run())


def test_cancelled_waiter_leaves_its_queue():
    async def run() -> None:
        qs = QueueSet(_limits(1, queues=2, hand=1, qll=5))
        holder = qs.start(ONE_SEAT)
        queued = qs.start(ONE_SEAT)
        waiter = asyncio.create_task(qs.wait(queued, 10.0))
        await asyncio.sleep(0)
        waiter.cancel()
        await asyncio.gather(waiter, return_exceptions=True)
        assert qs.waiting == 0 and (qs.rejected, qs.cancelled) == (1, 1)
        qs.finish(holder)
        assert qs.in_use == 0 and qs.running(qs.start(ONE_SEAT))
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


def _pl(name: str, shares: int, lendable: int = 0, borrowing: int | None = None, queue: bool = False) -> dict:
    response = {"type": "Queue", "queuing": {"queues": 1, "handSize": 1, "queueLengthLimit": 10}} if queue \
        else {"type": "Reject"}
    limited = {"nominalConcurrencyShares": shares, "lendablePercent": lendable, "limitResponse": response}
    if borrowing is not None:
        limited["borrowingLimitPercent"] = borrowing
    return {"metadata": {"name": name}, "spec": {"type": "Limited", "limited": limited}}


def test_allocation_is_proportional_to_targets_within_bounds():
    """`computeConcurrencyAllocation`: proportional where no bound binds; bounded items pinned, the rest scaled."""
    allocs, fair = allocate(10, [AllocItem(1, 0, 10), AllocItem(4, 0, 10)])
    assert allocs == [2.0, 8.0] and fair == 2.0
    allocs, fair = allocate(10, [AllocItem(1, 0, 1.5), AllocItem(4, 0, 10)])  # the first capped at 1.5
    assert allocs[0] == 1.5 and abs(allocs[1] - 8.5) < 1e-9
    allocs, _ = allocate(10, [AllocItem(1, 1, 10), AllocItem(9, 9, 10)])  # lower bounds sum to the total
    assert allocs == [1, 9]
    allocs, _ = allocate(6, [AllocItem(0, 0, 6), AllocItem(2, 2, 6)])  # a zero target counts as 0.001
    assert allocs[0] < 0.01 and abs(sum(allocs) - 6) < 1e-9


def test_seat_demand_integrates_over_time():
    now = [0.0]
    demand = SeatDemand(lambda: now[0])
    demand.set(4)
    now[0] = 1.0
    demand.set(0)
    now[0] = 2.0
    duration, average, deviation, maximum = demand.reset()
    assert (duration, average, deviation, maximum) == (2.0, 2.0, 2.0, 4)
    stats = DemandStats()
    stats.update(demand.reset())  # a period at 0 after one of high demand: smoothing keeps some of it
    assert stats.high_watermark == 0
    stats.smoothed = 4.0
    stats.update(type(demand.reset())(1.0, 0.0, 0.0, 0.0))
    assert abs(stats.smoothed - 0.977 * 4.0) < 1e-9


def test_borrowing_follows_demand(monkeypatch):
    """a: 2 seats, half lendable; b: 2 seats, none lendable; 4 in all. With no demand the seats go in proportion
    to what each may not lend (a 1 + 1/3, b 2 + 2/3: 1 and 3, b borrowing a's lendable seat); once a has had
    4 seats of demand for a period, the next re-division gives a its nominal 2 back (its lower bound is now
    min(nominal, high watermark)) and dispatches its queued request; b is down to 2."""
    from conformance.reference_server.flowcontrol import borrowing as borrowing_module
    from conformance.reference_server.flowcontrol import queueset as queueset_module

    clock = _Clock()
    monkeypatch.setattr(borrowing_module, "time", clock)
    monkeypatch.setattr(queueset_module, "time", clock)

    async def run() -> None:
        fc = FlowControl(4)
        fc.configure([_pl("a", 1, lendable=50, queue=True), _pl("b", 1, queue=True), _pl("exempt", 0),
                      _pl("catch-all", 0)])
        a, b = fc.level("a"), fc.level("b")
        assert (a.limits.nominal, a.limits.lendable, b.limits.nominal) == (2, 1, 2)
        assert (a.current_cl, b.current_cl) == (1, 3)
        reqs = [a.start(ONE_SEAT) for _ in range(4)]
        assert [a.running(r) for r in reqs] == [True, False, False, False]
        clock.now += 10
        fc.update_borrowing()
        stats = fc.levels["a"].stats
        assert (stats.high_watermark, stats.avg, stats.smoothed) == (4, 4.0, 4.0)
        assert (a.current_cl, b.current_cl) == (2, 2)
        assert [a.running(r) for r in reqs] == [True, True, False, False]
        for r in reqs:
            if a.running(r):
                a.finish(r)
        for r in reqs:
            a.finish(r)
        assert a.in_use == 0 and a.waiting == 0
    asyncio.run(run())


def test_a_deleted_level_drains_quiescing():
    """`processOldPLsLocked`: a level no longer configured that still runs a request is kept, quiescing (its shares
    still counted), until it is idle; then the configuration is digested again without it."""
    async def run() -> None:
        fc = FlowControl(4)
        fc.configure([_pl("q", 1), _pl("b", 1), _pl("exempt", 0), _pl("catch-all", 0)])
        q = fc.level("q")
        req = q.start(ONE_SEAT)
        fc.configure([_pl("b", 1), _pl("exempt", 0), _pl("catch-all", 0)])
        assert fc.level("q") is q and q.quiescing and fc.level("b").limits.nominal == 2
        row = next(line for line in fc.dump_priority_levels().splitlines() if line.startswith("q,"))
        assert [c.strip() for c in row.split(",")][2:6] == ["false", "true", "0", "1"]
        q.finish(req)
        await asyncio.sleep(0)
        assert fc.level("q") is None and fc.level("b").limits.nominal == 4
        assert "q," not in fc.dump_priority_levels()
    asyncio.run(run())
