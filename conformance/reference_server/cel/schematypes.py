"""CEL types of a served kind from the server's field model (`wire/schema.py`, the source of its OpenAPI
documents), as `staging/src/k8s.io/apiserver/pkg/cel/common/schemas.go` `SchemaDeclType` derives them from a kind's
OpenAPI schema for the type checker: objects with their properties as fields (plus `apiVersion` and `kind` at the
root), `additionalProperties` maps keyed by string, arrays lists, integers `int`, numbers `double`, `byte` strings
`bytes`, `date-time` strings timestamps.

Where the schema's CEL type depends on details this server does not reproduce (Quantity's `oneOf`, IntOrString,
`FieldsV1`, `RawExtension`) the field is UNKNOWN: the checker accepts anything done with it."""
from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from ..wire import schema
from .types import (BOOL, BYTES, DOUBLE, INT, STRING, TIMESTAMP, UNKNOWN, Type, list_of, map_of)

_SCALARS = {"s": STRING, "b": BOOL, "y": BYTES, "i32": INT, "i64": INT, "u32": INT, "u64": INT, "f32": DOUBLE,
            "f64": DOUBLE}
_SPECIAL = {"meta.Time": TIMESTAMP, "meta.MicroTime": TIMESTAMP}


def _field_type(f: schema.Field, objects: dict[str, Mapping[str, Type]]) -> Type:
    if f.type in schema.STRING_LIST_MESSAGES:
        value = list_of(STRING)
    elif not f.is_message:
        value = _SCALARS.get(f.type, UNKNOWN)
    elif f.type in _SPECIAL:
        value = _SPECIAL[f.type]
    elif f.type in schema.JSON_SCALAR_MESSAGES:
        value = UNKNOWN
    else:
        value = _declare(f.type, objects)
    if f.map_key is not None:
        return map_of(STRING, value)
    return list_of(value) if f.repeated else value


def _declare(message: str, objects: dict[str, Mapping[str, Type]]) -> Type:
    if message not in objects:
        fields: dict[str, Type] = {}
        objects[message] = fields  # declared before its fields: recursive messages end here
        for name, f in schema.json_fields(message).items():
            fields[name] = _field_type(f, objects)
    return Type(message)


@lru_cache(maxsize=64)
def kind_type(message: str) -> tuple[Type, Mapping[str, Mapping[str, Type]]]:
    """The root type of a kind's message and every object type under it (name -> fields)."""
    objects: dict[str, Mapping[str, Type]] = {}
    root = _declare(message, objects)
    objects[message] = {"apiVersion": STRING, "kind": STRING, **objects[message]}
    return root, objects


def message_of(group_version: str, kind: str) -> str | None:
    """The field model's message of a served kind, None for a kind it does not describe."""
    message = schema.OUTPUT_MESSAGES.get((group_version, kind))
    return message if message is not None and message in schema.MESSAGES else None
