"""Go's `strconv.Quote` (`%q`) over the UTF-8 bytes of a text, and the byte view the gonet ports work on.

A Go string is bytes; a Python text is code points. `to_bytes` turns a text into a `str` whose characters are its
UTF-8 bytes (latin-1 code points), so that slicing and indexing count bytes as Go's do; `to_text` turns such a
byte string back (a byte sequence that is not UTF-8 kept by `surrogateescape`, as Go keeps it).
Follows src/strconv/quote.go (`appendQuotedWith`, `appendEscapedRune`)."""
from __future__ import annotations

from .. import gounicode


def to_bytes(text: str) -> str:
    """The UTF-8 bytes of `text` as a latin-1 `str`; a lone surrogate (which Go's JSON decoding would have made
    U+FFFD) becomes U+FFFD."""
    if text.isascii():
        return text
    try:
        return text.encode("utf-8", "surrogateescape").decode("latin-1")
    except UnicodeEncodeError:
        fixed = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF and not 0xDC80 <= ord(c) <= 0xDCFF else c
                        for c in text)
        return fixed.encode("utf-8", "surrogateescape").decode("latin-1")


def to_text(data: str) -> str:
    """The text whose UTF-8 bytes `data` (a latin-1 `str`) holds; bytes that are not UTF-8 kept by surrogateescape."""
    if data.isascii():
        return data
    return data.encode("latin-1").decode("utf-8", "surrogateescape")


def valid_text(text: str) -> str:
    """`text` with each byte that was not UTF-8 (kept by surrogateescape) as U+FFFD, as Go's JSON encoding writes
    a string holding such bytes: what may leave the server in an answer."""
    if text.isascii():
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


_ESCAPES = {7: "\\a", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 11: "\\v"}


def _printable(ch: str) -> bool:
    """`strconv.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space, by Go 1.24's
    tables (Unicode 15.0.0)."""
    return gounicode.is_print(ch)


def quote(text: str) -> str:
    """`strconv.Quote(text)`: `"`-quoted; `"` and `\\` escaped; `\\a`...`\\v` for their controls; another byte
    below 0x80 that is not printable as `\\xNN`, a byte that is not UTF-8 as `\\xNN`, a rune that is not printable
    as `\\uNNNN` or `\\UNNNNNNNN`."""
    if text.isascii() and text.isprintable():  # the common case: nothing but `"` and `\\` to escape
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    out = ['"']
    for ch in text:
        o = ord(ch)
        if 0xDC80 <= o <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
            out.append(f"\\x{o - 0xDC00:02x}")
        elif ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif 0x20 <= o < 0x7F:
            out.append(ch)
        elif o in _ESCAPES:
            out.append(_ESCAPES[o])
        elif o < 0x20 or o == 0x7F:
            out.append(f"\\x{o:02x}")
        elif 0xD800 <= o <= 0xDFFF:
            out.append("\ufffd")
        elif _printable(ch):
            out.append(ch)
        elif o < 0x10000:
            out.append(f"\\u{o:04x}")
        else:
            out.append(f"\\U{o:08x}")
    out.append('"')
    return "".join(out)


def quote_bytes(data: str) -> str:
    """`strconv.Quote` of a byte string (see `to_bytes`)."""
    return quote(to_text(data))
