"""A server-side function held on an Event while a request waits on it, so that a test can do something meanwhile
(and see that the server still answers) without any timing: the off-loop tests' (http/rehearse.py, admission/policy/
`validate_off_loop`) shared tool."""
from __future__ import annotations

import threading
from typing import Any, Callable

import pytest
import requests

WAIT = 30.0


class Held:
    """`module.name`'s first call waits until `released` is set (at most `WAIT` s); `entered` says it started."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, module: Any, name: str):
        self.entered, self.released = threading.Event(), threading.Event()
        self.calls = 0
        original = getattr(module, name)

        def held(*args: Any, **kw: Any) -> Any:
            self.calls += 1
            if self.calls == 1:
                self.entered.set()
                self.released.wait(WAIT)
            return original(*args, **kw)
        monkeypatch.setattr(module, name, held)

    def request(self, method: str, url: str, during: Callable[[], None], *, answered_first: bool = False,
                **kw: Any) -> requests.Response:
        """`method url` sent from a thread; once it reaches the held function, `during()`; then the function is
        released (`answered_first`: only once the response came) and the response returned."""
        out: dict[str, requests.Response] = {}
        t = threading.Thread(target=lambda: out.setdefault("r", requests.request(method, url, timeout=WAIT * 2, **kw)),
                             daemon=True)
        t.start()
        try:
            assert self.entered.wait(WAIT), "the request never reached the held function"
            during()
            if answered_first:
                t.join(WAIT)
        finally:
            self.released.set()
            t.join(WAIT)
        return out["r"]


def answers(url: str) -> None:
    """The server at `url` answers a GET /version within 5 s (its event loop is free)."""
    assert requests.get(url + "/version", timeout=5).status_code == 200
