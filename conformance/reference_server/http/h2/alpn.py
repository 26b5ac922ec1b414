"""The protocol a TLS connection speaks, chosen by the ALPN the handshake negotiated (kube-apiserver's
`NextProtos: h2, http/1.1`, secure_serving.go): `h2` gets an `H2Protocol`, anything else (`http/1.1`, or a client
that offered no ALPN) aiohttp's HTTP/1.1 handler. The chooser steps aside once it has chosen (`set_protocol`), so
an HTTP/1.1 connection costs one extra call for its first bytes and nothing per request.

Go's server, for a TLS client that sends the HTTP/2 preface without negotiating `h2`, never switches to HTTP/2: it
reads the preface as an HTTP/1 request (`PRI * HTTP/2.0`, accepted by `http1ServerSupportsRequest` in
net/http/server.go, with no body and `Close` set by `readRequest`), runs it through the handler chain and closes
the connection after the answer. aiohttp's parser (llhttp) refuses any `PRI` request, so the chooser stays for an
HTTP/1.1 connection's first bytes and runs such a preface through the same handler itself: an HTTP/1.1 answer
with `Connection: close`, then the connection closes.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from aiohttp import HttpVersion11, web
from aiohttp.http_parser import RawRequestMessage
from aiohttp.http_writer import StreamWriter
from aiohttp.streams import EMPTY_PAYLOAD
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

from .protocol import H2Protocol

log = logging.getLogger("nsconform.reference_server.http")

ALPN_PROTOCOLS = ["h2", "http/1.1"]
PREFACE_REQUEST = b"PRI * HTTP/2.0\r\n\r\n"  # the request line of RFC 9113's client preface


class AlpnChooser(asyncio.Protocol):
    """Made per connection by the listener; replaces itself with the chosen protocol at `connection_made`."""

    def __init__(self, server: web.Server, http1: Callable[[], asyncio.Protocol], idle_timeout: float):
        self._server = server
        self._http1 = http1
        self._idle_timeout = idle_timeout

    _transport: Any = None
    _h1: Any = None
    _preface: asyncio.Task[None] | None = None

    def connection_made(self, transport: Any) -> None:
        ssl_object = transport.get_extra_info("ssl_object")
        chosen = ssl_object.selected_alpn_protocol() if ssl_object is not None else None
        if chosen == "h2":
            protocol = H2Protocol(self._server, self._idle_timeout)
            transport.set_protocol(protocol)
            protocol.connection_made(transport)
            return
        self._transport = transport
        self._h1 = self._http1()
        self._h1.connection_made(transport)  # (its header timer runs from here)

    def data_received(self, data: bytes) -> None:
        """The first bytes of an HTTP/1.1 connection; from here on they go to the HTTP/1.1 handler directly."""
        h1 = self._h1
        assert h1 is not None
        if data.startswith(PREFACE_REQUEST):
            if self._preface is None:  # the rest ("SM"...) is never read: Go's NoBody
                self._preface = asyncio.get_running_loop().create_task(self._answer_preface(h1))
            return
        self._transport.set_protocol(h1)
        h1.data_received(data)

    async def _answer_preface(self, h1: Any) -> None:
        """`PRI *` through the handler chain, answered over HTTP/1.1, then the connection closed (Go's `Close`)."""
        h1._disarm_header_timer()
        message = RawRequestMessage("PRI", "*", HttpVersion11, CIMultiDictProxy(CIMultiDict()), (), True, None,
                                    False, False, URL.build(path="*", encoded=True))
        writer = StreamWriter(h1, asyncio.get_running_loop())
        request = self._server.request_factory(message, EMPTY_PAYLOAD, h1, writer, asyncio.current_task())
        try:
            try:
                resp = await self._server.request_handler(request)
            except web.HTTPException as exc:
                resp = exc
            await resp.prepare(request)
            await resp.write_eof()
        except Exception:  # noqa: BLE001 - a client gone meanwhile, or an answer that could not be written
            log.info("could not answer an HTTP/2 preface read as HTTP/1 from %s", request.remote)
        finally:
            if self._transport is not None and not self._transport.is_closing():
                self._transport.close()

    def eof_received(self) -> bool | None:
        return self._h1.eof_received() if self._h1 is not None else None

    def pause_writing(self) -> None:
        if self._h1 is not None:
            self._h1.pause_writing()

    def resume_writing(self) -> None:
        if self._h1 is not None:
            self._h1.resume_writing()

    def connection_lost(self, exc: BaseException | None) -> None:
        if self._h1 is not None:
            self._h1.connection_lost(exc)
