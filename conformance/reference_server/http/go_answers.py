"""What Go's net/http server answers by itself, before any handler, to a request it cannot read
(`conn.serve` and `readRequest` in net/http/server.go, Go 1.24; kube-apiserver's `MaxHeaderBytes` in
staging/src/k8s.io/apiserver/pkg/server/secure_serving.go):

- a head (request line and headers) over `MaxHeaderBytes` + 4096 bytes (`initialReadLimitSize`: the bufio slack Go
  grants on top): `431 Request Header Fields Too Large`, then the connection closes;
- an HTTP/1.1 request without a Host header (CONNECT aside), or whose Host has a byte outside
  `httpguts.ValidHostHeader`'s set: a `badRequestError`, answered `400 Bad Request: <why>`;
- a `Transfer-Encoding` other than one `chunked` (net/http/transfer.go `parseTransferEncoding`, an
  `unsupportedTEError`): `501 Not Implemented` with the body `Unsupported transfer encoding`;
- anything else the parser refuses, several Host headers included (net/http/request.go `readRequest`: `too many
  Host headers` is a plain error, not a `badRequestError`): a bare `400 Bad Request`.

Each is written as Go writes it (`fmt.Fprintf(c.rwc, ...)`): status line, `Content-Type` and `Connection: close`,
no `Date` or `Content-Length`, the text as body, then the connection is closed."""
from __future__ import annotations

from typing import Any

MAX_HEADER_BYTES = 1 << 20                   # secure_serving.go: `MaxHeaderBytes: 1 << 20`
HEADER_READ_LIMIT = MAX_HEADER_BYTES + 4096  # net/http: `initialReadLimitSize`
_ERROR_HEADERS = b"\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"
_VALID_HOST_BYTES = frozenset(b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!$%&()*+,-.:;=['~]_")


class BadRequest(Exception):
    """A `badRequestError` of `readRequest`: its text follows `400 Bad Request: `; None: one of its plain errors
    (the bare 400)."""

    def __init__(self, text: str | None):
        super().__init__(text or "bad request")
        self.text = text


class HeadTooLarge(Exception):
    """`errTooLarge`: the head passed the read limit."""


class UnsupportedTransferEncoding(Exception):
    """`unsupportedTEError`: several Transfer-Encoding headers, or one that is not `chunked`."""


def head_size(message: Any) -> int:
    """The bytes of a parsed head, as sent but for optional whitespace: request line, header lines, blank line."""
    line = len(message.method) + len(message.path) + 12  # "GET /p HTTP/1.1\r\n"
    return line + sum(len(name) + len(value) + 4 for name, value in message.raw_headers) + 2


def _answer(public: str) -> bytes:
    data = public.encode()
    return b"HTTP/1.1 " + data + _ERROR_HEADERS + data


TOO_LARGE = _answer("431 Request Header Fields Too Large")
_BAD_REQUEST = _answer("400 Bad Request")
UNSUPPORTED_TE = b"HTTP/1.1 501 Not Implemented" + _ERROR_HEADERS + b"Unsupported transfer encoding"


def bad_request(text: str | None = None) -> bytes:
    """The bare 400, or a `badRequestError`'s (`statusError`: `400 Bad Request: <text>` twice)."""
    return _BAD_REQUEST if text is None else _answer(f"400 Bad Request: {text}")


_PARSER_WORDS = (  # aiohttp's (llhttp's) refusals that Go answers otherwise than with the bare 400
    ("Missing 'Host' header", bad_request("missing required Host header")),
    ("Request has invalid `Transfer-Encoding`", UNSUPPORTED_TE),      # a last coding other than chunked
    ("Invalid `Transfer-Encoding` header value", UNSUPPORTED_TE),     # something after chunked
    ("Duplicate 'Transfer-Encoding' header", UNSUPPORTED_TE),         # a strict parser (repeated_headers.py)
)


def parser_refusal(exc: BaseException | None) -> bytes:
    """Go's answer to a head aiohttp's parser (or `connection.py`'s checks) refused: a missing Host in
    `readRequest`'s words, a Transfer-Encoding's 501, else the bare 400."""
    message = getattr(exc, "message", "")
    if isinstance(exc, BadRequest):
        return bad_request(exc.text)
    if isinstance(exc, HeadTooLarge):
        return TOO_LARGE
    if isinstance(exc, UnsupportedTransferEncoding):
        return UNSUPPORTED_TE
    if isinstance(message, str):
        for prefix, answer in _PARSER_WORDS:
            if message.startswith(prefix):
                return answer
    return _BAD_REQUEST


VALID_HOSTS_SEEN: set[str] = set()  # a client sends the same Host on every request: judged once (at most 256 kept)


def valid_host(value: str) -> bool:
    """httpguts.ValidHostHeader: every byte in its lenient set (not a full RFC 3986 check)."""
    ok = all(b in _VALID_HOST_BYTES for b in value.encode("utf-8", "surrogateescape"))
    if ok and len(VALID_HOSTS_SEEN) < 256:
        VALID_HOSTS_SEEN.add(value)
    return ok


__all__ = ["HEADER_READ_LIMIT", "MAX_HEADER_BYTES", "TOO_LARGE", "UNSUPPORTED_TE", "VALID_HOSTS_SEEN", "BadRequest",
           "HeadTooLarge", "UnsupportedTransferEncoding", "bad_request", "head_size", "parser_refusal", "valid_host"]
