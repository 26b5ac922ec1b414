"""The protocol a TLS connection speaks, chosen by the ALPN the handshake negotiated (kube-apiserver's
`NextProtos: h2, http/1.1`, secure_serving.go): `h2` gets an `H2Protocol`, anything else (`http/1.1`, or a client
that offered no ALPN) aiohttp's HTTP/1.1 handler. The chooser steps aside once it has chosen (`set_protocol`), so
an HTTP/1.1 connection costs one extra call at its start and nothing per request.

Go's server, for a TLS client that sends the HTTP/2 preface without negotiating `h2`, reads it as an HTTP/1
request (`PRI * HTTP/2.0`: `http1ServerSupportsRequest`, net/http/server.go) and never switches to HTTP/2;
likewise here the HTTP/1.1 handler reads it.
"""
from __future__ import annotations

import asyncio
from typing import Any, Callable

from aiohttp import web

from .protocol import H2Protocol

ALPN_PROTOCOLS = ["h2", "http/1.1"]


class AlpnChooser(asyncio.Protocol):
    """Made per connection by the listener; replaces itself with the chosen protocol at `connection_made`."""

    def __init__(self, server: web.Server, http1: Callable[[], asyncio.Protocol], idle_timeout: float):
        self._server = server
        self._http1 = http1
        self._idle_timeout = idle_timeout

    def connection_made(self, transport: Any) -> None:
        ssl_object = transport.get_extra_info("ssl_object")
        chosen = ssl_object.selected_alpn_protocol() if ssl_object is not None else None
        protocol: asyncio.Protocol = H2Protocol(self._server, self._idle_timeout) if chosen == "h2" else self._http1()
        transport.set_protocol(protocol)
        protocol.connection_made(transport)

    def connection_lost(self, exc: BaseException | None) -> None:  # (closed before the handshake ended)
        pass
