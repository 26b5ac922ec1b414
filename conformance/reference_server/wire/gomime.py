"""Go's `mime.ParseMediaType` (Go 1.24 `src/mime/mediatype.go`), which kube-apiserver 1.33 reads a request body's
`Content-Type` with (k8s.io/apiserver `negotiation.NegotiateInputSerializerForMediaType`: a value it refuses, an
invalid parameter included, is the 415; what it returns, lower-cased, is matched against the serializers).

What a client can tell from a lenient reading: `Application/JSON` is JSON (lower-cased); `application/json;
charset` (a parameter without a value), `application/json; a=1; a=2` (a repeated parameter with another value),
`application/json/x` and `application/ json` are refused; a quoted value, a trailing `;` and equal repeats are
accepted.
"""
from __future__ import annotations

__all__ = ["MediaTypeError", "parse_media_type"]

_TSPECIALS = frozenset('()<>@,;:\\"/[]?=')
_LATIN1_SPACE = frozenset("\t\n\v\f\r \x85\xa0")


class MediaTypeError(ValueError):
    """What `ParseMediaType` answers as its error (the message is Go's)."""


def _is_space(c: str) -> bool:
    """`unicode.IsSpace`."""
    return c in _LATIN1_SPACE or (c > "\xff" and c.isspace())


def _trim_left(s: str) -> str:
    i = 0
    while i < len(s) and _is_space(s[i]):
        i += 1
    return s[i:]


def _trim(s: str) -> str:
    """`strings.TrimSpace`."""
    s = _trim_left(s)
    j = len(s)
    while j > 0 and _is_space(s[j - 1]):
        j -= 1
    return s[:j]


def _lower(s: str) -> str:
    """`strings.ToLower`: each rune's simple lower case (Python's full mapping differs for U+0130 alone)."""
    return s.lower() if s.isascii() else "".join("i" if c == "\u0130" else c.lower() for c in s)


def _token_char(c: str) -> bool:
    return " " < c < "\x7f" and c not in _TSPECIALS


def _consume_token(v: str) -> tuple[str, str]:
    for i, c in enumerate(v):
        if not _token_char(c):
            return v[:i], v[i:]
    return v, ""


def _consume_value(v: str) -> tuple[str, str]:
    """A token or a quoted-string (a backslash escapes only a tspecial, MSIE's paths); ("", v) on failure."""
    if not v:
        return "", ""
    if v[0] != '"':
        return _consume_token(v)
    out: list[str] = []
    i = 1
    while i < len(v):
        c = v[i]
        if c == '"':
            return "".join(out), v[i + 1:]
        if c == "\\" and i + 1 < len(v) and v[i + 1] in _TSPECIALS:
            out.append(v[i + 1])
            i += 2
            continue
        if c in "\r\n":
            return "", v
        out.append(c)
        i += 1
    return "", v


def _consume_param(v: str) -> tuple[str, str, str]:
    """`consumeMediaParam`: (name lower-cased, value, rest), or ("", "", v)."""
    rest = _trim_left(v)
    if not rest.startswith(";"):
        return "", "", v
    name, rest = _consume_token(_trim_left(rest[1:]))
    name = name.lower()  # (a token is ASCII)
    if not name:
        return "", "", v
    rest = _trim_left(rest)
    if not rest.startswith("="):
        return "", "", v
    rest = _trim_left(rest[1:])
    value, after = _consume_value(rest)
    if value == "" and after == rest:
        return "", "", v
    return name, value, after


def _check(mediatype: str) -> None:
    """`checkMediaTypeDisposition`."""
    typ, rest = _consume_token(mediatype)
    if not typ:
        raise MediaTypeError("mime: no media type")
    if not rest:
        return
    if not rest.startswith("/"):
        raise MediaTypeError("mime: expected slash after first token")
    sub, rest = _consume_token(rest[1:])
    if not sub:
        raise MediaTypeError("mime: expected token after slash")
    if rest:
        raise MediaTypeError("mime: unexpected content after media subtype")


def parse_media_type(v: str) -> tuple[str, dict[str, str]]:
    """`mime.ParseMediaType(v)`: (media type lower-cased and trimmed, parameters by lower-cased name); raises
    `MediaTypeError` where Go answers an error (RFC 2231 continuations are kept as their raw pieces, which nothing
    here reads)."""
    base = v.split(";", 1)[0]
    mediatype = _trim(_lower(base))
    _check(mediatype)
    params: dict[str, str] = {}
    continued: dict[str, dict[str, str]] = {}
    v = v[len(base):]
    while v:
        v = _trim_left(v)
        if not v:
            break
        name, value, rest = _consume_param(v)
        if not name:
            if _trim(rest) == ";":  # a trailing semicolon
                break
            raise MediaTypeError("mime: invalid media parameter")
        pmap = continued.setdefault(name.split("*", 1)[0], {}) if "*" in name else params
        if name in pmap and pmap[name] != value:
            raise MediaTypeError("mime: duplicate parameter name")
        pmap[name] = value
        v = rest
    return mediatype, params
