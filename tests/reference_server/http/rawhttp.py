"""A raw HTTP/1.1 exchange over a plain socket, for the bytes a client library would refuse to send or hide."""
from __future__ import annotations

import socket

from conformance.reference_server.embedded import RunningServer

ERROR_HEADERS = b"\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"  # net/http conn.serve


def raw(server: RunningServer, data: bytes) -> bytes:
    """Send `data`, read until the server closes."""
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=20) as conn:
        try:
            conn.sendall(data)
        except (BrokenPipeError, ConnectionResetError):  # it answered and closed before reading everything
            pass
        out = b""
        try:
            while chunk := conn.recv(65536):
                out += chunk
        except ConnectionResetError:
            pass
    return out
