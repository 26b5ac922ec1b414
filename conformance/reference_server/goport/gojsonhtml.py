"""encoding/json's HTML-safe strings, on JSON text already written (upstream: Go's `encoding/json` `encode.go`
`appendString` with `escapeHTML` true, which `json.Marshal`, `json.MarshalIndent` and `json.NewEncoder` all use
unless told otherwise; apimachinery's `runtime/serializer/json/json.go` `doEncode` and every `json.Marshal` of
kube-apiserver's answers never tell it otherwise): `<`, `>` and `&` are written `\\u003c`, `\\u003e`, `\\u0026`,
and U+2028, U+2029 `\\u2028`, `\\u2029`, inside every string (keys too).

In JSON text these characters can only stand inside a string, so replacing them in the text is exactly Go's
escaping. `escape_html` costs five substring searches when none is there (C's `memchr`-like find; far less than
the encoding it follows), so an object's memoised GET bytes (`store.get_rendered`) pay it once per version.
"""
from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029"))


def escape_html(text: str) -> str:
    """`text` (JSON) with Go's HTML escapes in its strings; `text` itself when it holds none of the characters."""
    for ch, esc in _ESCAPES:
        if ch in text:
            text = text.replace(ch, esc)
    return text


def utf8_bytes(text: str) -> bytes:
    """JSON text's UTF-8 bytes; a byte that was not UTF-8 (kept surrogate-escaped: a query value's, http/goquery.py)
    written as the escape `\\ufffd`, as `appendString` writes each such byte (it can only stand in a string)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub(r"\\ufffd", text).encode("utf-8")
