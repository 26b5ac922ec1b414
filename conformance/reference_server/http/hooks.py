"""Hook points into `reference_server.wire` (pure functions written separately).

Each getter returns the wire function when that module provides it, else None, so the http layer
serves what exists and answers 415/406/404 for the rest:

* protobuf request bodies: `wire.protobuf.decode(raw: bytes) -> dict` (ValueError ⇒ 400), used by
  `decode.decode_body(content_type, raw, expected_kind)`; protobuf answers: `wire.protobuf.encodable(apiVersion,
  kind)`, `encode_response(obj) -> bytes`, `watch_frame(type, encoded)`, used by `respond` and `watch`.
* Accept negotiation: `wire.negotiation.negotiate(accept, *, transforms, yaml_ok) -> Negotiated | None`.
* Table / metadata-only output: `wire.table.to_table(objects, kind, list_meta, *, include_object, version)`,
  `wire.table.partial_object_metadata(obj, version)`, `wire.table.partial_object_metadata_list(...)`.
* OpenAPI: `wire.openapi.openapi_v2(kinds)`, `openapi_v3_root(kinds)`, `openapi_v3_group(kinds)` with
  kinds as `wire.kinds.KindInfo` (built from the registry's declarations by `wire_kinds`).
"""
from __future__ import annotations

import importlib
from typing import Any, Callable

KNOWN_KINDS = frozenset({"Namespace", "ConfigMap", "Secret", "Service", "ServiceAccount", "Pod", "ResourceQuota",
                         "LimitRange", "Event", "DeleteOptions", "Status", "Binding", "Node", "Endpoints",
                         "PersistentVolume", "PersistentVolumeClaim", "ReplicationController", "ComponentStatus",
                         "PodTemplate"})


_RESOLVED: dict[tuple[str, str], Callable[..., Any] | None] = {}


def wire_attr(module: str, attr: str) -> Callable[..., Any] | None:
    """`wire.<module>.<attr>` if it exists and imports cleanly, else None (resolved once per process: this
    runs several times per response)."""
    key = (module, attr)
    try:
        return _RESOLVED[key]
    except KeyError:
        pass
    try:
        mod = importlib.import_module(f"conformance.reference_server.wire.{module}")
    except Exception:  # wire absent or broken: serve without it
        fn = None
    else:
        fn = getattr(mod, attr, None)
    _RESOLVED[key] = fn = fn if callable(fn) else None
    return fn


def protobuf_decoder() -> Callable[[bytes], dict] | None:
    return wire_attr("protobuf", "decode")


def wire_kinds(resources: list[Any]) -> list[Any] | None:
    """Registry ResourceInfo declarations → `wire.kinds.KindInfo` values (None without wire)."""
    kind_info = wire_attr("kinds", "KindInfo")
    if kind_info is None:
        return None
    from ..registry.subresources import subresources  # /status where upstream serves it (and /scale)
    out = []
    for r in resources:
        subs = {"finalize": ("update",), "status": ("get", "patch", "update")} if r.plural == "namespaces" \
            else dict(subresources(r))
        if r.plural == "pods":  # registry/podupdates.py
            subs.update({"ephemeralcontainers": ("get", "patch", "update"), "resize": ("get", "patch", "update")})
        out.append(kind_info(r.kind, r.plural, r.singular, r.namespaced, tuple(r.short_names), tuple(r.verbs), subs))
    return out
