"""A small synchronous client of etcd's v3 JSON gateway (`/v3/kv/range`, `/v3/kv/txn`, `/v3/watch`, ...).

Why the gateway and not a gRPC client: it needs nothing beyond urllib3 (already here through requests), works
with every etcd since 3.4, and the store only needs six calls. Keys and values are base64 in the JSON, int64s
are strings, and proto3 leaves out fields at their default (a failed txn has no `succeeded`, a PUT event no
`type`). The store calls it from executor threads (several at once while a collection is deleted) and its
watch thread: each thread keeps its own keep-alive connection per endpoint for the unary calls (`_Conn`: one
write per request, measured ~35 µs of CPU per call where urllib3 and http.client took ~230 µs or more, as much
as the rest of a deletion), and watches stream through urllib3.
"""
from __future__ import annotations

import base64
import json
import re
import select
import socket
import ssl
import threading
from typing import Any, Iterator
from urllib.parse import urlsplit

import urllib3

from .etcdapi import Cmp, Event, KeyValue, Op, RangeResult, TxnResult, WatchBatch
from .errors import BackendError
from .h2conn import connect_socket

COMPACTED = "required revision has been compacted"


class EtcdError(BackendError):
    """etcd answered an error (`code` is the gRPC code)."""

    def __init__(self, message: str, code: int = 0):
        super().__init__(message)
        self.code = code


class EtcdUnavailable(EtcdError):
    """No endpoint could be reached (or none answered in time)."""


class EtcdCompacted(EtcdError):
    """The revision asked for has been compacted (`compact_revision` when etcd said which)."""

    def __init__(self, message: str, compact_revision: int = 0):
        super().__init__(message, 11)
        self.compact_revision = compact_revision


def b64(s: str | bytes) -> str:
    return base64.b64encode(s.encode() if isinstance(s, str) else s).decode()


def unb64(s: str | None) -> bytes:
    return base64.b64decode(s) if s else b""


def prefix_end(prefix: str) -> str:
    """The `range_end` that selects every key starting with `prefix` (etcd's `clientv3.GetPrefixRangeEnd`)."""
    raw = bytearray(prefix.encode())
    for i in range(len(raw) - 1, -1, -1):
        if raw[i] < 0xFF:
            raw[i] += 1
            return raw[:i + 1].decode("latin-1")
    return "\0"


class EtcdClient:
    """Round trips to the first endpoint that answers (the next one on a connection error)."""

    def __init__(self, endpoints: list[str], *, ca_file: str | None = None, cert_file: str | None = None,
                 key_file: str | None = None, timeout: float = 10.0):
        if not endpoints:
            raise ValueError("no etcd endpoints")
        self.endpoints = [e.rstrip("/") for e in endpoints]
        kw: dict[str, Any] = {"maxsize": 16, "retries": False}
        if any(e.startswith("https://") for e in self.endpoints):
            kw["ssl_context"] = tls_context(ca_file, cert_file, key_file)
        self._http = urllib3.PoolManager(**kw)
        self._ssl = kw.get("ssl_context")
        self.timeout = timeout
        self._current = 0
        self._local = threading.local()  # per thread: {endpoint: _Conn}
        self._conns: list[_Conn] = []  # every one of them, for close()
        self._conns_lock = threading.Lock()

    @property
    def ssl_context(self) -> ssl.SSLContext | None:
        return self._ssl

    # ---- plumbing ------------------------------------------------------------------------------------
    def call(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        data = json.dumps(body).encode()
        last: Exception | None = None
        for i in range(len(self.endpoints)):
            at = (self._current + i) % len(self.endpoints)
            try:
                status, raw = self._post(self.endpoints[at], path, data)
            except OSError as e:
                last = e
                continue
            self._current = at
            return parse_answer(status, raw)
        raise EtcdUnavailable(f"cannot reach etcd at {', '.join(self.endpoints)}: {_reason(last)}")

    def _post(self, endpoint: str, path: str, data: bytes) -> tuple[int, bytes]:
        """One POST on this thread's connection to `endpoint` (a new one when it has none or etcd closed it).
        Never retried: a transaction sent may have been applied, so a failure goes to the caller."""
        conns = self._local.__dict__.setdefault("conns", {})
        conn = conns.get(endpoint)
        if conn is not None and conn.dropped():
            conn.close()
            conn = None
        if conn is None:
            conn = conns[endpoint] = _Conn(endpoint, self._ssl, self.timeout)
            with self._conns_lock:
                self._conns = [c for c in self._conns if not c.closed]
                self._conns.append(conn)
        try:
            status, raw, keep = conn.post(path, data)
        except BaseException:
            conn.close()
            del conns[endpoint]
            raise
        if not keep:
            conn.close()
            del conns[endpoint]
        return status, raw

    # ---- the calls the store makes -------------------------------------------------------------------
    def range(self, key: str, *, prefix: bool = False, revision: int = 0, limit: int = 0,
              range_end: str | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"key": b64(key)}
        if prefix or range_end is not None:
            body["range_end"] = b64(range_end if range_end is not None else prefix_end(key))
        if revision:
            body["revision"] = str(revision)
        if limit:
            body["limit"] = str(limit)
        return self.call("/v3/kv/range", body)

    def txn(self, compare: list[dict[str, Any]], success: list[dict[str, Any]],
            failure: list[dict[str, Any]]) -> dict[str, Any]:
        return self.call("/v3/kv/txn", {"compare": compare, "success": success, "failure": failure})

    def compact(self, revision: int) -> None:
        try:
            self.call("/v3/kv/compaction", {"revision": str(revision), "physical": True})
        except EtcdCompacted:  # already compacted at or past `revision`
            pass

    def status(self) -> dict[str, Any]:
        return self.call("/v3/maintenance/status", {})

    def watch(self, key: str, start_revision: int, *, prefix: bool = True) -> "WatchStream":
        """A streamed watch from `start_revision` with progress notifications; iterate it for responses."""
        body = {"create_request": {"key": b64(key), "start_revision": str(start_revision), "progress_notify": True,
                                   **({"range_end": b64(prefix_end(key))} if prefix else {})}}
        return self._watch(body)

    def _watch(self, body: dict[str, Any]) -> "WatchStream":
        last: Exception | None = None
        for i in range(len(self.endpoints)):
            at = (self._current + i) % len(self.endpoints)
            try:
                r = self._http.request("POST", self.endpoints[at] + "/v3/watch", body=json.dumps(body).encode(),
                                       headers={"Content-Type": "application/json"}, preload_content=False,
                                       timeout=urllib3.Timeout(connect=2.0, read=None))
            except urllib3.exceptions.HTTPError as e:
                last = e
                continue
            return WatchStream(r)
        raise EtcdUnavailable(f"cannot reach etcd at {', '.join(self.endpoints)}: {_reason(last)}")

    # ---- etcdapi.KVClient: the typed calls the store makes -----------------------------------------------
    transport = "gateway"

    def get(self, key: bytes, *, range_end: bytes | None = None, revision: int = 0,
            limit: int = 0) -> RangeResult:
        body: dict[str, Any] = {"key": b64(key)}
        if range_end:
            body["range_end"] = b64(range_end)
        if revision:
            body["revision"] = str(revision)
        if limit:
            body["limit"] = str(limit)
        out = self.call("/v3/kv/range", body)
        return RangeResult(int(out["header"]["revision"]), [_kv(kv) for kv in out.get("kvs") or []])

    def transact(self, compare: list[Cmp], success: list[Op], failure: list[Op]) -> TxnResult:
        out = self.call("/v3/kv/txn", {"compare": [_cmp(c) for c in compare], "success": [_op(o) for o in success],
                                       "failure": [_op(o) for o in failure]})
        kvs = [_kv(kv) for r in out.get("responses") or [] for kv in (r.get("response_range") or {}).get("kvs") or []]
        return TxnResult(int(out["header"]["revision"]), bool(out.get("succeeded")), kvs)

    def version(self) -> str:
        return str(self.status().get("version", ""))

    def lease_grant(self, ttl: int) -> int:
        out = self.call("/v3/lease/grant", {"TTL": str(ttl)})
        if out.get("error"):
            raise EtcdError(f"etcd refused the lease: {out['error']}")
        return int(out["ID"])

    def db_size(self) -> int:
        return int(self.status().get("dbSize", 0) or 0)  # (int64: a JSON string)

    def watch_range(self, key: bytes, range_end: bytes, start_revision: int) -> "GatewayWatch":
        body = {"create_request": {"key": b64(key), "start_revision": str(start_revision), "progress_notify": True,
                                   **({"range_end": b64(range_end)} if range_end else {})}}
        return GatewayWatch(self._watch(body))

    def close(self) -> None:
        self._http.clear()
        with self._conns_lock:
            conns, self._conns = self._conns, []
        for c in conns:
            c.close()


class WatchStream:
    """Newline-delimited `{"result": WatchResponse}` objects of one gateway watch."""

    def __init__(self, response: Any):
        self._r = response

    def __iter__(self) -> Iterator[dict[str, Any]]:
        buf = b""
        for chunk in self._r.stream(64 * 1024, decode_content=False):
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if not line.strip():
                    continue
                msg = json.loads(line)
                if "error" in msg:
                    err = msg["error"]
                    raise _error(err.get("message", "watch error"), err.get("code", 0))
                res = msg.get("result", {})
                if res.get("canceled"):
                    reason = res.get("cancel_reason", "watch canceled")
                    if int(res.get("compact_revision", 0) or 0):
                        raise EtcdCompacted(reason, int(res["compact_revision"]))
                    raise EtcdError(reason)
                yield res

    def close(self) -> None:
        try:
            self._r.shutdown() if hasattr(self._r, "shutdown") else None
            self._r.release_conn()
        except Exception:  # noqa: BLE001 - closing a dead stream
            pass


class GatewayWatch:
    """A gateway watch as `etcdapi.WatchBatch`es. It cannot ask for progress: the gateway's watch is one POST,
    whose request stream ends with its body."""

    def __init__(self, stream: WatchStream):
        self._stream = stream

    def __iter__(self) -> Iterator[WatchBatch]:
        for res in self._stream:
            events = [Event(ev.get("type") == "DELETE", _kv(ev["kv"])) for ev in res.get("events") or []]
            yield WatchBatch(int((res.get("header") or {}).get("revision", 0) or 0), events, bool(res.get("created")))

    def request_progress(self) -> bool:
        return False

    def close(self) -> None:
        self._stream.close()


def _kv(kv: dict[str, Any]) -> KeyValue:
    return KeyValue(unb64(kv.get("key")), unb64(kv.get("value")), int(kv.get("mod_revision", 0) or 0),
                    int(kv.get("create_revision", 0) or 0))


def _cmp(c: Cmp) -> dict[str, Any]:
    field = {"CREATE": "create_revision", "MOD": "mod_revision", "VERSION": "version"}[c.target]
    return {"key": b64(c.key), "target": c.target, field: str(c.revision)}


def _op(o: Op) -> dict[str, Any]:
    if o.kind == "put":
        put = {"key": b64(o.key), "value": b64(o.value)}
        return {"request_put": {**put, "lease": str(o.lease)} if o.lease else put}
    if o.kind == "delete":
        return {"request_delete_range": {"key": b64(o.key)}}
    return {"request_range": {"key": b64(o.key)}}


class _Conn:
    """One keep-alive HTTP/1.1 connection for the gateway's unary calls: the request in one write, the answer
    read by Content-Length or chunked. Errors are `OSError`s (the caller tries the next endpoint)."""

    def __init__(self, endpoint: str, ssl_context: ssl.SSLContext | None, timeout: float):
        u = urlsplit(endpoint)
        https = u.scheme == "https"
        host, port = u.hostname or "", u.port or (443 if https else 80)
        context = (ssl_context or ssl.create_default_context()) if https else None
        self.sock: socket.socket | None = connect_socket(host, port, context, timeout)
        self.timeout = timeout
        self.head = f"Host: {u.netloc}\r\nContent-Type: application/json\r\nContent-Length: ".encode()
        self.buf = bytearray()

    @property
    def closed(self) -> bool:
        return self.sock is None

    def post(self, path: str, data: bytes) -> tuple[int, bytes, bool]:
        """(status, body, whether the connection may be used again)."""
        if self.sock is None:
            raise ConnectionError("connection closed")
        self.sock.sendall(b"POST " + path.encode() + b" HTTP/1.1\r\n" + self.head + str(len(data)).encode()
                          + b"\r\n\r\n" + data)
        lines = self._until(b"\r\n\r\n").split(b"\r\n")
        try:
            status = int(lines[0].split(b" ", 2)[1])
        except (IndexError, ValueError):
            raise ConnectionError(f"not an HTTP answer from etcd: {lines[0][:80]!r}") from None
        headers = {}
        for line in lines[1:]:
            k, _, v = line.partition(b":")
            headers[k.strip().lower()] = v.strip().lower()
        keep = headers.get(b"connection") != b"close"
        if headers.get(b"transfer-encoding") == b"chunked":
            body = self._chunked()
        elif b"content-length" in headers:
            body = self._exactly(int(headers[b"content-length"]))
        else:  # delimited by the end of the connection
            while self._fill():
                pass
            body, keep = bytes(self.buf), False
            self.buf.clear()
        return status, body, keep

    def dropped(self) -> bool:
        """An idle connection etcd closed (or sent something unasked on); a TLS record with no data (a
        session ticket) is not."""
        sock = self.sock
        if sock is None:
            return True
        try:
            if self.buf or not select.select([sock], [], [], 0)[0]:
                return bool(self.buf)
            sock.setblocking(False)
            try:
                sock.recv(1)  # b"": closed; bytes: unasked
                return True
            except (ssl.SSLWantReadError, BlockingIOError):
                return False
            finally:
                sock.settimeout(self.timeout)
        except (OSError, ValueError):
            return True

    def close(self) -> None:
        sock, self.sock = self.sock, None
        if sock is not None:
            try:
                sock.close()
            except OSError:
                pass

    def _fill(self) -> bool:
        chunk = self.sock.recv(65536)  # type: ignore[union-attr]
        self.buf += chunk
        return bool(chunk)

    def _until(self, sep: bytes) -> bytes:
        while (i := self.buf.find(sep)) < 0:
            if not self._fill():
                raise ConnectionError("etcd closed the connection")
        out = bytes(self.buf[:i])
        del self.buf[:i + len(sep)]
        return out

    def _exactly(self, n: int) -> bytes:
        while len(self.buf) < n:
            if not self._fill():
                raise ConnectionError("etcd closed the connection")
        out = bytes(self.buf[:n])
        del self.buf[:n]
        return out

    def _chunked(self) -> bytes:
        parts = []
        while True:
            try:
                size = int(self._until(b"\r\n").split(b";", 1)[0], 16)
            except ValueError:
                raise ConnectionError("malformed chunked answer from etcd") from None
            if size == 0:
                while self._until(b"\r\n"):  # trailers, then the empty line
                    pass
                return b"".join(parts)
            parts.append(self._exactly(size))
            self._until(b"\r\n")


def tls_context(ca_file: str | None, cert_file: str | None, key_file: str | None) -> ssl.SSLContext:
    """The client side of a TLS etcd; a file that cannot be read or used is a ValueError naming it."""
    try:
        ctx = ssl.create_default_context(cafile=ca_file)
    except (OSError, ssl.SSLError) as e:
        raise ValueError(f"etcd CA file {ca_file}: {getattr(e, 'strerror', None) or e}") from None
    if cert_file:
        try:
            ctx.load_cert_chain(cert_file, key_file)
        except (OSError, ssl.SSLError) as e:
            raise ValueError(f"etcd client certificate {cert_file} (key {key_file or 'in the same file'}): "
                             f"{getattr(e, 'strerror', None) or e}") from None
    return ctx


_VERIFY = re.compile(r"certificate verify failed: ([^(']+)")


def tls_reason(text: str) -> str | None:
    """What a failed TLS handshake with etcd means for the user, or None when `text` is not one."""
    if m := _VERIFY.search(text):
        return (f"etcd's serving certificate is not trusted ({m.group(1).strip()}): "
                f"is the CA file the one that signed it?")
    if "SSL" in text or "EOF occurred in violation of protocol" in text or "TLSV13_ALERT_CERTIFICATE_REQUIRED" in text:
        if "WRONG_VERSION_NUMBER" in text or "wrong version number" in text:
            return "TLS handshake failed: the endpoint does not speak TLS (an http:// etcd?)"
        return ("TLS handshake failed: etcd refused the connection; does it require a client certificate "
                "(certificate and key files) signed by its trusted CA?")
    if "Remote end closed connection without response" in text:
        return "etcd closed the connection without an answer (an https:// etcd given an http:// URL?)"
    return None


def _reason(exc: Exception | None) -> str:
    """`[Errno 111] Connection refused` rather than urllib3's whole repr."""
    if exc is None:
        return "no answer"
    return tls_reason(str(exc)) or str(exc).rsplit(": ", 1)[-1]


def parse_answer(status: int, raw: bytes) -> dict[str, Any]:
    """The JSON gateway's answer to a unary call, or the `EtcdError` it carries."""
    out = json.loads(raw or b"{}")
    if status != 200 or "error" in out:
        raise _error(out.get("message") or out.get("error") or f"HTTP {status}", out.get("code", 0))
    return out


def _error(message: str, code: int) -> EtcdError:
    if COMPACTED in message:
        return EtcdCompacted(message)
    if code == 14:  # gRPC Unavailable
        return EtcdUnavailable(message, code)
    return EtcdError(message, code)
