"""exec and attach over WebSocket v5: kube-apiserver 1.33's stream translator (TranslateStreamCloseWebsocketRequests,
beta, on), as far as a cluster without a kubelet to speak SPDY to lets it go.

Follows `staging/src/k8s.io/apiserver/pkg/util/proxy/translatinghandler.go` (a WebSocket upgrade whose first
`Sec-WebSocket-Protocol` header lists `v5.channel.k8s.io`: `wsstream.IsWebSocketRequestWithStreamCloseProtocol`),
`streamtranslator.go` (the WebSocket accepted first, then the SPDY executor's failure written as a Status on the
error channel: `apierrors.NewInternalError(err)`) and `websocket.go` (`createWebSocketStreams`: channels 0-4, binary
frames whose first byte is the channel, an empty message on the lowest writable channel once open, the Status as
Go's `json.Marshal` of `metav1.Status`), over `client-go/tools/remotecommand` `spdy.go` + `apimachinery/pkg/util/
httpstream/spdy` (`Negotiate`: `error sending request: <*url.Error>`; a non-101 answer `unable to upgrade
connection: ...`). A kubelet that does upgrade is not spoken to (no SPDY here: README's Known gaps).
"""
from __future__ import annotations

import asyncio
import json
import ssl
from collections.abc import Mapping
from typing import Any

from aiohttp import web

from ..registry.podconnect import Location
from .proxying import DialError, dial, go_dial_error, is_upgrade_request

V5 = "v5.channel.k8s.io"
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
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(ch, esc)
    return text.encode()


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


__all__ = ["V5", "translate", "wants_translation"]
