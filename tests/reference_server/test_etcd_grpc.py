"""etcd's gRPC API as the store's transport (`etcdgrpc.py`, `h2conn.py`, `etcdwire.py`): the calls and their
errors against a real etcd, the JSON gateway kept as the other transport, and watch progress requests."""
from __future__ import annotations

import socket
import time

import pytest

from conformance.reference_server.storage.backends import etcd_client
from conformance.reference_server.storage.errors import KeyExistsError, KeyNotFoundError, TooOldResourceVersionError
from conformance.reference_server.storage.etcd import EtcdStore, supports_progress_requests
from conformance.reference_server.storage.etcdapi import Cmp, Op
from conformance.reference_server.storage.etcdclient import EtcdCompacted, EtcdUnavailable
from conformance.reference_server.storage.etcdgrpc import GrpcEtcdClient

from .backends import etcd_process, unique_prefix  # noqa: F401 - fixture

CM = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "x"}, "data": {"a": "1"}}


@pytest.fixture
def grpc_client(etcd_process):  # noqa: F811
    c = GrpcEtcdClient([etcd_process.url])
    yield c
    c.close()


def test_txn_range_and_compare_on_the_wire(grpc_client):
    key = unique_prefix().encode() + b"/k"
    created = grpc_client.transact([Cmp("CREATE", key, 0)], [Op("put", key, b"v1")], [Op("range", key)])
    assert created.succeeded and created.revision > 0
    again = grpc_client.transact([Cmp("CREATE", key, 0)], [Op("put", key, b"v2")], [Op("range", key)])
    assert not again.succeeded
    assert [(kv.key, kv.value, kv.mod_revision) for kv in again.kvs] == [(key, b"v1", created.revision)]
    stale = grpc_client.transact([Cmp("MOD", key, created.revision - 1)], [Op("delete", key)], [Op("range", key)])
    assert not stale.succeeded
    gone = grpc_client.transact([Cmp("MOD", key, created.revision)], [Op("delete", key)], [Op("range", key)])
    assert gone.succeeded and gone.revision == created.revision + 1
    assert grpc_client.get(key).kvs == []
    assert grpc_client.get(key, revision=created.revision).kvs[0].value == b"v1"
    assert grpc_client.version().startswith("3.")


def test_a_value_larger_than_the_flow_control_windows(grpc_client):
    """1 MiB: 64 frames of 16 KiB, beyond HTTP/2's initial 64 KiB window (sent as etcd's WINDOW_UPDATEs come)."""
    key = unique_prefix().encode() + b"/big"
    value = bytes(range(256)) * 4096
    out = grpc_client.transact([Cmp("CREATE", key, 0)], [Op("put", key, value)], [])
    assert out.succeeded
    assert grpc_client.get(key).kvs[0].value == value


def test_errors_map_as_on_the_gateway(grpc_client):
    key = unique_prefix().encode() + b"/c"
    first = grpc_client.transact([], [Op("put", key, b"1")], []).revision
    grpc_client.transact([], [Op("put", key, b"2")], [])
    grpc_client.compact(first + 1)
    grpc_client.compact(first)  # already compacted past it: not an error
    with pytest.raises(EtcdCompacted):
        grpc_client.get(key, revision=first)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}"
    nobody = GrpcEtcdClient([dead])
    with pytest.raises(EtcdUnavailable, match="cannot reach etcd at http://127.0.0.1:.*refused"):
        nobody.get(b"/x")
    failover = GrpcEtcdClient([dead, grpc_client.endpoints[0]])
    try:
        assert failover.get(key).kvs[0].value == b"2"
    finally:
        failover.close()


@pytest.mark.parametrize("transport", ["grpc", "gateway"])
def test_the_store_on_each_transport(etcd_process, transport):  # noqa: F811
    store = EtcdStore(etcd_client([etcd_process.url], transport), unique_prefix(), history_size=10)
    try:
        created = store.create("configmaps", "x", "c", CM)
        with pytest.raises(KeyExistsError):
            store.create("configmaps", "x", "c", CM)
        updated, _ = store.guaranteed_update("configmaps", "x", "c", lambda o: {**o, "data": {"a": "2"}})
        assert int(updated["metadata"]["resourceVersion"]) > int(created["metadata"]["resourceVersion"])
        items, rv = store.list("configmaps", "x")
        assert [o["data"] for o in items] == [{"a": "2"}]
        at, _ = store._range_at("configmaps", "x", int(created["metadata"]["resourceVersion"]))
        assert [o["data"] for o in at] == [{"a": "1"}]
        store.delete("configmaps", "x", "c")
        with pytest.raises(KeyNotFoundError):
            store.delete("configmaps", "x", "c")
        store.compact()
        with pytest.raises(TooOldResourceVersionError):
            store._range_at("configmaps", "x", int(created["metadata"]["resourceVersion"]))
        for n in ("m1", "m2", "m3"):  # delete_many: pipelined on gRPC, threads on the gateway
            store.create("configmaps", "x", n, {**CM, "metadata": {"name": n, "namespace": "x"}})
        out = store.delete_many("configmaps", [("x", "m1"), ("x", "gone"), ("x", "m2"), ("x", "m3")])
        assert [o["metadata"]["name"] for o in out if isinstance(o, dict)] == ["m1", "m2", "m3"]
        assert isinstance(out[1], KeyNotFoundError) and store.list("configmaps", "x")[0] == []
    finally:
        store.close()


def test_progress_requests_bring_the_cache_to_a_revision_written_outside_its_prefix(etcd_process):  # noqa: F811
    """A foreign writer moves etcd's revision with no event under the prefix: with progress requests (upstream's
    RequestWatchProgress) the cache reaches it at once; without, only etcd's periodic notification (10 min) or
    the read's fallback would."""
    prefix = unique_prefix()
    asks = EtcdStore(etcd_client([etcd_process.url]), prefix, progress_requests=True)
    waits = EtcdStore(etcd_client([etcd_process.url]), prefix, progress_requests=False)
    try:
        asks.create("configmaps", "x", "c", CM)
        foreign = asks.client.transact([], [Op("put", b"/elsewhere" + prefix.encode(), b"x")], []).revision
        assert not waits.wait_fresh(foreign, 0.3)
        started = time.monotonic()
        assert asks.wait_fresh(foreign, 30.0)
        assert asks.current_rv() >= foreign
        assert time.monotonic() - started < 29
    finally:
        asks.close()
        waits.close()


class _Versioned:
    transport = "grpc"

    def __init__(self, version: str):
        self._v = version

    def version(self) -> str:
        return self._v


@pytest.mark.parametrize("version,supported", [
    ("3.4.23", False), ("3.4.31", True), ("3.5.12", False), ("3.5.13", True), ("3.6.0", True), ("bad", False)])
def test_progress_requests_only_where_upstream_uses_them(version, supported):
    """kube-apiserver's feature_support_checker.go: etcd 3.4.31+ or 3.5.13+ (etcd issues 15220, 17507)."""
    assert supports_progress_requests(_Versioned(version)) is supported  # type: ignore[arg-type]


def test_transactions_pipelined_on_one_connection(grpc_client):
    """`transact_many`: many calls in flight on one connection from one thread, more than the peer's windows
    hold at once (600 × 1 KiB > 64 KiB), answered in the order asked, a refused one (etcd's error) in its place
    without disturbing the others."""
    base = unique_prefix().encode()
    keys = [base + b"/%d" % i for i in range(600)]
    value = b"v" * 1024
    txns = [([Cmp("CREATE", k, 0)], [Op("put", k, value)], [Op("range", k)]) for k in keys]
    txns.insert(300, ([], [Op("put", base + b"/dup", b"1"), Op("put", base + b"/dup", b"2")], []))  # refused
    out = grpc_client.transact_many(txns)
    assert len(out) == 601 and isinstance(out[300], Exception) and "duplicate key" in str(out[300])
    made = out[:300] + out[301:]
    assert all(r.succeeded for r in made) and len({r.revision for r in made}) == 600
    again = grpc_client.transact_many([([Cmp("MOD", k, r.revision)], [Op("delete", k)], [Op("range", k)])
                                       for k, r in zip(keys, made)])
    assert all(r.succeeded for r in again)
    assert grpc_client.get(base + b"/", range_end=base + b"0").kvs == []


class _LosingAnswers:
    """A gRPC client whose pipelined batches lose answers as a dropped connection would: the first third of
    the transactions applied but unanswered, the second third never sent, both reported as `EtcdUnavailable`."""

    def __init__(self, real: GrpcEtcdClient):
        self.real = real

    def __getattr__(self, name):
        return getattr(self.real, name)

    def transact_many(self, txns):
        third = len(txns) // 3
        applied = self.real.transact_many(txns[:third] + txns[2 * third:])
        lost = EtcdUnavailable("etcd connection lost before the answer")
        return [lost] * (2 * third) + applied[third:]


def test_delete_many_when_the_pipeline_loses_answers_or_races(etcd_process):  # noqa: F811
    """Nothing lost, nothing deleted twice: an answer lost with the connection (applied or not) and a lost
    compare-and-swap (another writer changed the object after the cache's read) go through the ordinary path,
    which reads etcd: an applied deletion is then not found, the others are deleted, the raced one with the
    other writer's state; every deletion its own revision and DELETED event."""
    real = GrpcEtcdClient([etcd_process.url])
    store = EtcdStore(_LosingAnswers(real), unique_prefix())
    try:
        names = [f"cm-{i}" for i in range(30)]
        for n in names:
            store.create("configmaps", "x", n, {**CM, "metadata": {"name": n, "namespace": "x"}})
        start = store.current_rv()
        raced = names[25]
        key = (store.prefix + "/configmaps/x/" + raced).encode()
        cur = store.cache.snapshot("configmaps", "x", raced)
        real.transact([Cmp("MOD", key, int(cur["metadata"]["resourceVersion"]))],  # behind the cache's back
                      [Op("put", key, b'{"metadata":{"name":"%s","namespace":"x"},"data":{"a":"2"}}' % raced.encode())],
                      [])
        cached = store.cache.snapshot
        store.cache.snapshot = lambda r, ns, n: cur if n == raced else cached(r, ns, n)  # the cache lags
        out = store.delete_many("configmaps", [("x", n) for n in names])
        assert all(isinstance(o, KeyNotFoundError) for o in out[:10])  # applied, answer lost: already gone
        assert [o["metadata"]["name"] for o in out[10:]] == names[10:]
        assert out[25]["data"] == {"a": "2"}
        store.cache.snapshot = cached
        assert store.list("configmaps", "x")[0] == []
        rvs = [int(o["metadata"]["resourceVersion"]) for o in out[10:]]
        assert len(set(rvs)) == 20 and min(rvs) > start
        deleted = [e for e in store.cache._history if e.type == "DELETED" and e.rv > start]
        assert sorted(e.name for e in deleted) == sorted(names)
        assert len({e.rv for e in deleted}) == 30
    finally:
        store.close()
