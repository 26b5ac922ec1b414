"""Decode and encode ``application/vnd.kubernetes.protobuf`` bodies.

Typed client-go clients (``kubectl create ns|configmap|secret|...``, controllers) send
protobuf and ask for it first in ``Accept``; the server core only knows JSON-shaped dicts.
``decode`` returns exactly the dict that Go's ``encoding/json`` would print for the same object,
so the registry cannot tell the two paths apart; ``encode_response`` is its inverse for answers
(objects, lists, Status, metadata-only objects, reviews) and ``watch_frame`` frames one watch event.
Descriptors are built at import time from ``_proto_table`` (no protoc, no generated code): one
description per kind, shared by both directions. An answer holding a query's byte that is not UTF-8 (kept
surrogate-escaped, ``http/goquery.py``) is written with a second set, its strings declared ``bytes`` (the same
wire bytes), as gogo's generated marshallers copy a Go string's bytes (meta/v1 ``generated.pb.go``).

Wire format (upstream ``runtime/serializer/protobuf/protobuf.go``): ``k8s\\x00`` +
``runtime.Unknown{typeMeta{apiVersion, kind}, raw, contentEncoding, contentType}``; ``raw`` is the
object's own message. A watch stream is a sequence of frames, each a 4-byte big-endian length and a
``metav1.WatchEvent{type, object: RawExtension{raw}}`` written without envelope (the ``RawSerializer``),
whose ``raw`` is the object in the enveloped form above.
"""

from __future__ import annotations

import base64
import json
from datetime import datetime, timezone
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import DecodeError, Message

from .schema import (BODY_MESSAGES, JSON_SCALAR_MESSAGES, KIND_MESSAGES, OUTPUT_MESSAGES, STRING_LIST_MESSAGES, Field,
                     fields, fields_by_name)
from ._proto_table import MESSAGES
from .textdecode import loads_json
from ..goport import gojsonraw

CONTENT_TYPE = "application/vnd.kubernetes.protobuf"
WATCH_CONTENT_TYPE = CONTENT_TYPE + ";stream=watch"
MAGIC = b"k8s\x00"
_PACKAGE = "nsconform.k8s"
_SCALAR_TYPES = {
    "s": descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
    "y": descriptor_pb2.FieldDescriptorProto.TYPE_BYTES,
    "b": descriptor_pb2.FieldDescriptorProto.TYPE_BOOL,
    "i32": descriptor_pb2.FieldDescriptorProto.TYPE_INT32,
    "i64": descriptor_pb2.FieldDescriptorProto.TYPE_INT64,
    "u32": descriptor_pb2.FieldDescriptorProto.TYPE_UINT32,
    "u64": descriptor_pb2.FieldDescriptorProto.TYPE_UINT64,
    "f32": descriptor_pb2.FieldDescriptorProto.TYPE_FLOAT,
    "f64": descriptor_pb2.FieldDescriptorProto.TYPE_DOUBLE,
}
_OPTIONAL = descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL
_REPEATED = descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED
_MESSAGE = descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE


def _proto_name(message: str) -> str:
    return message.replace(".", "_")


def _set_type(fp: descriptor_pb2.FieldDescriptorProto, typ: str, raw_strings: bool = False) -> None:
    if raw_strings and typ == "s":
        fp.type = _SCALAR_TYPES["y"]
    elif typ in _SCALAR_TYPES:
        fp.type = _SCALAR_TYPES[typ]
    else:
        fp.type = _MESSAGE
        fp.type_name = f".{_PACKAGE}.{_proto_name(typ)}"


def _build_classes(raw_strings: bool = False) -> dict[str, type[Message]]:
    """Turn the declaration table into real protobuf message classes (proto2: presence is kept). `raw_strings`:
    every string field (a map's key excepted: protobuf allows no bytes key) declared `bytes`, which the wire
    writes alike, so a string may hold bytes that are not UTF-8 (`_raw_classes`)."""
    fdp = descriptor_pb2.FileDescriptorProto(name="nsconform_k8s.proto", package=_PACKAGE, syntax="proto2")
    for message in MESSAGES:
        mp = fdp.message_type.add(name=_proto_name(message))
        for f in fields(message):
            fp = mp.field.add(name=f.name, number=f.number)
            if f.map_key is not None:
                entry = mp.nested_type.add(name=f.name[0].upper() + f.name[1:] + "Entry")
                entry.options.map_entry = True
                key = entry.field.add(name="key", number=1, label=_OPTIONAL)
                _set_type(key, f.map_key)
                value = entry.field.add(name="value", number=2, label=_OPTIONAL)
                _set_type(value, f.type, raw_strings)
                fp.label = _REPEATED
                fp.type = _MESSAGE
                fp.type_name = f".{_PACKAGE}.{mp.name}.{entry.name}"
            else:
                fp.label = _REPEATED if f.repeated else _OPTIONAL
                _set_type(fp, f.type, raw_strings)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return {m: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PACKAGE}.{_proto_name(m)}"))
            for m in MESSAGES}


_CLASSES = _build_classes()
_RAW_CLASSES: dict[str, type[Message]] = {}


def _raw_classes() -> dict[str, type[Message]]:
    """The classes whose string fields are bytes, built on first need: only an answer holding a query's byte that
    is not UTF-8 (surrogate-escaped, http/goquery.py) uses them, since Python's protobuf runtime holds only UTF-8
    in a string field where Go's gogo marshallers write a string's bytes as they are."""
    if not _RAW_CLASSES:
        _RAW_CLASSES.update(_build_classes(raw_strings=True))
    return _RAW_CLASSES


# ---------------------------------------------------------------- protobuf -> JSON-shaped dict

def _format_time(msg: Message, micro: bool) -> str | None:
    if not msg.ListFields():  # Go marshals the zero time as an empty message; JSON prints null
        return None
    try:
        moment = datetime.fromtimestamp(msg.seconds, tz=timezone.utc)  # type: ignore[attr-defined]
    except (OverflowError, OSError, ValueError):  # beyond year 9999: a 400, not a crash
        raise ValueError(f"Time.seconds {msg.seconds} is outside the range of a timestamp "  # type: ignore[attr-defined]
                         "(years 1-9999)") from None
    if micro:
        return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{msg.nanos // 1000:06d}Z"  # type: ignore[attr-defined]
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")  # metav1.Time drops sub-second precision


def _json_scalar_message(name: str, msg: Message) -> Any:
    if name == "meta.Time":
        return _format_time(msg, micro=False)
    if name == "meta.MicroTime":
        return _format_time(msg, micro=True)
    if name == "resource.Quantity":
        return msg.string  # type: ignore[attr-defined]
    if name == "intstr.IntOrString":
        return msg.strVal if msg.type == 1 else msg.intVal  # type: ignore[attr-defined]
    if name == "meta.FieldsV1":
        raw = msg.Raw  # type: ignore[attr-defined]
        return loads_json(raw) if raw else {}  # Go's JSON rules: depth bounded, surrogates replaced
    if name == "runtime.RawExtension":  # `RawExtension.MarshalJSON`: the raw bytes as they are, `null` if none
        raw = msg.raw  # type: ignore[attr-defined]  (the bytes sent, kept: gojsonraw.py)
        return gojsonraw.wrap(loads_json(raw), raw.decode("utf-8", "replace")) if raw else None
    raise AssertionError(name)


def _value_to_json(field: Field, value: Any) -> Any:
    if field.type in STRING_LIST_MESSAGES:
        return list(value.items)
    if field.type in JSON_SCALAR_MESSAGES:
        return _json_scalar_message(field.type, value)
    if field.is_message:
        return _message_to_dict(field.type, value)
    if field.type == "y":
        return base64.b64encode(value).decode("ascii")
    return value


def _message_to_dict(message: str, msg: Message) -> dict[str, Any]:
    out: dict[str, Any] = {}
    by_name = fields_by_name(message)
    for fd, value in msg.ListFields():
        field = by_name[fd.name]
        if field.map_key is not None:
            converted = {k: _value_to_json(field, v) for k, v in value.items()}
            if converted:
                out[field.name] = converted
        elif field.repeated:
            if len(value):
                out[field.name] = [_value_to_json(field, v) for v in value]
        elif field.inline:
            out.update(_message_to_dict(field.type, value))
        elif field.is_message:
            out[field.name] = _value_to_json(field, value)
        elif value or field.keep_zero:  # omitempty for non-pointer scalars
            out[field.name] = _value_to_json(field, value)
    return out


def decode(body: bytes) -> dict[str, Any]:
    """Decode a protobuf request body into the JSON-shaped dict (with ``apiVersion``/``kind``).

    Raises ValueError (a 400 for the HTTP layer) on a bad magic number, a truncated or
    malformed message, a compressed payload, or a kind this server has no schema for.
    """
    return _decode(body, lambda api_version, kind: KIND_MESSAGES.get(kind))


def decode_response(body: bytes) -> dict[str, Any]:
    """Decode what ``encode_response`` wrote (any answer kind, chosen by apiVersion and kind): tests read
    the server's protobuf answers with it."""
    return _decode(body, lambda api_version, kind: OUTPUT_MESSAGES.get((api_version, kind)))


def _request_message(group_version: str, kind: str) -> str | None:
    """The message of a request body: an answer's kind, or one only ever posted (`BODY_MESSAGES`: a Binding)."""
    return OUTPUT_MESSAGES.get((group_version, kind)) or BODY_MESSAGES.get((group_version, kind))


def decode_group(body: bytes, group_version: str, kinds: frozenset[str]) -> dict[str, Any]:
    """A request body of one of a group's create-only kinds (access reviews, TokenReview, TokenRequest, the
    Eviction and Binding subresources' bodies), found by kind whatever apiVersion the envelope names (the caller
    answers a wrong one with upstream's 400). The `status` a client may send is left out: the server fills it."""
    obj = _decode(body, lambda api_version, kind: _request_message(group_version, kind) if kind in kinds else None)
    obj.pop("status", None)
    return obj


def decode_stored(body: bytes, group_version: str, kind: str) -> dict[str, Any]:
    """A request body of a named-group built-in kind (``apps/v1`` Deployment, ``rbac.authorization.k8s.io/v1``
    Role, ...: what ``kubectl create deployment|job|role|...`` sends), found by the kind the envelope names in
    the store's group-version. The caller answers another apiVersion or kind with upstream's 400."""
    return _decode(body, lambda api_version, envelope_kind: OUTPUT_MESSAGES.get((group_version, envelope_kind))
                   if envelope_kind == kind else None)


def stored_kind(group_version: str, kind: str) -> bool:
    """True when ``decode_stored`` reads bodies of this named-group kind."""
    return not kind.endswith("List") and (group_version, kind) in OUTPUT_MESSAGES and "/" in group_version


def _decode(body: bytes, message_for: Any) -> dict[str, Any]:
    if not body.startswith(MAGIC):
        raise ValueError("protobuf body does not start with the Kubernetes magic number 'k8s\\x00'")
    unknown = _CLASSES["runtime.Unknown"]()
    try:
        unknown.ParseFromString(body[len(MAGIC):])
    except DecodeError as exc:
        raise ValueError(f"malformed protobuf envelope (runtime.Unknown): {exc}") from exc
    encoding = unknown.contentEncoding  # type: ignore[attr-defined]
    if encoding:
        raise ValueError(f"unsupported protobuf contentEncoding {encoding!r}")
    api_version = unknown.typeMeta.apiVersion  # type: ignore[attr-defined]
    kind = unknown.typeMeta.kind  # type: ignore[attr-defined]
    message = message_for(api_version, kind)
    if message is None:
        raise ValueError(f"no protobuf schema for kind {kind!r} (apiVersion {api_version!r})")
    obj = _CLASSES[message]()
    try:
        obj.ParseFromString(unknown.raw)  # type: ignore[attr-defined]
    except DecodeError as exc:
        raise ValueError(f"malformed protobuf {kind}: {exc}") from exc
    except UnicodeDecodeError as exc:  # a string field that is not UTF-8
        raise ValueError(f"invalid UTF-8 in protobuf string: {exc}") from None
    head: dict[str, Any] = {}
    if kind:
        head["kind"] = kind
    if api_version:
        head["apiVersion"] = api_version
    return {**head, **_message_to_dict(message, obj)}


# ---------------------------------------------------------------- JSON-shaped dict -> protobuf

def _parse_time(value: str) -> tuple[int, int]:
    moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    whole = int(moment.replace(microsecond=0).timestamp())
    return whole, moment.microsecond * 1000


def _fill_json_scalar(name: str, target: Message, value: Any, raw: bool = False) -> None:
    """One JSON scalar's message; `raw`: `target` is of `_raw_classes`, its strings bytes."""
    if name in ("meta.Time", "meta.MicroTime"):
        if value is None:  # Go's zero time: an empty message
            target.SetInParent()
            return
        seconds, nanos = _parse_time(value)
        target.seconds = seconds  # type: ignore[attr-defined]
        if name == "meta.MicroTime" and nanos:
            target.nanos = nanos  # type: ignore[attr-defined]
    elif name == "resource.Quantity":
        target.string = _go_string(str(value)) if raw else str(value)  # type: ignore[attr-defined]
    elif name == "intstr.IntOrString":
        if isinstance(value, int):
            target.type, target.intVal = 0, value  # type: ignore[attr-defined]
        else:
            target.type, target.strVal = 1, _go_string(value) if raw else value  # type: ignore[attr-defined]
    elif name == "meta.FieldsV1":
        target.Raw = json.dumps(value, separators=(",", ":")).encode()  # type: ignore[attr-defined]
    elif name == "runtime.RawExtension":  # the stored bytes (gojsonraw.py), else Go's json.Marshal of the value
        target.raw = gojsonraw.exact(value).encode()  # type: ignore[attr-defined]
    elif name in STRING_LIST_MESSAGES:
        target.items.extend([_go_string(v) for v in value] if raw else value)  # type: ignore[attr-defined]


def _fill_value(field: Field, target: Message, value: Any, path: str, strict: bool, raw: bool) -> None:
    """One message value (a singular field's slot, a repeated element, a map value)."""
    if field.type in JSON_SCALAR_MESSAGES or field.type in STRING_LIST_MESSAGES:
        _fill_json_scalar(field.type, target, value, raw)
    else:
        target.SetInParent()
        _fill(field.type, target, value, path, strict, raw)


def _go_string(value: str) -> bytes:
    """A Go string's bytes: a byte that was not UTF-8 (surrogate-escaped) is that byte again."""
    return value.encode("utf-8", "surrogateescape")


def _scalar_from_json(field: Field, value: Any, raw: bool) -> Any:
    if field.type == "y":
        return base64.b64decode(value)
    if raw and field.type == "s":
        return _go_string(value)
    return value


def _fill(message: str, target: Message, data: dict[str, Any], path: str, strict: bool = True,
          raw: bool = False) -> None:
    """Set ``target`` from the JSON-shaped ``data``. ``strict`` (request bodies built by tests): an unknown
    field is a ValueError. Otherwise (answers): a key the Go type does not have is left out, as Go's
    decoding into the typed object would have dropped it, and so is a JSON null, which Go prints only
    for a zero time. ``raw``: ``target`` is of ``_raw_classes`` (its strings bytes)."""
    by_name = fields_by_name(message)
    inline_fields = [f for f in fields(message) if f.inline]
    for key, value in data.items():
        field = by_name.get(key)
        if field is None or field.inline:
            owner = next((f for f in inline_fields if key in _all_json_names(f.type)), None)
            if owner is None:
                if strict:
                    raise ValueError(f"{path}{key}: unknown field for {message}")
                continue
            _fill(owner.type, getattr(target, owner.name), {key: value}, path, strict, raw)
            continue
        if value is None and not strict and field.type not in ("meta.Time", "meta.MicroTime"):
            continue
        slot = getattr(target, field.name)
        if field.map_key is not None:
            for k, v in value.items():
                if field.is_message:
                    _fill_value(field, slot[k], v, f"{path}{key}.{k}.", strict, raw)
                else:
                    slot[k] = _scalar_from_json(field, v, raw)
        elif field.repeated:
            for i, item in enumerate(value):
                if field.is_message:
                    _fill_value(field, slot.add(), item, f"{path}{key}[{i}].", strict, raw)
                else:
                    slot.append(_scalar_from_json(field, item, raw))
        elif field.is_message:
            _fill_value(field, slot, value, f"{path}{key}.", strict, raw)
        else:
            setattr(target, field.name, _scalar_from_json(field, value, raw))


def _all_json_names(message: str) -> set[str]:
    names = set()
    for f in fields(message):
        names |= _all_json_names(f.type) if f.inline else {f.name}
    return names


def _envelope(api_version: str, kind: str, raw: bytes) -> bytes:
    """``k8s\\x00`` + runtime.Unknown, byte for byte as Go's gogo marshaller writes it (its non-pointer
    contentEncoding and contentType are written even when empty)."""
    unknown = _CLASSES["runtime.Unknown"]()
    unknown.typeMeta.apiVersion = api_version  # type: ignore[attr-defined]
    unknown.typeMeta.kind = kind  # type: ignore[attr-defined]
    unknown.raw = raw  # type: ignore[attr-defined]
    unknown.contentEncoding = ""  # type: ignore[attr-defined]
    unknown.contentType = ""  # type: ignore[attr-defined]
    return MAGIC + unknown.SerializeToString(deterministic=True)


def encode(obj: dict[str, Any]) -> bytes:
    """Encode a JSON-shaped object as a protobuf request body (the inverse of ``decode``; used by tests).

    Unknown fields raise ValueError, so a test cannot silently build a lossy body.
    """
    kind = obj.get("kind", "")
    # by group-version first: events.k8s.io/v1's Event is not core/v1's
    message = _request_message(obj.get("apiVersion", ""), kind) or KIND_MESSAGES.get(kind)
    if message is None:
        raise ValueError(f"no protobuf schema for kind {kind!r}")
    inner = _CLASSES[message]()
    _fill(message, inner, {k: v for k, v in obj.items() if k not in ("kind", "apiVersion")}, "")
    return _envelope(obj.get("apiVersion", ""), kind, inner.SerializeToString(deterministic=True))


def encodable(api_version: str | None, kind: str | None) -> bool:
    """True when answers of this kind can be written in protobuf (``OUTPUT_MESSAGES``)."""
    return (api_version, kind) in OUTPUT_MESSAGES


def encode_response(obj: dict[str, Any]) -> bytes:
    """An answer (object, list, Status, review) in protobuf, as kube-apiserver writes it: maps sorted by key
    (gogo's generated marshallers sort them), fields in number order. ValueError when the kind has no
    message or a value does not fit its field (the caller answers JSON instead)."""
    api_version, kind = obj.get("apiVersion", ""), obj.get("kind", "")
    message = OUTPUT_MESSAGES.get((api_version, kind))
    if message is None:
        raise ValueError(f"no protobuf schema for kind {kind!r} (apiVersion {api_version!r})")
    body = {k: v for k, v in obj.items() if k not in ("kind", "apiVersion")}
    try:
        try:
            raw = _serialize(_CLASSES, message, body, False)
        except UnicodeEncodeError:  # a query's byte that is not UTF-8 (surrogate-escaped): written as Go writes it
            raw = _serialize(_raw_classes(), message, body, True)
    except (TypeError, AttributeError, ValueError, OverflowError) as exc:  # a value Go's type could not hold
        raise ValueError(f"{kind} does not fit its protobuf message: {exc}") from None
    return _envelope(api_version, kind, raw)


def _serialize(classes: dict[str, type[Message]], message: str, body: dict[str, Any], raw: bool) -> bytes:
    """`body` as `message` of `classes` (`raw`: `_raw_classes`), its wire bytes as gogo writes them."""
    inner = classes[message]()
    _fill(message, inner, body, "", strict=False, raw=raw)
    return inner.SerializeToString(deterministic=True)


def watch_frame(event_type: str, encoded_object: bytes) -> bytes:
    """One watch event of a ``;stream=watch`` protobuf stream: the length-delimited frame (4-byte big-endian
    length, ``framer.NewLengthDelimitedFrameWriter``) of ``metav1.WatchEvent{type, object{raw}}`` written
    raw (no envelope); ``encoded_object`` is ``encode_response`` of the event's object."""
    event = _CLASSES["meta.WatchEvent"]()
    event.type = event_type  # type: ignore[attr-defined]
    event.object.raw = encoded_object  # type: ignore[attr-defined]
    data = event.SerializeToString()
    return len(data).to_bytes(4, "big") + data


def read_watch_frames(stream: bytes) -> list[tuple[str, dict[str, Any]]]:
    """Split a protobuf watch stream into (type, object) pairs (the inverse of ``watch_frame``; for tests).
    A trailing partial frame is left out."""
    out = []
    i = 0
    while i + 4 <= len(stream):
        size = int.from_bytes(stream[i:i + 4], "big")
        if i + 4 + size > len(stream):
            break
        event = _CLASSES["meta.WatchEvent"]()
        event.ParseFromString(stream[i + 4:i + 4 + size])
        out.append((event.type, decode_response(event.object.raw)))  # type: ignore[attr-defined]
        i += 4 + size
    return out


def is_protobuf(content_type: str | None) -> bool:
    """True when a Content-Type header names the Kubernetes protobuf media type."""
    return bool(content_type) and content_type.split(";")[0].strip().lower() == CONTENT_TYPE  # type: ignore[union-attr]
