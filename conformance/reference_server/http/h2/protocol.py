"""One HTTP/2 connection (golang.org/x/net/http2/server.go's `serverConn`, in asyncio): frames in through `h2`, each
stream's request bridged into the aiohttp handler that serves HTTP/1.1 (the `web.Server`'s `request_handler` and
`request_factory`: http/app.py's middlewares, hooks and routes), its answer out through `writer.StreamWriter`.

As Go's server: a stream the client resets (RST_STREAM) or a connection that closes cancels its handler, as a
closed HTTP/1.1 connection does (`handler_cancellation`); server shutdown sends GOAWAY (NO_ERROR, the last stream
taken) and lets open streams finish; a connection idle for `IdleTimeout` is closed with GOAWAY; a client that does
not send its preface within 10 s is dropped; a stream whose answer ended while the client still sends its body is
reset with NO_ERROR (RFC 9113 §8.1). Request bodies are read by the same handlers under the same limits as over
HTTP/1.1; their stream window is reopened only as the handler reads, so a fast uploader cannot fill our memory.
"""
from __future__ import annotations

import asyncio
import logging
from collections import Counter
from typing import Any

from aiohttp import HttpVersion11, web
from aiohttp.http_parser import RawRequestMessage
from aiohttp.streams import EMPTY_PAYLOAD, StreamReader
from h2 import events as ev
from h2.errors import ErrorCodes
from h2.exceptions import H2Error, ProtocolError
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

from ...apierrors import StatusError, status_dict
from ..chain_headers import DroppedAnswer
from ..gopath import bad_escape
from . import limits
from .conn import (
    BodyLengthMismatch,
    ServerConnection,
    StreamRefused,
    check_request_headers,
    go_content_length,
)
from .writer import StreamWriter

log = logging.getLogger("nsconform.reference_server.http")
counts: Counter[str] = Counter()  # connections and streams served over HTTP/2 by this process (tests read it)
_BODY_BUFFER = 1 << 16  # aiohttp's read_bufsize: a request body held before its window stays shut
_HEADER_LIST_TOO_LONG = b"<h1>HTTP Error 431</h1><p>Request Header Field(s) Too Large</p>"  # handleHeaderListTooLong


class _Stream:
    """One request's state; also the flow-control "protocol" its body's `StreamReader` pauses and resumes."""

    def __init__(self, protocol: H2Protocol, stream_id: int):
        self.protocol = protocol
        self.stream_id = stream_id
        self.payload: Any = EMPTY_PAYLOAD
        self.task: asyncio.Task[None] | None = None
        self.writer = StreamWriter(protocol, stream_id)
        self._reading_paused = False
        self._unacked = 0
        self.reset = False

    @property
    def connected(self) -> bool:
        return self.protocol.transport is not None

    def pause_reading(self) -> None:
        self._reading_paused = True

    def resume_reading(self, resume_parser: bool = True) -> None:
        self._reading_paused = False
        if self._unacked:
            n, self._unacked = self._unacked, 0
            self.protocol.acknowledge(self.stream_id, n)

    def feed(self, data: bytes, flow_controlled: int) -> None:
        self.payload.feed_data(data)
        if self._reading_paused:  # the handler has not read what it holds: this window stays shut for now
            self._unacked += flow_controlled
        else:
            self.protocol.acknowledge(self.stream_id, flow_controlled)


class H2Protocol(asyncio.Protocol):
    """The asyncio protocol of one connection that negotiated `h2`, registered with aiohttp's `web.Server`
    (`server`) like its HTTP/1.1 handlers, so runner shutdown reaches it (`close`, then `shutdown`)."""

    def __init__(self, server: web.Server, idle_timeout: float):
        self._server = server
        self._loop = asyncio.get_running_loop()
        self._idle_timeout = idle_timeout
        self.transport: asyncio.Transport | None = None
        self.conn = ServerConnection()
        self.streams: dict[int, _Stream] = {}
        self._window_waiters: dict[int, asyncio.Future[None]] = {}
        self._drain_waiter: asyncio.Future[None] | None = None
        self._paused = False
        self._going_away = False
        self._preface_seen = False
        self._timer: asyncio.TimerHandle | None = None
        self._task_handler = None  # what aiohttp's `web.Server.connection_lost` looks for
        self.ssl_context: Any = None
        self.peername: Any = None
        self.sockname: Any = None
        self.max_field_size = 8190  # aiohttp's defaults, read by its multipart reader
        self.max_headers = 128

    # ---- the connection ---------------------------------------------------------------------------------------
    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        self.ssl_context = transport.get_extra_info("sslcontext")
        self.peername = transport.get_extra_info("peername")
        self.sockname = transport.get_extra_info("sockname")
        self._server.connection_made(self, transport)  # type: ignore[arg-type]
        counts["connections"] += 1
        self.conn.start()
        self._flush()
        self._timer = self._loop.call_later(limits.PREFACE_TIMEOUT, self._preface_deadline)

    def data_received(self, data: bytes) -> None:
        try:
            events = self.conn.receive_data(data)
        except ProtocolError as exc:  # a connection error: GOAWAY with its code (a bad preface: just close)
            if self._preface_seen:
                try:
                    self.conn.close_connection(error_code=getattr(exc, "error_code", ErrorCodes.PROTOCOL_ERROR))
                except H2Error:
                    pass
                self._flush()
            self._close_transport()
            return
        if not self._preface_seen:
            self._preface_seen = True
            self._arm_idle()
        for event in events:
            self._dispatch(event)
        self._flush()

    def connection_lost(self, exc: BaseException | None) -> None:
        self.transport = None
        self._cancel_timer()
        for stream in list(self.streams.values()):
            self._abort(stream, exc)
        self._wake_all(ConnectionResetError("Connection lost"))
        if self._drain_waiter is not None and not self._drain_waiter.done():
            self._drain_waiter.set_exception(ConnectionResetError("Connection lost"))
        self._server.connection_lost(self, exc)  # type: ignore[arg-type]

    def pause_writing(self) -> None:
        self._paused = True

    def resume_writing(self) -> None:
        self._paused = False
        waiter, self._drain_waiter = self._drain_waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def eof_received(self) -> bool:
        return False

    # ---- aiohttp's web.Server asks these at shutdown -----------------------------------------------------------
    def close(self) -> None:
        """Graceful shutdown starts (Go's `startGracefulShutdown`): GOAWAY NO_ERROR, no new streams."""
        self._go_away()

    async def shutdown(self, timeout: float | None = 15.0) -> None:
        """Wait for the open streams (at most `timeout`), then cancel what remains and close."""
        self._go_away()
        tasks = [s.task for s in self.streams.values() if s.task is not None]
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)
        for stream in list(self.streams.values()):
            self._abort(stream, None)
        self._close_transport()

    # ---- events -----------------------------------------------------------------------------------------------
    def _dispatch(self, event: Any) -> None:
        if isinstance(event, ev.RequestReceived):
            self._begin(event.stream_id, event.headers, event.stream_ended is not None)
        elif isinstance(event, ev.DataReceived):
            stream = self.streams.get(event.stream_id)
            if stream is not None and stream.payload is not EMPTY_PAYLOAD and not stream.reset:
                stream.feed(event.data, event.flow_controlled_length)
            else:
                self.acknowledge(event.stream_id, event.flow_controlled_length)
            if event.stream_ended is not None:
                self._body_ended(event.stream_id)
        elif isinstance(event, ev.StreamEnded):
            self._body_ended(event.stream_id)
        elif isinstance(event, ev.StreamReset):
            stream = self.streams.get(event.stream_id)
            if stream is not None:
                self._abort(stream, ConnectionResetError("stream reset by the client"))
            self._wake(event.stream_id, ConnectionResetError("stream reset by the client"))
        elif isinstance(event, ev.WindowUpdated):
            if event.stream_id == 0:
                self._wake_all(None)
            else:
                self._wake(event.stream_id, None)
        elif isinstance(event, ev.RemoteSettingsChanged):
            self._wake_all(None)
        elif isinstance(event, ev.SettingsAcknowledged):
            self.conn.settings_acked = True
        elif isinstance(event, ev.ConnectionTerminated):  # the client's GOAWAY: finish what is open, then close
            self._going_away = True
            if not self.streams:
                self._close_transport()
        elif isinstance(event, BodyLengthMismatch):
            stream = self.streams.get(event.stream_id)
            if stream is not None and stream.payload is not EMPTY_PAYLOAD:
                # what kube-apiserver's handlers make of a body read error (`scope.err`: ErrorToAPIStatus's
                # fallback, a 500 without reason carrying the error's text)
                stream.payload.set_exception(StatusError(status_dict(500, None, event.message)))
        elif isinstance(event, StreamRefused):
            counts["refused"] += 1

    def _body_ended(self, stream_id: int) -> None:
        stream = self.streams.get(stream_id)
        if stream is not None and stream.payload is not EMPTY_PAYLOAD:
            stream.payload.feed_eof()

    def _begin(self, stream_id: int, raw: list[tuple[bytes, bytes]], ended: bool) -> None:
        if self._going_away:  # a stream begun after our GOAWAY is ignored, as Go's processFrame does
            return
        oversized = stream_id in self.conn.oversized
        self.conn.oversized.discard(stream_id)
        checked = check_request_headers(raw)
        if checked is None:
            self._reset(stream_id, ErrorCodes.PROTOCOL_ERROR)
            return
        pseudo, refused = checked
        path = pseudo.get(b":path", b"")
        if b"%" in path and bad_escape(path.decode("latin-1")):  # newWriterAndRequestNoBody: `ParseRequestURI`
            self._reset(stream_id, ErrorCodes.PROTOCOL_ERROR)      # fails, a stream error (before 431 and 400)
            return
        self._cancel_timer()
        counts["streams"] += 1
        stream = _Stream(self, stream_id)
        self.streams[stream_id] = stream
        if oversized:
            stream.task = self._loop.create_task(self._bare(stream, 431, _HEADER_LIST_TOO_LONG,
                                                         "text/html; charset=utf-8"))  # (sniffed by Go)
            return
        if refused is not None:  # Go's new400Handler: http.Error(w, err.Error(), 400)
            stream.task = self._loop.create_task(self._bare(stream, 400, refused.encode() + b"\n", None))
            return
        if not ended:
            stream.payload = StreamReader(stream, _BODY_BUFFER, loop=self._loop)  # type: ignore[arg-type]
        stream.task = self._loop.create_task(self._serve(stream, _message(pseudo, raw)))

    # ---- one stream -------------------------------------------------------------------------------------------
    async def _serve(self, stream: _Stream, message: RawRequestMessage) -> None:
        server = self._server
        task = asyncio.current_task()
        request = server.request_factory(message, stream.payload, self, stream.writer, task)  # type: ignore[arg-type]
        try:
            try:
                resp = await server.request_handler(request)
            except web.HTTPException as exc:
                resp = exc
            except asyncio.TimeoutError:
                resp = _plain(504, "504 Gateway Timeout")
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("internal error handling an HTTP/2 request from %s", request.remote)
                if stream.writer.output_size:
                    raise
                resp = _plain(500, "500 Internal Server Error")
            request._finish()
            if isinstance(resp, DroppedAnswer):  # the handler panicked: x/net/http2's handlerPanicRST
                self._reset(stream.stream_id, ErrorCodes.INTERNAL_ERROR)
                return
            await resp.prepare(request)
            await resp.write_eof()
        except asyncio.CancelledError:
            pass
        except Exception:  # noqa: BLE001 - the answer could not be finished: reset the stream (Go: INTERNAL_ERROR)
            if not stream.reset:
                self._reset(stream.stream_id, ErrorCodes.INTERNAL_ERROR)
        finally:
            self._done(stream)

    async def _bare(self, stream: _Stream, status: int, body: bytes, content_type: str | None) -> None:
        """An answer Go's HTTP/2 server writes itself, outside the handler chain (no Audit-Id)."""
        headers = [(":status", str(status))]
        if content_type is None:
            headers += [("content-type", "text/plain; charset=utf-8"), ("x-content-type-options", "nosniff")]
        else:
            headers += [("content-type", content_type)]
        headers += [("content-length", str(len(body))), ("date", _date())]
        try:
            self.send_headers(stream.stream_id, headers, end_stream=False)
            await self.send_data(stream.stream_id, body, end_stream=True)
        except (ConnectionError, H2Error, asyncio.CancelledError):
            pass
        finally:
            self._done(stream)

    def _done(self, stream: _Stream) -> None:
        self.streams.pop(stream.stream_id, None)
        self._window_waiters.pop(stream.stream_id, None)
        if self.transport is not None and not stream.reset:
            h2s = self.conn.streams.get(stream.stream_id)
            if h2s is not None and not h2s.closed and stream.writer.ended:  # the client still sends its body
                self._reset(stream.stream_id, ErrorCodes.NO_ERROR)
            elif h2s is not None and not h2s.closed and not stream.writer.ended:  # a handler that never answered
                self._reset(stream.stream_id, ErrorCodes.INTERNAL_ERROR)
            self._flush()
        if not self.streams:
            if self._going_away:
                self._close_transport()
            else:
                self._arm_idle()

    def _abort(self, stream: _Stream, exc: BaseException | None) -> None:
        """A reset stream or a lost connection: its handler is cancelled, its body reader fails."""
        stream.reset = True
        if stream.payload is not EMPTY_PAYLOAD:
            stream.payload.set_exception(exc or ConnectionResetError("Connection lost"))
        if stream.task is not None and not stream.task.done():
            stream.task.cancel()

    # ---- output -----------------------------------------------------------------------------------------------
    def send_headers(self, stream_id: int, headers: list[tuple[str, str]], end_stream: bool) -> None:
        if self.transport is None:
            raise ConnectionResetError("Connection lost")
        self.conn.send_headers(stream_id, headers, end_stream=end_stream)
        self._flush()

    async def send_data(self, stream_id: int, data: bytes, end_stream: bool) -> None:
        """DATA frames as the peer's windows (stream and connection) and frame size allow; waits while shut."""
        view = memoryview(data)
        while True:
            if self.transport is None:
                raise ConnectionResetError("Connection lost")
            if not view:
                if end_stream:
                    self.conn.end_stream(stream_id)
                    self._flush()
                return
            size = min(self.conn.local_flow_control_window(stream_id), self.conn.max_outbound_frame_size, len(view))
            if size <= 0:
                await self._window(stream_id)
                continue
            last = end_stream and size == len(view)
            self.conn.send_data(stream_id, view[:size].tobytes(), end_stream=last)
            view = view[size:]
            self._flush()
            if self._paused:
                await self.drained()
            if last:
                return

    async def drained(self) -> None:
        if not self._paused or self.transport is None:
            return
        if self._drain_waiter is None or self._drain_waiter.done():
            self._drain_waiter = self._loop.create_future()
        await asyncio.shield(self._drain_waiter)

    async def _window(self, stream_id: int) -> None:
        waiter = self._window_waiters.get(stream_id)
        if waiter is None or waiter.done():
            waiter = self._window_waiters[stream_id] = self._loop.create_future()
        await waiter

    def _wake(self, stream_id: int, exc: BaseException | None) -> None:
        waiter = self._window_waiters.pop(stream_id, None)
        if waiter is not None and not waiter.done():
            if exc is None:
                waiter.set_result(None)
            else:
                waiter.set_exception(exc)

    def _wake_all(self, exc: BaseException | None) -> None:
        for sid in list(self._window_waiters):
            self._wake(sid, exc)

    def acknowledge(self, stream_id: int, n: int) -> None:
        if n and self.transport is not None:
            try:  # (a stream closed meanwhile: h2 reopens the connection's window alone)
                self.conn.acknowledge_received_data(n, stream_id)
            except H2Error:
                return
            self._flush()

    def _reset(self, stream_id: int, code: ErrorCodes) -> None:
        try:
            self.conn.reset_stream(stream_id, error_code=code)
        except H2Error:
            return
        self._flush()

    def _flush(self) -> None:
        data = self.conn.data_to_send()
        if data and self._writable():
            self.transport.write(data)  # type: ignore[union-attr]

    def _writable(self) -> bool:
        """False from the moment the socket failed: asyncio's TLS transport learns of it only when it calls
        `connection_lost` (a loop turn later), and every write in between is logged as a warning."""
        t = self.transport
        if t is None or t.is_closing():
            return False
        inner = getattr(getattr(t, "_ssl_protocol", None), "_transport", None)
        return inner is None or not inner.is_closing()

    # ---- timers and closing -----------------------------------------------------------------------------------
    def _go_away(self) -> None:
        if self._going_away or self.transport is None:
            return
        self._going_away = True
        self.conn.graceful_go_away()
        self._flush()
        if not self.streams:
            self._close_transport()

    def _preface_deadline(self) -> None:
        self._timer = None
        if not self._preface_seen:
            self._close_transport()

    def _arm_idle(self) -> None:
        self._cancel_timer()
        if self._idle_timeout > 0 and self.transport is not None:
            self._timer = self._loop.call_later(self._idle_timeout, self._idle)

    def _idle(self) -> None:  # Go's idle timer: GOAWAY NO_ERROR, then close
        self._timer = None
        if not self.streams:
            self._go_away()

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _close_transport(self) -> None:
        self._cancel_timer()
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()


def _message(pseudo: dict[bytes, bytes], raw: list[tuple[bytes, bytes]]) -> RawRequestMessage:
    """The HTTP/1.1 request aiohttp's parser would have made of this stream's headers (`:authority` as `Host`;
    one Content-Length, Go's `req.ContentLength`: the first, 0 when not a number, as conn.py's streams count it)."""
    fields = [(n, v) for n, v in raw if n[:1] != b":"]
    lengths = [v for n, v in fields if n == b"content-length"]
    declared = b"%d" % go_content_length(lengths[0]) if lengths else b""
    if len(lengths) > 1 or declared != (lengths[0] if lengths else b""):
        fields = [(n, v) for n, v in fields if n != b"content-length"] + [(b"content-length", declared)]
    if b":authority" in pseudo and not any(n == b"host" for n, _ in fields):
        fields.insert(0, (b"host", pseudo[b":authority"]))
    headers = CIMultiDictProxy(CIMultiDict((n.decode("latin-1"), v.decode("utf-8", "surrogateescape"))
                                           for n, v in fields))
    path = pseudo[b":path"].decode("utf-8", "surrogateescape")
    return RawRequestMessage(pseudo[b":method"].decode("latin-1"), path, HttpVersion11, headers, tuple(fields),
                             False, None, False, False, _url(path))


def _url(path: str) -> URL:
    target, _, fragment = path.partition("#")
    p, _, query = target.partition("?")
    return URL.build(path=p, query_string=query, fragment=fragment, encoded=True)


def _plain(status: int, text: str) -> web.Response:
    from ..chain_headers import BareResponse
    return BareResponse(status=status, text=text, content_type="text/plain")


def _date() -> str:
    from aiohttp.helpers import rfc822_formatted_time
    return rfc822_formatted_time()
