"""Repeated header fields read as Go's net/http reads them (Go 1.24: `textproto.Reader.ReadMIMEHeader` keeps every
value of a repeated field, `Header.Get` answers the first, so kube-apiserver reads the first `User-Agent`,
`Content-Type`, `Accept`, `Authorization`, ...).

aiohttp 3.14's C request parser (`_http_parser.pyx`, `SINGLETON_HEADERS`) refuses a second `User-Agent`,
`Content-Type`, `ETag`, `Server`, `Max-Forwards`, `Content-Location`, `Content-Range`, `Host` or `Transfer-Encoding`
unless the parser is lax, and lax there means nothing else: the flag is read only by that check (the response
parser's llhttp leniencies are set apart). The flag is a C field without a Python accessor, so `allow_repeated`
sets it through `ctypes`, at an offset found once and proven on a throwaway parser: the one int that is 0 in a
request parser and 1 in a (lax) response parser, which, once set, makes a request parser read a repeated
`User-Agent`. Where that cannot be found (the pure-Python parser, aiohttp's debug mode, another layout) parsers stay
strict: a repeated single-valued header is then the bare 400, as before.

Go's own refusals of repeated fields stay with the caller (`connection.py`, `go_answers.py`): several `Host`
(`readRequest` in net/http/request.go: `too many Host headers`, a plain error, so the bare 400) and several
`Transfer-Encoding` (`parseTransferEncoding` in net/http/transfer.go: 501). llhttp itself refuses a second
`Content-Length` even when equal, whatever its flags; `head_repair.py` reads equal ones as one, as Go's `fixLength`.
"""
from __future__ import annotations

import asyncio
import ctypes
import logging
import struct
from typing import Any

log = logging.getLogger("nsconform.reference_server.http")

_PROBE = b"GET / HTTP/1.1\r\nHost: a\r\nUser-Agent: one\r\nUser-Agent: two\r\n\r\n"


class _Quiet:
    """A protocol for a throwaway parser: every callback does nothing."""

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: None


def _ints(obj: Any, size: int) -> list[int]:
    return [v for (v,) in struct.iter_unpack("i", ctypes.string_at(id(obj), size - size % 4))]


def _find_offset() -> int | None:
    """The byte offset of the C parser's `_lax` flag, proven on a throwaway parser, or None."""
    try:
        from aiohttp import _http_parser as cparser
    except ImportError:  # AIOHTTP_NO_EXTENSIONS or no wheel: the pure-Python parser
        return None
    loop = asyncio.new_event_loop()
    try:
        request = cparser.HttpRequestParser(_Quiet(), loop, 2 ** 16)
        response = cparser.HttpResponseParser(_Quiet(), loop, 2 ** 16)
        size = min(type(request).__basicsize__, type(response).__basicsize__)
        strict, lax = _ints(request, size), _ints(response, size)
        header = object.__basicsize__ // 4  # never inside the object header
        found = [i * 4 for i in range(header, len(strict)) if strict[i] == 0 and lax[i] == 1]
        if len(found) != 1:
            return None
        probe = cparser.HttpRequestParser(_Quiet(), loop, 2 ** 16)
        ctypes.c_int.from_address(id(probe) + found[0]).value = 1
        messages, _, _ = probe.feed_data(_PROBE)
        if len(messages) == 1 and messages[0][0].headers.getall("User-Agent") == ["one", "two"]:
            return found[0]
        return None
    except Exception:  # noqa: BLE001 - any surprise: stay strict
        return None
    finally:
        loop.close()


_OFFSET = _find_offset()
if _OFFSET is None:
    log.info("aiohttp's request parser stays strict: a repeated single-valued header is refused")


def allow_repeated(parser: Any) -> bool:
    """Make a fresh aiohttp C request parser read repeated single-valued headers; False when it cannot."""
    if _OFFSET is None or type(parser).__name__ != "HttpRequestParser" or type(parser).__module__ != \
            "aiohttp._http_parser":
        return False
    ctypes.c_int.from_address(id(parser) + _OFFSET).value = 1
    return True


SUPPORTED = _OFFSET is not None

__all__ = ["SUPPORTED", "allow_repeated"]
