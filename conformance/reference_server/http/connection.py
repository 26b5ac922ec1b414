"""Connection-level limits, as Go's `http.Server` in kube-apiserver (`secure_serving.go`) sets them:
`ReadHeaderTimeout` 32 s, `IdleTimeout` 90 s, `MaxHeaderBytes` 1 MiB, and the answers net/http's `conn.serve`
writes itself, byte for byte, for a request it cannot read (`go_answers.py`): a plain `400 Bad Request` for one
the HTTP parser refuses (Go never echoes the offending header back, so neither do we: it may hold a token), `431`
past the header budget, `readRequest`'s Host checks and `parseTransferEncoding`'s 501. Repeated single-valued
headers (`repeated_headers.py`), a chunked body beside a Content-Length (`chunked_length.py`), and the heads llhttp
refuses whatever its flags (`head_repair.py`: equal Content-Lengths, a Content-Length beside a Transfer-Encoding, a
raw byte above 0x7f in the target) are read as Go reads them.

aiohttp builds one `RequestHandler` per connection; `GuardedServer` makes them `GuardedRequestHandler`s.
"""
from __future__ import annotations

import asyncio
import logging
from typing import Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

from aiohttp.http_parser import RawRequestMessage
from aiohttp.streams import EMPTY_PAYLOAD
from aiohttp.web_protocol import (MAX_MSG_QUEUE_SIZE, HttpProcessingError, HttpRequestParser, RequestPayloadError,
                                  _ErrInfo)

from . import chunked_length, go_answers, head_repair, repeated_headers
from .chain_headers import BareResponse
from .gopath import bad_escape
from .fastwrite import SUPPORTED, eligible, write_whole

log = logging.getLogger("nsconform.reference_server.http")

READ_HEADER_TIMEOUT = 32.0   # secure_serving.go: "just shy of requestTimeoutUpperBound"
IDLE_TIMEOUT = 90.0          # secure_serving.go: "matches http.DefaultTransport keep-alive timeout"
REQUEST_TIMEOUT = 60.0       # kube-apiserver --request-timeout default (non-long-running requests)


class GuardedRequestHandler(RequestHandler):
    """A connection whose request headers must arrive within `read_header_timeout` and fit in Go's header budget
    (`go_answers.HEADER_READ_LIMIT` bytes from the request line to the blank line)."""

    read_header_timeout: float = READ_HEADER_TIMEOUT
    _header_timer: asyncio.TimerHandle | None = None
    _head_bytes = 0          # bytes received towards the current request's head
    _last_payload: Any = None  # the body of the latest parsed request, while it is still arriving
    _passed_head: Any = None   # (raw headers, version) of this connection's last head that passed unchanged
    _state: Any = None         # the C parser's llhttp state (`head_repair.state_view`), None where not known

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._arm_header_timer()

    def _arm_header_timer(self) -> None:
        if self._header_timer is None and self.read_header_timeout > 0:
            self._header_timer = self._loop.call_later(self.read_header_timeout, self._header_deadline)

    def _disarm_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _header_deadline(self) -> None:
        self._header_timer = None
        if not self._messages and not self._request_in_progress:  # still waiting for a complete header
            self.force_close()
            if self.transport is not None:
                self.transport.close()

    def data_received(self, data: bytes) -> None:
        count = self._request_count
        state = self._state
        begins = state is not None and state.value == head_repair.IDLE  # this read begins a request
        super().data_received(data)
        if self._request_count != count:  # a complete request line + headers arrived
            near_budget = self._head_bytes + len(data) > go_answers.MAX_HEADER_BYTES  # rare: then measure the head
            self._head_bytes = 0
            self._disarm_header_timer()
            self._check_new_heads(self._request_count - count, near_budget, data if begins else None)
            return
        payload = self._last_payload
        if payload is None or payload.is_eof():  # bytes of a next request's head, not of a body
            self._head_bytes += len(data)  # at most one read (256 KiB) over the budget is ever held
            if self._head_bytes > go_answers.HEADER_READ_LIMIT:
                self._refuse_head(go_answers.TOO_LARGE)
                return
        if not self._request_in_progress and not self._messages:
            self._arm_header_timer()

    def _check_new_heads(self, n: int, near_budget: bool, read: bytes | None = None) -> None:
        """What `readRequest` checks of a head the parser accepted, in its order: its target's `%` escapes
        (`ParseRequestURI`, the bare 400; llhttp does not check them), its size (when the bytes that
        brought it were `near_budget`), several Host headers (the bare 400), an HTTP/1.1 Transfer-Encoding that is
        not exactly one `chunked` (501), its Host's bytes (the parser itself refuses a missing Host); a chunked request's
        Content-Length is dropped, as `parseTransferEncoding` drops it. A head that fails is answered as the
        parser's refusals are, via `handle_error`. A head whose headers and version are those of the connection's
        last head that passed unchanged passes at once (a client's requests on one connection mostly repeat them).
        A refusal of the `read` that began a request is parsed again as Go reads it (`_reread`)."""
        messages = self._messages
        for i in range(len(messages) - n, len(messages)):
            message, payload = messages[i]
            self._last_payload = payload
            if type(message) is not RawRequestMessage:
                if read is not None and type(message) is _ErrInfo and i == len(messages) - 1:
                    self._reread(read, near_budget)
                continue
            if "%" in message.path and bad_escape(message.path):  # `ParseRequestURI` fails: the bare 400
                refusal = go_answers.BadRequest(None)
                messages[i] = (_ErrInfo(status=400, exc=refusal, message=str(refusal)), payload)
                continue
            seen = (message.raw_headers, message.version)
            if not near_budget and seen == self._passed_head:  # the same headers passed just before: so do these
                continue
            refusal = None
            changed = False
            headers = message.headers
            if near_budget and go_answers.head_size(message) > go_answers.HEADER_READ_LIMIT:
                refusal = go_answers.HeadTooLarge()
            elif len(headers.getall("Host", ())) > 1:
                refusal = go_answers.BadRequest(None)
            elif "Transfer-Encoding" in headers and message.version >= (1, 1) and \
                    not _one_chunked(headers.getall("Transfer-Encoding")):
                refusal = go_answers.UnsupportedTransferEncoding()  # (llhttp, made lenient, reads any to EOF)
            else:
                host = headers.get("Host")
                if host is not None and host not in go_answers.VALID_HOSTS_SEEN and not go_answers.valid_host(host):
                    refusal = go_answers.BadRequest("malformed Host header")
                elif message.chunked and "Content-Length" in headers:  # Go reads it chunked, drops the length
                    messages[i] = (chunked_length.drop_length(message), payload)
                    changed = True
            if refusal is not None:
                messages[i] = (_ErrInfo(status=400, exc=refusal, message=str(refusal)), payload)
            elif not changed:
                self._passed_head = seen

    def _reread(self, read: bytes, near_budget: bool) -> None:
        """The parser refused `read`, which began a request: when its first head is one Go reads (`head_repair`),
        a fresh parser reads it rewritten in place of the refusal (the request's target given back as sent), and
        serves the connection on; else the refusal stands."""
        repaired = head_repair.repair(read)
        if repaired is None:
            return
        parser = self._new_parser()
        try:
            new, upgraded, tail = parser.feed_data(repaired.data)
        except HttpProcessingError as exc:
            new, upgraded, tail = [(_ErrInfo(status=400, exc=exc, message=exc.message), EMPTY_PAYLOAD)], False, b""
        if not new:  # cannot be: the head is whole in `read`
            return
        self._parser = parser
        self._state = head_repair.state_view(parser)
        first, payload = new[0]
        if repaired.target is not None and type(first) is RawRequestMessage:
            new[0] = (first._replace(path=repaired.target), payload)
        self._messages.pop()
        self._messages.extend(new)
        self._request_count += len(new) - 1
        self._upgraded = upgraded
        if upgraded and tail:
            self._message_tail = tail
        self._check_new_heads(len(new), near_budget)

    def _new_parser(self) -> Any:
        """A request parser as aiohttp's `RequestHandler` makes one, with this server's settings and leniencies."""
        settings = self._manager._kwargs if self._manager is not None else {}
        parser = HttpRequestParser(self, self._loop, self._read_bufsize,
                                   max_line_size=settings.get("max_line_size", 8190),
                                   max_field_size=settings.get("max_field_size", 8190),
                                   max_headers=settings.get("max_headers", 128), payload_exception=RequestPayloadError,
                                   auto_decompress=settings.get("auto_decompress", True),
                                   max_msg_queue_size=MAX_MSG_QUEUE_SIZE)
        repeated_headers.allow_repeated(parser)
        chunked_length.allow(parser)
        return parser

    def _refuse_head(self, answer: bytes) -> None:
        """Go's answer to a head it will not read further, then the connection closes; while an earlier request
        is still being served the connection just closes (its answer must not be interleaved)."""
        transport = self.transport
        if transport is not None and not self._request_in_progress and not self._messages:
            log.info("refused a request head over %d bytes", go_answers.HEADER_READ_LIMIT)
            transport.write(answer)
        self.force_close()  # closes the transport once what was written has gone

    def connection_lost(self, exc: BaseException | None) -> None:
        self._disarm_header_timer()
        super().connection_lost(exc)

    async def finish_response(self, request: Any, resp: Any, start_time: float | None) -> tuple[Any, bool]:
        """aiohttp's, or, for an answer already in memory, one write of it all (http/fastwrite.py), or Go's own
        bytes for a request it could not read (`go_answers`)."""
        wire = getattr(resp, "wire", None)
        if wire is not None:
            request._finish()
            transport = self.transport
            if transport is not None and not transport.is_closing():
                transport.write(wire)
            self.force_close()  # closes the transport once the answer has gone
            resp._eof_sent = True
            return resp, False
        if SUPPORTED and eligible(self, request, resp) and hasattr(request, "run_prepare_hooks"):
            request._finish()
            reset = not write_whole(self, request, resp)
            if not reset and self._paused:  # the writer's `drain`
                await self._drain_helper()
            if start_time is not None:
                self.log_access(request, resp, start_time)
            return resp, reset
        return await super().finish_response(request, resp, start_time)

    def handle_error(self, request: Any, status: int = 500, exc: BaseException | None = None,
                     message: str | None = None) -> web.StreamResponse:
        """One log line without the request's bytes; Go's bare answer instead of aiohttp's echo."""
        if status == 400:
            log.info("refused a malformed HTTP request from %s (%s)", request.remote, type(exc).__name__)
            if request.writer.output_size > 0:
                raise ConnectionError("response already started")
            resp = BareResponse(status=400)
            resp.wire = go_answers.parser_refusal(exc)
            return resp
        elif status == 504:
            text = "504 Gateway Timeout"
        else:
            log.error("internal error handling a request from %s", request.remote)
            text = "500 Internal Server Error"
        if request.writer.output_size > 0:
            raise ConnectionError("response already started")
        resp = BareResponse(status=status, text=text, content_type="text/plain")
        resp.force_close()
        return resp


def _one_chunked(values: list[str]) -> bool:
    """`parseTransferEncoding`: exactly one Transfer-Encoding field, `chunked` in any ASCII case."""
    return len(values) == 1 and values[0].isascii() and values[0].lower() == "chunked"


class GuardedServer(web.Server):
    """aiohttp's low-level server whose connections are `GuardedRequestHandler`s."""

    def __init__(self, handler: Any, *, read_header_timeout: float = READ_HEADER_TIMEOUT, **kwargs: Any):
        super().__init__(handler, **kwargs)
        self.read_header_timeout = read_header_timeout

    def __call__(self) -> RequestHandler:
        handler = GuardedRequestHandler(self, loop=self._loop, **self._kwargs)
        handler.read_header_timeout = self.read_header_timeout
        repeated_headers.allow_repeated(handler._parser)
        chunked_length.allow(handler._parser)
        handler._state = head_repair.state_view(handler._parser)
        return handler


class AlpnServer(GuardedServer):
    """A TLS listener's server: HTTP/2 or HTTP/1.1 per connection, by ALPN (http/h2/alpn.py)."""

    def __call__(self) -> Any:
        from .h2 import AlpnChooser
        return AlpnChooser(self, super().__call__, self._kwargs.get("keepalive_timeout", IDLE_TIMEOUT))


class GuardedRunner(web.ServerRunner):
    """Runs an `App` (http/app.py) on a `GuardedServer` (an `AlpnServer` with `http2`, for a TLS listener that
    offers `h2`); its cleanup runs after the connections closed."""

    def __init__(self, app: Any, *, read_header_timeout: float = READ_HEADER_TIMEOUT,
                 idle_timeout: float = IDLE_TIMEOUT, shutdown_timeout: float = 60.0, http2: bool = False,
                 **kwargs: Any):
        # the rest of a body the handler did not read is drained for at most this long, then the connection
        # closes (aiohttp's default 10 s, never longer than a header may take): closing at once would reset
        # keep-alive connections after every refused POST
        # the parser's own line and count limits lie beyond Go's whole-head budget, which data_received enforces
        server_class = AlpnServer if http2 else GuardedServer
        server = server_class(app.handle, request_factory=app.make_request, read_header_timeout=read_header_timeout,
                              keepalive_timeout=idle_timeout, lingering_time=min(10.0, read_header_timeout),
                              max_line_size=2 * go_answers.HEADER_READ_LIMIT,
                              max_field_size=2 * go_answers.HEADER_READ_LIMIT,
                              max_headers=go_answers.HEADER_READ_LIMIT // 4, **kwargs)
        super().__init__(server, shutdown_timeout=shutdown_timeout)
        self._app = app

    async def _cleanup_server(self) -> None:
        await self._app.cleanup()
