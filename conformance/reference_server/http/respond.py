"""Response encoding: Accept negotiation (JSON, YAML, Table and metadata-only via `wire`), Status errors."""
from __future__ import annotations

import json
from typing import Any, Mapping

import yaml
from aiohttp import web

from .. import apierrors as E
from ..deviations import Deviations
from . import hooks

JSON = "application/json"
TRANSFORMS = ("Table", "PartialObjectMetadata", "PartialObjectMetadataList")


_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)  # what json.dumps would build per call
_NEGOTIATED: dict[tuple[str | None, tuple[str, ...]], tuple[str, str | None, str]] = {}
_NEGOTIATED_MAX = 256


def dumps(obj: Any) -> bytes:
    return _ENCODER.encode(obj).encode("utf-8")


def _negotiate(accept: str | None, transforms: tuple[str, ...]) -> tuple[str, str | None, str]:
    """(media type, transform, meta version); 406 when nothing is acceptable. Memoised per (Accept,
    transforms): a pure function, and clients send the same few Accept headers over and over."""
    key = (accept, transforms)
    hit = _NEGOTIATED.get(key)
    if hit is not None:
        return hit
    out = _negotiate_uncached(accept, transforms)  # raises 406: not memoised
    if len(_NEGOTIATED) >= _NEGOTIATED_MAX:  # bounded: a client varying its Accept header cannot grow it
        _NEGOTIATED.clear()
    _NEGOTIATED[key] = out
    return out


def _negotiate_uncached(accept: str | None, transforms: tuple[str, ...]) -> tuple[str, str | None, str]:
    neg = hooks.wire_attr("negotiation", "negotiate")
    if neg is not None:
        chosen = neg(accept, transforms=transforms, yaml_ok=True)
        if chosen is None:
            msg_fn = hooks.wire_attr("negotiation", "not_acceptable_message")
            msg = msg_fn(True) if msg_fn else "only the following media types are accepted: application/json"
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


def object_response(obj: Any, status: int = 200, accept: str | None = None,
                    headers: Mapping[str, str] | None = None, *, kind: str = "",
                    query: Mapping[str, str] | None = None) -> web.Response:
    """Encode `obj`; with `kind` set the endpoint also offers the `as=` transforms."""
    transforms = TRANSFORMS if kind and hooks.wire_attr("table", "to_table") else ()
    media, transform, version = _negotiate(accept, transforms)
    if transform:
        obj = _transform(obj, transform, version, kind, query or {})
    if media == "application/yaml":
        body = yaml.safe_dump(obj, sort_keys=False, allow_unicode=True).encode("utf-8")
        return web.Response(body=body, status=status, content_type="application/yaml", headers=headers)
    return web.Response(body=dumps(obj), status=status, content_type=JSON, headers=headers)


def plain_json(accept: str | None, kind: str) -> bool:
    """True when `object_response(obj, accept=accept, kind=kind)` would answer `dumps(obj)` as JSON (no
    transform, no YAML); False also when it would answer 406 (the caller then takes the general path, which
    raises it in its usual order)."""
    transforms = TRANSFORMS if kind and hooks.wire_attr("table", "to_table") else ()
    try:
        media, transform, _ = _negotiate(accept, transforms)
    except E.StatusError:
        return False
    return media == JSON and not transform


def json_body_response(body: bytes) -> web.Response:
    """What `object_response` answers for a 200 JSON body without transform (same headers)."""
    return web.Response(body=body, content_type=JSON)


def error_response(err: E.StatusError, deviations: Deviations) -> web.Response:
    """A Status error as upstream writes it (or plain text under `plain-text-errors`)."""
    if deviations.active("plain-text-errors"):
        return web.Response(text=err.message, status=err.code, content_type="text/plain")
    return web.Response(body=dumps(err.status), status=err.code, content_type=JSON)


def plain_not_found() -> web.Response:
    """`http.NotFound` (NS-05)."""
    return web.Response(text="404 page not found\n", status=404, content_type="text/plain", charset="utf-8",
                        headers={"X-Content-Type-Options": "nosniff"})
