"""The `h2` library's connection with the stream-level answers of Go's server (golang.org/x/net/http2/server.go,
`processHeaders` and `newWriterAndRequest`; frame.go `readMetaFrame`) where `h2` would end the whole connection:

- a HEADERS frame beyond the advertised SETTINGS_MAX_CONCURRENT_STREAMS: RST_STREAM PROTOCOL_ERROR once the client
  acknowledged our SETTINGS ("They should know better"), REFUSED_STREAM before (a race);
- a header block larger than SETTINGS_MAX_HEADER_LIST_SIZE: still decoded (HPACK's table must stay in step), then
  answered 431 by the stream (`handleHeaderListTooLong`), as Go's framer marks it `Truncated`;
- DATA beyond a declared Content-Length: RST_STREAM PROTOCOL_ERROR and the body's reader fails ("sender tried
  to send more than declared Content-Length of N bytes"); END_STREAM short of it: the reader fails ("request
  declared a Content-Length of N but only wrote M bytes"), the stream lives on (`processData`, `endStream`);
- a repeated Content-Length: the first one counts, and one that is not a number declares 0 bytes (Go's
  `newWriterAndRequest`: `ParseUint(vv[0], 10, 63)`, else 0), where `h2` ends the connection on two that differ;
- header names and pseudo-headers are checked here (`check_request_headers`), not by `h2`, whose failure would be a
  connection error: Go answers a bad name or pseudo-header with RST_STREAM PROTOCOL_ERROR and a connection-specific
  header with a 400 (`checkValidHTTP2RequestHeaders`).
"""
from __future__ import annotations

from typing import Any

from h2.config import H2Configuration
from h2.connection import (
    ConnectionInputs,
    ConnectionState,
    H2Connection,
    H2ConnectionStateMachine,
    _decode_headers,
)
from h2.errors import ErrorCodes
from h2.events import Event
from h2.exceptions import InvalidBodyLengthError
from h2.settings import SettingCodes, Settings
from h2.stream import H2Stream, StreamClosedBy
from hyperframe.frame import (
    Frame,
    GoAwayFrame,
    RstStreamFrame,
    SettingsFrame,
    WindowUpdateFrame,
)

from . import limits

_PSEUDO = frozenset((b":method", b":path", b":scheme", b":authority", b":protocol"))
_CONNECTION_SPECIFIC = (b"connection", b"proxy-connection", b"keep-alive", b"transfer-encoding", b"upgrade")
_CANONICAL = {b"connection": "Connection", b"proxy-connection": "Proxy-Connection", b"keep-alive": "Keep-Alive",
              b"transfer-encoding": "Transfer-Encoding", b"upgrade": "Upgrade"}
# httpguts.IsTokenRune, minus upper case (frame.go `validWireHeaderFieldName`)
_TOKEN = frozenset(b"!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyz")
_GO_SETTINGS = (SettingCodes.MAX_FRAME_SIZE, SettingCodes.MAX_CONCURRENT_STREAMS, SettingCodes.MAX_HEADER_LIST_SIZE,
                SettingCodes.HEADER_TABLE_SIZE, SettingCodes.INITIAL_WINDOW_SIZE)
_HPACK_CEILING = 64 << 20  # what the decoder holds at most while it decodes a block Go would truncate


class StreamRefused(Event):
    """A stream refused before it began (over the concurrency limit): already answered with RST_STREAM."""

    def __init__(self, stream_id: int, error_code: ErrorCodes):
        self.stream_id = stream_id
        self.error_code = error_code


class BodyLengthMismatch(Event):
    """DATA that disagrees with the request's Content-Length: its handler's body read fails with `message`."""

    def __init__(self, stream_id: int, message: str):
        self.stream_id = stream_id
        self.message = message


class _StateMachine(H2ConnectionStateMachine):
    """`h2`'s, except that the client's GOAWAY leaves the connection open for the streams it already began
    (RFC 9113 §6.8: they may still complete); `h2` would refuse to send another frame of theirs."""

    _transitions = {**H2ConnectionStateMachine._transitions,
                    (ConnectionState.SERVER_OPEN, ConnectionInputs.RECV_GOAWAY): (None, ConnectionState.SERVER_OPEN)}


def go_content_length(value: bytes) -> int:
    """A request's declared length from its first Content-Length: `strconv.ParseUint(v, 10, 63)`, 0 when that
    fails (`newWriterAndRequest`; bytes' `isdigit` is ASCII only)."""
    return int(value) if value.isdigit() and int(value) < 1 << 63 else 0


class _GoStream(H2Stream):
    """A stream whose declared body length is Go's: the first Content-Length, 0 when it is not a number."""

    def _initialize_content_length(self, headers: Any) -> None:
        if self.request_method == b"HEAD":
            self._expected_content_length = 0
            return
        for name, value in headers:
            if name == b"content-length":
                self._expected_content_length = go_content_length(value)
                return
        self._expected_content_length = None


class ServerConnection(H2Connection):
    """The server side of one connection, with kube-apiserver's SETTINGS."""

    def __init__(self) -> None:
        super().__init__(H2Configuration(client_side=False, header_encoding=None, validate_inbound_headers=False))
        self.state_machine = _StateMachine()
        self.local_settings = Settings(client=False, initial_values={
            SettingCodes.MAX_FRAME_SIZE: limits.MAX_READ_FRAME_SIZE,
            SettingCodes.MAX_CONCURRENT_STREAMS: limits.MAX_CONCURRENT_STREAMS,
            SettingCodes.MAX_HEADER_LIST_SIZE: limits.MAX_HEADER_LIST_SIZE,
            SettingCodes.INITIAL_WINDOW_SIZE: limits.MAX_RECEIVE_BUFFER_PER_STREAM,
        })
        self.max_inbound_frame_size = limits.MAX_READ_FRAME_SIZE
        self.decoder.max_header_list_size = _HPACK_CEILING
        self.settings_acked = False
        self.oversized: set[int] = set()  # streams whose header list Go would have truncated

    def start(self) -> None:
        """Go's SETTINGS frame (server.go `serve`: these five, in this order; SETTINGS_ENABLE_CONNECT_PROTOCOL is
        off by default in the Go 1.24 that builds kube-apiserver 1.33, golang/go#71128; `h2`'s
        `initiate_connection` would add ENABLE_PUSH and ENABLE_CONNECT_PROTOCOL), then the connection window
        opened to kube-apiserver's MaxReceiveBufferPerConnection."""
        self.state_machine.process_input(ConnectionInputs.SEND_SETTINGS)
        frame = SettingsFrame(0)
        for code in _GO_SETTINGS:
            frame.settings[code] = self.local_settings[code]
        self._data_to_send += frame.serialize()
        self.increment_flow_control_window(limits.MAX_RECEIVE_BUFFER_PER_CONNECTION - limits.DEFAULT_WINDOW)

    def graceful_go_away(self) -> None:
        """GOAWAY NO_ERROR naming the last stream taken, the connection kept open for the streams below it (Go's
        `startGracefulShutdown`); `h2`'s `close_connection` would refuse every later frame of theirs."""
        frame = GoAwayFrame(0)
        frame.last_stream_id = self.highest_inbound_stream_id
        frame.error_code = ErrorCodes.NO_ERROR
        self._data_to_send += frame.serialize()

    def _begin_new_stream(self, stream_id: int, allowed_ids: Any) -> H2Stream:
        stream = super()._begin_new_stream(stream_id, allowed_ids)
        stream.__class__ = _GoStream
        return stream

    def _receive_headers_frame(self, frame: Any) -> tuple[list[Frame], list[Event]]:
        sid = frame.stream_id
        if sid not in self.streams and sid % 2 == 1 and sid > self.highest_inbound_stream_id and \
                self.open_inbound_streams + 1 > limits.MAX_CONCURRENT_STREAMS:
            _decode_headers(self.decoder, frame.data)  # the HPACK table changes all the same
            code = ErrorCodes.PROTOCOL_ERROR if self.settings_acked else ErrorCodes.REFUSED_STREAM
            self.highest_inbound_stream_id = sid
            self._closed_streams[sid] = StreamClosedBy.SEND_RST_STREAM
            rst = RstStreamFrame(sid)
            rst.error_code = code
            return [rst], [StreamRefused(sid, code)]
        try:
            frames, events = super()._receive_headers_frame(frame)
        except InvalidBodyLengthError as exc:  # HEADERS with END_STREAM and a non-zero Content-Length
            return [], [BodyLengthMismatch(sid, _short(exc))]
        for ev in events:
            headers = getattr(ev, "headers", None)
            if headers is not None and ev.stream_id == sid and \
                    sum(len(n) + len(v) + 32 for n, v in headers) > limits.MAX_HEADER_LIST_SIZE:
                self.oversized.add(sid)
        return frames, events


    def _receive_data_frame(self, frame: Any) -> tuple[list[Frame], list[Event]]:
        try:
            return super()._receive_data_frame(frame)
        except InvalidBodyLengthError as exc:
            sid = frame.stream_id
            frames: list[Frame] = []
            increment = self._inbound_flow_control_window_manager.process_bytes(frame.flow_controlled_length)
            if increment:
                update = WindowUpdateFrame(0)
                update.window_increment = increment
                frames.append(update)
            if exc.expected_length < exc.actual_length:  # Go: "send_too_much"
                frames += self.streams[sid].reset_stream(ErrorCodes.PROTOCOL_ERROR)
                return frames, [BodyLengthMismatch(
                    sid, f"sender tried to send more than declared Content-Length of {exc.expected_length} bytes")]
            return frames, [BodyLengthMismatch(sid, _short(exc))]


def _short(exc: InvalidBodyLengthError) -> str:
    return f"request declared a Content-Length of {exc.expected_length} but only wrote {exc.actual_length} bytes"


def check_request_headers(headers: list[tuple[bytes, bytes]]) -> tuple[dict[bytes, bytes], str | None] | None:
    """The pseudo-headers and what Go's `checkValidHTTP2RequestHeaders` would refuse with a 400 (its message);
    None for a block Go resets with PROTOCOL_ERROR (a bad name, a pseudo-header after a regular one, an unknown or
    repeated one, a request without `:method`, `:scheme` or `:path`)."""
    pseudo: dict[bytes, bytes] = {}
    regular = False
    refused: str | None = None
    for name, value in headers:
        if not name:
            return None
        if name[:1] == b":":
            if regular or name not in _PSEUDO or name in pseudo:
                return None
            pseudo[name] = value
            continue
        regular = True
        if any(c not in _TOKEN for c in name):
            return None
        if refused is None:
            if name in _CONNECTION_SPECIFIC:
                refused = f'request header "{_CANONICAL[name]}" is not valid in HTTP/2'
            elif name == b"te" and value != b"trailers":
                refused = 'request header "TE" may only be "trailers" in HTTP/2'
    method = pseudo.get(b":method", b"")
    if method == b"CONNECT":
        return None  # RFC 9113's CONNECT has no :path: no route of ours serves it (pods' exec and proxy are unserved)
    if not method or not pseudo.get(b":path") or pseudo.get(b":scheme") not in (b"https", b"http"):
        return None
    return pseudo, refused
