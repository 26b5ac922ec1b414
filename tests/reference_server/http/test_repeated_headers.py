"""`http/repeated_headers.py` and `http/connection.py`: repeated header fields over HTTP/1.1, as Go 1.24's net/http
reads them (`textproto.ReadMIMEHeader` keeps every value; kube-apiserver reads the first with `Header.Get`: the
`User-Agent`, the `Content-Type` its `NegotiateInputSerializer` decodes, the `Accept` of `NegotiateOutputMediaType`,
the bearer authenticator's `Authorization`) and as it refuses them (request.go `readRequest`: several Host, the
bare 400; transfer.go `parseTransferEncoding`: 501; `fixLength`: differing Content-Length, the bare 400). Each
answer below is what a Go net/http server wrote to the same bytes."""
from __future__ import annotations

import json

import pytest

from conformance.reference_server.http import repeated_headers
from tests.reference_server.ownserver import own_server

from .rawhttp import ERROR_HEADERS
from .rawhttp import raw as _raw

BARE_400 = b"HTTP/1.1 400 Bad Request" + ERROR_HEADERS + b"400 Bad Request"
TE_501 = b"HTTP/1.1 501 Not Implemented" + ERROR_HEADERS + b"Unsupported transfer encoding"
TOKEN = "repeated-headers-token"

pytestmark = pytest.mark.skipif(not repeated_headers.SUPPORTED, reason="aiohttp's parser could not be made to read "
                                "repeated headers here (pure-Python parser or debug mode)")


server = own_server(flavor="bare", token=TOKEN)


def _status_and_body(answer: bytes) -> tuple[bytes, bytes, bytes]:
    head, _, body = answer.partition(b"\r\n\r\n")
    return head.split(b"\r\n", 1)[0], head, body


AUTH = f"Authorization: Bearer {TOKEN}\r\n".encode()


@pytest.mark.parametrize("repeated", [
    b"User-Agent: one\r\nUser-Agent: two\r\n",
    (b"ETag: a\r\nETag: b\r\nServer: x\r\nServer: y\r\nMax-Forwards: 1\r\nMax-Forwards: 2\r\n"
     b"Content-Location: /a\r\nContent-Location: /b\r\nContent-Range: x\r\nContent-Range: y\r\n"),
])
def test_repeated_single_valued_headers_are_read(server, repeated):
    status, _, _ = _status_and_body(_raw(server, b"GET /version HTTP/1.1\r\nHost: x\r\n" + AUTH + repeated +
                                         b"Connection: close\r\n\r\n"))
    assert status == b"HTTP/1.1 200 OK"


def test_the_first_content_type_decodes_the_body(server):
    body = b"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: repeated-ct\n"
    answer = _raw(server, b"POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n" + AUTH +
                  b"Content-Type: application/yaml\r\nContent-Type: application/json\r\n"
                  b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
    status, _, out = _status_and_body(answer)
    assert status == b"HTTP/1.1 201 Created", answer[:400]
    assert json.loads(out)["metadata"]["name"] == "repeated-ct"


def test_the_first_accept_chooses_the_answer(server):
    status, head, out = _status_and_body(_raw(
        server, b"GET /api/v1/namespaces/default HTTP/1.1\r\nHost: x\r\n" + AUTH +
        b"Accept: application/yaml\r\nAccept: application/json\r\nConnection: close\r\n\r\n"))
    assert status == b"HTTP/1.1 200 OK"
    assert b"\r\nContent-Type: application/yaml\r\n" in head
    assert out.startswith(b"apiVersion: v1\nkind: Namespace\n")  # (go-yaml sorts keys)


@pytest.mark.parametrize("first, second, status", [
    (TOKEN, "wrong", b"HTTP/1.1 200 OK"),
    ("wrong", TOKEN, b"HTTP/1.1 401 Unauthorized"),
])
def test_the_first_authorization_authenticates(server, first, second, status):
    answer = _raw(server, b"GET /api/v1/namespaces/default HTTP/1.1\r\nHost: x\r\n"
                  b"Authorization: Bearer %s\r\nAuthorization: Bearer %s\r\nConnection: close\r\n\r\n"
                  % (first.encode(), second.encode()))
    assert _status_and_body(answer)[0] == status


@pytest.mark.parametrize("head, answer", [
    # readRequest: `too many Host headers` is a plain error: the bare 400, even for equal values
    (b"GET /version HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", BARE_400),
    (b"GET /version HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", BARE_400),
    # fixLength: differing Content-Length values
    (b"POST /api/v1/namespaces HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}", BARE_400),
    # parseTransferEncoding: more than one field, or one that is not `chunked`
    ((b"POST /api/v1/namespaces HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked"
      b"\r\n\r\n0\r\n\r\n"), TE_501),
    ((b"POST /api/v1/namespaces HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked"
      b"\r\n\r\n0\r\n\r\n"), TE_501),
    (b"POST /api/v1/namespaces HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", TE_501),
    (b"POST /api/v1/namespaces HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", TE_501),
])
def test_repeated_headers_go_refuses(server, head, answer):
    assert _raw(server, head) == answer


def test_one_chunked_transfer_encoding_in_any_case_is_read(server):
    body = b'{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"repeated-te"}}'
    answer = _raw(server, b"POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n" + AUTH +
                  b"Content-Type: application/json\r\nTransfer-Encoding: Chunked\r\nConnection: close\r\n\r\n" +
                  b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body))
    assert _status_and_body(answer)[0] == b"HTTP/1.1 201 Created", answer[:300]


def test_the_connection_serves_on_after_a_repeated_header(server):
    """Keep-alive: the parser's state is per request; a repeated header in one does not leak into the next."""
    one = b"GET /version HTTP/1.1\r\nHost: x\r\n" + AUTH + b"User-Agent: a\r\nUser-Agent: b\r\n\r\n"
    two = b"GET /version HTTP/1.1\r\nHost: x\r\n" + AUTH + b"User-Agent: a\r\nConnection: close\r\n\r\n"
    answer = _raw(server, one + two)
    assert answer.count(b"HTTP/1.1 200 OK\r\n") == 2


def test_only_a_c_request_parser_is_changed():
    """The pure-Python parser, or anything else, is left as it is (its own `lax` means more than this)."""
    import asyncio

    from aiohttp.http_exceptions import BadHttpMessage
    from aiohttp.http_parser import HttpRequestParserPy

    loop = asyncio.new_event_loop()
    try:
        py = HttpRequestParserPy(None, loop, 2 ** 16)
        assert repeated_headers.allow_repeated(py) is False
        with pytest.raises(BadHttpMessage, match="Duplicate 'User-Agent'"):
            py.feed_data(b"GET / HTTP/1.1\r\nHost: a\r\nUser-Agent: a\r\nUser-Agent: b\r\n\r\n")
        assert repeated_headers.allow_repeated(object()) is False
    finally:
        loop.close()
