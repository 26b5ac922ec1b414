"""The request's query as kube-apiserver's handlers read it: `req.URL.Query()` of the request line's own bytes.

Follows Go 1.24's net/url (`parse` with `viaRequest`: `RawQuery` is all the request target holds after its first
`?`, a `#` included; `Values.Query` is `ParseQuery` with its error dropped) and net/http (`readRequest` hands the
target over as sent; a `;` in the query is only logged, go.dev/issue/25192). `parseQuery` leaves out a pair holding
a `;` and one whose key or value has a bad `%` escape, reads `+` as a space, and lets `%XX` make any byte. A byte
that is not UTF-8 is kept as surrogate-escaped text (the request line's bytes as aiohttp's parser decoded them,
`utf-8`/`surrogateescape`), so a message quoting the value with `%q` (`strconv.Quote`) writes `\\xff` as Go does;
aiohttp's own `request.query` (yarl) would have made it U+FFFD, kept a pair with a `;` or a bad escape, and cut the
query at a `#`.
"""
from __future__ import annotations

from multidict import MultiDict, MultiDictProxy

from ..goport.gonet.url import Error, query_unescape
from ..memo import remember

NO_QUERY: MultiDictProxy[str] = MultiDictProxy(MultiDict())
_PARSED: dict[str, MultiDictProxy[str]] = {"": NO_QUERY}
_PARSED_MAX = 1024


def raw_query(target: str) -> str:
    """`URL.RawQuery` of a request target (aiohttp's `message.path`): what follows its first `?`."""
    return target.partition("?")[2]


def parse(raw: str) -> MultiDictProxy[str]:
    """`url.ParseQuery(raw)` with its error dropped, as a multidict in the pairs' order. Memoised: clients send the
    same few queries over and over, and the answer is read-only (a proxy), so requests may share it."""
    hit = _PARSED.get(raw)
    if hit is not None:
        return hit
    pairs: list[tuple[str, str]] = []
    for pair in raw.split("&"):
        if not pair or ";" in pair:  # "invalid semicolon separator in query": the pair is left out
            continue
        key, _, value = pair.partition("=")
        if "%" in pair or "+" in pair or not pair.isascii():
            try:
                key, value = query_unescape(key), query_unescape(value)
            except Error:  # `invalid URL escape "%zz"`: the pair is left out
                continue
        pairs.append((key, value))
    return remember(_PARSED, raw, MultiDictProxy(MultiDict(pairs)) if pairs else NO_QUERY, _PARSED_MAX)


def request_query(target: str) -> MultiDictProxy[str]:
    """The query of a request target as `req.URL.Query()` reads it."""
    return parse(raw_query(target)) if "?" in target else NO_QUERY
