"""The etcd client the store uses by default: etcd's own gRPC API (`etcdapi.KVClient`), on `h2conn.H2Conn`
connections with the hand-written protobuf of `etcdwire.py`.

Why gRPC and not the JSON gateway (`etcdclient.py`, still there: `--etcd-transport gateway`): etcd 3.4's
gateway is a gRPC client of etcd itself, in-process, so every gateway call costs etcd a JSON decode, a gRPC
round trip and a JSON encode on top of the work; per deleted object that was ~60 % of etcd's CPU
(benchmarks/README, "gRPC to etcd"). And a gRPC watch is a two-way stream: the store can ask etcd for a
progress notification (`request_progress`), which the gateway's one-shot watch cannot.

Connections as in the gateway client: one per thread and endpoint for unary calls (the store calls from its
writer thread, its deleters, the freshness gate's fallback threads), the first endpoint that answers, the next
on a connection failure, never a retry after an answer; each watch on a connection of its own, created with
etcd's `hasleader` metadata (as clientv3's `WithRequireLeader`, which kube-apiserver's watcher uses: a member
cut off from its cluster ends the watch instead of keeping it silent)."""
from __future__ import annotations

import ssl
import threading
from typing import Callable, Iterator, TypeVar
from urllib.parse import urlsplit

from . import etcdwire as wire
from .etcdapi import Cmp, Op, RangeResult, TxnResult, WatchBatch
from .etcdclient import COMPACTED, EtcdCompacted, EtcdError, EtcdUnavailable, tls_context, tls_reason
from .h2conn import GrpcStatus, H2Conn, _literal

RANGE, TXN, COMPACT = "/etcdserverpb.KV/Range", "/etcdserverpb.KV/Txn", "/etcdserverpb.KV/Compact"
STATUS, WATCH = "/etcdserverpb.Maintenance/Status", "/etcdserverpb.Watch/Watch"
LEASE_GRANT = "/etcdserverpb.Lease/LeaseGrant"
REQUIRE_LEADER = _literal(b"hasleader", b"true")
UNAVAILABLE = 14
T = TypeVar("T")


def _mapped(e: GrpcStatus) -> EtcdError:
    """A gRPC status as the store's errors, the same ones the gateway client raises."""
    message = str(e) or f"gRPC status {e.code}"
    if COMPACTED in message:
        return EtcdCompacted(message)
    if e.code == UNAVAILABLE:
        return EtcdUnavailable(message, e.code)
    return EtcdError(message, e.code)


class GrpcEtcdClient:
    """`etcdapi.KVClient` on etcd's gRPC API."""

    transport = "grpc"

    def __init__(self, endpoints: list[str], *, ca_file: str | None = None, cert_file: str | None = None,
                 key_file: str | None = None, timeout: float = 10.0):
        if not endpoints:
            raise ValueError("no etcd endpoints")
        self.endpoints = [e.rstrip("/") for e in endpoints]
        self._targets = []
        for e in self.endpoints:
            u = urlsplit(e if "//" in e else "http://" + e)
            https = u.scheme == "https"
            self._targets.append((u.hostname or "127.0.0.1", u.port or (443 if https else 2379), https, u.netloc))
        self._ssl: ssl.SSLContext | None = None  # for HTTP/1.1 (the freshness gate's gateway round trip)
        self._h2_ssl: ssl.SSLContext | None = None
        if any(t[2] for t in self._targets):
            self._ssl = tls_context(ca_file, cert_file, key_file)
            self._h2_ssl = tls_context(ca_file, cert_file, key_file)
            self._h2_ssl.set_alpn_protocols(["h2"])
        self.timeout = timeout
        self._current = 0
        self._local = threading.local()
        self._conns: list[H2Conn] = []
        self._conns_lock = threading.Lock()

    @property
    def ssl_context(self) -> ssl.SSLContext | None:
        return self._ssl

    # ---- plumbing ------------------------------------------------------------------------------------
    def _connect(self, at: int, timeout: float | None) -> H2Conn:
        host, port, https, netloc = self._targets[at]
        conn = H2Conn(host, port, self._h2_ssl if https else None, timeout, authority=netloc)  # type: ignore[arg-type]
        with self._conns_lock:
            self._conns = [c for c in self._conns if not c.closed]
            self._conns.append(conn)
        return conn

    def _call(self, path: str, message: bytes) -> bytes:
        return self._on_conn(lambda conn: conn.unary(path, message))

    def _on_conn(self, call: Callable[[H2Conn], T]) -> T:
        """`call` on this thread's connection to the endpoint that last answered, the next on a connection
        failure (a call is never repeated after an answer)."""
        conns = self._local.__dict__.setdefault("conns", {})
        last: Exception | None = None
        n = len(self._targets)
        for i in range(n):
            at = (self._current + i) % n
            conn = conns.get(at)
            if conn is not None and (conn.closed or conn.draining):
                conn.close()
                conn = None
            try:
                if conn is None:
                    conn = conns[at] = self._connect(at, self.timeout)
                out = call(conn)
            except GrpcStatus as e:
                raise _mapped(e) from None
            except OSError as e:  # connection refused, reset, closed, timed out: the next endpoint
                if conn is not None:
                    conn.close()
                conns.pop(at, None)
                last = e
                continue
            self._current = at
            return out
        raise EtcdUnavailable(f"cannot reach etcd at {', '.join(self.endpoints)}: {_reason(last)}")

    # ---- etcdapi.KVClient ----------------------------------------------------------------------------
    def get(self, key: bytes, *, range_end: bytes | None = None, revision: int = 0,
            limit: int = 0) -> RangeResult:
        return wire.range_response(self._call(RANGE, wire.range_request(key, range_end, revision, limit)))

    def transact(self, compare: list[Cmp], success: list[Op], failure: list[Op]) -> TxnResult:
        return wire.txn_response(self._call(TXN, wire.txn_request(compare, success, failure)))

    def transact_many(self, txns: list[tuple[list[Cmp], list[Op], list[Op]]]) -> list[TxnResult | EtcdError]:
        """`transact` of each (compare, success, failure), pipelined on one connection from this thread (no
        thread per call in flight). Per transaction: its result, or the error `transact` would have raised;
        `EtcdUnavailable` for one whose fate is unknown (the connection ended before its answer)."""
        answers = self._on_conn(lambda conn: conn.unary_many(TXN, [wire.txn_request(*t) for t in txns]))
        out: list[TxnResult | EtcdError] = []
        for a in answers:
            if isinstance(a, bytes):
                out.append(wire.txn_response(a))
            elif isinstance(a, GrpcStatus):
                out.append(_mapped(a))
            else:
                out.append(EtcdUnavailable(f"etcd connection lost before the answer: {a}"))
        return out

    def compact(self, revision: int) -> None:
        try:
            self._call(COMPACT, wire.compaction_request(revision))
        except EtcdCompacted:  # already compacted at or past `revision`
            pass

    def lease_grant(self, ttl: int) -> int:
        return wire.lease_grant_id(self._call(LEASE_GRANT, wire.lease_grant_request(ttl)))

    def version(self) -> str:
        return wire.status_version(self._call(STATUS, b""))

    def db_size(self) -> int:
        return wire.status_db_size(self._call(STATUS, b""))

    def watch_range(self, key: bytes, range_end: bytes, start_revision: int) -> "GrpcWatch":
        last: Exception | None = None
        n = len(self._targets)
        for i in range(n):
            at = (self._current + i) % n
            try:
                conn = self._connect(at, None)  # a watch waits for events as long as it takes
            except OSError as e:
                last = e
                continue
            return GrpcWatch(conn, wire.watch_create(key, range_end, start_revision))
        raise EtcdUnavailable(f"cannot reach etcd at {', '.join(self.endpoints)}: {_reason(last)}")

    def close(self) -> None:
        with self._conns_lock:
            conns, self._conns = self._conns, []
        for c in conns:
            c.close()


class GrpcWatch:
    """One etcd watch on its own connection: iterate for `WatchBatch`es; `request_progress` from any thread."""

    def __init__(self, conn: H2Conn, create: bytes):
        self._conn = conn
        self._stream = conn.open_stream(WATCH, create, REQUIRE_LEADER)

    def __iter__(self) -> Iterator[WatchBatch]:
        try:
            for msg in self._conn.messages(self._stream):
                r = wire.WatchResponse(msg)
                if r.canceled:
                    if r.compact_revision:
                        raise EtcdCompacted(r.cancel_reason or COMPACTED, r.compact_revision)
                    raise EtcdError(r.cancel_reason or "watch canceled by etcd")
                yield r.batch
        except GrpcStatus as e:
            raise _mapped(e) from None
        raise EtcdUnavailable("etcd ended the watch")

    def request_progress(self) -> bool:
        try:
            self._conn.send(self._stream, wire.WATCH_PROGRESS)
        except OSError:
            return False  # the stream is gone: the reader is reconnecting
        return True

    def close(self) -> None:
        self._conn.close()


def _reason(exc: Exception | None) -> str:
    if exc is None:
        return "no answer"
    return tls_reason(str(exc)) or str(exc).rsplit(": ", 1)[-1] or type(exc).__name__
