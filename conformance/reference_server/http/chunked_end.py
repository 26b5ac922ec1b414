"""Where a chunked body ends in a read that does not begin a request, for `connection.py` to read again, from
there, a read llhttp refused after that body (`head_pieces.plan`) or one that ended inside a next head: Go's one
`bufio.Reader` reads the body through net/http/internal/chunked.go's `chunkedReader` (the chunk-size line, its
extensions, the data and its CRLF, the last chunk's trailers up to the blank line) and the next request from the
byte after it, however the bytes were cut into reads.

llhttp keeps no count of a chunked body's bytes, and what it keeps of the framing (the chunk's bytes left, the
state it resumes in: inside the size line, an extension, a trailer) is opaque. So, while a chunked body arrives,
`state` copies the parser's `llhttp_t` before each read (88 bytes through a view made once per parser, ~200 ns,
only for reads of a chunked body), and, only when the read was refused or ended inside a next head, `end` puts
that copy into a throwaway parser made to be inside a chunked body (aiohttp's side then holds a body and a chunk,
as the copy's framing needs) and feeds it the read: it pauses at the body's `on_message_complete` (aiohttp's
`max_msg_queue_size`, at 1), and `llhttp_get_error_pos` says where. The body's end is thus llhttp's own, which
the connection's parser already applied; where llhttp refuses the body itself, the refusal stands. `SUPPORTED`
proves this once at import on throwaway parsers (cut inside a size line, an extension, the data, a trailer);
elsewhere such a read keeps its refusal.
"""
from __future__ import annotations

import ctypes
from typing import Any

from . import chunked_length, head_pieces, head_repair

# llhttp_t (llhttp.h `llhttp__internal_s`): _index, _span_pos0, _span_cb0, error, reason (to 40), error_pos (40),
# data (48), _current (56), content_length, type, method, http_major, http_minor, header_state, lenient_flags,
# upgrade, finish, flags, status_code, initial_message_completed (to 88, `head_pieces.STATE_SIZE`), then
# `settings`: all but `error_pos`, `data` and `settings` are the parsing state
_STATE_SIZE = head_pieces.STATE_SIZE
_BEFORE_ERROR_POS = 40
_CURRENT_OFFSET = 56
_INSIDE = b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n"  # a body and a chunk begun


def state(view: head_pieces.BodyView) -> bytes | None:
    """A copy of the parser's state while it reads a chunked body (`view.flags` says so), else None."""
    if view.flags.value & head_pieces._F_CHUNKED:
        return view.state.raw
    return None


def end(before: bytes, data: bytes, new_parser: head_pieces.NewParser) -> int | None:
    """Where in `data` the chunked body ends that a parser in state `before` (`state`) read `data` in; None when it
    does not end there or llhttp refuses it."""
    parser = new_parser(1)
    try:
        messages, _, _ = parser.feed_data(_INSIDE)
        pointer = chunked_length.llhttp_pointer(parser)
        if pointer is None or len(messages) != 1:
            return None
        payload = messages[0][1]
        ctypes.memmove(pointer, before, _BEFORE_ERROR_POS)
        ctypes.memmove(pointer + _CURRENT_OFFSET, before[_CURRENT_OFFSET:], _STATE_SIZE - _CURRENT_OFFSET)
        _, upgraded, _ = parser.feed_data(data)
    except Exception:  # noqa: BLE001 - llhttp (or aiohttp's side of the body) refuses it: the refusal stands
        return None
    if upgraded or not payload.is_eof():
        return None
    return head_pieces._end_of_first(parser, data)


def _proven() -> bool:
    """`end` finds a chunked body's end however a read before it cut the body (checked once, on throwaway parsers,
    as the connection's are made)."""
    import asyncio

    from aiohttp import _http_parser as cparser

    loop = asyncio.new_event_loop()
    try:
        def new(queue: int) -> Any:
            parser = cparser.HttpRequestParser(head_repair.QUIET, loop, 2 ** 16, max_msg_queue_size=queue)
            chunked_length.allow(parser)
            return parser

        head = b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n"
        body = b'3;e="x y"\r\nabc\r\n0\r\nT: t\r\n\r\n'
        after = b"GET / HTTP/1.1\r\nHost: a\r\n\r\n"
        for cut in (1, 5, 12, 20, len(body) - 1):  # the size line, an extension, the data, a trailer, the blank line
            parser = new(0)
            parser.feed_data(head + body[:cut])
            view = head_pieces.body_view(parser)
            copy = None if view is None else state(view)
            if copy is None or end(copy, body[cut:] + after, new) != len(body) - cut:
                return False
        return True
    except Exception:  # noqa: BLE001 - any surprise: a read after a chunked body keeps its refusal
        return False
    finally:
        loop.close()


SUPPORTED = head_pieces.BODY_LEFT and _proven()

__all__ = ["SUPPORTED", "end", "state"]
