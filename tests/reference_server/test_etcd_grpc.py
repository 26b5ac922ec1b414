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
