"""What Go's net/http server answers by itself, before any handler, to a request it cannot read
(`conn.serve` and `readRequest` in net/http/server.go, Go 1.24; kube-apiserver's `MaxHeaderBytes` in
staging/src/k8s.io/apiserver/pkg/server/secure_serving.go):

- a head (request line and headers) over `MaxHeaderBytes` + 4096 bytes (`initialReadLimitSize`: the bufio slack Go
  grants on top): `431 Request Header Fields Too Large`, then the connection closes;
- an HTTP/1.1 request without a Host header (CONNECT aside), with several, or whose Host has a byte outside
  `httpguts.ValidHostHeader`'s set: a `badRequestError`, answered `400 Bad Request: <why>`;
- anything else the parser refuses: a bare `400 Bad Request`.

Each is written as Go writes it (`fmt.Fprintf(c.rwc, ...)`): status line, `Content-Type` and `Connection: close`,
no `Date` or `Content-Length`, the text as body, then the connection is closed."""
from __future__ import annotations

from typing import Any

MAX_HEADER_BYTES = 1 << 20                   # secure_serving.go: `MaxHeaderBytes: 1 << 20`
HEADER_READ_LIMIT = MAX_HEADER_BYTES + 4096  # net/http: `initialReadLimitSize`
_ERROR_HEADERS = b"\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"
_VALID_HOST_BYTES = frozenset(b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!$%&()*+,-.:;=['~]_")


class BadRequest(Exception):
    """A `badRequestError` of `readRequest`: its text follows `400 Bad Request: `."""

    def __init__(self, text: str):
        super().__init__(text)
        self.text = text


class HeadTooLarge(Exception):
    """`errTooLarge`: the head passed the read limit."""


def head_size(message: Any) -> int:
    """The bytes of a parsed head, as sent but for optional whitespace: request line, header lines, blank line."""
    line = len(message.method) + len(message.path) + 12  # "GET /p HTTP/1.1\r\n"
    return line + sum(len(name) + len(value) + 4 for name, value in message.raw_headers) + 2


def _answer(public: str) -> bytes:
    data = public.encode()
    return b"HTTP/1.1 " + data + _ERROR_HEADERS + data


TOO_LARGE = _answer("431 Request Header Fields Too Large")
_BAD_REQUEST = _answer("400 Bad Request")


def bad_request(text: str | None = None) -> bytes:
    """The bare 400, or a `badRequestError`'s (`statusError`: `400 Bad Request: <text>` twice)."""
    return _BAD_REQUEST if text is None else _answer(f"400 Bad Request: {text}")


_PARSER_WORDS = (  # aiohttp's parser refuses these before readRequest's checks could; Go's words for them
    ("Missing 'Host' header", "missing required Host header"),
    ("Duplicate 'Host' header", "too many Host headers"),
)


def parser_refusal(exc: BaseException | None) -> bytes:
    """Go's answer to a head aiohttp's parser refused: a Host problem in `readRequest`'s words, else the bare
    400."""
    message = getattr(exc, "message", "")
    if isinstance(exc, BadRequest):
        return bad_request(exc.text)
    if isinstance(exc, HeadTooLarge):
        return TOO_LARGE
    for prefix, text in _PARSER_WORDS:
        if isinstance(message, str) and message.startswith(prefix):
            return bad_request(text)
    return _BAD_REQUEST


VALID_HOSTS_SEEN: set[str] = set()  # a client sends the same Host on every request: judged once (at most 256 kept)


def valid_host(value: str) -> bool:
    """httpguts.ValidHostHeader: every byte in its lenient set (not a full RFC 3986 check)."""
    ok = all(b in _VALID_HOST_BYTES for b in value.encode("utf-8", "surrogateescape"))
    if ok and len(VALID_HOSTS_SEEN) < 256:
        VALID_HOSTS_SEEN.add(value)
    return ok


__all__ = ["BadRequest", "HEADER_READ_LIMIT", "HeadTooLarge", "MAX_HEADER_BYTES", "TOO_LARGE", "VALID_HOSTS_SEEN",
           "bad_request", "head_size", "parser_refusal", "valid_host"]
