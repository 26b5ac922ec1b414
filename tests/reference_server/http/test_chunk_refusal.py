"""`http/chunk_refusal.py` and `connection.py`'s `_body_refused`: a chunked body llhttp refuses after its head was
read fails the handler's body read at once with net/http/internal/chunked.go's error, answered as
kube-apiserver answers a body read error (`limitedReadBody` → `scope.err` → `ErrorToAPIStatus`: a 500 Status
without a reason), and the connection closes after it, as Go's `conn.serve` closes it; before, the request waited
for the rest of its body until its 60 s timeout."""
from __future__ import annotations

import json

import pytest

from conformance.reference_server.http import chunk_refusal, chunked_end
from tests.reference_server.ownserver import own_server

from .rawhttp import connect, read_until_closed

server = own_server(flavor="bare")

BODY = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"chunk-refused"}}'
HEAD = (b"POST /api/v1/namespaces/default/configmaps?dryRun=All HTTP/1.1\r\nHost: x\r\n"
        b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n")
CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"


def _exchange(server, later: bytes) -> bytes:
    """The head and a good first chunk in one send, `later` in a second one after the server read them (its
    `100 Continue` says so); everything answered until the server closes (a short timeout: this used to hang)."""
    with connect(server) as conn:
        conn.settimeout(10)
        conn.sendall(HEAD + b"%x\r\n%s\r\n" % (10, BODY[:10]))
        got = b""
        while len(got) < len(CONTINUE):
            chunk = conn.recv(len(CONTINUE) - len(got))
            assert chunk, got
            got += chunk
        assert got == CONTINUE
        conn.sendall(later)
        try:
            return read_until_closed(conn)
        except TimeoutError:
            pytest.fail("the request still waits for its body")


@pytest.mark.skipif(not chunked_end.SUPPORTED, reason="llhttp's state is not reachable here")
@pytest.mark.parametrize("later, message", [
    (b"zz\r\n", "invalid byte in chunk length"),  # chunked.go refuses it too
    (b"%x\r\n%sXY" % (len(BODY) - 10, BODY[10:]), "malformed chunked encoding"),
    (b"%x \r\n%s\r\n0\r\n\r\n" % (len(BODY) - 10, BODY[10:]), "Invalid character in chunk size"),  # Go reads it
])
def test_a_refused_chunk_fails_the_body_read_at_once(server, later: bytes, message: str) -> None:
    answer = _exchange(server, later)
    head, _, out = answer.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    assert lines[0] == b"HTTP/1.1 500 Internal Server Error", answer[:400]
    assert b"Connection: close" in lines, answer[:400]
    assert json.loads(out) == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                               "message": message, "code": 500}


@pytest.mark.parametrize("reason, line, error", [
    ("Invalid character in chunk size", b"zz", "invalid byte in chunk length"),
    ("Invalid character in chunk size", b"", "empty hex number for chunk length"),
    ("Chunk size overflow", b"12345678901234567", "http chunk length too large"),
    ("Chunk size overflow", b"1234567890123456z", "invalid byte in chunk length"),
    ("Missing expected CR after chunk size", b"5\nhello", "chunked line ends with bare LF"),
    ("Expected LF after chunk size", b"5\r", "invalid CR in chunked line"),
    ("Expected LF after chunk data", b"helloXX", "malformed chunked encoding"),
    ("Invalid character in chunk size", b"5 ", None),  # chunked.go trims it
    ("Invalid character in chunk extensions name", b"5;a b", None),  # chunked.go drops the extension
    ("Invalid character in chunk size", b"5 ;x", "invalid byte in chunk length"),  # trimmed before the cut
])
def test_go_error(reason: str, line: bytes, error: str | None) -> None:
    assert chunk_refusal.go_error(reason, line) == error


def test_the_refused_line_is_read_from_aiohttps_message() -> None:
    assert chunk_refusal.refused_line("Invalid character in chunk size:\n\n  b'zz'\n    ^") == (
        "Invalid character in chunk size", b"zz")
    assert chunk_refusal.refused_line("odd") == ("odd", None)


@pytest.mark.skipif(not chunked_end.SUPPORTED, reason="llhttp's state is not reachable here")
def test_a_refused_chunk_of_a_body_already_answered_closes_the_connection(server) -> None:
    """Its handler answered without reading it (an unknown path's 404); its rest is drained, as Go's `writeHeader`
    discards it, until the refusal: then the connection closes, no second answer after it."""
    with connect(server) as conn:
        conn.settimeout(5)  # (aiohttp's drain of a body lasts up to 10 s)
        conn.sendall(HEAD.replace(b"/api/v1/namespaces/default/configmaps?dryRun=All", b"/chunk-refused")
                     + b"3\r\nabc\r\n")
        got = b""
        while b"\r\n\r\n" not in got.removeprefix(CONTINUE):  # the 404's head (after a 100 Continue, if any)
            chunk = conn.recv(65536)
            assert chunk, got
            got += chunk
        conn.sendall(b"zz\r\n")
        try:
            got += read_until_closed(conn)
        except TimeoutError:
            pytest.fail("the connection stays open")
    assert got.count(b"HTTP/1.1 ") - got.count(CONTINUE) == 1, got
    assert b"HTTP/1.1 404 " in got, got
