"""Response encoding: Accept negotiation (JSON, YAML, protobuf, Table and metadata-only via `wire`), Status
errors (in protobuf too when the client asks for it first: `responsewriters.ErrorNegotiated`)."""
from __future__ import annotations

import json
import logging
from typing import Any, Mapping

from aiohttp import web

from .. import apierrors as E
from ..deviations import Deviations
from . import hooks
from .chain_headers import DroppedAnswer
from .fastwrite import json_response
from ..memo import remember
from ..goport.gojsonhtml import escape_html, utf8_bytes
from ..goport.gojsonnum import encode as go_encode
from ..wire.goyamlout import dumps as yaml_dumps

JSON = "application/json"
PROTOBUF = "application/vnd.kubernetes.protobuf"
log = logging.getLogger("nsconform.reference_server.http")
TRANSFORMS = ("Table", "PartialObjectMetadata", "PartialObjectMetadataList")
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)  # what json.dumps would build per call
_NEGOTIATED: dict[tuple[str | None, tuple[str, ...], bool], tuple[str, str | None, str]] = {}
_NEGOTIATED_MAX = 256
_PLAIN: dict[tuple[str | None, str, bool], bool] = {}  # plain_json's answers
_PROTOBUF_OK: dict[tuple[Any, Any], bool] = {}  # protobuf_ok's


def dumps(obj: Any, html: bool = True) -> bytes:
    """Compact JSON, numbers as Go's encoding/json writes them (gojsonnum.py: `2`, not `2.0`), HTML characters
    escaped as it does unless `html` is False."""
    return utf8_bytes(go_encode(obj, _ENCODER.encode(obj), html))


def dumps_line(obj: Any) -> bytes:
    """An API object's JSON body as apimachinery's serializer writes it (`runtime/serializer/json/json.go`
    `doEncode`: Go's `json.Encoder.Encode`, compact and ending in a newline): every object, list and Status
    kube-apiserver answers in JSON ends so. Not `/version` or the OpenAPI documents (`json.Marshal*`)."""
    return utf8_bytes(go_encode(obj, _ENCODER.encode(obj)) + "\n")


def _negotiate(accept: str | None, transforms: tuple[str, ...], protobuf: bool = False) -> tuple[str, str | None, str]:
    """(media type, transform, meta version); 406 when nothing is acceptable. Memoised per (Accept,
    transforms, protobuf): a pure function, and clients send the same few Accept headers over and over.
    `protobuf`: the answer's kind has a protobuf message."""
    key = (accept, transforms, protobuf)
    hit = _NEGOTIATED.get(key)
    if hit is not None:
        return hit
    out = _negotiate_uncached(accept, transforms, protobuf)  # raises 406: not memoised
    remember(_NEGOTIATED, key, out, _NEGOTIATED_MAX)  # bounded: a client varying its Accept header cannot grow it
    return out


def _negotiate_uncached(accept: str | None, transforms: tuple[str, ...],
                        protobuf: bool = False) -> tuple[str, str | None, str]:
    neg = hooks.wire_attr("negotiation", "negotiate")
    if neg is not None:
        chosen = neg(accept, transforms=transforms, yaml_ok=True, protobuf_ok=protobuf)
        if chosen is None:
            msg_fn = hooks.wire_attr("negotiation", "not_acceptable_message")
            # every serializer behind a resource lists protobuf, custom resources' too (their `StandardSerializers`
            # leave it out of what they answer, not of what the 406 names)
            msg = msg_fn(True, True) if msg_fn else "only the following media types are accepted: application/json"
            raise E.StatusError(E.status_dict(406, "NotAcceptable", msg))
        return chosen.media_type, chosen.transform, chosen.version
    for part in (accept or "").split(","):
        mt = part.split(";")[0].strip().lower()
        if not mt or "as=" in part:
            continue
        if mt in (JSON, "*/*", "application/*"):
            return JSON, None, "v1"
        if mt == "application/yaml":
            return "application/yaml", None, "v1"
    if not (accept or "").strip():
        return JSON, None, "v1"
    raise E.not_acceptable()


def _transform(obj: dict[str, Any], transform: str, version: str, kind: str, query: Mapping[str, str]) -> Any:
    is_list = isinstance(obj.get("items"), list)
    if transform == "Table":
        to_table = hooks.wire_attr("table", "to_table")
        assert to_table is not None
        objects = obj["items"] if is_list else [obj]
        try:
            return to_table(objects, kind, obj.get("metadata") if is_list else None,
                            include_object=query.get("includeObject", "Metadata"), version=version)
        except ValueError as exc:
            raise E.bad_request(str(exc)) from None
    if transform == "PartialObjectMetadataList" and is_list:
        fn = hooks.wire_attr("table", "partial_object_metadata_list")
        assert fn is not None
        return fn(obj["items"], obj.get("metadata"), version)
    if transform == "PartialObjectMetadata" and not is_list:
        fn = hooks.wire_attr("table", "partial_object_metadata")
        assert fn is not None
        return fn(obj, version)
    raise E.not_acceptable()


def protobuf_ok(api_version: Any, kind: Any) -> bool:
    """True when answers of this (apiVersion, kind) can be written in protobuf (`wire.protobuf.encodable`);
    memoised (a fixed table; every GET asks)."""
    key = (api_version, kind)
    found = _PROTOBUF_OK.get(key)
    if found is None:
        encodable = hooks.wire_attr("protobuf", "encodable")
        found = bool(encodable and encodable(api_version, kind))
        remember(_PROTOBUF_OK, key, found, _NEGOTIATED_MAX)
    return found


def protobuf_body(obj: Any) -> bytes | None:
    """`obj` in protobuf, or None when it cannot be written so (a value its Go type could not hold: the
    client's JSON clause is answered instead, never a 500)."""
    encode = hooks.wire_attr("protobuf", "encode_response")
    if encode is None:
        return None
    try:
        return encode(obj)
    except ValueError as exc:
        log.warning("answering JSON: %s", exc)
        return None


def object_response(obj: Any, status: int = 200, accept: str | None = None,
                    headers: Mapping[str, str] | None = None, *, kind: str = "",
                    query: Mapping[str, str] | None = None, protobuf: bool | None = None) -> web.Response:
    """Encode `obj`; with `kind` set the endpoint also offers the `as=` transforms. `protobuf`: whether the
    endpoint answers protobuf (a resource endpoint: its kind has a message; a custom resource's never does,
    not even for the Status its DELETE answers); None: whether `obj` itself has a message."""
    transforms = TRANSFORMS if kind and hooks.wire_attr("table", "to_table") else ()
    proto = protobuf if protobuf is not None else \
        isinstance(obj, dict) and protobuf_ok(obj.get("apiVersion"), obj.get("kind"))
    media, transform, version = _negotiate(accept, transforms, proto)
    if transform:
        obj = _transform(obj, transform, version, kind, query or {})
    if media == PROTOBUF:
        body = protobuf_body(obj)
        if body is not None:
            return web.Response(body=body, status=status, content_type=PROTOBUF, headers=headers)
    if media == "application/yaml":
        return web.Response(body=yaml_dumps(obj), status=status, content_type="application/yaml", headers=headers)
    return web.Response(body=dumps_line(obj), status=status, content_type=JSON, headers=headers)


def plain_json(accept: str | None, kind: str, protobuf: bool = False) -> bool:
    """True when `object_response(obj, accept=accept, kind=kind)` would answer `dumps_line(obj)` as JSON (no
    transform, no YAML, no protobuf); False also when it would answer 406 (the caller then takes the general
    path, which raises it in its usual order). `protobuf`: the object's kind has a protobuf message.
    Memoised as `_negotiate` is: every GET asks it."""
    key = (accept, kind, protobuf)
    found = _PLAIN.get(key)
    if found is None:
        transforms = TRANSFORMS if kind and hooks.wire_attr("table", "to_table") else ()
        try:
            media, transform, _ = _negotiate(accept, transforms, protobuf)
        except E.StatusError:
            found = False
        else:
            found = media == JSON and not transform
        remember(_PLAIN, key, found, _NEGOTIATED_MAX)
    return found


# What `object_response` answers for a 200 JSON body without transform (same headers), built directly
json_body_response = json_response


def error_response(err: E.StatusError, deviations: Deviations, accept: str | None = None) -> web.Response:
    """A Status error as upstream writes it (or plain text under `plain-text-errors`): protobuf when the
    client's `Accept` prefers it, YAML when it prefers that, JSON otherwise; indented (`WriteRawJSON`) when
    nothing in the `Accept` header is served (`WriteObjectNegotiated`'s fallback, a 406 too)."""
    if deviations.active("plain-text-errors"):
        return web.Response(text=err.message, status=err.code, content_type="text/plain")
    if accept:
        try:  # (memoised) a resource endpoint's restrictions: its `as=` transforms are acceptable
            media, _, _ = _negotiate(accept, TRANSFORMS, True)
        except E.StatusError:  # `WriteObjectNegotiated`: an error status is kept, written by `WriteRawJSON`
            return raw_json_response(err.status, err.code, _retry_after(err))
        if media == PROTOBUF:
            body = protobuf_body({"kind": "Status", "apiVersion": "v1", **err.status})
            if body is not None:
                return web.Response(body=body, status=err.code, content_type=PROTOBUF, headers=_retry_after(err))
        elif media == "application/yaml":  # (`ErrorNegotiated` writes the Status as any object)
            return web.Response(body=yaml_dumps(err.status), status=err.code, content_type="application/yaml",
                                headers=_retry_after(err))
    return web.Response(body=dumps_line(err.status), status=err.code, content_type=JSON, headers=_retry_after(err))


def _retry_after(err: E.StatusError) -> dict[str, str] | None:
    """`ErrorNegotiated`: a Status asking for a retry period also says it in `Retry-After`."""
    details = err.status.get("details")
    seconds = details.get("retryAfterSeconds") if isinstance(details, dict) else None
    return {"Retry-After": str(seconds)} if isinstance(seconds, int) and seconds > 0 else None


def raw_json_response(obj: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> web.Response:
    """`responsewriters.WriteRawJSON` (a non-API object such as `/version`, or a Status error whose client
    accepts no media type the endpoint serves): `json.MarshalIndent(obj, "", "  ")`, no trailing newline,
    whatever the client's Accept."""
    body = escape_html(json.dumps(obj, indent=2, separators=(",", ": "), ensure_ascii=False))
    return web.Response(body=utf8_bytes(body), status=status, content_type=JSON, headers=headers)


def panic_dropped() -> web.Response:
    """What a client gets where kube-apiserver's handler panics: nothing. `WithPanicRecovery`
    (apiserver/pkg/server/filters/wrap.go) has `http.Error` write its 500 into the response's buffer, then
    `runtime.HandleCrash` panics again (apimachinery's `ReallyCrash`, true in kube-apiserver), and net/http's
    `conn.serve` recovers it and closes the connection before that buffer is sent (x/net/http2: the stream reset
    with `INTERNAL_ERROR`). kubernetes#48700 shows clients meeting exactly that."""
    return DroppedAnswer()


def panic_answer() -> web.Response:
    """What `WithPanicRecovery` (staging/src/k8s.io/apiserver/pkg/server/filters/wrap.go) means to answer when a
    handler panics: `http.Error`'s plain text. Given for a bug of this server (where kube-apiserver would have
    panicked), so that its user sees an answer; the server logs the traceback."""
    return web.Response(text="This request caused apiserver to panic. Look in the logs for details.\n", status=500,
                        content_type="text/plain", charset="utf-8", headers={"X-Content-Type-Options": "nosniff"})


def plain_not_found() -> web.Response:
    """`http.NotFound` (NS-05)."""
    return web.Response(text="404 page not found\n", status=404, content_type="text/plain", charset="utf-8",
                        headers={"X-Content-Type-Options": "nosniff"})
