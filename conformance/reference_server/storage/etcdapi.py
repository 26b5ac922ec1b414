"""What the etcd store asks of an etcd client, whatever carries it (gRPC: `etcdgrpc.py`; the v3 JSON gateway:
`etcdclient.py`): typed answers with raw byte keys and values and int revisions, so the store never sees a
transport's encoding (base64 and int64-as-string in the gateway's JSON, protobuf on gRPC).

A transaction is `transact(compare, success, failure)` of the three kinds of condition and operation the store uses
(`Cmp`, `Op` below); its answer carries the key-values of its range operations (the current object after a lost
compare-and-swap). Errors are `etcdclient.EtcdError`s: `EtcdUnavailable` (no endpoint answered, no quorum),
`EtcdCompacted` (the revision asked for is compacted).

Optional: `transact_many(txns)` (gRPC has it, the gateway not): `transact` of each (compare, success, failure),
pipelined on one connection; per transaction its result or error, `EtcdUnavailable` when its fate is unknown.
`EtcdStore.delete_many` sends a batch's deletions through it when the client has it."""
from __future__ import annotations

from typing import Iterator, NamedTuple, Protocol


class KeyValue(NamedTuple):
    key: bytes
    value: bytes
    mod_revision: int
    create_revision: int = 0


class RangeResult(NamedTuple):
    revision: int  # etcd's revision when it answered (the header's)
    kvs: list[KeyValue]


class TxnResult(NamedTuple):
    revision: int  # the transaction's revision (a write's) or etcd's current one
    succeeded: bool
    kvs: list[KeyValue]  # what the transaction's range operations found


class Event(NamedTuple):
    deleted: bool  # a DELETE (no value; `kv.mod_revision` is the deletion's revision), else a PUT
    kv: KeyValue


class WatchBatch(NamedTuple):
    """One watch response: events, the watch's creation, or a progress notification (neither: nothing under
    the watched range changed up to `revision`)."""
    revision: int
    events: list[Event]
    created: bool = False


class Cmp(NamedTuple):
    """`key`'s create revision (`target` "CREATE") or mod revision ("MOD") equals `revision`."""
    target: str
    key: bytes
    revision: int


class Op(NamedTuple):
    """A transaction's operation on one key: "put" (with `value`, and `lease`: the lease id it is attached to, 0
    none), "delete" or "range"."""
    kind: str
    key: bytes
    value: bytes = b""
    lease: int = 0


class WatchHandle(Protocol):
    def __iter__(self) -> Iterator[WatchBatch]: ...

    def request_progress(self) -> bool:
        """Ask etcd for a progress notification on this watch now; False when this transport cannot."""

    def close(self) -> None: ...


class KVClient(Protocol):
    endpoints: list[str]  # http(s):// URLs (the freshness gate's revision round trip goes to their gateway)

    @property
    def ssl_context(self) -> object | None: ...

    def get(self, key: bytes, *, range_end: bytes | None = None, revision: int = 0,
            limit: int = 0) -> RangeResult: ...

    def transact(self, compare: list[Cmp], success: list[Op], failure: list[Op]) -> TxnResult: ...

    def compact(self, revision: int) -> None: ...

    def lease_grant(self, ttl: int) -> int:
        """Lease/LeaseGrant of `ttl` seconds (etcd raises one under its minimum to it): the lease's id."""

    def version(self) -> str:
        """The etcd server's version (Maintenance/Status)."""

    def db_size(self) -> int:
        """The size of the etcd server's database file, in bytes (Maintenance/Status `dbSize`)."""

    def watch_range(self, key: bytes, range_end: bytes, start_revision: int) -> WatchHandle: ...

    def close(self) -> None: ...


def prefix_range_end(prefix: bytes) -> bytes:
    """The `range_end` that selects every key starting with `prefix` (etcd's `clientv3.GetPrefixRangeEnd`)."""
    raw = bytearray(prefix)
    for i in range(len(raw) - 1, -1, -1):
        if raw[i] < 0xFF:
            raw[i] += 1
            return bytes(raw[:i + 1])
    return b"\0"
