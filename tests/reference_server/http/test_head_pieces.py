"""`http/head_pieces.py` and `http/connection.py`: a head llhttp refuses and Go 1.24's net/http reads
(`head_repair.py`) is read as Go reads it wherever it is in the connection's bytes, as Go's one `bufio.Reader`
(net/http/server.go `conn.serve` -> `readRequest`) never sees how they were cut into reads: sent in pieces (the
cut inside the repeated Content-Length, inside the raw byte's target), after another request in the same read, or
both; a request before a head Go refuses too is answered first."""
from __future__ import annotations

import json
import re
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from conformance.reference_server.http import head_pieces
from conformance.reference_server.http.connection import GuardedRequestHandler
from tests.reference_server.ownserver import own_server

from .rawhttp import connect, read_until_closed

server = own_server(flavor="bare")

pytestmark = pytest.mark.skipif(not head_pieces.SUPPORTED, reason="llhttp's pause position is not reachable here")

BODY = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cl"},"data":{"a":"b"}}'
POST = b"POST /api/v1/namespaces/default/configmaps?dryRun=All HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
GET = b"GET /version HTTP/1.1\r\nHost: x\r\n\r\n"
CLOSE = b"Connection: close\r\n\r\n"


@pytest.fixture
def reads(monkeypatch) -> Iterator[threading.Semaphore]:
    """Released once for each read the server's connections take (their `data_received`), so that a test's next
    piece goes out only after the server read the one before: each piece is a read of its own."""
    taken = threading.Semaphore(0)
    original = GuardedRequestHandler.data_received

    def data_received(self: Any, data: bytes) -> None:
        try:
            original(self, data)
        finally:
            if data:
                taken.release()

    monkeypatch.setattr(GuardedRequestHandler, "data_received", data_received)
    yield taken


def _exchange(srv, pieces: list[bytes], reads: threading.Semaphore) -> bytes:
    """Send each piece as a read of its own, then read until the server closes."""
    with connect(srv) as conn:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for piece in pieces:
            conn.sendall(piece)
            assert reads.acquire(timeout=20), "the server did not read a piece"
        return read_until_closed(conn)


def _statuses(answer: bytes) -> list[bytes]:
    """The status lines of the answers, in order (an answer's body may end without a newline)."""
    return re.findall(rb"HTTP/1\.1 \d{3}[^\r]*(?=\r\n)", answer)


def _last_body(answer: bytes) -> bytes:
    return answer.rpartition(b"\r\n\r\n")[2]


def _lengths(n: int = len(BODY)) -> bytes:
    return b"Content-Length: %d\r\nContent-Length: %d\r\n" % (n, n)


def test_repeated_content_lengths_cut_inside_the_second(server, reads) -> None:
    head = POST + _lengths() + CLOSE
    cut = head.index(b"Content-Length", head.index(b"Content-Length") + 1) + 9
    answer = _exchange(server, [head[:cut], head[cut:], BODY], reads)
    assert _statuses(answer) == [b"HTTP/1.1 201 Created"]
    assert json.loads(_last_body(answer))["data"] == {"a": "b"}


def test_a_content_length_beside_chunked_in_one_byte_reads(server, reads) -> None:
    head = POST + b"Transfer-Encoding: chunked\r\nContent-Length: x\r\n" + CLOSE
    body = b"%x\r\n%s\r\n0\r\n\r\n" % (len(BODY), BODY)
    cut = head.index(b"Content-Length: x") + 16
    pieces = [head[:cut - 3], head[cut - 3:cut - 2], head[cut - 2:cut - 1], head[cut - 1:cut], head[cut:] + body]
    answer = _exchange(server, pieces, reads)
    assert _statuses(answer) == [b"HTTP/1.1 201 Created"]


def _namespace_answers(srv, reads, name: bytes, cut: int) -> tuple[bytes, bytes]:
    """The answer to GET of namespace `name` sent in two pieces cut at `cut`, and to its `%`-escaped spelling."""
    head = b"GET /api/v1/namespaces/%s HTTP/1.1\r\nHost: x\r\n" + CLOSE
    pieces = head % name
    escaped = head % b"".join(b"%%%02X" % c if c > 0x7f else bytes([c]) for c in name)
    return _exchange(srv, [pieces[:cut], pieces[cut:]], reads), _exchange(srv, [escaped], reads)


@pytest.mark.parametrize("cut", [len(b"GET /api/v1/namespaces/a\xff"), len(b"GET /api/v1/namespaces/a")])
def test_a_raw_byte_target_cut_inside_or_before_the_byte(server, reads, cut: int) -> None:
    sent, escaped = _namespace_answers(server, reads, b"a\xffb", cut)
    assert _statuses(sent) == [b"HTTP/1.1 404 Not Found"] and _last_body(sent) == _last_body(escaped)


def test_a_repeated_length_after_another_request_in_the_same_read(server, reads) -> None:
    answer = _exchange(server, [GET + POST + _lengths() + CLOSE + BODY], reads)
    assert _statuses(answer) == [b"HTTP/1.1 200 OK", b"HTTP/1.1 201 Created"]


def test_a_raw_byte_after_two_requests_and_cut(server, reads) -> None:
    """The head begins after two whole requests in one read and ends in the next: the first read is refused."""
    rest = b"GET /api/v1/namespaces/a\xffb HTTP/1.1\r\nHost: x\r\n" + CLOSE
    answer = _exchange(server, [GET + GET + rest[:30], rest[30:]], reads)
    assert _statuses(answer) == [b"HTTP/1.1 200 OK", b"HTTP/1.1 200 OK", b"HTTP/1.1 404 Not Found"]
    escaped = _exchange(server, [rest.replace(b"\xff", b"%FF")], reads)
    assert _last_body(answer) == _last_body(escaped)


def test_a_repeated_length_after_a_request_cut_before_it_is_refused(server, reads) -> None:
    """The head begins after a whole request and the read ends inside it before llhttp refuses anything: its
    bytes are kept for the read that is refused."""
    head = POST + _lengths() + CLOSE
    cut = head.index(b"Content-Length", head.index(b"Content-Length") + 1) + 3
    answer = _exchange(server, [GET + head[:cut], head[cut:] + BODY], reads)
    assert _statuses(answer) == [b"HTTP/1.1 200 OK", b"HTTP/1.1 201 Created"]


def test_a_head_go_refuses_after_a_request_gets_its_400_after_that_answer(server, reads) -> None:
    answer = _exchange(server, [GET + POST + _lengths(3)[:-2] + b"Content-Length: 4\r\n" + CLOSE + b"abcd"], reads)
    assert _statuses(answer) == [b"HTTP/1.1 200 OK", b"HTTP/1.1 400 Bad Request"]
    assert answer.endswith(b"\r\nConnection: close\r\n\r\n400 Bad Request")


def test_a_held_head_with_a_line_go_refuses_is_refused_at_that_line(server, reads) -> None:
    """A refused head is held only while it may still be one Go reads: a bad field line ends it at once."""
    with connect(server) as conn:
        conn.sendall(b"GET /a\xff HTTP/1.1\r\nHost: x\r\nBad Line\r\n")  # no blank line: the head is not whole
        out = b""
        while chunk := conn.recv(65536):
            out += chunk
    assert _statuses(out) == [b"HTTP/1.1 400 Bad Request"]


def test_a_held_head_past_the_budget_is_gos_431(server, reads) -> None:
    filler = b"X-Filler: " + b"a" * 60000 + b"\r\n"
    with connect(server) as conn:
        conn.sendall(b"GET /a\xff HTTP/1.1\r\nHost: x\r\n")
        try:
            for _ in range(20):
                conn.sendall(filler)
        except (BrokenPipeError, ConnectionResetError):
            pass
        out = read_until_closed(conn)
    assert _statuses(out) == [b"HTTP/1.1 431 Request Header Fields Too Large"]


def test_a_repeated_length_after_a_rewritten_head_cut_before_it_is_refused(server, reads) -> None:
    """The first read is refused and read again rewritten, and ends inside a next head that its next read makes
    one llhttp refuses: that head is read with the bytes the fresh parser was fed."""
    head = POST + _lengths() + CLOSE
    cut = head.index(b"Content-Length", head.index(b"Content-Length") + 1) + 3
    first = b"GET /version HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n"
    answer = _exchange(server, [first + head[:cut], head[cut:] + BODY], reads)
    assert _statuses(answer) == [b"HTTP/1.1 200 OK", b"HTTP/1.1 201 Created"]


def _post_head(length: int = len(BODY)) -> bytes:
    return POST + b"Content-Length: %d\r\n\r\n" % length


def test_a_repeated_length_after_a_body_and_a_request_in_the_read_that_ends_the_body(server, reads) -> None:
    """The read does not begin a request: it ends a Content-Length body (llhttp's `content_length` says how many
    of its bytes are the body's), then the requests after it are read as Go reads them."""
    answer = _exchange(server, [_post_head(), BODY + GET + POST + _lengths() + CLOSE + BODY], reads)
    assert _statuses(answer) == [b"HTTP/1.1 201 Created", b"HTTP/1.1 200 OK", b"HTTP/1.1 201 Created"]


def test_a_raw_byte_target_after_a_body_cut_inside_the_target(server, reads) -> None:
    rest = b"GET /api/v1/namespaces/a\xffb HTTP/1.1\r\nHost: x\r\n" + CLOSE
    answer = _exchange(server, [_post_head(), BODY + rest[:25], rest[25:]], reads)
    assert _statuses(answer) == [b"HTTP/1.1 201 Created", b"HTTP/1.1 404 Not Found"]


def test_a_repeated_length_after_a_body_cut_before_it_is_refused(server, reads) -> None:
    head = POST + _lengths() + CLOSE
    cut = head.index(b"Content-Length", head.index(b"Content-Length") + 1) + 3
    answer = _exchange(server, [_post_head(), BODY + head[:cut], head[cut:] + BODY], reads)
    assert _statuses(answer) == [b"HTTP/1.1 201 Created", b"HTTP/1.1 201 Created"]


CHUNKED = POST + b"Transfer-Encoding: chunked\r\n\r\n"
_HALF = len(BODY) // 2
CHUNKED_BODIES = {  # net/http/internal/chunked.go reads each to its end
    "one chunk": b"%x\r\n%s\r\n0\r\n\r\n" % (len(BODY), BODY),
    "trailers": b"%x\r\n%s\r\n0\r\nX-Trailer: a\r\nX-Other: b\r\n\r\n" % (len(BODY), BODY),
    "extensions": b'%x;name=value;q="a b"\r\n%s\r\n%x;x\r\n%s\r\n0;last=1\r\n\r\n'
                  % (_HALF, BODY[:_HALF], len(BODY) - _HALF, BODY[_HALF:]),
    "zero-length final chunk only": b"0\r\n\r\n",
}
REFUSED_AFTER = {  # heads llhttp refuses and Go reads (`head_repair`), with what they get
    "two equal Content-Lengths": (POST + _lengths() + CLOSE + BODY, b"HTTP/1.1 201 Created"),
    "a raw byte in the target": (b"GET /api/v1/namespaces/a\xffb HTTP/1.1\r\nHost: x\r\n" + CLOSE,
                                 b"HTTP/1.1 404 Not Found"),
}


def _chunked_status(srv, reads, body: bytes) -> bytes:
    """What the chunked POST alone gets (a ConfigMap created; the empty body's error)."""
    [status] = _statuses(_exchange(srv, [CHUNKED[:-2] + CLOSE + body], reads))
    return status


@pytest.mark.parametrize("refused", REFUSED_AFTER)
@pytest.mark.parametrize("body", CHUNKED_BODIES)
def test_a_refused_head_after_a_chunked_body_in_the_read_that_ends_it(server, reads, body: str, refused: str) -> None:
    """The read does not begin a request: it ends a chunked body (where, llhttp's state before the read says,
    `chunked_end`), then a head llhttp refuses follows, with a whole request between them or not."""
    chunks = CHUNKED_BODIES[body]
    head, status = REFUSED_AFTER[refused]
    first = _chunked_status(server, reads, chunks)
    cut = len(chunks) // 2
    answer = _exchange(server, [CHUNKED + chunks[:cut], chunks[cut:] + head], reads)
    assert _statuses(answer) == [first, status]
    answer = _exchange(server, [CHUNKED + chunks[:cut], chunks[cut:] + GET + head], reads)
    assert _statuses(answer) == [first, b"HTTP/1.1 200 OK", status]
    answer = _exchange(server, [CHUNKED + chunks + GET + head], reads)  # one read, which begins a request
    assert _statuses(answer) == [first, b"HTTP/1.1 200 OK", status]


@pytest.mark.parametrize("cut", [1, 3, len(b"%x;name=value;q=" % _HALF) + 2, len(CHUNKED_BODIES["extensions"]) - 1])
def test_a_refused_head_after_a_chunked_body_cut_anywhere(server, reads, cut: int) -> None:
    """Cut inside a chunk size, an extension's name, a quoted extension value, before the body's last byte."""
    chunks = CHUNKED_BODIES["extensions"]
    head, status = REFUSED_AFTER["a raw byte in the target"]
    answer = _exchange(server, [CHUNKED + chunks[:cut], chunks[cut:] + GET + GET + head], reads)
    assert _statuses(answer) == [b"HTTP/1.1 201 Created", b"HTTP/1.1 200 OK", b"HTTP/1.1 200 OK", status]


_LENGTHS_HEAD = POST + _lengths() + CLOSE
_RAW_HEAD = REFUSED_AFTER["a raw byte in the target"][0]


@pytest.mark.parametrize("head, cut, status", [
    (_LENGTHS_HEAD + BODY, _LENGTHS_HEAD.index(b"Content-Length", _LENGTHS_HEAD.index(b"Content-Length") + 1) + 3,
     b"HTTP/1.1 201 Created"),  # refused in the next read
    (_RAW_HEAD, _RAW_HEAD.index(b"\xff") + 3, b"HTTP/1.1 404 Not Found"),  # refused in this one, held till whole
])
@pytest.mark.parametrize("between", [b"", GET])
def test_a_refused_head_after_a_chunked_body_begun_in_that_read_and_ended_in_the_next(
        server, reads, between: bytes, head: bytes, cut: int, status: bytes) -> None:
    """The read that ends a chunked body ends inside a next head that llhttp refuses, in that read or the next:
    its bytes from after the body on are read as Go reads them."""
    chunks = CHUNKED_BODIES["trailers"]
    answer = _exchange(server, [CHUNKED + chunks[:10], chunks[10:] + between + head[:cut], head[cut:]], reads)
    assert _statuses(answer) == [b"HTTP/1.1 201 Created"] + [b"HTTP/1.1 200 OK"] * bool(between) + [status]


def test_requests_after_a_chunked_body_with_nothing_refused_are_read_once(server, reads) -> None:
    """Nothing refused: a chunked body's end (not looked for), pipelined requests after it, then a chunked body
    cut in its trailers, and keep-alive on."""
    chunks = CHUNKED_BODIES["trailers"]
    cut = chunks.index(b"X-Other") + 2
    pieces = [CHUNKED + chunks[:10], chunks[10:] + GET + CHUNKED + chunks[:cut], chunks[cut:] + GET[:-2] + CLOSE]
    answer = _exchange(server, pieces, reads)
    assert _statuses(answer) == [b"HTTP/1.1 201 Created", b"HTTP/1.1 200 OK", b"HTTP/1.1 201 Created",
                                 b"HTTP/1.1 200 OK"]


def test_a_head_go_refuses_too_after_a_chunked_body_gets_its_400_after_the_answers_before_it(server, reads) -> None:
    chunks = CHUNKED_BODIES["one chunk"]
    refused = POST + _lengths(3)[:-2] + b"Content-Length: 4\r\n" + CLOSE + b"abcd"  # differing lengths: Go's 400 too
    answer = _exchange(server, [CHUNKED + chunks[:10], chunks[10:] + GET + refused], reads)
    assert _statuses(answer) == [b"HTTP/1.1 201 Created", b"HTTP/1.1 200 OK", b"HTTP/1.1 400 Bad Request"]
    assert answer.endswith(b"\r\nConnection: close\r\n\r\n400 Bad Request")


@pytest.fixture
def scratch() -> Iterator[Any]:
    """A factory of throwaway request parsers, as `head_pieces` is given them."""
    import asyncio

    from aiohttp import _http_parser as cparser

    from conformance.reference_server.http import (
        chunked_length,
        head_repair,
        repeated_headers,
    )

    loop = asyncio.new_event_loop()

    def new(queue: int) -> Any:
        parser = cparser.HttpRequestParser(head_repair.QUIET, loop, 2 ** 16, max_msg_queue_size=queue)
        repeated_headers.allow_repeated(parser)
        chunked_length.allow(parser)
        return parser

    yield new
    loop.close()


def test_frame_finds_the_refused_request_after_whole_ones(scratch) -> None:
    post = b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nGET"  # a body that reads as a method
    bad = b"GET /\xff HTTP/1.1\r\nHost: a\r\n\r\n"
    assert head_pieces.frame(GET + post + bad, scratch) == head_pieces.Frame(len(GET + post), 2, True)
    assert head_pieces.frame(GET + post + b"GET / HT", scratch) == head_pieces.Frame(len(GET + post), 2, False)
    assert head_pieces.frame(GET + post, scratch) is None


def test_plan_rewrites_each_refused_head_go_reads_and_holds_one_not_whole(scratch) -> None:
    bad = b"GET /\xff HTTP/1.1\r\nHost: a\r\n\r\n"
    plan = head_pieces.plan(GET + bad + GET + b"GET /\xfe", scratch)
    assert plan == head_pieces.Plan([GET, b"GET /%FF HTTP/1.1\r\nHost: a\r\n\r\n" + GET], {1: "/\udcff"}, b"GET /\xfe")
    refused = b"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab"  # Go's 400 too
    assert head_pieces.plan(GET + refused, scratch) == head_pieces.Plan([GET, refused], {}, None)


@pytest.mark.parametrize("pieces, done", [
    ([b"GET /\xff", b" HTTP/1.1\r\nHost: a\r\n", b"X: y\r\n"], False),
    ([b"GET /\xff", b" HTTP/1.1\r\nHost: a\r", b"\n\r\n"], True),  # whole
    ([b"GET /\xff HTTP/1.1\r\n", b"Bad Line\r\n"], True),  # a field line without a colon: Go's 400 now
    ([b"GET /\xff HTTP/1.1\r\n", b"B@d: x\r\n"], True),  # a name llhttp refuses even rewritten
    ([b"GET /\xff HTTP/1.1\r\n", b"Content-Length: 1\r\nContent-Length: 1\r\n"], False),  # `repair` drops them
    ([b"GET http://a/\xff HTTP/1.1\r\n"], True),  # not origin-form: `repair` keeps llhttp's refusal
])
def test_a_held_head_waits_for_its_blank_line_while_go_may_read_it(scratch, pieces: list[bytes],
                                                                    done: bool) -> None:
    held = head_pieces.HeldHead(scratch)
    assert [held.add(piece) for piece in pieces][-1] is done
