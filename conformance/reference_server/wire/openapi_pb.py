"""The `/openapi/v2` document in protobuf: gnostic's `openapi.v2.Document`, as kube-openapi serves it.

kube-openapi (`pkg/handler/handler.go`, `ToProtoBinary`) parses its JSON document into gnostic's
`openapi_v2.Document` (`openapiv2/OpenAPIv2.proto` of google/gnostic-models) and marshals that; client-go's
discovery `OpenAPISchema()`, helm's validation and `kubectl explain --output plaintext-openapiv2` read it. This
is a small hand-written encoder of the messages a Kubernetes document uses, written from that .proto's field
numbers; vendor extensions, defaults and enum values travel as gnostic's `Any{yaml}`, which readers unmarshal
as YAML (JSON text is YAML, so the value is written as JSON).
"""
from __future__ import annotations

import json
import struct
from typing import Any, Callable

CONTENT_TYPE = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
DEPRECATED_CONTENT_TYPE = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"

Encoder = Callable[[Any], bytes]


# ---- wire primitives ----------------------------------------------------------------------------------------
def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1  # negative int64: two's complement, ten bytes
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _len(num: int, payload: bytes) -> bytes:
    return _varint(num << 3 | 2) + _varint(len(payload)) + payload


def _string(num: int, value: Any) -> bytes:
    return _len(num, str(value).encode()) if value not in (None, "") else b""


def _strings(num: int, values: Any) -> bytes:
    if isinstance(values, str):
        values = [values]
    return b"".join(_len(num, str(v).encode()) for v in values or ())


def _bool(num: int, value: Any) -> bytes:
    return _varint(num << 3) + b"\x01" if value is True else b""


def _int64(num: int, value: Any) -> bytes:
    return _varint(num << 3) + _varint(int(value)) if isinstance(value, (int, float)) and value else b""


def _double(num: int, value: Any) -> bytes:
    return _varint(num << 3 | 1) + struct.pack("<d", float(value)) if isinstance(value, (int, float)) else b""


def _any(value: Any) -> bytes:
    """gnostic `Any`: field 2, the value as YAML text."""
    return _string(2, json.dumps(value, separators=(",", ":")))


def _message(num: int, payload: bytes) -> bytes:
    return _len(num, payload)


def _named(num: int, name: str, value: bytes) -> bytes:
    """gnostic's `Named<Type>`: name = 1, value = 2."""
    return _message(num, _string(1, name) + _message(2, value))


def _extensions(num: int, obj: dict[str, Any]) -> bytes:
    return b"".join(_named(num, k, _any(v)) for k, v in obj.items() if k.startswith("x-"))


# ---- Schema -------------------------------------------------------------------------------------------------
_SCHEMA_SCALARS: tuple[tuple[str, int, Callable[[int, Any], bytes]], ...] = (
    ("$ref", 1, _string), ("format", 2, _string), ("title", 3, _string), ("description", 4, _string),
    ("multipleOf", 6, _double), ("maximum", 7, _double), ("exclusiveMaximum", 8, _bool), ("minimum", 9, _double),
    ("exclusiveMinimum", 10, _bool), ("maxLength", 11, _int64), ("minLength", 12, _int64), ("pattern", 13, _string),
    ("maxItems", 14, _int64), ("minItems", 15, _int64), ("uniqueItems", 16, _bool), ("maxProperties", 17, _int64),
    ("minProperties", 18, _int64), ("required", 19, _strings),
)


def schema(s: dict[str, Any]) -> bytes:
    """`openapi.v2.Schema`."""
    out = [enc(num, s[key]) for key, num, enc in _SCHEMA_SCALARS if key in s]
    if "default" in s:
        out.append(_message(5, _any(s["default"])))
    out += [_message(20, _any(v)) for v in s.get("enum") or ()]
    extra = s.get("additionalProperties")
    if isinstance(extra, dict):
        out.append(_message(21, _message(1, schema(extra))))
    elif isinstance(extra, bool):
        out.append(_message(21, _varint(2 << 3) + (b"\x01" if extra else b"\x00")))
    if "type" in s:
        out.append(_message(22, _strings(1, s["type"])))
    items = s.get("items")
    if isinstance(items, (dict, list)):
        out.append(_message(23, b"".join(_message(1, schema(i)) for i in (items if isinstance(items, list)
                                                                           else [items]))))
    out += [_message(24, schema(a)) for a in s.get("allOf") or ()]
    if isinstance(s.get("properties"), dict):
        out.append(_message(25, b"".join(_named(1, k, schema(v)) for k, v in s["properties"].items())))
    out.append(_string(26, s.get("discriminator")))
    out.append(_bool(27, s.get("readOnly")))
    if "example" in s:
        out.append(_message(30, _any(s["example"])))
    out.append(_extensions(31, s))
    return b"".join(out)


# ---- Parameters, operations, paths --------------------------------------------------------------------------
# Non-body parameter sub-schemas: JSON key -> field number (Header/Path have no allowEmptyValue, so their later
# numbers are one lower); vendor_extension follows multiple_of.
_SUB_SCHEMAS: dict[str, tuple[int, dict[str, int]]] = {}
_COMMON = ("required", "in", "description", "name")
_TAIL = ("type", "format", "items", "collectionFormat", "default", "maximum", "exclusiveMaximum", "minimum",
         "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "enum",
         "multipleOf")
for _where, _oneof, _empty in (("header", 1, False), ("formData", 2, True), ("query", 3, True), ("path", 4, False)):
    _keys = (*_COMMON, *(("allowEmptyValue",) if _empty else ()), *_TAIL)
    _numbers = {k: i + 1 for i, k in enumerate(_keys)}
    _numbers["vendor"] = len(_keys) + 1
    _SUB_SCHEMAS[_where] = (_oneof, _numbers)
_KINDS: dict[str, Callable[[int, Any], bytes]] = {
    "required": _bool, "in": _string, "description": _string, "name": _string, "allowEmptyValue": _bool,
    "type": _string, "format": _string, "collectionFormat": _string, "maximum": _double, "exclusiveMaximum": _bool,
    "minimum": _double, "exclusiveMinimum": _bool, "maxLength": _int64, "minLength": _int64, "pattern": _string,
    "maxItems": _int64, "minItems": _int64, "uniqueItems": _bool, "multipleOf": _double,
}


def _primitives_items(items: dict[str, Any]) -> bytes:
    """`PrimitivesItems` (type 1, format 2, items 3, collection_format 4)."""
    return (_string(1, items.get("type")) + _string(2, items.get("format"))
            + (_message(3, _primitives_items(items["items"])) if isinstance(items.get("items"), dict) else b"")
            + _string(4, items.get("collectionFormat")))


def _non_body(p: dict[str, Any]) -> bytes:
    oneof, numbers = _SUB_SCHEMAS[p.get("in", "query")]
    out = []
    for key, num in numbers.items():
        if key == "vendor" or key not in p:
            continue
        if key == "items" and isinstance(p[key], dict):
            out.append(_message(num, _primitives_items(p[key])))
        elif key == "default":
            out.append(_message(num, _any(p[key])))
        elif key == "enum":
            out += [_message(num, _any(v)) for v in p[key]]
        elif key in _KINDS:
            out.append(_KINDS[key](num, p[key]))
    out.append(_extensions(numbers["vendor"], p))
    return _message(oneof, b"".join(out))


def _parameter_value(p: dict[str, Any]) -> bytes:
    """`Parameter`: a body (1) or non-body (2) parameter."""
    if p.get("in") == "body":
        body = (_string(1, p.get("description")) + _string(2, p.get("name")) + _string(3, "body")
                + _bool(4, p.get("required")) + _message(5, schema(p.get("schema") or {})) + _extensions(6, p))
        return _message(1, body)
    if p.get("in") not in _SUB_SCHEMAS:
        return b""
    return _message(2, _non_body(p))


def _parameter(p: dict[str, Any]) -> bytes:
    """`ParametersItem`: a `Parameter` or a `JsonReference` (a shared parameter's `#/parameters/<name>`)."""
    if "$ref" in p:
        return _message(2, _string(1, p["$ref"]))
    value = _parameter_value(p)
    return _message(1, value) if value else b""


def _responses(responses: dict[str, Any]) -> bytes:
    out = []
    for code, r in responses.items():
        if code.startswith("x-"):
            continue
        if "$ref" in r:
            value = _message(2, _string(1, r["$ref"]))
        else:
            body = _string(1, r.get("description"))
            if isinstance(r.get("schema"), dict):
                body += _message(2, _message(1, schema(r["schema"])))
            value = _message(1, body + _extensions(5, r))
        out.append(_named(1, code, value))
    return b"".join(out) + _extensions(2, responses)


def _operation(op: dict[str, Any]) -> bytes:
    return b"".join((
        _strings(1, op.get("tags")), _string(2, op.get("summary")), _string(3, op.get("description")),
        _string(5, op.get("operationId")), _strings(6, op.get("produces")), _strings(7, op.get("consumes")),
        b"".join(_message(8, _parameter(p)) for p in op.get("parameters") or ()),
        _message(9, _responses(op["responses"])) if isinstance(op.get("responses"), dict) else b"",
        _strings(10, op.get("schemes")), _bool(11, op.get("deprecated")), _extensions(13, op)))


_VERBS = (("get", 2), ("put", 3), ("post", 4), ("delete", 5), ("options", 6), ("head", 7), ("patch", 8))


def _path_item(item: dict[str, Any]) -> bytes:
    out = [_string(1, item.get("$ref"))]
    out += [_message(num, _operation(item[verb])) for verb, num in _VERBS if isinstance(item.get(verb), dict)]
    out += [_message(9, _parameter(p)) for p in item.get("parameters") or ()]
    out.append(_extensions(10, item))
    return b"".join(out)


def _security_definition(d: dict[str, Any]) -> bytes:
    if d.get("type") == "basic":
        return _message(1, _string(1, "basic") + _string(2, d.get("description")) + _extensions(3, d))
    if d.get("type") == "apiKey":
        return _message(2, _string(1, "apiKey") + _string(2, d.get("name")) + _string(3, d.get("in"))
                        + _string(4, d.get("description")) + _extensions(5, d))
    return b""


def document(doc: dict[str, Any]) -> bytes:
    """`openapi.v2.Document` of a Swagger 2.0 JSON document."""
    info = doc.get("info") or {}
    out = [_string(1, doc.get("swagger")),
           _message(2, _string(1, info.get("title")) + _string(2, info.get("version"))
                    + _string(3, info.get("description")) + _extensions(7, info)),
           _string(3, doc.get("host")), _string(4, doc.get("basePath")), _strings(5, doc.get("schemes")),
           _strings(6, doc.get("consumes")), _strings(7, doc.get("produces"))]
    paths = doc.get("paths") or {}
    out.append(_message(8, _extensions(1, paths) + b"".join(
        _named(2, p, _path_item(item)) for p, item in paths.items() if not p.startswith("x-"))))
    out.append(_message(9, b"".join(_named(1, name, schema(s)) for name, s in (doc.get("definitions") or {}).items())))
    if doc.get("parameters"):  # ParameterDefinitions: `NamedParameter`s
        out.append(_message(10, b"".join(_named(1, name, _parameter_value(p))
                                         for name, p in doc["parameters"].items())))
    for requirement in doc.get("security") or ():
        out.append(_message(12, b"".join(_named(1, name, _strings(1, scopes)) for name, scopes in requirement.items())))
    defs = doc.get("securityDefinitions") or {}
    if defs:
        out.append(_message(13, b"".join(_named(1, name, _security_definition(d)) for name, d in defs.items())))
    out.append(_extensions(16, doc))
    return b"".join(out)
