"""A stream's aiohttp payload writer: the answer aiohttp prepares (http/app.py's hooks included) becomes one HEADERS
frame and flow-controlled DATA frames (golang.org/x/net/http2/server.go `writeChunk`, write.go `writeResHeaders`).

Headers as Go's server writes them: `:status`, the handler's headers lowercased in sorted order, then
`content-length` (when known) and `date`; no connection-specific ones (RFC 9113 §8.2.2: Connection,
Transfer-Encoding, Keep-Alive... aiohttp adds `Transfer-Encoding: chunked` to a streamed HTTP/1.1 answer).
A write waits while the peer's window is shut, so a slow reader holds its watch back instead of growing a buffer.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aiohttp.abc import AbstractStreamWriter

if TYPE_CHECKING:
    from .protocol import H2Protocol

_HOP_BY_HOP = frozenset(("connection", "transfer-encoding", "keep-alive", "proxy-connection", "upgrade"))
_LAST = ("content-length", "date")
CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"  # what http/app.py's `_expect` writes for HTTP/1.1's Expect


def response_headers(status: int, headers: Any) -> list[tuple[str, str]]:
    """The HEADERS frame's fields for an aiohttp answer's status and headers."""
    fields: dict[str, list[str]] = {}
    for name, value in headers.items():
        low = name.lower()
        if low not in _HOP_BY_HOP:
            fields.setdefault(low, []).append(value)
    out = [(":status", str(status))]
    for name in sorted(n for n in fields if n not in _LAST):
        out.extend((name, v) for v in fields[name])
    for name in _LAST:
        out.extend((name, v) for v in fields.get(name, ()))
    return out


class StreamWriter(AbstractStreamWriter):
    """aiohttp's `StreamResponse` writes one stream's answer through this."""

    def __init__(self, protocol: H2Protocol, stream_id: int):
        self.protocol = protocol
        self.stream_id = stream_id
        self.buffer_size = 0
        self.output_size = 0
        self.length = None
        self._headers: list[tuple[str, str]] | None = None
        self.headers_sent = False
        self.ended = False

    @property
    def transport(self) -> Any:
        return self.protocol.transport

    async def write_headers(self, status_line: str, headers: Any) -> None:
        status = int(status_line.split(" ", 2)[1])
        self._headers = response_headers(status, headers)
        self.output_size += 1  # the answer has begun (http/connection.py's handle_error asks this)

    def send_headers(self) -> None:
        if self._headers is not None and not self.headers_sent:
            self.headers_sent = True
            self.protocol.send_headers(self.stream_id, self._headers, end_stream=False)

    async def write(self, chunk: Any, *, drain: bool = True, LIMIT: int = 0x10000) -> None:
        if self._headers is None:
            if bytes(chunk) == CONTINUE:  # HTTP/2's 100 Continue is an informational HEADERS frame
                self.protocol.send_headers(self.stream_id, [(":status", "100")], end_stream=False)
            return
        self.send_headers()
        if chunk:
            self.output_size += len(chunk)
            await self.protocol.send_data(self.stream_id, bytes(chunk), end_stream=False)

    async def write_eof(self, chunk: bytes = b"") -> None:
        if self.ended:
            return
        self.ended = True
        if not self.headers_sent and self._headers is not None and not chunk:
            self.headers_sent = True
            self.protocol.send_headers(self.stream_id, self._headers, end_stream=True)
            return
        self.send_headers()
        self.output_size += len(chunk)
        await self.protocol.send_data(self.stream_id, bytes(chunk), end_stream=True)

    async def drain(self) -> None:
        await self.protocol.drained()

    def enable_compression(self, encoding: str = "deflate", strategy: int | None = None) -> None:
        raise NotImplementedError("no compressed answers over HTTP/2")  # none of ours asks for it

    def enable_chunking(self) -> None:
        """HTTP/2 frames a streamed answer itself: nothing to do."""
