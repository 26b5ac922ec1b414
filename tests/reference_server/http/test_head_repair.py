"""`http/head_repair.py` and `http/connection.py`: heads Go 1.24's net/http reads and llhttp refuses whatever its
flags (equal Content-Lengths, `fixLength`; a Content-Length beside an HTTP/1.1 Transfer-Encoding, deleted unread by
`parseTransferEncoding`; a raw byte above 0x7f in the target, which `url.ParseRequestURI` keeps) are read again
rewritten, the target given back as sent; the ones Go refuses keep their answers."""
from __future__ import annotations

import json
import socket

import pytest

from conformance.reference_server.http import head_repair
from conformance.reference_server.http.head_repair import Repaired, repair
from tests.reference_server.ownserver import own_server

from .rawhttp import raw

server = own_server(flavor="bare")

needs_state = pytest.mark.skipif(head_repair.IDLE is None, reason="llhttp's state is not reachable here")

BODY = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cl"},"data":{"a":"b"}}'
POST = b"POST /api/v1/namespaces/default/configmaps?dryRun=All HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"


@pytest.mark.parametrize("read, repaired", [
    (b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\ncontent-length:  3 \r\n\r\nabc",
     Repaired(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc", None)),
    (b"POST / HTTP/1.0\r\nContent-Length: 1\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\na",
     Repaired(b"POST / HTTP/1.0\r\nContent-Length: 1\r\n\r\na", None)),
    (b"POST / HTTP/1.1\r\nContent-Length: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n0\r\n\r\n",
     Repaired(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", None)),
    (b"GET /a\xff/b?c=\xc3\xa9\xfe#\x80 HTTP/1.1\r\nHost: a\r\n\r\nGET /\xff HTTP/1.1\r\n",
     Repaired(b"GET /a%FF/b?c=%C3%A9%FE#%80 HTTP/1.1\r\nHost: a\r\n\r\nGET /\xff HTTP/1.1\r\n",
              "/a\udcff/b?c=é\udcfe#\udc80")),
])
def test_heads_go_reads_are_rewritten_as_llhttp_reads_them(read: bytes, repaired: Repaired) -> None:
    assert repair(read) == repaired


@pytest.mark.parametrize("read", [
    b"POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 03\r\n\r\nabc",  # differing: Go's error too
    b"POST / HTTP/1.0\r\nContent-Length: x\r\nTransfer-Encoding: chunked\r\n\r\n",  # 1.0: Go ignores the TE
    b"GET /a\xff HTTP/1.1\r\nHost: a\r\n",  # the head is not whole
    b"GET http://a/\xff HTTP/1.1\r\nHost: a\r\n\r\n",  # not origin-form
    b"GET /\xff HTTP/1.1\nHost: a\n\n",  # bare LFs
    b"GET /\xff HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: a\r\n\r\n",  # nothing to do
])
def test_other_heads_keep_llhttps_refusal(read: bytes) -> None:
    assert repair(read) is None


def _status_and_body(answer: bytes) -> tuple[bytes, bytes]:
    head, _, body = answer.partition(b"\r\n\r\n")
    return head.partition(b"\r\n")[0], body


@needs_state
@pytest.mark.parametrize("lengths", [
    b"Content-Length: %d\r\nContent-Length: %d\r\n" % (len(BODY), len(BODY)),
    b"Content-Length: %d\r\nContent-Length:  %d \r\nContent-Length: %d\r\n" % ((len(BODY),) * 3),
])
def test_equal_content_lengths_are_read_as_one(server, lengths: bytes) -> None:
    status, body = _status_and_body(raw(server, POST + lengths + b"Connection: close\r\n\r\n" + BODY))
    assert status == b"HTTP/1.1 201 Created" and json.loads(body)["data"] == {"a": "b"}


@needs_state
@pytest.mark.parametrize("lengths", [b"x", b"5\r\nContent-Length: 5", b"5\r\nContent-Length: 7", b""])
def test_any_content_length_beside_chunked_is_dropped_unread(server, lengths: bytes) -> None:
    head = POST + b"Transfer-Encoding: chunked\r\nContent-Length: %s\r\nConnection: close\r\n\r\n" % lengths
    status, body = _status_and_body(raw(server, head + b"%x\r\n%s\r\n0\r\n\r\n" % (len(BODY), BODY)))
    assert status == b"HTTP/1.1 201 Created" and json.loads(body)["data"] == {"a": "b"}


@needs_state
def test_another_transfer_encoding_beside_a_bad_length_is_gos_501(server) -> None:
    answer = raw(server, POST + b"Transfer-Encoding: gzip\r\nContent-Length: x\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 501 Not Implemented\r\n")


@needs_state
def test_differing_content_lengths_stay_the_bare_400(server) -> None:
    answer = raw(server, POST + b"Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd")
    assert answer.startswith(b"HTTP/1.1 400 Bad Request\r\n")


@needs_state
def test_a_raw_byte_in_the_target_is_read_as_its_escape_reads(server) -> None:
    """`URL.Path` and the query's values hold the byte as `%FF` would have put it there."""
    for target in (b"/api/v1/namespaces?limit=\xff", b"/api/v1/namespaces?limit=%FF"):
        status, body = _status_and_body(raw(server, b"GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                                            % target))
        assert status == b"HTTP/1.1 400 Bad Request"
        assert json.loads(body)["message"] == 'strconv.ParseInt: parsing "\\xff": invalid syntax'
    answers = [raw(server, b"GET /api/v1/namespaces/%s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % name)
               for name in (b"a\xff", b"a%FF")]
    assert _status_and_body(answers[0]) == _status_and_body(answers[1])


@needs_state
def test_the_connection_serves_on_after_a_repaired_head(server) -> None:
    get = b"GET /version HTTP/1.1\r\nHost: x\r\n\r\n"
    lengths = b"Content-Length: %d\r\nContent-Length: %d\r\n\r\n" % (len(BODY), len(BODY))
    answer = raw(server, POST + lengths + BODY + get + get.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n"))
    assert answer.startswith(b"HTTP/1.1 201 Created\r\n")
    assert answer.count(b"HTTP/1.1 200 OK\r\n") == 2  # the pipelined GETs, read by the fresh parser


@needs_state
def test_a_head_inside_a_body_is_never_taken_for_a_request(server) -> None:
    """A read that ends a body and holds a refused head does not begin a request (llhttp's state says so): the body,
    though it reads as a head llhttp refuses, is not parsed again as one; the head after it is (`head_pieces`)."""
    host, port = server.url.removeprefix("http://").split(":")
    refused = b"GET /version HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    body = b"GET /version HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\nContent-Length: %d\r\n\r\n" % (
        len(refused), len(refused))  # read as a head, a GET whose body is `refused`
    with socket.create_connection((host, int(port)), timeout=20) as conn:
        conn.sendall(POST + b"Expect: 100-continue\r\nContent-Length: %d\r\n\r\n" % len(body))
        assert conn.recv(65536) == b"HTTP/1.1 100 Continue\r\n\r\n"
        conn.sendall(body + refused)  # a body, then a head, in one read
        out = b""
        while chunk := conn.recv(65536):
            out += chunk
    first, _, second = out.partition(b"HTTP/1.1 200 OK\r\n")  # the POST's Status (its body is no JSON), /version's
    assert first.startswith(b"HTTP/1.1 400 Bad Request\r\n") and b'"kind":"Status"' in first
    assert second and b"HTTP/1.1 " not in second
