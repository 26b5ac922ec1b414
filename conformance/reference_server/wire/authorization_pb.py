"""Decode `authorization.k8s.io/v1` review bodies sent as ``application/vnd.kubernetes.protobuf``.

`kubectl auth can-i` posts its SelfSubjectAccessReview (`--list`: SelfSubjectRulesReview) in protobuf
(typed client-go client), and the generated `_proto_table` holds only the core kinds, so the few review
messages are read here with a minimal wire-format reader. Field numbers are upstream's
`staging/src/k8s.io/api/authorization/v1/generated.proto` (and `meta/v1` ObjectMeta, `runtime.Unknown`).
Returns the JSON-shaped dict (empty strings dropped, as Go's `omitempty` re-encode does); ValueError on
anything malformed (a 400 for the http layer).
"""
from __future__ import annotations

from typing import Any, Callable

MAGIC = b"k8s\x00"
KINDS = frozenset({"SelfSubjectAccessReview", "SubjectAccessReview", "LocalSubjectAccessReview",
                   "SelfSubjectRulesReview"})

Fields = list[tuple[int, int, Any]]  # (field number, wire type, value: int or bytes)


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    shift = value = 0
    while True:
        if i >= len(buf) or shift > 63:
            raise ValueError("truncated varint")
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, i
        shift += 7


def _fields(buf: bytes) -> Fields:
    out: Fields = []
    i = 0
    while i < len(buf):
        tag, i = _varint(buf, i)
        num, wt = tag >> 3, tag & 7
        if wt == 0:
            v, i = _varint(buf, i)
            out.append((num, wt, v))
        elif wt == 2:
            n, i = _varint(buf, i)
            if i + n > len(buf):
                raise ValueError("truncated length-delimited field")
            out.append((num, wt, buf[i:i + n]))
            i += n
        elif wt in (1, 5):
            size = 8 if wt == 1 else 4
            if i + size > len(buf):
                raise ValueError("truncated fixed-width field")
            i += size
        else:
            raise ValueError(f"unsupported wire type {wt}")
    return out


def _str(b: Any) -> str:
    return bytes(b).decode("utf-8")


def _message(buf: bytes, strings: dict[int, str], messages: dict[int, tuple[str, Callable[[bytes], Any]]] = {},
             repeated: dict[int, tuple[str, Callable[[bytes], Any]]] = {}) -> dict[str, Any]:
    """Generic reader: string fields (empty dropped), singular messages (presence kept), repeated fields."""
    out: dict[str, Any] = {}
    for num, wt, v in _fields(buf):
        if wt != 2:
            continue
        if num in strings:
            s = _str(v)
            if s:
                out[strings[num]] = s
            else:
                out.pop(strings[num], None)
        elif num in messages:
            name, fn = messages[num]
            out[name] = fn(v)
        elif num in repeated:
            name, fn = repeated[num]
            out.setdefault(name, []).append(fn(v))
    return out


def _map_entry(buf: bytes) -> tuple[str, Any]:
    e = _message(buf, {1: "k", 2: "v"})
    return e.get("k", ""), e.get("v", "")


def _requirement(buf: bytes) -> dict[str, Any]:
    return _message(buf, {1: "key", 2: "operator"}, repeated={3: ("values", _str)})


def _selector(buf: bytes) -> dict[str, Any]:
    return _message(buf, {1: "rawSelector"}, repeated={2: ("requirements", _requirement)})


def _resource_attributes(buf: bytes) -> dict[str, Any]:
    return _message(buf, {1: "namespace", 2: "verb", 3: "group", 4: "version", 5: "resource", 6: "subresource",
                          7: "name"}, {8: ("fieldSelector", _selector), 9: ("labelSelector", _selector)})


def _non_resource_attributes(buf: bytes) -> dict[str, Any]:
    return _message(buf, {1: "path", 2: "verb"})


def _extra_value(buf: bytes) -> tuple[str, list[str]]:
    entry = _message(buf, {1: "k"}, {2: ("v", lambda b: _message(b, {}, repeated={1: ("items", _str)}))})
    return entry.get("k", ""), (entry.get("v") or {}).get("items", [])


def _spec(buf: bytes) -> dict[str, Any]:
    out = _message(buf, {3: "user", 6: "uid"}, {1: ("resourceAttributes", _resource_attributes),
                                                 2: ("nonResourceAttributes", _non_resource_attributes)},
                   {4: ("groups", _str), 5: ("extra", _extra_value)})
    if "extra" in out:
        out["extra"] = dict(out["extra"])
    return out


def _rules_spec(buf: bytes) -> dict[str, Any]:
    """`SelfSubjectRulesReviewSpec{namespace=1}` (its status, field 3, is the server's to fill: skipped)."""
    return _message(buf, {1: "namespace"})


def _object_meta(buf: bytes) -> dict[str, Any]:
    out = _message(buf, {1: "name", 2: "generateName", 3: "namespace"}, {},
                   {11: ("labels", _map_entry), 12: ("annotations", _map_entry)})
    for key in ("labels", "annotations"):
        if key in out:
            out[key] = dict(out[key])
    return out


def decode_unknown(body: bytes, kinds: frozenset[str],
                   messages_for: Callable[[str], dict[int, tuple[str, Callable[[bytes], Any]]]]) -> dict[str, Any]:
    """`k8s\\0` + runtime.Unknown{typeMeta{apiVersion=1, kind=2}=1, raw=2, contentEncoding=3} → the JSON-shaped
    object, its raw message read with `messages_for(kind)`; ValueError for anything else. Shared by every
    group whose protobuf requests we decode (this module, authentication_pb)."""
    if not body.startswith(MAGIC):
        raise ValueError("protobuf body does not start with the Kubernetes magic number 'k8s\\x00'")
    try:
        env = _message(body[len(MAGIC):], {3: "contentEncoding"},
                       {1: ("typeMeta", lambda b: _message(b, {1: "apiVersion", 2: "kind"}))})
        if env.get("contentEncoding"):
            raise ValueError(f"unsupported protobuf contentEncoding {env['contentEncoding']!r}")
        head = env.get("typeMeta", {})
        if head.get("kind") not in kinds:
            raise ValueError(f"no protobuf schema for kind {head.get('kind', '')!r}")
        raw = next((v for num, wt, v in _fields(body[len(MAGIC):]) if num == 2 and wt == 2), b"")
        obj = _message(raw, {}, messages_for(head["kind"]))
    except UnicodeDecodeError as exc:
        raise ValueError(f"invalid UTF-8 in protobuf string: {exc}") from None
    return {**head, **obj}


def decode(body: bytes) -> dict[str, Any]:
    """An authorization.k8s.io review → review dict."""
    return decode_unknown(body, KINDS, lambda kind: {
        1: ("metadata", _object_meta), 2: ("spec", _rules_spec if kind == "SelfSubjectRulesReview" else _spec)})
