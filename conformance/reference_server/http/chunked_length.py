"""A request with both `Transfer-Encoding: chunked` and `Content-Length`, read as Go 1.24's net/http reads it
(net/http/transfer.go `parseTransferEncoding`: "the Transfer-Encoding overrides the Content-Length ... Reportedly,
these appear in the wild": the body is read chunked and the Content-Length header deleted).

llhttp, the parser inside aiohttp's C request parser, refuses such a request ("Content-Length can't be present
with Transfer-Encoding") unless its `lenient_chunked_length` flag is set, which aiohttp does not expose. So
`allow` calls `llhttp_set_lenient_chunked_length` (exported by aiohttp's `_http_parser` module) on the parser's
`llhttp_t`, a pointer found once in the Cython object and proven before use: the `llhttp_t`'s `data` field must
point back at the parser object (aiohttp's `_init` sets it so). Elsewhere (the pure-Python parser, another layout)
the request keeps being refused with the bare 400. `drop_length` removes the header from a parsed request, as Go
does, so no handler reads a length the body does not have.
"""
from __future__ import annotations

import asyncio
import ctypes
from typing import Any

from aiohttp.http_parser import RawRequestMessage
from multidict import CIMultiDict, CIMultiDictProxy

_POINTER = ctypes.sizeof(ctypes.c_void_p)
_PARSER_OFFSET = object.__basicsize__ + _POINTER  # HttpParser: PyObject_HEAD, __pyx_vtab, then `llhttp_t* _cparser`
_DATA_OFFSET = 48  # llhttp_t: _index, _span_pos0, _span_cb0, error, reason, error_pos, then `void* data`


def _library() -> Any:
    try:
        from aiohttp import _http_parser as cparser
    except ImportError:
        return None
    try:
        lib = ctypes.CDLL(cparser.__file__)
        lib.llhttp_set_lenient_chunked_length.argtypes = [ctypes.c_void_p, ctypes.c_int]
        lib.llhttp_set_lenient_chunked_length.restype = None
    except (OSError, AttributeError):
        return None
    return lib


_LIB = _library()


def llhttp_pointer(parser: Any) -> int | None:
    """The parser's `llhttp_t *`, when its `data` field proves it."""
    if _LIB is None or type(parser).__module__ != "aiohttp._http_parser":
        return None
    ptr = ctypes.c_void_p.from_address(id(parser) + _PARSER_OFFSET).value
    if not ptr or ctypes.c_void_p.from_address(ptr + _DATA_OFFSET).value != id(parser):
        return None
    return ptr


def allow(parser: Any) -> bool:
    """Make an aiohttp C request parser read a chunked body beside a Content-Length; False when it cannot."""
    ptr = llhttp_pointer(parser)
    if ptr is None:
        return False
    _LIB.llhttp_set_lenient_chunked_length(ptr, 1)
    return True


def drop_length(message: RawRequestMessage) -> RawRequestMessage:
    """`message` without its Content-Length headers (a chunked request's, which Go deletes)."""
    headers = CIMultiDictProxy(CIMultiDict((k, v) for k, v in message.headers.items() if k.lower() != "content-length"))
    raw = tuple((k, v) for k, v in message.raw_headers if k.lower() != b"content-length")
    return message._replace(headers=headers, raw_headers=raw)


def _supported() -> bool:
    from aiohttp import _http_parser as cparser

    loop = asyncio.new_event_loop()
    try:
        return llhttp_pointer(cparser.HttpRequestParser(None, loop, 2 ** 16)) is not None
    finally:
        loop.close()


SUPPORTED = _LIB is not None and _supported()

__all__ = ["SUPPORTED", "allow", "drop_length", "llhttp_pointer"]
