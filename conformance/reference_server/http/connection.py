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

from . import chunk_refusal, chunked_end, chunked_length, go_answers, head_pieces, head_repair, repeated_headers
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
    _partial: bytearray | None = None  # the current head's bytes the parser took in earlier reads (it began at IDLE)
    _held: head_pieces.HeldHead | None = None  # a head the parser refused before it was whole, held from it
    _fed: bytes | None = None  # what a fresh parser was fed in place of the refused read (`_reread`)
    _body_view: head_pieces.BodyView | None = None  # the parser's body framing (`head_pieces.body_view`)

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
        if self._held is not None:
            self._hold(data)
            return
        count = self._request_count
        body = self._last_payload  # a body this read may belong to, which llhttp may refuse (`_body_refused`)
        state = self._state
        begins = state is not None and state.value == head_repair.IDLE  # this read begins a request
        partial = self._partial
        left = None  # the bytes of a Content-Length body this read may end, after which a request begins
        chunked = None  # the parser's state before this read of a chunked body (`chunked_end`), which it may end
        if not begins and partial is None and self._body_view is not None:
            payload = self._last_payload
            if payload is not None and not payload.is_eof():
                left = head_pieces.body_left(self._body_view)
                if left is None and data and chunked_end.SUPPORTED:
                    chunked = chunked_end.state(self._body_view)
        waiter = self._waiter  # woken below, not by aiohttp: a refusal read again may leave no request to serve
        self._waiter = None
        closed = self._close
        super().data_received(data)
        self._waiter = waiter
        if waiter is not None and self._close and not closed:  # aiohttp's `close` (a body's end) cancels it
            waiter.cancel()
        if self._request_count != count:  # a complete request line + headers arrived
            if body is not None and not body.is_eof() and type(self._messages[-1][0]) is _ErrInfo:
                return self._body_refused(body)
            near_budget = self._head_bytes + len(data) > go_answers.MAX_HEADER_BYTES  # rare: then measure the head
            self._head_bytes = 0
            self._disarm_header_timer()
            read = data if begins else None
            if partial is not None:  # the head began in earlier reads
                self._partial = None
                partial += data
                read = bytes(partial)
            elif left is not None and left < len(data):  # the read ends a body: a request begins after it
                read = data[left:]
            elif chunked is not None:  # the read ends a chunked body: after it, only where it is needed
                read = self._after_chunked(chunked, data)
            self._check_new_heads(self._request_count - count, near_budget, read)
            if self._messages and waiter is not None and not waiter.done():
                waiter.set_result(None)
            if read is not None and self._held is None and self._state.value != head_repair.IDLE and \
                    self._parser_reads():
                self._keep_partial(read)  # the read ended inside a next head
            return
        payload = self._last_payload
        if payload is None or payload.is_eof():  # bytes of a next request's head, not of a body
            self._head_bytes += len(data)  # at most one read (256 KiB) over the budget is ever held
            if self._head_bytes > go_answers.HEADER_READ_LIMIT:
                self._refuse_head(go_answers.TOO_LARGE)
                return
            if partial is not None:
                partial += data
            elif begins and data and self._parser_reads():
                self._partial = bytearray(data)
            elif left is not None and left < len(data) and self._parser_reads():  # a body's end, then a head
                self._partial = bytearray(data[left:])
            elif chunked is not None and self._state.value != head_repair.IDLE and self._parser_reads():
                end = chunked_end.end(chunked, data, self._scratch_parser)  # a chunked body's end, then a head
                if end is not None and end < len(data):
                    self._partial = bytearray(data[end:])
        if not self._request_in_progress and not self._messages:
            self._arm_header_timer()

    def _body_refused(self, payload: Any) -> None:
        """llhttp refused bytes inside `payload`'s chunked body (aiohttp queued its refusal as a next request and
        left the body waiting): the handler's body read fails at once with chunked.go's error
        (`chunk_refusal`), and, as Go's `conn.serve` after a body read error, the answer closes the connection
        (`Connection: close`) and nothing after it is read, not even the rest of the body."""
        refusal = self._messages.pop()[0]
        self._request_count -= 1
        self._close = True
        self._lingering_time = 0.0
        read = False  # whether a handler is to read the body: else it was answered, its rest being drained
        for i, (message, queued) in enumerate(self._messages):  # its request not begun yet
            if queued is payload and type(message) is RawRequestMessage:
                self._messages[i] = (message._replace(should_close=True), queued)
                read = True
        request = self._current_request
        if request is not None and request._payload is payload and self._request_in_progress:
            request._message = request._message._replace(should_close=True)
            request._cache.pop("keep_alive", None)
            read = True
        if read:
            payload.set_exception(chunk_refusal.error(refusal.exc))
        else:  # the drain (aiohttp's lingering read) ends, the connection closes, as Go's discard fails
            payload.feed_eof()

    def _after_chunked(self, before: bytes, data: bytes) -> bytes | None:
        """The bytes of `data` after the chunked body it ended (the parser was in state `before`), when they are to
        be read again: the read was refused, or it ended inside a next head; else None, at no cost."""
        message, payload = self._messages[-1]
        if type(message) is not _ErrInfo and (not payload.is_eof() or self._state.value == head_repair.IDLE):
            return None
        end = chunked_end.end(before, data, self._scratch_parser)
        return None if end is None else data[end:]

    def _parser_reads(self) -> bool:
        """Whether the bytes of a read went to the HTTP parser (not to an upgraded connection's or a body's reader),
        so that a refusal of a head they begin can be read again."""
        return (head_pieces.SUPPORTED and self._payload_parser is None and not self._upgraded
                and not self._force_close and not self._close)

    def _keep_partial(self, read: bytes) -> None:
        """Keep the bytes of the head `read` (which began a request) ended inside, should a later read of it be
        refused."""
        payload = self._last_payload
        if payload is not None and not payload.is_eof():
            return
        found = head_pieces.frame(read, self._scratch_parser)
        if found is not None and found.refused:  # refused, `read` was read again (`_reread`): its bytes as fed
            read, self._fed = self._fed, None
            found = None if read is None else head_pieces.frame(read, self._scratch_parser)
        if found is not None and not found.refused and found.before:
            self._partial = bytearray(read[found.start:])

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
        """The parser refused `read`, which began a request: a fresh parser reads it as Go reads it
        (`head_pieces.plan`): the requests before the refused one, that head rewritten when it is one Go reads
        (`head_repair`, the request's target given back as sent), the rest after it, and serves the connection on;
        a refused head not yet whole is held until it is (`_hold`). With nothing to change the refusal stands."""
        self._fed = None
        if not head_pieces.SUPPORTED:
            return self._reread_whole(read, near_budget)
        plan = head_pieces.plan(read, self._scratch_parser)
        if plan.held is None and plan.pieces == [read]:
            return None
        self._fed = b"".join(plan.pieces) if plan.held is None else None
        self._messages.pop()
        self._request_count -= 1
        self._feed_fresh(plan, near_budget)
        return None

    def _feed_fresh(self, plan: head_pieces.Plan, near_budget: bool) -> None:
        """A fresh parser fed `plan`'s pieces in place of the connection's, its requests queued as aiohttp queues a
        read's, then checked (`_check_new_heads`); its held head kept from it."""
        parser = self._new_parser()
        self._parser = parser
        self._state = head_repair.state_view(parser)
        self._body_view = head_pieces.body_view(parser)
        new: list[Any] = []
        upgraded, tail = False, b""
        for piece in plan.pieces:
            try:
                messages, upgraded, tail = parser.feed_data(piece)
            except HttpProcessingError as exc:
                new.append((_ErrInfo(status=400, exc=exc, message=exc.message), EMPTY_PAYLOAD))
                break
            new.extend(messages)
            if upgraded:
                break
        for i, target in plan.targets.items():
            if i < len(new) and type(new[i][0]) is RawRequestMessage:
                new[i] = (new[i][0]._replace(path=target), new[i][1])
        if plan.held is not None and not upgraded and (not new or type(new[-1][0]) is not _ErrInfo):
            self._held = head_pieces.HeldHead(self._scratch_parser)
            if self._held.add(plan.held):
                return self._release(new, near_budget)
        self._queue(new, upgraded, tail, near_budget)
        return None

    def _queue(self, new: list[Any], upgraded: bool, tail: bytes, near_budget: bool) -> None:
        """`new` requests queued for the handler as aiohttp's `data_received` queues a read's, then checked."""
        self._messages.extend(new)
        self._request_count += len(new)
        waiter = self._waiter
        if new and waiter is not None and not waiter.done():
            waiter.set_result(None)
        if not self._buffer_paused and len(self._messages) >= self._max_msg_queue_size:
            self._pause_reading_for_buffer()
        self._upgraded = upgraded
        if upgraded and tail:
            self._message_tail = tail
        if new:
            self._disarm_header_timer()
            self._check_new_heads(len(new), near_budget)
        if not self._request_in_progress and not self._messages:
            self._arm_header_timer()

    def _hold(self, data: bytes) -> None:
        """A read while a refused head is held: held too, until the head is whole (then read as Go reads it) or
        passes Go's header budget (431)."""
        held = self._held
        if self._force_close or self._close or held is None:
            return
        whole = held.add(data)
        if not whole and len(held.data) > go_answers.HEADER_READ_LIMIT:
            self._held = None
            self._refuse_head(go_answers.TOO_LARGE)
            return
        if whole:
            self._release([], False)
        elif not self._request_in_progress and not self._messages:
            self._arm_header_timer()

    def _release(self, before: list[Any], near_budget: bool) -> None:
        """The held head, whole or refused on one of its lines, read by the (idle) parser after the requests
        `before` it: rewritten when Go reads it (`head_pieces.plan`)."""
        held, self._held = self._held, None
        assert held is not None
        data = bytes(held.data)
        near_budget = near_budget or len(data) > go_answers.MAX_HEADER_BYTES
        parser = self._parser
        new = list(before)
        upgraded, tail = False, b""
        try:
            messages, upgraded, tail = parser.feed_data(data)
            new.extend(messages)
        except HttpProcessingError as exc:
            plan = head_pieces.plan(data, self._scratch_parser)
            if plan.pieces != [data] and (plan.pieces or plan.held is None):  # Go reads it: a fresh parser reads it so
                self._queue(new, False, b"", near_budget)
                return self._feed_fresh(plan, near_budget)
            new.append((_ErrInfo(status=400, exc=exc, message=exc.message), EMPTY_PAYLOAD))
        self._queue(new, upgraded, tail, near_budget)
        return None

    def _reread_whole(self, read: bytes, near_budget: bool) -> None:
        """`_reread` where llhttp's pause position cannot be read: only a refused head that begins `read` and is
        whole in it is read again."""
        repaired = head_repair.repair(read)
        if repaired is None:
            return
        self._messages.pop()
        self._request_count -= 1
        targets = {} if repaired.target is None else {0: repaired.target}
        self._feed_fresh(head_pieces.Plan([repaired.data], targets, None), near_budget)

    def _new_parser(self, max_msg_queue_size: int = MAX_MSG_QUEUE_SIZE, protocol: Any = None,
                    decompress: bool = True) -> Any:
        """A request parser as aiohttp's `RequestHandler` makes one, with this server's settings and leniencies."""
        settings = self._manager._kwargs if self._manager is not None else {}
        parser = HttpRequestParser(protocol or self, self._loop, self._read_bufsize,
                                   max_line_size=settings.get("max_line_size", 8190),
                                   max_field_size=settings.get("max_field_size", 8190),
                                   max_headers=settings.get("max_headers", 128), payload_exception=RequestPayloadError,
                                   auto_decompress=decompress and settings.get("auto_decompress", True),
                                   max_msg_queue_size=max_msg_queue_size)
        repeated_headers.allow_repeated(parser)
        chunked_length.allow(parser)
        return parser

    def _scratch_parser(self, max_msg_queue_size: int) -> Any:
        """A parser like the connection's whose bodies never pause or resume the connection's reading: for
        `head_pieces` to look at bytes with (bodies not decompressed: only their framing matters)."""
        return self._new_parser(max_msg_queue_size, head_repair.QUIET, decompress=False)

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
        handler._body_view = head_pieces.body_view(handler._parser)
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
