"""Request heads Go 1.24's net/http reads and llhttp (aiohttp's C request parser) refuses whatever its flags, rewritten
into the head llhttp reads as Go reads the original, for `connection.py` to parse again once llhttp refused it.

Go reads (net/http/transfer.go `readTransfer`, request.go `readRequest`):
- two or more equal `Content-Length`s (`fixLength`: values compared after `textproto.TrimString`, the duplicates
  removed, go.dev/issue/16490), where llhttp refuses any second one (`Duplicate Content-Length`); differing ones are
  Go's plain error too (the bare 400), so they are left to llhttp's refusal;
- any `Content-Length` (not a number, repeated, differing) in an HTTP/1.1 request with a `Transfer-Encoding`
  (`parseTransferEncoding` runs first: the 501 for one other than a single `chunked`, else the Content-Length is
  deleted unread), where llhttp checks its digits and counts it before it knows the body is chunked; the
  `Transfer-Encoding` itself is then judged as for any head (`connection.py`);
- a request target with a raw byte above 0x7f (`url.ParseRequestURI` refuses only control bytes; the byte is in
  `URL.Path` as a `%`-escape would have put it there, and in `RawQuery` as sent), where llhttp's URL alphabet is
  ASCII (`Invalid char in url path`/`query`). The byte is written `%XX` for llhttp, and the request's target
  (aiohttp's `message.path`, the raw target the query and proxies read) is given back as sent.

Only an origin-form target (`/...`) of HTTP/1.0 or 1.1 is rewritten, and only a head whose lines all end in CRLF;
anything else keeps llhttp's refusal (the bare 400). `IDLE` is llhttp's state between requests, read through
`ctypes` as `chunked_length.py` reads the parser (proven at import on a throwaway parser): `connection.py` parses a
refused read again only when the read began a request, so a body's bytes are never taken for a head.
"""
from __future__ import annotations

import asyncio
import ctypes
import re
from typing import Any, NamedTuple

from . import chunked_length

_CURRENT_OFFSET = 56  # llhttp_t: ..., `void* data` (48), then `void* _current`: the state it resumes in
_HIGH = re.compile(rb"[\x80-\xff]")
VERSIONS = (b"HTTP/1.0", b"HTTP/1.1")


class Repaired(NamedTuple):
    """The read with its first head rewritten, and the target as sent (aiohttp's decoding) when it was escaped."""

    data: bytes
    target: str | None


def repair(read: bytes) -> Repaired | None:
    """`read` (beginning a request) with its first head rewritten as llhttp reads what Go reads, or None when that
    head is not complete in it or there is nothing llhttp refuses that Go reads."""
    end = read.find(b"\r\n\r\n")
    if end < 0:
        return None
    lines = read[:end].split(b"\r\n")
    parts = lines[0].split(b" ")
    if len(parts) != 3 or not parts[1].startswith(b"/") or parts[2] not in VERSIONS:
        return None
    method, target, version = parts
    escaped = escape(target)
    lengths: list[int] = []
    encoded = False
    for i, line in enumerate(lines[1:], 1):
        name, colon, value = line.partition(b":")
        if not colon or line[:1] in (b" ", b"\t"):  # not a field line llhttp reads: its refusal stays
            return None
        name = name.lower()
        if name == b"content-length":
            lengths.append(i)
        elif name == b"transfer-encoding":
            encoded = True
    drop: set[int] = set()
    if lengths and encoded and version == b"HTTP/1.1":  # parseTransferEncoding: chunked wins or the 501
        drop = set(lengths)
    elif len(lengths) > 1 and len({lines[i].partition(b":")[2].strip(b" \t") for i in lengths}) == 1:
        drop = set(lengths[1:])  # fixLength: equal values read as one
    if not drop and escaped == target:
        return None
    head = [b" ".join((method, escaped, version))] + [line for i, line in enumerate(lines[1:], 1) if i not in drop]
    return Repaired(b"\r\n".join(head) + read[end:],
                    target.decode("utf-8", "surrogateescape") if escaped != target else None)


def escape(target: bytes) -> bytes:
    """`target` with each byte above 0x7f `%`-escaped, as llhttp reads it and Go's `URL.Path` holds it."""
    return _HIGH.sub(lambda m: b"%%%02X" % m.group()[0], target)


def state_view(parser: Any) -> Any:
    """A view of an aiohttp C request parser's llhttp state (its `.value` compared with `IDLE`), or None."""
    if IDLE is None:
        return None
    pointer = chunked_length.llhttp_pointer(parser)
    return None if pointer is None else ctypes.c_void_p.from_address(pointer + _CURRENT_OFFSET)


class _Quiet:
    """A protocol for a throwaway parser: every callback does nothing."""

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: None


def _idle_state() -> int | None:
    """llhttp's state between requests: a fresh parser's, the same after a whole request, another mid-line."""
    try:
        from aiohttp import _http_parser as cparser
    except ImportError:
        return None
    loop = asyncio.new_event_loop()
    try:
        parser = cparser.HttpRequestParser(_Quiet(), loop, 2 ** 16)
        pointer = chunked_length.llhttp_pointer(parser)
        if pointer is None:
            return None
        current = ctypes.c_void_p.from_address(pointer + _CURRENT_OFFSET)
        fresh = current.value
        parser.feed_data(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        after = current.value
        parser.feed_data(b"GET / HT")
        return fresh if fresh and fresh == after and current.value != fresh else None
    except Exception:  # noqa: BLE001 - any surprise: refusals stay refusals
        return None
    finally:
        loop.close()


IDLE = _idle_state()
QUIET = _Quiet()  # a protocol for parsers that only look at bytes

__all__ = ["IDLE", "QUIET", "VERSIONS", "Repaired", "escape", "repair", "state_view"]
