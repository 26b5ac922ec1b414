"""The request's path as kube-apiserver reads it: `req.URL.Path`, the request target's path `%`-unescaped by Go.

Follows Go 1.24's net/url (`parse` with `viaRequest`: the path is all the target holds before its first `?`, a `#`
included; `setPath` stores `unescape(p, encodePath)`, in which `%XX` makes any byte and a raw byte above 0x7f is
kept as sent) and k8s.io/apiserver pkg/endpoints/request/requestinfo.go (`NewRequestInfo` splits `req.URL.Path`).
A name in such a path holding the byte 0xff passes `path.IsValidPathSegmentName` (only `.`, `..`, `/` and `%` are
refused), so `/api/v1/namespaces/a%FF` is a name not found (the 404, `namespaces "a\\xff" not found`).

aiohttp's `request.path` is yarl's decoding, which agrees with Go's except for an escape of a byte that is not
UTF-8: yarl leaves `%FF` escaped (and the name was refused for its `%`). So only a target that holds a `%`-escape
of a byte >= 0x80 or a raw byte above 0x7f (aiohttp's request line, decoded `utf-8`/`surrogateescape`) is decoded
here; a byte that is not UTF-8 is kept surrogate-escaped, as http/goquery.py keeps a query's, so `%q` writes
`\\xff` and Go's JSON encoder's `\\ufffd` is written for it. A bad escape in the path (`%zz`) is Go's bare 400
(`bad_escape`, checked by connection.py for every head that holds a `%`).
"""
from __future__ import annotations

import re

from ..goport.gonet.url import Error, path_unescape

_HIGH = re.compile(r"%[89A-Fa-f][0-9A-Fa-f]|[^\x00-\x7f]")
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")


def bad_escape(target: str) -> bool:
    """Whether `url.ParseRequestURI` refuses the target's path (`invalid URL escape "%zz"`: a `%` not followed by
    two hex digits before the first `?`), which net/http's `readRequest` answers with the bare 400 before any
    handler (connection.py), where yarl kept the `%` in the name. Called only for a target holding a `%`."""
    return _BAD_ESCAPE.search(target.partition("?")[0]) is not None


def go_path(target: str) -> str | None:
    """`URL.Path` of a request target (aiohttp's `message.path`) when it differs from yarl's reading of it (an
    escape of a byte >= 0x80, or a raw one), else None: yarl's is then Go's. A bad escape is left to yarl's
    reading too (None), as before."""
    path = target.partition("?")[0]
    if _HIGH.search(path) is None:
        return None
    try:
        return path_unescape(path)
    except Error:
        return None
