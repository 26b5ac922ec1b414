"""The headers every answer of kube-apiserver's handler chain carries, whatever served it (`DefaultBuildHandlerChain`
in staging/src/k8s.io/apiserver/pkg/server/config.go):

- `Audit-Id` (`filters/audit_init.go`, `WithAuditInit`, the outermost filter): the request's own `Audit-ID` header
  echoed as is, else a new random UUID;
- `Cache-Control: no-cache, private` (`filters/cachecontrol.go`, `WithCacheControl`) unless the handler set its own
  (aggregated discovery's `public`, an OpenAPI document's `public, immutable`);
- no `Server` header: Go's net/http names no server (aiohttp adds one before the prepare hooks run).

Go writes header names in their canonical form (`textproto.CanonicalMIMEHeaderKey`), hence `Audit-Id`, and in
its order (`go_sorted`; `order_as_go` after aiohttp's prepare hooks): the handler's headers sorted by name (`Header.WriteSubset`), then
what net/http adds itself, `Date`, `Content-Length`, `Connection`, `Transfer-Encoding` (`chunkWriter.writeHeader`,
`extraHeader.Write`).
A connection-level answer (a request the HTTP parser refused) never reaches the chain, so it gets none of these:
http/connection.py answers it with a `BareResponse`.
"""
from __future__ import annotations

import os
import re
from operator import itemgetter
from typing import Any

from aiohttp import web
from multidict import istr

AUDIT_ID = istr("Audit-Id")
CACHE_CONTROL = istr("Cache-Control")
SERVER = istr("Server")
NO_CACHE = "no-cache, private"

_BATCH = 256
_ids: list[str] = []
_VERSION_4 = bytes((b & 0x0F) | 0x40 for b in range(256))  # byte 6: the version, 4, in its high nibble
_RFC_4122 = bytes((b & 0x3F) | 0x80 for b in range(256))   # byte 8: the variant, 10 in its two high bits
_GROUPS = re.compile("(.{8})(.{4})(.{4})(.{4})(.{12})")     # a UUID's 32 hex digits: 8-4-4-4-12


def _refill() -> None:
    """A batch of version-4 UUIDs (RFC 4122 text, as google/uuid's `uuid.New().String()`) from one read of the
    system's random source: one `os.urandom` per request would cost more than the rest of this hook. The version
    and variant bits are set in every UUID's bytes at once (`translate` of every 16th byte), the text cut by one
    regex pass: half the cost of formatting each one."""
    raw = bytearray(os.urandom(16 * _BATCH))
    raw[6::16] = raw[6::16].translate(_VERSION_4)
    raw[8::16] = raw[8::16].translate(_RFC_4122)
    _ids.extend("-".join(groups) for groups in _GROUPS.findall(raw.hex()))


def new_audit_id() -> str:
    """A fresh random audit ID."""
    if not _ids:
        _refill()
    return _ids.pop()


class BareResponse(web.Response):
    """An answer Go's `http.Server` writes itself, outside the handler chain (a malformed request's 400)."""


class DroppedAnswer(BareResponse):
    """No answer at all: where a handler panics, Go's server closes the HTTP/1.1 connection without writing what
    was buffered (http/connection.py writes its empty `wire`) and resets an HTTP/2 stream with `INTERNAL_ERROR`
    (x/net/http2 `handlerPanicRST`; http/h2/protocol.py)."""

    def __init__(self) -> None:
        super().__init__(status=500)
        self.wire = b""


def add_chain_headers(request: Any, response: Any) -> None:
    """The prepare hook (http/app.py): `Audit-Id`, the default `Cache-Control`, and no `Server`."""
    headers = response.headers
    if SERVER in headers:
        del headers[SERVER]
    if type(response) is BareResponse:
        return
    if CACHE_CONTROL not in headers:
        headers[CACHE_CONTROL] = NO_CACHE
    headers[AUDIT_ID] = request.headers.get(AUDIT_ID) or new_audit_id()


_NET_HTTP_ADDS = ("Date", "Content-Length", "Connection", "Transfer-Encoding")  # extraHeader.Write's order
_ADDED = frozenset(_NET_HTTP_ADDS)
GO_ORDER = itemgetter(0)  # the sort key of `go_sorted` (for a list sorted in place)


def go_sorted(items: Any) -> list[tuple[str, str]]:
    """The handler's headers as `Header.WriteSubset` writes them: sorted by name (stable: a repeated name, such as
    `Warning`, keeps its values' order)."""
    return sorted(items, key=GO_ORDER)


def order_as_go(request: Any, response: Any) -> None:
    """For an answer aiohttp's own writer sends (streamed, compressed, HEAD, ...), run after the prepare hooks:
    its headers in Go's order. aiohttp has added `Date` (and `Content-Length` or `Transfer-Encoding`) by then;
    they go last, in `extraHeader.Write`'s order. (http/fastwrite.py orders what it writes itself.)"""
    headers = response._headers
    items = headers.items()
    if _ADDED.isdisjoint(headers.keys()):
        ordered = go_sorted(items)
    else:
        ordered = go_sorted(kv for kv in items if kv[0] not in _ADDED)
        ordered += [(k, v) for name in _NET_HTTP_ADDS for k, v in items if k == name]
    headers.clear()
    headers.extend(ordered)


__all__ = ["AUDIT_ID", "BareResponse", "GO_ORDER", "NO_CACHE", "add_chain_headers", "go_sorted", "new_audit_id", "order_as_go"]
