"""A chunked request body llhttp refuses after its head was read: the error Go's handler gets from its body read.

Go's net/http reads a chunked body through net/http/internal/chunked.go's `chunkedReader` only as the handler
reads it; a framing error fails that read (`readChunkLine`, `removeChunkExtension`, `parseHexUint`, the CRLF
after a chunk's data), kube-apiserver's `limitedReadBody` (endpoints/handlers/rest.go) returns it and the
handler answers it through `scope.err` → `ErrorToAPIStatus`: a non-Status error is a 500 Status without a
reason, the error's text its message; net/http then closes the connection (the body's rest must not be read as
a next request). llhttp refuses the same bytes in `feed_data` (aiohttp makes that an `_ErrInfo`, the payload is
left waiting); `connection.py` gives the payload `error(refusal)` instead.

`error` words chunked.go's error from the line llhttp's refusal shows (the bytes since the read's last CRLF up to
its next one). For framing chunked.go reads but llhttp refuses (`5 `, `5;a b`) the answer is the same 500 with
llhttp's reason, promptly, where Go would read the body.
"""
from __future__ import annotations

import ast
from typing import Any

from ..apierrors import StatusError, status_dict

_WHITESPACE = b" \t"  # chunked.go `isOWS` (`trimTrailingWhitespace`)
_MAX_HEX_DIGITS = 16     # `parseHexUint`: a 17th digit is "http chunk length too large"


def go_error(reason: str, line: bytes | None) -> str | None:
    """chunked.go's error for the chunk framing llhttp refused (its `reason`, the refused `line`), None where
    chunked.go reads it."""
    if "chunk data" in reason:  # the two bytes after a chunk's data are not CRLF (`Read`'s `checkEnd`)
        return "malformed chunked encoding"
    if line is None or "chunk" not in reason.lower():
        return None
    if b"\n" in line:  # `readChunkLine`: the size line ends at its LF, which no CR precedes
        return "chunked line ends with bare LF"
    if b"\r" in line:
        return "invalid CR in chunked line"
    line = line.rstrip(_WHITESPACE).split(b";", 1)[0]  # `trimTrailingWhitespace`, `removeChunkExtension`
    return _parse_hex_uint(line)


def _parse_hex_uint(v: bytes) -> str | None:
    """`parseHexUint`'s error, in its order, or None for a valid size."""
    if not v:
        return "empty hex number for chunk length"
    for i, b in enumerate(v):
        if not (48 <= b <= 57 or 97 <= b <= 102 or 65 <= b <= 70):
            return "invalid byte in chunk length"
        if i == _MAX_HEX_DIGITS:
            return "http chunk length too large"
    return None


def refused_line(message: str) -> tuple[str, bytes | None]:
    """llhttp's reason and the refused line from aiohttp's `parser_error_from_errno` text
    (`reason:\\n\\n  b'line'\\n  ^`)."""
    reason, _, rest = message.partition(":\n\n  ")
    shown = rest.split("\n", 1)[0]
    try:
        line = ast.literal_eval(shown)
    except (ValueError, SyntaxError):
        return reason, None
    return reason, line if type(line) is bytes else None


def error(refusal: Any) -> StatusError:
    """The 500 Status kube-apiserver answers for the body read that fails on `refusal` (llhttp's exception)."""
    reason, line = refused_line(str(getattr(refusal, "message", refusal)))
    return StatusError(status_dict(500, None, go_error(reason, line) or reason))
