"""Leader election of the controllers (controller/leader.py) on one in-memory store shared by two electors,
as two replicas share etcd: one leader, compare-and-swap on the Lease, failover once the holder stops
renewing, the Lease's fields as client-go writes them."""
from __future__ import annotations

import asyncio

import pytest
import requests

from conformance.reference_server import apierrors as E
from conformance.reference_server.controller.leader import (LeaderElectionConfig, LeaderElector, LeaseLock,
                                                             parse_micro_time)
from conformance.reference_server.embedded import start_embedded
from conformance.reference_server.registry import Registry
from conformance.reference_server.storage import MemoryStore

from .backends import unique_prefix


class Clock:
    def __init__(self, t: float = 1_700_000_000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


async def _nothing() -> None:
    return None


def elector(registry, identity, clock, **durations) -> LeaderElector:
    cfg = LeaderElectionConfig(identity=identity, **durations)
    return LeaderElector(registry, cfg, on_started=lambda: None, on_stopped=_nothing, clock=clock)


def lease(registry) -> dict:
    return registry.group("coordination.k8s.io", "leases").get("kube-system", "kube-controller-manager")


@pytest.fixture
def registry():
    return Registry(MemoryStore())


def test_one_leader_and_the_lease_as_client_go_writes_it(registry):
    clock = Clock()
    a, b = elector(registry, "a", clock), elector(registry, "b", clock)
    assert a.try_acquire_or_renew() is True
    assert b.try_acquire_or_renew() is False
    spec = lease(registry)["spec"]
    assert spec["holderIdentity"] == "a" and spec["leaseDurationSeconds"] == 15 and spec["leaseTransitions"] == 0
    assert spec["acquireTime"] == spec["renewTime"]
    assert parse_micro_time(spec["renewTime"]) == pytest.approx(clock.t, abs=1e-5)
    assert spec["renewTime"].endswith("Z") and len(spec["renewTime"].split(".")[1]) == 7  # MicroTime: µs
    acquired = spec["acquireTime"]
    clock.t += 2
    assert a.try_acquire_or_renew() is True  # renewal: renewTime moves, acquireTime and transitions stay
    spec = lease(registry)["spec"]
    assert spec["acquireTime"] == acquired
    assert parse_micro_time(spec["renewTime"]) == pytest.approx(clock.t, abs=1e-5)
    assert spec["leaseTransitions"] == 0 and spec["holderIdentity"] == "a"
    assert b.try_acquire_or_renew() is False and not b.is_leader() and a.is_leader()


def test_failover_after_the_holder_stops_renewing(registry):
    clock = Clock()
    a, b = elector(registry, "a", clock), elector(registry, "b", clock)
    assert a.try_acquire_or_renew()
    assert not b.try_acquire_or_renew()  # b observes a's record now
    clock.t += 14.9
    assert not b.try_acquire_or_renew(), "taken before leaseDuration passed since b last saw it change"
    clock.t += 0.2
    assert b.try_acquire_or_renew()
    spec = lease(registry)["spec"]
    assert spec["holderIdentity"] == "b" and spec["leaseTransitions"] == 1
    assert parse_micro_time(spec["acquireTime"]) == pytest.approx(clock.t, abs=1e-5)
    assert not a.try_acquire_or_renew(), "the old holder must not win it back while b renews"
    assert lease(registry)["spec"]["holderIdentity"] == "b"


def test_expiry_counts_from_when_the_record_last_changed_not_from_renew_time(registry):
    """A replica that starts late gives the holder a full leaseDuration from its first look (clock skew)."""
    clock = Clock()
    a = elector(registry, "a", clock)
    assert a.try_acquire_or_renew()
    clock.t += 100  # a stopped renewing long ago, by renewTime
    b = elector(registry, "b", clock)
    assert not b.try_acquire_or_renew()
    clock.t += 15.1
    assert b.try_acquire_or_renew()


def test_writes_are_compare_and_swap_on_resource_version(registry):
    clock = Clock()
    assert elector(registry, "a", clock).try_acquire_or_renew()
    one = LeaseLock(registry, "kube-system", "kube-controller-manager", "x")
    two = LeaseLock(registry, "kube-system", "kube-controller-manager", "y")
    rec_one, _ = one.get()
    rec_two, _ = two.get()
    rec_one.holder_identity, rec_two.holder_identity = "x", "y"
    one.update(rec_one)
    with pytest.raises(E.StatusError) as err:
        two.update(rec_two)
    assert err.value.code == 409
    assert lease(registry)["spec"]["holderIdentity"] == "x"


def test_release_lets_the_next_one_in_after_one_second(registry):
    clock = Clock()
    a, b = elector(registry, "a", clock), elector(registry, "b", clock)
    assert a.try_acquire_or_renew() and not b.try_acquire_or_renew()
    assert a.release()
    spec = lease(registry)["spec"]
    assert spec["holderIdentity"] == "" and spec["leaseDurationSeconds"] == 1
    assert b.try_acquire_or_renew(), "an empty holder is free at once"
    assert lease(registry)["spec"]["leaseTransitions"] == 1


@pytest.mark.parametrize("durations, message", [
    ({"lease_duration": 10, "renew_deadline": 10}, "leaseDuration must be greater than renewDeadline"),
    ({"renew_deadline": 2, "retry_period": 2}, "renewDeadline must be greater than retryPeriod*JitterFactor"),
])
def test_durations_checked_as_new_leader_elector_does(durations, message):
    with pytest.raises(ValueError, match=message.replace("*", r"\*")):
        LeaderElectionConfig(**durations)


def test_run_loops_start_and_stop_the_controllers_on_failover(registry):
    """Two electors on their loop with short durations: exactly one leads; when it dies (stops renewing
    without releasing) the other starts its controllers within about leaseDuration."""
    short = {"lease_duration": 1, "renew_deadline": 0.5, "retry_period": 0.1}
    leading: dict[str, int] = {"a": 0, "b": 0}

    def make(identity):
        async def stopped():
            leading[identity] -= 1
        return LeaderElector(registry, LeaderElectionConfig(identity=identity, **short),
                             on_started=lambda: leading.__setitem__(identity, leading[identity] + 1),
                             on_stopped=stopped)

    async def until(predicate, timeout=10.0):
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not predicate():
            assert loop.time() < end, f"timed out; leading={leading}"
            await asyncio.sleep(0.02)

    async def scenario():
        a, b = make("a"), make("b")
        a.start()
        assert leading == {"a": 1, "b": 0}, "a lone elector leads before start returns"
        b.start()
        await until(lambda: b.observed_record.holder_identity == "a")  # b tried, and lost to a
        assert leading == {"a": 1, "b": 0}
        a._task.cancel()  # a dies: no renewal, no release
        await until(lambda: leading["b"] == 1)
        assert lease(registry)["spec"]["holderIdentity"] == "b"
        assert lease(registry)["spec"]["leaseTransitions"] == 1
        await b.stop()
        assert leading["b"] == 0 and lease(registry)["spec"]["holderIdentity"] == ""

    asyncio.run(scenario())


def test_the_embedded_server_holds_the_lease_from_its_start():
    srv = start_embedded(flavor="bare")
    try:
        r = requests.get(f"{srv.url}/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/"
                         "kube-controller-manager")
        assert r.status_code == 200, r.text
        spec = r.json()["spec"]
        assert spec["holderIdentity"].count("_") >= 1 and spec["leaseDurationSeconds"] == 15
    finally:
        srv.stop()


def test_serve_flags_are_kube_controller_managers():
    from conformance.reference_server.serve import build_parser, leader_election
    args = build_parser().parse_args(["--leader-elect-lease-duration", "3s", "--leader-elect-renew-deadline", "2s",
                                      "--leader-elect-retry-period", "500ms"])
    cfg = leader_election(args)["leader_election"]
    assert (cfg.lease_duration, cfg.renew_deadline, cfg.retry_period) == (3, 2, 0.5)
    assert (cfg.namespace, cfg.name) == ("kube-system", "kube-controller-manager")
    assert leader_election(build_parser().parse_args(["--leader-elect=false"])) == {"leader_elect": False}


def test_two_replicas_on_one_etcd_elect_one_leader_by_compare_and_swap(etcd_process):
    """Two stores (two replicas' watch caches) on one etcd: both read the expired Lease, both write it,
    etcd's revision compare lets exactly one through."""
    from conformance.reference_server.storage.etcd import EtcdStore
    from conformance.reference_server.storage.etcdclient import EtcdClient
    prefix = unique_prefix()
    one, two = (Registry(EtcdStore(EtcdClient([etcd_process.url]), prefix)) for _ in range(2))
    try:
        clock = Clock()
        a, b = elector(one, "a", clock), elector(two, "b", clock)
        assert a.try_acquire_or_renew()
        # two's watch cache follows etcd a moment behind one's write (reads here come from the cache)
        assert two.store.cache.wait_for(one.store.current_rv(), 10)
        assert not b.try_acquire_or_renew()
        clock.t += 16
        locks = [LeaseLock(r, "kube-system", "kube-controller-manager", i) for r, i in ((one, "c"), (two, "b"))]
        records = [lock.get()[0] for lock in locks]
        for rec, who in zip(records, ("c", "b")):
            rec.holder_identity = who
        locks[0].update(records[0])
        with pytest.raises(E.StatusError) as err:
            locks[1].update(records[1])
        assert err.value.code == 409
        assert b.try_acquire_or_renew() is False, "c's write is a change b must wait a full lease for"
        assert lease(one)["spec"]["holderIdentity"] == "c"  # one's cache has seen its own write
    finally:
        for r in (one, two):
            r.store.close()


def test_a_stop_arriving_during_a_renewal_ends_the_loop(registry):
    """The stop's cancel lands while a renewal step runs: the loop must end (a lost cancel once left an embedded
    server's stop waiting for ever on the elector)."""
    short = {"lease_duration": 1, "renew_deadline": 0.5, "retry_period": 0.01}

    async def scenario():
        a = LeaderElector(registry, LeaderElectionConfig(identity="a", **short), on_started=lambda: None,
                          on_stopped=_nothing)
        loop = asyncio.get_running_loop()
        stopping: list[asyncio.Future] = []
        renew = a.try_acquire_or_renew

        def renew_and_stop(now=None):
            if a.leading and not stopping:
                stopping.append(loop.create_task(a.stop()))
            return renew(now)

        a.try_acquire_or_renew = renew_and_stop
        a.start()
        assert a.leading
        while not stopping:
            await asyncio.sleep(0.01)
        await asyncio.wait_for(stopping[0], 5)
        assert not a.leading and lease(registry)["spec"]["holderIdentity"] == ""

    asyncio.run(scenario())
