"""`?timeout=` as upstream's `WithRequestDeadline` reads it (http/deadlines.py `requested_timeout`, godur.py): a value
Go cannot parse is a 400 before authentication, a positive one shortens the request's deadline, zero or negative
leave the server's."""
from __future__ import annotations

import json
import socket
import time

import pytest
import requests

from tests.reference_server.ownserver import own_server

TOKEN = "deadline-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


srv = own_server(token=TOKEN)


@pytest.mark.parametrize("value,error", [
    ("x", 'time: invalid duration "x"'),
    ("5", 'time: missing unit in duration "5"'),
    ("1d", 'time: unknown unit "d" in duration "1d"'),
    ("9223372036854775808ns", 'time: invalid duration "9223372036854775808ns"'),
])
def test_a_timeout_go_cannot_parse_is_a_bad_request_before_authentication(srv, value, error):
    for headers in (AUTH, {}):  # no credentials: still the 400, WithRequestDeadline runs outside authentication
        r = requests.get(f"{srv.url}/api/v1/namespaces", params={"timeout": value}, headers=headers, timeout=10)
        assert r.status_code == 400, r.text
        body = r.json()
        assert (body["kind"], body["reason"], body["code"]) == ("Status", "BadRequest", 400)
        assert body["message"] == f"invalid timeout specified in the request URL - {error}"


@pytest.mark.parametrize("value", [".5s", "5.s", "0", "-1s", "+2m", "1h", "", "300ms"])
def test_what_go_parses_is_served(srv, value):
    r = requests.get(f"{srv.url}/api/v1/namespaces", params={"timeout": value}, headers=AUTH, timeout=10)
    assert r.status_code == 200, r.text


def test_a_watch_ignores_the_timeout_parameter(srv):
    """Long-running requests skip WithRequestDeadline."""
    r = requests.get(f"{srv.url}/api/v1/namespaces", params={"watch": "1", "timeout": "x", "timeoutSeconds": "1"},
                     headers=AUTH, timeout=10)
    assert r.status_code == 200


def _status_of_slow_body(url: str, query: str) -> tuple[bytes, float]:
    """A create whose body never completes: the answer the server gives, and after how long."""
    host, port = url.split("//", 1)[1].rsplit(":", 1)
    c = socket.create_connection((host, int(port)), timeout=10)
    started = time.monotonic()
    c.sendall(f"POST /api/v1/namespaces{query} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n"
              "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"metadata\":".encode())
    got = b""
    try:
        while b"\r\n\r\n" not in got or len(got.split(b"\r\n\r\n", 1)[1]) < _length(got):
            got += c.recv(65536)
    finally:
        c.close()
    return got, time.monotonic() - started


def _length(got: bytes) -> int:
    head = got.split(b"\r\n\r\n", 1)[0].decode()
    return next(int(line.split(":", 1)[1]) for line in head.split("\r\n") if line.lower().startswith("content-length:"))


def test_a_shorter_timeout_is_the_requests_deadline(srv):
    got, took = _status_of_slow_body(srv.url, "?timeout=300ms")
    assert got.startswith(b"HTTP/1.1 504"), got[:200]
    body = json.loads(got.split(b"\r\n\r\n", 1)[1])
    assert body["reason"] == "Timeout" and body["message"] == (
        "Timeout: request did not complete within requested timeout - context deadline exceeded")
    assert took < 5  # the server's own --request-timeout is a minute
