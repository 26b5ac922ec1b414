"""`http/chunked_length.py`: `Transfer-Encoding: chunked` beside a `Content-Length`, read as Go's net/http reads it
(transfer.go `parseTransferEncoding`: chunked wins, the Content-Length header is deleted); llhttp alone refuses it."""
from __future__ import annotations

import asyncio
import json

import pytest

from conformance.reference_server.http import chunked_length
from tests.reference_server.ownserver import own_server

from .rawhttp import raw

pytestmark = pytest.mark.skipif(not chunked_length.SUPPORTED, reason="llhttp's flag is not reachable here")


server = own_server(flavor="bare")


@pytest.mark.parametrize("length", [b"5", b"999999999"])  # (one not a number: test_head_repair.py)
def test_a_chunked_body_beside_a_content_length_is_read_chunked(server, length):
    body = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"te-cl"},"data":{"a":"b"}}'
    head = (b"POST /api/v1/namespaces/default/configmaps?dryRun=All HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nContent-Length: %s\r\n"
            b"Connection: close\r\n\r\n" % length)
    answer = raw(server, head + b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body))
    status, _, out = answer.partition(b"\r\n")
    assert status == b"HTTP/1.1 201 Created", answer[:300]
    assert json.loads(out.partition(b"\r\n\r\n")[2])["data"] == {"a": "b"}


def test_the_handlers_see_no_content_length():
    from aiohttp import _http_parser as cparser
    from aiohttp.http_parser import RawRequestMessage

    loop = asyncio.new_event_loop()
    try:
        parser = cparser.HttpRequestParser(None, loop, 2 ** 16)
        assert chunked_length.allow(parser)
        (message, _), = parser.feed_data(b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n"
                                         b"Content-Length: 5\r\n\r\n")[0]
        assert isinstance(message, RawRequestMessage) and message.chunked
        dropped = chunked_length.drop_length(message)
        assert "Content-Length" not in dropped.headers and dropped.headers["Transfer-Encoding"] == "chunked"
        assert [k for k, _ in dropped.raw_headers] == [b"Host", b"Transfer-Encoding"]
    finally:
        loop.close()

