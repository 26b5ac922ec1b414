"""Protobuf encoding of the few etcd v3 messages the store exchanges over gRPC, written by hand from the field
numbers of etcd's `api/etcdserverpb/rpc.proto` and `api/mvccpb/kv.proto` (no generated code, no protobuf
runtime on the hot path: a deletion's request and answer cost a few microseconds here).

Requests: RangeRequest, TxnRequest (Compare, RequestOp of PutRequest/DeleteRangeRequest/RangeRequest),
CompactionRequest, StatusRequest, WatchRequest (create, progress, cancel).
Answers: RangeResponse, TxnResponse (ResponseOp → RangeResponse's kvs), StatusResponse's version,
WatchResponse (header, created, canceled, compact_revision, cancel_reason, events), KeyValue, Event.
Unknown fields are skipped, as protobuf requires."""
from __future__ import annotations

from .etcdapi import Cmp, Event, KeyValue, Op, RangeResult, TxnResult, WatchBatch

_VARINT, _I64, _LEN, _I32 = 0, 1, 2, 5
_CMP_TARGET = {"VERSION": 0, "CREATE": 1, "MOD": 2, "VALUE": 3}
_CMP_UNION = {"VERSION": 4, "CREATE": 5, "MOD": 6}  # Compare.target_union's int64 member per target


class WireError(ValueError):
    """Bytes that are not the protobuf message expected."""


# ---- encoding --------------------------------------------------------------------------------------------
def varint(n: int) -> bytes:
    if n < 0:
        n += 1 << 64  # int64 as two's complement, ten bytes
    if n < 0x80:
        return bytes((n,))
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _len_field(num: int, data: bytes) -> bytes:
    n = len(data)
    if num < 16 and n < 0x80:  # one-byte tag and length: most of what the store sends
        return bytes((num << 3 | _LEN, n)) + data
    return varint(num << 3 | _LEN) + varint(n) + data


def _int_field(num: int, value: int) -> bytes:
    """An int field at its proto3 default (0) is left out."""
    return varint(num << 3) + varint(value) if value else b""


def range_request(key: bytes, range_end: bytes | None = None, revision: int = 0, limit: int = 0) -> bytes:
    return (_len_field(1, key) + (_len_field(2, range_end) if range_end else b"")
            + _int_field(3, limit) + _int_field(4, revision))


def _compare(c: Cmp) -> bytes:
    # result EQUAL (0) is the default; the union member is written even at 0 (a oneof member is present)
    return (bytes((2 << 3, _CMP_TARGET[c.target])) + _len_field(3, c.key)
            + bytes((_CMP_UNION[c.target] << 3,)) + varint(c.revision))


def _op(op: Op) -> bytes:
    if op.kind == "delete":
        return _len_field(3, _len_field(1, op.key))
    if op.kind == "range":
        return _len_field(1, _len_field(1, op.key))
    if op.kind == "put":  # PutRequest: key 1, value 2, lease 3
        return _len_field(2, _len_field(1, op.key) + _len_field(2, op.value) + _int_field(3, op.lease))
    raise ValueError(f"unknown transaction operation {op.kind!r}")


def txn_request(compare: list[Cmp], success: list[Op], failure: list[Op]) -> bytes:
    parts = [_len_field(1, _compare(c)) for c in compare]
    parts += [_len_field(2, _op(o)) for o in success]
    parts += [_len_field(3, _op(o)) for o in failure]
    return b"".join(parts)


def lease_grant_request(ttl: int) -> bytes:
    """LeaseGrantRequest: TTL 1 (ID 2 left 0: etcd chooses it)."""
    return _int_field(1, ttl)


def lease_grant_id(buf: bytes) -> int:
    """LeaseGrantResponse's ID (field 2); its `error` (4) raises."""
    lease_id = 0
    for num, v in _fields(buf):
        if num == 2 and isinstance(v, int):
            lease_id = _int64(v)
        elif num == 4 and v:
            raise WireError(f"etcd refused the lease: {bytes(v).decode(errors='replace')}")  # type: ignore[arg-type]
    return lease_id


def compaction_request(revision: int, physical: bool = True) -> bytes:
    return _int_field(1, revision) + _int_field(2, int(physical))


def watch_create(key: bytes, range_end: bytes, start_revision: int, *, progress_notify: bool = True) -> bytes:
    create = (_len_field(1, key) + (_len_field(2, range_end) if range_end else b"") + _int_field(3, start_revision)
              + _int_field(4, int(progress_notify)))
    return _len_field(1, create)


WATCH_PROGRESS = _len_field(3, b"")  # WatchRequest{progress_request: {}}


def watch_cancel(watch_id: int) -> bytes:
    return _len_field(2, _int_field(1, watch_id))


# ---- decoding --------------------------------------------------------------------------------------------
def _fields(buf: bytes) -> list[tuple[int, int | bytes]]:
    """(field number, value) of each field: an int for varints (fixed-width ones too), bytes for the rest."""
    out: list[tuple[int, int | bytes]] = []
    i, n = 0, len(buf)
    try:
        while i < n:
            b = buf[i]
            i += 1
            if b < 0x80:
                tag = b
            else:
                tag, shift = b & 0x7F, 7
                while True:
                    b = buf[i]
                    i += 1
                    tag |= (b & 0x7F) << shift
                    if b < 0x80:
                        break
                    shift += 7
            wt = tag & 7
            if wt == _VARINT or wt == _LEN:
                b = buf[i]
                i += 1
                if b < 0x80:
                    v = b
                else:
                    v, shift = b & 0x7F, 7
                    while True:
                        b = buf[i]
                        i += 1
                        v |= (b & 0x7F) << shift
                        if b < 0x80:
                            break
                        shift += 7
                if wt == _LEN:
                    if i + v > n:
                        raise WireError("truncated field")
                    out.append((tag >> 3, buf[i:i + v]))
                    i += v
                else:
                    out.append((tag >> 3, v))
            elif wt == _I64:
                out.append((tag >> 3, int.from_bytes(buf[i:i + 8], "little")))
                i += 8
            elif wt == _I32:
                out.append((tag >> 3, int.from_bytes(buf[i:i + 4], "little")))
                i += 4
            else:
                raise WireError(f"unsupported wire type {wt}")
    except IndexError:
        raise WireError("truncated message") from None
    if i != n:
        raise WireError("truncated message")
    return out


def _int64(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


def header_revision(buf: bytes) -> int:
    for num, v in _fields(buf):
        if num == 3:
            return _int64(v)  # type: ignore[arg-type]
    return 0


def key_value(buf: bytes) -> KeyValue:
    key, value, mod, create = b"", b"", 0, 0
    for num, v in _fields(buf):
        if num == 1:
            key = v  # type: ignore[assignment]
        elif num == 5:
            value = v  # type: ignore[assignment]
        elif num == 3:
            mod = v  # type: ignore[assignment]
        elif num == 2:
            create = v  # type: ignore[assignment]
    return KeyValue(key, value, mod, create)


def range_response(buf: bytes) -> RangeResult:
    rev, kvs = 0, []
    for num, v in _fields(buf):
        if num == 2:
            kvs.append(key_value(v))  # type: ignore[arg-type]
        elif num == 1:
            rev = header_revision(v)  # type: ignore[arg-type]
    return RangeResult(rev, kvs)


def txn_response(buf: bytes) -> TxnResult:
    rev, ok, kvs = 0, False, []
    for num, v in _fields(buf):
        if num == 1:
            rev = header_revision(v)  # type: ignore[arg-type]
        elif num == 2:
            ok = bool(v)
        elif num == 3:  # ResponseOp: only a range's kvs matter to the store
            for onum, ov in _fields(v):  # type: ignore[arg-type]
                if onum == 1:
                    kvs.extend(range_response(ov).kvs)  # type: ignore[arg-type]
    return TxnResult(rev, ok, kvs)


def status_version(buf: bytes) -> str:
    for num, v in _fields(buf):
        if num == 2:
            return bytes(v).decode(errors="replace")  # type: ignore[arg-type]
    return ""


def status_db_size(buf: bytes) -> int:
    """StatusResponse's `dbSize` (field 3, int64)."""
    for num, v in _fields(buf):
        if num == 3 and isinstance(v, int):
            return v
    return 0


class WatchResponse:
    """A decoded WatchResponse: the batch, and whether (and why) etcd canceled the watch."""
    __slots__ = ("batch", "watch_id", "canceled", "compact_revision", "cancel_reason")

    def __init__(self, buf: bytes):
        rev = watch_id = compact = 0
        created = canceled = False
        reason = ""
        events: list[Event] = []
        for num, v in _fields(buf):
            if num == 11:
                deleted, kv = False, None
                for enum_, ev in _fields(v):  # type: ignore[arg-type]
                    if enum_ == 2:
                        kv = key_value(ev)  # type: ignore[arg-type]
                    elif enum_ == 1:
                        deleted = ev == 1
                if kv is not None:
                    events.append(Event(deleted, kv))
            elif num == 1:
                rev = header_revision(v)  # type: ignore[arg-type]
            elif num == 2:
                watch_id = _int64(v)  # type: ignore[arg-type]
            elif num == 3:
                created = bool(v)
            elif num == 4:
                canceled = bool(v)
            elif num == 5:
                compact = _int64(v)  # type: ignore[arg-type]
            elif num == 6:
                reason = bytes(v).decode(errors="replace")  # type: ignore[arg-type]
        self.batch = WatchBatch(rev, events, created)
        self.watch_id, self.canceled, self.compact_revision, self.cancel_reason = watch_id, canceled, compact, reason
