"""An answer whose body is already in memory, written in one piece: status line, headers and body in a single
`transport.write`, without aiohttp's `prepare` → `_start` → `_prepare_headers` → `_write_headers` →
`write_eof` chain of coroutines (about 7 µs of a GET's ~45 on this machine: `benchmarks/inproc.py`).

What goes on the wire is what that chain writes for the same answer, minus aiohttp's `Server` header (Go's
net/http sends none, http/chain_headers.py), in Go's net/http order: the handler's headers sorted by name, then
`Date` and `Content-Length`. Anything else takes aiohttp's own path: a streamed or compressed answer, a HEAD, a 204/304, an answer
that closes the connection, an HTTP/1.0 request, a connection that was upgraded, or an aiohttp whose internals
this module does not know (`SUPPORTED` is checked once, at import).
"""
from __future__ import annotations

from typing import Any

from aiohttp import HttpVersion11, hdrs, web
from aiohttp.helpers import rfc822_formatted_time
from multidict import CIMultiDict

from .chain_headers import GO_ORDER

try:  # the C serializer aiohttp's own writer uses (it refuses CR/LF in names and values)
    from aiohttp.http_writer import _serialize_headers
except ImportError:  # pragma: no cover - an aiohttp without it takes its own path
    _serialize_headers = None

_RESPONSE_FIELDS = ("_body", "_compression", "_chunked", "_cookies", "_keep_alive", "_payload_writer", "_status",
                    "_reason", "_headers", "_eof_sent", "_body_length")
SUPPORTED = _serialize_headers is not None and all(
    hasattr(web.Response(body=b""), name) for name in _RESPONSE_FIELDS)
_NO_BODY_STATUS = frozenset({204, 304})


class _Items(list):
    """Header pairs, with the `items()` `_serialize_headers` reads of a header mapping (the list itself)."""
    __slots__ = ()

    def items(self) -> list[tuple[str, str]]:
        return self


_LIMIT = 1 << 16  # a larger body goes through aiohttp's writer, which drains as it writes


def eligible(protocol: Any, request: Any, resp: Any) -> bool:
    """Can `resp` be written whole, here and now?"""
    body = resp._body
    return (type(resp) is web.Response and type(body) is bytes and len(body) <= _LIMIT
            and not resp._compression and not resp._chunked and not resp._cookies
            and resp._payload_writer is None and not resp._eof_sent
            and resp._status not in _NO_BODY_STATUS and request.version == HttpVersion11
            and request.method != hdrs.METH_HEAD and not protocol._upgraded
            and hdrs.CONTENT_LENGTH not in resp._headers and hdrs.TRANSFER_ENCODING not in resp._headers
            and (resp._keep_alive if resp._keep_alive is not None else request.keep_alive))


def write_whole(protocol: Any, request: Any, resp: Any) -> bool:
    """Write `resp` (`eligible`) to `protocol`'s transport; False when the connection had gone (aiohttp's
    `finish_response` "reset"). A plain function (no coroutine a request): the caller awaits the writer's drain
    when the transport is paused."""
    resp._keep_alive = True
    request.run_prepare_hooks(resp)  # the headers of the handler chain and of APF (http/app.py)
    body = resp._body
    items = _Items(resp._headers.items())
    items.sort(key=GO_ORDER)  # Go's order (`go_sorted`'s, in place): the handler's sorted, then Date and Content-Length
    items.append((hdrs.DATE, rfc822_formatted_time()))
    items.append((hdrs.CONTENT_LENGTH, str(len(body))))
    head = _serialize_headers(f"HTTP/1.1 {resp._status} {resp._reason}", items)
    transport = protocol.transport
    if transport is None or transport.is_closing():
        return False
    size = len(head) + len(body)
    request._payload_writer.output_size += size  # what `handle_error` asks: has the answer started?
    transport.write(head + body)
    resp._eof_sent = True
    resp._body_length = size
    return True


_JSON_TYPE = ((hdrs.CONTENT_TYPE, "application/json"),)
_new = object.__new__


def _built_json(body: bytes) -> web.Response:
    """`web.Response(body=body, content_type="application/json")`'s state, set directly: its `__init__` checks
    arguments a GET's answer never has wrong and costs about half a microsecond more."""
    resp = _new(web.Response)
    resp._state = {}
    resp._headers = CIMultiDict(_JSON_TYPE)
    resp._status = 200
    resp._reason = "OK"
    resp._body = body
    resp._compressed_body = None
    resp._zlib_executor_size = _ZLIB_SIZE
    resp._zlib_executor = None
    return resp


def _same_state(a: web.Response, b: web.Response) -> bool:
    va, vb = dict(vars(a)), dict(vars(b))
    return list(va.pop("_headers").items()) == list(vb.pop("_headers").items()) and va == vb


def _aiohttp_json(body: bytes) -> web.Response:
    return web.Response(body=body, content_type="application/json")


_ZLIB_SIZE = getattr(web.Response(body=b""), "_zlib_executor_size", None)
# the direct build only where it gives what aiohttp's own constructor gives (checked once, at import)
json_response = _built_json if _ZLIB_SIZE is not None and _same_state(_built_json(b"{}"), _aiohttp_json(b"{}")) \
    else _aiohttp_json


__all__ = ["SUPPORTED", "eligible", "json_response", "write_whole"]
