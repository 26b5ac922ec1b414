"""A bare HTTP/2 client over TLS (the `h2` library on a blocking socket) for the frames a high-level client hides:
RST_STREAM codes, a window it never reopens, header names it would refuse to send."""
from __future__ import annotations

import socket
import ssl
import time
from typing import Any
from urllib.parse import urlparse

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings


class _OpenAfterGoAway(h2.connection.H2ConnectionStateMachine):
    """The server's GOAWAY leaves streams it took open (RFC 9113 §6.8): this client may still reopen their windows."""

    _transitions = {**h2.connection.H2ConnectionStateMachine._transitions,
                    (h2.connection.ConnectionState.CLIENT_OPEN, h2.connection.ConnectionInputs.RECV_GOAWAY):
                        (None, h2.connection.ConnectionState.CLIENT_OPEN)}


class RawH2:
    def __init__(self, url: str, ca_file: str, *, window: int | None = None, alpn: tuple[str, ...] = ("h2",),
                 auto_ack: bool = True):
        self.auto_ack = auto_ack
        u = urlparse(url)
        self.authority = u.netloc
        ctx = ssl.create_default_context(cafile=ca_file)
        ctx.set_alpn_protocols(list(alpn))
        raw = socket.create_connection((u.hostname, u.port), timeout=10)
        self.sock = ctx.wrap_socket(raw, server_hostname=u.hostname)
        self.alpn = self.sock.selected_alpn_protocol()
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(
            client_side=True, header_encoding="utf-8", validate_outbound_headers=False,
            normalize_outbound_headers=False, validate_inbound_headers=False))
        self.conn.state_machine = _OpenAfterGoAway()
        if window is not None:
            self.conn.local_settings = h2.settings.Settings(client=True, initial_values={
                h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: window,
                h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 100})
        self.conn.initiate_connection()
        self.flush()
        self.events: list[Any] = []
        self.closed = False

    def flush(self) -> None:
        data = self.conn.data_to_send()
        if data:
            self.sock.sendall(data)

    def request(self, method: str, path: str, headers: list[tuple[str, str]] = (), body: bytes | None = None,
                token: str | None = None, end: bool = True) -> int:
        sid = self.conn.get_next_available_stream_id()
        hdrs = [(":method", method), (":path", path), (":scheme", "https"), (":authority", self.authority)]
        if token:
            hdrs.append(("authorization", f"Bearer {token}"))
        hdrs += list(headers)
        self.conn.send_headers(sid, hdrs, end_stream=body is None and end)
        if body is not None:
            self.send_body(sid, body, end=end)
        self.flush()
        return sid

    def send_body(self, sid: int, body: bytes, end: bool = True) -> None:
        while body:
            n = min(len(body), self.conn.local_flow_control_window(sid), self.conn.max_outbound_frame_size)
            if n <= 0:
                self.pump(0.5)
                continue
            self.conn.send_data(sid, body[:n])
            body = body[n:]
            self.flush()
        if end:
            self.conn.end_stream(sid)
            self.flush()

    def pump(self, timeout: float) -> list[Any]:
        """Read what arrives within `timeout` (one read at least when data is there); returns the new events."""
        self.sock.settimeout(timeout)
        new: list[Any] = []
        try:
            data = self.sock.recv(1 << 20)
        except (TimeoutError, ssl.SSLWantReadError):
            return new
        if not data:
            self.closed = True
            return new
        new = self.conn.receive_data(data)
        self.events += new
        for e in new:
            if self.auto_ack and isinstance(e, h2.events.DataReceived) and e.flow_controlled_length:
                try:
                    self.conn.acknowledge_received_data(e.flow_controlled_length, e.stream_id)
                except h2.exceptions.StreamClosedError:
                    pass
        self.flush()
        return new

    def until(self, predicate: Any, timeout: float = 10.0) -> list[Any]:
        deadline = time.monotonic() + timeout
        while not predicate(self.events):
            if time.monotonic() > deadline or self.closed:
                raise AssertionError(f"not seen in time: {self.events!r}")
            self.pump(0.2)
        return self.events

    def settled(self) -> None:
        """Wait for the server's SETTINGS (which this client acknowledges as it reads them)."""
        self.until(lambda evs: any(isinstance(e, h2.events.RemoteSettingsChanged) for e in evs))

    def data(self) -> bytes:
        """Every DATA byte received so far, all streams together."""
        return b"".join(e.data for e in self.events if isinstance(e, h2.events.DataReceived))

    def response(self, sid: int, timeout: float = 10.0) -> tuple[dict[str, str], bytes]:
        """The headers and whole body of stream `sid` (acknowledging what it reads)."""
        def ended(evs: list[Any]) -> bool:
            return any(isinstance(e, (h2.events.StreamEnded, h2.events.StreamReset)) and e.stream_id == sid
                       for e in evs)
        self.until(ended, timeout)
        headers: dict[str, str] = {}
        body = b""
        for e in self.events:
            if isinstance(e, h2.events.ResponseReceived) and e.stream_id == sid:
                headers = dict(e.headers)
            elif isinstance(e, h2.events.DataReceived) and e.stream_id == sid:
                body += e.data
        return headers, body

    def reset_code(self, sid: int, timeout: float = 10.0) -> int:
        self.until(lambda evs: any(isinstance(e, h2.events.StreamReset) and e.stream_id == sid for e in evs),
                   timeout)
        return next(int(e.error_code) for e in self.events
                    if isinstance(e, h2.events.StreamReset) and e.stream_id == sid)

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass
