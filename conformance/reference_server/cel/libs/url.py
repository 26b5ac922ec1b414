"""`library.URLs` (`staging/src/k8s.io/apiserver/pkg/cel/library/urls.go`): `url`, `isURL`, `getScheme`, `getHost`,
`getHostname`, `getPort`, `getEscapedPath`, `getQuery`, on the port of Go's `net/url` (gonet/url.py):
`url.ParseRequestURI` decides what is a URL and words the error, `url.Parse` (which splits the fragment off) gives
the URL the getters read: `URL.Host` (decoded), `Hostname()`, `Port()`, `EscapedPath()`, `Query()`. Parsing is
memoised by gonet, so a URL value (which keeps its text) costs a dict lookup per getter."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...goport.gonet import url as gourl
from ...goport.gonet.strconv import valid_text as _valid  # a Go string as a CEL string
from .values import URL, LibraryError, unwrap, wrap


def parse_request_uri(raw: str) -> None:
    """`url.ParseRequestURI`: LibraryError with Go's `parse "<url>": <reason>`."""
    try:
        gourl.parse_request_uri(raw)
    except gourl.URLError as exc:
        raise LibraryError(_valid(str(exc))) from None


def url(value: Any) -> dict[str, Any]:
    """`stringToUrl`: ParseRequestURI's verdict, then Parse (whose error is worded the same way)."""
    if not isinstance(value, str):
        raise LibraryError("no such overload: url")
    try:
        gourl.parse_request_uri(value)
        gourl.parse(value)
    except gourl.URLError as exc:
        raise LibraryError(f"URL parse error during conversion from string: {_valid(str(exc))}") from None
    return wrap(URL, url=value)


def is_url(value: Any) -> bool:
    if not isinstance(value, str):
        raise LibraryError("no such overload: isURL")
    try:
        gourl.parse_request_uri(value)
    except gourl.URLError:
        return False
    return True


def _parsed(value: Any, function: str) -> gourl.URL:
    return gourl.parse(unwrap(value, URL, function)["url"])


def _query(u: gourl.URL) -> dict[str, list[str]]:
    return {_valid(k): [_valid(v) for v in vs] for k, vs in u.query().items()}


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "url": url, "isURL": is_url,
    "getScheme": lambda v: _parsed(v, "getScheme").scheme,
    "getHost": lambda v: _valid(_parsed(v, "getHost").host),
    "getHostname": lambda v: _valid(_parsed(v, "getHostname").hostname()),
    "getPort": lambda v: _parsed(v, "getPort").port(),
    "getEscapedPath": lambda v: _valid(_parsed(v, "getEscapedPath").escaped_path()),
    "getQuery": lambda v: _query(_parsed(v, "getQuery")),
}
