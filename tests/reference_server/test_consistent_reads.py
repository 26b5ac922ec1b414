"""Reads at resourceVersion "" see every write acknowledged before they arrived, on any replica (upstream:
GET at "" from etcd, LIST at "" from a cache made as fresh as etcd's current revision, else from etcd).

Each test holds one store's watch cache behind etcd on purpose: without the freshness gate those reads answer
404 / an empty list."""
from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Any, Iterator

import pytest
import requests

from conformance.reference_server.embedded import start_embedded
from conformance.reference_server.storage import KeyNotFoundError
from conformance.reference_server.storage.backends import StorageConfig
from conformance.reference_server.storage.etcd import EtcdStore
from conformance.reference_server.storage.etcdclient import EtcdClient
from conformance.reference_server.storage.freshness import FreshnessGate
from conformance.reference_server.storage.memory import MemoryStore

from .backends import unique_prefix
from .replicas import hold

CM = {"metadata": {"name": "c", "namespace": "x"}, "data": {"k": "v"}}


@contextlib.contextmanager
def replicas(etcd_process: Any) -> Iterator[tuple[Any, EtcdStore, EtcdStore, threading.Event]]:
    """A server on a fresh prefix of the session's etcd (replica b: its store) and another store on that prefix
    (replica a), as two API server processes sharing an etcd; b's cache held until the event is set."""
    prefix = unique_prefix()
    srv = start_embedded(flavor="bare", storage=StorageConfig("etcd", (etcd_process.url,), prefix),
                         leader_elect=False)
    a = EtcdStore(EtcdClient([etcd_process.url]), prefix)
    release = hold(srv._server.ctx.store)
    try:
        yield srv, a, srv._server.ctx.store, release
    finally:
        release.set()
        a.close()
        srv.stop()


async def fresh_read(gate: FreshnessGate, fn):
    stale = await gate()
    return await gate.read_at(stale, fn) if stale else fn()


def test_a_read_waits_for_the_cache_to_reach_etcds_revision(pair):
    a, b = pair
    release = hold(b)
    created = a.create("configmaps", "x", "c", CM)
    with pytest.raises(KeyNotFoundError):  # b's cache has not applied it: what a plain cached read answers
        b.get("configmaps", "x", "c")
    wait_fresh = b.wait_fresh

    def waiting(rev, timeout):  # the round has etcd's revision: now let the cache catch up
        assert rev >= int(created["metadata"]["resourceVersion"])
        release.set()
        return wait_fresh(rev, timeout)
    b.wait_fresh = waiting

    async def main():
        gate = FreshnessGate(b, timeout=10)
        got = await fresh_read(gate, lambda: b.get("configmaps", "x", "c"))
        listed, _ = await fresh_read(gate, lambda: b.list("configmaps", "x"))
        await gate.aclose()
        return got, listed
    got, listed = asyncio.run(main())
    assert got["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    assert [o["metadata"]["name"] for o in listed] == ["c"]


def test_a_cache_that_cannot_catch_up_falls_back_to_etcd_at_the_revision(pair):
    a, b = pair
    a.create("configmaps", "x", "old", {**CM, "metadata": {"name": "old", "namespace": "x"}})
    b.cache.wait_for(a.current_rv(), 5)
    release = hold(b)  # never set before the reads: as writes outside the prefix with no progress notification
    a.delete("configmaps", "x", "old")
    created = a.create("configmaps", "x", "c", CM)

    async def main():
        gate = FreshnessGate(b, timeout=0.1)
        stale = await gate()
        assert stale >= int(created["metadata"]["resourceVersion"])
        got = await gate.read_at(stale, lambda: b.get("configmaps", "x", "c"))
        listed, rv = await gate.read_at(stale, lambda: b.list("configmaps", "x"))
        with pytest.raises(KeyNotFoundError):
            await gate.read_at(stale, lambda: b.get("configmaps", "x", "old"))
        await gate.aclose()
        return got, listed, rv, stale
    try:
        got, listed, rv, stale = asyncio.run(main())
    finally:
        release.set()
    assert got["data"] == {"k": "v"} and got["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    assert [o["metadata"]["name"] for o in listed] == ["c"] and rv == stale


def test_reads_that_arrive_together_share_one_round_trip(pair):
    _, b = pair
    calls = []

    async def main():
        gate = FreshnessGate(b)
        fetch = gate.fetch_revision

        async def counted():
            calls.append(1)
            return await fetch()
        gate.fetch_revision = counted
        first = await asyncio.gather(*(gate() for _ in range(20)))
        assert len(calls) == 1
        sent = asyncio.ensure_future(gate())
        await asyncio.sleep(0)  # the round is on its way
        later = await asyncio.gather(*(gate() for _ in range(5)))  # arrived after it was sent: the next round
        await gate.aclose()
        return first + [await sent] + later
    assert asyncio.run(main()) == [0] * 26 and len(calls) == 3


def test_the_memory_store_has_no_gate():
    assert not FreshnessGate(MemoryStore()).remote


def test_a_replica_serves_another_ones_acknowledged_write(etcd_process):
    """Over HTTP: the write goes to etcd through another store (replica a); replica b's cache is held."""
    with replicas(etcd_process) as (srv, a, b, release):
        wait_fresh = b.wait_fresh
        b.wait_fresh = lambda rev, timeout: release.set() or wait_fresh(rev, timeout)
        a.create("configmaps", "x", "c", CM)
        r = requests.get(f"{srv.url}/api/v1/namespaces/x/configmaps/c")
        assert r.status_code == 200, r.text
        release.clear()
        a.create("configmaps", "x", "d", {**CM, "metadata": {"name": "d", "namespace": "x"}})
        r = requests.get(f"{srv.url}/api/v1/namespaces/x/configmaps")
        assert [o["metadata"]["name"] for o in r.json()["items"]] == ["c", "d"]
