"""http/h2/conn.py: which request header blocks Go's server resets, answers 400, or serves."""
from __future__ import annotations

import pytest

from conformance.reference_server.http.h2.conn import check_request_headers

BASE = [(b":method", b"GET"), (b":scheme", b"https"), (b":path", b"/api"), (b":authority", b"h")]


def test_a_plain_request_passes() -> None:
    assert check_request_headers(BASE + [(b"accept", b"*/*"), (b"te", b"trailers")]) == (dict(BASE), None)


@pytest.mark.parametrize("headers", [
    BASE + [(b"Accept", b"x")],                       # upper case
    BASE + [(b"bad name", b"x")],                     # not a token
    [(b":method", b"GET"), (b"accept", b"x"), (b":scheme", b"https"), (b":path", b"/")],  # pseudo after regular
    BASE + [(b":method", b"GET")],                     # repeated
    BASE + [(b":status", b"200")],                     # a response's
    [(b":method", b"GET"), (b":scheme", b"https")],   # no :path
    [(b":method", b"GET"), (b":scheme", b"ftp"), (b":path", b"/")],
    [(b":scheme", b"https"), (b":path", b"/")],       # no :method
])
def test_malformed_blocks_reset_the_stream(headers: list[tuple[bytes, bytes]]) -> None:
    assert check_request_headers(headers) is None


@pytest.mark.parametrize("name,value,message", [
    (b"connection", b"close", 'request header "Connection" is not valid in HTTP/2'),
    (b"keep-alive", b"5", 'request header "Keep-Alive" is not valid in HTTP/2'),
    (b"transfer-encoding", b"chunked", 'request header "Transfer-Encoding" is not valid in HTTP/2'),
    (b"upgrade", b"h2c", 'request header "Upgrade" is not valid in HTTP/2'),
    (b"proxy-connection", b"x", 'request header "Proxy-Connection" is not valid in HTTP/2'),
    (b"te", b"gzip", 'request header "TE" may only be "trailers" in HTTP/2'),
])
def test_connection_specific_headers_are_a_400(name: bytes, value: bytes, message: str) -> None:
    assert check_request_headers(BASE + [(name, value)]) == (dict(BASE), message)
