"""Go 1.24's `net/url` (src/net/url/url.go): `Parse`, `ParseRequestURI`, `URL.String`, `EscapedPath`,
`Hostname`, `Port`, `Query`/`ParseQuery`, `PathUnescape`/`QueryUnescape`, `PathEscape`/`QueryEscape`, with Go's
error texts (`parse "<url>": <why>`: `missing protocol scheme`, `first path segment in URL cannot contain colon`,
`invalid character " " in host name`, `invalid port ":x" after host`, `invalid URL escape "%zz"`,
`net/url: invalid control character in URL`, `net/url: invalid userinfo`, `missing ']' in host`, `empty url`,
`invalid URI for request`).

It works on the UTF-8 bytes of the text (strconv.to_bytes), as Go does: a `%` escape may decode to any byte, a
byte of a non-ASCII character is escaped on its own. A URL's fields are texts again. Parsing is memoised (the
same webhook URL, CR value or CEL literal recurs on every request); the URL given back is frozen.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cached_property

from ...memo import remember
from .strconv import quote, quote_bytes, to_bytes, to_text

_PATH, _PATH_SEGMENT, _HOST, _ZONE, _USER_PASSWORD, _QUERY_COMPONENT, _FRAGMENT = range(1, 8)
_HEX = frozenset("0123456789abcdefABCDEF")
_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_CTL = re.compile(r"[\x00-\x1f\x7f]")
_USERINFO = re.compile(r"[A-Za-z0-9\-._:~!$&'()*+,;=%@]*")


class Error(ValueError):
    """The error inside Go's `*url.Error` (`errors.New`, `EscapeError`, `InvalidHostError`)."""


class EscapeError(Error):
    def __init__(self, data: str):
        super().__init__("invalid URL escape " + quote_bytes(data))


class InvalidHostError(Error):
    def __init__(self, data: str):
        super().__init__("invalid character " + quote_bytes(data) + " in host name")


class URLError(ValueError):
    """Go's `*url.Error`: `<op> "<url>": <err>`."""

    def __init__(self, op: str, url: str, err: Error):
        self.op, self.url, self.err = op, url, err
        super().__init__(f"{op} {quote(url)}: {err}")


def _should_escape_slow(c: str, mode: int) -> bool:
    """`shouldEscape` for one byte."""
    if c in _ALNUM:
        return False
    if mode in (_HOST, _ZONE) and c in "!$&'()*+,;=:[]<>\"":
        return False
    if c in "-_.~":
        return False
    if c in "$&+,/:;=?@":
        if mode == _PATH:
            return c == "?"
        if mode == _PATH_SEGMENT:
            return c in "/;,?"
        if mode == _USER_PASSWORD:
            return c in "@/?:"
        if mode == _QUERY_COMPONENT:
            return True
        if mode == _FRAGMENT:
            return False
    if mode == _FRAGMENT and c in "!()*":
        return False
    return True


# per mode, the bytes `shouldEscape` escapes
_ESCAPED = {mode: frozenset(chr(b) for b in range(256) if _should_escape_slow(chr(b), mode))
            for mode in range(1, 8)}


def _char_class(chars: frozenset[str]) -> re.Pattern[str]:
    return re.compile("[" + "".join(sorted(re.escape(c) for c in chars)) + "]")


# the regexes that keep every step linear in C (a CR value or a webhook URL can be megabytes long)
_ESCAPE_RE = {mode: _char_class(chars) for mode, chars in _ESCAPED.items()}
_NOT_ENCODED_RE = {mode: _char_class(chars - frozenset("!$&'()*+,;=:@[]%")) for mode, chars in _ESCAPED.items()}
_HOST_SPECIAL = {mode: _char_class(frozenset(c for c in _ESCAPED[mode] if c < "\x80") | {"%"})
                 for mode in (_HOST, _ZONE)}
_ESCAPE_TABLE = {mode: {ord(c): "+" if c == " " and mode == _QUERY_COMPONENT else f"%{ord(c):02X}" for c in chars}
                 for mode, chars in _ESCAPED.items()}
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
_SCHEME_CHARS = re.compile(r"[A-Za-z0-9+\-.]*")
_OPTIONAL_PORT = re.compile(r"(?::[0-9]*)?")
_HEX_BYTE = {a + b: chr(int(a + b, 16)) for a in _HEX for b in _HEX}


def _decode(s: str) -> str:
    """Every `%XX` of `s` (all valid) as its byte."""
    head, *rest = s.split("%")
    return head + "".join([_HEX_BYTE[part[:2]] + part[2:] for part in rest])


def _unescape(s: str, mode: int) -> str:
    """`unescape`: `%XX` decoded (`+` a space in a query component); a host may %-encode only non-ASCII bytes
    (and `%25` in a zone), and holds only the bytes `shouldEscape(_, encodeHost)` lets through. The first fault
    from the left is the error, as Go's single pass finds it."""
    if mode not in (_HOST, _ZONE):
        if "%" not in s:
            return s.replace("+", " ") if mode == _QUERY_COMPONENT else s
        bad = _BAD_ESCAPE.search(s)
        if bad is not None:
            raise EscapeError(s[bad.start():bad.start() + 3])
        return _decode(s.replace("+", " ") if mode == _QUERY_COMPONENT else s)
    for m in _HOST_SPECIAL[mode].finditer(s):
        i = m.start()
        if m[0] != "%":
            raise InvalidHostError(m[0])
        if i + 2 >= len(s) or s[i + 1] not in _HEX or s[i + 2] not in _HEX:
            raise EscapeError(s[i:i + 3])
        if mode == _HOST and int(s[i + 1], 16) < 8 and s[i:i + 3] != "%25":
            raise EscapeError(s[i:i + 3])
        if mode == _ZONE:
            v = chr(int(s[i + 1:i + 3], 16))
            if s[i:i + 3] != "%25" and v != " " and v in _ESCAPED[_HOST]:
                raise EscapeError(s[i:i + 3])
    return _decode(s) if "%" in s else s


def _escape(s: str, mode: int) -> str:
    """`escape`: each byte `shouldEscape` names as `%XX` (a space `+` in a query component)."""
    if _ESCAPE_RE[mode].search(s) is None:
        return s
    return s.translate(_ESCAPE_TABLE[mode])


def _valid_encoded(s: str, mode: int) -> bool:
    """`validEncoded`: no byte that would need escaping (sub-delims, `:`, `@`, `[`, `]` and `%` allowed)."""
    return _NOT_ENCODED_RE[mode].search(s) is None


def _valid_optional_port(port: str) -> bool:
    """`validOptionalPort`: empty, or `:` and digits."""
    return _OPTIONAL_PORT.fullmatch(port) is not None


def _split_host_port(host_port: str) -> tuple[str, str]:
    """`splitHostPort`: a valid `:port` taken off, then `[` `]` around the host."""
    host, port = host_port, ""
    colon = host.rfind(":")
    if colon != -1 and _valid_optional_port(host[colon:]):
        host, port = host[:colon], host[colon + 1:]
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, port


@dataclass(frozen=True)
class Userinfo:
    """Go's `*url.Userinfo` (texts)."""
    username: str
    password: str = ""
    password_set: bool = False

    def string(self) -> str:
        """`Userinfo.String`: `username[:password]`, escaped for userinfo."""
        s = _escape(to_bytes(self.username), _USER_PASSWORD)
        if self.password_set:
            s += ":" + _escape(to_bytes(self.password), _USER_PASSWORD)
        return to_text(s)


@dataclass(frozen=True)
class URL:
    """Go's `url.URL`; every field a text (`host`, `path`, `fragment` decoded; `raw_*` and `opaque` as written)."""
    scheme: str = ""
    opaque: str = ""
    user: Userinfo | None = None
    host: str = ""
    path: str = ""
    raw_path: str = ""
    omit_host: bool = False
    force_query: bool = False
    raw_query: str = ""
    fragment: str = ""
    raw_fragment: str = ""

    def escaped_path(self) -> str:
        """`EscapedPath`: `raw_path` when it is a valid encoding of `path`, else Go's encoding of `path`."""
        return to_text(self._escaped_path)

    @cached_property
    def _escaped_path(self) -> str:
        raw = to_bytes(self.raw_path)
        if raw and _valid_encoded(raw, _PATH):
            try:
                if _unescape(raw, _PATH) == to_bytes(self.path):
                    return raw
            except Error:
                pass
        if self.path == "*":
            return "*"
        return _escape(to_bytes(self.path), _PATH)

    def escaped_fragment(self) -> str:
        """`EscapedFragment`: as `escaped_path`, for the fragment."""
        raw = to_bytes(self.raw_fragment)
        if raw and _valid_encoded(raw, _FRAGMENT):
            try:
                if _unescape(raw, _FRAGMENT) == to_bytes(self.fragment):
                    return self.raw_fragment
            except Error:
                pass
        return to_text(_escape(to_bytes(self.fragment), _FRAGMENT))

    def string(self) -> str:
        """`URL.String`: `scheme:opaque?query#fragment` or `scheme://userinfo@host/path?query#fragment`."""
        buf: list[str] = []
        if self.scheme:
            buf += [self.scheme, ":"]
        if self.opaque:
            buf.append(to_bytes(self.opaque))
        else:
            if self.scheme or self.host or self.user is not None:
                if not (self.omit_host and self.host == "" and self.user is None):
                    if self.host or self.path or self.user is not None:
                        buf.append("//")
                    if self.user is not None:
                        buf += [to_bytes(self.user.string()), "@"]
                    if self.host:
                        buf.append(_escape(to_bytes(self.host), _HOST))
            path = self._escaped_path
            if path and path[0] != "/" and self.host:
                buf.append("/")
            if not "".join(buf) and ":" in path.partition("/")[0]:
                buf.append("./")
            buf.append(path)
        if self.force_query or self.raw_query:
            buf += ["?", to_bytes(self.raw_query)]
        if self.fragment:
            buf += ["#", to_bytes(self.escaped_fragment())]
        return to_text("".join(buf))

    def hostname(self) -> str:
        """`Hostname`: the host without a valid port, `[` `]` removed."""
        return _split_host_port(self.host)[0]

    def port(self) -> str:
        """`Port`: the host's numeric port, or ""."""
        return _split_host_port(self.host)[1]

    def request_uri(self) -> str:
        """`RequestURI`: the encoded `path?query` (or `opaque?query`) an HTTP request names."""
        result = self.opaque
        if not result:
            result = self.escaped_path() or "/"
        elif result.startswith("//"):
            result = self.scheme + ":" + result
        if self.force_query or self.raw_query:
            result += "?" + self.raw_query
        return result

    def query(self) -> dict[str, list[str]]:
        """`Query`: `ParseQuery(raw_query)`, malformed pairs dropped."""
        return parse_query(self.raw_query)[0]


def _get_scheme(raw: str) -> tuple[str, str]:
    """`getScheme`: `[a-zA-Z][a-zA-Z0-9+-.]*` before a `:`, else no scheme (`:` first: missing scheme)."""
    end = _SCHEME_CHARS.match(raw).end()  # type: ignore[union-attr]
    if end == len(raw) or raw[end] != ":":
        return "", raw
    if end == 0:
        raise Error("missing protocol scheme")
    if not ("a" <= raw[0] <= "z" or "A" <= raw[0] <= "Z"):
        return "", raw
    return raw[:end], raw[end + 1:]


def _parse_host(host: str) -> str:
    """`parseHost`: `host[:port]`, an IP-literal in brackets with an optional RFC 6874 zone."""
    if host.startswith("["):
        i = host.rfind("]")
        if i < 0:
            raise Error("missing ']' in host")
        colon_port = host[i + 1:]
        if not _valid_optional_port(colon_port):
            raise Error(f"invalid port {quote_bytes(colon_port)} after host")
        zone = host[:i].find("%25")
        if zone >= 0:
            return _unescape(host[:zone], _HOST) + _unescape(host[zone:i], _ZONE) + _unescape(host[i:], _HOST)
    else:
        i = host.rfind(":")
        if i != -1 and not _valid_optional_port(host[i:]):
            raise Error(f"invalid port {quote_bytes(host[i:])} after host")
    return _unescape(host, _HOST)


def _parse_authority(authority: str) -> tuple[Userinfo | None, str]:
    """`parseAuthority`: `[userinfo@]host`, the last `@` ending the userinfo."""
    i = authority.rfind("@")
    host = _parse_host(authority if i < 0 else authority[i + 1:])
    if i < 0:
        return None, to_text(host)
    userinfo = authority[:i]
    if _USERINFO.fullmatch(userinfo) is None:
        raise Error("net/url: invalid userinfo")
    if ":" not in userinfo:
        return Userinfo(to_text(_unescape(userinfo, _USER_PASSWORD))), to_text(host)
    username, _, password = userinfo.partition(":")
    return (Userinfo(to_text(_unescape(username, _USER_PASSWORD)), to_text(_unescape(password, _USER_PASSWORD)),
                     True), to_text(host))


def _path_fields(p: str) -> dict[str, str]:
    """`setPath`: `path` decoded, `raw_path` only when Go's encoding of it differs from what was written."""
    path = _unescape(p, _PATH)
    return {"path": to_text(path), "raw_path": "" if _escape(path, _PATH) == p else to_text(p)}


def _parse(raw: str, via_request: bool) -> URL:
    """`parse` on the bytes `raw`: an absolute URL or path-absolute reference only when `via_request`."""
    if _CTL.search(raw):
        raise Error("net/url: invalid control character in URL")
    if raw == "" and via_request:
        raise Error("empty url")
    if raw == "*":
        return URL(path="*")
    scheme, rest = _get_scheme(raw)
    scheme = scheme.lower()
    fields: dict[str, object] = {"scheme": scheme}
    if rest.endswith("?") and rest.count("?") == 1:
        fields["force_query"], rest = True, rest[:-1]
    else:
        rest, _, query = rest.partition("?")
        fields["raw_query"] = to_text(query)
    if not rest.startswith("/"):
        if scheme:
            return URL(opaque=to_text(rest), **fields)  # type: ignore[arg-type]
        if via_request:
            raise Error("invalid URI for request")
        if ":" in rest.partition("/")[0]:
            raise Error("first path segment in URL cannot contain colon")
    if (scheme or not via_request and not rest.startswith("///")) and rest.startswith("//"):
        authority, rest = rest[2:], ""
        i = authority.find("/")
        if i >= 0:
            authority, rest = authority[:i], authority[i:]
        fields["user"], fields["host"] = _parse_authority(authority)
    elif scheme and rest.startswith("/"):
        fields["omit_host"] = True
    fields.update(_path_fields(rest))
    return URL(**fields)  # type: ignore[arg-type]


def _parse_with_fragment(raw: str) -> URL:
    """`Parse` on bytes: the fragment cut off, the rest parsed, then `setFragment`."""
    head, _, frag = raw.partition("#")
    try:
        url = _parse(head, False)
    except Error as exc:
        raise _Located(head, exc) from None
    if not frag:
        return url
    try:
        decoded = _unescape(frag, _FRAGMENT)
    except Error as exc:
        raise _Located(raw, exc) from None
    return replace(url, fragment=to_text(decoded),
                   raw_fragment="" if _escape(decoded, _FRAGMENT) == frag else to_text(frag))


class _Located(Exception):
    """An error and the text `*url.Error` names (Parse names the URL without its fragment when that failed)."""

    def __init__(self, where: str, err: Error):
        self.where, self.err = where, err


_MEMO: dict[tuple[str, bool], URL | tuple[str, Error]] = {}
_MEMO_TEXT_LIMIT = 2048


def _memo_parse(raw: str, request: bool) -> URL:
    hit = _MEMO.get((raw, request))
    if hit is None:
        data = to_bytes(raw)
        try:
            if request:
                try:
                    hit = _parse(data, True)
                except Error as exc:
                    raise _Located(data, exc) from None
            else:
                hit = _parse_with_fragment(data)
        except _Located as exc:
            hit = (to_text(exc.where), exc.err)
        if len(raw) <= _MEMO_TEXT_LIMIT:  # what recurs is short; a megabyte value is not kept
            remember(_MEMO, (raw, request), hit, 4096)
    if isinstance(hit, tuple):
        raise URLError("parse", hit[0], hit[1])
    return hit


def parse(raw: str) -> URL:
    """`url.Parse`: any URL reference; URLError with Go's text otherwise."""
    return _memo_parse(raw, False)


def parse_request_uri(raw: str) -> URL:
    """`url.ParseRequestURI`: an absolute URI or an absolute path, no fragment cut off; URLError otherwise."""
    return _memo_parse(raw, True)


def path_unescape(s: str) -> str:
    """`PathUnescape` (Error with Go's text)."""
    return to_text(_unescape(to_bytes(s), _PATH_SEGMENT))


def query_unescape(s: str) -> str:
    """`QueryUnescape`: as `path_unescape`, `+` a space."""
    return to_text(_unescape(to_bytes(s), _QUERY_COMPONENT))


def path_escape(s: str) -> str:
    """`PathEscape`: safe inside one path segment."""
    return to_text(_escape(to_bytes(s), _PATH_SEGMENT))


def query_escape(s: str) -> str:
    """`QueryEscape`: safe inside a query component."""
    return to_text(_escape(to_bytes(s), _QUERY_COMPONENT))


def parse_query(query: str) -> tuple[dict[str, list[str]], Error | None]:
    """`ParseQuery`: the valid `key=value` pairs and the error Go reports (a `;` in a pair, else the first bad
    escape)."""
    out: dict[str, list[str]] = {}
    err: Error | None = None
    for key in query.split("&") if query else ():
        if ";" in key:
            err = Error("invalid semicolon separator in query")
            continue
        if not key:
            continue
        key, _, value = key.partition("=")
        try:
            key = query_unescape(key)
            value = query_unescape(value)
        except Error as exc:
            err = err or exc
            continue
        out.setdefault(key, []).append(value)
    return out, err
