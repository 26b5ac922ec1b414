"""The tests' local HTTPS servers (the webhook `Hook`): `http.server`'s threading server, but a client that hangs
up mid-request (the reference server's webhook client cancelled, timed out or stopped with its loop: a TCP reset, a
broken pipe, a TLS connection closed without close_notify, a TLS alert refusing our certificate) is counted, not
printed as a traceback by `socketserver.BaseServer.handle_error`. Any other error in a handler is still printed as
before, and kept in `errors` for a test to look at."""
from __future__ import annotations

import ssl
import sys
import threading
import traceback
from http.server import ThreadingHTTPServer
from typing import Any


def peer_hung_up(exc: BaseException | None) -> bool:
    """Whether `exc` is what a handler meets when its client went away, not a fault of the handler."""
    if isinstance(exc, (ConnectionError, ssl.SSLEOFError, ssl.SSLZeroReturnError)):
        return True
    return isinstance(exc, ssl.SSLError) and "ALERT" in str(exc.reason or "")  # the client's TLS alert


class QuietThreadingHTTPServer(ThreadingHTTPServer):
    """`ThreadingHTTPServer` whose `handle_error` stays quiet about a client's hang-up (`hangups` counts them)."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.hangups = 0
        self.errors: list[str] = []
        self._lock = threading.Lock()

    def handle_error(self, request: Any, client_address: Any) -> None:
        exc = sys.exc_info()[1]
        if peer_hung_up(exc):
            with self._lock:
                self.hangups += 1
            return
        super().handle_error(request, client_address)  # printed first: `errors` says it is done
        with self._lock:
            self.errors.append("".join(traceback.format_exception(exc)) if exc is not None else "")
