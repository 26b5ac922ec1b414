"""An `/openapi/v3/<group-version>` document in protobuf: gnostic's `openapi.v3.Document`, as kube-openapi serves it.

kube-openapi (`pkg/handler3/handler.go`, `ToV3ProtoBinary`) parses the group-version's JSON with gnostic's
`openapi_v3.ParseDocument` (github.com/google/gnostic-models `openapiv3/OpenAPIv3.go`, generated from
`OpenAPIv3.proto`) and `proto.Marshal`s the result; client-go's `openapi.ContentTypeOpenAPIV3PB` readers (operators
building SSA type parsers, e.g. from `managedfields.NewGVKParser`) decode it. The field numbers come from
`_openapiv3_table.py` (generated from the descriptor kubectl embeds); the parse rules below are the generated
parser's, written out once instead of per message:

* a message field is set whenever its key is present (camelCase of the proto name, `$ref` for `_ref`), so an
  empty object still travels as an empty message; proto3 scalars are written only when not zero, oneof members
  always; fields go out in number order, as protobuf-go marshals;
* `specification_extension`: every `x-` key, in document order, as `NamedAny`;
* messages holding only `additional_properties` (Properties, MediaTypes, SchemasOrReferences, ...): every key
  as a `Named*` pair; `Paths`: keys starting with `/`; `Responses`: `default`, then three-character codes;
* `*OrReference`: a `Reference` when the object has `$ref`, else the other member; `ItemsItem`: one schema;
  `AdditionalPropertiesItem`: a bool or a schema; `DefaultType`: number, boolean or string by the JSON type
  (an object or array default is an empty `DefaultType`, as gnostic leaves it);
* `Any`: the value as YAML text (gnostic marshals the parsed node with go-yaml; this writes it in flow style,
  `{"a": 1}`, which readers unmarshal to the same value; byte equality with go-yaml's output is not claimed).
"""
from __future__ import annotations

import json
import re
import struct
from typing import Any

from ._openapiv3_table import MESSAGES
from .openapi_pb import _len, _varint  # (the v2 form's wire primitives: the same encoding)

CONTENT_TYPE = "application/com.github.proto-openapi.spec.v3.v1.0+protobuf"
DEPRECATED_CONTENT_TYPE = "application/com.github.proto-openapi.spec.v3@v1.0+protobuf"

_RESPONSE_CODE = re.compile(r"^([0-9X]{3})$")  # gnostic's pattern3
_KEYS = {"_ref": "$ref"}


def _scalar(num: int, kind: str, value: Any, present: bool) -> bytes:
    """One scalar field; `present` (a oneof member) writes it even when zero."""
    if kind == "s":
        if not isinstance(value, str) or (value == "" and not present):
            return b""
        return _len(num, value.encode())
    if kind == "b":
        if not isinstance(value, bool) or (not value and not present):
            return b""
        return _varint(num << 3) + (b"\x01" if value else b"\x00")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (not value and not present):
        return b""
    if kind == "f64":
        return _varint(num << 3 | 1) + struct.pack("<d", float(value))
    return _varint(num << 3) + _varint(int(value))  # i64


def _camel(name: str) -> str:
    return _KEYS.get(name) or re.sub(r"_(\w)", lambda m: m.group(1).upper(), name)


_PLANS: dict[str, list[tuple[str | None, int, str, bool, bool]]] = {}


def _plan(message: str) -> list[tuple[str | None, int, str, bool, bool]]:
    """A message's fields with their JSON keys (None: the extensions), made once per message."""
    plan = _PLANS.get(message)
    if plan is None:
        plan = _PLANS[message] = [(None if name == "specification_extension" else _camel(name), num, kind, rep, one)
                                  for name, num, kind, rep, one in MESSAGES[message]]
    return plan


def _yaml(value: Any) -> str:
    return json.dumps(value, separators=(", ", ": "), ensure_ascii=False) + "\n"


def _named(num: int, message: str, key: str, value: Any) -> bytes:
    """A `Named<X>` pair: name = 1, value = 2 (a message or, for `NamedString`, a string)."""
    (_, _, _, _, _), (_, _, kind, _, _) = MESSAGES[message]
    inner = _len(2, encode(kind, value)) if kind in MESSAGES else _scalar(2, kind, value, False)
    return _len(num, _len(1, key.encode()) + inner)


def _extensions(num: int, message: str, obj: dict[str, Any]) -> bytes:
    return b"".join(_named(num, message, k, v) for k, v in obj.items() if k.startswith("x-"))


def encode(message: str, value: Any) -> bytes:
    """The body of `openapi.v3.<message>` parsed from a JSON value as gnostic's `New<message>` does."""
    fields = MESSAGES[message]
    if message == "Any":
        return _len(2, _yaml(value).encode())
    if message == "DefaultType":
        kind = {bool: 2, int: 1, float: 1, str: 3}.get(type(value))
        return _scalar(kind, {1: "f64", 2: "b", 3: "s"}[kind], value, True) if kind else b""
    if message == "AdditionalPropertiesItem":
        if isinstance(value, bool):
            return _scalar(2, "b", value, True)
        return _len(1, encode("SchemaOrReference", value)) if isinstance(value, dict) else b""
    if message == "ItemsItem":
        items = value if isinstance(value, list) else [value]
        return b"".join(_len(1, encode("SchemaOrReference", i)) for i in items if isinstance(i, dict))
    if message == "StringArray":
        return b"".join(_scalar(1, "s", v, True) for v in value or ())
    if not isinstance(value, dict):
        return b""
    if message.endswith("OrReference") and len(fields) == 2 and fields[1][0] == "reference":
        member = fields[1] if "$ref" in value else fields[0]
        return _len(member[1], encode(member[2], value))
    if len(fields) == 1 and fields[0][0] == "additional_properties":
        _, num, named, _, _ = fields[0]
        return b"".join(_named(num, named, k, v) for k, v in value.items())
    if message == "Paths":
        return (b"".join(_named(1, "NamedPathItem", k, v) for k, v in value.items() if k.startswith("/"))
                + _extensions(2, "NamedAny", value))
    if message == "Responses":
        return ((_len(1, encode("ResponseOrReference", value["default"])) if "default" in value else b"")
                + b"".join(_named(2, "NamedResponseOrReference", k, v) for k, v in value.items()
                           if _RESPONSE_CODE.match(k))
                + _extensions(3, "NamedAny", value))
    out = []
    for key, num, kind, repeated, oneof in _plan(message):
        if key is None:
            out.append(_extensions(num, kind, value))
            continue
        if key not in value:
            continue
        v = value[key]
        if kind not in MESSAGES:
            items = (v if isinstance(v, list) else [v]) if repeated else [v]
            out += [_scalar(num, kind, i, oneof or repeated) for i in items]
        elif repeated:
            out += [_len(num, encode(kind, i)) for i in (v if isinstance(v, list) else [v])]
        else:
            out.append(_len(num, encode(kind, v)))
    return b"".join(out)


def document(doc: dict[str, Any]) -> bytes:
    """`openapi.v3.Document` of an OpenAPI 3.0 JSON document (kube-openapi's `ToV3ProtoBinary`)."""
    return encode("Document", doc)
