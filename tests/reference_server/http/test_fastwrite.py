"""`http/fastwrite.py`: an in-memory answer written in one piece carries the same status, headers and body as
aiohttp's own `prepare`/`write_eof` path would write (Date, Audit-Id and header order aside), and what it does not
handle still goes through aiohttp."""
from __future__ import annotations

import socket

import pytest

from conformance.reference_server.embedded import RunningServer
from conformance.reference_server.http import connection, fastwrite
from tests.reference_server.ownserver import own_server

REQUESTS = [
    b"GET /api/v1/namespaces/default HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nAccept: application/yaml\r\n\r\n",
    b"GET /api/v1/namespaces/absent HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /version HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /api/v1/namespaces/default HTTP/1.1\r\nHost: x\r\nAccept: application/vnd.kubernetes.protobuf\r\n\r\n",
    b"POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
    b"HEAD /version HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /version HTTP/1.0\r\nHost: x\r\n\r\n",
    b"GET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
]
VARYING = {b"date", b"audit-id"}


server = own_server(flavor="bare")


def _exchange(server: RunningServer, request: bytes) -> tuple[bytes, list[tuple[bytes, bytes]], bytes]:
    """One request on its own connection, closed by us after the answer: (status line, headers, body)."""
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data:
            data += conn.recv(65536)
        head, body = data.split(b"\r\n\r\n", 1)
        lines = head.split(b"\r\n")
        headers = [tuple(part.strip() for part in line.split(b":", 1)) for line in lines[1:]]
        length = next((int(v) for k, v in headers if k.lower() == b"content-length"), 0)
        if not request.startswith(b"HEAD"):
            while len(body) < length:
                body += conn.recv(65536)
    return lines[0], sorted((k.lower(), v) for k, v in headers if k.lower() not in VARYING), body


def _normal(status: bytes, headers: list, body: bytes, request: bytes) -> tuple:
    # a created namespace's name, uid and times differ between the two runs: compare the shape only
    return (status, [(k, v if k != b"content-length" or not request.startswith(b"POST") else b"") for k, v in headers],
            body if not request.startswith(b"POST") else b"")


@pytest.mark.parametrize("request_bytes", REQUESTS, ids=lambda r: r.split(b"\r\n", 1)[0].decode())
def test_written_as_aiohttp_writes_it(server, monkeypatch, request_bytes):
    assert fastwrite.SUPPORTED
    fast = _exchange(server, request_bytes)
    monkeypatch.setattr(connection, "eligible", lambda *a: False)  # aiohttp's own path
    slow = _exchange(server, request_bytes)
    assert _normal(*fast, request_bytes) == _normal(*slow, request_bytes)


def test_the_common_answer_takes_the_one_write_path(server, monkeypatch):
    written = []
    original = connection.write_whole

    def spy(protocol, request, resp):
        written.append(resp.status)
        return original(protocol, request, resp)

    monkeypatch.setattr(connection, "write_whole", spy)
    _exchange(server, REQUESTS[0])
    _exchange(server, REQUESTS[-3])  # a HEAD: aiohttp's path
    assert written == [200]


def test_date_and_content_length_come_last_as_go_writes_them(server):
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(REQUESTS[4])
        data = b""
        while b"\r\n\r\n" not in data:
            data += conn.recv(65536)
    names = [line.split(b":", 1)[0] for line in data.split(b"\r\n\r\n", 1)[0].split(b"\r\n")[1:]]
    assert names[-2:] == [b"Date", b"Content-Length"]

