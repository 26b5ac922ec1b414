"""Pretty-printed JSON answers, as kube-apiserver 1.33 writes them for people.

Upstream: `staging/src/k8s.io/apiserver/pkg/endpoints/handlers/negotiation/negotiate.go`
`NegotiateOutputMediaType` picks the JSON serializer's `PrettySerializer` (apimachinery
`runtime/serializer/codec_factory.go`: built by default, `CodecFactoryOptions{Pretty: true}`; JSON only, YAML and
protobuf have none) when the accepted media type says `pretty=1` (`acceptMediaTypeOptions`: the parameter of the
one clause `NegotiateMediaTypeOptions` accepted, exactly `1`: `pretty="1"` is not, goautoneg keeping quotes;
another clause's says nothing) or `isPrettyPrint`: the `pretty` query parameter
when set (`strconv.ParseBool`, anything unparsable is false), else a User-Agent starting with `curl`, `Wget` or
`Mozilla/5.0`. That serializer (`runtime/serializer/json/json.go` `doEncode`) writes `json.MarshalIndent(obj, "",
"  ")`: two spaces, `"key": value`, `{}` and `[]` when empty, no trailing newline. Every answer
`WriteObjectNegotiated` writes goes through it (objects, lists, Tables, Status errors, discovery); watch events do
not (`NegotiateOutputMediaTypeStream` has no pretty serializer), nor `WriteRawJSON` answers (`/version`, already
indented) or the OpenAPI documents (kube-openapi's own handlers).

Here: a prepare hook (http/app.py) re-indents, byte for byte as Go's `json.Indent` does, a JSON answer written by
the negotiated serializer (`respond.dumps_line`: compact, ending in a newline, which nothing else here writes), so
the memoised GET bytes stay as they are and a request that is not pretty pays a few comparisons. The accepted
clause is found again from the answer (`_accepted_says_pretty`): the negotiation that chose it (`wire.negotiation`,
http/respond.py, http/aggregated.py) is done by many paths and memoised, and an Accept header naming `pretty` is rare.
"""
from __future__ import annotations

import re
from typing import Any

from aiohttp import hdrs, web
from multidict import istr

from ..wire.negotiation import JSON, options_refused, parse_accept

_TRUE = frozenset(("1", "t", "T", "TRUE", "true", "True"))  # strconv.ParseBool's true
_PEOPLE = ("curl", "Wget", "Mozilla/5.0")
_USER_AGENT, _ACCEPT = istr("User-Agent"), istr("Accept")  # (case-insensitive keys made once: every answer asks)
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\],:]|[^{}\[\],:"]+')  # compact JSON: strings, punctuation, literals
_JSON_RANGES = frozenset(("application/json", "application/*", "*/*"))  # the clauses a JSON answer can come from
# an answer converted as a clause's `as`/`g`/`v` asked (`respond._transform`, aggregated discovery): its kind, group
# and version, written first by those modules
_CONVERTED = re.compile(rb'\{"kind":"(Table|PartialObjectMetadata|PartialObjectMetadataList|APIGroupDiscoveryList)",'
                        rb'"apiVersion":"([^"/]+)/([^"]+)"')
_META_TRANSFORMS = frozenset(("Table", "PartialObjectMetadata", "PartialObjectMetadataList"))


def is_pretty(request: Any, response: Any) -> bool:
    """`isPrettyPrint`, or the `pretty=1` parameter of the Accept clause that `response` (a JSON answer) was
    negotiated from. Cheapest tests first: every answer asks."""
    if "pretty" in request.raw_path:
        value = request.query.get("pretty", "")
        if value:
            return value in _TRUE
    headers = request.headers
    agent = headers.get(_USER_AGENT)
    if agent is not None and agent.startswith(_PEOPLE):
        return True
    accept = headers.get(_ACCEPT)
    return accept is not None and "pretty" in accept and _accepted_says_pretty(accept, response)


def _accepted_says_pretty(accept: str, response: Any) -> bool:
    """Whether the clause a JSON answer was negotiated from says `pretty=1`. The clauses in goautoneg's order;
    the first one that yields this answer is the accepted one: a JSON range without `as`/`g`/`v` (every endpoint
    takes it), or with exactly the conversion the answer shows; for an error, any meta.k8s.io conversion
    (`respond.error_response` negotiates as a resource endpoint, and the Status is written whatever `as` says).
    A YAML or protobuf clause before it was refused (else the answer would not be JSON)."""
    body = response._body
    if type(body) is not bytes:
        return False  # (`pretty_hook` leaves such answers alone)
    converted = _CONVERTED.match(body)
    shown = converted.groups() if converted else None
    error = response.status >= 400
    for clause in parse_accept(accept):
        params = clause.params
        if f"{clause.type}/{clause.subtype}" not in _JSON_RANGES or options_refused(params, JSON, True):
            continue
        convert = (params.get("as"), params.get("g"), params.get("v"))
        if convert != (None, None, None):
            wanted = tuple(v.encode() if v is not None else None for v in convert)
            meta = convert[0] in _META_TRANSFORMS and convert[1] == "meta.k8s.io" and convert[2] in ("v1", "v1beta1")
            if wanted != shown and not (error and meta):
                continue
        return params.get("pretty") == "1"
    return False


def indent(text: str) -> str:
    """Go's `json.Indent(dst, compact, "", "  ")` of compact JSON text."""
    out: list[str] = []
    depth = 0
    opened = False  # the last token opened an object or array (Go's `needIndent`: `{}` and `[]` stay so)
    for match in _TOKENS.finditer(text):
        token = match.group()
        c = token[0]
        if opened and c not in "]}":
            opened = False
            depth += 1
            out.append("\n" + "  " * depth)
        if c in "{[":
            out.append(token)
            opened = True
        elif c in "]}":
            if opened:
                opened = False
            else:
                depth -= 1
                out.append("\n" + "  " * depth)
            out.append(token)
        elif c == ",":
            out.append(",\n" + "  " * depth)
        elif c == ":":
            out.append(": ")
        else:
            out.append(token)
    return "".join(out)


def pretty_hook(request: Any, response: Any) -> None:
    """The prepare hook: a negotiated JSON answer (compact, ending in a newline) to a request `is_pretty` judges
    pretty, written as `json.MarshalIndent` writes it."""
    if type(response) is not web.Response or not is_pretty(request, response):
        return
    body = response._body
    if type(body) is not bytes or body[-2:] != b"}\n" or response.content_type != "application/json":
        return
    pretty = indent(body[:-1].decode("utf-8")).encode("utf-8")
    response.body = pretty
    if hdrs.CONTENT_LENGTH in response._headers:  # (aiohttp's own writer counted the body before the hooks)
        response._headers[hdrs.CONTENT_LENGTH] = str(len(pretty))
