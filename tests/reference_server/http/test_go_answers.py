"""`http/go_answers.py` and `http/connection.py`: what Go's net/http answers by itself, byte for byte, to a
request head it cannot read (`conn.serve`/`readRequest` in net/http/server.go), and the 1 MiB header budget
kube-apiserver sets (`MaxHeaderBytes`), which is also what a legitimate large header may use."""
from __future__ import annotations


import pytest

from conformance.reference_server.embedded import RunningServer
from conformance.reference_server.http import go_answers
from tests.reference_server.ownserver import own_server

from .rawhttp import ERROR_HEADERS
from .rawhttp import raw as _raw


server = own_server(flavor="bare")


def _go(public: bytes) -> bytes:
    return b"HTTP/1.1 " + public + ERROR_HEADERS + public


@pytest.mark.parametrize("head, answer", [
    (b"GET /version HTTP/1.1\r\n\r\n", _go(b"400 Bad Request: missing required Host header")),
    (b"GET /version HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", _go(b"400 Bad Request")),  # request.go: a plain error
    (b"GET /version HTTP/1.1\r\nHost: a b\r\n\r\n", _go(b"400 Bad Request: malformed Host header")),
    (b"GET /version HTTP/1.1\r\nHost: a\"b\r\n\r\n", _go(b"400 Bad Request: malformed Host header")),
    (b"GET /version HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n", _go(b"400 Bad Request")),
])
def test_unreadable_heads_get_gos_own_bytes(server, head, answer):
    assert _raw(server, head) == answer


@pytest.mark.parametrize("head", [
    b"GET /version HTTP/1.0\r\n\r\n",                                   # HTTP/1.0 needs no Host
    b"GET /version HTTP/1.1\r\nHost: [::1]:6443\r\nConnection: close\r\n\r\n",
    b"GET /version HTTP/1.1\r\nHost: k8s.example_x~!$&'()*+,;=%\r\nConnection: close\r\n\r\n",  # httpguts' set
])
def test_heads_go_reads_are_served(server, head):
    assert _raw(server, head).startswith((b"HTTP/1.1 200 ", b"HTTP/1.0 200 "))


def test_a_large_header_within_the_budget_is_served(server):
    """aiohttp's default 8 KiB line limit would refuse these; Go reads up to 1 MiB + 4 KiB of head."""
    big = b"x" * (go_answers.MAX_HEADER_BYTES - 20200)
    answer = _raw(server, b"GET /version?" + b"a" * 20000 + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                  b"X-Big: " + big + b"\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:200]


def test_many_headers_within_the_budget_are_served(server):
    """Go counts bytes, not headers (aiohttp's default allows 128)."""
    many = b"".join(b"Impersonate-Extra-K%d: v\r\n" % i for i in range(2000))
    answer = _raw(server, b"GET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-A: 1\r\n" + many + b"\r\n")
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:200]


@pytest.mark.parametrize("head", [
    b"GET /version HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * go_answers.HEADER_READ_LIMIT + b"\r\n\r\n",
    b"GET /version?" + b"a" * go_answers.HEADER_READ_LIMIT + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /version HTTP/1.1\r\nHost: x\r\n" + b"X-H: 0123456789abcdef\r\n" * 50000 + b"\r\n",
])
def test_a_head_over_the_budget_is_refused_431(server, head):
    assert _raw(server, head) == go_answers.TOO_LARGE == _go(b"431 Request Header Fields Too Large")


def test_a_large_body_is_not_counted_as_head(server):
    """The budget is the head's: a body of several MiB after it is read as a body (here: a JSON decoding error
    for the bytes, not a 431)."""
    body = b"[" + b"1," * (2 << 20) + b"1]"
    answer = _raw(server, b"POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                  b"Content-Type: application/json\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n"
                  + body)
    assert not answer.startswith(b"HTTP/1.1 431"), answer[:200]
    assert answer.startswith(b"HTTP/1.1 4"), answer[:200]


def test_the_server_serves_on_after_refusing(server):
    _raw(server, b"GET /version HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * go_answers.HEADER_READ_LIMIT + b"\r\n\r\n")
    assert _raw(server, b"GET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").startswith(b"HTTP/1.1 200")


def _head_of(size: int) -> bytes:
    start = b"GET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Pad: "
    return start + b"p" * (size - len(start) - 4) + b"\r\n\r\n"


def test_the_budget_is_the_heads_bytes_to_the_byte(server):
    """`initialReadLimitSize` bytes of head are read; one more is `errTooLarge`."""
    assert len(_head_of(go_answers.HEADER_READ_LIMIT)) == go_answers.HEADER_READ_LIMIT
    assert _raw(server, _head_of(go_answers.HEADER_READ_LIMIT)).startswith(b"HTTP/1.1 200 ")
    assert _raw(server, _head_of(go_answers.HEADER_READ_LIMIT + 1)) == go_answers.TOO_LARGE


@pytest.mark.parametrize("message, answer", [
    # a strict parser's (the pure-Python one's) words for what Go answers otherwise
    ("Duplicate 'Transfer-Encoding' header found.", go_answers.UNSUPPORTED_TE),
    ("Duplicate 'Host' header found.", _go(b"400 Bad Request")),
    ("Missing 'Host' header in request.", _go(b"400 Bad Request: missing required Host header")),
    ("Duplicate 'User-Agent' header found.", _go(b"400 Bad Request")),
])
def test_parser_refusals_in_gos_words(message, answer):
    from aiohttp.http_exceptions import BadHttpMessage

    assert go_answers.parser_refusal(BadHttpMessage(message)) == answer


@pytest.mark.parametrize("second, refused", [
    (b"GET /version HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", b"HTTP/1.1 400 Bad Request\r\n"),
    (b"GET /version HTTP/1.1\r\nHost: x y\r\n\r\n", b"HTTP/1.1 400 Bad Request: malformed Host header\r\n"),
    (b"GET /version HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", b"HTTP/1.1 501 Not Implemented\r\n"),
])
def test_a_head_after_one_that_passed_on_the_same_connection_is_checked_again(
        server: RunningServer, second: bytes, refused: bytes) -> None:
    """A head that repeats the connection's last good one passes at once (http/connection.py); any other is read
    whole again: the same request, then the refused one, on one connection."""
    first = b"GET /version HTTP/1.1\r\nHost: x\r\n\r\n"
    answer = _raw(server, first + first + second)
    assert answer.count(b"HTTP/1.1 200 OK\r\n") == 2
    assert refused in answer
