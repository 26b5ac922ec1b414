"""A raw HTTP/1.1 exchange over a plain socket, for the bytes a client library would refuse to send or hide."""
from __future__ import annotations

import socket

from conformance.reference_server.embedded import RunningServer

ERROR_HEADERS = b"\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"  # net/http conn.serve


def connect(server: RunningServer) -> socket.socket:
    """A plain connection to the server."""
    host, port = server.url.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=20)


def read_until_closed(conn: socket.socket) -> bytes:
    """Everything the server sends until it closes (a reset ends it too)."""
    out = b""
    try:
        while chunk := conn.recv(65536):
            out += chunk
    except ConnectionResetError:
        pass
    return out


def raw(server: RunningServer, data: bytes) -> bytes:
    """Send `data`, read until the server closes."""
    with connect(server) as conn:
        try:
            conn.sendall(data)
        except (BrokenPipeError, ConnectionResetError):  # it answered and closed before reading everything
            pass
        return read_until_closed(conn)
