"""`library.URLs` (`staging/src/k8s.io/apiserver/pkg/cel/library/urls.go`): `url`, `isURL`, `getScheme`, `getHost`,
`getHostname`, `getPort`, `getEscapedPath`, `getQuery`, with Go's `net/url` rules (`url.go`: `ParseRequestURI`
decides what is a URL and words the error, `Parse` splits the fragment off before the getters read the parts)."""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from .values import URL, LibraryError, go_quote, unwrap, wrap

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*")
_HEX = "0123456789abcdefABCDEF"


class _URLError(ValueError):
    pass


def _unescape_check(text: str, host: bool) -> None:
    i = 0
    while i < len(text):
        if text[i] == "%":
            chunk = text[i:i + 3]
            if len(chunk) < 3 or chunk[1] not in _HEX or chunk[2] not in _HEX:
                raise _URLError(f"invalid URL escape {go_quote(chunk)}")
            i += 3
            continue
        if host and (text[i] < "!" or text[i] in "\"<>\\^`{|}" or ord(text[i]) == 0x7F):
            raise _URLError(f"invalid character {go_quote(text[i])} in host name")
        i += 1


def _valid_port(port: str) -> bool:
    return port == "" or (port.startswith(":") and all("0" <= c <= "9" for c in port[1:]))


def _check_host(host: str) -> None:
    if host.startswith("["):
        end = host.rfind("]")
        if end < 0:
            raise _URLError("missing ']' in host")
        if not _valid_port(host[end + 1:]):
            raise _URLError(f"invalid port {go_quote(host[end + 1:])} after host")
    elif ":" in host:
        port = host[host.rfind(":"):]
        if not _valid_port(port):
            raise _URLError(f"invalid port {go_quote(port)} after host")
    _unescape_check(host, True)


_USERINFO_OK = re.compile(r"[A-Za-z0-9\-._:~!$&'()*+,;=%@]*")


def _split(raw: str, via_request: bool) -> dict[str, str]:
    """Go's `url.parse`: scheme, userinfo, host, path, raw query, fragment (the fragment only when not
    `via_request`)."""
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in raw):
        raise _URLError("net/url: invalid control character in URL")
    if raw == "" and via_request:
        raise _URLError("empty url")
    parts = {"scheme": "", "user": "", "host": "", "path": "", "query": "", "fragment": ""}
    rest = raw
    if not via_request:
        rest, _, parts["fragment"] = rest.partition("#")
    m = _SCHEME.match(rest)
    if rest.startswith(":"):
        raise _URLError("missing protocol scheme")
    if m and rest[m.end():m.end() + 1] == ":":
        parts["scheme"], rest = rest[:m.end()].lower(), rest[m.end() + 1:]
    if "?" in rest:
        rest, _, parts["query"] = rest.partition("?")
    if not rest.startswith("/"):
        if parts["scheme"]:
            parts["path"] = rest  # opaque
            return parts
        if via_request:
            raise _URLError("invalid URI for request")
        if ":" in rest.split("/", 1)[0]:
            raise _URLError("first path segment in URL cannot contain colon")
    if (parts["scheme"] or not via_request and not rest.startswith("///")) and rest.startswith("//"):
        authority, slash, rest = rest[2:].partition("/")
        rest = slash + rest
        user, at, host = authority.rpartition("@")
        if at:
            if not _USERINFO_OK.fullmatch(user):
                raise _URLError("net/url: invalid userinfo")
            parts["user"] = user
        _check_host(host)
        parts["host"] = host
    _unescape_check(rest, False)
    parts["path"] = rest
    return parts


def parse_request_uri(raw: str) -> None:
    """`url.ParseRequestURI`: LibraryError with Go's `parse "<url>": <reason>`."""
    try:
        _split(raw, True)
    except _URLError as exc:
        raise LibraryError(f"parse {go_quote(raw)}: {exc}") from None


def url(value: Any) -> dict[str, Any]:
    if not isinstance(value, str):
        raise LibraryError("no such overload: url")
    try:
        parse_request_uri(value)
    except LibraryError as exc:
        raise LibraryError(f"URL parse error during conversion from string: {exc}") from None
    return wrap(URL, url=value)


def is_url(value: Any) -> bool:
    if not isinstance(value, str):
        raise LibraryError("no such overload: isURL")
    try:
        parse_request_uri(value)
    except LibraryError:
        return False
    return True


def _parts(value: Any, function: str) -> dict[str, str]:
    return _split(unwrap(value, URL, function)["url"], False)


def _hostname(host: str) -> str:
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host[1:]
    return host.rpartition(":")[0] if ":" in host else host


def _port(host: str) -> str:
    if host.startswith("["):
        host = host[host.find("]") + 1:]
    return host.rpartition(":")[2] if ":" in host else ""


_PATH_KEEP = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~$&+,/:;=@")
_VALID_ENCODED = _PATH_KEEP | frozenset("!'()*[]%")


def escaped_path(path: str) -> str:
    """`URL.EscapedPath`: the path as written when it is validly encoded, else Go's `escape(path, encodePath)`."""
    if path and all(c in _VALID_ENCODED for c in path):
        return path
    return "".join(c if c in _PATH_KEEP else "".join(f"%{b:02X}" for b in c.encode()) for c in unquote(path))


def query(raw: str) -> dict[str, list[str]]:
    """`url.ParseQuery`: `&`-separated pairs, `+` a space; a pair with `;` or a bad escape is skipped."""
    out: dict[str, list[str]] = {}
    for pair in raw.split("&"):
        if not pair or ";" in pair:
            continue
        key, _, val = pair.partition("=")
        try:
            _unescape_check(key, False)
            _unescape_check(val, False)
        except _URLError:
            continue
        out.setdefault(unquote(key.replace("+", " ")), []).append(unquote(val.replace("+", " ")))
    return out


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "url": url, "isURL": is_url,
    "getScheme": lambda v: _parts(v, "getScheme")["scheme"],
    "getHost": lambda v: _parts(v, "getHost")["host"],
    "getHostname": lambda v: _hostname(_parts(v, "getHostname")["host"]),
    "getPort": lambda v: _port(_parts(v, "getPort")["host"]),
    "getEscapedPath": lambda v: escaped_path(_parts(v, "getEscapedPath")["path"]),
    "getQuery": lambda v: query(_parts(v, "getQuery")["query"]),
}
