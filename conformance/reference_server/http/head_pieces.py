"""Where the requests in a read begin, and a head llhttp refused before it was whole, for `connection.py` to read
heads llhttp refuses and Go 1.24's net/http reads (`head_repair.py`) wherever they are in a connection's bytes:
after other requests in the same read, or in pieces over several reads.

Go reads a connection's requests one after another from one `bufio.Reader` (net/http/server.go `conn.serve` ->
`readRequest`, net/textproto `ReadLine`/`ReadMIMEHeader`): how the bytes were cut into reads never matters, and a
request it cannot read is answered after the ones before it. llhttp stops at the first byte it refuses, and aiohttp
then drops the requests it completed in that read. So, for bytes that begin a request:

- `frame` finds where the refused request begins: fresh parsers that pause after each request (aiohttp's own
  `max_msg_queue_size` pause, at 1), the pause's `llhttp_get_error_pos` giving the request's end;
- `body_left` says where, in a read that ends a Content-Length body, the next request begins (llhttp's
  `content_length` before the read; a chunked body's end is `chunked_end.py`'s);
- `plan` says how a fresh parser reads refused bytes that begin a request: the requests before the refused head,
  the head rewritten (`head_repair.repair`) when Go reads it, and so on after it;
- `HeldHead` holds the bytes of a refused head not yet whole (no `\\r\\n\\r\\n` yet), until it is, as Go's
  `ReadMIMEHeader` reads on until the blank line; its complete lines are checked as they come (the request line,
  then each field line, as `head_repair` will rewrite them, through a throwaway parser), so a line Go refuses too
  is refused when it is complete, not when the head is.

All of this runs only once a read was refused, or ended inside a head after whole requests: a request llhttp
reads costs nothing more.
"""
from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any, NamedTuple

from aiohttp.web_protocol import HttpProcessingError

from . import chunked_length, head_repair

NewParser = Callable[[int], Any]  # a fresh request parser with the given `max_msg_queue_size` (0: none)


class Frame(NamedTuple):
    """`start`: where the request llhttp stopped in begins; `before`: the requests complete before it;
    `refused`: whether llhttp refused that request (else the bytes ended inside it)."""

    start: int
    before: int
    refused: bool


def _error_pos_function() -> Any:
    lib = chunked_length._LIB
    if lib is None:
        return None
    try:
        function = lib.llhttp_get_error_pos
    except AttributeError:
        return None
    function.argtypes = [ctypes.c_void_p]
    function.restype = ctypes.c_void_p
    return function


_ERROR_POS = _error_pos_function()


def _end_of_first(parser: Any, data: bytes) -> int | None:
    """Where the first request of `data` ends, when `parser` (fresh, paused after each request) completed it."""
    pointer = chunked_length.llhttp_pointer(parser)
    if pointer is None or _ERROR_POS is None:
        return None
    position = _ERROR_POS(pointer)
    base = ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p).value  # `data`'s own bytes: feed_data reads them
    if position is None or base is None or not 0 < position - base <= len(data):
        return None
    return position - base


_CONTENT_LENGTH_OFFSET = 64  # llhttp_t: ..., `void* _current` (56), then `uint64_t content_length`: a body's bytes left
_FLAGS_OFFSET = 82  # ..., type, method, http_major, http_minor, header_state, lenient_flags, upgrade, finish, `flags`
_F_CHUNKED, _F_CONTENT_LENGTH, _F_TRANSFER_ENCODING = 0x8, 0x20, 0x200  # llhttp.h `llhttp_flags`


class BodyView(NamedTuple):
    """Views of an `llhttp_t`'s `flags` and `content_length`, made once per parser (`body_view`): read on each read
    of a body, they must cost next to nothing."""

    flags: Any
    left: Any
    state: Any  # the `llhttp_t`'s parsing state, `STATE_SIZE` bytes (`.raw`: `chunked_end.state` copies it)


STATE_SIZE = 88  # llhttp_t: every field before `void* settings` (`chunked_end.py` says which are state)


def _view(pointer: int) -> BodyView:
    return BodyView(ctypes.c_uint16.from_address(pointer + _FLAGS_OFFSET),
                    ctypes.c_uint64.from_address(pointer + _CONTENT_LENGTH_OFFSET),
                    (ctypes.c_char * STATE_SIZE).from_address(pointer))


def body_view(parser: Any) -> BodyView | None:
    """`parser`'s `BodyView`, or None where its layout is not proven (`BODY_LEFT`)."""
    pointer = chunked_length.llhttp_pointer(parser) if BODY_LEFT else None
    return None if pointer is None else _view(pointer)


def body_left(view: BodyView) -> int | None:
    """The bytes left of the Content-Length body (not chunked) a parser reads, or None: for a read that ends a
    body to be read from its next request on. Only meaningful while a request's body is arriving."""
    flags = view.flags.value
    if flags & (_F_CHUNKED | _F_TRANSFER_ENCODING) or not flags & _F_CONTENT_LENGTH:
        return None
    return view.left.value or None


def frame(data: bytes, new_parser: NewParser) -> Frame | None:
    """Where, in `data` (which begins a request), the request llhttp refuses or does not see the end of begins;
    None when llhttp reads all of `data` as whole requests, or where this cannot be known (an upgrade, no
    `ctypes` view of the parser)."""
    start = before = 0
    while start < len(data):
        rest = data[start:] if start else data
        parser = new_parser(1)
        try:
            messages, upgraded, _ = parser.feed_data(rest)
        except HttpProcessingError:
            return Frame(start, before, True)
        if upgraded:
            return None
        if not messages or not messages[-1][1].is_eof():  # the bytes end inside this request
            return Frame(start, before, False)
        end = _end_of_first(parser, rest)
        if end is None:
            return None
        start += end
        before += 1
    return None


def _proven() -> bool:
    """`frame` reads llhttp's pause position as this aiohttp leaves it (checked once, on throwaway parsers)."""
    import asyncio

    try:
        from aiohttp import _http_parser as cparser
    except ImportError:
        return False
    loop = asyncio.new_event_loop()
    try:
        def new(queue: int) -> Any:
            return cparser.HttpRequestParser(head_repair.QUIET, loop, 2 ** 16, max_msg_queue_size=queue)

        get = b"GET / HTTP/1.1\r\nHost: a\r\n\r\n"
        post = b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nab"
        return (frame(get + post + b"GET /\xff HTTP/1.1\r\n", new) == Frame(len(get + post), 2, True)
                and frame(get + b"GET / HTTP/1.1\r\nHo", new) == Frame(len(get), 1, False))
    except Exception:  # noqa: BLE001 - any surprise: refusals stay refusals
        return False
    finally:
        loop.close()


SUPPORTED = head_repair.IDLE is not None and _proven()


def _body_left_proven() -> bool:
    """`body_left` reads llhttp's `content_length` and `flags` where this aiohttp's llhttp keeps them."""
    import asyncio

    from aiohttp import _http_parser as cparser

    loop = asyncio.new_event_loop()
    try:
        def fed(data: bytes) -> tuple[int, int]:
            parser = cparser.HttpRequestParser(head_repair.QUIET, loop, 2 ** 16)
            parser.feed_data(data)
            pointer = chunked_length.llhttp_pointer(parser)
            if pointer is None:
                return -1, -1
            view = _view(pointer)
            return view.flags.value, view.left.value

        length = fed(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc")
        chunked = fed(b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n9\r\nab")
        return (length[1] == 7 and length[0] & (_F_CONTENT_LENGTH | _F_CHUNKED) == _F_CONTENT_LENGTH
                and chunked[0] & (_F_CONTENT_LENGTH | _F_CHUNKED) == _F_CHUNKED)
    except Exception:  # noqa: BLE001 - any surprise: a read that ends a body is not read again
        return False
    finally:
        loop.close()


BODY_LEFT = SUPPORTED and _body_left_proven()


class Plan(NamedTuple):
    """How a fresh parser reads bytes that begin a request as Go reads them: `pieces` fed to it in turn (each but the
    last ends where a request ends), the targets as sent of the requests whose heads were rewritten (by their index
    among the pieces' requests), and the bytes of a refused head not yet whole, `held` from the parser after them."""

    pieces: list[bytes]
    targets: dict[int, str]
    held: bytes | None


def plan(data: bytes, new_parser: NewParser) -> Plan:
    """`data` (which begins a request and which llhttp refused) with each refused head Go reads rewritten
    (`head_repair.repair`), the requests before a head Go refuses too kept apart from it (their answers go first),
    and a refused head not yet whole held."""
    pieces: list[bytes] = []
    targets: dict[int, str] = {}
    count = 0
    rewritten = False  # `data` begins with a head just rewritten: its refusal stands
    while True:
        found = frame(data, new_parser)
        if found is None or not found.refused:
            return Plan(pieces + [data], targets, None)
        head = data[found.start:]
        if found.start:
            pieces.append(data[:found.start])
        if b"\r\n\r\n" not in head:
            return Plan(pieces, targets, head)
        repaired = None if rewritten and not found.start else head_repair.repair(head)
        if repaired is None:
            return Plan(pieces + [head], targets, None)
        count += found.before
        if repaired.target is not None:
            targets[count] = repaired.target
        data, rewritten = repaired.data, True


class HeldHead:
    """The bytes of a head llhttp refused before its blank line, held from the parser until the head is whole
    (`add` then says so) or a complete line of it is one Go refuses too (`add` says so as well: the parser's own
    refusal is then the answer)."""

    def __init__(self, new_parser: NewParser) -> None:
        self.data = bytearray()
        self._checked = 0  # the bytes whose complete lines were checked
        self._checker = new_parser(0)
        self._first = True

    def add(self, more: bytes) -> bool:
        """Hold `more` too; True once the head is whole or cannot be read as Go reads it."""
        data = self.data
        seen = len(data)
        data += more
        if data.find(b"\r\n\r\n", max(0, seen - 3)) >= 0:
            return True
        end = data.rfind(b"\r\n")
        if end < self._checked:
            return False
        lines = bytes(data[self._checked:end]).split(b"\r\n")
        self._checked = end + 2
        return not all(self._line_read(line) for line in lines)

    def _line_read(self, line: bytes) -> bool:
        """Whether a complete line may still belong to a head `head_repair` makes readable: it is the request line or
        a field line `repair` keeps, and llhttp reads it as `repair` will rewrite it."""
        if b"\n" in line:  # a bare LF: `repair` keeps llhttp's refusal
            return False
        if self._first:
            self._first = False
            parts = line.split(b" ")
            if len(parts) != 3 or not parts[1].startswith(b"/") or parts[2] not in head_repair.VERSIONS:
                return False
            line = b" ".join((parts[0], head_repair.escape(parts[1]), parts[2]))
        else:
            name, colon, _ = line.partition(b":")
            if not colon or line[:1] in (b" ", b"\t"):
                return False
            if name.lower() == b"content-length":  # repeated or beside a Transfer-Encoding: `repair` drops it
                return True
        try:
            self._checker.feed_data(line + b"\r\n")
        except HttpProcessingError:
            return False
        return True


__all__ = ["BODY_LEFT", "SUPPORTED", "BodyView", "Frame", "HeldHead", "NewParser", "Plan", "body_left", "body_view", "frame",
           "plan"]
