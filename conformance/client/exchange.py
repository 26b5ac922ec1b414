"""The record of one HTTP exchange, shared by the client (which writes it) and the reports (which read it).

Secrets are masked when the exchange is recorded, so nothing downstream ever holds a token.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
import threading
from dataclasses import dataclass, field, fields
from typing import Any, Iterator

MASK = "***"
_SECRET_HEADERS = {"authorization", "proxy-authorization", "cookie", "set-cookie", "x-auth-token"}
_BEARER = re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]+")


@dataclass
class Exchange:
    method: str
    url: str                      # full URL without credentials
    path: str                     # path + query as sent
    endpoint: str | None          # endpoint-table row id the request matched, None if none
    status: int | None            # None when no response arrived (connection error)
    duration_s: float
    request_headers: dict[str, str] = field(default_factory=dict)
    request_body: Any = None      # parsed JSON when possible, else text (truncated)
    response_headers: dict[str, str] = field(default_factory=dict)
    response_body: Any = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The fields as a dict. Shallow (the values are plain data that nothing edits in place; headers and
        a watch's event list, which its reader thread may still extend, are copied one level): `asdict`'s
        deep copy cost ~6 % of a suite run."""
        out = {name: getattr(self, name) for name in _FIELD_NAMES}
        out["request_headers"] = dict(self.request_headers)
        out["response_headers"] = dict(self.response_headers)
        body = self.response_body
        if isinstance(body, dict) and isinstance(body.get("events"), list):
            out["response_body"] = {**body, "events": list(body["events"])}
        return out


_FIELD_NAMES = tuple(f.name for f in fields(Exchange))


def mask_headers(headers: dict[str, str]) -> dict[str, str]:
    return {k: (MASK if k.lower() in _SECRET_HEADERS else v) for k, v in headers.items()}


def mask_text(text: str, secrets: tuple[str, ...] = ()) -> str:
    """Remove bearer tokens and any known secret string from free text."""
    text = _BEARER.sub(r"\1" + MASK, text)
    for secret in secrets:
        if secret:
            text = text.replace(secret, MASK)
    return text


def mask_secret_data(body: Any) -> Any:
    """Secrets' `data`/`stringData` values never reach a report."""
    if isinstance(body, dict):
        if body.get("kind") == "Secret":
            body = dict(body)
            for key in ("data", "stringData"):
                if isinstance(body.get(key), dict):
                    body[key] = {k: MASK for k in body[key]}
        if isinstance(body.get("items"), list):
            body = dict(body)
            body["items"] = [mask_secret_data(i) for i in body["items"]]
    return body


_OWNER: contextvars.ContextVar[str | None] = contextvars.ContextVar("nsconform_exchange_owner", default=None)


class Recorder:
    """Collects exchanges per test; the client records, the pytest plugin takes them per test. Exchanges made
    under `owned_by(key)` (a background recording's thread, and the threads it starts in its context) go to
    `key` instead of the running test, until a test `adopt`s them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._current: str | None = None
        self._by_test: dict[str, list[Exchange]] = {}
        self.total = 0

    def start_test(self, nodeid: str | None) -> None:
        with self._lock:
            self._current = nodeid

    def record(self, exchange: Exchange) -> None:
        owner = _OWNER.get()
        with self._lock:
            self.total += 1
            self._by_test.setdefault(owner or self._current or "<session>", []).append(exchange)

    def take(self, nodeid: str) -> list[Exchange]:
        with self._lock:
            return self._by_test.pop(nodeid, [])

    @contextlib.contextmanager
    def owned_by(self, key: str) -> Iterator[None]:
        token = _OWNER.set(key)
        try:
            yield
        finally:
            _OWNER.reset(token)

    def adopt(self, key: str) -> None:
        """The exchanges recorded under `key` so far become the running test's."""
        with self._lock:
            adopted = self._by_test.pop(key, [])
            if adopted:
                self._by_test.setdefault(self._current or "<session>", []).extend(adopted)


RECORDER = Recorder()
