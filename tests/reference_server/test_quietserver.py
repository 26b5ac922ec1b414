"""tests/reference_server/quietserver.py: the webhook test server says nothing when the reference server's client
hangs up mid-call (kubernetes' clients do, on a timeout or a cancelled request), and still prints, and keeps, any
other error of a handler."""
from __future__ import annotations

import json
import socket
import ssl
import struct
import time
from typing import Any, Callable, Iterator

import pytest

from .quietserver import QuietThreadingHTTPServer
from .test_admission_webhooks import Hook


@pytest.fixture
def hook() -> Iterator[Hook]:
    h = Hook()
    yield h
    h.stop()


def _until(done: Callable[[], Any], what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def _client(hook: Hook) -> ssl.SSLSocket:
    ctx = ssl.create_default_context(cadata=hook.tls.ca_pem.decode())
    ctx.check_hostname = False
    return ctx.wrap_socket(socket.create_connection(("127.0.0.1", hook.server.server_address[1])))


def _post(sock: ssl.SSLSocket, path: str, body: bytes) -> None:
    sock.sendall(b"POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s" % (path.encode(), len(body), body))


def test_a_client_that_resets_the_call_is_not_a_traceback(hook: Hook, capfd: pytest.CaptureFixture[str]) -> None:
    """The client sends a review to `/hold`, then resets the connection (SO_LINGER 0) while the webhook holds it:
    the webhook's answer meets the reset (ConnectionResetError, a broken pipe or a TLS EOF, as timing has it)."""
    sock = _client(hook)
    _post(sock, "/hold", json.dumps({"request": {"uid": "u"}}).encode())
    _until(lambda: hook.reviews, "the webhook never got the review")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()
    hook.release.set()
    _until(lambda: hook.server.hangups, "the answer never met the reset")
    assert "Traceback" not in capfd.readouterr().err
    assert hook.server.errors == []


def test_a_handlers_own_error_is_still_printed_and_kept(hook: Hook, capfd: pytest.CaptureFixture[str]) -> None:
    sock = _client(hook)
    _post(sock, "/allow", b"not json")
    _until(lambda: hook.server.errors, "the handler's error was not kept")
    sock.close()
    assert "JSONDecodeError" in hook.server.errors[0]
    err = capfd.readouterr().err
    assert "Exception occurred during processing of request" in err and "JSONDecodeError" in err


@pytest.mark.parametrize("exc, quiet", [
    (ConnectionResetError(104, "Connection reset by peer"), True),
    (BrokenPipeError(32, "Broken pipe"), True),
    (ssl.SSLEOFError(8, "EOF occurred in violation of protocol"), True),
    (KeyError("uid"), False),
])
def test_only_a_hang_up_is_quiet(exc: BaseException, quiet: bool, capfd: pytest.CaptureFixture[str]) -> None:
    server = QuietThreadingHTTPServer(("127.0.0.1", 0), object)  # type: ignore[arg-type] - never serves
    try:
        try:
            raise exc
        except BaseException:
            server.handle_error(None, ("127.0.0.1", 1))
    finally:
        server.server_close()
    assert (server.hangups, len(server.errors)) == ((1, 0) if quiet else (0, 1))
    assert ("Traceback" in capfd.readouterr().err) is not quiet
