"""TTL'd writes (Events' `--event-ttl`) on both backends: the lease manager of
`staging/src/k8s.io/apiserver/pkg/storage/etcd3/lease_manager.go` (storage/leases.py), the memory store's leases as
etcd's lessor keeps them (storage/memoryleases.py) and the etcd store's real leases: the key is removed with a DELETED
event when its lease expires, a rewrite attaches it to another lease, a rewrite without a ttl leaves its lease."""
from __future__ import annotations

import asyncio
from typing import Any, Callable

from conformance.reference_server.storage.interface import Event, StorageObserver
from conformance.reference_server.storage.leases import LeaseManager

WAIT = 15.0  # seconds a test waits for an expiry (etcd's 2 s minimum lease, its lessor checks every 500 ms)


class Clock:
    """Time as Go's `time.Now()`: a little later at each reading."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        self.now += 1e-6
        return self.now


def manager(reuse: int = 60, max_objects: int = 1000) -> tuple[LeaseManager, list[int], list[int], Clock]:
    granted: list[int] = []
    observed: list[int] = []
    clock = Clock()

    def grant(ttl: int) -> int:
        granted.append(ttl)
        return len(granted)

    return LeaseManager(grant, observed.append, reuse, max_objects, clock), granted, observed, clock


def test_reuse_duration_is_five_percent_at_most_the_flag() -> None:
    m, *_ = manager()
    assert (m.reuse_duration(3600), m.reuse_duration(100), m.reuse_duration(19), m.reuse_duration(1)) == (60, 5, 0, 0)
    assert manager(reuse=10)[0].reuse_duration(3600) == 10


def test_a_lease_is_granted_with_the_extra_time_and_reused_within_the_window() -> None:
    m, granted, observed, clock = manager()
    assert m.lease(3600) == 1
    assert granted == [3660] and observed == [1]  # upstream counts the call before it decides
    clock.now += 59.5  # still before now + ttl + reuse > expiry and now + ttl < expiry
    assert m.lease(3600) == 1 and m.lease(3600) == 1
    clock.now += 1  # 60.5 s after the grant: the lease would end before now + ttl
    assert m.lease(3600) == 2
    assert granted == [3660, 3660] and observed == [1, 4]  # three objects on the first lease, and this call


def test_at_most_max_objects_share_a_lease() -> None:
    m, granted, observed, _ = manager(max_objects=2)
    assert [m.lease(3600) for _ in range(5)] == [1, 1, 2, 2, 3]
    assert observed == [1, 3, 3] and granted == [3660] * 3


def event(name: str, message: str = "m") -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "a"}, "message": message}


def expire(s: Any, writes: Callable[[], None], names: set[str]) -> dict[str, Event]:
    """Watch the events of `s`, make the `writes`, then wait on the watch (no sleep) for the DELETED events of
    `names` (the test fails after WAIT): those events by name."""
    async def main() -> dict[str, Event]:
        _, w = s.watch("events", "a", s.current_rv(), asyncio.get_running_loop())
        writes()
        out: dict[str, Event] = {}
        try:
            while set(out) != names:
                ev = await asyncio.wait_for(w.queue.get(), WAIT)
                if isinstance(ev, Event) and ev.type == "DELETED":
                    out[ev.name] = ev
            return out
        finally:
            w.close()

    return asyncio.run(main())


def test_a_ttl_write_expires_with_a_deleted_event(make_store: Any) -> None:
    s = make_store()
    seen: list[int] = []

    class Observer(StorageObserver):
        def lease_objects(self, count: int) -> None:
            seen.append(count)

    s.observe(Observer())
    s.create("configmaps", "a", "keep", event("keep"))

    def writes() -> None:
        s.create("events", "a", "e1", event("e1"), ttl=1)
        s.create("events", "a", "e2", event("e2"), ttl=1)  # reuse min(5 % of 1 s, 60) = 0 s: a new lease

    gone = expire(s, writes, {"e1", "e2"})
    assert gone["e1"].object["message"] == "m" and int(gone["e1"].object["metadata"]["resourceVersion"]) > 0
    assert s.list("events", "a")[0] == []
    assert [o["metadata"]["name"] for o in s.list("configmaps", "a")[0]] == ["keep"]
    assert seen == [1, 2]


def test_an_update_attaches_to_a_new_lease_and_one_without_ttl_keeps_it_forever(make_store: Any) -> None:
    s = make_store()
    s.create("events", "a", "renewed", event("renewed"), ttl=1)
    s.create("events", "a", "kept", event("kept"), ttl=1)

    def change(obj: dict[str, Any]) -> dict[str, Any]:
        obj["message"] = "again"
        return obj

    def writes() -> None:
        s.guaranteed_update("events", "a", "renewed", change, ttl=1)
        s.guaranteed_update("events", "a", "kept", change)  # a put without a lease leaves the old one
        s.create("events", "a", "marker", event("marker"), ttl=1)  # its lease ends after the first two's

    gone = expire(s, writes, {"renewed", "marker"})
    assert gone["renewed"].object["message"] == "again"
    assert [o["metadata"]["name"] for o in s.list("events", "a")[0]] == ["kept"]


def test_a_deleted_key_recreated_without_ttl_is_not_removed_by_its_old_lease(make_store: Any) -> None:
    s = make_store()
    s.create("events", "a", "e", event("e"), ttl=1)
    s.delete("events", "a", "e")
    s.create("events", "a", "e", event("e", "plain"))
    assert list(expire(s, lambda: s.create("events", "a", "marker", event("marker"), ttl=1), {"marker"})) == \
        ["marker"]
    assert [o["message"] for o in s.list("events", "a")[0]] == ["plain"]


def test_the_json_gateway_grants_and_attaches_leases_too(etcd_process: Any) -> None:
    from conformance.reference_server.storage.backends import etcd_client
    from conformance.reference_server.storage.etcd import EtcdStore

    from .backends import unique_prefix
    s = EtcdStore(etcd_client([etcd_process.url], "gateway"), unique_prefix())
    try:
        assert list(expire(s, lambda: s.create("events", "a", "e", event("e"), ttl=1), {"e"})) == ["e"]
    finally:
        s.close()


def test_the_memory_lessor_revokes_on_etcds_half_second_ticks() -> None:
    """etcd's lessor looks for expired leases every 500 ms: a lease is revoked at the first tick at or after its
    deadline, never before it and at most a tick late."""
    from conformance.reference_server.storage.memoryleases import LESSOR_TICK, next_tick

    assert LESSOR_TICK == 0.5
    assert next_tick(100.0, 100.0) == 100.0
    assert next_tick(100.2, 100.0) == 100.5
    assert next_tick(103.5, 100.0) == 103.5
    assert next_tick(103.51, 100.0) == 104.0
    assert next_tick(99.0, 100.0) == 100.0  # a deadline already past: the next round
