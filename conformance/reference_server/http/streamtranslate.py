"""exec and attach over WebSocket v5: kube-apiserver 1.33's stream translator (TranslateStreamCloseWebsocketRequests,
beta, on), as far as a cluster without a kubelet to speak SPDY to lets it go; and portforward over WebSocket: its
stream tunnel (PortForwardWebsockets, beta, on), which carries the kubelet's SPDY bytes in binary messages.

Follows `staging/src/k8s.io/apiserver/pkg/util/proxy/translatinghandler.go` (a WebSocket upgrade whose first
`Sec-WebSocket-Protocol` header lists `v5.channel.k8s.io`: `wsstream.IsWebSocketRequestWithStreamCloseProtocol`),
`streamtranslator.go` (the WebSocket accepted first, then the SPDY executor's failure written as a Status on the
error channel: `apierrors.NewInternalError(err)`) and `websocket.go` (`createWebSocketStreams`: channels 0-4, binary
frames whose first byte is the channel, an empty message on the lowest writable channel once open, the Status as
Go's `json.Marshal` of `metav1.Status`), over `client-go/tools/remotecommand` `spdy.go` + `apimachinery/pkg/util/
httpstream/spdy` (`Negotiate`: `error sending request: <*url.Error>`; a non-101 answer `unable to upgrade
connection: ...`). A kubelet that does upgrade is not spoken to (no SPDY here: README's Known gaps). The tunnel
follows `streamtunnel.go` (`TunnelingHandler`: `SPDY/3.1+<protocol>.k8s.io` WebSocket protocols turned into a SPDY
POST to the kubelet through the upgrade-aware handler; its 101 checked for the SPDY upgrade headers, then the
WebSocket accepted with `SPDY/3.1+` and the kubelet's `X-Stream-Protocol-Version`; an error answer relayed raw)
and client-go's `portforward/tunneling_connection.go` (the bytes as binary messages, no framing of their own).
"""
from __future__ import annotations

import asyncio
import json
import ssl
from collections.abc import Mapping
from typing import Any

from aiohttp import WSMsgType, web
from multidict import CIMultiDict

from ..goport.gojsonhtml import escape_html
from ..registry.podconnect import Location
from .proxying import DialError, dial, go_dial_error, is_upgrade_request, upgrade

V5 = "v5.channel.k8s.io"
TUNNEL_PREFIX, K8S_SUFFIX = "SPDY/3.1+", ".k8s.io"
_WEBSOCKET_HEADERS = frozenset({"sec-websocket-protocol", "sec-websocket-key", "sec-websocket-version", "upgrade",
                                "x-stream-protocol-version"})
STDOUT, STDERR, ERROR = 1, 2, 3
_HEAD_LIMIT = 1 << 16


def wants_translation(headers: Any) -> bool:
    """`IsWebSocketRequestWithStreamCloseProtocol`: `Upgrade: websocket`, an upgrade `Connection`, and v5 among
    the first `Sec-WebSocket-Protocol` header's comma-separated protocols."""
    if headers.get("Upgrade", "").lower() != "websocket" or not is_upgrade_request(headers):
        return False
    return V5 in (p.strip() for p in headers.get("Sec-WebSocket-Protocol", "").strip().split(","))


def _go_status_json(status: Mapping[str, Any]) -> bytes:
    """`json.Marshal(metav1.Status)`: its fields in struct order, HTML characters escaped as Go does."""
    order = ("kind", "apiVersion", "metadata", "status", "message", "reason", "details", "code")
    text = json.dumps({k: status[k] for k in order if k in status}, separators=(",", ":"), ensure_ascii=False)
    return escape_html(text).encode()


async def _spdy_failure(loc: Location) -> str:
    """Why the SPDY executor's `Negotiate` with the kubelet fails here (its error's text)."""
    url = loc.url()
    try:
        reader, writer = await dial(loc)
    except (OSError, asyncio.TimeoutError, ssl.SSLError, DialError, UnicodeError, ValueError) as exc:
        return f'error sending request: Post "{url}": {go_dial_error(exc, loc)}'
    try:
        path = url.split("://", 1)[1]
        path = path[path.find("/"):] if "/" in path else "/"
        writer.write((f"POST {path} HTTP/1.1\r\nHost: {loc.hostport}\r\nUser-Agent: Go-http-client/1.1\r\n"
                      "Content-Length: 0\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n"
                      "X-Stream-Protocol-Version: v4.channel.k8s.io\r\n\r\n").encode())
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
        code = head.split(b" ", 2)[1].decode("latin-1") if head.count(b" ") >= 2 else "?"
        if code != "101":
            body = (await asyncio.wait_for(reader.read(_HEAD_LIMIT), 10)).decode("utf-8", "replace")
            return f"unable to upgrade connection: {body}"
        return "unable to upgrade connection: SPDY streams are not served by this server"
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, asyncio.TimeoutError, OSError):
        return f'error sending request: Post "{url}": EOF'
    finally:
        writer.close()


async def translate(request: web.Request, loc: Location, opts: Mapping[str, Any]) -> web.StreamResponse:
    """`StreamTranslatorHandler.ServeHTTP`: the WebSocket opened (v5), the lowest writable channel told so, then the
    SPDY side's failure as an InternalError Status on the error channel, and the connection closed."""
    ws = web.WebSocketResponse(protocols=(V5,), autoping=True)
    await ws.prepare(request)
    try:
        first = STDOUT if opts.get("stdout") else STDERR if opts.get("stderr") else ERROR
        await ws.send_bytes(bytes([first]))
        reason = await _spdy_failure(loc)
        status = {"metadata": {}, "status": "Failure", "message": f"Internal error occurred: {reason}",
                  "reason": "InternalError", "details": {"causes": [{"message": reason}]}, "code": 500}
        await ws.send_bytes(bytes([ERROR]) + _go_status_json(status))
    except (ConnectionError, RuntimeError):
        pass  # the client went away
    await ws.close()
    return ws


def _tunnelling(protocol: str) -> bool:
    return protocol.startswith(TUNNEL_PREFIX) and protocol.endswith(K8S_SUFFIX)


def wants_tunnel(headers: Any) -> bool:
    """`IsWebSocketRequestWithTunnelingProtocol`: a WebSocket upgrade whose first `Sec-WebSocket-Protocol` header
    lists a `SPDY/3.1+...k8s.io` protocol."""
    if headers.get("Upgrade", "").lower() != "websocket" or not is_upgrade_request(headers):
        return False
    return any(_tunnelling(p.strip()) for p in headers.get("Sec-WebSocket-Protocol", "").strip().split(","))


async def tunnel(request: web.Request, loc: Location) -> web.StreamResponse:
    """`TunnelingHandler.ServeHTTP`: the SPDY request the WebSocket one stands for, through the upgrade-aware
    handler (its dial failure the same 500), the WebSocket opened on the kubelet's 101."""
    protocols = [p.strip()[len(TUNNEL_PREFIX):] for v in request.headers.getall("Sec-WebSocket-Protocol", ())
                 for p in v.split(",") if _tunnelling(p.strip())]  # gwebsocket.Subprotocols
    if not protocols:
        return web.Response(status=400, text="unable to upgrade: no tunneling spdy protocols provided\n",
                            content_type="text/plain")
    headers = CIMultiDict((k, v) for k, v in request.headers.items() if k.lower() not in _WEBSOCKET_HEADERS)
    headers["Upgrade"] = "SPDY/3.1"
    for p in protocols:
        headers.add("X-Stream-Protocol-Version", p)

    async def switched(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, head: bytes) -> web.StreamResponse:
        fields = _head_fields(head)
        if "upgrade" not in fields.get("connection", "").lower() or "spdy/3.1" not in fields.get("upgrade", "").lower():
            return web.Response(status=500, text="unable to upgrade: missing upgrade headers in response\n",
                                content_type="text/plain")
        chosen = fields.get("x-stream-protocol-version", "").strip()
        ws = web.WebSocketResponse(protocols=(TUNNEL_PREFIX + chosen,) if chosen else ())
        await ws.prepare(request)
        await _join(ws, reader, writer)
        return ws

    return await upgrade(request, loc, method="POST", headers=headers, switched=switched)


def _head_fields(head: bytes) -> dict[str, str]:
    """A response head's header fields (the first of each name), by lower-cased name."""
    fields: dict[str, str] = {}
    for line in head.decode("latin-1").split("\r\n")[1:]:
        name, sep, value = line.partition(":")
        if sep:
            fields.setdefault(name.strip().lower(), value.strip())
    return fields


async def _join(ws: web.WebSocketResponse, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """The kubelet's bytes out as binary messages, the client's binary messages in as bytes, until either ends."""
    async def outward() -> None:
        while True:
            chunk = await reader.read(1 << 16)
            if not chunk:
                return
            await ws.send_bytes(chunk)

    async def inward() -> None:
        async for msg in ws:
            if msg.type != WSMsgType.BINARY:
                return  # "invalid message type received"
            writer.write(msg.data)
            await writer.drain()

    tasks = {asyncio.ensure_future(outward()), asyncio.ensure_future(inward())}
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for t in tasks:
            t.cancel()
        await ws.close()


__all__ = ["V5", "translate", "tunnel", "wants_translation", "wants_tunnel"]
