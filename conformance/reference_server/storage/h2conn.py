"""gRPC over one HTTP/2 connection, in plain Python on a socket: what the etcd store needs of gRPC and no more.

Why not grpcio: measured against a private etcd (benchmarks/README, "gRPC to etcd"), grpcio's blocking unary call
costs ~230 µs of Python-thread CPU plus ~140 µs in its own threads per call, more than the etcd CPU it saves over
the JSON gateway; a request here is one `sendall` of pre-encoded frames and the answer a few `recv`s, like the
gateway client's `_Conn`. Scope, deliberately small:

- client side only, one connection per thread (calls on it one at a time, as the gateway client's), plus
  streams for watches, each on its own connection, read by one thread while another may send on it;
- request headers HPACK-encoded as literals without indexing (no table, no Huffman: always valid); response
  headers decoded with `hpack` (a header block made only of indexed fields, which leaves the table unchanged, is
  answered from a memo: what gRPC's trailers become after the first call);
- flow control: large windows announced at the start and topped up as data is read; a request larger than the
  peer's window waits for its WINDOW_UPDATEs; SETTINGS and PING acknowledged; GOAWAY and RST_STREAM are errors.

Errors: `OSError` (connection failures, a GOAWAY, a malformed frame: the caller may try another endpoint) and
`GrpcStatus` (the server answered with a non-zero grpc-status)."""
from __future__ import annotations

import socket
import ssl
import struct
import threading
from typing import Iterator
from urllib.parse import unquote

import hpack

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = 0, 1, 3, 4, 6, 7, 8, 9
END_STREAM, ACK, END_HEADERS, PADDED, PRIORITY = 0x1, 0x1, 0x4, 0x8, 0x20
SETTINGS_MAX_CONCURRENT_STREAMS, SETTINGS_INITIAL_WINDOW_SIZE, SETTINGS_MAX_FRAME_SIZE = 0x3, 0x4, 0x5
BIG_WINDOW = 1 << 30  # what we let the server send before we top it up


class GrpcStatus(Exception):
    """The server's grpc-status (non-zero) and grpc-message."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


class ConnectionLost(ConnectionError):
    """The connection ended (GOAWAY, closed, malformed): the caller may try another endpoint."""


def _frame(typ: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    return struct.pack(">I", len(payload))[1:] + bytes((typ, flags)) + struct.pack(">I", stream) + payload


def _literal(name: bytes, value: bytes) -> bytes:
    """A header field as a literal without indexing, new name, no Huffman (RFC 7541 6.2.2)."""
    return b"\x00" + _hlen(len(name)) + name + _hlen(len(value)) + value


def _hlen(n: int) -> bytes:
    if n < 0x7F:
        return bytes((n,))
    out = bytearray((0x7F,))
    n -= 0x7F
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def connect_socket(host: str, port: int, ssl_context: ssl.SSLContext | None, timeout: float | None,
                   connect_timeout: float = 2.0) -> socket.socket:
    """A connected TCP socket to etcd (no Nagle: calls are small and answered at once), TLS when `ssl_context`;
    connected within `connect_timeout`, then each read within `timeout`."""
    sock = socket.create_connection((host, port), timeout=connect_timeout)
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if ssl_context is not None:
            sock = ssl_context.wrap_socket(sock, server_hostname=host)
        sock.settimeout(timeout)
    except BaseException:
        sock.close()
        raise
    return sock


class H2Conn:
    """One HTTP/2 connection to `host:port` (TLS when `ssl_context`), carrying gRPC calls."""

    def __init__(self, host: str, port: int, ssl_context: ssl.SSLContext | None, timeout: float | None,
                 authority: str | None = None, connect_timeout: float = 2.0):
        self.sock: socket.socket | None = connect_socket(host, port, ssl_context, timeout, connect_timeout)
        self.timeout = timeout
        self.draining = False
        self._send_lock = threading.Lock()
        self._buf = bytearray()
        self._pos = 0
        self._next_stream = 1
        self._decoder = hpack.Decoder()
        self._memo: dict[bytes, list[tuple[str, str]]] = {}
        self._max_frame = 16384
        self._max_streams = 100  # until the peer's SETTINGS say (RFC 9113 recommends at least 100)
        self._goaway_last: int | None = None  # the last stream the peer will process, once it sent GOAWAY
        self._peer_window = 65535  # the connection's send window
        self._peer_initial = 65535  # each new stream's send window
        self._stream_window: dict[int, int] = {}
        self._recv_unacked = 0  # bytes received on the connection since the last WINDOW_UPDATE we sent
        self._stream_unacked: dict[int, int] = {}
        a = (authority or f"{host}:{port}").encode()
        scheme = b"https" if ssl_context is not None else b"http"
        self._head = (_literal(b":method", b"POST") + _literal(b":scheme", scheme) + _literal(b":authority", a))
        self._tail = _literal(b"content-type", b"application/grpc") + _literal(b"te", b"trailers")
        self._paths: dict[str, bytes] = {}
        self.sock.sendall(PREFACE + _frame(SETTINGS, 0, 0, struct.pack(">HI", SETTINGS_INITIAL_WINDOW_SIZE,
                                                                         BIG_WINDOW))
                          + _frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", BIG_WINDOW - 65535)))

    @property
    def closed(self) -> bool:
        return self.sock is None

    def close(self) -> None:
        """Also from another thread than the one reading: the blocked `recv` returns."""
        sock, self.sock = self.sock, None
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            try:
                sock.close()
            except OSError:
                pass

    # ---- calls ---------------------------------------------------------------------------------------
    def unary(self, path: str, message: bytes, extra_headers: bytes = b"") -> bytes:
        """One unary call: the answer's message bytes, or `GrpcStatus`."""
        stream = self._open(path, extra_headers, message, end=True)
        headers, data = self._until_end(stream)
        return _answer(headers, data)

    def unary_many(self, path: str, messages: list[bytes], in_flight: int = 256) -> list[bytes | Exception]:
        """Unary calls pipelined on this connection from one thread: requests go out together (as many at once
        as `in_flight`, the peer's stream limit and its flow-control windows allow), answers are read as they
        come, whatever their order. Per message: the answer's bytes, a `GrpcStatus`, or a `ConnectionLost`
        for a call whose fate is unknown (the connection ended before its answer; it may have been applied).
        A connection that fails while sending raises `OSError` as `unary` does for calls not yet sent."""
        results: list[bytes | Exception | None] = [None] * len(messages)
        pending: dict[int, tuple[int, list[tuple[str, str]], bytearray]] = {}  # stream → (index, headers, data)
        block = self._paths.get(path)
        if block is None:
            block = self._paths[path] = self._head + _literal(b":path", path.encode()) + self._tail
        limit = max(1, min(in_flight, self._max_streams))
        i = 0
        try:
            while i < len(messages) or pending:
                out = []
                with self._send_lock:
                    if self.sock is None:
                        raise ConnectionLost("connection closed")
                    while i < len(messages) and len(pending) < limit and not self.draining:
                        body = _grpc_message(messages[i])
                        if len(body) > min(self._max_frame, self._peer_window, self._peer_initial):
                            break  # no room in the peer's windows now: read (its WINDOW_UPDATEs) first
                        stream = self._next_stream
                        self._next_stream += 2
                        self._peer_window -= len(body)
                        out.append(_frame(HEADERS, END_HEADERS, stream, block))
                        out.append(_frame(DATA, END_STREAM, stream, body))
                        pending[stream] = (i, [], bytearray())
                        i += 1
                    if out:
                        self.sock.sendall(b"".join(out))
                if not pending:
                    if self.draining:
                        raise ConnectionLost("etcd is closing the connection (GOAWAY)")
                    results[i] = self._one(path, messages[i])  # larger than the window allows at once
                    i += 1
                    continue
                typ, flags, sid, payload = self._read_frame()
                mine = pending.get(sid)
                try:
                    got = self._handle(typ, flags, sid, payload, sid if mine is not None else None)
                except GrpcStatus as e:  # RST_STREAM of one of ours
                    results[pending.pop(sid)[0]] = e
                    self._stream_unacked.pop(sid, None)
                    continue
                if self._goaway_last is not None:  # streams above it were never processed: not applied
                    for s in [s for s in pending if s > self._goaway_last]:
                        results[pending.pop(s)[0]] = ConnectionLost("etcd closed the connection (GOAWAY)")
                        self._stream_unacked.pop(s, None)
                if got is None or mine is None:
                    continue
                gtyp, gflags, gpayload = got
                if gtyp == DATA:
                    mine[2].extend(gpayload)  # type: ignore[arg-type]
                else:
                    mine[1].extend(gpayload)  # type: ignore[arg-type]
                if gflags & END_STREAM:
                    del pending[sid]
                    self._stream_unacked.pop(sid, None)
                    try:
                        results[mine[0]] = _answer(mine[1], bytes(mine[2]))
                    except GrpcStatus as e:
                        results[mine[0]] = e
        except OSError as e:
            if i == 0 and not any(r is not None for r in results):
                raise  # nothing sent: the caller may try another endpoint, as after `unary`
            lost = e if isinstance(e, ConnectionLost) else ConnectionLost(str(e))
            for s, (index, _, _) in pending.items():
                results[index] = lost
                self._stream_unacked.pop(s, None)
            for j in range(i, len(messages)):
                results[j] = ConnectionLost(f"not sent: {e}")
        return results  # type: ignore[return-value]

    def _one(self, path: str, message: bytes) -> bytes | Exception:
        try:
            return self.unary(path, message)
        except GrpcStatus as e:
            return e

    def open_stream(self, path: str, first: bytes, extra_headers: bytes = b"") -> int:
        """A client-streaming call opened with its first message (watches); `send` more, `messages` to read."""
        return self._open(path, extra_headers, first, end=False)

    def send(self, stream: int, message: bytes) -> None:
        """Another message on an open stream (from any thread, while another one reads)."""
        self._data(stream, _grpc_message(message), end=False)

    def reset(self, stream: int) -> None:
        with self._send_lock:
            if self.sock is not None:
                self.sock.sendall(_frame(RST_STREAM, 0, stream, struct.pack(">I", 8)))  # CANCEL

    def messages(self, stream: int) -> Iterator[bytes]:
        """The gRPC messages the server sends on `stream`, as they come; ends with the stream (its trailers'
        grpc-status raised when non-zero)."""
        headers: list[tuple[str, str]] = []
        pending = bytearray()
        while True:
            typ, flags, payload = self._next_frame(stream)
            if typ == DATA:
                pending += payload
                while len(pending) >= 5:
                    n = int.from_bytes(pending[1:5], "big")
                    if len(pending) < 5 + n:
                        break
                    msg = bytes(pending[5:5 + n])
                    del pending[:5 + n]
                    yield msg
            else:  # HEADERS (whole block)
                headers += payload  # type: ignore[arg-type]
            if flags & END_STREAM:
                _answer(headers, b"", allow_empty=True)
                return

    # ---- framing -------------------------------------------------------------------------------------
    def _open(self, path: str, extra: bytes, message: bytes, end: bool) -> int:
        block = self._paths.get(path)
        if block is None:
            block = self._paths[path] = self._head + _literal(b":path", path.encode()) + self._tail
        with self._send_lock:
            stream = self._next_stream
            self._next_stream += 2
            self._stream_window[stream] = self._peer_initial
            if self.sock is None:
                raise ConnectionLost("connection closed")
            self.sock.sendall(_frame(HEADERS, END_HEADERS, stream, block + extra))
        self._data(stream, _grpc_message(message), end)
        return stream

    def _data(self, stream: int, body: bytes, end: bool) -> None:
        with self._send_lock:
            if self.sock is None:
                raise ConnectionLost("connection closed")
            if len(body) <= min(self._max_frame, self._peer_window, self._stream_window.get(stream, 0)):
                self._peer_window -= len(body)
                self._stream_window[stream] -= len(body)
                self.sock.sendall(_frame(DATA, END_STREAM if end else 0, stream, body))
                return
        sent = 0  # a large message: frame by frame within the peer's windows (read WINDOW_UPDATEs meanwhile)
        while sent < len(body):
            with self._send_lock:
                room = min(self._max_frame, self._peer_window, self._stream_window.get(stream, 0), len(body) - sent)
                if room > 0:
                    chunk = body[sent:sent + room]
                    sent += room
                    self._peer_window -= room
                    self._stream_window[stream] -= room
                    self.sock.sendall(_frame(DATA, END_STREAM if end and sent == len(body) else 0, stream, chunk))
                    continue
            self._control_frame()  # blocked by flow control: read (and handle) what the peer sends

    def _until_end(self, stream: int) -> tuple[list[tuple[str, str]], bytes]:
        headers: list[tuple[str, str]] = []
        data = bytearray()
        while True:
            typ, flags, payload = self._next_frame(stream)
            if typ == DATA:
                data += payload
            else:
                headers += payload  # type: ignore[arg-type]
            if flags & END_STREAM:
                self._stream_window.pop(stream, None)
                self._stream_unacked.pop(stream, None)
                return headers, bytes(data)

    def _control_frame(self) -> None:
        typ, flags, stream, payload = self._read_frame()
        self._handle(typ, flags, stream, payload, None)

    def _next_frame(self, stream: int) -> tuple[int, int, object]:
        """The next DATA (payload) or HEADERS (decoded list) frame of `stream`; connection frames handled."""
        while True:
            typ, flags, sid, payload = self._read_frame()
            out = self._handle(typ, flags, sid, payload, stream)
            if out is not None:
                return out

    def _handle(self, typ: int, flags: int, sid: int, payload: bytes,
                stream: int | None) -> tuple[int, int, object] | None:
        if typ == DATA:
            if flags & PADDED:
                payload = payload[1:len(payload) - payload[0]]
            self._consumed(sid, len(payload))
            return (DATA, flags, payload) if sid == stream else None
        if typ == HEADERS:
            if flags & PADDED:
                payload = payload[1:len(payload) - payload[0]]
            if flags & PRIORITY:
                payload = payload[5:]
            while not flags & END_HEADERS:
                ctyp, cflags, _, more = self._read_frame()
                if ctyp != CONTINUATION:
                    raise ConnectionLost("HTTP/2: header block interrupted")
                payload += more
                flags |= cflags & END_HEADERS
            headers = self._decode(bytes(payload))
            return (HEADERS, flags, headers) if sid == stream else None
        if typ == SETTINGS:
            if not flags & ACK:
                self._settings(payload)
            return None
        if typ == PING:
            if not flags & ACK:
                with self._send_lock:
                    if self.sock is not None:
                        self.sock.sendall(_frame(PING, ACK, 0, payload))
            return None
        if typ == WINDOW_UPDATE:
            inc = int.from_bytes(payload[:4], "big") & 0x7FFFFFFF
            with self._send_lock:
                if sid == 0:
                    self._peer_window += inc
                elif sid in self._stream_window:
                    self._stream_window[sid] += inc
            return None
        if typ == RST_STREAM:
            if sid == stream:
                code = int.from_bytes(payload[:4], "big")
                raise GrpcStatus(14 if code in (7,) else 2, f"stream reset by etcd (HTTP/2 error {code})")
            return None
        if typ == GOAWAY:
            last = int.from_bytes(payload[:4], "big") & 0x7FFFFFFF
            code = int.from_bytes(payload[4:8], "big")
            self.draining = True  # no new stream on this connection
            self._goaway_last = last
            if code != 0 or stream is not None and stream > last:
                self.close()
                raise ConnectionLost(f"etcd closed the connection (GOAWAY, HTTP/2 error {code})")
            return None
        return None  # PRIORITY, PUSH_PROMISE (never enabled by gRPC servers), unknown: ignored

    def _settings(self, payload: bytes) -> None:
        with self._send_lock:
            for i in range(0, len(payload) - 5, 6):
                ident, value = struct.unpack_from(">HI", payload, i)
                if ident == SETTINGS_INITIAL_WINDOW_SIZE:
                    delta = value - self._peer_initial
                    self._peer_initial = value
                    for s in self._stream_window:
                        self._stream_window[s] += delta
                elif ident == SETTINGS_MAX_FRAME_SIZE:
                    self._max_frame = value
                elif ident == SETTINGS_MAX_CONCURRENT_STREAMS:
                    self._max_streams = value
            if self.sock is not None:
                self.sock.sendall(_frame(SETTINGS, ACK, 0))

    def _consumed(self, stream: int, n: int) -> None:
        """Top up the windows we announced once half is used (long watches; big ranges)."""
        if not n:
            return
        self._recv_unacked += n
        per = self._stream_unacked[stream] = self._stream_unacked.get(stream, 0) + n
        out = b""
        if self._recv_unacked >= BIG_WINDOW // 2:
            out += _frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", self._recv_unacked))
            self._recv_unacked = 0
        if per >= BIG_WINDOW // 2:
            out += _frame(WINDOW_UPDATE, 0, stream, struct.pack(">I", per))
            self._stream_unacked[stream] = 0
        if out:
            with self._send_lock:
                if self.sock is not None:
                    self.sock.sendall(out)

    def _decode(self, block: bytes) -> list[tuple[str, str]]:
        hit = self._memo.get(block)
        if hit is not None:
            return hit
        try:
            out = [(k if isinstance(k, str) else k.decode(), v if isinstance(v, str) else v.decode())
                   for k, v in self._decoder.decode(block)]
        except hpack.HPACKError as e:
            raise ConnectionLost(f"HTTP/2: bad header block ({e})") from None
        if all(b & 0x80 and b != 0xFF for b in block):  # only indexed fields: the table is unchanged
            self._memo[block] = out
        else:
            self._memo.clear()
        return out

    def _read_frame(self) -> tuple[int, int, int, bytes]:
        buf = self._buf
        while len(buf) - self._pos < 9:
            self._fill()
        p = self._pos
        n = int.from_bytes(buf[p:p + 3], "big")
        typ, flags = buf[p + 3], buf[p + 4]
        sid = int.from_bytes(buf[p + 5:p + 9], "big") & 0x7FFFFFFF
        start = p + 9
        while len(buf) - start < n:
            self._fill()
        payload = bytes(buf[start:start + n])
        self._pos = start + n
        if self._pos == len(buf):
            buf.clear()
            self._pos = 0
        elif self._pos > 65536:
            del buf[:self._pos]
            self._pos = 0
        return typ, flags, sid, payload

    def _fill(self) -> None:
        if self.sock is None:
            raise ConnectionLost("connection closed")
        chunk = self.sock.recv(262144)
        if not chunk:
            self.close()
            raise ConnectionLost("etcd closed the connection")
        self._buf += chunk


def _grpc_message(message: bytes) -> bytes:
    return b"\x00" + len(message).to_bytes(4, "big") + message


def _answer(headers: list[tuple[str, str]], data: bytes, allow_empty: bool = False) -> bytes:
    status = message = None
    http = None
    for k, v in headers:
        if k == "grpc-status":
            status = v
        elif k == "grpc-message":
            message = v
        elif k == ":status":
            http = v
    if status is None:
        raise GrpcStatus(2 if http == "200" else 14, f"no grpc-status in etcd's answer (HTTP {http})")
    if status != "0":
        try:
            code = int(status)
        except ValueError:
            code = 2
        raise GrpcStatus(code, unquote(message or ""))
    if allow_empty:
        return b""
    if len(data) < 5:
        raise GrpcStatus(13, "etcd's answer carries no message")
    if data[0]:
        raise GrpcStatus(13, "etcd's answer is compressed (never asked for)")
    return data[5:5 + int.from_bytes(data[1:5], "big")]
