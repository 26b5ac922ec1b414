"""`/openapi/v2` and `/openapi/v3[...]` as kube-openapi's handlers answer them.

`/openapi/v2` follows `pkg/handler/handler.go` (`RegisterOpenAPIVersionedService` behind `gziphandler`):
the first Accept clause (goautoneg's parse and order, wire/goautoneg.py: case-sensitive, q only ordering)
matching JSON, the deprecated protobuf
`application/com.github.proto-openapi.spec.v2@v1.0+protobuf` or `...spec.v2.v1.0+protobuf` gets that form
(both protobuf types answered as `...spec.v2.v1.0+protobuf`), nothing matching gets 406 without a body; every
answer has `Vary: Accept-Encoding` and `Vary: Accept`, the quoted upper-case hex SHA-512 of the JSON as
`Etag` (one for both forms), `Last-Modified` (when the document was built), and Go's `http.ServeContent`
preconditions: a matching `If-None-Match` (or, without one, an `If-Modified-Since` not older than the
document) gets 304 without a body; bodies of 1400 bytes or more are gzipped for a client that accepts gzip.

Documents are built on first request and their bytes kept per set of served kinds (a CRD changes the set),
so start-up does no OpenAPI work and a repeated request costs a dictionary lookup.
"""
from __future__ import annotations

import gzip
import hashlib
import threading
import time
from dataclasses import dataclass, field
from email.utils import formatdate, parsedate_to_datetime
from typing import Any, Callable, Mapping

from aiohttp import web
from multidict import CIMultiDict

from ..goport.gostrconv import parse_float
from ..wire.goautoneg import parse_accept
from .respond import dumps

JSON = "application/json"
PB = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
PB_DEPRECATED = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
_OFFERS = (JSON, PB_DEPRECATED, PB)  # kube-openapi's order
GZIP_MIN_SIZE = 1400  # gziphandler.DefaultMinSize


@dataclass
class _Served:
    """One document's bytes in each form, made on first need."""

    json: bytes
    etag: str
    modified: float
    _pb: bytes | None = None
    _gzip: dict[str, bytes] = field(default_factory=dict)

    def body(self, media: str, pb: Callable[[], bytes]) -> bytes:
        if media == JSON:
            return self.json
        if self._pb is None:
            self._pb = pb()
        return self._pb

    def gzipped(self, media: str, body: bytes) -> bytes:
        if media not in self._gzip:
            self._gzip[media] = gzip.compress(body, compresslevel=6, mtime=0)
        return self._gzip[media]


def served(doc: dict[str, Any], html: bool = True) -> _Served:
    """A document's bytes, ETag and time. `html` False for `/openapi/v2`: kube-openapi's `handler.go` writes
    `spec.MarshalJSON()` (go-json-experiment's `jsonv2.Marshal`, `<`, `>`, `&` raw), where `/openapi/v3`'s
    `json.Marshal` (encoding/json) escapes them."""
    raw = dumps(doc, html)
    return _Served(raw, '"' + hashlib.sha512(raw).hexdigest().upper() + '"', time.time())


class Cache:
    """The OpenAPI documents of the last few sets of served kinds."""

    def __init__(self, limit: int = 4):
        self._limit = limit
        self._entries: dict[Any, dict[str, Any]] = {}
        self._lock = threading.Lock()  # replicas in one process share it; building twice would only waste time

    def get(self, key: Any, build: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        entry = self._entries.get(key)
        if entry is None:
            with self._lock:
                entry = self._entries.get(key)
                if entry is None:
                    entry = build()
                    if len(self._entries) >= self._limit:
                        self._entries.pop(next(iter(self._entries)))
                    self._entries[key] = entry
        return entry


CACHE = Cache()


def kinds_key(kinds: list[Any]) -> tuple[Any, ...]:
    """A hashable signature of the served kinds (KindInfo's subresources are a dict)."""
    return tuple((k.group, k.version, k.kind, k.plural, k.singular, k.namespaced, tuple(k.short_names),
                  tuple(k.verbs), tuple(sorted((s, tuple(v)) for s, v in k.subresources.items())),
                  getattr(k, "list_kind", ""), _crd_version(k)) for k in kinds)


def _crd_version(k: Any) -> Any:
    """A custom resource's CRD (uid, resourceVersion): its documents are rebuilt when the CRD changes."""
    crd = getattr(k, "crd", None)
    return None if crd is None else (crd["metadata"].get("uid"), crd["metadata"].get("resourceVersion"))


def _clauses(accept: str | None) -> list[tuple[str, str]]:
    """(type, subtype) of goautoneg.ParseAccept's clauses, in its order (wire/goautoneg.py: case kept, q-values
    only ordering them); a missing or empty header is `*/*`."""
    return [(c.type, c.subtype) for c in parse_accept(accept or "*/*")]


def negotiate_v2(accept: str | None) -> str | None:
    """The media type kube-openapi's v2 handler picks for `accept` (JSON, or one of the protobuf types), else
    None (406)."""
    for typ, sub in _clauses(accept):
        for offer in _OFFERS:
            otype, _, osub = offer.partition("/")
            if typ in (otype, "*") and sub in (osub, "*"):
                return offer
    return None


def _accepts_gzip(value: str | None) -> bool:
    """gziphandler v1.1.1's `acceptsGzip` (`parseEncodings`, `parseCoding`): each comma-separated coding, lower-cased,
    with the q-value its last `;` part leaves (every part resets it to 1, a `q=` part sets `ParseFloat(s, 64)` of
    it, clamped to [0, 1]; one that does not parse drops the coding); the last `gzip` wins; `*` is not gzip."""
    codings: dict[str, float] = {}
    for coding_text in (value or "").split(","):
        coding, q, ok = "", 1.0, True
        for n, part in enumerate(coding_text.split(";")):
            part = part.strip()  # (strings.TrimSpace)
            q = 1.0
            if n == 0:
                coding = part.lower()
            elif part.startswith("q="):
                q, parsed = parse_float(part[2:], 64)
                ok = ok and parsed
                q = 0.0 if q < 0 else 1.0 if q > 1 else q
        if ok and coding:
            codings[coding] = q
    return codings.get("gzip", 0.0) > 0


def _not_modified(headers: Mapping[str, str], doc: _Served) -> bool:
    """net/http `checkIfNoneMatch` (weak comparison, `*`), else `checkIfModifiedSince` (whole seconds)."""
    inm = headers.get("If-None-Match")
    if inm is not None:
        tags = [t.strip() for t in inm.split(",")]
        return any(t == "*" or t.removeprefix("W/") == doc.etag for t in tags)
    ims = headers.get("If-Modified-Since")
    if ims:
        try:
            since = parsedate_to_datetime(ims).timestamp()
        except (TypeError, ValueError, IndexError, OverflowError):
            return False
        return int(doc.modified) <= since
    return False


def v2_response(doc: _Served, pb: Callable[[], bytes], headers: Mapping[str, str], method: str = "GET"
                ) -> web.Response:
    """kube-openapi's v2 handler answer for one request (see the module's docstring)."""
    out: CIMultiDict[str] = CIMultiDict()
    out.add("Vary", "Accept-Encoding")
    out.add("Vary", "Accept")
    media = negotiate_v2(headers.get("Accept"))
    if media is None:
        return web.Response(status=406, headers=out)
    out["Content-Type"] = PB if media == PB_DEPRECATED else media
    out["Etag"] = doc.etag
    out["Last-Modified"] = formatdate(doc.modified, usegmt=True)
    if _not_modified(headers, doc):
        del out["Content-Type"]
        del out["Last-Modified"]  # writeNotModified: dropped when an Etag is set
        return web.Response(status=304, headers=out)
    body = doc.body(media, pb)
    out["Accept-Ranges"] = "bytes"
    if len(body) >= GZIP_MIN_SIZE and _accepts_gzip(headers.get("Accept-Encoding")):
        body = doc.gzipped(media, body)
        out["Content-Encoding"] = "gzip"
    return web.Response(body=None if method == "HEAD" else body, status=200, headers=out)


# `/openapi/v3` and `/openapi/v3/<group-version>`: kube-openapi's `pkg/handler3/handler.go`. No gzip here (the
# v3 handler is not wrapped in gziphandler as the v2 one is). A group-version is offered as JSON, then gnostic's
# protobuf under both names (the deprecated one answered as `...spec.v3.v1.0+protobuf`), one Etag (the JSON's
# SHA-512) for every form; the protobuf is made from the JSON bytes on first request (`ToV3ProtoBinary`). The
# discovery index (`HandleDiscovery`) is JSON whatever the Accept.
V3_PB = "application/com.github.proto-openapi.spec.v3.v1.0+protobuf"
V3_PB_DEPRECATED = "application/com.github.proto-openapi.spec.v3@v1.0+protobuf"
_V3_OFFERS = (JSON, V3_PB, V3_PB_DEPRECATED)  # handler3's order


def v3_url(key: str, etag: str) -> str:
    """`constructServerRelativeURL`: `/openapi/v3/<key>?hash=<etag>` (the etag unquoted)."""
    return f"/openapi/v3/{key}?hash={etag}"


def v3_index(documents: Mapping[str, _Served]) -> _Served:
    """`HandleDiscovery`'s body: each group-version's `serverRelativeURL`, keys sorted as Go marshals a map."""
    return served({"paths": {key: {"serverRelativeURL": v3_url(key, doc.etag.strip('"'))}
                             for key, doc in sorted(documents.items())}})


def _serve_content(doc: _Served, headers: Mapping[str, str], out: CIMultiDict[str], method: str,
                   modified: float, body: bytes | None = None) -> web.Response:
    """Go's `http.ServeContent` for bytes already in memory (`body`, else the JSON): preconditions, then the
    whole body."""
    out["Last-Modified"] = formatdate(modified, usegmt=True)
    if _not_modified(headers, doc):
        out.popall("Content-Type", None)
        del out["Last-Modified"]
        return web.Response(status=304, headers=out)
    out["Accept-Ranges"] = "bytes"
    return web.Response(body=None if method == "HEAD" else (doc.json if body is None else body), status=200,
                        headers=out)


def v3_index_response(index: _Served, headers: Mapping[str, str], method: str = "GET") -> web.Response:
    """`HandleDiscovery`: JSON with its Etag; `ServeContent` with the time of the request as modification time."""
    out: CIMultiDict[str] = CIMultiDict()
    out["Etag"] = index.etag
    out["Content-Type"] = JSON
    return _serve_content(index, headers, out, method, time.time())


def v3_response(doc: _Served, key: str, query: Mapping[str, str], headers: Mapping[str, str],
                method: str = "GET", pb: Callable[[], bytes] | None = None) -> web.Response:
    """`HandleGroupVersion` for one document (see the comment above `V3_PB`); `pb()` makes its protobuf form
    (without it, only JSON is offered)."""
    out: CIMultiDict[str] = CIMultiDict()
    out.add("Vary", "Accept")
    offers = _V3_OFFERS if pb is not None else (JSON,)
    clauses = _clauses(headers.get("Accept"))
    if not clauses:  # handler3 returns before writing anything: an empty 200
        return web.Response(status=200, headers=out)
    media = next((offer for typ, sub in clauses for offer in offers
                  if typ in (offer.partition("/")[0], "*") and sub in (offer.partition("/")[2], "*")), None)
    if media is None:
        return web.Response(status=406, headers=out)
    out["Content-Type"] = V3_PB if media == V3_PB_DEPRECATED else media
    out["Etag"] = doc.etag
    wanted = query.get("hash", "")
    if wanted:
        etag = doc.etag.strip('"')
        if wanted != etag:  # http.Redirect: 301 to the current URL
            url = v3_url(key, etag)
            out.popall("Content-Type", None)
            out["Location"] = url
            body = f'<a href="{url}">Moved Permanently</a>.\n\n' if method == "GET" else None
            return web.Response(status=301, headers=out, body=body, content_type="text/html", charset="utf-8")
        out["Cache-Control"] = "public, immutable"
        out["Expires"] = time.strftime("%a, %d %b %Y %H:%M:%S UTC", time.gmtime(time.time() + 365 * 86400))
    body = None if media == JSON or pb is None else doc.body(media, pb)
    return _serve_content(doc, headers, out, method, doc.modified, body)
