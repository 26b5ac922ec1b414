"""Decode (and, for tests, encode) ``application/vnd.kubernetes.protobuf`` bodies.

Typed client-go clients (``kubectl create ns|configmap|secret|...``, controllers) send
protobuf; the server core only knows JSON-shaped dicts. ``decode`` returns exactly the dict
that Go's ``encoding/json`` would print for the same object, so the registry cannot tell the
two paths apart. Descriptors are built at import time from ``_proto_table`` (no protoc, no
generated code).

Wire format: ``k8s\\x00`` + ``runtime.Unknown{typeMeta{apiVersion, kind}, raw, contentEncoding,
contentType}``; ``raw`` is the object's own message.
"""

from __future__ import annotations

import base64
import json
from datetime import datetime, timezone
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import DecodeError, Message

from .schema import JSON_SCALAR_MESSAGES, KIND_MESSAGES, Field, fields, fields_by_name
from ._proto_table import MESSAGES
from .textdecode import loads_json

CONTENT_TYPE = "application/vnd.kubernetes.protobuf"
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


def _set_type(fp: descriptor_pb2.FieldDescriptorProto, typ: str) -> None:
    if typ in _SCALAR_TYPES:
        fp.type = _SCALAR_TYPES[typ]
    else:
        fp.type = _MESSAGE
        fp.type_name = f".{_PACKAGE}.{_proto_name(typ)}"


def _build_classes() -> dict[str, type[Message]]:
    """Turn the declaration table into real protobuf message classes (proto2: presence is kept)."""
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
                _set_type(value, f.type)
                fp.label = _REPEATED
                fp.type = _MESSAGE
                fp.type_name = f".{_PACKAGE}.{mp.name}.{entry.name}"
            else:
                fp.label = _REPEATED if f.repeated else _OPTIONAL
                _set_type(fp, f.type)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return {m: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PACKAGE}.{_proto_name(m)}"))
            for m in MESSAGES}


_CLASSES = _build_classes()


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
    raise AssertionError(name)


def _value_to_json(field: Field, value: Any) -> Any:
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
    if kind not in KIND_MESSAGES:
        raise ValueError(f"no protobuf schema for kind {kind!r} (apiVersion {api_version!r})")
    message = KIND_MESSAGES[kind]
    obj = _CLASSES[message]()
    try:
        obj.ParseFromString(unknown.raw)  # type: ignore[attr-defined]
    except DecodeError as exc:
        raise ValueError(f"malformed protobuf {kind}: {exc}") from exc
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


def _fill_json_scalar(name: str, target: Message, value: Any) -> None:
    if name in ("meta.Time", "meta.MicroTime"):
        if value is None:
            target.SetInParent()
            return
        seconds, nanos = _parse_time(value)
        target.seconds = seconds  # type: ignore[attr-defined]
        if name == "meta.MicroTime" and nanos:
            target.nanos = nanos  # type: ignore[attr-defined]
    elif name == "resource.Quantity":
        target.string = str(value)  # type: ignore[attr-defined]
    elif name == "intstr.IntOrString":
        if isinstance(value, int):
            target.type, target.intVal = 0, value  # type: ignore[attr-defined]
        else:
            target.type, target.strVal = 1, value  # type: ignore[attr-defined]
    elif name == "meta.FieldsV1":
        target.Raw = json.dumps(value, separators=(",", ":")).encode()  # type: ignore[attr-defined]


def _scalar_from_json(field: Field, value: Any) -> Any:
    if field.type == "y":
        return base64.b64decode(value)
    return value


def _fill(message: str, target: Message, data: dict[str, Any], path: str) -> None:
    by_name = fields_by_name(message)
    inline_fields = [f for f in fields(message) if f.inline]
    for key, value in data.items():
        field = by_name.get(key)
        if field is None or field.inline:
            owner = next((f for f in inline_fields if key in _all_json_names(f.type)), None)
            if owner is None:
                raise ValueError(f"{path}{key}: unknown field for {message}")
            _fill(owner.type, getattr(target, owner.name), {key: value}, path)
            continue
        slot = getattr(target, field.name)
        if field.map_key is not None:
            for k, v in value.items():
                if field.type in JSON_SCALAR_MESSAGES:
                    _fill_json_scalar(field.type, slot[k], v)
                elif field.is_message:
                    _fill(field.type, slot[k], v, f"{path}{key}.{k}.")
                else:
                    slot[k] = _scalar_from_json(field, v)
        elif field.repeated:
            for i, item in enumerate(value):
                if field.type in JSON_SCALAR_MESSAGES:
                    _fill_json_scalar(field.type, slot.add(), item)
                elif field.is_message:
                    _fill(field.type, slot.add(), item, f"{path}{key}[{i}].")
                else:
                    slot.append(_scalar_from_json(field, item))
        elif field.type in JSON_SCALAR_MESSAGES:
            _fill_json_scalar(field.type, slot, value)
        elif field.is_message:
            slot.SetInParent()
            _fill(field.type, slot, value, f"{path}{key}.")
        else:
            setattr(target, field.name, _scalar_from_json(field, value))


def _all_json_names(message: str) -> set[str]:
    names = set()
    for f in fields(message):
        names |= _all_json_names(f.type) if f.inline else {f.name}
    return names


def encode(obj: dict[str, Any]) -> bytes:
    """Encode a JSON-shaped object as a protobuf body (the inverse of ``decode``; used by tests).

    Unknown fields raise ValueError, so a test cannot silently build a lossy body.
    """
    kind = obj.get("kind", "")
    if kind not in KIND_MESSAGES:
        raise ValueError(f"no protobuf schema for kind {kind!r}")
    message = KIND_MESSAGES[kind]
    inner = _CLASSES[message]()
    _fill(message, inner, {k: v for k, v in obj.items() if k not in ("kind", "apiVersion")}, "")
    unknown = _CLASSES["runtime.Unknown"]()
    unknown.typeMeta.kind = kind  # type: ignore[attr-defined]
    unknown.typeMeta.apiVersion = obj.get("apiVersion", "")  # type: ignore[attr-defined]
    unknown.raw = inner.SerializeToString()  # type: ignore[attr-defined]
    return MAGIC + unknown.SerializeToString()


def is_protobuf(content_type: str | None) -> bool:
    """True when a Content-Type header names the Kubernetes protobuf media type."""
    return bool(content_type) and content_type.split(";")[0].strip().lower() == CONTENT_TYPE  # type: ignore[union-attr]
